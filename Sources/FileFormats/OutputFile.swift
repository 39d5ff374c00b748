import Glibc

/// Where output goes, written so that every failure is reported and no half-written file is ever left.
///
/// What a path names decides how it is written:
/// - standard output, or a path that is the file standard output or standard error already goes to
///   (`/dev/stdout`, `/dev/stderr`): written through that descriptor;
/// - an existing device or FIFO (`/dev/null`, a named pipe): opened and written through, never replaced;
/// - anything else (a regular file, or nothing yet): written to a temporary file beside it and renamed over it by
///   `commit()`, so readers see the old file or the whole new one. A symbolic link keeps pointing where it did
///   (the file it points to is what gets replaced), and a replaced file keeps its permissions (and its owner,
///   where the process may set it).
///
/// Writes are buffered; the first failed system call (a full disk, `ENOSPC`; a closed pipe, `EPIPE`, once
/// `SIGPIPE` is ignored) is kept and rethrown by every later call, and `abandon()` removes the temporary file.
public final class OutputFile {
    /// Marks `FileError`s raised by `OutputFile`.
    public enum FailureDomain {}

    /// A failed write, with the output as the caller named it ("stdout" for standard output) and the reason, e.g.
    /// "cannot write: no space left on device (ENOSPC)".
    public typealias Failure = FileError<FailureDomain>

    /// How the output reaches its destination.
    public enum Kind: Sendable, Equatable {
        /// Standard output or standard error, written through.
        case standardStream
        /// A device or FIFO, opened and written through.
        case writeThrough
        /// A temporary file renamed over the destination on `commit()`.
        case atomic
    }

    /// The output as the caller named it.
    public let path: String
    /// How it is written.
    public let kind: Kind
    private var descriptor: Int32
    private let temporaryPath: String?
    private let destinationPath: String?
    /// The temporary file's registration with `InterruptCleanup`, which removes it if a signal ends the run.
    private let registration: InterruptCleanup.Registration?
    private var buffer: [UInt8] = []
    private var stickyFailure: Failure?
    private var finished = false
    /// Buffered bytes that trigger a write.
    private static let bufferLimit = 1 << 20

    private init(
        path: String, kind: Kind, descriptor: Int32, temporaryPath: String? = nil, destinationPath: String? = nil,
        registration: InterruptCleanup.Registration? = nil
    ) {
        self.path = path
        self.kind = kind
        self.descriptor = descriptor
        self.temporaryPath = temporaryPath
        self.destinationPath = destinationPath
        self.registration = registration
    }

    deinit {
        if !finished { abandon() }
    }

    /// Standard output, named `name` in messages.
    public static func standardOutput(name: String = "stdout") -> OutputFile {
        OutputFile(path: name, kind: .standardStream, descriptor: STDOUT_FILENO)
    }

