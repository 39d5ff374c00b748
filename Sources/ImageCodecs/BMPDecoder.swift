#if canImport(Glibc)
    import Glibc
#endif

/// BMP decoding by hand (the format needs no library): Windows bitmaps with any of the usual headers (OS/2 core,
/// BITMAPINFOHEADER, V4, V5), 1-, 4- and 8-bit palettes (run-length encoded or not), 16-bit 5-5-5, 24-bit BGR,
/// 32-bit BGRX, and 16- or 32-bit bit fields, with alpha when the header gives an alpha mask. Embedded JPEG/PNG
/// bitmaps are refused with their name.
///
/// The header is read first and the pixel limit checked before anything is allocated; rows then stream from the
/// file 64 KB at a time (bottom-up or top-down, as stored) into the same compositing and reduction as a PNG's rows
/// (`RegionReducer`), so memory is a few rows plus the kept region. A run-length encoded bitmap (RLE8, RLE4) can
/// jump between rows, so its palette indices are expanded into one byte a pixel first (pixels it never sets are
/// index 0, as Pillow leaves them).
enum BMPDecoder {
    /// What the file and DIB headers say.
    struct Header {
        var width: Int
        var height: Int
        /// Rows are stored bottom row first (a positive height in the file).
        var bottomUp: Bool
        var bitsPerPixel: Int
        /// Where the pixel rows start, from the start of the file.
        var pixelOffset: Int
        /// Bytes per stored row (padded to 4).
        var rowBytes: Int
        /// The palette for 1-, 4- and 8-bit images, as RGB triples.
        var palette: [(UInt8, UInt8, UInt8)]
        /// Red, green, blue and alpha masks of 16- and 32-bit pixels (alpha 0: opaque).
        var masks: (red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32)
        /// 1 for RLE8, 2 for RLE4, 0 or 3 (bit fields) for plain rows.
        var compression: Int
    }

    /// Decodes a BMP, checking the pixel limit from its header before anything large is allocated.
    static func decode(from source: CompressedSource, path: String, options: DecodeOptions) throws(ImageError) -> RGBImage {
        var reader = ByteReader(source: source)
        let header = try readHeader(&reader, path: path, options: options)
        if header.compression == 1 || header.compression == 2 {
            return try decodeRunLength(&reader, header: header, path: path, options: options)
        }
        let (width, height) = (header.width, header.height)
        let factor = DecodeScale.boxReductionFactor(width: width, height: height, options: options)
        let region = DecodeRegion(
            storedWidth: width / factor, storedHeight: height / factor, orientation: .upright,
            options: options)
        var reducer = RegionReducer(factor: factor, region: region)
        let rowsPerChunk = max(1, 65_536 / header.rowBytes)
        var chunk = [UInt8](repeating: 0, count: rowsPerChunk * header.rowBytes)
        var rgba = [UInt8](repeating: 0, count: width * 4)
        var fileRow = 0
        while fileRow < height {
            let rows = min(rowsPerChunk, height - fileRow)
            let wanted = rows * header.rowBytes
            let got = try reader.read(into: &chunk, count: wanted, at: header.pixelOffset + fileRow * header.rowBytes, path: path)
            guard got == wanted else {
                throw ImageError(
                    path: path,
                    reason: "truncated or corrupt BMP data: the pixel rows end early "
                        + "(row \(fileRow + got / header.rowBytes + 1) of \(height))")
            }
            for row in 0..<rows {
                convert(row: chunk, start: row * header.rowBytes, header: header, into: &rgba)
                let y = header.bottomUp ? height - 1 - (fileRow + row) : fileRow + row
                rgba.withUnsafeBufferPointer { reducer.add(rgbaRow: $0.baseAddress!, y: y, firstColumn: 0, columnStep: 1) }
            }
            fileRow += rows
        }
        return region.finish(reducer.image, orientation: .upright)
    }

    /// The size from the header alone (BMP has no orientation), the pixel limits checked as a decode checks them.
    static func displayedSize(from source: CompressedSource, path: String, options: DecodeOptions) throws(ImageError) -> ImageSize {
        var reader = ByteReader(source: source)
        let header = try readHeader(&reader, path: path, options: options)
        return ImageSize(width: header.width, height: header.height)
    }

