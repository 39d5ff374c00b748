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
    /// The shard of each input, `0..<count`, indexed like `inputs`. O(n log n) time and O(n) memory whatever
    /// `count` is: shards that get no input take no room.
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

/// The shards that hold inputs, in a binary min-heap ordered by (load, shard), beside the count of shards still
/// empty: so the lightest shard, and among equally light ones the lowest, is found without a slot per shard.
///
/// Shards are opened in order, so the empty ones are always `nextEmpty..<count`, all of load 0, and the lowest of
/// them, `nextEmpty`, is the only one that can be the lightest; it competes with the heap's top by the same rule.
/// Memory grows with the inputs placed (at most one heap entry each), never with `count`: `--shard 0/1000000` over
/// three movies keeps three entries.
private struct ShardHeap {
    private var loads: [Int64] = []
    private var shards: [Int] = []
    private let count: Int
    private var nextEmpty = 0

    init(count: Int) {
        self.count = count
    }

    /// Adds `weight` to the lightest shard and returns that shard.
    mutating func add(_ weight: Int64) -> Int {
        // The lowest empty shard has load 0 and loads are never negative, so it is the lightest unless the top
        // shard has load 0 too, and that one, opened earlier, has the lower number.
        if nextEmpty < count, shards.isEmpty || loads[0] > 0 {
            let shard = nextEmpty
            nextEmpty += 1
            loads.append(weight)
            shards.append(shard)
            siftUp(from: loads.count - 1)
            return shard
        }
        let shard = shards[0]
        loads[0] += weight
        siftDown(from: 0)
        return shard
    }

    private func precedes(_ left: Int, _ right: Int) -> Bool {
        loads[left] != loads[right] ? loads[left] < loads[right] : shards[left] < shards[right]
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(child, parent) else { return }
            loads.swapAt(parent, child)
            shards.swapAt(parent, child)
            child = parent
        }
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
