import ImageCodecs
import Pages
import Video

/// A small picture of every classified frame, kept until the phases are known (only for a page): about 3 KB of
/// JPEG a frame, so a minute at 25 frames a second holds some 5 MB.
public final class PhaseStartPictures: @unchecked Sendable {
    /// Side of a picture in pixels.
    static let side = 112
    private let preprocessing: ImagePreprocessing
    private var pictures: [(second: Double, picture: Picture)] = []

    /// Pictures cropped and scaled as `preprocessing` crops the network's input.
    public init(preprocessing: ImagePreprocessing) {
        self.preprocessing = preprocessing
    }

    /// The observer for `MovieLabeling.label` (called on one thread, in frame order).
    public var observer: (Frame, [Float]) -> Void {
        { [self] frame, _ in
            let image = frame.image
            let crop =
                frame.isNetworkInput
                ? CenterCrop(left: 0, top: 0, side: min(image.width, image.height))
                : preprocessing.centerCrop(width: image.width, height: image.height)
            guard crop.side > 0,
                let picture = try? Picture.jpeg(
                    Resize.bicubic(image, crop: crop, outputSide: Self.side),
                    name: "frame at \(frame.second) s")
            else { return }
            pictures.append((frame.second, picture))
        }
    }

    /// The picture of the frame at `second` (the nearest kept).
    public func picture(at second: Double) -> Picture? {
        pictures.min { abs($0.second - second) < abs($1.second - second) }?.picture
    }
}
