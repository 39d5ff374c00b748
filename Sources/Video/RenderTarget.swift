import FileFormats
import Foundation

/// Where ffmpeg writes a rendered video or picture, so that the named output is never left half-written.
///
/// A regular file (or a name not there yet) is written to a hidden temporary file beside it, `+faststart` MP4 (or
/// the ending's container), and renamed over it by `finish()`; `abandon()` removes it, and so does an interrupt
/// (`InterruptCleanup`, which also keeps a rename from happening once it has begun). A device or FIFO that
/// exists (`/dev/null`, a named pipe) is written through as fragmented MP4, the form a stream that cannot seek
/// takes, never replaced. A symbolic link is written through, as every output is (`AtomicFile.destination`): the
/// file at the end of its chain is what is replaced, and the link keeps pointing where it did. A folder, a missing folder or an ending ffmpeg cannot write is refused before any work.
struct RenderTarget {
    /// The output as the caller named it.
    let output: String
    /// The file ffmpeg writes.
    let writtenPath: String
    /// The file replaced: `output`, or where its chain of symbolic links ends.
    let destination: String
    /// The temporary file's registration with `InterruptCleanup`; nil when written through.
    private let registration: InterruptCleanup.Registration?

    /// Whether `writtenPath` is a temporary file to rename over `destination`.
    var isTemporary: Bool { registration != nil }

    /// The file a render to `output` replaces: `output` itself, or the end of its chain of symbolic links (which
    /// need not exist yet). The one rule of every writer of videos, as of every other output.
    static func destination(of output: String) throws(VideoError) -> String {
        do {
            return try AtomicFile.destination(of: output)
        } catch {
            throw VideoError(.writeFailed, path: output, reason: error.reason)
        }
    }

    /// Checks `output` and picks what ffmpeg writes.
    init(output: String) throws(VideoError) {
        var status = stat()
        if stat(output, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFDIR:
                throw VideoError(.writeFailed, path: output, reason: "cannot write: is a folder")
            case S_IFREG:
                break
            default:
                self.init(output: output, destination: output, writtenPath: output, registration: nil)
                return
            }
        }
        try VideoContainer.check(output: output)
        let folder = URL(fileURLWithPath: try Self.destination(of: output)).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw VideoError(.writeFailed, path: output, reason: "cannot write: folder \(folder) does not exist")
        }
        try self.init(partialBeside: output, defaultEnding: "mp4")
    }

    /// Always a temporary file beside `output`'s destination (the end of its links), for a caller that has checked
    /// `output` itself: the given name's own ending kept (ffmpeg picks the container or picture format from it),
    /// `defaultEnding` when it has none.
    init(partialBeside output: String, defaultEnding: String?) throws(VideoError) {
        let destination = try Self.destination(of: output)
        let url = URL(fileURLWithPath: destination)
        let given = URL(fileURLWithPath: output).pathExtension
        let partial = TemporaryFileName.beside(
            url.lastPathComponent, in: url.deletingLastPathComponent().path, ending: given.isEmpty ? defaultEnding : given)
        self.init(
            output: output, destination: destination, writtenPath: partial, registration: InterruptCleanup.removeOnInterrupt(file: partial))
    }

    private init(output: String, destination: String, writtenPath: String, registration: InterruptCleanup.Registration?) {
        self.output = output
        self.destination = destination
        self.writtenPath = writtenPath
        self.registration = registration
    }

    /// ffmpeg's output arguments: the container's flags and the file.
    var arguments: [String] {
        if isTemporary { return ["-movflags", "+faststart", MediaPath.url(writtenPath)] }
        return ["-f", "mp4", "-movflags", "frag_keyframe+empty_moov", MediaPath.url(writtenPath)]
    }

    /// Puts the finished file in place (a rename for a temporary file).
    func finish() throws(VideoError) {
        guard let registration else { return }
        let code = InterruptCleanup.rename(writtenPath, to: destination, forgetting: registration)
        if code != 0 {
            abandon()
            throw VideoError(.writeFailed, path: output, reason: "cannot write: \(String(cString: strerror(code)))")
        }
    }

    /// Removes a temporary file left by a failed render.
    func abandon() {
        guard let registration else { return }
        unlink(writtenPath)
        InterruptCleanup.forget(registration)
    }
}

extension TemporaryFolder {
    /// A render's work folder (`PREFIX-UUID` under `TMPDIR`), failures as the module's `.writeFailed`.
    static func forRender(prefix: String) throws(VideoError) -> TemporaryFolder {
        do {
            return try TemporaryFolder.make(prefix: prefix)
        } catch {
            throw VideoError(.writeFailed, path: error.path, reason: error.reason)
        }
    }
}
