import Foundation
import XCTest
import _TestSupport

/// `workbench slurm` on a real cluster: a one-node Slurm (Debian's slurm-wlm and munge) started from a temporary
/// folder by `scripts/setup/slurm-cluster.sh`, with the binary `scripts/install.sh` put in a temporary prefix. Each
/// result is compared with the single-machine run of the same work:
/// - a cache fill as a 4-task array, then `train` from the warm cache: the same model file, byte for byte;
/// - 4 short videos labeled as a 2-task array and merged: the same MovieData.json as one `label --movie-data` each;
/// - one task cancelled mid-way and requeued: it resumes, and the merge holds every movie exactly once.
/// Small on purpose (120 images, 4 videos, 2 tasks of 2 videos each): the suite's time is what CI can afford.
final class SlurmClusterTests: XCTestCase {
    struct Fixture {
        var base: URL
        var prefix: URL
        var cluster: URL
        /// 120 generated images in Create ML's layout, two labels.
        var dataset: URL
        /// Trained on one machine, from an empty cache, on `dataset`.
        var model: URL
        /// 1.mp4 … 4.mp4, 3 to 5 seconds each, 100 frames a second.
        var movies: [URL]
        /// PATH with PREFIX/bin first, SLURM_CONF, a private HOME, SOURCE_DATE_EPOCH.
        var environment: [String: String]

        var workbench: String { prefix.appendingPathComponent("bin/workbench").path }
    }

    nonisolated(unsafe) private static var made: Result<Fixture, Error>?
    nonisolated(unsafe) private static var base: URL?

    private func fixture() throws -> Fixture {
        if Self.made == nil { Self.made = Result { try Self.makeFixture() } }
        return try XCTUnwrap(Self.made).get()
    }

    override class func tearDown() {
        if let base = Self.base {
            let stop = try? WorkbenchBinary.runProcess(
                "/bin/bash", [script("setup/slurm-cluster.sh"), "stop", base.appendingPathComponent("cluster").path],
                environment: ProcessInfo.processInfo.environment)
            if let stop, stop.status != 0 { print("slurm-cluster.sh stop: \(stop.standardError)") }
            try? FileManager.default.removeItem(at: base)
        }
        super.tearDown()
    }

    private static func script(_ name: String) -> String {
        WorkbenchBinary.repositoryRoot().appendingPathComponent("scripts/\(name)").path
    }

