import Foundation
@testable import Video
import XCTest

/// Issue 45, defect 5: a FIFO, a device or a folder given as a video is refused in one line before any program
/// starts (ffprobe would wait on a FIFO for good), and every run of a program is bounded by its deadline.
final class NonRegularInputTests: XCTestCase {
    /// Tools that cannot start: a refusal that came from running one would say "cannot start".
    private let absentTools = ExternalTools(ffmpeg: "/nonexistent/ffmpeg", ffprobe: "/nonexistent/ffprobe")

    func testAFIFOOrADeviceIsRefusedBeforeAnyProgramStarts() throws {
        let folder = try makeTemporaryFolder(self)
        let fifo = folder + "/movie.mp4"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let started = Date()
        for (path, kind) in [(fifo, "a FIFO"), ("/dev/zero", "a character device")] {
            let probeError = assertVideoError(.notAVideo) { try VideoProbe.probe(path: path, tools: absentTools) }
            XCTAssertEqual(probeError?.description, "\(path): not a regular file (\(kind))")
            let sourceError = assertVideoError(.notAVideo) { try VideoFrameSource(path: path, options: networkOptions, tools: absentTools) }
            XCTAssertEqual(sourceError?.description, "\(path): not a regular file (\(kind))")
            XCTAssertNil(VideoProbe.countFrames(path: path, tools: absentTools))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "refused at once, nothing waited on")
        XCTAssertEqual(
            assertVideoError(.notAVideo) { try VideoProbe.probe(path: folder, tools: absentTools) }?.description,
            "\(folder): is a folder, not a video file")
        XCTAssertEqual(
            assertVideoError(.fileNotFound) { try VideoProbe.probe(path: folder + "/none.mp4", tools: absentTools) }?.description,
            "\(folder)/none.mp4: file not found")
    }

    func testARunPastItsDeadlineIsStoppedAndNamed() throws {
        let started = Date()
        let total = assertVideoError(.toolFailed) {
            try ToolRunner.run("/bin/sh", ["-c", "exec sleep 30"], subject: "movie.mp4", deadline: .init(total: 0.5))
        }
        XCTAssertEqual(total?.description, "movie.mp4: sh did not finish within 0.5 s; stopped it")
        // A program that keeps writing is not stopped by the bound on silence; one that falls silent is.
        let chatty = try ToolRunner.run(
            "/bin/sh", ["-c", "for i in 1 2 3 4 5 6; do echo $i; sleep 0.2; done"], subject: "movie.mp4", deadline: .init(idle: 1))
        XCTAssertEqual(String(decoding: chatty.output, as: UTF8.self), "1\n2\n3\n4\n5\n6\n")
        let silent = assertVideoError(.toolFailed) {
            try ToolRunner.run("/bin/sh", ["-c", "echo started; exec sleep 30"], subject: "movie.mp4", deadline: .init(idle: 0.5))
        }
        XCTAssertEqual(silent?.description, "movie.mp4: sh made no progress for 0.5 s; stopped it")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "stopped, not waited for")
        XCTAssertEqual(childrenOfThisProcess(), [], "every stopped child reaped")
    }

    /// The processes whose parent is this one, zombies included.
    private func childrenOfThisProcess() -> [Int32] {
        let me = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { identifier in
            guard let status = try? String(contentsOfFile: "/proc/\(identifier)/stat", encoding: .utf8),
                let close = status.lastIndex(of: ")")
            else { return false }
            let fields = status[status.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == me
        }
    }
}
