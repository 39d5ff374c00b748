import FileFormats
import Foundation

/// How a file's path is handed to ffmpeg and ffprobe. Both read every input and output name as a URL first: a file
/// named `concat:odd.mp4` would be read through the concat protocol (another file's bytes), `http:x.mp4` through
/// the network. Every path this module passes them is this `file:` URL of the absolute path, which the file
/// protocol opens as it stands (no percent-decoding, no other protocol).
///
/// An input must be a regular file (`input`): ffmpeg and ffprobe open a FIFO and wait for a writer for good, and
/// read a device such as `/dev/zero` without end, so those are refused in one line before any program starts.
enum MediaPath {
    /// The URL of `path` as an input, after the one check every input of ffmpeg and ffprobe gets: it is a regular
    /// file (symbolic links followed). Errors: nothing there ("file not found"), a folder, a FIFO, a device or a
    /// socket ("not a regular file (a FIFO)").
    static func input(_ path: String) throws(VideoError) -> String {
        var information = stat()
        if stat(path, &information) == 0, information.st_mode & S_IFMT == S_IFDIR {
            throw VideoError(.notAVideo, path: path, reason: "is a folder, not a video file")
        }
        do {
            _ = try InputFile.examine(path)
        } catch {
            if error.kind == .missing { throw VideoError(.fileNotFound, path: path, reason: "file not found") }
            throw VideoError(.notAVideo, path: path, reason: error.reason)
        }
        return url(path)
    }

    /// `file:` and `path` made absolute against the working directory, without resolving links or `..`.
    static func url(_ path: String) -> String {
        "file:" + absolute(path)
    }

    /// `path` made absolute against the working directory (unchanged when it is absolute already).
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        let folder = FileManager.default.currentDirectoryPath
        return folder.hasSuffix("/") ? folder + path : folder + "/" + path
    }
}