    /// The output for `path` (see the type's description for what each kind of path gets).
    public static func open(path: String) throws(Failure) -> OutputFile {
        func fail(_ reason: String) -> Failure { Failure(path: path, reason: reason) }
        guard !path.isEmpty else { throw fail("cannot write: empty file name") }
        var information = stat()
        guard stat(path, &information) == 0 else {
            guard errno == ENOENT else { throw fail("cannot write: \(SystemError.describe(errno))") }
            // Nothing there yet, or a symbolic link to a file still to be made: create it where the link points.
            return try openTemporary(path: path, destination: try resolveLinks(path), existing: nil)
        }
        for stream in [STDOUT_FILENO, STDERR_FILENO] {
            var streamInformation = stat()
            if fstat(stream, &streamInformation) == 0,
                streamInformation.st_dev == information.st_dev, streamInformation.st_ino == information.st_ino
            {
                return OutputFile(path: path, kind: .standardStream, descriptor: stream)
            }
        }
        switch information.st_mode & S_IFMT {
        case S_IFREG:
            guard let resolved = realpath(path, nil) else { throw fail("cannot write: \(SystemError.describe(errno))") }
            defer { free(resolved) }
            return try openTemporary(path: path, destination: String(cString: resolved), existing: information)
        case S_IFDIR:
            throw fail("cannot write: is a folder")
        default:
            // A FIFO blocks here until a reader opens it, as with any program writing to a named pipe.
            var descriptor: Int32
            repeat { descriptor = Glibc.open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY) } while descriptor < 0 && errno == EINTR
            if descriptor < 0 { throw fail("cannot write: \(SystemError.describe(errno))") }
            return OutputFile(path: path, kind: .writeThrough, descriptor: descriptor)
        }
    }

    /// Whether `open(path:)` would write through to what is at `path` (following symbolic links): a device, FIFO
    /// or socket that exists. Such a path needs to be writable itself, not its folder: a normal user may write
    /// `/dev/null` but not create files in `/dev`.
    public static func writesThrough(path: String) -> Bool {
        var information = stat()
        guard stat(path, &information) == 0 else { return false }
        let type = information.st_mode & S_IFMT
        return type != S_IFREG && type != S_IFDIR
    }

    /// Whether writing `path` replaces a file that is there (a regular file, following symbolic links): what a
    /// command says when it overwrites an earlier result, such as a model trained before.
    public static func replacesFile(path: String) -> Bool {
        var information = stat()
        guard stat(path, &information) == 0 else { return false }
        return information.st_mode & S_IFMT == S_IFREG
    }

    /// The first failure, once a write has failed (every later call throws it again).
    public var failure: Failure? { stickyFailure }

    /// Appends bytes (buffered).
    public func write(_ bytes: some Sequence<UInt8>) throws(Failure) {
        if let stickyFailure { throw stickyFailure }
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferLimit { try flush() }
    }

    /// Appends text as UTF-8 (buffered).
    public func write(_ text: String) throws(Failure) {
        try write(text.utf8)
    }

    /// Hands everything buffered to the system.
    public func flush() throws(Failure) {
        if let stickyFailure { throw stickyFailure }
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: buffer.count <= Self.bufferLimit * 2) }
        var failureCode: Int32 = 0
        buffer.withUnsafeBytes { bytes in
            var written = 0
            while written < bytes.count {
                let result = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if result >= 0 {
                    written += result
                } else if errno == EINTR {
                    continue
                } else if errno == EAGAIN {
                    // A non-blocking descriptor inherited from the caller: wait until it takes more.
                    var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&poller, 1, -1)
                } else {
                    failureCode = errno
                    return
                }
            }
        }
        if failureCode != 0 { try fail(failureCode) }
    }

    /// Makes the output final: flushes, and for a temporary file syncs it to disk and renames it into place.
    /// On failure the temporary file is removed and the destination is as it was.
    public func commit() throws(Failure) {
        if finished { return }
        do {
            try flush()
            switch kind {
            case .standardStream:
                break
            case .writeThrough:
                let descriptor = self.descriptor
                self.descriptor = -1
                if Glibc.close(descriptor) != 0 && errno != EINTR { try fail(errno) }
            case .atomic:
                if fsync(descriptor) != 0 && errno != EINVAL { try fail(errno) }
                let descriptor = self.descriptor
                self.descriptor = -1
                if Glibc.close(descriptor) != 0 && errno != EINTR { try fail(errno) }
                let code = InterruptCleanup.rename(temporaryPath!, to: destinationPath!, forgetting: registration)
                if code != 0 { try fail(code) }
            }
            finished = true
        } catch {
            abandon()
            throw error
        }
    }

    /// Drops the output: a temporary file is closed and removed; a stream or device keeps what it was sent.
    public func abandon() {
        if finished { return }
        finished = true
        buffer.removeAll()
        switch kind {
        case .standardStream:
            break
        case .writeThrough, .atomic:
            if descriptor >= 0 { _ = Glibc.close(descriptor) }
            descriptor = -1
            if let temporaryPath { unlink(temporaryPath) }
            if let registration { InterruptCleanup.forget(registration) }
        }
    }

    private func fail(_ code: Int32) throws(Failure) -> Never {
        let failure = Failure(path: path, reason: "cannot write: \(SystemError.describe(code))")
        stickyFailure = failure
        throw failure
    }

    private static func openTemporary(path: String, destination: String, existing: stat?) throws(Failure) -> OutputFile {
        func fail(_ reason: String) -> Failure { Failure(path: path, reason: reason) }
        let slash = destination.lastIndex(of: "/")
        let folder = slash.map { $0 == destination.startIndex ? "/" : String(destination[..<$0]) } ?? "."
        let name = slash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        var folderInformation = stat()
        guard stat(folder, &folderInformation) == 0, (folderInformation.st_mode & S_IFMT) == S_IFDIR else {
            throw fail("cannot write: folder \(folder) does not exist")
        }
        let temporary = TemporaryFileName.beside(name, in: folder)
        // Registered before it exists: an interrupt right after the open still finds it.
        let registration = InterruptCleanup.removeOnInterrupt(file: temporary)
        var descriptor: Int32
        repeat {
            descriptor = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0o666)
        } while descriptor < 0 && errno == EINTR
        if descriptor < 0 {
            let code = errno
            InterruptCleanup.forget(registration)
            throw fail("cannot write: \(SystemError.describe(code))")
        }
        if let existing {
            // The new file takes the old one's place, so it takes its permissions and (where allowed) its owner.
            _ = fchmod(descriptor, existing.st_mode & 0o7777)
            if existing.st_uid != geteuid() || existing.st_gid != getegid() {
                _ = fchown(descriptor, existing.st_uid, existing.st_gid)
            }
        }
        return OutputFile(
            path: path, kind: .atomic, descriptor: descriptor, temporaryPath: temporary, destinationPath: destination,
            registration: registration)
    }

    /// Where a chain of symbolic links at `path` ends (a file that does not exist yet); `path` itself otherwise.
    static func resolveLinks(_ path: String) throws(Failure) -> String {
        var current = path
        for _ in 0..<40 {
            var information = stat()
            guard lstat(current, &information) == 0, (information.st_mode & S_IFMT) == S_IFLNK else { return current }
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &target, target.count - 1)
            guard length > 0 else { return current }
            let text = String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("/") {
                current = text
            } else if let slash = current.lastIndex(of: "/") {
                current = String(current[...slash]) + text
            } else {
                current = text
            }
        }
        throw Failure(path: path, reason: "cannot write: \(SystemError.describe(ELOOP))")
    }
}
