/// A failure of augmentation: an image that cannot be decoded again, or a policy out of range. Its description is
/// one line, `path: reason` when a file is to blame.
public struct AugmentationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file to blame, if any.
    public var path: String?
    /// Why.
    public var reason: String

    /// An error about `path` (nil when no file is to blame).
    public init(path: String?, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `path: reason`, or the reason alone.
    public var description: String { path.map { "\($0): \(reason)" } ?? reason }
}
