import Foundation
import XCTest
import _TestSupport
@testable import ClusterJobs

final class ShardAssignmentTests: XCTestCase {
    /// Inputs like a catalog: file names with some equal sizes, weights spread over three orders of magnitude.
    private func inputs(_ count: Int, seed: UInt64, distinctWeights: Int = 50) -> [WeightedInput] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            let weight = Int64(1 << Int.random(in: 0...10, using: &generator)) * Int64.random(in: 1...Int64(distinctWeights), using: &generator)
            return WeightedInput(path: "movies/\(Int.random(in: 0...99_999, using: &generator))-\(index).mp4", weight: weight)
        }
    }

    func testHandWorkedSplitOfSixFilesIntoTwo() {
        // Heaviest first, each to the lighter shard (ties to shard 0): a5→0 (5,0); b4→1 (5,4); c3→1 (5,7);
        // d3→0 (8,7); e2→1 (8,9); f1→0 (9,9).
        let files = zip(["a", "b", "c", "d", "e", "f"], [5, 4, 3, 3, 2, 1] as [Int64]).map { WeightedInput(path: $0, weight: $1) }
        XCTAssertEqual(ShardAssignment.shards(of: files, count: 2), [0, 1, 1, 0, 1, 0])
        // The listing order does not matter, only paths and weights.
        let reversed = Array(files.reversed())
        XCTAssertEqual(ShardAssignment.shards(of: reversed, count: 2), [0, 1, 0, 1, 1, 0])
        XCTAssertEqual(ShardAssignment.positions(in: try Shard(index: 1, count: 2), of: files), [1, 2, 4])
    }

    func testEqualWeightsAreDealtInPathOrder() {
        let files = ["c", "a", "e", "b", "d"].map { WeightedInput(path: $0, weight: 7) }
        // a→0, b→1, c→2, d→0, e→1.
        XCTAssertEqual(ShardAssignment.shards(of: files, count: 3), [2, 0, 1, 1, 0])
    }

    func testEveryInputLandsInExactlyOneShard() throws {
        for (count, shardCount) in [(0, 3), (1, 1), (1, 4), (5, 8), (100, 3), (1000, 7), (997, 64)] {
            let files = inputs(count, seed: UInt64(count * 131 + shardCount))
            var seen = [Int](repeating: 0, count: count)
            for index in 0..<shardCount {
                let positions = ShardAssignment.positions(in: try Shard(index: index, count: shardCount), of: files)
                XCTAssertEqual(positions, positions.sorted(), "a shard keeps input order")
                for position in positions { seen[position] += 1 }
            }
            XCTAssertEqual(seen, [Int](repeating: 1, count: count), "\(count) inputs over \(shardCount) shards")
        }
    }

    func testHeapAgreesWithTheReferenceScan() {
        for seed in 0..<40 as Range<UInt64> {
            let files = inputs(Int(seed * 37 % 500), seed: seed, distinctWeights: seed % 2 == 0 ? 3 : 1000)
            for shardCount in [1, 2, 3, 5, 16, 100] {
                XCTAssertEqual(
                    ShardAssignment.shards(of: files, count: shardCount),
                    ShardAssignment.referenceShards(of: files, count: shardCount), "seed \(seed), \(shardCount) shards")
            }
        }
    }

    func testHeapAgreesWithTheReferenceWhenShardsOutnumberInputsOrWeighNothing() {
        for seed in 0..<30 as Range<UInt64> {
            var files = inputs(Int(seed % 12), seed: seed + 1000, distinctWeights: 4)
            // Weightless inputs (empty files) make shards of load 0 that are already used compete with empty ones.
            for index in files.indices where index % 3 == Int(seed % 3) { files[index].weight = 0 }
            for shardCount in [1, 2, 5, 11, 12, 13, 40] {
                XCTAssertEqual(
                    ShardAssignment.shards(of: files, count: shardCount),
                    ShardAssignment.referenceShards(of: files, count: shardCount), "seed \(seed), \(shardCount) shards")
            }
        }
    }

    func testMoreShardsThanInputsGivesOneInputEachThenEmptyShards() throws {
        let files = ["c", "a", "b"].map { WeightedInput(path: $0, weight: 5) }
        XCTAssertEqual(ShardAssignment.shards(of: files, count: Shard.maximumCount), [2, 0, 1])
        XCTAssertEqual(ShardAssignment.positions(in: try Shard(index: 0, count: 4), of: files), [1])
        XCTAssertEqual(ShardAssignment.positions(in: try Shard(index: 3, count: 4), of: files), [], "an empty shard")
        XCTAssertEqual(ShardAssignment.positions(in: try Shard(index: 999_999, count: Shard.maximumCount), of: files), [])
    }

    /// The split keeps nothing per shard. At `Int.max` shards any per-shard array (the reference keeps a load per
    /// shard) would ask for 64 EB and trap, which is the crash this replaced; that the call returns, with the
    /// same split as at 200 shards, is the proof. (Peak resident memory was tried as a measure: inside the whole
    /// suite the allocator reuses pages earlier tests freed, so it saw no growth even for the reference.)
    func testMemoryDoesNotGrowWithTheShardCount() {
        let files = inputs(200, seed: 3)
        XCTAssertEqual(ShardAssignment.shards(of: files, count: Shard.maximumCount), ShardAssignment.shards(of: files, count: 200))
        XCTAssertEqual(ShardAssignment.shards(of: files, count: Int.max), ShardAssignment.shards(of: files, count: 200))
    }

    func testShardsDifferByAtMostTheHeaviestInput() {
        for seed in 0..<20 as Range<UInt64> {
            let files = inputs(300 + Int(seed), seed: seed)
            let heaviest = files.map(\.weight).max()!
            for shardCount in [2, 4, 7, 30] {
                var loads = [Int64](repeating: 0, count: shardCount)
                for (position, shard) in ShardAssignment.shards(of: files, count: shardCount).enumerated() {
                    loads[shard] += files[position].weight
                }
                XCTAssertLessThanOrEqual(loads.max()! - loads.min()!, heaviest, "seed \(seed), \(shardCount) shards: \(loads)")
            }
        }
    }

    func testEqualWeightsGiveShardSizesWithinOne() {
        let files = (0..<1003).map { WeightedInput(path: String(format: "img/%05d.jpg", $0), weight: 1) }
        let sizes = Dictionary(grouping: ShardAssignment.shards(of: files, count: 10), by: { $0 }).mapValues(\.count)
        XCTAssertEqual(sizes.values.max()! - sizes.values.min()!, 1)
        XCTAssertEqual(sizes.values.reduce(0, +), 1003)
    }

    func testSameSplitWhateverTheListingOrder() {
        var generator = SeededGenerator(seed: 9)
        let files = inputs(400, seed: 5)
        let byPath = Dictionary(uniqueKeysWithValues: zip(files.map(\.path), ShardAssignment.shards(of: files, count: 6)))
        for _ in 0..<5 {
            let shuffled = files.shuffled(using: &generator)
            for (file, shard) in zip(shuffled, ShardAssignment.shards(of: shuffled, count: 6)) {
                XCTAssertEqual(shard, byPath[file.path], file.path)
            }
        }
    }

    func testDuplicatedPathsKeepTheirPositionsApart() {
        let files = [WeightedInput(path: "same.mp4", weight: 3), WeightedInput(path: "same.mp4", weight: 3)]
        XCTAssertEqual(ShardAssignment.shards(of: files, count: 2), [0, 1])
    }

    func testInputWeightIsBytesOfAFileAndOfAFramesFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("weights-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/frames/nested", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(count: 1234).write(to: URL(fileURLWithPath: folder + "/movie.mp4"))
        try Data(count: 100).write(to: URL(fileURLWithPath: folder + "/frames/1.png"))
        try Data(count: 250).write(to: URL(fileURLWithPath: folder + "/frames/2.png"))
        try Data(count: 999).write(to: URL(fileURLWithPath: folder + "/frames/.hidden"))
        try Data(count: 999).write(to: URL(fileURLWithPath: folder + "/frames/nested/3.png"))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.mp4", withDestinationPath: folder + "/movie.mp4")
        XCTAssertEqual(InputWeight.bytes(of: folder + "/movie.mp4"), 1234)
        XCTAssertEqual(InputWeight.bytes(of: folder + "/link.mp4"), 1234, "a link weighs what it points to")
        XCTAssertEqual(InputWeight.bytes(of: folder + "/frames"), 350, "the frames directly inside, hidden files left out")
        XCTAssertEqual(InputWeight.bytes(of: folder + "/missing.mp4"), 0)
    }
}
