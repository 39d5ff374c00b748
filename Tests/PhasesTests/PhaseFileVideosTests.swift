import Foundation
import Phases
import XCTest
import _TestSupport

/// Phase files matched to the videos they name (issue 44, item 6): swapped files are found, a file naming its own
/// video by any spelling (the same file, the same file name) or naming none of the inputs is not.
final class PhaseFileVideosTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("phase-videos-\(UUID().uuidString)").path
        for sub in ["", "/clips", "/marks"] {
            try FileManager.default.createDirectory(atPath: folder + sub, withIntermediateDirectories: true)
        }
        for name in ["clips/a.mp4", "clips/b.mp4"] {
            FileManager.default.createFile(atPath: folder + "/" + name, contents: Data([0]))
        }
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    private func timeline(_ video: String) -> PhaseTimeline {
        PhaseTimeline(video: video, order: ["address"], phases: [.init(label: "address", start: 0, end: 1)])
    }

    func testSwappedPhaseFilesAreMismatchesNamingBothVideos() {
        let videos = [folder + "/clips/a.mp4", folder + "/clips/b.mp4"]
        let files = [folder + "/marks/b.json", folder + "/marks/a.json"]
        let found = PhaseFileVideos.mismatches(phaseFiles: files, timelines: [timeline("b.mp4"), timeline("a.mp4")], videos: videos)
        XCTAssertEqual(found.map(\.input), [0, 1])
        XCTAssertEqual(found.map(\.namedInput), [1, 0])
        XCTAssertEqual(found[0].error.kind, .otherVideo)
        XCTAssertEqual(
            found[0].error.description,
            "\(files[0]): names the video \"b.mp4\", which is video 2 (\(videos[1])), not video 1 (\(videos[0])) it was given "
                + "for: give the phase files in the order of their videos")
        XCTAssertThrowsError(try PhaseFileVideos.check(phaseFiles: files, timelines: [timeline("b.mp4"), timeline("a.mp4")], videos: videos))
    }

    func testAFileNamingItsOwnVideoOrNoInputIsNoMismatch() throws {
        let videos = [folder + "/clips/a.mp4", folder + "/clips/b.mp4"]
        let files = [folder + "/marks/a.json", folder + "/marks/b.json"]
        let spellings: [[String]] = [
            ["a.mp4", "b.mp4"],  // file names only
            [folder + "/clips/a.mp4", folder + "/clips/./b.mp4"],  // absolute paths
            ["../clips/a.mp4", "../clips/b.mp4"],  // relative to the phase file's folder
            ["old-name.mp4", "v.mp4"],  // naming no input: nothing says it is another's
            ["a.mp4", ""],  // an empty "video" names nothing
        ]
        for names in spellings {
            XCTAssertEqual(PhaseFileVideos.mismatches(phaseFiles: files, timelines: names.map(timeline), videos: videos), [], "\(names)")
        }
        // The same file by another path: a hard link with another name still names its own video, and the other's
        // file name is then beaten by identity.
        try FileManager.default.linkItem(atPath: folder + "/clips/a.mp4", toPath: folder + "/clips/take1.mp4")
        XCTAssertTrue(PhaseFileVideos.names(folder + "/clips/take1.mp4", phaseFile: files[0], video: videos[0]))
        XCTAssertFalse(PhaseFileVideos.names(folder + "/clips/take1.mp4", phaseFile: files[0], video: videos[1]))
        // One file for both videos (it names the first): the second is given another's file.
        let shared = PhaseFileVideos.mismatches(phaseFiles: [files[0], files[0]], timelines: [timeline("a.mp4"), timeline("a.mp4")], videos: videos)
        XCTAssertEqual(shared.map(\.input), [1])
    }
}
