import Glibc

/// A folder whose entries are read and written without following a symbolic link or opening anything but a
/// regular file: for folders other people can write to (a results folder on shared storage), where an entry that
/// is a link would make a write replace whatever it points at, and a FIFO would block a reader or writer forever.
///
/// The folder itself is named by the caller and may be reached through links; everything inside it is reached
/// through its open descriptor (`openat`, `O_NOFOLLOW`), so an entry swapped for a link between a check and a
/// use is still never followed. A write goes to a new temporary file in the folder and is renamed over the entry,
/// which replaces the entry itself (a link planted there is replaced, its target untouched); a link, FIFO, device or
/// folder found at the name is refused first, naming it.
public final class ConfinedFolder {
    /// Why an entry could not be used.
    public enum FailureKind: Sendable, Equatable {
        /// It is a symbolic link, FIFO, device, socket or something else than was expected there.
        case refused
        /// A system call failed (permissions, a full disk...).
        case failed
        /// The folder itself does not exist (`open`).
        case missing
    }

    /// A refused or failed read or write: the entry's full path and the reason, e.g.
    /// "results/movies/3.json: is a symbolic link; links are not followed inside a results folder".
    public typealias Failure = KindedFileError<FailureKind>

    /// The folder as the caller named it.
    public let path: String
    /// What the folder is, for messages ("a results folder").
    public let role: String
    private var descriptor: Int32

    private init(path: String, role: String, descriptor: Int32) {
        self.path = path
        self.role = role
        self.descriptor = descriptor
    }

    deinit {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
    }

