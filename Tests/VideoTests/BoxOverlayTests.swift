import FileFormats
@testable import Video
import XCTest
import _TestSupport

/// The `sendcmd` script that moves the box and caption slots: one line per sample that changes something, the
/// slots a sample leaves unused parked, and captions that stay one drawable token whatever the label.
final class BoxOverlayTests: XCTestCase {
    private let style = BoxOverlay.Style(width: 720, height: 576)

    func testSlotsMoveAndPark() {
        let box = BoxOverlay.Box(left: 10.4, top: 100, width: 50, height: 120, text: "person 0.87")
        let script = BoxOverlay.commands(
            [
                .init(second: 0, boxes: [box, box]),
                .init(second: 0.2, boxes: [box]),
                .init(second: 0.4, boxes: []),
                .init(second: 0.6, boxes: []),
            ], offset: 0, slots: 2, style: style)
        let lines = script.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, "the last sample changes nothing: \(script)")
        XCTAssertTrue(
            lines[0].hasPrefix("0.000 [enter] drawbox@b0 x 10, [enter] drawbox@b0 y 100, [enter] drawbox@b0 w 50, [enter] drawbox@b0 h 120, "))
        XCTAssertTrue(lines[0].contains("drawtext@t1 reinit text=person\\ 0.87:x=max(0\\,min("), lines[0])
        XCTAssertTrue(lines[1].hasSuffix("[enter] drawbox@b1 x -100000, [enter] drawtext@t1 reinit x=-100000;"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("0.400 [enter] drawbox@b0 x -100000"), lines[2])
        // A clip's script is shifted to its own start.
        XCTAssertTrue(BoxOverlay.commands([.init(second: 12.5, boxes: [box])], offset: 12.5, slots: 1, style: style).hasPrefix("0.000 "))
    }

    func testCaptionsStayOneTokenWhateverTheLabel() {
        HostileNames.check("box captions", count: 150, includingNUL: true) { label in
            let box = BoxOverlay.Box(left: 0, top: 0, width: 5, height: 5, text: "\(DisplayText.isolated(label)) 0.50")
            let script = BoxOverlay.commands([.init(second: 1, boxes: [box]), .init(second: 2, boxes: [])], offset: 0, slots: 1, style: style)
            let lines = script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard lines.count == 3, lines[2].isEmpty else { return "\(lines.count - 1) command lines, not 2" }
            guard lines[1] == "2.000 [enter] drawbox@b0 x -100000, [enter] drawtext@t0 reinit x=-100000;" else { return "the next line changed" }
            if lines[0].unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                return "a control character reaches the script"
            }
            // The caption's token: everything after "reinit " up to the final ";", with no unescaped separator.
            guard let range = lines[0].range(of: "drawtext@t0 reinit ") else { return "no caption command" }
            var escaping = false
            for character in lines[0][range.upperBound...].dropLast() {
                if escaping { escaping = false; continue }
                if character == "\\" { escaping = true; continue }
                if [",", ";", "[", "]", "'", " "].contains(character) { return "an unescaped \(character) splits the caption" }
            }
            return nil
        }
    }
}
