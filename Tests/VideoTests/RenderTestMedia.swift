import Foundation
@testable import Video
import XCTest

/// Videos whose frames say their own number, and frames read back, for the rendering tests (sync, trace).
enum RenderTestMedia {
    /// The frame size of a numbered video.
    static let width = 96, height = 64
    /// Eight blocks 12 pixels wide on rows 28–51, white for a set bit (bit 0 at the left): the frame's number.
    static let blockTop = 28, blockBottom = 52, blockWidth = 12

    /// Writes a numbered video of `frames` frames at `rate` (H.264, near lossless), with a 440 Hz tone when `audio`.
    static func numberedVideo(_ path: String, frames: Int, rate: String, audio: Bool = false, folder: String) throws {
        var bytes = [UInt8](repeating: 96, count: width * height * 3 * frames)
        for frame in 0..<frames {
            for bit in 0..<8 where frame & (1 << bit) != 0 {
                for row in blockTop..<blockBottom {
                    for column in bit * blockWidth..<(bit + 1) * blockWidth {
                        let index = ((frame * height + row) * width + column) * 3
                        bytes[index] = 255
                        bytes[index + 1] = 255
                        bytes[index + 2] = 255
                    }
                }
            }
            for bit in 0..<8 where frame & (1 << bit) == 0 {
                for row in blockTop..<blockBottom {
                    for column in bit * blockWidth..<(bit + 1) * blockWidth {
                        let index = ((frame * height + row) * width + column) * 3
                        bytes[index] = 0
                        bytes[index + 1] = 0
                        bytes[index + 2] = 0
                    }
                }
            }
        }
        let raw = folder + "/\(UUID().uuidString).rgb"
        try Data(bytes).write(to: URL(fileURLWithPath: raw))
        defer { try? FileManager.default.removeItem(atPath: raw) }
        var arguments = ["-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "\(width)x\(height)", "-r", rate, "-i", raw]
        if audio { arguments += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-shortest", "-c:a", "aac"] }
        arguments += ["-c:v", "libx264", "-preset", "veryfast", "-crf", "8", "-pix_fmt", "yuv420p", path]
        try ffmpeg(arguments)
    }

    /// Every frame of `path` as RGB24, with its size.
    static func frames(of path: String, folder: String) throws -> (width: Int, height: Int, frames: [[UInt8]]) {
        let tools = try requireTools()
        let probe = try VideoProbe.probe(path: path, tools: tools)
        let raw = folder + "/\(UUID().uuidString).rgb"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        // Every frame the file holds, none duplicated to fill a start the sound sets earlier.
        try ffmpeg(["-i", path, "-vsync", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", raw])
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let size = probe.width * probe.height * 3
        return (probe.width, probe.height, stride(from: 0, to: data.count - size + 1, by: size).map { Array(data[$0..<$0 + size]) })
    }

    /// The number a numbered frame shows at column offset `left` of a frame `frameWidth` wide.
    static func number(in frame: [UInt8], frameWidth: Int, left: Int = 0, top: Int = 0) -> Int {
        var value = 0
        for bit in 0..<8 {
            let index = (((top + (blockTop + blockBottom) / 2) * frameWidth) + left + bit * blockWidth + blockWidth / 2) * 3
            let brightness = (Int(frame[index]) + Int(frame[index + 1]) + Int(frame[index + 2])) / 3
            if brightness > 128 { value |= 1 << bit }
        }
        return value
    }

    /// The pixel at (x, y).
    static func pixel(_ frame: [UInt8], frameWidth: Int, _ x: Int, _ y: Int) -> (Int, Int, Int) {
        let index = (y * frameWidth + x) * 3
        return (Int(frame[index]), Int(frame[index + 1]), Int(frame[index + 2]))
    }
}
