import FileFormats
import Foundation
@testable import Video
import XCTest
import _TestSupport

/// Burned-in captions (`label --annotate`), read back as pixels: format characters, which drawtext's font has no
/// glyph for, are left out of every burned-in text, so a caption whose label is isolated looks exactly like the
/// caption without the isolates (issue 44, item 2: "□Fish□ 100 %").
final class AnnotatedVideoTests: XCTestCase {
    /// Every format character (category Cf) is dropped, controls still become spaces or U+FFFD, the rest is kept.
    func testDrawableTextDropsFormatCharacters() {
        XCTAssertEqual(AnnotatedVideo.drawable("\u{2068}Fish\u{2069}  100 %"), "Fish  100 %")
        XCTAssertEqual(AnnotatedVideo.drawable("\u{202E}abc\u{202C}\u{200E}\u{200F}\u{061C}\u{200B}\u{200D}\u{00AD}\u{FEFF}d"), "abcd")
        XCTAssertEqual(AnnotatedVideo.drawable("a\tb\nc\u{1B}d"), "a b c\u{FFFD}d")
        XCTAssertEqual(AnnotatedVideo.drawable("Café ñ 日本 שלום"), "Café ñ 日本 שלום")
        for value in 0...0x2FFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.generalCategory == .format else { continue }
            XCTAssertEqual(AnnotatedVideo.drawable("a" + String(Character(scalar)) + "b"), "ab", String(format: "U+%04X", value))
        }
    }

    /// A caption drawn with its label between isolates, as `label --annotate` gives it, against the same caption
    /// without them: the caption's region of the frame is the same picture. Before the fix drawtext drew a hollow
    /// box for each isolate, which widened the caption and put two outlined rectangles around the label.
    func testIsolatedCaptionIsDrawnWithoutBoxes() throws {
        let folder = try makeTemporaryFolder(self)
        let tools = try requireTools()
        let input = folder + "/grey.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "color=c=0x606060:s=320x180:r=10:d=0.5", "-c:v", "libx264", "-pix_fmt", "yuv420p", input])
        func caption(_ text: String, _ name: String) throws -> [UInt8] {
            let output = folder + "/" + name + ".mp4"
            try AnnotatedVideo.render(video: input, captions: [.init(second: 0, text: text)], to: output, tools: tools)
            let frames = try RenderTestMedia.frames(of: output, folder: folder)
            XCTAssertEqual(frames.width, 320)
            return try XCTUnwrap(frames.frames.first)
        }
        let isolated = try caption("\(DisplayText.isolated("Fish"))  100 %", "isolated")
        let plain = try caption("Fish  100 %", "plain")
        let bare = try caption("", "bare")
        // The caption's box starts at (fontSize − border) and is fontSize + 2 borders high: rows 0–60 hold it.
        var largest = 0, captionPixels = 0
        for y in 0..<60 {
            for x in 0..<320 {
                let a = RenderTestMedia.pixel(isolated, frameWidth: 320, x, y), b = RenderTestMedia.pixel(plain, frameWidth: 320, x, y)
                largest = max(largest, abs(a.0 - b.0), abs(a.1 - b.1), abs(a.2 - b.2))
                if RenderTestMedia.pixel(plain, frameWidth: 320, x, y).0 > 200 { captionPixels += 1 }
            }
        }
        XCTAssertGreaterThan(captionPixels, 50, "the plain caption's white letters are in the region compared")
        XCTAssertLessThanOrEqual(largest, 4, "the isolated caption differs from the plain one: drawtext drew its isolates")
        XCTAssertNotEqual(bare, plain, "an empty caption draws no letters")
    }
}
