import Foundation
import XCTest

/// Runs the built `workbench` binary the way a user does, for end-to-end tests of the command line.
public enum WorkbenchBinary {
    /// The repository root, from a file inside `Tests/<Target>/`.
    public static func repositoryRoot(filePath: String = #filePath) -> URL {
        var url = URL(fileURLWithPath: filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }

    /// `$WORKBENCH_BINARY`, else the release build set-up makes (`.build/release/workbench`): the end-to-end tests
    /// run the optimised binary. Fails (never skips) when it is missing.
    public static func path(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path =
            ProcessInfo.processInfo.environment["WORKBENCH_BINARY"]
            ?? repositoryRoot().appendingPathComponent(".build/release/workbench").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            XCTFail("\(path) not found: run scripts/setup.sh first (it builds the release binary)", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return path
    }

    /// What one run printed and how it ended.
    public struct Outcome: Sendable {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
        /// stderr's non-empty lines.
        public var errorLines: [String] { standardError.split(separator: "\n").map(String.init) }
    }

    /// Runs `workbench arguments...` to completion (stdin closed), capturing both outputs.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:],
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> Outcome {
        try runProcess(
            try path(file: file, line: line), arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
    }

    /// Runs any program to completion (stdin closed) with exactly `environment`, in `workingDirectory` (default:
    /// the test's), capturing both outputs.
    public static func runProcess(
        _ executable: String, _ arguments: [String], environment: [String: String],
        workingDirectory: URL? = nil
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("workbench-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Files rather than pipes: a chatty run can never block on a full pipe.
        let outURL = folder.appendingPathComponent("out"), errURL = folder.appendingPathComponent("err")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus,
            standardOutput: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    /// This process's environment without the variables that make `workbench` one shard of a job (Slurm's,
    /// Kubernetes' `JOB_COMPLETION_INDEX`, `WORKBENCH_SHARD_COUNT`), with a private feature cache at `cache`: what a
    /// test gives the binary when it must do all the work itself, however the suite was started.
    public static func unshardedEnvironment(cache: URL) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in environment.keys where name.hasPrefix("SLURM_") || name == "JOB_COMPLETION_INDEX" || name == "WORKBENCH_SHARD_COUNT" {
            environment[name] = nil
        }
        environment["WORKBENCH_CACHE"] = cache.path
        return environment
    }

    /// A fresh temporary folder, removed by the caller.
    public static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("workbench-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
