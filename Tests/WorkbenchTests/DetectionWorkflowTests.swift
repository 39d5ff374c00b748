import Foundation
@testable import Workbench
import XCTest
import _TestSupport

/// A detector made of plain values, for the workflow's plumbing (never a claimed result): one "person" wherever the
/// picture has white pixels, boxed around all of them, with a fixed score.
private struct WhitePatchDetector: ObjectDetecting {
    let labels = ["person"]

    func detect(in image: RGBImage, minimumConfidence: Float) -> [DetectedObject] {
        var left = Int.max, top = Int.max, right = -1, bottom = -1
        for y in 0..<image.height {
            for x in 0..<image.width {
                let pixel = image[x, y]
                guard pixel.red > 200, pixel.green > 200, pixel.blue > 200 else { continue }
                (left, top, right, bottom) = (min(left, x), min(top, y), max(right, x + 1), max(bottom, y + 1))
            }
        }
        guard right > 0, minimumConfidence <= 0.9 else { return [] }
        return [
            DetectedObject(
                label: "person", confidence: 0.9,
                box: BoundingBox(left: Double(left), top: Double(top), right: Double(right), bottom: Double(bottom)))
        ]
    }
}

/// `DetectionWorkflow` in-process: pictures (JSON coordinates, annotated copies), a synthetic video whose "person"
/// is a white square shown at known times (samples, clips by the rule, clip files, captions, page), and the
/// inputs and outputs it refuses.
final class DetectionWorkflowTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("detect-workflow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func ffmpeg(_ arguments: [String]) throws {
        let outcome = try WorkbenchBinary.runProcess(
            "/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments,
            environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
    }

    /// A 20 s, 10 fps, 320 × 240 black video with a white 40 × 60 square at (100, 80) from 1 s to 3 s and from 9.6 s
    /// to the end.
    private func squareVideo() throws -> String {
        let path = folder.appendingPathComponent("square.mp4").path
        try ffmpeg([
            "-f", "lavfi", "-i", "color=black:s=320x240:r=10:d=20",
            "-vf", "drawbox=x=100:y=80:w=40:h=60:color=white:t=fill:enable='gte(t,1)*lt(t,3)+gte(t,9.6)'",
            "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", path,
        ])
        return path
    }

    func testVideoSamplesClipsCaptionsAndPage() throws {
        let video = try squareVideo()
        var request = DetectionRequest(inputs: [video])
        request.clips = folder.appendingPathComponent("clips").path
        request.vtt = folder.appendingPathComponent("square.vtt").path
        request.html = folder.appendingPathComponent("square.html").path
        request.annotate = folder.appendingPathComponent("square-boxes.mp4").path
        var written: [String] = [], pageVideos: [PageVideo] = []
        let outcome = try DetectionWorkflow.run(request, detector: WhitePatchDetector()) { event in
            if case .wrote(let path) = event { written.append(path) }
            if case .pageVideo(let choice) = event { pageVideos.append(choice) }
        }
        let result = try XCTUnwrap(outcome.videos.first)
        XCTAssertEqual(result.samples.count, 100)
        let times = result.samples.map(\.time)
        let truth = times.map { ($0 >= 1 - 1e-9 && $0 < 3 - 1e-9) || $0 >= 9.6 - 1e-9 }
        XCTAssertEqual(result.samples.map { !$0.objects.isEmpty }, truth)
        if let box = result.samples.first(where: { !$0.objects.isEmpty })?.objects.first?.box {
            XCTAssertEqual([box.x, box.y, box.width, box.height], [120, 110, 40, 60])
        }
        // The clips are the rule's on the true presence: 1–7.8 (no person after 2.8 s), 9.6–19.6 (max-length),
        // 19.6–20 (end of video).
        let expected = PresenceClipsReference.clips(times: times, presence: truth, videoEnd: 20, rule: request.clipRule)
        XCTAssertEqual(result.clips.map(\.clip), expected)
        XCTAssertEqual(expected.map(\.ended), [.noPerson, .maximumLength, .endOfVideo])
        for clip in result.clips {
            let file = try XCTUnwrap(clip.file)
            let probe = try VideoProbe.probe(path: file, tools: ExternalTools.locate(for: file))
            XCTAssertEqual(try XCTUnwrap(probe.duration), clip.clip.end - clip.clip.start, accuracy: 0.15, file)
            XCTAssertEqual(probe.width, 320)
        }
        XCTAssertEqual(Set(written), Set(result.clips.compactMap(\.file) + [request.vtt!, request.html!, request.annotate!]))
        let cues = try WebVTTFile.parse(String(contentsOfFile: request.vtt!, encoding: .utf8))
        XCTAssertEqual(cues.count, 2)
        let html = try String(contentsOfFile: request.html!, encoding: .utf8)
        XCTAssertTrue(html.contains("no person"))
        XCTAssertNil(HostileNames.htmlBidiProblem(html))
        let check = try PageCheck.run(page: request.html!, screenshot: "detect-square.png")
        XCTAssertEqual(check.consoleErrors, [])
        // The lossless square video is H.264 in the High 4:4:4 Predictive profile, which not every browser plays:
        // the page plays the annotated copy instead.
        let problem =
            "H.264 video in the High 4:4:4 Predictive profile, yuv420p (browsers are sure to play only 8-bit 4:2:0 in Baseline, Main or High)"
        XCTAssertEqual(pageVideos, [PageVideo(video: video, source: .annotatedCopy, file: request.annotate!, problem: problem)])
        XCTAssertEqual(check.outsideRequests(page: request.html!, allowedFiles: [request.annotate!]), [])
        // The annotated copy has the yellow box around the square at 2 s and none at 5 s.
        let frames = folder.appendingPathComponent("frame-%d.png").path
        try ffmpeg(["-i", request.annotate!, "-vf", "select='eq(n\\,20)+eq(n\\,50)'", "-vsync", "0", frames])
        let shown = try ImageLoader.load(path: folder.appendingPathComponent("frame-1.png").path, options: DecodeOptions(minimumCropSide: nil))
        let edge = shown[100, 110]
        XCTAssertTrue(edge.red > 200 && edge.green > 180 && edge.blue < 90, "yellow at the box's left edge: \(edge)")
        let later = try ImageLoader.load(path: folder.appendingPathComponent("frame-2.png").path, options: DecodeOptions(minimumCropSide: nil))
        XCTAssertTrue(later[100, 110].red < 60, "nothing drawn while nobody is there")
    }

    func testPicturesGiveBoxesInDisplayedPixelsAndAnnotatedCopies() throws {
        let pictures = folder.appendingPathComponent("pictures")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        try ffmpeg([
            "-f", "lavfi", "-i", "color=black:s=200x150", "-vf", "drawbox=x=30:y=20:w=50:h=70:color=white:t=fill",
            "-frames:v", "1", pictures.appendingPathComponent("one.png").path,
        ])
        try ffmpeg(["-f", "lavfi", "-i", "color=black:s=64x48", "-frames:v", "1", pictures.appendingPathComponent("empty.jpg").path])
        var request = DetectionRequest(inputs: [pictures.path])
        request.annotate = folder.appendingPathComponent("boxes").path
        request.tilesPerSide = 2
        let outcome = try DetectionWorkflow.run(request, detector: WhitePatchDetector()) { _ in }
        XCTAssertEqual(outcome.pictures.map { URL(fileURLWithPath: $0.path).lastPathComponent }, ["empty.jpg", "one.png"])
        XCTAssertEqual(outcome.pictures[0].objects.count, 0)
        let box = try XCTUnwrap(outcome.pictures[1].objects.first?.box)
        XCTAssertEqual([box.x, box.y, box.width, box.height], [55, 55, 50, 70])
        XCTAssertEqual(outcome.pictures[1].objects.count, 1, "the tiles' boxes merged into the whole frame's")
        let copy = try ImageLoader.load(path: folder.appendingPathComponent("boxes/one.png").path, options: DecodeOptions(minimumCropSide: nil))
        XCTAssertEqual([copy.width, copy.height], [200, 150])
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("boxes/empty.jpg").path))
    }

    func testRefusals() throws {
        let video = try squareVideo()
        let picture = folder.appendingPathComponent("p.png").path
        try ffmpeg(["-f", "lavfi", "-i", "color=black:s=20x20", "-frames:v", "1", picture])
        func reason(_ request: DetectionRequest) -> String {
            do {
                _ = try DetectionWorkflow.run(request, detector: WhitePatchDetector()) { _ in }
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertTrue(reason(DetectionRequest(inputs: [picture, video])).contains("pictures and videos are not mixed"))
        var unknown = DetectionRequest(inputs: [picture])
        unknown.label = "dog"
        XCTAssertEqual(reason(unknown), "unknown label 'dog': the detector knows 'person'")
        var clipsOfPictures = DetectionRequest(inputs: [picture])
        clipsOfPictures.clips = folder.path
        XCTAssertTrue(reason(clipsOfPictures).contains("for videos"))
        var overInput = DetectionRequest(inputs: [video])
        overInput.vtt = video
        XCTAssertTrue(reason(overInput).contains(video), reason(overInput))
        XCTAssertTrue(reason(DetectionRequest(inputs: [folder.appendingPathComponent("missing.mp4").path])).contains("no such file"))
    }

    /// The page and the captions under hostile video names and labels (issue 23's property): markup unchanged,
    /// every name isolated, the captions parse with one cue per stretch with someone.
    func testHostileNamesThroughThePageAndTheCaptions() {
        func video(_ name: String) -> VideoDetection {
            let seen = DetectedObject(label: "person", confidence: 0.8, box: BoundingBox(x: 5, y: 5, width: 2, height: 2))
            let samples = (0..<10).map { VideoDetection.Sample(time: Double($0), objects: $0 < 4 ? [seen] : []) }
            return VideoDetection(path: "videos/\(name).mp4", samples: samples, clips: [], duration: 10, width: 10, height: 10)
        }
        HostileNames.check("detect page", count: 100, includingNUL: true) { name in
            func page(_ name: String, label: String) -> String {
                let review = DetectionReview(presenceLabel: label, keepsPictures: false)
                review.startVideo()
                review.add(video(name))
                return review.page(at: "/tmp/page.html", every: 1, minimumConfidence: 0.5)
            }
            let plain = String(repeating: "x", count: name.count)
            for html in [page(name, label: "person"), page(plain, label: name)] {
                if let problem = HostileNames.htmlBidiProblem(html) { return problem }
            }
            let tags = HostileNames.tagSequence(page(name, label: "person"))
            guard tags == HostileNames.tagSequence(page(plain, label: "person")) else { return "the markup differs from a plain name's" }
            return nil
        }
        HostileNames.check("detect captions", count: 100, includingNUL: true) { label in
            let review = DetectionReview(presenceLabel: label, keepsPictures: false)
            do {
                let cues = try WebVTTFile.parse(review.captions(video("v")))
                guard cues.count == 1 else { return "\(cues.count) cues, not 1" }
                return HostileNames.bidiProblem(cues[0].text)
            } catch {
                return "the captions do not parse: \(error)"
            }
        }
    }
}
