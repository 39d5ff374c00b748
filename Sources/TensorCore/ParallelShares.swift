extension Parallel {
    /// Splits `0..<count` into at most `parts` contiguous, non-empty, in-order ranges whose sizes differ by at most
    /// one (the first `count % parts` ranges hold the extra item), so each worker thread gets a fair share.
    ///
    /// Fewer ranges than `parts` when there are fewer items than parts (one item each); none for `count <= 0`.
    /// Any `parts` below 1 counts as 1. Never forms an empty or inverted range, whatever the counts: a share of
    /// ⌈count/parts⌉ per worker (the old rule) leaves the last workers past the end for 1 item over 3 workers.
    public static func shares(of count: Int, parts: Int) -> [Range<Int>] {
        guard count > 0 else { return [] }
        let workers = min(max(1, parts), count)
        let base = count / workers
        let extra = count % workers
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(workers)
        var start = 0
        for worker in 0..<workers {
            let size = base + (worker < extra ? 1 : 0)
            ranges.append(start..<(start + size))
            start += size
        }
        return ranges
    }
}
