import Datasets

/// An object-detection dataset as read from its annotations: the pictures with their boxes, the pictures of the
/// folder that have no entry (negatives), the labels, and notes for `--verbose`.
public struct AnnotationSet: Sendable, Equatable {
    /// The annotations file read.
    public var file: String
    /// The folder names are relative to: the annotations file's folder.
    public var folder: String
    /// The entries' pictures with their boxes, in the file's order (an entry with no boxes is here, with none).
    public var images: [AnnotatedImage]
    /// Pictures anywhere below `folder` that no entry names, in natural order of their paths: negatives, pictures
    /// the detector learns to find nothing in. Only a Create ML folder has them (`AnnotationReader.read(folder:)`);
    /// a file read by itself (`read(file:)`) has none.
    public var negatives: [AnnotatedImage]
    /// Every label of every box, in natural order ("2" before "10").
    public var labels: [String]
    /// What a person may want to know but that is not an error, one line each, for `--verbose`: each negative,
    /// and each file below the folder that was left out (not a picture, or a picture whose header cannot be read);
    /// none when a file is read by itself.
    public var notes: [String]
    /// The boxes that reached past their picture by more than a pixel, within `AnnotationDocument.overshootLimit`,
    /// and were cut to it: kept, and for the command to warn about once.
    public var clippedBoxes: [ClippedBox] = []

    /// A set from its parts; `labels` is computed from the boxes.
    public init(file: String, folder: String, images: [AnnotatedImage], negatives: [AnnotatedImage], notes: [String]) {
        self.file = file
        self.folder = folder
        self.images = images
        self.negatives = negatives
        self.notes = notes
        labels = Array(Set(images.flatMap { $0.objects.map(\.label) })).sorted(by: NaturalOrder.areInIncreasingOrder)
    }

    /// The entries' pictures, then the negatives.
    public var allImages: [AnnotatedImage] { images + negatives }

    /// How many boxes there are, over all pictures.
    public var objectCount: Int { images.reduce(0) { $0 + $1.objects.count } }
}