    /// Reads and checks the file header, the DIB header, the bit masks and the palette.
    static func readHeader(_ reader: inout ByteReader, path: String, options: DecodeOptions) throws(ImageError) -> Header {
        func corrupt(_ why: String) -> ImageError { ImageError(path: path, reason: "truncated or corrupt BMP data: \(why)") }
        var bytes = [UInt8](repeating: 0, count: 14 + 124)
        let got = try reader.read(into: &bytes, count: bytes.count, at: 0, path: path)
        guard got >= 18, bytes[0] == 0x42, bytes[1] == 0x4D else { throw corrupt("the header is cut short") }
        func u16(_ offset: Int) -> Int { Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 }
        func u32(_ offset: Int) -> UInt32 {
            UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
        }
        let pixelOffset = Int(u32(10))
        let dibSize = Int(u32(14))
        guard [12, 16, 40, 52, 56, 64, 108, 124].contains(dibSize) else {
            throw corrupt("unknown DIB header of \(dibSize) bytes")
        }
        guard got >= 14 + min(dibSize, 40) else { throw corrupt("the header is cut short") }
        let width: Int, signedHeight: Int, bitsPerPixel: Int
        var compression = 0, colorsUsed = 0
        if dibSize == 12 {
            (width, signedHeight, bitsPerPixel) = (u16(18), u16(20), u16(24))
        } else {
            width = Int(Int32(bitPattern: u32(18)))
            signedHeight = Int(Int32(bitPattern: u32(22)))
            bitsPerPixel = u16(28)
            compression = Int(u32(30))
            colorsUsed = Int(u32(46))
        }
        let height = signedHeight == Int(Int32.min) ? Int(Int32.max) : abs(signedHeight)
        try DecodeScale.checkPixelLimit(width: width, height: height, options: options, path: path)
        switch compression {
        case 0, 3, 6: break
        case 1 where bitsPerPixel == 8 && signedHeight > 0, 2 where bitsPerPixel == 4 && signedHeight > 0: break
        case 1, 2: throw corrupt("run-length encoding on a \(bitsPerPixel)-bit\(signedHeight < 0 ? " top-down" : "") image")
        case 4: throw ImageError(path: path, reason: "BMP holding a JPEG is not supported")
        case 5: throw ImageError(path: path, reason: "BMP holding a PNG is not supported")
        default: throw corrupt("unknown compression \(compression)")
        }
        guard [1, 4, 8, 16, 24, 32].contains(bitsPerPixel) else { throw corrupt("\(bitsPerPixel) bits a pixel") }
        var masks: (red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32) =
            bitsPerPixel == 16 ? (0x7C00, 0x03E0, 0x001F, 0) : (0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0)
        var paletteOffset = 14 + dibSize
        if compression == 3 || compression == 6 {
            guard bitsPerPixel == 16 || bitsPerPixel == 32 else { throw corrupt("bit fields on a \(bitsPerPixel)-bit image") }
            // A 40-byte header is followed by the masks; the larger headers hold them.
            let maskOffset = 14 + 40
            let maskCount = dibSize > 40 ? (dibSize >= 56 ? 4 : 3) : (compression == 6 ? 4 : 3)
            if dibSize == 40 { paletteOffset += maskCount * 4 }
            guard got >= maskOffset + maskCount * 4 else { throw corrupt("the bit masks are cut short") }
            masks = (u32(maskOffset), u32(maskOffset + 4), u32(maskOffset + 8), maskCount == 4 ? u32(maskOffset + 12) : 0)
            guard masks.red != 0 || masks.green != 0 || masks.blue != 0 else { throw corrupt("empty bit masks") }
        }
        var palette: [(UInt8, UInt8, UInt8)] = []
        if bitsPerPixel <= 8 {
            let entries = colorsUsed > 0 && colorsUsed <= 1 << bitsPerPixel ? colorsUsed : 1 << bitsPerPixel
            let entryBytes = dibSize == 12 ? 3 : 4
            var table = [UInt8](repeating: 0, count: entries * entryBytes)
            let read = try reader.read(into: &table, count: table.count, at: paletteOffset, path: path)
            guard read == table.count else { throw corrupt("the palette is cut short") }
            palette = (0..<entries).map { (table[$0 * entryBytes + 2], table[$0 * entryBytes + 1], table[$0 * entryBytes]) }
        }
        let (rowBits, overflow) = width.multipliedReportingOverflow(by: bitsPerPixel)
        guard !overflow else { throw corrupt("rows too long") }
        return Header(
            width: width, height: height, bottomUp: signedHeight > 0, bitsPerPixel: bitsPerPixel,
            pixelOffset: pixelOffset, rowBytes: (rowBits + 31) / 32 * 4, palette: palette, masks: masks,
            compression: compression)
    }

