import Foundation
import XCTest
import _TestSupport

/// `--shard`, `label --results`, `label merge` and `workbench slurm --dry-run` through the release binary, on one
/// machine; the cluster itself is in SlurmClusterTests.
final class ShardingCommandTests: XCTestCase {
    struct Fixture {
        var base: URL
        /// The tiny two-label dataset, 8 images per label.
        var dataset: URL
        var model: URL
        /// Five frames folders, 1/ … 5/, of three to seven numbered pictures.
        var movies: [URL]
        /// A private cache, no Slurm or Kubernetes variables.
        var environment: [String: String]
    }

    nonisolated(unsafe) private static var made: Result<Fixture, Error>?

    private func fixture() throws -> Fixture {
        if Self.made == nil { Self.made = Result { try Self.makeFixture() } }
        return try XCTUnwrap(Self.made).get()
    }

    override class func tearDown() {
        if case .success(let fixture)? = Self.made { try? FileManager.default.removeItem(at: fixture.base) }
        super.tearDown()
    }

    private static func makeFixture() throws -> Fixture {
        let base = try WorkbenchBinary.temporaryFolder()
        let environment = WorkbenchBinary.unshardedEnvironment(cache: base.appendingPathComponent("cache"))
        let dataset = base.appendingPathComponent("dataset")
        try TestMedia.tinyDataset(at: dataset, labels: ("Mammal", "Dessert"), environment: environment)
        let model = base.appendingPathComponent("Drawings.wbmodel")
        try TestMedia.check(
            WorkbenchBinary.runProcess(
                try WorkbenchBinary.path(), ["train", dataset.path, "-o", model.path],
                environment: environment), "train")
        let pictures =
            try TestMedia.pictures(dataset.appendingPathComponent("Training Data/Mammal"))
            + TestMedia.pictures(dataset.appendingPathComponent("Training Data/Dessert"))
        var movies: [URL] = []
        for index in 1...5 {
            let folder = base.appendingPathComponent("movies/\(index)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for frame in 1...(2 + index) {
                try FileManager.default.copyItem(
                    at: pictures[(index * 3 + frame) % pictures.count],
                    to: folder.appendingPathComponent("\(frame).png"))
            }
            movies.append(folder)
        }
        return Fixture(base: base, dataset: dataset, model: model, movies: movies, environment: environment)
    }

