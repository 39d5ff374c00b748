import FileFormats

/// One word of a batch script's command: literal text, and where the array task's id goes. Rendered quoted for
/// `bash`, so paths with spaces, quotes or `$` reach the program exactly as given.
public struct ScriptWord: Sendable, Equatable {
    /// A piece of a word.
    public enum Part: Sendable, Equatable {
        /// Text passed as is.
        case text(String)
        /// The running task's `SLURM_ARRAY_TASK_ID`.
        case arrayTaskID
    }

    /// The pieces, joined without spaces.
    public var parts: [Part]

    /// A word of plain text.
    public init(_ text: String) { parts = [.text(text)] }

    /// A word of pieces.
    public init(parts: [Part]) { self.parts = parts }

    /// `TASK/count`: the shard of the array task running the script.
    public static func arrayShard(count: Int) -> ScriptWord { ScriptWord(parts: [.arrayTaskID, .text("/\(count)")]) }

    /// The word as bash reads it: text in single quotes (a `'` inside as `'\''`), the task id as
    /// `"${SLURM_ARRAY_TASK_ID}"`.
    public var shellText: String {
        let rendered = parts.map { part -> String in
            switch part {
            case .text(let text): "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
            case .arrayTaskID: #""${SLURM_ARRAY_TASK_ID}""#
            }
        }.joined()
        return rendered.isEmpty ? "''" : rendered
    }
}

/// What a job asks of the cluster; nil leaves the site's default.
public struct SlurmResources: Sendable, Equatable {
    /// `--partition`.
    public let partition: String?
    /// `--time`, in one of Slurm's forms (`30`, `2:00:00`, `1-12`).
    public let timeLimit: String?
    /// `--cpus-per-task`; the program is told to use this many threads.
    public let cpusPerTask: Int

    /// Checks each value: they are written into `#SBATCH` lines, which hold one plain word each.
    public init(partition: String? = nil, timeLimit: String? = nil, cpusPerTask: Int = 1) throws(ClusterJobError) {
        if let partition {
            guard !partition.isEmpty, partition.unicodeScalars.allSatisfy({ Self.isNameCharacter($0) || $0 == "," }) else {
                throw ClusterJobError(reason: "partition '\(partition)' is not a Slurm partition name (letters, digits, - _ . and , between names)")
            }
        }
        if let timeLimit {
            guard !timeLimit.isEmpty, timeLimit.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || $0 == ":" || $0 == "-" }) else {
                throw ClusterJobError(reason: "time limit '\(timeLimit)' is not a Slurm time (minutes, MM:SS, HH:MM:SS, D-HH or D-HH:MM:SS)")
            }
        }
        guard cpusPerTask >= 1 else { throw ClusterJobError(reason: "CPUs per task must be at least 1, not \(cpusPerTask)") }
        self.partition = partition
        self.timeLimit = timeLimit
        self.cpusPerTask = cpusPerTask
    }

    static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || scalar == "-" || scalar == "_" || scalar == "."
    }
}

/// A batch job: an array of `arrayTasks` tasks, or one task; its `#SBATCH` header and the one command it runs.
///
/// The script is complete on its own (`sbatch script` submits it as is), except for a dependency on another job,
/// whose id exists only once that job is submitted: it goes on sbatch's command line (`SlurmSubmitter`).
public struct SlurmJob: Sendable, Equatable {
    /// `--job-name`.
    public var name: String
    /// Tasks of the array (`--array=0-(n-1)`), or nil for a single task.
    public var arrayTasks: Int?
    /// Partition, time limit, CPUs.
    public var resources: SlurmResources
    /// The log of each task, absolute, with Slurm's patterns (`%A` array job, `%a` task, `%j` job id). Appended to,
    /// so a requeued task's log keeps its first attempt.
    public var logFile: String
    /// Variables exported before the command, in this order.
    public var environment: [ExportedVariable]
    /// The program (absolute path) and its arguments.
    public var command: [ScriptWord]
    /// Lines for the comment at the top: what the job does.
    public var description: [String]