    private static func makeFixture() throws -> Fixture {
        let base = try WorkbenchBinary.temporaryFolder()
        Self.base = base
        let prefix = base.appendingPathComponent("prefix"), cluster = base.appendingPathComponent("cluster")
        let home = base.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var inherited = ProcessInfo.processInfo.environment
        for name in ["WORKBENCH_WEIGHTS", "WORKBENCH_BINARY", "WORKBENCH_CACHE", "SLURM_CONF"] { inherited[name] = nil }
        for name in inherited.keys where name.hasPrefix("SLURM_") || name == "JOB_COMPLETION_INDEX" { inherited[name] = nil }
        try TestMedia.check(
            WorkbenchBinary.runProcess(
                "/bin/bash", [script("install.sh"), prefix.path],
                environment: InstallAndExamplesTests.installing(inherited)),
            "scripts/install.sh")
        // The cluster stops when this test process ends, however it ends; tearDown stops it sooner.
        try TestMedia.check(
            WorkbenchBinary.runProcess(
                "/bin/bash",
                [
                    script("setup/slurm-cluster.sh"), "start", cluster.path,
                    "--until-exit", "\(getpid())",
                ], environment: inherited),
            "scripts/setup/slurm-cluster.sh start")
        var environment = inherited
        environment["PATH"] = prefix.appendingPathComponent("bin").path + ":/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
        environment["HOME"] = home.path
        environment["SLURM_CONF"] = cluster.appendingPathComponent("slurm.conf").path
        environment["SOURCE_DATE_EPOCH"] = "1700000000"

        let dataset = base.appendingPathComponent("dataset")
        try TestMedia.tinyDataset(at: dataset, perLabel: 60, labels: ("Mammal", "Dessert"), environment: inherited)
        let model = base.appendingPathComponent("Reference.wbmodel")
        var cold = environment
        cold["WORKBENCH_CACHE"] = base.appendingPathComponent("cold-cache").path
        try TestMedia.check(
            WorkbenchBinary.runProcess(
                prefix.appendingPathComponent("bin/workbench").path,
                ["train", dataset.path, "-o", model.path], environment: cold),
            "the single-machine train")

        // Four videos at 100 fps: a cat for 2 s, then an espresso for 1 to 3 s.
        let cats = try TestMedia.pictures(dataset.appendingPathComponent("Training Data/Mammal"))
        let coffees = try TestMedia.pictures(dataset.appendingPathComponent("Training Data/Dessert"))
        let folder = base.appendingPathComponent("movies")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var movies: [URL] = []
        for index in 1...4 {
            let movie = folder.appendingPathComponent("\(index).mp4")
            try TestMedia.video(
                pictures: [cats[index]], seconds: 2, framesPerSecond: 100, to: folder.appendingPathComponent("a.mp4"),
                environment: inherited)
            try TestMedia.video(
                pictures: [coffees[index]], seconds: 1 + index % 3, framesPerSecond: 100,
                to: folder.appendingPathComponent("b.mp4"), environment: inherited)
            try TestMedia.check(
                WorkbenchBinary.runProcess(
                    "/usr/bin/ffmpeg",
                    [
                        "-nostdin", "-loglevel", "error", "-y", "-i", folder.appendingPathComponent("a.mp4").path,
                        "-i", folder.appendingPathComponent("b.mp4").path, "-filter_complex", "[0:v][1:v]concat=n=2:v=1[out]",
                        "-map", "[out]", "-pix_fmt", "yuv420p", movie.path,
                    ], environment: inherited), "ffmpeg \(index).mp4")
            movies.append(movie)
        }
        for name in ["a.mp4", "b.mp4"] { try FileManager.default.removeItem(at: folder.appendingPathComponent(name)) }
        return Fixture(
            base: base, prefix: prefix, cluster: cluster, dataset: dataset, model: model, movies: movies,
            environment: environment)
    }

    // MARK: - Tests

    func testCacheFillAsArrayJobThenTrainGivesTheSingleMachineModel() throws {
        let fixture = try fixture()
        let work = try folder("features", in: fixture)
        var environment = fixture.environment
        environment["WORKBENCH_CACHE"] = work.appendingPathComponent("shared-cache").path
        let jobs = try submit(
            ["slurm", "features", fixture.dataset.path, "--tasks", "4", "--job-folder", work.appendingPathComponent("jobs").path],
            fixture, environment: environment)
        XCTAssertEqual(jobs.count, 1)
        try waitUntilDone(jobs[0], fixture)
        XCTAssertEqual(try states(of: jobs[0], fixture), Array(repeating: "COMPLETED", count: 4), logs(work, fixture))
        let logLines = logs(work, fixture).split(separator: "\n").filter { $0.contains("images in the feature cache") }
        XCTAssertEqual(logLines.map { $0.prefix { $0 != " " } }, ["30", "30", "30", "30"], "four balanced shards of 120: \(logLines)")

        let cache = work.appendingPathComponent("shared-cache").path
        let filled = try cacheEntries(cache)
        XCTAssertEqual(filled.count, 120, "one entry per image")
        let model = work.appendingPathComponent("FromCluster.wbmodel")
        let train = try WorkbenchBinary.runProcess(fixture.workbench, ["train", fixture.dataset.path, "-o", model.path], environment: environment)
        XCTAssertEqual(train.status, 0, train.standardError)
        XCTAssertEqual(try cacheEntries(cache), filled, "train found every feature in the cache and stored none")
        XCTAssertEqual(try Data(contentsOf: model), try Data(contentsOf: fixture.model), "the same model file, byte for byte")
    }

