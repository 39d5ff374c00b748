@testable import Detection
import ImageCodecs
import Models
import XCTest
import _TestSupport

/// Workbench's detector against the frozen graph run by TensorFlow (goldens from
/// `scripts/fixtures/make-detector-goldens.py`): the decoded pixels, the preprocessed input, the raw network
/// outputs, the anchors and the final detections on 34 pictures and video frames.
final class ObjectDetectorGoldenTests: XCTestCase {
    /// The preprocessed input: the same Float formula as TensorFlow's kernel; only the last rounding may differ.
    static let preprocessingTolerance: Float = 1e-5
    /// Raw outputs after 70 layers summed in another order, with batch norm folded: measured at most 2.3e-5 (AVX2
    /// kernels; the goldens carry 6 decimals), allowed ten times that. A logit off by 2e-4 moves a score by 5e-5.
    static let rawOutputTolerance: Float = 2e-4
    /// Anchors: the same Float operations as the graph's generator.
    static let anchorTolerance: Float = 1e-6

    /// In this (debug) build, every third golden picture, which holds pictures with and without people: about 2 s
    /// a picture here. Every picture goes through the release binary in `DetectCommandTests` (`detect --json`).
    func testDetectionsMatchTheReferenceOnEveryThirdPicture() throws {
        let detector = try DetectionFixtures.detector()
        let goldens = try DetectionFixtures.goldens()
        XCTAssertGreaterThanOrEqual(goldens.pictures.count, 30)
        XCTAssertLessThanOrEqual(goldens.reportScore, DetectionComparison.reportedScore - DetectionComparison.scoreTolerance)
        let pictures = goldens.pictures.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        var withPeople = 0
        let images = try pictures.map { try ImageLoader.load(path: DetectionFixtures.fixture($0.file).path) }
        // All at once: the batched call runs two pictures at a time.
        let results = detector.detect(in: images, minimumConfidence: goldens.reportScore)
        for (picture, (image, found)) in zip(pictures, zip(images, results)) {
            XCTAssertEqual(DetectionFixtures.fnv1a64(image.pixels), picture.pixelHash, "\(picture.name): decoded pixels differ from the reference's")
            XCTAssertEqual([image.width, image.height], [picture.width, picture.height], picture.name)
            let problems = DetectionComparison.unmatched(
                workbench: found.map(DetectionFixtures.scored),
                reference: picture.detections.map(\.scored))
            XCTAssertTrue(problems.isEmpty, "\(picture.name): \(problems)")
            if picture.detections.contains(where: { $0.score >= DetectionComparison.reportedScore }) { withPeople += 1 }
        }
        XCTAssertGreaterThanOrEqual(withPeople, 4, "the subset should hold pictures with people")
        XCTAssertGreaterThanOrEqual(pictures.count - withPeople, 4, "and pictures without")
    }

    func testPreprocessingAndRawOutputsMatchTheGraphsTensors() throws {
        let detector = try DetectionFixtures.detector()
        let pictures = try DetectionFixtures.goldens().pictures.filter { $0.boxEncodings != nil }
        XCTAssertFalse(pictures.isEmpty)
        for picture in pictures {
            let image = try ImageLoader.load(path: DetectionFixtures.fixture(picture.file).path)
            let input = DetectorPreprocessing.prepare(image, side: detector.inputSide)
            for sample in try XCTUnwrap(picture.inputSamples) {
                XCTAssertEqual(input[sample.index], sample.value, accuracy: Self.preprocessingTolerance, "\(picture.name) input[\(sample.index)]")
            }
            let raw = detector.rawOutputs(for: image)
            assertClose(raw.boxEncodings, try XCTUnwrap(picture.boxEncodings), absolute: Self.rawOutputTolerance, "\(picture.name) box encodings")
            assertClose(raw.classLogits, try XCTUnwrap(picture.classLogits), absolute: Self.rawOutputTolerance, "\(picture.name) class logits")
        }
    }

    func testAnchorsAreTheGraphs() throws {
        let detector = try DetectionFixtures.detector()
        let corners = try DetectionFixtures.graphAnchors()
        XCTAssertEqual(corners.count, SSDLiteMobileNetV2.anchorCount)
        // The graph's decoder turns corners into centre and size: height = ymax − ymin, yCenter = ymin + height/2.
        let expected = corners.flatMap { corner -> [Float] in
            let height = corner[2] - corner[0], width = corner[3] - corner[1]
            return [corner[0] + height / 2, corner[1] + width / 2, height, width]
        }
        assertClose(detector.network.anchors, expected, absolute: Self.anchorTolerance, "anchors")
    }
}
