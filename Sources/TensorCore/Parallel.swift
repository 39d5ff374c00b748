import Dispatch
import Foundation

/// Work splitting over the machine's cores.
public enum Parallel {
    /// The number of cores the process may use.
    public static var coreCount: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Calls `body(i)` for every `i` in `0..<count`, spread over at most `threads` threads.
    /// `body` must be safe to call concurrently for different indices.
    public static func forEach(_ count: Int, threads: Int, _ body: (Int) -> Void) {
        if count <= 0 { return }
        let workers = max(1, min(threads, count))
        if workers == 1 {
            for index in 0..<count { body(index) }
            return
        }
        withoutActuallyEscaping(body) { body in
            // The caller promises `body` is safe across threads for distinct indices; the box says so to the compiler.
            let shared = UncheckedSendable(body)
            let chunk = (count + workers - 1) / workers
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let start = worker * chunk
                let end = min(count, start + chunk)
                if start < end { for index in start..<end { shared.value(index) } }
            }
        }
    }
}

/// Carries a value across a concurrency boundary whose safety the caller guarantees by construction
/// (disjoint indices, disjoint output ranges).
public struct UncheckedSendable<Value>: @unchecked Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}