    private func run(
        _ arguments: [String], _ fixture: Fixture, environment extra: [String: String] = [:],
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> WorkbenchBinary.Outcome {
        try WorkbenchBinary.runProcess(
            try WorkbenchBinary.path(file: file, line: line), arguments,
            environment: fixture.environment.merging(extra) { $1 })
    }

    private func folder(_ name: String, _ fixture: Fixture) -> URL {
        fixture.base.appendingPathComponent("\(name)-\(UUID().uuidString)")
    }

    // MARK: - --shard

    func testShardsOfFeaturesCoverEveryImageOnceWithTheSameVectors() throws {
        let fixture = try fixture()
        let whole = try run(["features", fixture.dataset.path, "--threads", "1"], fixture)
        XCTAssertEqual(whole.status, 0, whole.standardError)
        var lines: [Substring] = []
        for index in 0..<3 {
            let part = try run(["features", fixture.dataset.path, "--shard", "\(index)/3"], fixture)
            XCTAssertEqual(part.status, 0, part.standardError)
            XCTAssertTrue(part.errorLines.first?.hasPrefix("shard \(index)/3: ") == true, part.standardError)
            let partLines = part.standardOutput.split(separator: "\n")
            XCTAssertTrue((5...6).contains(partLines.count), "16 images of equal cost in 3 shards: \(partLines.count)")
            lines += partLines
        }
        XCTAssertEqual(lines.sorted(), whole.standardOutput.split(separator: "\n").sorted(), "every image once, the same vector")
    }

    func testShardIsTakenFromSlurmOrKubernetesAndSaidSo() throws {
        let fixture = try fixture()
        let explicit = try run(["features", fixture.dataset.path, "--shard", "1/3"], fixture)
        let slurm = try run(
            ["features", fixture.dataset.path], fixture,
            environment: [
                "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "0",
                "SLURM_ARRAY_TASK_MAX": "2",
            ])
        XCTAssertEqual(slurm.status, 0, slurm.standardError)
        XCTAssertEqual(slurm.errorLines.first, "shard 1/3 (from SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT; --shard 0/1 works on every input)")
        XCTAssertEqual(slurm.standardOutput, explicit.standardOutput)

        let kubernetes = try run(
            ["features", fixture.dataset.path], fixture, environment: ["JOB_COMPLETION_INDEX": "1", "WORKBENCH_SHARD_COUNT": "3"])
        XCTAssertEqual(kubernetes.errorLines.first, "shard 1/3 (from JOB_COMPLETION_INDEX/WORKBENCH_SHARD_COUNT; --shard 0/1 works on every input)")
        XCTAssertEqual(kubernetes.standardOutput, explicit.standardOutput)

        let everything = try run(
            ["features", fixture.dataset.path, "--shard", "0/1"], fixture,
            environment: ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3"])
        XCTAssertEqual(everything.standardOutput.split(separator: "\n").count, 16)

        let noCount = try run(["features", fixture.dataset.path], fixture, environment: ["JOB_COMPLETION_INDEX": "1"])
        XCTAssertEqual(noCount.status, 1)
        XCTAssertEqual(
            noCount.errorLines,
            ["workbench: JOB_COMPLETION_INDEX is set but WORKBENCH_SHARD_COUNT is not: set it to the Job's completions, or give the shard as I/N"])
        XCTAssertEqual(noCount.standardOutput, "")
    }

    func testOneMovieIntoThePlayerFileIsNeverSplitByAnArrayJob() throws {
        let fixture = try fixture()
        let file = folder("one-movie", fixture).path + ".json"
        let outcome = try run(
            ["label", fixture.model.path, fixture.movies[0].path, "--movie-data", file, "--id", "7"], fixture,
            environment: ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertFalse(outcome.standardError.contains("shard"), outcome.standardError)
        let movies = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [[String: Any]])
        XCTAssertEqual(movies.map { "\($0["id"] ?? "")" }, ["7"])
    }

    func testBadShardOrOptionsAreUsageErrors() throws {
        let fixture = try fixture()
        let outOfRange = try run(["features", fixture.dataset.path, "--shard", "3/3"], fixture)
        XCTAssertEqual(outOfRange.status, 64)
        XCTAssertEqual(outOfRange.errorLines.first, "Error: --shard: shard 3/3 does not exist: shards of 3 are 0/3 to 2/3")
        let malformed = try run(["label", fixture.model.path, fixture.movies[0].path, "--shard", "one/3"], fixture)
        XCTAssertEqual(malformed.status, 64)
        XCTAssertEqual(malformed.errorLines.first, "Error: --shard: shard 'one/3' is not I/N, e.g. 0/4 for the first of four parts (I counts from 0)")
        let fill = try run(["features", fixture.dataset.path, "--fill-cache", "--json"], fixture)
        XCTAssertEqual(fill.status, 64)
        XCTAssertEqual(fill.errorLines.first, "Error: --fill-cache writes no vectors: leave out --json and -o")
        let movieData = try run(
            ["label", fixture.model.path, fixture.movies[0].path, "--shard", "0/2", "--movie-data", "x.json", "--id", "1"], fixture)
        XCTAssertEqual(movieData.status, 64)
        XCTAssertEqual(
            movieData.errorLines.first,
            "Error: --movie-data is written by label merge in a sharded run: write --results DIR, then label merge DIR --movie-data FILE")
    }

    func testShardedEvaluationsAddUpToTheWhole() throws {
        let fixture = try fixture()
        func count(_ extra: [String]) throws -> Int {
            let outcome = try run(
                ["evaluate", fixture.model.path, fixture.dataset.appendingPathComponent("Testing Data").path, "--json"] + extra, fixture)
            XCTAssertEqual(outcome.status, 0, outcome.standardError)
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any])
            return try XCTUnwrap(object["count"] as? Int)
        }
        let whole = try count([])
        XCTAssertEqual(whole, 4)
        XCTAssertEqual(try count(["--shard", "0/2"]) + count(["--shard", "1/2"]), whole)
    }

