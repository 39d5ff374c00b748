import FileFormats
import Foundation

/// Where ffmpeg writes a rendered video, so that the named output is never left half-written.
///
/// A regular file (or a name not there yet) is written to a hidden temporary file beside it, `+faststart` MP4 (or
/// the ending's container), and renamed over it by `finish()`; `abandon()` removes it. A symbolic link is written
/// through, as every output is (`AtomicFile.destination`): the file at the end of its chain is what is replaced,
/// and the link keeps pointing where it did. A device or FIFO that
/// exists (`/dev/null`, a named pipe) is written through as fragmented MP4, the form a stream that cannot seek
/// takes, never replaced. A folder, a missing folder or an ending ffmpeg cannot write is refused before any work.
struct RenderTarget {
    /// The output as the caller named it.
    let output: String
    /// The file ffmpeg writes.
    let writtenPath: String
    /// Whether `writtenPath` is a temporary file to rename over `destination`.
    let isTemporary: Bool
    /// The file replaced: `output`, or where its chain of symbolic links ends.
    let destination: String

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
        self.output = output
        var status = stat()
        if stat(output, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFDIR:
                throw VideoError(.writeFailed, path: output, reason: "cannot write: is a folder")
            case S_IFREG:
                break
            default:
                writtenPath = output
                isTemporary = false
                destination = output
                return
            }
        }
        try VideoContainer.check(output: output)
        destination = try Self.destination(of: output)
        let url = URL(fileURLWithPath: destination)
        let folder = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw VideoError(.writeFailed, path: output, reason: "cannot write: folder \(folder) does not exist")
        }
        // ffmpeg picks the container by the ending of the name the caller gave.
        let given = URL(fileURLWithPath: output).pathExtension
        let ending = given.isEmpty ? "mp4" : given
        writtenPath = TemporaryFileName.beside(url.lastPathComponent, in: folder, ending: ending)
        isTemporary = true
    }

    /// ffmpeg's output arguments: the container's flags and the file.
    var arguments: [String] {
        if isTemporary { return ["-movflags", "+faststart", MediaPath.url(writtenPath)] }
        return ["-f", "mp4", "-movflags", "frag_keyframe+empty_moov", MediaPath.url(writtenPath)]
    }

    /// Puts the finished file in place (a rename for a temporary file).
    func finish() throws(VideoError) {
        guard isTemporary else { return }
        if rename(writtenPath, destination) != 0 {
            let reason = String(cString: strerror(errno))
            abandon()
            throw VideoError(.writeFailed, path: output, reason: "cannot write: \(reason)")
        }
    }

    /// Removes a temporary file left by a failed render.
    func abandon() {
        if isTemporary { unlink(writtenPath) }
    }
}
