import FileFormats

/// Marks `FileError`s raised by ImageCodecs.
public enum ImageErrorDomain {}

/// A decode failure a person can act on: which file, and why (e.g. "empty file"), on one line.
public typealias ImageError = FileError<ImageErrorDomain>