    func testArrayJobOverFourVideosGivesTheSingleMachineMovieData() throws {
        let fixture = try fixture()
        let work = try folder("label", in: fixture)
        let start = #"[{"id": 1, "title": "Kept", "markers": {"0": "Old"}, "rating": 4.50}, {"id": 42, "title": "Other"}]"#
        let single = work.appendingPathComponent("single.json"), cluster = work.appendingPathComponent("MovieData.json")
        for file in [single, cluster] { try Data(start.utf8).write(to: file) }
        for movie in fixture.movies {
            let run = try WorkbenchBinary.runProcess(
                fixture.workbench,
                [
                    "label", fixture.model.path, movie.path, "--movie-data", single.path, "--id", movie.deletingPathExtension().lastPathComponent,
                ], environment: fixture.environment)
            XCTAssertEqual(run.status, 0, run.standardError)
        }

        let jobs = try submit(
            ["slurm", "label", fixture.model.path] + fixture.movies.map(\.path)
                + ["--tasks", "2", "--movie-data", cluster.path, "--job-folder", work.appendingPathComponent("jobs").path],
            fixture, environment: fixture.environment)
        XCTAssertEqual(jobs.count, 2, "the array job and the merge job")
        try waitUntilDone(jobs[1], fixture)
        XCTAssertEqual(try states(of: jobs[0], fixture), Array(repeating: "COMPLETED", count: 2), logs(work, fixture))
        XCTAssertEqual(try states(of: jobs[1], fixture), ["COMPLETED"], logs(work, fixture))
        XCTAssertEqual(try String(contentsOf: cluster, encoding: .utf8), try String(contentsOf: single, encoding: .utf8))
        let merged = try movieIDs(cluster)
        XCTAssertEqual(merged, ["1", "42", "2", "3", "4"])
    }

    func testTaskCancelledMidwayAndRequeuedResumesAndTheMergeHoldsEveryMovieOnce() throws {
        let fixture = try fixture()
        let work = try folder("requeue", in: fixture)
        let movieData = work.appendingPathComponent("MovieData.json")
        // Every frame of the 100 fps videos: each movie takes a few seconds, so a task is caught between its two.
        let jobs = try submit(
            ["slurm", "label", fixture.model.path] + fixture.movies.map(\.path)
                + [
                    "--tasks", "2", "--every", "0.01", "--movie-data", movieData.path,
                    "--job-folder", work.appendingPathComponent("jobs").path,
                ],
            fixture, environment: fixture.environment)
        let (array, merge) = (jobs[0], jobs[1])
        let log = work.appendingPathComponent("jobs/logs/label-\(array)_0.log")

        // Task 0 has written its first movie's result: cancel it while it labels the second.
        try waitFor("task 0's first result", fixture, work) { (try? String(contentsOf: log, encoding: .utf8))?.contains("markers →") == true }
        try slurm("scancel", ["\(array)_0"], fixture)
        try waitFor("task 0 to be cancelled", fixture, work) { try self.states(of: "\(array)_0", fixture) == ["CANCELLED"] }
        let cancelled = try String(contentsOf: log, encoding: .utf8)
        XCTAssertEqual(cancelled.components(separatedBy: "markers →").count - 1, 1, "one movie done when cancelled:\n\(cancelled)")
        XCTAssertFalse(cancelled.contains("shard 0/2:"), "cancelled before its end:\n\(cancelled)")
        let firstMovie = String(cancelled.split(separator: "\n").first { $0.contains("markers →") }!.prefix { $0 != ":" })

        // Requeued, it runs again; a cancelled task leaves afterok:ARRAY unsatisfiable for good, so the merge job's
        // dependency is renewed task by task, as an operator would after a requeue.
        try slurm("scontrol", ["requeue", "\(array)_0"], fixture)
        try slurm("scontrol", ["update", "JobId=\(merge)", "Dependency=afterok:" + (0..<2).map { "\(array)_\($0)" }.joined(separator: ":")], fixture)
        try waitUntilDone(merge, fixture)
        XCTAssertEqual(try states(of: merge, fixture), ["COMPLETED"], logs(work, fixture))

        let resumed = try String(contentsOf: log, encoding: .utf8)
        XCTAssertTrue(resumed.contains("\(firstMovie): already done"), "the requeued task skipped its finished movie:\n\(resumed)")
        XCTAssertTrue(resumed.contains("shard 0/2: 1 labeled, 1 already done, 0 failed, of 2 movies"), resumed)
        XCTAssertEqual(try movieIDs(movieData), (1...4).map(String.init), "every movie exactly once")
    }

