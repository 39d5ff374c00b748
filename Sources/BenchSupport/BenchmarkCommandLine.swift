import Foundation

/// A benchmark's command line: `--name value` pairs over known defaults, and the one way a benchmark fails (a line
/// on stderr, exit status 2). The benchmarks are small programs for scripts, so they take no ArgumentParser.
public struct BenchmarkCommandLine: Sendable {
    /// The program's name, for messages.
    public let program: String
    /// Every option's value: the default unless the command line set it.
    public let options: [String: String]

    /// Parses `arguments` (by default the process's own) against `defaults`; an unknown option or a missing value
    /// ends the program.
    public init(program: String, defaults: [String: String], arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        self.program = program
        var options = defaults
        var remaining = arguments[...]
        while let name = remaining.popFirst() {
            guard options[name] != nil, let value = remaining.popFirst() else {
                Self.fail(program: program, "unknown option or missing value: \(name)")
            }
            options[name] = value
        }
        self.options = options
    }

    /// Ends the program with `message`.
    public func fail(_ message: String) -> Never { Self.fail(program: program, message) }

    /// Option `name` as a positive integer, or the end of the program.
    public func positive(_ name: String) -> Int {
        guard let text = options[name], let value = Int(text), value > 0 else { fail("\(name) must be a positive integer") }
        return value
    }

    /// Ends program `program` with `message` (for code that runs before or without the parsed command line).
    public static func fail(program: String, _ message: String) -> Never {
        FileHandle.standardError.write(Data("\(program): \(message)\n".utf8))
        exit(2)
    }
}
