/// The `workbench` command lines that batch scripts run. A batch script is a command line for another process, so
/// this is the one place below the command-line tool that spells its commands and options, all of them from one
/// table, `WorkbenchTaskOption`; `WorkbenchCLIParserTests` parses lines made here with the CLI's own parser.
public enum WorkbenchTaskCommand {
    /// What changes a movie's markers, as `workbench label` takes it (defaults are left out of the command line).
    public struct LabelOptions: Sendable, Equatable {
        public var every: Double
        public var framesPerSecond: Double?
        /// nil: the model's own threshold.
        public var minimumConfidence: Double?
        public var fallbackLabel: String?
        public var smoothing: Int
        public var changesOnly: Bool
        /// `--tta` (true), `--no-tta` (false), or nil for the model's default.
        public var testTimeAugmentation: Bool?

        /// Options as given.
        public init(
            every: Double, framesPerSecond: Double?, minimumConfidence: Double?, fallbackLabel: String?,
            smoothing: Int, changesOnly: Bool, testTimeAugmentation: Bool? = nil
        ) {
            (self.every, self.framesPerSecond, self.minimumConfidence) = (every, framesPerSecond, minimumConfidence)
            (self.fallbackLabel, self.smoothing, self.changesOnly) = (fallbackLabel, smoothing, changesOnly)
            self.testTimeAugmentation = testTimeAugmentation
        }

        /// The options of `workbench label` that give these settings; defaults are left out.
        public var arguments: [String] {
            typealias Option = WorkbenchTaskOption
            var arguments: [String] = []
            if every != 1 { arguments += Option.every.words("\(every)") }
            if let framesPerSecond { arguments += Option.framesPerSecond.words("\(framesPerSecond)") }
            if minimumConfidence != 0 {
                arguments += Option.minimumConfidence.words(minimumConfidence.map { "\($0)" } ?? Option.automaticConfidence)
            }
            if let fallbackLabel { arguments += Option.fallbackLabel.words(fallbackLabel) }
            if smoothing != 1 { arguments += Option.smoothing.words("\(smoothing)") }
            if changesOnly { arguments += Option.changesOnly.words() }
            if let testTimeAugmentation {
                arguments += (testTimeAugmentation ? Option.testTimeAugmentation : Option.noTestTimeAugmentation).words()
            }
            return arguments
        }
    }

    /// A task of a sharded label run: its shard of `movies` into the results folder, `threads` workers.
    public static func label(
        binary: String, model: String, movies: [String], results: String, threads: Int,
        options: LabelOptions, shardCount: Int
    ) -> [ScriptWord] {
        typealias Option = WorkbenchTaskOption
        return
            ([binary] + WorkbenchTaskOption.Command.label.words + [model] + movies
            + Option.results.words(results) + Option.threads.words("\(threads)") + options.arguments).map(ScriptWord.init)
            + [ScriptWord(Option.shard.name), .arrayShard(count: shardCount)]
    }

    /// The merge job of a sharded label run: every result into the player's file, in one locked write.
    public static func merge(binary: String, results: String, movieData: String) -> [ScriptWord] {
        ([binary] + WorkbenchTaskOption.Command.labelMerge.words + [results] + WorkbenchTaskOption.movieData.words(movieData))
            .map(ScriptWord.init)
    }

    /// A task of a sharded features run: its shard of `inputs` into the feature cache, with the backbone at
    /// `backbone`.
    public static func fillCache(
        binary: String, inputs: [String], backbone: String, threads: Int,
        shardCount: Int
    ) -> [ScriptWord] {
        typealias Option = WorkbenchTaskOption
        return
            ([binary] + WorkbenchTaskOption.Command.features.words + inputs + Option.fillCache.words()
            + Option.backbone.words(backbone) + Option.threads.words("\(threads)")).map(ScriptWord.init)
            + [ScriptWord(Option.shard.name), .arrayShard(count: shardCount)]
    }
}

/// Every `workbench` option a batch script writes: the command that takes it, its name and whether a value follows.
/// The one table of the CLI's spellings below the CLI (`WorkbenchCLIParserTests` checks each against the commands'
/// real options, by parsing generated lines).
public struct WorkbenchTaskOption: Sendable, Hashable {
    /// The commands the scripts run.
    public enum Command: String, Sendable, CaseIterable {
        case label, labelMerge, features

        /// The command's words after the program.
        public var words: [String] {
            switch self {
            case .label: ["label"]
            case .labelMerge: ["label", "merge"]
            case .features: ["features"]
            }
        }
    }

    /// The commands that take the option.
    public let commands: Set<Command>
    /// The option as typed: `--every`.
    public let name: String
    /// Whether a value follows it (`--every 2`), or it is a flag (`--changes-only`).
    public let takesValue: Bool

    private init(_ commands: Set<Command>, _ name: String, takesValue: Bool) {
        (self.commands, self.name, self.takesValue) = (commands, name, takesValue)
    }

    /// The option's words: its name, then `value` when it takes one. A value that begins with `-` (a fallback label
    /// `-`) is joined to the name, `--fallback=-`, since the parser would take a separate word for an option.
    func words(_ value: String? = nil) -> [String] {
        precondition((value != nil) == takesValue, "WorkbenchTaskOption \(name): a value exactly when it takes one")
        guard let value else { return [name] }
        return value.hasPrefix("-") ? ["\(name)=\(value)"] : [name, value]
    }

    /// `label`'s seconds between markers.
    public static let every = Self([.label], "--every", takesValue: true)
    /// `label`'s frames per second sampled.
    public static let framesPerSecond = Self([.label], "--fps", takesValue: true)
    /// `label`'s minimum confidence, a number or `automaticConfidence`.
    public static let minimumConfidence = Self([.label], "--min-confidence", takesValue: true)
    /// `minimumConfidence`'s value for the model's own threshold.
    public static let automaticConfidence = "auto"
    /// `label`'s label below the minimum confidence.
    public static let fallbackLabel = Self([.label], "--fallback", takesValue: true)
    /// `label`'s smoothing window.
    public static let smoothing = Self([.label], "--smooth", takesValue: true)
    /// `label`'s markers only where the label changes.
    public static let changesOnly = Self([.label], "--changes-only", takesValue: false)
    /// `label` with test-time augmentation.
    public static let testTimeAugmentation = Self([.label], "--tta", takesValue: false)
    /// `label` without test-time augmentation.
    public static let noTestTimeAugmentation = Self([.label], "--no-tta", takesValue: false)
    /// `label`'s results folder.
    public static let results = Self([.label], "--results", takesValue: true)
    /// `label merge`'s player file.
    public static let movieData = Self([.labelMerge], "--movie-data", takesValue: true)
    /// `features`' filling of the feature cache.
    public static let fillCache = Self([.features], "--fill-cache", takesValue: false)
    /// `features`' backbone weights.
    public static let backbone = Self([.features], "--backbone", takesValue: true)
    /// Worker threads.
    public static let threads = Self([.label, .features], "--threads", takesValue: true)
    /// The array task's shard, `TASK/COUNT`.
    public static let shard = Self([.label, .features], "--shard", takesValue: true)

    /// The whole table.
    public static let all: [Self] = [
        every, framesPerSecond, minimumConfidence, fallbackLabel, smoothing, changesOnly, testTimeAugmentation,
        noTestTimeAugmentation, results, movieData, fillCache, backbone, threads, shard,
    ]
}
