/// The EXIF orientation tag (0x0112): how the stored pixels must be turned to be seen upright.
enum EXIFOrientation: Int, Sendable {
    case upright = 1, mirrored = 2, rotated180 = 3, flipped = 4
    case transposed = 5, rotatedClockwise = 6, transversed = 7, rotatedCounterclockwise = 8

    /// Finds the orientation in the TIFF structure of an EXIF APP1 payload (after "Exif\0\0").
    /// Anything malformed or missing reads as upright: a broken tag must not make a good image unreadable.
    init(tiff bytes: [UInt8]) {
        self = .upright
        guard bytes.count >= 8 else { return }
        let littleEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return
        }
        func read16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= bytes.count else { return nil }
            let (a, b) = (Int(bytes[offset]), Int(bytes[offset + 1]))
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func read32(_ offset: Int) -> Int? {
            guard let low = read16(littleEndian ? offset : offset + 2),
                let high = read16(littleEndian ? offset + 2 : offset)
            else { return nil }
            return low | high << 16
        }
        guard read16(2) == 42, let directory = read32(4), let entryCount = read16(directory) else { return }
        for index in 0..<entryCount {
            let entry = directory + 2 + index * 12
            guard let tag = read16(entry) else { return }
            // Orientation is a SHORT stored in the first two bytes of the value field.
            if tag == 0x0112, read16(entry + 2) == 3, let value = read16(entry + 8),
                let orientation = EXIFOrientation(rawValue: value)
            {
                self = orientation
                return
            }
        }
    }

    /// Whether turning upright exchanges width and height (orientations 5–8).
    var swapsAxes: Bool { rawValue >= 5 }

    /// Returns the image turned upright.
    func apply(to image: RGBImage) -> RGBImage {
        if self == .upright { return image }
        let (width, height) = (image.width, image.height)
        let outputWidth = swapsAxes ? height : width
        let outputHeight = swapsAxes ? width : height
        var pixels = [UInt8](repeating: 0, count: image.pixels.count)
        image.pixels.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { destination in
                for outputY in 0..<outputHeight {
                    for outputX in 0..<outputWidth {
                        let (sourceX, sourceY) = sourcePosition(outputX, outputY, width: width, height: height)
                        let from = (sourceY * width + sourceX) * 3
                        let to = (outputY * outputWidth + outputX) * 3
                        destination[to] = source[from]
                        destination[to + 1] = source[from + 1]
                        destination[to + 2] = source[from + 2]
                    }
                }
            }
        }
        return RGBImage(width: outputWidth, height: outputHeight, pixels: pixels)
    }

    /// Where output pixel (x, y) comes from in the stored `width × height` image.
    func sourcePosition(_ x: Int, _ y: Int, width: Int, height: Int) -> (Int, Int) {
        switch self {
        case .upright: return (x, y)
        case .mirrored: return (width - 1 - x, y)
        case .rotated180: return (width - 1 - x, height - 1 - y)
        case .flipped: return (x, height - 1 - y)
        case .transposed: return (y, x)
        case .rotatedClockwise: return (y, height - 1 - x)
        case .transversed: return (width - 1 - y, height - 1 - x)
        case .rotatedCounterclockwise: return (width - 1 - y, x)
        }
    }
}
