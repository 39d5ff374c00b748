import Workbench

/// Where `features` writes its vectors, one line per image: text (`path<TAB>numbers`) or JSON Lines
/// (`{"path", "features"}`), to stdout or to `-o FILE`, which is written atomically (a failed run leaves no partial
/// file) or, for a device or pipe, written through. A path's control characters are written escaped in text lines
/// (`DisplayText.terminal`), as everywhere on the terminal, so a line is always one image.
final class FeatureVectorWriter {
    private let sink: OutputFile
    private let json: Bool
    /// The first failed write; the run stops there and the failure is the command's.
    private var failure: OutputFile.Failure?

    /// Opens `output` (nil: stdout); the workflow checks it against the inputs (`FeaturesRequest.output`) before
    /// any work, and a refused run drops it whole.
    init(output: String?, json: Bool) throws {
        sink = try output.map { path throws(OutputFile.Failure) in try OutputFile.open(path: path) } ?? Console.standardOutput
        self.json = json
    }

    /// One image's line; false once a write has failed, so the run stops.
    func write(path: String, features: [Float]) -> Bool {
        guard failure == nil else { return false }
        do {
            try sink.write(
                json
                    ? JSONLines.line(Line(path: path, features: features))
                    : "\(DisplayText.terminal(path))\t\(features.map { "\($0)" }.joined(separator: " "))\n")
            return true
        } catch {
            failure = error
            return false
        }
    }

    /// Runs `body` (a run writing through `write`) and commits the file; when the run throws or a write failed, a
    /// file is dropped whole (what already went to stdout is past recall) and the failure thrown. A run that wrote
    /// nothing because it had no images (`isEmpty`) leaves no file.
    func committing<Outcome>(_ body: () throws -> Outcome, isEmpty: (Outcome) -> Bool) throws -> Outcome {
        let outcome: Outcome
        do {
            outcome = try body()
            if let failure { throw failure }
        } catch {
            if sink !== Console.standardOutput { sink.abandon() }
            throw error
        }
        if isEmpty(outcome) {
            if sink !== Console.standardOutput { sink.abandon() }
        } else {
            try sink.commit()
        }
        return outcome
    }

    private struct Line: Encodable {
        var path: String
        var features: [Float]
    }
}
