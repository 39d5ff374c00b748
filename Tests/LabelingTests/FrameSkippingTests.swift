import Foundation
import XCTest
@testable import Labeling

final class FrameSkippingTests: XCTestCase {
    private func tools() throws -> ExternalTools { try ExternalTools.locate(for: "test") }

    /// x264's fast presets keep one reference frame, so no P-frame refers to a B-frame and skipping B-frames
    /// decodes every other frame exactly; with more references (the default preset) P-frames do refer to B-frames,
    /// and the check must notice.
    func testH264SkipsBidirectionalFramesOnlyWhenNoPFrameNeedsThem() throws {
        let folder = try makeTemporaryFolder(self)
        let oneReference = folder + "/veryfast.mp4", threeReferences = folder + "/medium.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=8", "-c:v", "libx264", "-preset", "veryfast",
                    "-bf", "3", "-pix_fmt", "yuv420p", oneReference])
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=8", "-c:v", "libx264", "-preset", "medium",
                    "-bf", "3", "-pix_fmt", "yuv420p", threeReferences])
        XCTAssertEqual(FrameSkipping.choose(path: oneReference, tools: try tools()), .bidirectional)
        XCTAssertEqual(FrameSkipping.choose(path: threeReferences, tools: try tools()), .noReferences)
    }

    /// HEVC's B-frames are references for everything after them: skipping them would corrupt the picture, and the
    /// check must see that.
    func testHEVCKeepsBidirectionalFrames() throws {
        let folder = try makeTemporaryFolder(self)
        let video = folder + "/x265.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=8", "-c:v", "libx265",
                    "-x265-params", "log-level=none", "-pix_fmt", "yuv420p", video])
        XCTAssertEqual(FrameSkipping.choose(path: video, tools: try tools()), .noReferences)
    }

    /// A stream without B-frames has nothing to gain.
    func testNoBFramesKeepsTheSafeDefault() throws {
        let folder = try makeTemporaryFolder(self)
        let video = folder + "/intra.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=8", "-c:v", "mpeg4", "-bf", "0", video])
        XCTAssertEqual(FrameSkipping.choose(path: video, tools: try tools()), .noReferences)
    }
}
