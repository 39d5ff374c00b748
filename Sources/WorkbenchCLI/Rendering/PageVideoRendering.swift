import Workbench

/// The line `detect --html` and `label --html` print for each video, saying what the page plays, and its JSON.
enum PageVideoRendering {
    /// "the page plays movie.mp4 itself", or which other file it plays and why.
    static func line(_ choice: PageVideo) -> String {
        let video = DisplayText.terminal(choice.video), file = DisplayText.terminal(choice.file)
        let problem = choice.problem.map { DisplayText.terminal($0) } ?? "its format"
        let why = "a browser cannot be relied on to play \(video) itself (\(problem))"
        switch choice.source {
        case .input where choice.problem != nil:
            return "the page links \(video), which a browser cannot be relied on to play (\(problem)): a page not written to a file gets no preview"
        case .input: return "the page plays \(video) itself"
        case .annotatedCopy: return "the page plays the annotated copy \(file): \(why)"
        case .preview: return "the page plays a preview made for it, \(file): \(why)"
        }
    }

    /// `{"video", "plays": "input" | "annotated copy" | "preview", "file", "problem"}` ("problem" only when the
    /// video itself is not played).
    struct Object: Encodable {
        var video: String
        var plays: String
        var file: String
        var problem: String?

        init(_ choice: PageVideo) {
            video = choice.video
            plays = choice.source.rawValue
            file = choice.file
            problem = choice.problem
        }
    }
}
