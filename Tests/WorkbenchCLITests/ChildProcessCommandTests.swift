import Foundation
import XCTest
import _TestSupport

/// Issue 45, defects 5 and 6, through the release binary: a FIFO given as the video starts no program and is
/// refused in one line at once; a render interrupted by SIGINT, SIGTERM or SIGHUP, early (its first child running)
/// or late (its partial file being written), leaves no child running, no partial file and no temporary folder, and
/// the run exits with 128 + the signal's number.
final class ChildProcessCommandTests: XCTestCase {
    struct Fixture {
        var base: URL
        var model: String
        /// 20 s at 25 fps, 640 × 360: 10 s of a cat, then 10 s of espresso.
        var movie: String
        /// 20 s at 10 fps of pedestrians (the detector's golden picture), 768 × 576.
        var crowd: String
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
        let (dataset, model) = try TestMedia.tinyModel(in: base)
        let environment = WorkbenchBinary.unshardedEnvironment(cache: base.appendingPathComponent("cache"))
        let movie = base.appendingPathComponent("movie.mp4")
        try TestMedia.video(
            pictures: [
                try TestMedia.pictures(dataset.appendingPathComponent("Training Data/cat"))[0],
                try TestMedia.pictures(dataset.appendingPathComponent("Training Data/espresso"))[0],
            ], seconds: 10, to: movie, environment: environment)
        let crowd = base.appendingPathComponent("crowd.mp4")
        let picture = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/DetectionTests/Fixtures/detector-images/vtest-020s.jpg")
        try TestMedia.check(
            WorkbenchBinary.runProcess(
                "/usr/bin/ffmpeg",
                [
                    "-nostdin", "-loglevel", "error", "-y", "-loop", "1", "-t", "20", "-r", "10", "-i", picture.path,
                    "-vf", "scale=768:576,format=yuv420p", "-c:v", "libx264", "-preset", "veryfast", crowd.path,
                ], environment: environment), "ffmpeg crowd.mp4")
        return Fixture(base: base, model: model, movie: movie.path, crowd: crowd.path, environment: environment)
    }