    /// Makes a job description; `script` renders it.
    public init(
        name: String, arrayTasks: Int?, resources: SlurmResources, logFile: String,
        environment: [ExportedVariable], command: [ScriptWord], description: [String]
    ) {
        self.name = name
        self.arrayTasks = arrayTasks
        self.resources = resources
        self.logFile = logFile
        self.environment = environment
        self.command = command
        self.description = description
    }

    /// Refuses `value` (a path or setting that goes into a script, `what` it is) when it holds a control
    /// character: a line feed in a `#` comment would start a live shell line and end the `#SBATCH` header, and no
    /// quoting makes a carriage return or an escape harmless to the person reading the script. The error names
    /// the value with its control characters escaped, on one line.
    public static func checkScriptValue(_ value: String, what: String) throws(ClusterJobError) {
        guard let bad = value.unicodeScalars.first(where: DisplayText.isControl) else { return }
        throw ClusterJobError(
            path: DisplayText.terminal(value),
            reason:
                "the \(what) holds a control character (\(DisplayText.terminal(String(bad)))), which a batch script cannot carry; choose a name without it"
        )
    }

    /// The batch script: bash, the `#SBATCH` header, `set -eu`, the exports, then `exec` of the command.
    ///
    /// Throws when the log path cannot stand in an `#SBATCH` line (whitespace, quotes, a newline) or the job name
    /// is not a plain word: sbatch would cut it or read it differently; and when any text of the script (comment
    /// lines, exported values, command words) holds a control character (`checkScriptValue`), so every line of
    /// the script is one of the lines written here.
    public func script() throws(ClusterJobError) -> String {
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(SlurmResources.isNameCharacter) else {
            throw ClusterJobError(reason: "job name '\(name)' is not a plain word (letters, digits, - _ .)")
        }
        guard logFile.hasPrefix("/") else { throw ClusterJobError(path: logFile, reason: "the log path must be absolute") }
        if let bad = logFile.unicodeScalars.first(where: {
            $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\"" || $0 == "'" || $0 == "\\"
        }) {
            throw ClusterJobError(
                path: DisplayText.terminal(logFile),
                reason:
                    "the log path holds \(bad.escaped(asASCII: true).debugDescription), which an #SBATCH line cannot carry; choose a folder without it"
            )
        }
        for variable in environment where !variable.hasValidName {
            throw ClusterJobError(reason: "'\(variable.name)' is not an environment variable name")
        }
        guard !command.isEmpty else { throw ClusterJobError(reason: "a job needs a command") }
        try Self.checkScriptValue(logFile, what: "log path")
        for line in description { try Self.checkScriptValue(line, what: "description") }
        for variable in environment { try Self.checkScriptValue(variable.value, what: "value of \(variable.name)") }
        for word in command {
            for case .text(let text) in word.parts { try Self.checkScriptValue(text, what: "command word") }
        }
        var lines = ["#!/bin/bash"]
        lines += description.map { "# " + $0 }
        lines.append("#SBATCH --job-name=\(name)")
        if let arrayTasks { lines.append("#SBATCH --array=0-\(arrayTasks - 1)") }
        lines.append("#SBATCH --output=\(logFile)")
        lines.append("#SBATCH --open-mode=append")
        lines.append("#SBATCH --ntasks=1")
        lines.append("#SBATCH --cpus-per-task=\(resources.cpusPerTask)")
        if let partition = resources.partition { lines.append("#SBATCH --partition=\(partition)") }
        if let timeLimit = resources.timeLimit { lines.append("#SBATCH --time=\(timeLimit)") }
        // Every task is safe to run again (finished work is skipped), so Slurm may requeue it after a node failure.
        lines.append("#SBATCH --requeue")
        lines.append("set -eu")
        for variable in environment { lines.append("export \(variable.name)=\(ScriptWord(variable.value).shellText)") }
        lines.append("exec " + command.map(\.shellText).joined(separator: " "))
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A variable a batch script exports before running its command.
public struct ExportedVariable: Sendable, Equatable {
    /// The name: a letter or `_`, then letters, digits and `_`.
    public var name: String
    /// The value, exported exactly (quoted in the script).
    public var value: String

    /// Makes a variable.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    var hasValidName: Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }
}
