import Foundation
import XCTest
import _TestSupport

/// Issue 45, defect 8: an MKV whose header claims 3600 s but whose frames last 4 s. The frames decoded are the
/// truth: `detect`'s clip ends at 4.0 s with the video and its WebVTT cue with it, `phases` finishes at 4.0 s
/// without decoding an hour, and `phases --check` refuses an end past the frames as `sync` does.
final class LyingDurationCommandTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws { folder = try WorkbenchBinary.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    private static let crowd = WorkbenchBinary.repositoryRoot()
        .appendingPathComponent("Tests/DetectionTests/Fixtures/detector-images/vtest-020s.jpg").path

    /// 1 s of black then 3 s of the crowd at 10 frames a second, as MKV, its Segment Info Duration (EBML id
    /// 0x4489, a float of milliseconds) then set to an hour; ffprobe must report the lie.
    private func lyingVideo() throws -> String {
        let video = path("crowd.mkv")
        let made = try WorkbenchBinary.runProcess(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=black:s=768x576:r=10:d=1", "-loop", "1", "-t", "3", "-r", "10",
                "-i", Self.crowd, "-filter_complex",
                "[0:v]format=yuv420p[a];[1:v]scale=768:576,format=yuv420p,setsar=1[b];[a][b]concat=n=2:v=1:a=0",
                "-c:v", "libx264", "-crf", "15", "-r", "10", video,
            ], environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(made.status, 0, made.standardError)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: video)))
        let start = try XCTUnwrap(
            (0..<(bytes.count - 11)).first { bytes[$0] == 0x44 && bytes[$0 + 1] == 0x89 && (bytes[$0 + 2] == 0x88 || bytes[$0 + 2] == 0x84) },
            "no Duration element")
        if bytes[start + 2] == 0x88 {
            bytes.replaceSubrange((start + 3)..<(start + 11), with: withUnsafeBytes(of: (3_600_000.0 as Double).bitPattern.bigEndian, Array.init))
        } else {
            bytes.replaceSubrange((start + 3)..<(start + 7), with: withUnsafeBytes(of: (3_600_000.0 as Float).bitPattern.bigEndian, Array.init))
        }
        try Data(bytes).write(to: URL(fileURLWithPath: video))
        let probe = try WorkbenchBinary.runProcess(
            "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", video],
            environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(Double(probe.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)), 3600, "ffprobe believes the header")
        return video
    }

    func testDetectEndsTheClipAndItsCueWithTheFrames() throws {
        let video = try lyingVideo()
        let outcome = try WorkbenchBinary.run(["detect", video, "--json", "--vtt", path("people.vtt"), "--threads", "2"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let result = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any])
        let clips = try XCTUnwrap(result["clips"] as? [[String: Any]])
        XCTAssertEqual(clips.count, 1)
        XCTAssertEqual(clips.first?["start"] as? Double, 1)
        XCTAssertEqual(clips.first?["end"] as? Double, 4, "the video ends at 4 s: \(clips)")
        XCTAssertEqual(clips.first?["ended"] as? String, "end-of-video")
        let cues = try WebVTTFile.parse(String(contentsOfFile: path("people.vtt"), encoding: .utf8))
        XCTAssertEqual(cues.last?.end, 4, "the last cue ends with the frames: \(cues)")
    }

    func testPhasesFinishesWithTheFramesAndCheckRefusesAnEndSyncRefuses() throws {
        let video = try lyingVideo()
        let workspace = try TinyDatasetWorkspace()
        defer { workspace.remove() }
        let model = workspace.folder.appendingPathComponent("tiny.wbmodel").path
        try TestMedia.check(WorkbenchBinary.run(["train", workspace.dataset.path, "-o", model, "--no-cache"]), "workbench train")
        let found = path("found.json")
        let phases = try WorkbenchBinary.run(["phases", video, "--model", model, "--order", "cat,espresso", "--every", "0.5", "-o", found])
        XCTAssertEqual(phases.status, 0, phases.standardError)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: found))) as? [String: Any])
        let last = try XCTUnwrap((document["phases"] as? [[String: Any]])?.last)
        XCTAssertEqual(last["end"] as? Double, 4, "the last phase ends with the frames: \(document)")

        // 4.1 s is past the 40 frames (and past sync's half frame of slack): both refuse it.
        let late = path("late.json")
        try
            #"{"video": "crowd.mkv", "order": ["cat", "espresso"], "phases": [{"label": "cat", "start": 0, "end": 2}, {"label": "espresso", "start": 2, "end": 4.1}]}"#
            .write(toFile: late, atomically: true, encoding: .utf8)
        let check = try WorkbenchBinary.run(["phases", video, "--check", late])
        XCTAssertEqual(check.status, 1, check.standardOutput)
        XCTAssertEqual(check.errorLines, [#"workbench: \#(late): phase "espresso" ends at 4.1 s, after the end of the video (crowd.mkv: 4.0 s)"#])
        let sync = try WorkbenchBinary.run(["sync", video, video, "--phases", late, late, "-o", path("side.mp4")])
        XCTAssertEqual(sync.status, 1)
        XCTAssertTrue(sync.standardError.contains("after the end of the video"), sync.standardError)
    }
}
