import Glibc

/// A file opened for reading in a way that can neither hang nor read without bound.
///
/// Only regular files are opened: the path is examined with `lstat`/`stat` first, so a FIFO (which would block
/// `open` until a writer comes), a device such as `/dev/zero` (which never ends) or a folder is refused by its
/// type, never opened. The open itself uses `O_NONBLOCK` and the type is checked again on the descriptor, so a
/// file swapped for a FIFO in between cannot block either. The size is checked against the caller's limit before
/// a byte is read, and reads go in caller-sized chunks.
public final class InputFile {
    /// Why a file could not be opened or read; `description` is "path: reason", one line.
    public struct Failure: PathReportingError, Equatable {
        /// What went wrong, for callers that word some cases their own way.
        public enum Kind: Sendable, Equatable {
            /// Nothing at the path (or a symbolic link to nothing).
            case missing
            /// A folder, FIFO, device or socket.
            case notRegularFile
            /// Larger than the caller's limit; the sizes in bytes.
            case tooLarge(byteCount: Int, limit: Int)
            /// A system call failed with this `errno`.
            case system(Int32)
        }

        /// The file as the caller named it.
        public let path: String
        /// The kind of failure.
        public let kind: Kind
        /// What went wrong, without the path.
        public let reason: String

        /// Makes a failure for `path`.
        public init(path: String, kind: Kind, reason: String) {
            self.path = path
            self.kind = kind
            self.reason = reason
        }

    }

    /// The file as the caller named it.
    public let path: String
    /// The open descriptor; valid until `close()` or deinitialisation.
    public private(set) var descriptor: Int32
    /// The file's size in bytes when it was opened.
    public let byteCount: Int
    private let maximumBytes: Int

    private init(path: String, descriptor: Int32, byteCount: Int, maximumBytes: Int) {
        self.path = path
        self.descriptor = descriptor
        self.byteCount = byteCount
        self.maximumBytes = maximumBytes
    }

    deinit { close() }

    /// Opens the regular file at `path` (symbolic links followed) if it holds at most `maximumBytes` bytes.
    public static func open(path: String, maximumBytes: Int) throws(Failure) -> InputFile {
        let information = try examine(path)
        try checkSize(Int(information.st_size), limit: maximumBytes, path: path)
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        if descriptor < 0 { throw systemFailure(path: path, code: errno, doing: "cannot open") }
        // The path may have changed since `stat`: what counts is what was opened.
        var opened = stat()
        guard fstat(descriptor, &opened) == 0 else {
            let code = errno
            _ = Glibc.close(descriptor)
            throw systemFailure(path: path, code: code, doing: "cannot read")
        }
        if let kind = nonRegularKind(opened.st_mode) {
            _ = Glibc.close(descriptor)
            throw Failure(path: path, kind: .notRegularFile, reason: "not a regular file (\(kind))")
        }
        do {
            try checkSize(Int(opened.st_size), limit: maximumBytes, path: path)
        } catch {
            _ = Glibc.close(descriptor)
            throw error
        }
        return InputFile(path: path, descriptor: descriptor, byteCount: Int(opened.st_size), maximumBytes: maximumBytes)
    }

    /// Reads up to `buffer.count` bytes; 0 means the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = Glibc.read(descriptor, base, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw Self.systemFailure(path: path, code: errno, doing: "cannot read")
        }
    }

    /// The whole file (at most the limit it was opened with: a file that grew past it is refused).
    public func readAll() throws(Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let count = try read(into: chunk)
            if count == 0 { return bytes }
            // A file that grew since it was opened may still not pass the limit.
            try Self.checkSize(bytes.count + count, limit: maximumBytes, path: path)
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
        }
    }

    /// Goes back to the first byte.
    public func rewind() throws(Failure) {
        if lseek(descriptor, 0, SEEK_SET) < 0 { throw Self.systemFailure(path: path, code: errno, doing: "cannot read") }
    }

    /// Closes the descriptor; later reads fail. Closing twice is harmless.
    public func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    /// What is at `path`, refusing anything but a regular file, without opening it.
    public static func examine(_ path: String) throws(Failure) -> stat {
        var link = stat()
        if lstat(path, &link) != 0 {
            let code = errno
            if code == ENOENT { throw Failure(path: path, kind: .missing, reason: "no such file") }
            throw systemFailure(path: path, code: code, doing: "cannot read")
        }
        var information = link
        if (link.st_mode & S_IFMT) == S_IFLNK, stat(path, &information) != 0 {
            let code = errno
            switch code {
            case ENOENT: throw Failure(path: path, kind: .missing, reason: "broken symbolic link (its target does not exist)")
            case ELOOP: throw Failure(path: path, kind: .system(code), reason: "symbolic link loop")
            default: throw systemFailure(path: path, code: code, doing: "cannot read")
            }
        }
        if (information.st_mode & S_IFMT) == S_IFDIR {
            throw Failure(path: path, kind: .notRegularFile, reason: "is a folder, not a file")
        }
        if let kind = nonRegularKind(information.st_mode) {
            throw Failure(path: path, kind: .notRegularFile, reason: "not a regular file (\(kind))")
        }
        return information
    }

    /// "a FIFO", "a character device"... for anything that is not a regular file; nil for a regular file.
    public static func nonRegularKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "an unknown kind of file"
        }
    }

    /// Bytes for people: "812 bytes", "3.2 MB", "3.0 GB" (decimal units, as file managers show them).
    public static func describe(byteCount: Int) -> String {
        if byteCount < 1000 { return "\(byteCount) bytes" }
        let units = ["kB", "MB", "GB", "TB", "PB", "EB"]
        var value = Double(byteCount) / 1000
        var unit = 0
        while value >= 999.95 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        let tenths = (value * 10).rounded() / 10
        return "\(tenths) \(units[unit])"
    }

    private static func checkSize(_ byteCount: Int, limit: Int, path: String) throws(Failure) {
        guard byteCount > limit else { return }
        throw Failure(
            path: path, kind: .tooLarge(byteCount: byteCount, limit: limit),
            reason: "file is \(describe(byteCount: byteCount)), over the limit of \(describe(byteCount: limit))")
    }

    private static func systemFailure(path: String, code: Int32, doing: String) -> Failure {
        let kind: Failure.Kind = code == ENOENT ? .missing : .system(code)
        return Failure(path: path, kind: kind, reason: "\(doing): \(SystemError.describe(code))")
    }
}
