import Foundation

/// Collects a child process's stderr on a background thread so the child never blocks on a full pipe, keeping
/// only the tail (ffmpeg can be chatty and the last line is what explains a failure).
public final class StandardErrorTail: @unchecked Sendable {
    private let lock = NSLock()
    private var tail: [UInt8] = []
    private let finished = DispatchSemaphore(value: 0)
    private static let keptBytes = 16 * 1024

    /// Starts draining `handle` until end of file.
    public init(draining handle: FileHandle) {
        let descriptor = handle.fileDescriptor
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                lock.lock()
                tail.append(contentsOf: buffer[0..<count])
                if tail.count > Self.keptBytes { tail.removeFirst(tail.count - Self.keptBytes) }
                lock.unlock()
            }
            finished.signal()
        }
    }

    /// Waits (bounded) for the drain to reach end of file, then returns the last non-empty line.
    public func lastLine(waitingUpTo seconds: Double = 2) -> String {
        _ = finished.wait(timeout: .now() + seconds)
        finished.signal()  // let later callers through too
        lock.lock()
        let text = String(decoding: tail, as: UTF8.self)
        lock.unlock()
        let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return lines.last ?? ""
    }
}
