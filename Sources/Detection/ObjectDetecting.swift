import ImageCodecs

/// What the detection workflow needs of a detector: its labels and its boxes on a picture.
///
/// The person detector (`ObjectDetector`) is the one Workbench ships; the protocol lets the tiling and the
/// workflow's plumbing be tested with detectors made of plain values.
public protocol ObjectDetecting: Sendable {
    /// The labels the detector can report, for example `["person"]`.
    var labels: [String] { get }
    /// The score below which boxes are not reported unless the caller says otherwise: a trained model's stored
    /// threshold (best F1 on its held-out pictures); 0.5 for the person detector.
    var defaultMinimumConfidence: Float { get }
    /// Boxes in pixels of `image` with a score of at least `minimumConfidence`, after non-maximum suppression,
    /// highest score first.
    func detect(in image: RGBImage, minimumConfidence: Float) -> [DetectedObject]
    /// `detect` on each of `images`, in their order; a detector with worker threads runs several at once.
    func detect(in images: [RGBImage], minimumConfidence: Float) -> [[DetectedObject]]
}

extension ObjectDetecting {
    /// 0.5, the person detector's default.
    public var defaultMinimumConfidence: Float { 0.5 }

    /// One picture after another.
    public func detect(in images: [RGBImage], minimumConfidence: Float) -> [[DetectedObject]] {
        images.map { detect(in: $0, minimumConfidence: minimumConfidence) }
    }
}

extension ObjectDetector: ObjectDetecting {}
