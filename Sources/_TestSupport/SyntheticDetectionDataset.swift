import FileFormats
import Foundation
import ImageCodecs

/// A tiny object-detection dataset made at run time: red squares and blue discs on noisy grey backgrounds, written
/// as PNG pictures with Create ML's `annotations.json` (box centre, width and height in pixels). Small and easy on
/// purpose: a frozen-backbone head learns it in seconds, so a test can assert a mAP far above chance.
public enum SyntheticDetectionDataset {
    /// The labels, in the order the generator picks them.
    public static let labels = ["square", "disc"]

    /// One picture's boxes as written: label and centre-based box in pixels.
    public struct Box: Sendable, Equatable {
        /// "square" or "disc".
        public var label: String
        /// The box's centre, width and height in pixels, as annotations.json states them.
        public var centerX: Double, centerY: Double, width: Double, height: Double
    }

    /// One picture's entry in Create ML's `annotations.json`.
    private struct Picture: Encodable {
        struct Annotation: Encodable {
            struct Coordinates: Encodable { var x, y, width, height: Double }
            var label: String
            var coordinates: Coordinates
        }
        var image: String
        var annotations: [Annotation]
    }

    /// Writes `count` pictures of `side × side` pixels into `folder` (created if needed) with `annotations.json`;
    /// every picture holds one or two objects whose sides are 25–40 % of the picture. Returns the boxes by file name.
    @discardableResult
    public static func write(to folder: URL, count: Int, side: Int = 160, seed: UInt64) throws -> [String: [Box]] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var state = seed &+ 0x9e37_79b9_7f4a_7c15
        func next() -> UInt64 {
            state &+= 0x9e37_79b9_7f4a_7c15
            var value = state
            value = (value ^ (value >> 30)) &* 0xbf58_476d_1ce4_e5b9
            value = (value ^ (value >> 27)) &* 0x94d0_49bb_1331_11eb
            return value ^ (value >> 31)
        }
        func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
        var all: [String: [Box]] = [:]
        var entries: [Picture] = []
        for index in 0..<count {
            let base = 90 + Int(unit() * 80)
            var pixels = [UInt8](repeating: 0, count: side * side * 3)
            for offset in pixels.indices { pixels[offset] = UInt8(max(0, min(255, base + Int(unit() * 60) - 30))) }
            var boxes: [Box] = []
            let objects = 1 + Int(unit() * 2)
            for object in 0..<objects {
                let label = labels[Int(unit() * Double(labels.count)) % labels.count]
                let size = Double(side) * (0.25 + 0.15 * unit())
                // Two objects sit in opposite halves so they never overlap.
                let half = Double(side) / Double(objects)
                let left = Double(object) * half + unit() * max(0, half - size)
                let top = unit() * (Double(side) - size)
                let (x0, y0, x1, y1) = (Int(left), Int(top), Int(left + size), Int(top + size))
                let (centreX, centreY, radius) = (left + size / 2, top + size / 2, size / 2)
                for y in max(0, y0)..<min(side, y1) {
                    for x in max(0, x0)..<min(side, x1) {
                        if label == "disc" {
                            let dx = Double(x) + 0.5 - centreX, dy = Double(y) + 0.5 - centreY
                            if dx * dx + dy * dy > radius * radius { continue }
                        }
                        let at = (y * side + x) * 3
                        let colour: [UInt8] = label == "disc" ? [30, 60, 220] : [220, 40, 30]
                        for channel in 0..<3 { pixels[at + channel] = colour[channel] }
                    }
                }
                boxes.append(
                    Box(
                        label: label, centerX: Double(x0 + x1) / 2, centerY: Double(y0 + y1) / 2,
                        width: Double(x1 - x0), height: Double(y1 - y0)))
            }
            let name = String(format: "picture-%03d.png", index)
            let bytes = try PNGEncoder.encode(RGBImage(width: side, height: side, pixels: pixels), name: name)
            try Data(bytes).write(to: folder.appendingPathComponent(name))
            all[name] = boxes
            entries.append(
                Picture(
                    image: name,
                    annotations: boxes.map {
                        .init(label: $0.label, coordinates: .init(x: $0.centerX, y: $0.centerY, width: $0.width, height: $0.height))
                    }))
        }
        try Data((JSONWriter.text(entries, layout: .line) + "\n").utf8).write(to: folder.appendingPathComponent("annotations.json"))
        return all
    }

    /// Writes the picture at `source` mirrored left to right as a PNG at `destination`, for tests of `--tta`.
    public static func writeMirror(of source: URL, to destination: URL) throws {
        let image = try ImageLoader.load(path: source.path)
        var pixels = image.pixels
        for y in 0..<image.height {
            for x in 0..<image.width {
                for channel in 0..<3 {
                    pixels[(y * image.width + x) * 3 + channel] = image.pixels[(y * image.width + image.width - 1 - x) * 3 + channel]
                }
            }
        }
        let bytes = try PNGEncoder.encode(RGBImage(width: image.width, height: image.height, pixels: pixels), name: destination.path)
        try Data(bytes).write(to: destination)
    }
}
