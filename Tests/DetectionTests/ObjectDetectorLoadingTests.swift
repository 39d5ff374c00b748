import Detection
import FileFormats
import Foundation
import ImageCodecs
import Models
import XCTest

/// Loading refuses what is not a detector file with one line naming the file; odd pictures give sane answers.
final class ObjectDetectorLoadingTests: XCTestCase {
    func scratchFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("detector-loading-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder
    }

    func testAMissingFileIsNamed() throws {
        let path = try scratchFolder().appendingPathComponent("absent.safetensors").path
        XCTAssertThrowsError(try ObjectDetector.load(path: path, threads: 1)) { error in
            XCTAssertTrue("\(error)".hasPrefix(path + ": "), "\(error)")
        }
    }

    func testOtherWeightsAreRefusedNamingWhatIsMissing() throws {
        let backbone = DetectionFixtures.root.appendingPathComponent("models/efficientnet-lite0.safetensors").path
        XCTAssertThrowsError(try ObjectDetector.load(path: backbone, threads: 1)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix(backbone + ": "), text)
            XCTAssertTrue(text.contains("metadata") || text.contains("missing tensors"), text)
            XCTAssertFalse(text.contains("\n"), "one line: \(text)")
        }
    }

    func testATruncatedDetectorFileIsRefused() throws {
        let source = try DetectionFixtures.detectorPath()
        var file = try SafetensorsFile.read(path: source)
        file.tensors["BoxPredictor_3/ClassPredictor.bias"] = nil
        file.tensors["anchors"] = SafetensorsFile.Tensor(shape: [4, 4], values: Array(repeating: 0, count: 16))
        let path = try scratchFolder().appendingPathComponent("broken.safetensors").path
        try file.write(path: path)
        XCTAssertThrowsError(try ObjectDetector.load(path: path, threads: 1)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("missing tensors: BoxPredictor_3/ClassPredictor.bias"), text)
            XCTAssertTrue(text.contains("anchors is [4, 4], expected [1917, 4]"), text)
        }
    }

    func testTinyAndExtremePicturesGiveBoxesInsideThePicture() throws {
        let detector = try DetectionFixtures.detector()
        XCTAssertEqual(detector.labels, ["person"])
        XCTAssertEqual(detector.inputSide, 300)
        for (width, height) in [(1, 1), (2000, 3), (3, 900)] {
            let image = RGBImage(width: width, height: height, pixels: Array(repeating: 128, count: width * height * 3))
            for object in detector.detect(in: image, minimumConfidence: 0.01) {
                XCTAssertTrue(
                    object.box.left >= 0 && object.box.top >= 0 && object.box.right <= Double(width)
                        && object.box.bottom <= Double(height) && object.box.area > 0, "\(width)×\(height): \(object.box)")
            }
        }
        XCTAssertEqual(detector.detect(in: RGBImage(width: 0, height: 0, pixels: []), minimumConfidence: 0.5), [])
    }

    func testTheBatchedCallGivesEachPicturesOwnAnswer() throws {
        let detector = try DetectionFixtures.detector()
        let pictures = try DetectionFixtures.goldens().pictures.filter { ["blox", "tree-001s", "basketball1"].contains($0.name) }.map {
            try ImageLoader.load(path: DetectionFixtures.fixture($0.file).path)
        }
        let batched = detector.detect(in: pictures, minimumConfidence: 0.3)
        XCTAssertEqual(batched, pictures.map { detector.detect(in: $0, minimumConfidence: 0.3) })
    }

    func testTheLocationPrefersTheExplicitPath() throws {
        XCTAssertEqual(try DetectorLocation.resolve(explicit: "/some/detector.safetensors"), "/some/detector.safetensors")
        XCTAssertEqual(DetectorLocation.fileName, "ssdlite-mobilenetv2-person.safetensors")
    }
}
