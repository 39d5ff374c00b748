import Foundation

/// Inputs the end-to-end tests make with the project's tools: the tiny two-label dataset and short videos.
public enum TestMedia {
    /// A set-up step of a test fixture that failed: what ran, and what it said.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// Throws `Failure` naming `what` unless the run exited 0.
    public static func check(_ outcome: WorkbenchBinary.Outcome, _ what: String) throws {
        guard outcome.status == 0 else { throw Failure("\(what) exited with \(outcome.status): \(outcome.standardError)") }
    }

    /// `scripts/fixtures/make-tiny-dataset.py`: crops, flips and tints of the cat and espresso fixtures in Create ML's
    /// layout (`Training Data`, `Testing Data`), `perLabel` images per label, labels named `labels`.
    public static func tinyDataset(
        at folder: URL, perLabel: Int = 8, labels: (cat: String, espresso: String),
        environment: [String: String]
    ) throws {
        let root = WorkbenchBinary.repositoryRoot()
        try check(
            WorkbenchBinary.runProcess(
                ProjectPython.path,
                [
                    root.appendingPathComponent("scripts/fixtures/make-tiny-dataset.py").path,
                    root.appendingPathComponent("Tests/ModelsTests/Fixtures").path, folder.path,
                    "--per-label", "\(perLabel)", "--labels", "\(labels.cat),\(labels.espresso)",
                ], environment: environment), "make-tiny-dataset.py (needs set-up's .venv)")
    }

    /// The tiny dataset (labels `cat` and `espresso`) in `folder/tiny` and a model trained on it without the cache,
    /// `folder/tiny.wbmodel`: the one model many end-to-end tests share.
    public static func tinyModel(in folder: URL) throws -> (dataset: URL, model: String) {
        let dataset = folder.appendingPathComponent("tiny"), model = folder.appendingPathComponent("tiny.wbmodel").path
        try tinyDataset(at: dataset, labels: ("cat", "espresso"), environment: ProcessInfo.processInfo.environment)
        try check(WorkbenchBinary.run(["train", dataset.path, "-o", model, "--no-cache"]), "workbench train")
        return (dataset, model)
    }

    /// The PNG pictures of a folder, in name order.
    public static func pictures(_ folder: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "png" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// An H.264 video showing each picture for `seconds`, letterboxed into 640 × 360 at `framesPerSecond`.
    public static func video(
        pictures: [URL], seconds: Int, framesPerSecond: Int = 25, to output: URL,
        environment: [String: String]
    ) throws {
        var arguments = ["-nostdin", "-loglevel", "error", "-y"]
        for picture in pictures { arguments += ["-loop", "1", "-t", "\(seconds)", "-i", picture.path] }
        let scaled = pictures.indices.map {
            "[\($0)]scale=640:360:force_original_aspect_ratio=decrease,pad=640:360:(ow-iw)/2:(oh-ih)/2,setsar=1,fps=\(framesPerSecond)[v\($0)]"
        }
        let joined = pictures.indices.map { "[v\($0)]" }.joined() + "concat=n=\(pictures.count):v=1[out]"
        arguments += ["-filter_complex", (scaled + [joined]).joined(separator: ";"), "-map", "[out]", "-pix_fmt", "yuv420p", output.path]
        try check(WorkbenchBinary.runProcess("/usr/bin/ffmpeg", arguments, environment: environment), "ffmpeg \(output.lastPathComponent)")
    }
}
