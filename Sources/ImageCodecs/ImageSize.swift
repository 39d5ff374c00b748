/// A picture's size in pixels as displayed: after the EXIF orientation a decode applies, so a JPEG stored
/// 640 × 480 with orientation 6 is 480 × 640 here, as `ImageLoader.load` would return it.
public struct ImageSize: Sendable, Equatable, Hashable {
    /// Columns.
    public var width: Int
    /// Rows.
    public var height: Int

    /// A size from its parts.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}
