/// The files a review copy or a highlight reel can be written to: containers that hold H.264 or MPEG-4 Part 2
/// video with AAC sound and the `+faststart` index. ffmpeg picks the container by the file's ending, so any other
/// ending (`.txt`, `.webm`, `.mpg`) would fail inside ffmpeg, naming a temporary file; it is refused up front.
public enum VideoContainer {
    /// The endings that work (any case); a name without an ending is written as MP4.
    public static let fileExtensions = ["mp4", "m4v", "mov", "mkv"]

    /// Fails unless `path`'s file name has no ending or one of `fileExtensions`.
    public static func check(output path: String) throws(VideoError) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return }
        let ending = String(name[name.index(after: dot)...])
        guard !fileExtensions.contains(ending.lowercased()) else { return }
        let endings = fileExtensions.map { "." + $0 }
        throw VideoError(
            .invalidArgument, path: path,
            reason: "cannot write a video ending in .\(ending): name it "
                + endings.dropLast().joined(separator: ", ") + " or " + endings[endings.count - 1])
    }
}
