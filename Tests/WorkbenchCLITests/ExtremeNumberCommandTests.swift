import Foundation
import XCTest
import _TestSupport

/// Issue 45, defect 3: every numeric option of every command given its largest finite values (1e308, -1e308,
/// Int.max and Int.min as text) through the release binary. Each run ends by itself with a usage error (64), a
/// one-line failure (1) or a result (0): never a signal (`Int(1e18 * 25)` traps with SIGILL and nothing on
/// stderr), never a hang, and never a finite number printed as "inf".
final class ExtremeNumberCommandTests: XCTestCase {
    nonisolated(unsafe) static var root: URL!
    nonisolated(unsafe) static var model: String!

    /// The values each option is given: the largest finite reals and the ends of `Int`.
    static let extremes = ["1e308", "-1e308", "9223372036854775807", "-9223372036854775808"]
    /// Longer than any of these runs takes on a loaded machine; a run still going then is a hang.
    static let deadline: TimeInterval = 300

    override class func setUp() {
        super.setUp()
        do {
            root = try WorkbenchBinary.temporaryFolder()
            model = try TestMedia.tinyModel(in: root).model
        } catch {
            XCTFail("ExtremeNumberCommandTests set-up failed: \(error)")
        }
    }

    override class func tearDown() {
        try? FileManager.default.removeItem(at: root)
        super.tearDown()
    }

    private func path(_ name: String) -> String { Self.root.appendingPathComponent(name).path }

    /// Two seconds of ffmpeg's test pattern, 160 × 120 at 25 fps.
    private func video(_ name: String) throws -> String {
        if FileManager.default.fileExists(atPath: path(name)) { return path(name) }
        let arguments = [
            "ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=2",
            "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", path(name),
        ]
        try TestMedia.check(WorkbenchBinary.runProcess("/usr/bin/env", arguments, environment: ProcessInfo.processInfo.environment), "ffmpeg")
        return path(name)
    }

    /// A phase file for `video` with phases "cat" and "espresso" (the tiny model's labels).
    private func phaseFile(_ name: String, video: String) throws -> String {
        let text =
            #"{"video": "\#(video)", "order": ["cat", "espresso"], "phases": [{"label": "cat", "start": 0, "end": 1}, {"label": "espresso", "start": 1, "end": 2}]}"#
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }

    /// How one run ended: its exit status, or the signal that killed it, or nil after `deadline` (then killed).
    private struct Ending {
        var status: Int32
        var signalled: Bool
        var standardError: String
    }