    /// A run-length encoded bitmap (BMP specification: RLE8 pairs of count and index, RLE4 of count and two
    /// alternating indices; a zero count escapes to end of row, end of bitmap, a jump, or a literal run padded to 16
    /// bits), expanded to indices, then streamed bottom-up into the reduction like plain rows.
    private static func decodeRunLength(
        _ reader: inout ByteReader, header: Header, path: String,
        options: DecodeOptions
    ) throws(ImageError) -> RGBImage {
        let (width, height) = (header.width, header.height)
        let isRLE4 = header.compression == 2
        // A whole-image buffer, like the other formats' RGBA: shared with the other decodes (`DecoderMemoryBudget`).
        let reserved = DecoderMemoryBudget.shared.reserve(width * height)
        defer { DecoderMemoryBudget.shared.release(reserved) }
        var indices = [UInt8](repeating: 0, count: width * height)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var chunkStart = header.pixelOffset, chunkCount = 0, position = 0
        func next() throws(ImageError) -> UInt8 {
            if position == chunkCount {
                chunkStart += chunkCount
                chunkCount = try reader.read(into: &chunk, count: chunk.count, at: chunkStart, path: path)
                position = 0
                guard chunkCount > 0 else {
                    throw ImageError(path: path, reason: "truncated or corrupt BMP data: the run-length data ends early")
                }
            }
            position += 1
            return chunk[position - 1]
        }
        // x, y in stored order: y = 0 is the bottom row.
        var x = 0, y = 0
        func put(_ index: UInt8) {
            if x < width && y < height { indices[y * width + x] = index }
            x += 1
        }
        decoding: while y < height {
            let count = Int(try next()), value = try next()
            if count > 0 {
                for step in 0..<count { put(isRLE4 ? (step % 2 == 0 ? value >> 4 : value & 0x0F) : value) }
                continue
            }
            switch value {
            case 0: (x, y) = (0, y + 1)
            case 1: break decoding
            case 2:
                let dx = Int(try next()), dy = Int(try next())
                (x, y) = (x + dx, y + dy)
            default:
                let literal = Int(value)
                let bytes = isRLE4 ? (literal + 1) / 2 : literal
                var byte: UInt8 = 0
                for step in 0..<literal {
                    if !isRLE4 {
                        put(try next())
                    } else {
                        if step % 2 == 0 { byte = try next() }
                        put(step % 2 == 0 ? byte >> 4 : byte & 0x0F)
                    }
                }
                if bytes % 2 == 1 { _ = try next() }
            }
        }
        let factor = DecodeScale.boxReductionFactor(width: width, height: height, options: options)
        let region = DecodeRegion(
            storedWidth: width / factor, storedHeight: height / factor, orientation: .upright,
            options: options)
        var reducer = RegionReducer(factor: factor, region: region)
        var rgba = [UInt8](repeating: 255, count: width * 4)
        for row in 0..<height {
            for column in 0..<width {
                let index = Int(indices[row * width + column])
                let (red, green, blue) = index < header.palette.count ? header.palette[index] : (0, 0, 0)
                rgba[4 * column] = red
                rgba[4 * column + 1] = green
                rgba[4 * column + 2] = blue
            }
            rgba.withUnsafeBufferPointer {
                reducer.add(rgbaRow: $0.baseAddress!, y: height - 1 - row, firstColumn: 0, columnStep: 1)
            }
        }
        return region.finish(reducer.image, orientation: .upright)
    }

