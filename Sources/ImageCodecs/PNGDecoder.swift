import CPNGShim

/// PNG decoding through libpng (the only Swift file that calls the PNG shim).
///
/// The file streams through the shim 64 KB at a time and libpng hands over 8-bit RGBA rows whatever the file
/// holds; this file composites them onto white and box-reduces them by an integer factor as they arrive, keeping
/// only the region the options ask for. Memory is one row plus the kept region, interlaced or not.
enum PNGDecoder {
    private static let errorCapacity = 256

    /// Where the compressed bytes come from.
    enum Source {
        /// An open file, read from its current offset.
        case file(descriptor: Int32)
        /// Bytes in memory, which must stay alive for the whole decode.
        case memory(UnsafeBufferPointer<UInt8>)
    }

    /// Decodes a PNG, checking the pixel limit from the header before anything large is allocated.
    static func decode(from source: Source, path: String, options: DecodeOptions) throws(ImageError) -> RGBImage {
        var message = [CChar](repeating: 0, count: errorCapacity)
        var header = png_shim_header()
        let reader = try open(source, path: path, header: &header, message: &message)
        defer { png_shim_close(reader) }

        let width = Int(header.width), height = Int(header.height)
        try DecodeScale.checkPixelLimit(width: width, height: height, options: options, path: path)
        guard png_shim_start_rgba(reader, &message, Int32(errorCapacity)) == 0 else {
            throw corrupt(path: path, message: message)
        }
        let factor = DecodeScale.boxReductionFactor(width: width, height: height, options: options)
        let region = DecodeRegion(
            storedWidth: width / factor, storedHeight: height / factor, orientation: .upright,
            options: options)
        var reducer = RegionReducer(factor: factor, region: region)
        var row = [UInt8](repeating: 0, count: width * 4)
        // Interlaced rows come in seven passes, each filling some pixels of some rows; the sums don't mind the order.
        for pass in header.is_interlaced != 0 ? Adam7Pass.all : [Adam7Pass.whole] {
            for y in 0..<height {
                let status = row.withUnsafeMutableBufferPointer {
                    png_shim_read_row(reader, $0.baseAddress, &message, Int32(errorCapacity))
                }
                guard status == 0 else { throw corrupt(path: path, message: message) }
                guard pass.containsRow(y) else { continue }
                row.withUnsafeBufferPointer {
                    reducer.add(rgbaRow: $0.baseAddress!, y: y, firstColumn: pass.firstColumn, columnStep: pass.columnStep)
                }
            }
        }
        return region.finish(reducer.image, orientation: .upright)
    }

    /// The picture's size from its IHDR alone (no pixel data decoded; PNG has no orientation tag here), with the
    /// pixel limits checked as a decode would check them.
    static func displayedSize(from source: Source, path: String, options: DecodeOptions) throws(ImageError) -> ImageSize {
        var message = [CChar](repeating: 0, count: errorCapacity)
        var header = png_shim_header()
        let reader = try open(source, path: path, header: &header, message: &message)
        defer { png_shim_close(reader) }
        let width = Int(header.width), height = Int(header.height)
        try DecodeScale.checkPixelLimit(width: width, height: height, options: options, path: path)
        return ImageSize(width: width, height: height)
    }

    /// Opens a reader on `source` and reads its header into `header`: what a decode and a size query share. The
    /// caller closes it.
    private static func open(
        _ source: Source, path: String, header: inout png_shim_header,
        message: inout [CChar]
    ) throws(ImageError) -> OpaquePointer {
        let opened: OpaquePointer?
        switch source {
        case .file(let descriptor):
            opened = png_shim_open_file(descriptor, &header, &message, Int32(errorCapacity))
        case .memory(let bytes):
            opened = png_shim_open(bytes.baseAddress, bytes.count, &header, &message, Int32(errorCapacity))
        }
        guard let reader = opened else { throw corrupt(path: path, message: message) }
        return reader
    }

    private static func corrupt(path: String, message: [CChar]) -> ImageError {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return ImageError(path: path, reason: "truncated or corrupt PNG data: \(text)")
    }
}

/// One pass of the Adam7 interlace (PNG specification, 8.2): the pixels `(firstColumn + i·columnStep,
/// firstRow + j·rowStep)`. A non-interlaced image is one pass over every pixel.
struct Adam7Pass {
    let firstColumn: Int, columnStep: Int, firstRow: Int, rowStep: Int

    /// The seven passes, in file order.
    static let all = [
        Adam7Pass(firstColumn: 0, columnStep: 8, firstRow: 0, rowStep: 8),
        Adam7Pass(firstColumn: 4, columnStep: 8, firstRow: 0, rowStep: 8),
        Adam7Pass(firstColumn: 0, columnStep: 4, firstRow: 4, rowStep: 8),
        Adam7Pass(firstColumn: 2, columnStep: 4, firstRow: 0, rowStep: 4),
        Adam7Pass(firstColumn: 0, columnStep: 2, firstRow: 2, rowStep: 4),
        Adam7Pass(firstColumn: 1, columnStep: 2, firstRow: 0, rowStep: 2),
        Adam7Pass(firstColumn: 0, columnStep: 1, firstRow: 1, rowStep: 2),
    ]
    /// Every pixel once.
    static let whole = Adam7Pass(firstColumn: 0, columnStep: 1, firstRow: 0, rowStep: 1)

