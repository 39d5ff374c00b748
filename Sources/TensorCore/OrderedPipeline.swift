import Foundation

/// Runs independent jobs on worker threads and hands their results back in job order on the calling thread.
///
/// Workers claim job indices in order; at most `window` jobs may be finished but not yet delivered, so memory stays
/// bounded however many jobs there are (each worker holds one job's data at a time).
public enum OrderedPipeline {
    /// Calls `work(index)` for `0..<count` on `threads` worker threads and `deliver(index, result)` on the calling
    /// thread in increasing index order. `work` must be safe to call concurrently.
    public static func run<Result>(
        count: Int, threads: Int, window: Int? = nil,
        work: @escaping @Sendable (Int) -> Result,
        deliver: (Int, Result) -> Void
    ) {
        run(
            count: count, threads: threads, window: window, work: work,
            deliverUntil: { index, result in
                deliver(index, result)
                return true
            })
    }

    /// Like `run(count:threads:window:work:deliver:)`, stopping early when `deliverUntil` returns false: no job
    /// starts after that (jobs already running finish on their threads and their results are dropped).
    public static func run<Result>(
        count: Int, threads: Int, window: Int? = nil,
        work: @escaping @Sendable (Int) -> Result,
        deliverUntil: (Int, Result) -> Bool
    ) {
        if count <= 0 { return }
        let workerCount = max(1, min(threads, count))
        let state = PipelineState<Result>(window: max(window ?? 4 * workerCount, workerCount))
        for _ in 0..<workerCount {
            let thread = Thread {
                while let index = state.claim(count: count) {
                    state.finish(index, work(index))
                }
            }
            // Decoding plus a network pass can use a deep stack in debug builds.
            thread.stackSize = 8 << 20
            thread.start()
        }
        for index in 0..<count where !deliverUntil(index, state.take(index)) {
            state.stop()
            return
        }
    }
}

private final class PipelineState<Result>: @unchecked Sendable {
    private let condition = NSCondition()
    private let window: Int
    private var nextClaim = 0
    private var nextDelivery = 0
    private var finished: [Int: Result] = [:]
    private var stopped = false

    init(window: Int) { self.window = window }

    func claim(count: Int) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while !stopped && nextClaim < count && nextClaim >= nextDelivery + window { condition.wait() }
        guard !stopped, nextClaim < count else { return nil }
        defer { nextClaim += 1 }
        return nextClaim
    }

    func finish(_ index: Int, _ result: Result) {
        condition.lock()
        finished[index] = result
        condition.broadcast()
        condition.unlock()
    }

    /// No more claims: waiting workers wake and leave.
    func stop() {
        condition.lock()
        stopped = true
        finished.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    func take(_ index: Int) -> Result {
        condition.lock()
        defer { condition.unlock() }
        while finished[index] == nil { condition.wait() }
        nextDelivery = index + 1
        condition.broadcast()
        return finished.removeValue(forKey: index)!
    }
}
