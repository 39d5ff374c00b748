import Foundation
import Workbench
import XCTest
import _TestSupport

/// `TrainingWorkflow.run`'s files, in this process on the tiny cat/espresso dataset: nothing is written until
/// training is done, each file appears whole (a temporary file renamed into place), they are written in the order
/// `TrainingOutput` documents (the model, the JSON report, the page), and a failing step leaves the files written
/// before it and nothing of its own.
final class TrainingWorkflowTests: XCTestCase {
    private var workspace: TinyDatasetWorkspace!
    private var folder: URL!

    override func setUpWithError() throws {
        workspace = try TinyDatasetWorkspace()
        folder = workspace.folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        workspace?.remove()
        super.tearDown()
    }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The model, the JSON report and the page in `folder`, with no feature cache.
    private func request() -> TrainingWorkflowRequest {
        var request = TrainingWorkflowRequest(datasetPath: workspace.dataset.path)
        request.training.creationDate = Date(timeIntervalSince1970: 1_700_000_000)
        request.output = TrainingOutput(model: path("Tiny.wbmodel"), report: path("report.json"), page: .at(path("page.html")))
        request.features = FeatureSettings(threads: 2, usesCache: false)
        return request
    }

    private func folderContents() throws -> Set<String> { Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)) }

    func testTheFilesAppearOnlyOnceTrainedWholeAndInOrder() throws {
        var fitted = false
        let trained = try TrainingWorkflow.run(request()) { event in
            guard case .fitting = event else { return }
            fitted = true
            XCTAssertEqual(try? self.folderContents(), [], "nothing is written before the model is trained")
        }
        XCTAssertTrue(fitted)
        XCTAssertEqual(trained.modelPath, path("Tiny.wbmodel"))
        XCTAssertEqual(trained.reportPath, path("report.json"))
        XCTAssertEqual(trained.pagePath, path("page.html"))
        XCTAssertFalse(trained.replacedModel)
        XCTAssertEqual(try folderContents(), ["Tiny.wbmodel", "report.json", "page.html"], "no temporary file is left")
        // The model file is whole: it loads, with the labels the report gives.
        let classifier = try Classifier.load(path: trained.modelPath)
        XCTAssertEqual(classifier.labels, trained.result.report.labels)
        XCTAssertEqual(try String(contentsOfFile: path("report.json"), encoding: .utf8), try ReportJSON.text(trained.result.report))
        XCTAssertTrue(try String(contentsOfFile: path("page.html"), encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        // Written in the documented order: each file is no newer than the one after it.
        let times = try ["Tiny.wbmodel", "report.json", "page.html"].map { name in
            try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path(name))[.modificationDate] as? Date)
        }
        XCTAssertLessThanOrEqual(times[0], times[1])
        XCTAssertLessThanOrEqual(times[1], times[2])

        // Trained again over the same files: the model is replaced, and says so.
        var again = request()
        again.output.page = .none
        XCTAssertTrue(try TrainingWorkflow.run(again).replacedModel)
    }

    /// The report cannot be written (a folder took its place while the head was fitted): the model, written first,
    /// is there and whole; the report's place is as it was; the page, which comes after, is not written.
    func testAFailedWriteKeepsTheFilesBeforeItAndWritesNothingAfter() throws {
        XCTAssertThrowsError(
            try TrainingWorkflow.run(request()) { event in
                if case .fitting = event {
                    try? FileManager.default.createDirectory(atPath: self.path("report.json"), withIntermediateDirectories: false)
                }
            }
        ) { error in
            XCTAssertTrue("\(error)".contains(path("report.json")), "\(error)")
        }
        XCTAssertEqual(try folderContents(), ["Tiny.wbmodel", "report.json"], "no page, no temporary file")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("report.json")), [], "the folder is untouched")
        XCTAssertEqual(try Classifier.load(path: path("Tiny.wbmodel")).labels, ["cat", "espresso"])
    }

    /// Training itself fails (the validation folder is missing): no file at all.
    func testAFailedRunWritesNothing() throws {
        var failing = request()
        failing.training.validationPath = workspace.folder.appendingPathComponent("no-such-folder").path
        XCTAssertThrowsError(try TrainingWorkflow.run(failing)) { error in
            XCTAssertTrue("\(error)".contains("no-such-folder"), "\(error)")
        }
        XCTAssertEqual(try folderContents(), [])
    }
}