    func containsRow(_ y: Int) -> Bool { y >= firstRow && (y - firstRow) % rowStep == 0 }
}

/// Composites RGBA pixels onto white and averages f × f blocks into the kept region, as pixels stream in.
///
/// Input: pixels of a `W × H` RGBA image, in any order, each once. Output: the region (in reduced coordinates)
/// of the `floor(W/f) × floor(H/f)` reduced image, RGB; the last `W mod f` columns and `H mod f` rows are dropped.
/// Memory: the region (one byte a sample when f = 1, four bytes of sums otherwise), taken when the first pixel
/// of it arrives, so a header that promises what the data does not hold costs nothing.
struct RegionReducer {
    let factor: Int
    let region: DecodeRegion
    private var sums: [UInt32] = []
    private var pixels: [UInt8] = []
    /// The full-resolution columns and rows that fall in the region.
    private let columns: Range<Int>
    private let rows: Range<Int>

    init(factor: Int, region: DecodeRegion) {
        precondition(factor >= 1)
        self.factor = factor
        self.region = region
        columns = (region.left * factor)..<((region.left + region.width) * factor)
        rows = (region.top * factor)..<((region.top + region.height) * factor)
    }

    /// The region's pixels; complete once every input pixel was added.
    var image: RGBImage {
        let count = region.width * region.height * 3
        guard factor > 1 else {
            return RGBImage(width: region.width, height: region.height, pixels: pixels.isEmpty ? [UInt8](repeating: 0, count: count) : pixels)
        }
        let blockSize = UInt32(factor * factor)
        let averages = sums.isEmpty ? [UInt8](repeating: 0, count: count) : sums.map { UInt8(($0 + blockSize / 2) / blockSize) }
        return RGBImage(width: region.width, height: region.height, pixels: averages)
    }

    /// Adds the pixels `firstColumn + k · columnStep` of input row `y` (`W * 4` bytes, RGBA).
    mutating func add(rgbaRow row: UnsafePointer<UInt8>, y: Int, firstColumn: Int, columnStep: Int) {
        guard rows.contains(y), !columns.isEmpty else { return }
        if factor > 1 && sums.isEmpty { sums = [UInt32](repeating: 0, count: region.width * region.height * 3) }
        if factor == 1 && pixels.isEmpty { pixels = [UInt8](repeating: 0, count: region.width * region.height * 3) }
        let skipped = max(0, columns.lowerBound - firstColumn)
        let start = firstColumn + (skipped + columnStep - 1) / columnStep * columnStep
        guard start < columns.upperBound else { return }
        let (factor, regionLeft, regionWidth) = (self.factor, region.left, region.width)
        let outputRow = y / factor - region.top
        let end = columns.upperBound
        // Plain while loops, the blend written out and no division per pixel: this runs for every pixel of every
        // image, and must stay fast even in debug builds, where calls and `stride` are not optimised away.
        if factor == 1 {
            let rowStart = outputRow * regionWidth * 3 - columns.lowerBound * 3
            pixels.withUnsafeMutableBufferPointer { pixels in
                var x = start
                while x < end {
                    let source = row + 4 * x, target = rowStart + x * 3
                    let alpha = UInt32(source[3])
                    if alpha == 255 {
                        pixels[target] = source[0]
                        pixels[target + 1] = source[1]
                        pixels[target + 2] = source[2]
                    } else {
                        let white = 255 * (255 - alpha) + 127
                        pixels[target] = UInt8((UInt32(source[0]) * alpha + white) / 255)
                        pixels[target + 1] = UInt8((UInt32(source[1]) * alpha + white) / 255)
                        pixels[target + 2] = UInt8((UInt32(source[2]) * alpha + white) / 255)
                    }
                    x += columnStep
                }
            }
        } else {
            sums.withUnsafeMutableBufferPointer { sums in
                var x = start
                var target = (outputRow * regionWidth + (x / factor - regionLeft)) * 3
                var blockEnd = (x / factor + 1) * factor
                while x < end {
                    if x >= blockEnd {
                        let blocks = (x - blockEnd) / factor + 1
                        target += 3 * blocks
                        blockEnd += factor * blocks
                    }
                    let source = row + 4 * x
                    let alpha = UInt32(source[3])
                    if alpha == 255 {
                        sums[target] &+= UInt32(source[0])
                        sums[target + 1] &+= UInt32(source[1])
                        sums[target + 2] &+= UInt32(source[2])
                    } else {
                        let white = 255 * (255 - alpha) + 127
                        sums[target] &+= (UInt32(source[0]) * alpha + white) / 255
                        sums[target + 1] &+= (UInt32(source[1]) * alpha + white) / 255
                        sums[target + 2] &+= (UInt32(source[2]) * alpha + white) / 255
                    }
                    x += columnStep
                }
            }
        }
    }
}
