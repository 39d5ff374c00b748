import ArgumentParser

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
}
