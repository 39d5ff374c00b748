import ImageCodecs

/// A picture of an object-detection dataset with its boxes: an entry of the annotations, or a picture of the
/// folder that has none (a negative, `objects` empty).
public struct AnnotatedImage: Sendable, Equatable {
    /// The file: the annotations' folder joined with `name`, or `name` itself when it is absolute.
    public var path: String
    /// The name as the annotations wrote it; for a negative, its path below the annotations' folder.
    public var name: String
    /// The size as displayed (EXIF orientation applied), from the file's header.
    public var size: ImageSize
    /// The boxes, in the annotations' order; empty for a negative or an entry with no boxes.
    public var objects: [ObjectAnnotation]

    /// A picture from its parts.
    public init(path: String, name: String, size: ImageSize, objects: [ObjectAnnotation]) {
        self.path = path
        self.name = name
        self.size = size
        self.objects = objects
    }
}
