import FileFormats

/// Marks `FileError`s raised by Export.
public enum ExportErrorDomain {}

/// An export that could not be completed, with `path` the output file. Nothing is left at `path` when an export
/// fails: the file is only ever written whole (see `AtomicFile`).
public typealias ExportError = FileError<ExportErrorDomain>
