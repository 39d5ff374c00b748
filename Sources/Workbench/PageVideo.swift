import FileFormats
import Foundation
import Video

/// What the player of a review page (`detect`'s and `label`'s) plays for one video: the video itself when every
/// browser plays it (`BrowserPlayability`), else its annotated copy when one is written and a browser plays that,
/// else a small H.264 preview made for the page (`PagePreview`), so the page always plays.
public struct PageVideo: Sendable, Equatable {
    /// Which file the page plays.
    public enum Source: String, Sendable {
        case input
        case annotatedCopy = "annotated copy"
        case preview
    }

    /// The video as the user named it.
    public var video: String
    public var source: Source
    /// The file the page links: `video` itself, the annotated copy or the preview.
    public var file: String
    /// Why a browser may not play `video` itself (`BrowserPlayability.problem`); nil when it plays. With `input`,
    /// the page links the video all the same: it is written to a device, with no folder for a preview.
    public var problem: String?

    /// A choice.
    public init(video: String, source: Source, file: String, problem: String? = nil) {
        self.video = video
        self.source = source
        self.file = file
        self.problem = problem
    }

    /// Where the previews of `videos` go: beside `page`, `<page name>-<video name>.mp4`, a number added when two
    /// videos share a name or the name is one of `reserved` (the run's inputs and other outputs), so a preview
    /// never replaces one of them. A page written through to a device or FIFO (`/dev/null`) has no folder of its
    /// own: nil each, and no preview is made.
    static func previewPaths(page: String, videos: [String], reserved: [String]) -> [String?] {
        if OutputFile.writesThrough(path: page) { return videos.map { _ in nil } }
        let folder = (page as NSString).deletingLastPathComponent
        let pageStem = URL(fileURLWithPath: page).deletingPathExtension().lastPathComponent
        func standardized(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }
        var taken = Set(reserved.map(standardized))
        return videos.map { video in
            let stem = URL(fileURLWithPath: video).deletingPathExtension().lastPathComponent
            var number = 1
            func name() -> String { (folder as NSString).appendingPathComponent("\(pageStem)-\(stem)\(number == 1 ? "" : "-\(number)").mp4") }
            while taken.contains(standardized(name())) { number += 1 }
            taken.insert(standardized(name()))
            return name()
        }
    }

    /// Chooses what the page plays for `video` (input, then `annotatedCopy` if it plays, then a preview written
    /// to `preview`; without a preview path, the input, its `problem` told). Errors name the file: ffprobe cannot
    /// read one, or the preview cannot be made (nothing is left at `preview` then).
    static func choose(video: String, annotatedCopy: String?, preview: String?, tools: ExternalTools) throws(WorkbenchError) -> PageVideo {
        try WorkbenchError.passingOn { () throws -> PageVideo in
            guard let problem = try BrowserPlayability.probe(path: video, tools: tools).problem else {
                return PageVideo(video: video, source: .input, file: video)
            }
            if let annotatedCopy, try BrowserPlayability.probe(path: annotatedCopy, tools: tools).plays {
                return PageVideo(video: video, source: .annotatedCopy, file: annotatedCopy, problem: problem)
            }
            guard let preview else { return PageVideo(video: video, source: .input, file: video, problem: problem) }
            try PagePreview.write(video: video, to: preview, tools: tools)
            return PageVideo(video: video, source: .preview, file: preview, problem: problem)
        }
    }
}

extension LabelingReview {
    /// Chooses (and where needed makes) what the page at `page` plays for each movie file, in movie order;
    /// `annotatedCopies` are the review copies written, one per movie, and `reserved` the run's other outputs. A
    /// folder of frames has no player and no choice.
    func choosePageVideos(page: String, annotatedCopies: [String]?, reserved: [String]) throws(WorkbenchError) -> [PageVideo] {
        let paths = movies.map(\.result.path)
        let previews = PageVideo.previewPaths(page: page, videos: paths, reserved: paths + (annotatedCopies ?? []) + reserved + [page])
        var choices: [PageVideo] = []
        for index in movies.indices where movies[index].isVideo {
            let path = movies[index].result.path
            let tools = try WorkbenchError.passingOn { try ExternalTools.locate(for: path) }
            let choice = try PageVideo.choose(
                video: path, annotatedCopy: annotatedCopies.flatMap { $0.indices.contains(index) ? $0[index] : nil }, preview: previews[index],
                tools: tools)
            movies[index].pageFile = choice.file
            choices.append(choice)
        }
        return choices
    }
}
