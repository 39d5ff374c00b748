import Foundation

/// How a file's path is handed to ffmpeg and ffprobe. Both read every input and output name as a URL first: a file
/// named `concat:odd.mp4` would be read through the concat protocol (another file's bytes), `http:x.mp4` through
/// the network. Every path this module passes them is this `file:` URL of the absolute path, which the file
/// protocol opens as it stands (no percent-decoding, no other protocol).
enum MediaPath {
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
