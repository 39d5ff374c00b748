import Foundation
@testable import Workbench
import XCTest
import _TestSupport

/// Which boxes a detector's `evaluate` scores, and its page's names (no model run here: the scores are compared
/// with train's through the binary in WorkbenchCLITests.DetectorEvaluateCommandTests).
final class DetectorEvaluationWorkflowTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try WorkbenchBinary.temporaryFolder()
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func testTheLayoutsTrainTakesAreReadTheTestingSplitFirst() throws {
        let plain = folder.appendingPathComponent("plain")
        try SyntheticDetectionDataset.write(to: plain, count: 4, side: 48, seed: 1)
        XCTAssertEqual(try DetectorEvaluationWorkflow.annotationSet(dataset: plain.path).images.count, 4)

        let split = folder.appendingPathComponent("split")
        try SyntheticDetectionDataset.write(to: split.appendingPathComponent("Training Data"), count: 5, side: 48, seed: 2)
        try SyntheticDetectionDataset.write(to: split.appendingPathComponent("Testing Data"), count: 3, side: 48, seed: 3)
        let testing = try DetectorEvaluationWorkflow.annotationSet(dataset: split.path)
        XCTAssertEqual(testing.images.count, 3)
        XCTAssertEqual(testing.file, split.path + "/Testing Data/annotations.json")

        // An annotations file: its entries only, no negatives walked for.
        let file = plain.appendingPathComponent("annotations.json").path
        let read = try DetectorEvaluationWorkflow.annotationSet(dataset: file)
        XCTAssertEqual(read.images.count, 4)
        XCTAssertEqual(read.negatives, [])
    }

    func testThePageIsolatesTheModelAndDatasetNames() throws {
        let head = DetectorHeadNetwork<Float>(labelCount: 2, width: 4, seed: 1)
        let detector = TrainedDetector(head: head, labels: ["disc", "square"], inputSide: 64, threshold: 0.4)
        let picture = ScoredPicture(
            path: folder.appendingPathComponent("absent.png").path,
            evaluated: EvaluatedImage(
                groundTruth: [ObjectAnnotation(label: "disc", box: CornerBox(left: 1, top: 1, right: 9, bottom: 9))],
                predictions: [PredictedObject(label: "disc", score: 0.9, box: CornerBox(left: 1, top: 1, right: 9, bottom: 8))]))
        func page(_ name: String) -> String {
            let request = DetectorEvaluationRequest(modelPath: "models/\(name).wbmodel", datasetPath: "data/\(name)")
            return DetectorEvaluationWorkflow.page(
                [picture], request: request, detector: detector,
                annotationsFile: "data/\(name)/annotations.json"
            ).html()
        }
        let plain = HostileNames.tagSequence(page("plain"))
        HostileNames.check("detector evaluation page", count: 30) { name in
            HostileNames.markupProblem(page(name), plainTags: plain)
        }
    }
}
