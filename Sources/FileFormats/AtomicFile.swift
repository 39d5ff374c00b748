/// Whole-file writes that never leave a half-written file behind: `OutputFile` writes the bytes to a temporary
/// file in the destination's folder (same file system), syncs it and renames it over the destination. A device
/// or FIFO (`/dev/null`) is written through instead of replaced, a symbolic link keeps pointing where it did, and
/// a replaced file keeps its permissions.
public enum AtomicFile {
    /// Marks `FileError`s raised by `AtomicFile`.
    public enum WriteErrorDomain {}

    /// A failed atomic write: the destination as the caller named it and a one-line reason, e.g.
    /// "cannot write: no space left on device (ENOSPC)".
    public typealias WriteError = FileError<WriteErrorDomain>

    /// The file a write to `path` replaces: `path` itself, or, when it is a symbolic link, the file at the end of
    /// its chain of links (which need not exist yet). Writers that lock beside the file (MovieData) lock there.
    public static func destination(of path: String) throws(WriteError) -> String {
        do throws(OutputFile.Failure) {
            return try OutputFile.resolveLinks(path)
        } catch {
            throw WriteError(path: path, reason: error.reason)
        }
    }

    /// Writes `bytes` to `path` atomically.
    public static func write(_ bytes: [UInt8], to path: String) throws(WriteError) {
        do throws(OutputFile.Failure) {
            let output = try OutputFile.open(path: path)
            do throws(OutputFile.Failure) {
                try output.write(bytes)
                try output.commit()
            } catch {
                output.abandon()
                throw error
            }
        } catch {
            throw WriteError(path: path, reason: error.reason)
        }
    }

    /// Writes UTF-8 text atomically.
    public static func write(text: String, to path: String) throws(WriteError) {
        try write(Array(text.utf8), to: path)
    }
}
