/// One input to split between shards: its path (the tie-breaker that makes the split deterministic) and its
/// weight, the work it costs in any unit shared by all inputs (bytes, seconds).
public struct WeightedInput: Sendable, Equatable {
    /// The input's path, as the command was given it.
    public var path: String
    /// Its cost; non-negative.
    public var weight: Int64

    /// Makes an input.
    public init(path: String, weight: Int64) {
        self.path = path
        self.weight = weight
    }
}

/// Splits inputs into shards of nearly equal total weight, the same way in every task of a job.
///
/// Greedy longest-processing-time first: inputs sorted by weight, heaviest first (ties by path, then by position,
/// so equal files are ordered by name and a duplicated path keeps its positions apart), each given to the
/// lightest shard so far (ties to the lower shard). Every task computes the whole split from the same inputs and
/// keeps its own part, so no coordinator and no shared state are needed; the result does not depend on the order
/// the inputs were listed in, only on their paths and weights.
///
/// Balance: when an input is placed, its shard is the lightest, so after every step the heaviest shard exceeds the
/// lightest by at most the heaviest input. Inputs of equal weight are dealt out like cards: shard sizes differ by
/// at most one.
public enum ShardAssignment {
    /// The shard of each input, `0..<count`, indexed like `inputs`. O(n log n + n log count).
    public static func shards(of inputs: [WeightedInput], count: Int) -> [Int] {
        precondition(count >= 1, "ShardAssignment: at least one shard")
        var assignment = [Int](repeating: 0, count: inputs.count)
        var lightest = ShardHeap(count: count)
        for position in placementOrder(inputs) {
            assignment[position] = lightest.add(inputs[position].weight)
        }
        return assignment
    }

    /// The positions of `shard`'s inputs, in input order.
    public static func positions(in shard: Shard, of inputs: [WeightedInput]) -> [Int] {
        let assignment = shards(of: inputs, count: shard.count)
        return inputs.indices.filter { assignment[$0] == shard.index }
    }

    /// The same split found by scanning every shard for the lightest at each step, O(n · count): the plain
    /// statement of the rule that the heap in `shards(of:count:)` must agree with.
    public static func referenceShards(of inputs: [WeightedInput], count: Int) -> [Int] {
        precondition(count >= 1, "ShardAssignment: at least one shard")
        var assignment = [Int](repeating: 0, count: inputs.count)
        var loads = [Int64](repeating: 0, count: count)
        for position in placementOrder(inputs) {
            var chosen = 0
            for shard in 1..<count where loads[shard] < loads[chosen] { chosen = shard }
            loads[chosen] += inputs[position].weight
            assignment[position] = chosen
        }
        return assignment
    }

    /// Heaviest first; equal weights by path (byte order, the same on every machine and locale), then position.
    static func placementOrder(_ inputs: [WeightedInput]) -> [Int] {
        let keys = inputs.map { Array($0.path.utf8) }
        return inputs.indices.sorted { left, right in
            if inputs[left].weight != inputs[right].weight { return inputs[left].weight > inputs[right].weight }
            if keys[left] != keys[right] { return keys[left].lexicographicallyPrecedes(keys[right]) }
            return left < right
        }
    }
}

/// A binary min-heap of shards ordered by (load, shard), so the lightest shard, and among equally light ones the
/// lowest, is always on top.
private struct ShardHeap {
    private var loads: [Int64]
    private var shards: [Int]

    init(count: Int) {
        // All loads are 0 and shards ascend: already a valid heap.
        loads = [Int64](repeating: 0, count: count)
        shards = Array(0..<count)
    }

    /// Adds `weight` to the lightest shard and returns that shard.
    mutating func add(_ weight: Int64) -> Int {
        let shard = shards[0]
        loads[0] += weight
        siftDown(from: 0)
        return shard
    }

    private func precedes(_ left: Int, _ right: Int) -> Bool {
        loads[left] != loads[right] ? loads[left] < loads[right] : shards[left] < shards[right]
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < loads.count, precedes(left, smallest) { smallest = left }
            if right < loads.count, precedes(right, smallest) { smallest = right }
            if smallest == parent { return }
            loads.swapAt(parent, smallest)
            shards.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
