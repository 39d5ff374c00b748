import CJPEGShim

/// PNG decoding through libpng (the only Swift file that calls the PNG shim).
///
/// libpng hands over 8-bit RGBA rows whatever the file holds; this file composites them onto white and
/// box-reduces them by an integer factor as they arrive, so a non-interlaced image needs memory for one row and
/// the reduced result, not for its full area.
enum PNGDecoder {
    private static let errorCapacity = 256

    /// Decodes a PNG, checking the pixel limit from the header before anything large is allocated.
    static func decode(bytes: [UInt8], path: String, options: DecodeOptions) throws(ImageError) -> RGBImage {
        // IHDR must be the first chunk; reading it here refuses a huge image before libpng allocates anything.
        if bytes.count >= 24, bytes[12...15].elementsEqual(Array("IHDR".utf8)) {
            try DecodeScale.checkPixelLimit(width: bigEndian32(bytes, 16), height: bigEndian32(bytes, 20),
                                            options: options, path: path)
        }
        var message = [CChar](repeating: 0, count: errorCapacity)
        return try bytes.withUnsafeBufferPointer { data throws(ImageError) -> RGBImage in
            var header = png_shim_header()
            guard let reader = png_shim_open(data.baseAddress, data.count, &header, &message, Int32(errorCapacity))
            else { throw corrupt(path: path, message: message) }
            defer { png_shim_close(reader) }

            let width = Int(header.width), height = Int(header.height)
            try DecodeScale.checkPixelLimit(width: width, height: height, options: options, path: path)
            guard png_shim_start_rgba(reader, &message, Int32(errorCapacity)) == 0 else {
                throw corrupt(path: path, message: message)
            }
            let factor = DecodeScale.boxReductionFactor(width: width, height: height,
                                                        minimumCropSide: options.minimumCropSide)
            var reducer = BoxReducer(width: width, height: height, factor: factor)
            if header.is_interlaced != 0 {
                // Interlaced passes fill rows out of order, so the whole image is needed (bounded by the limit).
                var image = [UInt8](repeating: 0, count: width * height * 4)
                let status = image.withUnsafeMutableBufferPointer {
                    png_shim_read_image(reader, $0.baseAddress, &message, Int32(errorCapacity))
                }
                guard status == 0 else { throw corrupt(path: path, message: message) }
                image.withUnsafeBufferPointer { all in
                    for row in 0..<height { reducer.add(rgbaRow: all.baseAddress! + row * width * 4) }
                }
            } else {
                var row = [UInt8](repeating: 0, count: width * 4)
                for _ in 0..<height {
                    let status = row.withUnsafeMutableBufferPointer {
                        png_shim_read_row(reader, $0.baseAddress, &message, Int32(errorCapacity))
                    }
                    guard status == 0 else { throw corrupt(path: path, message: message) }
                    row.withUnsafeBufferPointer { reducer.add(rgbaRow: $0.baseAddress!) }
                }
            }
            return reducer.image
        }
    }

    private static func bigEndian32(_ bytes: [UInt8], _ offset: Int) -> Int {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func corrupt(path: String, message: [CChar]) -> ImageError {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return ImageError(path: path, reason: "truncated or corrupt PNG data: \(text)")
    }
}

/// Composites RGBA rows onto white and averages f × f blocks as rows stream in.
///
/// Input rows: `width` RGBA pixels. Output: `floor(width/f) × floor(height/f)` RGB; the last `width mod f` columns
/// and `height mod f` rows are dropped. Memory: one row of sums plus the output.
struct BoxReducer {
    let width: Int
    let factor: Int
    let outputWidth: Int
    let outputHeight: Int
    private var sums: [UInt32]
    private var pixels: [UInt8]
    private var rowsInBlock = 0
    private var outputRow = 0

    init(width: Int, height: Int, factor: Int) {
        precondition(factor >= 1)
        self.width = width
        self.factor = factor
        outputWidth = width / factor
        outputHeight = height / factor
        sums = [UInt32](repeating: 0, count: outputWidth * 3)
        pixels = [UInt8](repeating: 0, count: outputWidth * outputHeight * 3)
    }

    /// The reduced image; complete once every input row was added.
    var image: RGBImage { RGBImage(width: outputWidth, height: outputHeight, pixels: pixels) }

    /// Adds the next input row (`width * 4` bytes, RGBA).
    mutating func add(rgbaRow row: UnsafePointer<UInt8>) {
        guard outputRow < outputHeight else { return }
        let (factor, usedWidth) = (self.factor, outputWidth * self.factor)
        sums.withUnsafeMutableBufferPointer { sums in
            for x in 0..<usedWidth {
                let alpha = UInt32(row[4 * x + 3])
                let target = (x / factor) * 3
                for channel in 0..<3 {
                    let value = UInt32(row[4 * x + channel])
                    // Alpha blend over white (255), rounded.
                    sums[target + channel] += alpha == 255 ? value : (value * alpha + 255 * (255 - alpha) + 127) / 255
                }
            }
        }
        rowsInBlock += 1
        guard rowsInBlock == factor else { return }
        let count = UInt32(factor * factor)
        let start = outputRow * outputWidth * 3
        pixels.withUnsafeMutableBufferPointer { pixels in
            sums.withUnsafeMutableBufferPointer { sums in
                for index in 0..<sums.count {
                    pixels[start + index] = UInt8((sums[index] + count / 2) / count)
                    sums[index] = 0
                }
            }
        }
        rowsInBlock = 0
        outputRow += 1
    }
}
