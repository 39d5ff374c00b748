import Foundation
import Workbench
import XCTest
import _TestSupport

/// `FeaturesWorkflow.run` in this process on three fixture pictures and a broken file: the vectors the extractor
/// gives each picture on its own, in input order; the broken file counted (or, strict, the error); shards that
/// split the pictures; a deliver that fails stops the run. No ffmpeg, no Python.
final class FeaturesWorkflowTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try WorkbenchBinary.temporaryFolder()
        let fixtures = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/ModelsTests/Fixtures")
        for name in ["chelsea.jpg", "coffee.jpg", "coffee_224.png"] {
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        try Data("not a picture".utf8).write(to: folder.appendingPathComponent("broken.jpg"))
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func request() -> FeaturesRequest {
        var request = FeaturesRequest(inputs: [folder.path])
        // No feature cache: a test must neither read nor fill the user's.
        request.features = FeatureSettings(threads: 2, usesCache: false)
        return request
    }

    func testVectorsInInputOrderAndTheBrokenFileCounted() throws {
        var delivered: [(path: String, features: [Float])] = []
        var skipped: [String] = []
        let result = try FeaturesWorkflow.run(request(), events: { if case .skipped(let error) = $0 { skipped.append("\(error)") } }) {
            delivered.append(($0, $1))
            return true
        }
        XCTAssertEqual(result.images, 4)
        XCTAssertEqual(result.done, 3)
        XCTAssertEqual(result.failed, 1)
        XCTAssertEqual(skipped.count, 1)
        XCTAssertTrue(skipped.first?.hasPrefix(folder.appendingPathComponent("broken.jpg").path) ?? false, "\(skipped)")
        let order = try ImageFileList.expand([folder.path]).files.filter { !$0.hasSuffix("broken.jpg") }
        XCTAssertEqual(delivered.map(\.path), order, "in input order")
        let extractor = FeatureExtractor(backbone: try BackboneSource.pretrained(path: nil).load(), settings: request().features)
        for (path, features) in delivered {
            let alone = try extractor.features(ofImageAt: path)
            XCTAssertEqual(features.count, 1280)
            // The same network on the same pixels; batching may only reorder sums.
            let difference = zip(features, alone).map { abs($0 - $1) }.max() ?? .infinity
            XCTAssertLessThan(difference, 1e-4, "\(path)")
        }
    }

    func testStrictShardsAndAStoppedDelivery() throws {
        var strict = request()
        strict.strict = true
        XCTAssertThrowsError(try FeaturesWorkflow.run(strict, events: { _ in }) { _, _ in true }) { error in
            XCTAssertTrue("\(error)".hasPrefix(folder.appendingPathComponent("broken.jpg").path), "\(error)")
        }

        var seen: [String] = []
        var images = 0
        for index in 0..<2 {
            var shard = request()
            shard.shard = try Shard(index: index, count: 2)
            let result = try FeaturesWorkflow.run(shard, events: { _ in }) { path, _ in
                seen.append(path)
                return true
            }
            images += result.images
        }
        XCTAssertEqual(images, 4, "the two shards split the four files")
        XCTAssertEqual(seen.sorted(), try ImageFileList.expand([folder.path]).files.filter { !$0.hasSuffix("broken.jpg") }.sorted())

        var delivered = 0
        let stopped = try FeaturesWorkflow.run(request(), events: { _ in }) { _, _ in
            delivered += 1
            return false
        }
        XCTAssertEqual(delivered, 1, "no image after a failed delivery")
        XCTAssertEqual(stopped.done, 0)
    }
}
