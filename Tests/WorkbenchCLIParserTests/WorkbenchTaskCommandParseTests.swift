import ArgumentParser
import Workbench
import XCTest
@testable import WorkbenchCLI

/// The `workbench` lines that Slurm batch scripts run (`ClusterJobs.WorkbenchTaskCommand`, from its one table
/// `WorkbenchTaskOption`) parse with the CLI's own commands to the subcommand and values meant: a renamed option
/// fails here, not on a cluster.
final class WorkbenchTaskCommandParseTests: XCTestCase {
    /// The words after the program, as bash passes them (the task id taken as 3).
    private func arguments(_ words: [ScriptWord]) -> [String] {
        words.dropFirst().map { word in
            word.parts.map { part in
                switch part {
                case .text(let text): text
                case .arrayTaskID: "3"
                }
            }.joined()
        }
    }

    /// Parses as `WorkbenchCommand.main` does: `label merge` goes to its own command, the rest through the root.
    private func parse(_ arguments: [String]) throws -> any ParsableCommand {
        if arguments.starts(with: WorkbenchTaskOption.Command.labelMerge.words) {
            return try LabelMergeCommand.parse(Array(arguments.dropFirst(2)))
        }
        return try WorkbenchCommand.parseAsRoot(arguments)
    }

    /// Marker settings from the defaults (nothing written) to every option set.
    private let plans: [WorkbenchTaskCommand.LabelOptions] = [
        .init(every: 1, framesPerSecond: nil, minimumConfidence: 0, fallbackLabel: nil, smoothing: 1, changesOnly: false),
        .init(
            every: 0.5, framesPerSecond: 12.5, minimumConfidence: 0.75, fallbackLabel: "Not sure", smoothing: 3,
            changesOnly: true, testTimeAugmentation: true),
        .init(
            every: 2, framesPerSecond: nil, minimumConfidence: nil, fallbackLabel: "-dash", smoothing: 1, changesOnly: false,
            testTimeAugmentation: false),
    ]

    func testLabelTaskLinesParseToTheLabelCommandWithTheirSettings() throws {
        for options in plans {
            let words = WorkbenchTaskCommand.label(
                binary: "/opt/workbench", model: "/m/Drawings.wbmodel",
                movies: ["/clips/a.mp4", "/clips/b b.mp4"], results: "/jobs/results",
                threads: 4, options: options, shardCount: 8)
            let command = try XCTUnwrap(try parse(arguments(words)) as? LabelCommand, "\(arguments(words))")
            XCTAssertEqual(command.model, "/m/Drawings.wbmodel")
            XCTAssertEqual(command.movies, ["/clips/a.mp4", "/clips/b b.mp4"])
            XCTAssertEqual(command.results, "/jobs/results")
            XCTAssertEqual(command.compute.threads, 4)
            XCTAssertEqual(command.sharding.shard, "3/8")
            XCTAssertEqual(command.labelSettings.taskOptions, options, "the settings survive the command line")
        }
    }

    func testMergeLineParsesToLabelMerge() throws {
        let words = WorkbenchTaskCommand.merge(binary: "/opt/workbench", results: "/jobs/results", movieData: "/p/MovieData.json")
        let command = try XCTUnwrap(try parse(arguments(words)) as? LabelMergeCommand)
        XCTAssertEqual(command.folder, "/jobs/results")
        XCTAssertEqual(command.movieData, "/p/MovieData.json")
    }

    func testFeaturesTaskLineParsesToFillTheCache() throws {
        let words = WorkbenchTaskCommand.fillCache(
            binary: "/opt/workbench", inputs: ["/data/photos", "/data/x.jpg"],
            backbone: "/models/efficientnet-lite0.safetensors", threads: 2, shardCount: 5)
        let command = try XCTUnwrap(try parse(arguments(words)) as? FeaturesCommand)
        XCTAssertEqual(command.inputs, ["/data/photos", "/data/x.jpg"])
        XCTAssertTrue(command.fillCache)
        XCTAssertEqual(command.backboneOptions.backbone, "/models/efficientnet-lite0.safetensors")
        XCTAssertEqual(command.compute.threads, 2)
        XCTAssertEqual(command.sharding.shard, "3/5")
    }

    func testEveryOptionOfTheTableIsWrittenByALineAbove() {
        var written: [WorkbenchTaskOption.Command: Set<String>] = [:]
        for options in plans {
            let label = WorkbenchTaskCommand.label(binary: "w", model: "m", movies: ["a"], results: "r", threads: 1, options: options, shardCount: 2)
            written[.label, default: []].formUnion(arguments(label).map { String($0.prefix { $0 != "=" }) })
        }
        written[.labelMerge] = Set(arguments(WorkbenchTaskCommand.merge(binary: "w", results: "r", movieData: "d")))
        written[.features] = Set(arguments(WorkbenchTaskCommand.fillCache(binary: "w", inputs: ["i"], backbone: "b", threads: 1, shardCount: 2)))
        for option in WorkbenchTaskOption.all {
            for command in option.commands {
                XCTAssertTrue(written[command, default: []].contains(option.name), "\(option.name) of \(command) is parsed above")
            }
        }
    }
}
