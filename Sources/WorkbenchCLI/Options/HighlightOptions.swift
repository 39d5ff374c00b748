import ArgumentParser
import Workbench

struct HighlightOptions: ParsableArguments {
    @Flag(name: .long, help: "Per video: mean confidence of each label, the top label, each label's best window.")
    var summary = false

    @Option(name: .long, help: ArgumentHelp("Window length for --summary and --highlights, 0.001 to 86400.", valueName: "seconds"))
    var window: Double = 5

    @Option(name: .long, help: ArgumentHelp("Cut the best window of each video whose top label is LABEL into one reel.", valueName: "label"))
    var highlights: String?

    @Option(name: .long, help: "With --highlights: the N videos that score highest on LABEL, whatever their top label.")
    var count: Int?

    @Option(name: .shortAndLong, help: ArgumentHelp("The highlight reel to write.", valueName: "file"))
    var output: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --highlights: the reel's size, e.g. 1280x720 (even sides, 16 to 8192; default: the largest movie's, never upscaled).",
            valueName: "WxH"))
    var size: String?

    /// `--size` as a size; nil when absent. Throws the usage error for a size that is not WIDTHxHEIGHT with even
    /// sides in range.
    func reelSize() throws -> ImageSize? {
        guard let size else { return nil }
        let parts = size.split(separator: "x", omittingEmptySubsequences: false)
        let sides = HighlightFormat.sides
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let width = Int(parts[0]), let height = Int(parts[1]), HighlightFormat.isValid(ImageSize(width: width, height: height))
        else {
            throw ValidationError(
                "--size must be WIDTHxHEIGHT with even sides from \(sides.lowerBound) to \(sides.upperBound), e.g. 1280x720, got \"\(size)\"")
        }
        return ImageSize(width: width, height: height)
    }
}
