import Foundation

/// Reads frames from another source on a background thread, up to `depth` ahead, so decoding (ffmpeg filling the
/// pipe, or JPEG decoding of a frame folder) overlaps with classification instead of alternating with it.
public final class PrefetchingFrameSource: FrameSource, @unchecked Sendable {
    private let source: FrameSource
    private let depth: Int
    private let condition = NSCondition()
    private var queue: [Frame] = []
    private var finished: Result<Void, VideoError>?
    private var stopped = false
    private var reader: Thread?

    /// Wraps `source`; frames come out in the same order. `depth` bounds the frames held ahead.
    public init(_ source: FrameSource, depth: Int = 16) {
        precondition(depth >= 1, "PrefetchingFrameSource: depth must be positive")
        self.source = source
        self.depth = depth
    }

    deinit { close() }

    public var expectedFrameCount: Int? { source.expectedFrameCount }

    /// Starts reading ahead now rather than at the first `nextFrame()`.
    public func start() {
        condition.lock()
        defer { condition.unlock() }
        if reader == nil && !stopped { startReader() }
    }

    public func nextFrame() throws(VideoError) -> Frame? {
        condition.lock()
        defer { condition.unlock() }
        if reader == nil {
            if stopped { return nil }
            startReader()
        }
        while queue.isEmpty && finished == nil { condition.wait() }
        if !queue.isEmpty {
            condition.broadcast()
            return queue.removeFirst()
        }
        try finished!.get()
        return nil
    }

    /// Stops the reader (it finishes the frame it is decoding, at most) and closes the wrapped source from this
    /// thread, so the source is never used from two threads at once.
    public func close() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while reader != nil && finished == nil { condition.wait() }
        condition.unlock()
        source.close()
    }

    /// Called with the lock held.
    private func startReader() {
        let thread = Thread { [self] in
            while true {
                let next: Result<Frame?, VideoError> = Result { () throws(VideoError) -> Frame? in try source.nextFrame() }
                condition.lock()
                defer { condition.unlock() }
                switch next {
                case .success(let frame?):
                    queue.append(frame)
                    condition.broadcast()
                    while queue.count >= depth && !stopped { condition.wait() }
                    if stopped {
                        finished = .success(())
                        condition.broadcast()
                        return
                    }
                case .success(nil):
                    finished = .success(())
                    condition.broadcast()
                    return
                case .failure(let error):
                    finished = .failure(error)
                    condition.broadcast()
                    return
                }
            }
        }
        thread.stackSize = 4 << 20
        reader = thread
        thread.start()
    }
}
