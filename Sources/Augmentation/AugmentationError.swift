import FileFormats

/// Marks the errors of augmentation.
public enum AugmentationErrorDomain {}

/// A failure of augmentation: an image that cannot be decoded again, or a policy out of range. Its description is
/// one line, `path: reason` when a file is to blame.
public typealias AugmentationError = OptionalPathError<AugmentationErrorDomain>