    /// A fresh scratch folder inside the fixture's, with an empty `tmp` to be the run's TMPDIR.
    private func scratch() throws -> URL {
        let folder = try fixture().base.appendingPathComponent("run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder
    }

    private func phaseFile(_ folder: URL, _ name: String, video: String) throws -> String {
        let text =
            #"{"video": "\#(video)", "order": ["cat", "espresso"], "phases": ["#
            + #"{"label": "cat", "start": 0, "end": 10}, {"label": "espresso", "start": 10, "end": 20}]}"#
        let path = folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    // MARK: FIFOs

    func testAFIFOAsTheVideoIsRefusedInOneLineAndStartsNothing() throws {
        let fixture = try fixture()
        let folder = try scratch()
        let fifo = folder.appendingPathComponent("movie.mp4").path
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let phases = try phaseFile(folder, "fifo.json", video: fifo), other = try phaseFile(folder, "movie.json", video: fixture.movie)
        let out = folder.appendingPathComponent("out.mp4").path
        let runs: [[String]] = [
            ["phases", fifo, "--model", fixture.model, "--order", "cat,espresso"],
            ["sync", fifo, fixture.movie, "--phases", phases, other, "-o", out],
            ["trace", fifo, "--from", "0", "--points", "20,100 60,20 100,100", "-o", out],
            ["detect", fifo],
            ["detect", fifo, "--clips", folder.appendingPathComponent("clips").path],
            ["label", fixture.model, fifo, "--annotate", out],
        ]
        for arguments in runs {
            let started = Date()
            let outcome = try WorkbenchBinary.run(arguments, environment: ["TMPDIR": folder.appendingPathComponent("tmp").path])
            let name = arguments[0]
            XCTAssertLessThan(Date().timeIntervalSince(started), 30, "\(name) answered, not waited on the FIFO")
            XCTAssertEqual(outcome.status, 1, "\(name): \(outcome.standardError)")
            XCTAssertEqual(outcome.standardError, "workbench: \(fifo): not a regular file (a FIFO)\n", name)
            XCTAssertEqual(ProcessTable.naming(folder.path), [], "\(name): no program left waiting on the FIFO")
            XCTAssertEqual(try entries(folder).sorted(), ["fifo.json", "movie.json", "movie.mp4", "tmp"], "\(name) wrote nothing")
            XCTAssertEqual(try entries(folder.appendingPathComponent("tmp")), [], name)
        }
    }

    // MARK: Interrupts

    /// When the signal is sent: as soon as the run has a child, once its partial output file exists, or once a
    /// work folder exists in TMPDIR (a highlight reel's segments are made there; its partial file lives briefly).
    enum Moment: String { case firstChild, partialFile, workFolder }

    func testInterruptedDetectClipsLeavesNothing() throws {
        let fixture = try fixture()
        try interrupt(signal: SIGINT, at: .firstChild) { folder in ["detect", fixture.crowd, "--clips", folder.appendingPathComponent("clips").path] }
        try interrupt(signal: SIGTERM, at: .partialFile) { folder in
            ["detect", fixture.crowd, "--clips", folder.appendingPathComponent("clips").path]
        }
    }

    func testInterruptedLabelAnnotateLeavesNothing() throws {
        let fixture = try fixture()
        let arguments = { (folder: URL) in ["label", fixture.model, fixture.movie, "--annotate", folder.appendingPathComponent("out.mp4").path] }
        try interrupt(signal: SIGTERM, at: .firstChild, arguments)
        try interrupt(signal: SIGINT, at: .partialFile, arguments)
    }

    func testInterruptedHighlightReelLeavesNothing() throws {
        let fixture = try fixture()
        let arguments = { (folder: URL) in
            ["label", fixture.model, fixture.movie, "--highlights", "espresso", "--count", "1", "-o", folder.appendingPathComponent("reel.mp4").path]
        }
        try interrupt(signal: SIGINT, at: .firstChild, arguments)
        try interrupt(signal: SIGTERM, at: .workFolder, arguments)
    }

    func testInterruptedSyncLeavesNothing() throws {
        let fixture = try fixture()
        let arguments = { (folder: URL) in
            let phases = try self.phaseFile(folder, "movie.json", video: fixture.movie)
            return ["sync", fixture.movie, fixture.movie, "--phases", phases, phases, "-o", folder.appendingPathComponent("side.mp4").path]
        }
        try interrupt(signal: SIGTERM, at: .firstChild, arguments)
        try interrupt(signal: SIGINT, at: .partialFile, arguments)
        try interrupt(signal: SIGHUP, at: .partialFile, arguments)
    }

    func testInterruptedTraceLeavesNothing() throws {
        let fixture = try fixture()
        let arguments = { (folder: URL) in
            ["trace", fixture.movie, "--from", "0", "--points", "20,300 320,20 620,300", "-o", folder.appendingPathComponent("traced.mp4").path]
        }
        try interrupt(signal: SIGINT, at: .firstChild, arguments)
        try interrupt(signal: SIGTERM, at: .partialFile, arguments)
    }

    /// Starts `workbench arguments(folder)` with TMPDIR in the scratch folder, sends `signal` at `moment`, and
    /// checks what is left: the exit status, every child it had ended, no other program naming the scratch folder,
    /// no hidden partial file, no finished file that is not whole, an empty TMPDIR, no error line.
    private func interrupt(
        signal: Int32, at moment: Moment, _ arguments: (URL) throws -> [String], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let fixture = try fixture()
        let folder = try scratch()
        let temporary = folder.appendingPathComponent("tmp")
        let what = "\(try arguments(folder)[0]) interrupted by signal \(signal) at \(moment.rawValue)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try WorkbenchBinary.path())
        process.arguments = try arguments(folder)
        process.environment = fixture.environment.merging(["TMPDIR": temporary.path]) { $1 }
        let errors = folder.appendingPathComponent("stderr.txt")
        FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var children: Set<Int32> = []
        let limit = Date().addingTimeInterval(120)
        var reached = false
        while process.isRunning, Date() < limit {
            let now = ProcessTable.children(of: process.processIdentifier)
            children.formUnion(now)
            switch moment {
            case .firstChild: reached = !now.isEmpty
            case .partialFile: reached = partialFiles(in: folder).count > 0
            case .workFolder: reached = ((try? entries(temporary)) ?? []).contains { $0.hasPrefix("workbench-") }
            }
            if reached { break }
            usleep(10_000)
        }
        guard reached, process.isRunning else {
            process.terminate()
            process.waitUntilExit()
            return XCTFail("\(what): the run ended before the moment came", file: file, line: line)
        }
        kill(process.processIdentifier, signal)
        let sent = Date()
        process.waitUntilExit()
        XCTAssertLessThan(Date().timeIntervalSince(sent), 10, "\(what): stopped soon", file: file, line: line)
        XCTAssertEqual(process.terminationReason, .exit, what, file: file, line: line)
        XCTAssertEqual(process.terminationStatus, 128 + signal, what, file: file, line: line)
        XCTAssertFalse(children.isEmpty, "\(what): a child was seen", file: file, line: line)
        for child in children { XCTAssertFalse(ProcessTable.isRunning(child), "\(what): child \(child) still running", file: file, line: line) }
        XCTAssertEqual(ProcessTable.naming(folder.path), [], "\(what): a program still works on the scratch folder", file: file, line: line)
        XCTAssertEqual(partialFiles(in: folder), [], "\(what): partial files left", file: file, line: line)
        XCTAssertEqual(try entries(temporary), [], "\(what): temporary folders left", file: file, line: line)
        for video in try videos(in: folder) {
            let probe = try WorkbenchBinary.runProcess("/usr/bin/ffprobe", ["-v", "error", "-show_format", video], environment: [:])
            XCTAssertEqual(probe.status, 0, "\(what): \(video) is under its final name but not whole", file: file, line: line)
        }
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        XCTAssertFalse(
            stderr.split(separator: "\n").contains { $0.hasPrefix("workbench: ") }, "\(what): an error after the interrupt: \(stderr)", file: file,
            line: line)
    }

    // MARK: What is left

    private func entries(_ folder: URL) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.path) }