    private func run(_ arguments: [String]) throws -> Ending? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try WorkbenchBinary.path())
        process.arguments = arguments
        process.currentDirectoryURL = Self.root
        let errors = Self.root.appendingPathComponent("stderr-\(UUID().uuidString)")
        try Data().write(to: errors)
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        guard ended.wait(timeout: .now() + Self.deadline) == .success else {
            process.terminate()
            process.waitUntilExit()
            return nil
        }
        return Ending(
            status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
            standardError: (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
    }

    /// Runs `base` with `option` at each extreme value (`--option=value`, so a minus sign is a value) and checks
    /// how each run ended.
    private func check(_ base: [String], _ options: [String], extra: [String: [String]] = [:], file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        for option in options {
            for value in Self.extremes {
                let arguments = base + ["\(option)=\(value)"] + (extra[option] ?? [])
                let what = arguments.joined(separator: " ")
                guard let ending = try run(arguments) else {
                    XCTFail("\(what): still running after \(Int(Self.deadline)) s", file: file, line: line)
                    continue
                }
                XCTAssertFalse(
                    ending.signalled, "\(what): killed by signal \(ending.status); stderr: \(ending.standardError)", file: file, line: line)
                if ending.signalled { continue }
                let lines = ending.standardError.split(separator: "\n").map(String.init).filter { !$0.contains("\r") }
                switch ending.status {
                case 0:
                    break
                case 64:
                    XCTAssertTrue(
                        lines.first?.hasPrefix("Error: ") ?? false, "\(what): a usage error begins 'Error: ': \(lines)", file: file, line: line)
                case 1:
                    let failures = lines.filter { $0.hasPrefix("workbench: ") }
                    XCTAssertEqual(failures.count, 1, "\(what): one failure line: \(lines)", file: file, line: line)
                    XCTAssertEqual(lines.last, failures.first, "\(what): the failure is the last line: \(lines)", file: file, line: line)
                default:
                    XCTFail("\(what): exit status \(ending.status): \(lines)", file: file, line: line)
                }
                let shownInfinity = lines.contains { $0.range(of: #"\binf\b"#, options: .regularExpression) != nil }
                XCTAssertFalse(shownInfinity, "\(what): a finite number shown as inf: \(lines)", file: file, line: line)
            }
        }
    }

    func testTraceOptionsAtTheirExtremes() throws {
        let video = try self.video("v.mp4")
        let output = path("trace.mp4")
        try check(["trace", video, "--from", "0.5", "--points", "20,100 60,20 100,100", "-o", output], ["--from", "--duration", "--width"])
        // The points' coordinates, one at a time.
        for value in Self.extremes {
            for points in ["\(value),100 60,20 100,100", "20,\(value) 60,20 100,100", "20,100 60,20 100,\(value)"] {
                guard let ending = try run(["trace", video, "--from", "0.5", "--points=\(points)", "-o", output]) else {
                    XCTFail("trace --points \(points): still running")
                    continue
                }
                XCTAssertFalse(ending.signalled, "trace --points \(points): killed by signal \(ending.status)")
                XCTAssertEqual(ending.status, 1, "trace --points \(points): \(ending.standardError)")
                XCTAssertNil(ending.standardError.range(of: #"\binf\b"#, options: .regularExpression), ending.standardError)
            }
        }
    }

    func testVideoCommandsOptionsAtTheirExtremes() throws {
        let (video, other) = (try self.video("v.mp4"), try self.video("w.mp4"))
        try check(["detect", video, "--json"], ["--min-score", "--tiles", "--every", "--threads", "--max-megapixels"])
        try check(
            ["detect", video, "--clips", path("clips")], ["--max-length", "--stop-after"])
        try check(["label", Self.model, video, "--json"], ["--every", "--fps", "--smooth", "--threads"])
        try check(["label", Self.model, video, "--summary"], ["--window"])
        try check(["label", Self.model, video, "--highlights", "cat", "-o", path("reel.mp4")], ["--count", "--window"])
        try check(["phases", video, "--model", Self.model, "--order", "cat,espresso"], ["--every", "--min-length"])
        let phases = [try phaseFile("a.json", video: video), try phaseFile("b.json", video: other)]
        try check(["sync", video, other, "--phases"] + phases + ["-o", path("side.mp4")], ["--audio"])
        try check(
            ["slurm", "label", Self.model, video, "--tasks", "2", "--dry-run", "--job-folder", path("job")],
            ["--every", "--fps", "--tasks", "--cpus-per-task"])
    }

    func testPictureCommandsOptionsAtTheirExtremes() throws {
        let picture = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/ModelsTests/Fixtures/coffee.jpg").path
        let dataset = Self.root.appendingPathComponent("tiny").path
        try check(["classify", Self.model, picture], ["--top", "--threads", "--max-megapixels"])
        try check(["features", picture], ["--threads", "--max-megapixels"])
        try check(["evaluate", Self.model, dataset], ["--threads", "--max-megapixels"])
        try check(["detect", picture], ["--min-score", "--tiles"])
        try check(
            ["train", dataset, "-o", path("t.wbmodel")],
            ["--validation-fraction", "--target-precision", "--max-iterations", "--l2", "--augment", "--threads", "--max-megapixels"])
        try check(
            ["train", dataset, "-o", path("t.wbmodel"), "--fine-tune"],
            ["--fine-tune-blocks", "--epochs", "--batch-size", "--learning-rate", "--backbone-learning-rate", "--fine-tuned-weight", "--refits"])
        try check(["slurm", "features", picture, "--tasks", "2", "--dry-run", "--job-folder", path("job")], ["--tasks", "--cpus-per-task"])
    }
}
