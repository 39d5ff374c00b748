import ArgumentParser
import Workbench

/// `--min-confidence`: a number, or `auto` for the threshold stored in the model by `train --target-precision`.
enum ConfidenceSetting: ExpressibleByArgument, Equatable {
    case value(Double)
    case auto

    init?(argument: String) {
        if argument == "auto" { self = .auto } else if let value = Double(argument) { self = .value(value) } else { return nil }
    }

    var defaultValueDescription: String {
        switch self {
        case .value(let value): return "\(value)"
        case .auto: return "auto"
        }
    }
}

struct MarkerOptions: ParsableArguments {
    /// The label of frames below --min-confidence when --fallback is not given.
    static let defaultFallback = LabelSettings.defaultFallback

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Below this confidence (0 to 1) a frame's label is the --fallback label; auto takes the model's threshold (train --target-precision).",
            valueName: "p|auto"))
    var minConfidence: ConfidenceSetting = .value(0)

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The label of frames below --min-confidence (default: \(defaultFallback)); any name, a model label too. "
                + "Such frames show the confidence that fell short: 'Unsure  0.42 (cat, below 0.6)'.",
            valueName: "label"))
    var fallback: String?

    @Option(name: .long, help: ArgumentHelp("Majority vote over a window of N seconds (1 to 86400), so labels don't flicker.", valueName: "n"))
    var smooth: Int = 1

    @Flag(name: .long, help: "A marker only where the label changes (default: one per second).")
    var changesOnly = false
}

extension MarkerOptions {
    /// These marker options with the given sampling, as a sharded run's settings.
    func settings(every: Double, framesPerSecond: Double?) -> LabelSettings {
        var settings = LabelSettings()
        settings.every = every
        settings.framesPerSecond = framesPerSecond
        switch minConfidence {
        case .value(let value): settings.minimumConfidence = value
        case .auto: settings.minimumConfidence = nil
        }
        settings.fallbackLabel = fallback
        settings.smoothing = smooth
        settings.changesOnly = changesOnly
        return settings
    }
}
