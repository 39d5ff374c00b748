/// The `workbench` command lines that batch scripts run. A batch script is a command line for another process, so
/// this is the one place below the command-line tool that spells its options; they must match `WorkbenchCLI`'s, which
/// the Slurm tests check by running the scripts.
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
        public init(every: Double, framesPerSecond: Double?, minimumConfidence: Double?, fallbackLabel: String?,
                    smoothing: Int, changesOnly: Bool, testTimeAugmentation: Bool? = nil) {
            (self.every, self.framesPerSecond, self.minimumConfidence) = (every, framesPerSecond, minimumConfidence)
            (self.fallbackLabel, self.smoothing, self.changesOnly) = (fallbackLabel, smoothing, changesOnly)
            self.testTimeAugmentation = testTimeAugmentation
        }

        /// The options of `workbench label` that give these settings; defaults are left out.
        public var arguments: [String] {
            var arguments: [String] = []
            if every != 1 { arguments += ["--every", "\(every)"] }
            if let framesPerSecond { arguments += ["--fps", "\(framesPerSecond)"] }
            if minimumConfidence != 0 { arguments += ["--min-confidence", minimumConfidence.map { "\($0)" } ?? "auto"] }
            if let fallbackLabel { arguments += ["--fallback", fallbackLabel] }
            if smoothing != 1 { arguments += ["--smooth", "\(smoothing)"] }
            if changesOnly { arguments.append("--changes-only") }
            if let testTimeAugmentation { arguments.append(testTimeAugmentation ? "--tta" : "--no-tta") }
            return arguments
        }
    }

    /// A task of a sharded label run: its shard of `movies` into the results folder, `threads` workers.
    public static func label(binary: String, model: String, movies: [String], results: String, threads: Int,
                             options: LabelOptions, shardCount: Int) -> [ScriptWord] {
        [binary, "label", model].map(ScriptWord.init) + movies.map(ScriptWord.init)
            + ["--results", results, "--threads", "\(threads)"].map(ScriptWord.init)
            + options.arguments.map(ScriptWord.init) + [ScriptWord("--shard"), .arrayShard(count: shardCount)]
    }

    /// The merge job of a sharded label run: every result into the player's file, in one locked write.
    public static func merge(binary: String, results: String, movieData: String) -> [ScriptWord] {
        [binary, "label", "merge", results, "--movie-data", movieData].map(ScriptWord.init)
    }

    /// A task of a sharded features run: its shard of `inputs` into the feature cache, with the backbone at
    /// `backbone`.
    public static func fillCache(binary: String, inputs: [String], backbone: String, threads: Int,
                                 shardCount: Int) -> [ScriptWord] {
        [binary, "features"].map(ScriptWord.init) + inputs.map(ScriptWord.init)
            + ["--fill-cache", "--backbone", backbone, "--threads", "\(threads)"].map(ScriptWord.init)
            + [ScriptWord("--shard"), .arrayShard(count: shardCount)]
    }
}