    /// One stored row (at `start` in `row`) as RGBA.
    private static func convert(row: [UInt8], start: Int, header: Header, into rgba: inout [UInt8]) {
        let width = header.width
        switch header.bitsPerPixel {
        case 1, 4, 8:
            let bits = header.bitsPerPixel, perByte = 8 / bits, mask = (1 << bits) - 1
            for x in 0..<width {
                let byte = Int(row[start + x / perByte])
                let index = byte >> (8 - bits * (x % perByte + 1)) & mask
                // An index past the palette is black, as most viewers show it.
                let (red, green, blue) = index < header.palette.count ? header.palette[index] : (0, 0, 0)
                rgba[4 * x] = red
                rgba[4 * x + 1] = green
                rgba[4 * x + 2] = blue
                rgba[4 * x + 3] = 255
            }
        case 24:
            for x in 0..<width {
                let source = start + 3 * x
                rgba[4 * x] = row[source + 2]
                rgba[4 * x + 1] = row[source + 1]
                rgba[4 * x + 2] = row[source]
                rgba[4 * x + 3] = 255
            }
        default:
            let bytes = header.bitsPerPixel / 8
            let masks = header.masks
            for x in 0..<width {
                let source = start + bytes * x
                var value = UInt32(row[source]) | UInt32(row[source + 1]) << 8
                if bytes == 4 { value |= UInt32(row[source + 2]) << 16 | UInt32(row[source + 3]) << 24 }
                rgba[4 * x] = channel(value, mask: masks.red)
                rgba[4 * x + 1] = channel(value, mask: masks.green)
                rgba[4 * x + 2] = channel(value, mask: masks.blue)
                rgba[4 * x + 3] = masks.alpha == 0 ? 255 : channel(value, mask: masks.alpha)
            }
        }
    }

    /// The masked bits of `value` as 8 bits: a narrower field of n bits is scaled as `v · 255 / (2ⁿ − 1)`, rounded
    /// down, as Pillow does (5-bit 31 → 255, 4 → 32); a wider one keeps its top 8 bits.
    static func channel(_ value: UInt32, mask: UInt32) -> UInt8 {
        guard mask != 0 else { return 0 }
        let shift = mask.trailingZeroBitCount
        // The field's width: the run of ones from its lowest bit.
        let width = (~(mask >> shift)).trailingZeroBitCount
        // A mask from the file need not be one run of ones (0b101): the bits past the run are dropped, so the field
        // never exceeds its width's largest value.
        let field = (value & mask) >> shift
        if width >= 8 { return UInt8(truncatingIfNeeded: field >> (width - 8)) }
        return UInt8((field & ((1 << width) - 1)) * 255 / ((1 << width) - 1))
    }

    /// Reads bytes at absolute offsets from a file descriptor (`pread`) or a buffer.
    struct ByteReader {
        let source: CompressedSource

        /// Reads up to `count` bytes at `offset` into `buffer`; fewer only at the end of the data.
        func read(into buffer: inout [UInt8], count: Int, at offset: Int, path: String) throws(ImageError) -> Int {
            precondition(count <= buffer.count)
            switch source {
            case .memory(let bytes):
                guard offset < bytes.count else { return 0 }
                let taken = min(count, bytes.count - offset)
                for index in 0..<taken { buffer[index] = bytes[offset + index] }
                return taken
            case .file(let descriptor):
                var done = 0
                while done < count {
                    let result = buffer.withUnsafeMutableBytes {
                        pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset + done))
                    }
                    if result < 0 && errno == EINTR { continue }
                    if result < 0 {
                        throw ImageError(path: path, reason: "read error: \(String(cString: strerror(errno)))")
                    }
                    if result == 0 { break }
                    done += result
                }
                return done
            }
        }
    }
}