    /// Opens the folder at `path` (links in `path` itself are followed: the caller chose it). `role` names it in
    /// messages ("a results folder").
    public static func open(_ path: String, role: String) throws(Failure) -> ConfinedFolder {
        let descriptor = retrying { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if descriptor < 0 {
            let code = errno
            switch code {
            case ENOENT: throw Failure(.missing, path: path, reason: "no such folder")
            case ENOTDIR: throw Failure(.refused, path: path, reason: "is not a folder")
            default: throw Failure(.failed, path: path, reason: "cannot open the folder: \(SystemError.describe(code))")
            }
        }
        return ConfinedFolder(path: path, role: role, descriptor: descriptor)
    }

    /// The full path of the entry `name`, for messages.
    public func entryPath(_ name: String) -> String {
        path.hasSuffix("/") ? path + name : path + "/" + name
    }

    /// The sub-folder `name`, or nil when there is none. A link or anything else that is not a folder is refused.
    public func subfolder(_ name: String) throws(Failure) -> ConfinedFolder? {
        guard let status = try entryStatus(name) else { return nil }
        if status.st_mode & S_IFMT != S_IFDIR { throw refusal(name, status.st_mode, expected: "a folder") }
        let opened = retrying { openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        if opened < 0 {
            let code = errno
            if code == ENOENT { return nil }
            // Swapped for a link or a file since the check: the same refusal, with what is there now.
            if code == ELOOP || code == ENOTDIR, let status = try entryStatus(name), status.st_mode & S_IFMT != S_IFDIR {
                throw refusal(name, status.st_mode, expected: "a folder")
            }
            throw Failure(.failed, path: entryPath(name), reason: "cannot open the folder: \(SystemError.describe(code))")
        }
        return ConfinedFolder(path: entryPath(name), role: role, descriptor: opened)
    }

    /// The sub-folder `name`, created (mode 0755 less the umask) when missing, even by many processes at once. A
    /// link or anything else that is not a folder at `name` is refused.
    public func makeSubfolder(_ name: String) throws(Failure) -> ConfinedFolder {
        if mkdirat(descriptor, name, 0o755) != 0, errno != EEXIST {
            throw Failure(.failed, path: entryPath(name), reason: "cannot create the folder: \(SystemError.describe(errno))")
        }
        guard let folder = try subfolder(name) else {
            throw Failure(.failed, path: entryPath(name), reason: "cannot create the folder: removed while being created")
        }
        return folder
    }

    /// The bytes of the regular file `name`, or nil when there is no such entry. A link, FIFO, device or folder is
    /// refused unopened (a FIFO never blocks), as is a file over `maximumBytes`.
    public func read(_ name: String, maximumBytes: Int) throws(Failure) -> [UInt8]? {
        guard let status = try entryStatus(name) else { return nil }
        if status.st_mode & S_IFMT != S_IFREG { throw refusal(name, status.st_mode, expected: "a regular file") }
        let file = retrying { openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) }
        if file < 0 {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { throw refusal(name, S_IFLNK, expected: "a regular file") }
            throw Failure(.failed, path: entryPath(name), reason: "cannot open: \(SystemError.describe(code))")
        }
        defer { _ = Glibc.close(file) }
        // What counts is what was opened, not what was examined a moment before.
        var opened = stat()
        guard fstat(file, &opened) == 0 else { throw Failure(.failed, path: entryPath(name), reason: "cannot read: \(SystemError.describe(errno))") }
        if opened.st_mode & S_IFMT != S_IFREG { throw refusal(name, opened.st_mode, expected: "a regular file") }
        if Int(opened.st_size) > maximumBytes { throw tooLarge(name, Int(opened.st_size), limit: maximumBytes) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(.failed, path: entryPath(name), reason: "cannot read: \(SystemError.describe(errno))")
            }
            if count == 0 { return bytes }
            // A file that grew since it was opened may still not pass the limit.
            guard bytes.count + count <= maximumBytes else { throw tooLarge(name, bytes.count + count, limit: maximumBytes) }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Replaces (or creates) the regular file `name` with `bytes`: a new file, synced, renamed into place. A link,
    /// FIFO, device or folder at `name` is refused and left as it is. The new file has mode 0666 less the umask.
    public func write(_ bytes: [UInt8], to name: String) throws(Failure) {
        if let status = try entryStatus(name), status.st_mode & S_IFMT != S_IFREG {
            throw refusal(name, status.st_mode, expected: "a regular file")
        }
        let temporary = try writeTemporary(bytes, for: name)
        if renameat(descriptor, temporary, descriptor, name) != 0 {
            let code = errno
            _ = unlinkat(descriptor, temporary, 0)
            throw Failure(.failed, path: entryPath(name), reason: "cannot write: \(SystemError.describe(code))")
        }
    }

    /// Creates the regular file `name` with `bytes` unless an entry of that name exists: the file appears whole,
    /// once, even with many processes racing (a finished temporary file is hard-linked into place, which never
    /// follows or replaces what is there). Returns whether this call created it.
    @discardableResult
    public func createOnce(_ bytes: [UInt8], as name: String) throws(Failure) -> Bool {
        if try entryStatus(name) != nil { return false }
        let temporary = try writeTemporary(bytes, for: name)
        let linked = linkat(descriptor, temporary, descriptor, name, 0) == 0 ? 0 : errno
        _ = unlinkat(descriptor, temporary, 0)
        if linked == EEXIST { return false }
        if linked != 0 { throw Failure(.failed, path: entryPath(name), reason: "cannot write: \(SystemError.describe(linked))") }
        return true
    }

    /// What the entry `name` itself is (a link is not followed), or nil when there is none.
    private func entryStatus(_ name: String) throws(Failure) -> stat? {
        var status = stat()
        if fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0 { return status }
        let code = errno
        if code == ENOENT { return nil }
        throw Failure(.failed, path: entryPath(name), reason: "cannot examine: \(SystemError.describe(code))")
    }

    /// A new file beside `name` holding `bytes`, synced and closed; its name.
    private func writeTemporary(_ bytes: [UInt8], for name: String) throws(Failure) -> String {
        let temporary = TemporaryFileName.beside(name)
        let file = retrying { openat(descriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0o666) }
        if file < 0 { throw Failure(.failed, path: entryPath(name), reason: "cannot write: \(SystemError.describe(errno))") }
        var failure: Int32 = 0
        bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let count = Glibc.write(file, buffer.baseAddress! + written, buffer.count - written)
                if count >= 0 {
                    written += count
                } else if errno != EINTR {
                    failure = errno
                    return
                }
            }
        }
        if failure == 0, fsync(file) != 0 { failure = errno }
        if Glibc.close(file) != 0, failure == 0, errno != EINTR { failure = errno }
        if failure != 0 {
            _ = unlinkat(descriptor, temporary, 0)
            throw Failure(.failed, path: entryPath(name), reason: "cannot write: \(SystemError.describe(failure))")
        }
        return temporary
    }

    private func tooLarge(_ name: String, _ byteCount: Int, limit: Int) -> Failure {
        Failure(
            .refused, path: entryPath(name),
            reason: "file is \(InputFile.describe(byteCount: byteCount)), "
                + "over the limit of \(InputFile.describe(byteCount: limit))")
    }

    private func refusal(_ name: String, _ mode: mode_t, expected: String) -> Failure {
        if mode & S_IFMT == S_IFLNK {
            return Failure(.refused, path: entryPath(name), reason: "is a symbolic link; links are not followed inside \(role)")
        }
        let kind = InputFile.nonRegularKind(mode) ?? "a regular file"
        return Failure(.refused, path: entryPath(name), reason: "is \(kind), not \(expected); refused inside \(role)")
    }

    private static func retrying(_ call: () -> Int32) -> Int32 {
        var result: Int32
        repeat { result = call() } while result < 0 && errno == EINTR
        return result
    }

    private func retrying(_ call: () -> Int32) -> Int32 { Self.retrying(call) }
}