    /// Hidden `.NAME.partial-…` files anywhere under `folder`.
    private func partialFiles(in folder: URL) -> [String] {
        let found = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return found.filter { URL(fileURLWithPath: $0).lastPathComponent.hasPrefix(".") && $0.contains(".partial-") }
    }

    /// Finished videos under `folder` (not the inputs, which live in the fixture's folder).
    private func videos(in folder: URL) throws -> [String] {
        let found = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return found.filter { $0.hasSuffix(".mp4") && !URL(fileURLWithPath: $0).lastPathComponent.hasPrefix(".") }
            .map { folder.appendingPathComponent($0).path }
    }

    /// The processes Linux lists in `/proc`: children, whether one runs, those naming a file.
    enum ProcessTable {
        /// The processes whose parent is `parent`, zombies included.
        static func children(of parent: Int32) -> Set<Int32> {
            Set(identifiers().filter { statFields($0).map { $0.count > 1 && Int32($0[1]) == parent } ?? false })
        }

        /// Whether `identifier` still runs (a zombie waiting for its parent has ended).
        static func isRunning(_ identifier: Int32) -> Bool {
            guard let state = statFields(identifier)?.first else { return false }
            return state != "Z" && state != "X"
        }

        /// The running processes other than this one whose command line holds `text`, as "ID: command line".
        static func naming(_ text: String) -> [String] {
            identifiers().filter { $0 != getpid() && isRunning($0) }.compactMap { identifier in
                guard let bytes = FileManager.default.contents(atPath: "/proc/\(identifier)/cmdline") else { return nil }
                let line = String(decoding: bytes.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
                return line.contains(text) ? "\(identifier): \(line)" : nil
            }
        }

        private static func identifiers() -> [Int32] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init)
        }

        /// The fields of `/proc/ID/stat` after the command name (which may hold spaces): state, parent, …
        private static func statFields(_ identifier: Int32) -> [Substring]? {
            guard let status = try? String(contentsOfFile: "/proc/\(identifier)/stat", encoding: .utf8),
                let close = status.lastIndex(of: ")")
            else { return nil }
            return status[status.index(after: close)...].split(separator: " ")
        }
    }
}
