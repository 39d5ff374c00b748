import Foundation
import XCTest

/// Two rules of the code that a reader checks by grep, checked here on every Swift file under `Sources/`:
/// below the CLI no string literal names an option (`--flag`): the library says what is wrong and what would
/// help (`ErrorHint`), and `WorkbenchCLI` words it; and every JSON text is written by FileFormats' `JSONWriter`,
/// so no other file makes a Foundation encoder or serializes JSON itself.
final class SourceRulesTests: XCTestCase {
    /// The folder holding this package's sources.
    private static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// Each Swift file under `Sources/` (its path from `Sources/`) and its lines, comments left out.
    private func codeLines() throws -> [(file: String, number: Int, line: String)] {
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: Self.sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }.sorted()
        XCTAssertGreaterThan(files.count, 100, "the sources were found at \(Self.sources.path)")
        return try files.flatMap { file in
            try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                .filter { !$0.element.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                .map { (file, $0.offset + 1, String($0.element)) }
        }
    }

    /// Files whose literals spell other programs' options, each for its reason.
    private static let optionsOfOtherPrograms: [(prefix: String, why: String)] = [
        ("WorkbenchCLI/", "the CLI words everything with its own options"),
        ("ClusterJobs/SlurmScript.swift", "#SBATCH directives are sbatch's options"),
        ("ClusterJobs/SlurmSubmitter.swift", "sbatch's own arguments"),
        ("ClusterJobs/WorkbenchTaskCommand.swift", "the Slurm task table: the command lines a task runs, parsed by the CLI's own parser in its test"),
        ("BenchTraining/", "a benchmark program with options of its own"),
        ("BenchDetector/", "a benchmark program with options of its own"),
        ("BenchFineTune/", "a benchmark program with options of its own"),
        ("BenchNetwork/", "a benchmark program with options of its own"),
        ("BenchNeighbours/", "a benchmark program with options of its own"),
        ("_TestSupport/", "tests drive the binary and the page checker through their options"),
    ]

    func testNoStringLiteralBelowTheCLINamesAnOption() throws {
        // A literal's text up to `--` and a lowercase word: `"… --fine-tune …"`. CSS custom properties
        // (`var(--ink)`) are the page's, not options.
        let option = try NSRegularExpression(pattern: #""[^"]*--[a-z][a-z-]+"#)
        var found: [String] = []
        for (file, number, line) in try codeLines() where !Self.optionsOfOtherPrograms.contains(where: { file.hasPrefix($0.prefix) }) {
            let text = line.replacingOccurrences(of: "var(--", with: "var(")
            if option.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                found.append("Sources/\(file):\(number): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        XCTAssertEqual(found, [], "say what is wrong with a typed hint (ErrorHint) and word it in WorkbenchCLI")
    }

    func testEveryJSONTextIsWrittenByTheOneWriter() throws {
        var found: [String] = []
        for (file, number, line) in try codeLines() where file != "FileFormats/JSONWriter.swift" {
            if line.contains("JSONEncoder(") || line.contains("JSONSerialization.data(") || line.contains("JSONLineEncoder(") {
                found.append("Sources/\(file):\(number): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        XCTAssertEqual(found, [], "write JSON with JSONWriter.text(_:layout:) or JSONWriter.prettyText")
    }
}
