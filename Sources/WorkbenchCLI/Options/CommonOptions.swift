import ArgumentParser
import Workbench

/// Options every command that runs the network shares.
struct ComputeOptions: ParsableArguments {
    @Option(name: .long, help: "Worker threads (default: all cores).")
    var threads: Int?

    @Option(name: .long, help: ArgumentHelp("Refuse images larger than this many megapixels.", valueName: "megapixels"))
    var maxMegapixels: Int = 300

    /// More threads than this only costs memory: the work is spread over the cores there are.
    static let maximumThreads = 256
    /// Far above any real image (a JPEG holds at most 4,295 megapixels); beyond it the byte counts would overflow.
    static let maximumMegapixels = 100_000

    func validate() throws {
        if let threads, !(1...Self.maximumThreads).contains(threads) {
            throw ValidationError("--threads must be between 1 and \(Self.maximumThreads), got \(threads)")
        }
        guard (1...Self.maximumMegapixels).contains(maxMegapixels) else {
            throw ValidationError("--max-megapixels must be between 1 and \(Self.maximumMegapixels), got \(maxMegapixels)")
        }
    }

    /// These settings, for a workflow that makes its own feature extractor.
    func settings(usesCache: Bool) -> FeatureSettings {
        FeatureSettings(threads: threads ?? Parallel.coreCount, maximumPixels: maxMegapixels * 1_000_000, usesCache: usesCache)
    }

    /// A feature extractor over `backbone` with these settings.
    func extractor(backbone: Backbone, usesCache: Bool) -> FeatureExtractor {
        FeatureExtractor(backbone: backbone, settings: settings(usesCache: usesCache))
    }
}

/// Where set-up's backbone weights are, for the commands that start from the pretrained network.
struct BackboneOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The backbone weights (default: $WORKBENCH_WEIGHTS, else the installed share/workbench/ or set-up's models/ copy).", valueName: "path"))
    var backbone: String?

    /// Set-up's weights, from `--backbone` or found as `BackboneLocation` finds them.
    var source: BackboneSource { .pretrained(path: backbone) }
}

/// The feature cache switch.
struct CacheOptions: ParsableArguments {
    @Flag(name: .long, help: "Do not read or write the feature cache (~/.cache/workbench/features, or $WORKBENCH_CACHE).")
    var noCache = false
}

/// What to do with a file that cannot be read.
struct StrictOption: ParsableArguments {
    @Flag(name: .long, help: "Stop at the first file that cannot be read (default: skip it with a warning, count it and go on).")
    var strict = false
}
