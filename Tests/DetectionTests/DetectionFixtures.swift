import Detection
import Foundation
import ImageCodecs
import XCTest
import _TestSupport

/// The detector fixtures: the converted weights in models/ (set-up writes them before tests run) and the goldens
/// `scripts/fixtures/make-detector-goldens.py` wrote from the frozen graph run by TensorFlow.
enum DetectionFixtures {
    /// The repository root: this file is `<root>/Tests/DetectionTests/DetectionFixtures.swift`.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$WORKBENCH_DETECTOR`, else `<root>/models/ssdlite-mobilenetv2-person.safetensors`. Fails (never skips) when absent.
    static func detectorPath(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path =
            ProcessInfo.processInfo.environment[DetectorLocation.environmentVariable]
            ?? root.appendingPathComponent("models").appendingPathComponent(DetectorLocation.fileName).path
        guard FileManager.default.fileExists(atPath: path) else {
            XCTFail("person detector not found at \(path): run scripts/setup.sh first", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return path
    }

    /// One detector for the whole test run (loading takes a moment in debug builds).
    nonisolated(unsafe) private static var loaded: ObjectDetector?
    private static let lock = NSLock()
    static func detector() throws -> ObjectDetector {
        lock.lock()
        defer { lock.unlock() }
        if let loaded { return loaded }
        let detector = try ObjectDetector.load(path: try detectorPath(), threads: 2)
        loaded = detector
        return detector
    }

    /// A file in `Tests/DetectionTests/Fixtures` (copied into the test bundle).
    static func fixture(_ name: String) -> URL {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent(name)
    }

    /// One picture's reference detections from `detector-goldens.json`.
    struct Picture: Decodable {
        let name: String
        let file: String
        let width: Int
        let height: Int
        let pixelHash: String
        let detections: [Detection]
        let boxEncodings: [Float]?
        let classLogits: [Float]?
        let inputSamples: [Sample]?

        struct Detection: Decodable {
            let score: Float
            let left: Double
            let top: Double
            let right: Double
            let bottom: Double
            var box: BoundingBox { BoundingBox(left: left, top: top, right: right, bottom: bottom) }
            var scored: DetectionComparison.Scored {
                .init(score: score, box: .init(left: left, top: top, right: right, bottom: bottom))
            }
        }

        struct Sample: Decodable {
            let index: Int
            let value: Float
        }
    }

    struct Goldens: Decodable {
        let reportScore: Float
        let pictures: [Picture]
    }

    static func goldens() throws -> Goldens {
        try JSONDecoder().decode(Goldens.self, from: Data(contentsOf: fixture("detector-goldens.json")))
    }

    /// The anchors TensorFlow computed, as corners (ymin, xmin, ymax, xmax).
    static func graphAnchors() throws -> [[Float]] {
        struct File: Decodable { let anchors: [[Float]] }
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: fixture("detector-anchors.json"))).anchors
    }

    /// A Workbench detection in the comparison's plain terms.
    static func scored(_ object: DetectedObject) -> DetectionComparison.Scored {
        .init(
            score: object.confidence,
            box: .init(left: object.box.left, top: object.box.top, right: object.box.right, bottom: object.box.bottom))
    }

    /// FNV-1a 64 of bytes, as the golden generator hashes the decoded pixels.
    static func fnv1a64(_ bytes: [UInt8]) -> String {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01B3
        }
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
