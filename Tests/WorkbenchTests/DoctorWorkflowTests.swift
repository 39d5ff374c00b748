import Foundation
import Workbench
import XCTest
import _TestSupport

/// `DoctorWorkflow.run` in this process on the tiny cat/espresso dataset with planted problems: a cat photo in the
/// espresso folder and a training picture copied byte for byte into testing.
final class DoctorWorkflowTests: XCTestCase {
    private var workspace: TinyDatasetWorkspace!

    override func setUpWithError() throws {
        workspace = try TinyDatasetWorkspace()
        let files = FileManager.default
        let training = workspace.dataset.appendingPathComponent("Training Data")
        try files.moveItem(
            at: training.appendingPathComponent("cat/2.png"), to: training.appendingPathComponent("espresso/cat-2.png"))
        try files.copyItem(
            at: training.appendingPathComponent("cat/3.png"),
            to: workspace.dataset.appendingPathComponent("Testing Data/cat/copy-3.png"))
    }

    override func tearDown() {
        workspace?.remove()
        super.tearDown()
    }

    private func request(page: DoctorPage) -> DoctorRequest {
        var request = DoctorRequest(datasetPath: workspace.dataset.path)
        request.page = page
        request.features = FeatureSettings(threads: 2, usesCache: false)
        return request
    }

    /// Every file of the dataset with its bytes.
    private func snapshot() throws -> [String: Data] {
        var contents: [String: Data] = [:]
        let walker = try XCTUnwrap(FileManager.default.enumerator(atPath: workspace.dataset.path))
        for case let relative as String in walker {
            let path = workspace.dataset.appendingPathComponent(relative).path
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
                contents[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return contents
    }

    /// One run (each costs a minute in a debug build): the findings, the page, the JSON's keys and the
    /// out-of-sample probabilities.
    func testFindsThePlantedProblemsAndChangesNothing() throws {
        let before = try snapshot()
        let page = workspace.folder.appendingPathComponent("Tiny-doctor.html").path
        var hashed = 0
        var asked = request(page: .at(page))
        asked.includesProbabilities = true
        let result = try DoctorWorkflow.run(asked) { event in
            if case .hashing = event { hashed += 1 }
        }
        let report = result.report
        XCTAssertGreaterThan(hashed, 0)
        XCTAssertEqual(try snapshot(), before, "doctor never changes the dataset")

        let issue = try XCTUnwrap(report.labelIssues.first, "\(report.labelIssues)")
        XCTAssertTrue(issue.path.hasSuffix("Training Data/espresso/cat-2.png"), issue.path)
        XCTAssertEqual(issue.label, "espresso")
        XCTAssertEqual(issue.suggestedLabel, "cat")
        XCTAssertEqual(issue.split, "training")
        XCTAssertGreaterThan(issue.confidence, 0.5)

        let exact = report.duplicates.filter { $0.kind == .exact }
        XCTAssertEqual(exact.count, 1, "\(exact)")
        XCTAssertEqual(exact.first?.paths.map { ($0 as NSString).lastPathComponent }, ["3.png", "copy-3.png"])
        XCTAssertEqual(exact.first?.splits, ["training", "testing"])
        XCTAssertEqual(exact.first?.leak, true)
        XCTAssertEqual(report.duplicates.first?.kind, .exact, "exact copies first")

        let cat = try XCTUnwrap(report.labels.first { $0.label == "cat" })
        XCTAssertEqual([cat.training, cat.testing], [5, 3])

        // One row of probabilities per picture, each summing to 1.
        let probabilities = try XCTUnwrap(report.outOfSample)
        XCTAssertEqual(probabilities.labels, ["cat", "espresso"])
        XCTAssertEqual(probabilities.paths.count, 17)
        XCTAssertEqual(probabilities.probabilities.count, 17)
        for row in probabilities.probabilities { XCTAssertEqual(Double(row.reduce(0, +)), 1, accuracy: 1e-4) }

        XCTAssertEqual(result.pagePath, page)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"))
        XCTAssertTrue(html.contains("cat-2.png"))
        XCTAssertTrue(html.contains("data:image/jpeg;base64,"), "thumbnails are embedded")

        // The JSON carries the issue's keys.
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(ReportJSON.text(report).utf8)) as? [String: Any])
        for key in ["labelIssues", "duplicates", "outliers", "labels"] { XCTAssertNotNil(json[key], key) }
        let firstIssue = try XCTUnwrap((json["labelIssues"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(firstIssue.keys).isSuperset(of: ["path", "split", "label", "suggestedLabel", "confidence"]), true)
        let firstCopy = try XCTUnwrap((json["duplicates"] as? [[String: Any]])?.first)
        XCTAssertEqual(firstCopy["kind"] as? String, "exact")
    }

    /// A page inside the dataset is refused before anything runs.
    func testRefusesAPageInsideTheDataset() throws {
        let inside = workspace.dataset.appendingPathComponent("Training Data/page.html").path
        XCTAssertThrowsError(try DoctorWorkflow.run(request(page: .at(inside)))) { error in
            XCTAssertTrue("\(error)".contains("inside the dataset folder"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: inside))
    }
}
