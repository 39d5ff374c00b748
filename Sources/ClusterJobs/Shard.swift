/// One of `count` parts of a job's inputs: shard `index` of `count`, counted from 0 like Slurm's array task ids
/// and Kubernetes' completion indexes, so task `i` of an array runs shard `i/count`.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// Which part, `0..<count`.
    public let index: Int
    /// How many parts the inputs are split into.
    public let count: Int

    /// The most parts a job's inputs can be split into. Shards take no memory (the split keeps one entry per input,
    /// not per shard), so the bound is not for the machine's sake: it is far above any array a cluster runs
    /// (Slurm's `MaxArraySize` defaults to 1,001 and is capped at 4,000,001; a Kubernetes Indexed Job allows
    /// 100,000 completions) and a million tasks over one input list is already a mistake, while a count with a
    /// stray digit or a pasted 64-bit number is caught with a line instead of being obeyed.
    public static let maximumCount = 1_000_000

    /// The whole input as one part.
    public static let whole = Shard(validIndex: 0, count: 1)

    /// Makes a shard; `count` must be in `1...maximumCount` and `index` in `0..<count`. A count above the number of
    /// inputs is allowed (the shards past them are empty), so an array of fixed size fits any input list.
    public init(index: Int, count: Int) throws(ClusterJobError) {
        guard count >= 1 else { throw ClusterJobError(reason: "a shard count must be at least 1, not \(count)") }
        guard count <= Self.maximumCount else {
            throw ClusterJobError(reason: Self.tooManyShards("\(count)"))
        }
        guard (0..<count).contains(index) else {
            throw ClusterJobError(reason: "shard \(index)/\(count) does not exist: shards of \(count) are 0/\(count) to \(count - 1)/\(count)")
        }
        self.index = index
        self.count = count
    }

    private init(validIndex: Int, count: Int) {
        index = validIndex
        self.count = count
    }

    /// Parses `I/N` (`0/4` … `3/4`).
    public init(parsing text: String) throws(ClusterJobError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2, Self.isDigits(parts[1]), Self.number(parts[1]) == nil {
            throw ClusterJobError(reason: Self.tooManyShards(String(parts[1])))
        }
        guard parts.count == 2, let index = Self.number(parts[0]), let count = Self.number(parts[1]) else {
            throw ClusterJobError(reason: "shard '\(text)' is not I/N, e.g. 0/4 for the first of four parts (I counts from 0)")
        }
        try self.init(index: index, count: count)
    }

    /// The refusal of a count above `maximumCount`, given as text so a number too long for `Int` reads the same.
    static func tooManyShards(_ count: String) -> String {
        "a shard count must be at most \(maximumCount) (more tasks than any cluster array runs), not \(count)"
    }

    /// "I/N".
    public var description: String { "\(index)/\(count)" }

    /// Plain decimal digits only: no sign, no spaces, nothing `Int("…")` would also accept.
    static func number<Text: StringProtocol>(_ text: Text) -> Int? {
        guard isDigits(text) else { return nil }
        return Int(text)
    }

    private static func isDigits<Text: StringProtocol>(_ text: Text) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }
}

/// Where a run's shard came from, so the command can say so: a shard taken silently from the environment would
/// surprise anyone running Workbench inside an array job of their own.
public enum ShardSource: Sendable, Equatable, CustomStringConvertible {
    /// `--shard I/N`.
    case option
    /// `SLURM_ARRAY_TASK_ID` and `SLURM_ARRAY_TASK_COUNT` (Slurm array jobs).
    case slurmArray
    /// `JOB_COMPLETION_INDEX` with `WORKBENCH_SHARD_COUNT` (Kubernetes Indexed Jobs).
    case kubernetesIndexedJob

    /// Names the option or variables.
    public var description: String {
        switch self {
        case .option: "the shard given"
        case .slurmArray: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"
        case .kubernetesIndexedJob: "JOB_COMPLETION_INDEX/WORKBENCH_SHARD_COUNT"
        }
    }
}

extension Shard {
    /// The shard a run takes: `option` (`--shard I/N`) when given; else a Slurm array task's
    /// (`SLURM_ARRAY_TASK_ID` − `SLURM_ARRAY_TASK_MIN` of `SLURM_ARRAY_TASK_COUNT`); else a Kubernetes Indexed Job's
    /// (`JOB_COMPLETION_INDEX` of `WORKBENCH_SHARD_COUNT`, which the Job sets to its `completions`); else nil, the
    /// whole input.
    ///
    /// An array with a step or gaps (`--array=0-9:2`, `--array=1,5`) cannot be mapped onto consecutive shards and
    /// is refused, as is a completion index without a count.
    public static func resolve(option: String?, environment: [String: String]) throws(ClusterJobError) -> (shard: Shard, source: ShardSource)? {
        if let option { return (try Shard(parsing: option), .option) }
        if let task = environment["SLURM_ARRAY_TASK_ID"] {
            return (try slurmShard(task: task, environment: environment), .slurmArray)
        }
        if let completion = environment["JOB_COMPLETION_INDEX"] {
            guard let index = number(completion) else {
                throw ClusterJobError(reason: "JOB_COMPLETION_INDEX is '\(completion)', not a task index")
            }
            guard let countText = environment["WORKBENCH_SHARD_COUNT"] else {
                throw ClusterJobError(
                    reason: "JOB_COMPLETION_INDEX is set but WORKBENCH_SHARD_COUNT is not: set it to the Job's completions, or give the shard as I/N")
            }
            guard let count = number(countText) else {
                throw ClusterJobError(reason: "WORKBENCH_SHARD_COUNT is '\(countText)', not a number of shards")
            }
            return (try Shard(index: index, count: count), .kubernetesIndexedJob)
        }
        return nil
    }

    private static func slurmShard(task: String, environment: [String: String]) throws(ClusterJobError) -> Shard {
        func value(_ name: String) throws(ClusterJobError) -> Int {
            guard let text = environment[name] else {
                throw ClusterJobError(reason: "SLURM_ARRAY_TASK_ID is set but \(name) is not: give the shard as I/N")
            }
            guard let number = number(text) else { throw ClusterJobError(reason: "\(name) is '\(text)', not a number") }
            return number
        }
        let id = try value("SLURM_ARRAY_TASK_ID"), count = try value("SLURM_ARRAY_TASK_COUNT")
        let minimum = environment["SLURM_ARRAY_TASK_MIN"] == nil ? 0 : try value("SLURM_ARRAY_TASK_MIN")
        guard count <= maximumCount else { throw ClusterJobError(reason: tooManyShards("\(count)")) }
        // Every value is a non-negative Int, so a difference cannot overflow; this sum can.
        var maximum = minimum.addingReportingOverflow(max(count - 1, 0))
        if environment["SLURM_ARRAY_TASK_MAX"] != nil {
            maximum = (try value("SLURM_ARRAY_TASK_MAX"), false)
        } else if maximum.overflow {
            throw ClusterJobError(reason: "SLURM_ARRAY_TASK_MIN is '\(minimum)', too large for an array task id")
        }
        let step = environment["SLURM_ARRAY_TASK_STEP"] == nil ? 1 : try value("SLURM_ARRAY_TASK_STEP")
        guard step == 1, maximum.partialValue >= minimum, maximum.partialValue - minimum == count - 1 else {
            throw ClusterJobError(
                reason: "array tasks \(minimum)-\(maximum.partialValue) step \(step) are not \(count) consecutive ids: give the shard as I/N")
        }
        return try Shard(index: id - minimum, count: count)
    }
}
