import Foundation

/// Which of several input videos a phase file's `"video"` names, so that phase files given in another order than
/// their videos (`sync a.mp4 b.mp4 --phases b.json a.json`) are caught before one video is cut by another's phases.
///
/// A phase file names a video when its `"video"`, taken as written (from the working folder, as `workbench phases`
/// writes the path it was given) or from the phase file's own folder, is the same file as the video (device and
/// inode), or when the two names end in the same file name (a file marked by hand, or on another machine). A file
/// *names another input* when it names one of the other videos and not its own; one that names no input at all
/// (the videos were renamed or moved since) is not a mismatch, since nothing says it belongs elsewhere.
public enum PhaseFileVideos {
    /// A phase file given for one input whose `"video"` names another.
    public struct Mismatch: Sendable, Equatable {
        /// The phase file.
        public var phaseFile: String
        /// The video it was given for, and its place among the inputs (0-based).
        public var video: String, input: Int
        /// The file's `"video"`, as written.
        public var named: String
        /// The other input it names, and its place (0-based).
        public var namedVideo: String, namedInput: Int

        /// A mismatch from its parts.
        public init(phaseFile: String, video: String, input: Int, named: String, namedVideo: String, namedInput: Int) {
            self.phaseFile = phaseFile
            self.video = video
            self.input = input
            self.named = named
            self.namedVideo = namedVideo
            self.namedInput = namedInput
        }

        /// The refusal: one line naming the phase file, the video it names and the video it was given for.
        public var error: PhaseError {
            PhaseError(
                .otherVideo, path: phaseFile,
                reason: "names the video \(quoted(named)), which is video \(namedInput + 1) (\(namedVideo)), not video \(input + 1) "
                    + "(\(video)) it was given for: give the phase files in the order of their videos")
        }
    }

    /// The phase files (`timelines[i]` read from `phaseFiles[i]`, given for `videos[i]`) that name another input.
    public static func mismatches(phaseFiles: [String], timelines: [PhaseTimeline], videos: [String]) -> [Mismatch] {
        precondition(phaseFiles.count == timelines.count && timelines.count == videos.count, "PhaseFileVideos: one phase file per video")
        var found: [Mismatch] = []
        for (index, (file, timeline)) in zip(phaseFiles, timelines).enumerated() {
            guard !names(timeline.video, phaseFile: file, video: videos[index]) else { continue }
            if let other = videos.indices.first(where: { $0 != index && names(timeline.video, phaseFile: file, video: videos[$0]) }) {
                found.append(
                    Mismatch(
                        phaseFile: file, video: videos[index], input: index, named: timeline.video,
                        namedVideo: videos[other], namedInput: other))
            }
        }
        return found
    }

    /// Throws the first mismatch (`mismatches`) as its `PhaseError`.
    public static func check(phaseFiles: [String], timelines: [PhaseTimeline], videos: [String]) throws(PhaseError) {
        if let first = mismatches(phaseFiles: phaseFiles, timelines: timelines, videos: videos).first { throw first.error }
    }

    /// Whether `named` (a phase file's `"video"`) names `video`: see the type's description.
    public static func names(_ named: String, phaseFile: String, video: String) -> Bool {
        guard !named.isEmpty else { return false }
        if let target = identity(video) {
            var candidates = [named]
            if !named.hasPrefix("/") {
                let folder = (phaseFile as NSString).deletingLastPathComponent
                if !folder.isEmpty { candidates.append(folder + "/" + named) }
            }
            if candidates.contains(where: { identity($0) == target }) { return true }
        }
        let namedFile = (named as NSString).lastPathComponent, videoFile = (video as NSString).lastPathComponent
        return !namedFile.isEmpty && namedFile == videoFile
    }

    /// A file's device and inode; nil when it cannot be read (a URL, a missing file).
    private static func identity(_ path: String) -> [UInt64]? {
        var information = stat()
        guard stat(path, &information) == 0 else { return nil }
        return [UInt64(information.st_dev), UInt64(information.st_ino)]
    }
}
