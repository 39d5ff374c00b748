import ImageCodecs

/// One picture taken from a movie, with where it sits in time.
public struct Frame: Sendable {
    /// 0-based position in the order the source yields frames.
    public let index: Int
    /// Time of the frame in the movie, in seconds from the start.
    public let second: Double
    /// The pixels.
    public let image: RGBImage
    /// True when the image is already the network's 224×224 centre-cropped input (video frames: ffmpeg did the
    /// crop and scale), so the classifier must not crop or resize again; false for full-size pictures.
    public let isNetworkInput: Bool

    /// Makes a frame.
    public init(index: Int, second: Double, image: RGBImage, isNetworkInput: Bool) {
        self.index = index
        self.second = second
        self.image = image
        self.isNetworkInput = isNetworkInput
    }
}

/// Something that yields a movie's frames in time order, one at a time, so a long movie never sits in memory.
///
/// Pull-based so the consumer decides the pace; `close()` releases what the source holds (for video: ends the
/// ffmpeg process) and is safe to call more than once. Sources are single-use.
public protocol FrameSource: AnyObject {
    /// How many frames the source expects to yield, when it can tell beforehand (an estimate for video).
    var expectedFrameCount: Int? { get }
    /// The next frame, or nil when the source is exhausted.
    func nextFrame() throws(VideoError) -> Frame?
    /// Stops the source early and releases its resources.
    func close()
}
