import FileFormats

/// Marks `FileError`s raised by Datasets.
public enum DatasetErrorDomain {}

/// A dataset problem a person must fix: the file or folder and the reason, "path: reason" on one line.
public typealias DatasetError = FileError<DatasetErrorDomain>
