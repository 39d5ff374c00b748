import FileFormats

/// Marks `FileError`s raised while reading object-detection annotations.
public enum AnnotationErrorDomain {}

/// Why annotations cannot be used, on one line: the annotations file (or the folder) and the reason, which names
/// the entry and the box concerned ("entry 3 (\"dog.jpg\"), box 2 (\"dog\"): width 0 is not positive ...").
public typealias AnnotationError = FileError<AnnotationErrorDomain>

extension ErrorHint {
    /// Detections of pictures (not of a video) make an annotations file.
    public static let annotatePictures = ErrorHint("DetectionAnnotations.annotatePictures")
}