    func testFillCacheStoresEveryImageOfItsShardOnly() throws {
        let fixture = try fixture()
        let cache = folder("fill-cache", fixture)
        let outcome = try run(
            ["features", fixture.dataset.path, "--fill-cache", "--shard", "0/2"], fixture,
            environment: ["WORKBENCH_CACHE": cache.path])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertEqual(outcome.standardOutput, "", "no vectors")
        XCTAssertEqual(outcome.errorLines.first, "shard 0/2: 8 of 16 images")
        XCTAssertTrue(outcome.errorLines.last?.hasPrefix("8 of 8 images in the feature cache after ") == true, outcome.standardError)
        let entries = FileManager.default.enumerator(atPath: cache.path)?.allObjects.compactMap { $0 as? String }.filter { $0.hasSuffix(".feat") }
        XCTAssertEqual(entries?.count, 8)
    }

    // MARK: - label --results and label merge

    func testShardedLabelResumesAndMergeEqualsOneLabelPerMovie() throws {
        let fixture = try fixture()
        let results = folder("results", fixture), work = folder("merge", fixture)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let start = #"[{"id": "3", "title": "Kept", "markers": {"0": "Old"}}]"#
        let single = work.appendingPathComponent("single.json"), merged = work.appendingPathComponent("merged.json")
        for file in [single, merged] { try Data(start.utf8).write(to: file) }
        for movie in fixture.movies {
            let outcome = try run(
                [
                    "label", fixture.model.path, movie.path, "--movie-data", single.path, "--id", movie.lastPathComponent,
                    "--smooth", "3",
                ], fixture)
            XCTAssertEqual(outcome.status, 0, outcome.standardError)
        }
        let label = ["label", fixture.model.path] + fixture.movies.map(\.path) + ["--results", results.path, "--smooth", "3"]

        let first = try run(label + ["--shard", "0/2"], fixture)
        XCTAssertEqual(first.status, 0, first.standardError)
        XCTAssertEqual(first.standardOutput, "")
        let done = first.errorLines.filter { $0.contains(" markers → ") }.map { String($0.prefix { $0 != ":" }) }
        XCTAssertTrue((2...3).contains(done.count), first.standardError)

        // Not every movie has a result: the merge names the missing ones and leaves the file as it was.
        let early = try run(["label", "merge", results.path, "--movie-data", merged.path], fixture)
        XCTAssertEqual(early.status, 1)
        let missing = fixture.movies.filter { !done.contains($0.lastPathComponent) }
        XCTAssertEqual(
            early.errorLines,
            [
                "workbench: \(results.path): \(missing.count) of 5 movies have no result: "
                    + missing.map { "\($0.lastPathComponent) (\($0.path))" }.joined(separator: ", ")
            ])
        XCTAssertEqual(try String(contentsOf: merged, encoding: .utf8), start)

        // Run again, a task resumes: nothing already done is redone.
        let resultFile = results.appendingPathComponent("movies/\(done[0]).json").path
        let writtenAt = try FileManager.default.attributesOfItem(atPath: resultFile)[.modificationDate] as? Date
        let again = try run(label + ["--shard", "0/2"], fixture)
        XCTAssertEqual(
            again.errorLines.filter { $0.hasSuffix("already done (\(fixture.movies.first { $0.lastPathComponent == done[0] }!.path))") }.count, 1,
            again.standardError)
        XCTAssertEqual(again.errorLines.last, "shard 0/2: 0 labeled, \(done.count) already done, 0 failed, of \(done.count) movies")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: resultFile)[.modificationDate] as? Date, writtenAt)

        let second = try run(label + ["--shard", "1/2"], fixture)
        XCTAssertEqual(second.status, 0, second.standardError)
        let merge = try run(["label", "merge", results.path, "--movie-data", merged.path], fixture)
        XCTAssertEqual(merge.status, 0, merge.standardError)
        XCTAssertTrue(merge.errorLines.last?.hasPrefix("5 movies, ") == true, merge.standardError)
        XCTAssertEqual(try String(contentsOf: merged, encoding: .utf8), try String(contentsOf: single, encoding: .utf8))
    }

    func testAResultsFolderOfAnotherRunIsRefused() throws {
        let fixture = try fixture()
        let results = folder("other-run", fixture)
        let first = try run(["label", fixture.model.path, fixture.movies[0].path, "--results", results.path], fixture)
        XCTAssertEqual(first.status, 0, first.standardError)
        let other = try run(["label", fixture.model.path, fixture.movies[0].path, "--results", results.path, "--smooth", "3"], fixture)
        XCTAssertEqual(other.status, 1)
        XCTAssertEqual(other.errorLines.count, 1, other.standardError)
        XCTAssertTrue(
            other.errorLines[0].hasPrefix("workbench: \(results.path): holds the results of a run with other settings (model "),
            other.standardError)
        XCTAssertTrue(other.errorLines[0].hasSuffix("smooth 1, changes-only no); use another results folder or empty this one"), other.standardError)
    }

    func testMergeOfAFolderThatIsNoResultsFolderSaysSo() throws {
        let fixture = try fixture()
        let empty = folder("empty", fixture)
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let outcome = try run(["label", "merge", empty.path, "--movie-data", empty.appendingPathComponent("M.json").path], fixture)
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.errorLines, ["workbench: \(empty.path)/manifest.json: no manifest.json: not a results folder of a sharded label run"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: empty.appendingPathComponent("M.json").path))
        let usage = try run(["label", "merge", empty.path], fixture)
        XCTAssertEqual(usage.status, 64)
        XCTAssertEqual(usage.errorLines.first, "Error: Missing expected argument '--movie-data <file>'")
    }

    func testLinksAndFIFOsInAResultsFolderAreRefusedAndNeverWrittenThrough() throws {
        let fixture = try fixture()
        let scratch = folder("links", fixture)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let decoy = scratch.appendingPathComponent("decoy.txt").path
        try Data("decoy, not a result\n".utf8).write(to: URL(fileURLWithPath: decoy))
        let movie = fixture.movies[0]
        func label(_ results: String) throws -> WorkbenchBinary.Outcome {
            // `timeout`: on a FIFO the old code waited for a reader forever.
            try WorkbenchBinary.runProcess(
                "/usr/bin/timeout",
                [
                    "120", try WorkbenchBinary.path(), "label", fixture.model.path, movie.path,
                    "--results", results,
                ], environment: fixture.environment)
        }
        let refusal = "links are not followed inside a results folder"

        // A result file that is a link to a decoy: refused, the decoy untouched.
        let linkedFile = scratch.appendingPathComponent("linked-file").path
        try FileManager.default.createDirectory(atPath: linkedFile + "/movies", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: linkedFile + "/movies/1.json", withDestinationPath: decoy)
        let file = try label(linkedFile)
        XCTAssertEqual(file.status, 1, file.standardError)
        XCTAssertEqual(
            file.errorLines.filter { $0.hasPrefix("workbench: ") },
            ["workbench: \(linkedFile)/movies/1.json: is a symbolic link; \(refusal) (movie 1 has no result)"])
        XCTAssertEqual(try String(contentsOfFile: decoy, encoding: .utf8), "decoy, not a result\n")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: linkedFile + "/movies/1.json"), decoy)

        // A movies folder that is a link: refused before anything is written into its target.
        let elsewhere = scratch.appendingPathComponent("elsewhere").path
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let linkedFolder = scratch.appendingPathComponent("linked-folder").path
        try FileManager.default.createDirectory(atPath: linkedFolder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: linkedFolder + "/movies", withDestinationPath: elsewhere)
        let folderRun = try label(linkedFolder)
        XCTAssertEqual(folderRun.status, 1, folderRun.standardError)
        XCTAssertEqual(folderRun.errorLines, ["workbench: \(linkedFolder)/movies: is a symbolic link; \(refusal)"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere), [])

        // A FIFO as the result file: refused at once, not waited on.
        let fifo = scratch.appendingPathComponent("fifo").path
        try FileManager.default.createDirectory(atPath: fifo + "/movies", withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(fifo + "/movies/1.json", 0o644), 0)
        let fifoRun = try label(fifo)
        XCTAssertEqual(fifoRun.status, 1, fifoRun.standardError)
        XCTAssertEqual(
            fifoRun.errorLines.filter { $0.hasPrefix("workbench: ") },
            ["workbench: \(fifo)/movies/1.json: is a FIFO, not a regular file; refused inside a results folder (movie 1 has no result)"])

        // The results folder itself is the user's to name, through a link if they like.
        let real = scratch.appendingPathComponent("real").path, named = scratch.appendingPathComponent("named").path
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: named, withDestinationPath: real)
        let linkedRoot = try label(named)
        XCTAssertEqual(linkedRoot.status, 0, linkedRoot.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: real + "/movies/1.json"))
    }

    func testMergeRefusesAResultOfAnotherRunNamingTheFileAndWhatDiffers() throws {
        let fixture = try fixture()
        let results = folder("mixed", fixture), other = folder("other", fixture), work = folder("mixed-merge", fixture)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let movies = Array(fixture.movies.prefix(2)).map(\.path)
        let first = try run(["label", fixture.model.path] + movies + ["--results", results.path, "--smooth", "3"], fixture)
        XCTAssertEqual(first.status, 0, first.standardError)
        let second = try run(["label", fixture.model.path] + movies + ["--results", other.path], fixture)
        XCTAssertEqual(second.status, 0, second.standardError)
        let result = results.appendingPathComponent("movies/2.json").path
        try FileManager.default.removeItem(atPath: result)
        try FileManager.default.copyItem(atPath: other.appendingPathComponent("movies/2.json").path, toPath: result)

        let movieData = work.appendingPathComponent("MovieData.json").path
        let merge = try run(["label", "merge", results.path, "--movie-data", movieData], fixture)
        XCTAssertEqual(merge.status, 1, merge.standardError)
        XCTAssertEqual(
            merge.errorLines,
            [
                "workbench: \(result): made with other settings (smooth 1 where the run has smooth 3); "
                    + "label this movie again or merge another folder"
            ])
        XCTAssertFalse(FileManager.default.fileExists(atPath: movieData), "nothing merged")

        // A task of the run redoes the foreign result instead of counting it as done; then the merge goes through.
        let again = try run(["label", fixture.model.path] + movies + ["--results", results.path, "--smooth", "3"], fixture)
        XCTAssertEqual(again.errorLines.last, "shard 0/1: 1 labeled, 1 already done, 0 failed, of 2 movies", again.standardError)
        let merged = try run(["label", "merge", results.path, "--movie-data", movieData], fixture)
        XCTAssertEqual(merged.status, 0, merged.standardError)

        // Each result file says what made it.
        let stored = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: result))) as? [String: Any])
        XCTAssertEqual(stored["version"] as? Int, 2)
        XCTAssertEqual((stored["model"] as? [String: Any])?["path"] as? String, fixture.model.path)
        XCTAssertEqual(((stored["model"] as? [String: Any])?["sha256"] as? String)?.count, 64)
        XCTAssertTrue((stored["settings"] as? String)?.hasSuffix("smooth 3, changes-only no") == true, "\(stored)")
    }

    func testShardCountsAboveTheInputsWorkUpToAStatedMaximum() throws {
        let fixture = try fixture()
        let results = folder("many-shards", fixture)
        let label = ["label", fixture.model.path] + fixture.movies.map(\.path) + ["--results", results.path]
        let empty = try run(label + ["--shard", "6/7"], fixture)
        XCTAssertEqual(empty.status, 0, empty.standardError)
        XCTAssertEqual(empty.errorLines.last, "shard 6/7: 0 labeled, 0 already done, 0 failed, of 0 movies")
        let one = try run(label + ["--shard", "4/7"], fixture)
        XCTAssertEqual(one.status, 0, one.standardError)
        XCTAssertEqual(one.errorLines.last, "shard 4/7: 1 labeled, 0 already done, 0 failed, of 1 movies")
        let most = try run(label + ["--shard", "999999/1000000"], fixture)
        XCTAssertEqual(most.status, 0, most.standardError)
        XCTAssertEqual(most.errorLines.last, "shard 999999/1000000: 0 labeled, 0 already done, 0 failed, of 0 movies")

        let refusal = "a shard count must be at most 1000000 (more tasks than any cluster array runs), not "
        for count in ["9223372036854775807", "1000001"] {
            let huge = try run(label + ["--shard", "0/\(count)"], fixture)
            XCTAssertEqual(huge.status, 64, huge.standardError)
            XCTAssertEqual(huge.errorLines.first, "Error: --shard: " + refusal + count, huge.standardError)
        }
        let fromSlurm = try run(label, fixture, environment: ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "9223372036854775807"])
        XCTAssertEqual(fromSlurm.status, 1, fromSlurm.standardError)
        XCTAssertEqual(fromSlurm.errorLines, ["workbench: " + refusal + "9223372036854775807"])
    }

    // MARK: - workbench slurm

    func testSlurmDryRunPrintsTheArrayAndMergeScriptsAndWritesNothing() throws {
        let fixture = try fixture()
        let jobs = folder("jobs", fixture)
        let outcome = try run(
            ["slurm", "label", fixture.model.path] + fixture.movies.map(\.path)
                + [
                    "--tasks", "2", "--movie-data", "Player.json", "--job-folder", jobs.path, "--partition", "short",
                    "--time", "1:00:00", "--cpus-per-task", "3", "--every", "0.5", "--dry-run",
                ], fixture)
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: jobs.path), "--dry-run writes nothing")
        let binary = URL(fileURLWithPath: try WorkbenchBinary.path()).resolvingSymlinksInPath().path
        let text = outcome.standardOutput
        let results = jobs.appendingPathComponent("label-results").path
        let movieData = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Player.json").standardizedFileURL.path
        for expected in [
            "# sbatch --parsable \(jobs.path)/label-array.sbatch\n#!/bin/bash\n",
            "#SBATCH --array=0-1\n", "#SBATCH --output=\(jobs.path)/logs/label-%A_%a.log\n", "#SBATCH --cpus-per-task=3\n",
            "#SBATCH --partition=short\n", "#SBATCH --time=1:00:00\n", "#SBATCH --requeue\n",
            "exec '\(binary)' 'label' '\(fixture.model.path)' " + fixture.movies.map { "'\($0.path)'" }.joined(separator: " ")
                + " '--results' '\(results)' '--threads' '3' '--every' '0.5' '--shard' \"${SLURM_ARRAY_TASK_ID}\"'/2'\n",
            "# sbatch --parsable --dependency=afterok:<previous job id> \(jobs.path)/label-merge.sbatch\n",
            "exec '\(binary)' 'label' 'merge' '\(results)' '--movie-data' '\(movieData)'\n",
        ] {
            XCTAssertTrue(text.contains(expected), "missing \(expected) in:\n\(text)")
        }
        XCTAssertEqual(text.components(separatedBy: "#!/bin/bash").count - 1, 2, "two scripts")
    }

    func testSlurmRefusesWhatCannotRunBeforeSubmittingAnything() throws {
        let fixture = try fixture()
        let jobs = folder("jobs", fixture)
        func failure(_ arguments: [String], path: String? = nil) throws -> [String] {
            var environment: [String: String] = [:]
            if let path { environment["PATH"] = path }
            let outcome = try run(["slurm"] + arguments + ["--job-folder", jobs.path], fixture, environment: environment)
            XCTAssertEqual(outcome.status, 1, outcome.standardError)
            return outcome.errorLines
        }
        let movies = fixture.movies.map(\.path)
        XCTAssertEqual(
            try failure(["label", fixture.model.path] + movies + ["--tasks", "6", "--dry-run"]),
            ["workbench: 6 tasks are more than the 5 movies: some tasks would have nothing to do"])
        XCTAssertEqual(
            try failure(["label", fixture.model.path] + movies + ["--tasks", "2", "--partition", "a b", "--dry-run"]),
            ["workbench: partition 'a b' is not a Slurm partition name (letters, digits, - _ . and , between names)"])
        let twin = fixture.base.appendingPathComponent("elsewhere/1")
        try FileManager.default.createDirectory(at: twin, withIntermediateDirectories: true)
        XCTAssertEqual(
            try failure(["label", fixture.model.path, movies[0], twin.path, "--tasks", "1", "--dry-run"]),
            ["workbench: \(twin.path): has the id '1' of \(movies[0]) too: movie ids are file names without extension, and must differ"])
        XCTAssertEqual(
            try failure(["features", fixture.dataset.path, "--tasks", "17", "--dry-run"]),
            ["workbench: 17 tasks are more than the 16 images: some tasks would have nothing to do"])
        XCTAssertEqual(
            try failure(["features", fixture.dataset.path, "--tasks", "2"], path: "/nonexistent"),
            ["workbench: sbatch not found on PATH: run this on a Slurm login node (or print the scripts with --dry-run)"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: jobs.path), "nothing written before sbatch is found")
    }
}