    // MARK: - Helpers

    private func folder(_ name: String, in fixture: Fixture) throws -> URL {
        let folder = fixture.base.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Runs `workbench slurm ...` and returns the job ids it printed, in order (each line: id, summary, logs).
    private func submit(_ arguments: [String], _ fixture: Fixture, environment: [String: String]) throws -> [String] {
        let outcome = try WorkbenchBinary.runProcess(fixture.workbench, arguments, environment: environment)
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let ids = outcome.standardOutput.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        guard !ids.isEmpty, ids.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) else {
            throw TestMedia.Failure("workbench slurm printed no job ids: \(outcome.standardOutput) \(outcome.standardError)")
        }
        return ids
    }

    @discardableResult
    private func slurm(_ command: String, _ arguments: [String], _ fixture: Fixture) throws -> String {
        let outcome = try WorkbenchBinary.runProcess("/usr/bin/\(command)", arguments, environment: fixture.environment)
        guard outcome.status == 0 else { throw TestMedia.Failure("\(command) \(arguments.joined(separator: " ")): \(outcome.standardError)") }
        return outcome.standardOutput
    }

    /// The state of each task of a job (or of one task, `ID_N`), in task order; finished jobs stay listed for
    /// MinJobAge (300 s in the test cluster).
    private func states(of job: String, _ fixture: Fixture) throws -> [String] {
        try slurm("squeue", ["--noheader", "--array", "--states=all", "--jobs=\(job)", "--format=%i %T"], fixture)
            .split(separator: "\n").map { $0.split(separator: " ") }
            .sorted { $0[0].localizedStandardCompare($1[0]) == .orderedAscending }.map { String($0[1]) }
    }

    /// Waits until no task of `job` is pending, running or completing.
    private func waitUntilDone(_ job: String, _ fixture: Fixture) throws {
        let unfinished: Set<String> = ["PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "REQUEUED", "SUSPENDED"]
        try waitFor("job \(job) to end", fixture, nil) {
            let states = try self.states(of: job, fixture)
            return !states.isEmpty && states.allSatisfy { !unfinished.contains($0) }
        }
    }

    /// Polls `condition` every 0.2 s for up to 120 s; on timeout the failure shows the queue and the logs.
    private func waitFor(_ what: String, _ fixture: Fixture, _ work: URL?, condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            if try condition() { return }
            usleep(200_000)
        }
        let queue = (try? slurm("squeue", ["--states=all", "--array"], fixture)) ?? ""
        throw TestMedia.Failure("timed out waiting for \(what)\n\(queue)\n\(work.map { logs($0, fixture) } ?? "")")
    }

    /// Every task log of the jobs under `work`, for failure messages.
    private func logs(_ work: URL, _ fixture: Fixture) -> String {
        let folder = work.appendingPathComponent("jobs/logs")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()) ?? []
        return names.map { "== \($0)\n" + ((try? String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)) ?? "") }.joined()
    }

    /// Each cache entry's path and modification time.
    private func cacheEntries(_ folder: String) throws -> [String: Date] {
        var entries: [String: Date] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let name = enumerator?.nextObject() as? String {
            guard name.hasSuffix(".feat") else { continue }
            entries[name] = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.modificationDate] as? Date
        }
        return entries
    }

    /// The `id`s of a player file, in order, as text.
    private func movieIDs(_ file: URL) throws -> [String] {
        let movies = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [[String: Any]])
        return movies.map { "\($0["id"] ?? "")" }
    }
}
