/// Raw RGB24 frames (video frames from ffmpeg) decoded exactly as a PNG of the same pixels is: the same box
/// reduction of large frames, the same centre crop and the same antialiased resize (`DecodeRegion`, `RegionReducer`).
/// A video frame and that frame saved as a lossless PNG thus give identical network inputs.
///
/// Only `rectangle`, the full-resolution pixels the crop needs, has to be supplied (ffmpeg crops them out), so a
/// frame costs one crop-sized buffer however large the video is.
public struct RawFrameDecoding: Sendable, Equatable {
    /// A rectangle of the full-resolution frame.
    public struct Rectangle: Sendable, Equatable {
        /// First column, first row, and size in pixels.
        public let left: Int, top: Int, width: Int, height: Int
        /// Bytes of the rectangle as RGB24.
        public var byteCount: Int { width * height * 3 }
    }

    /// The frame's size.
    public let width: Int, height: Int
    /// The full-resolution pixels that decoding reads: the crop (times the box reduction factor), or the whole frame.
    public let rectangle: Rectangle
    private let factor: Int
    private let region: DecodeRegion

    /// Plans decoding for `width × height` frames; refuses a size over the options' limits (`ImageError` naming `path`).
    public init(width: Int, height: Int, options: DecodeOptions, path: String) throws(ImageError) {
        try DecodeScale.checkPixelLimit(width: width, height: height, options: options, path: path)
        self.width = width
        self.height = height
        factor = DecodeScale.boxReductionFactor(width: width, height: height, options: options)
        region = DecodeRegion(storedWidth: width / factor, storedHeight: height / factor, orientation: .upright, options: options)
        rectangle = Rectangle(
            left: region.left * factor, top: region.top * factor,
            width: region.width * factor, height: region.height * factor)
    }

    /// The decoded picture from the rectangle's RGB24 pixels (`rectangle.byteCount` bytes, rows top to bottom).
    public func decode(_ pixels: UnsafeRawBufferPointer) -> RGBImage {
        precondition(pixels.count == rectangle.byteCount, "RawFrameDecoding: expected the rectangle's pixels")
        var reducer = RegionReducer(factor: factor, region: region)
        // The reducer reads full-resolution columns of RGBA rows; opaque, so it copies as the PNG path does.
        let rowWidth = rectangle.left + rectangle.width
        var row = [UInt8](repeating: 255, count: rowWidth * 4)
        for y in 0..<rectangle.height {
            row.withUnsafeMutableBufferPointer { row in
                let source = pixels.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * rectangle.width * 3
                var x = 0
                while x < rectangle.width {
                    let target = (rectangle.left + x) * 4
                    row[target] = source[3 * x]
                    row[target + 1] = source[3 * x + 1]
                    row[target + 2] = source[3 * x + 2]
                    x += 1
                }
                reducer.add(rgbaRow: UnsafePointer(row.baseAddress!), y: rectangle.top + y, firstColumn: 0, columnStep: 1)
            }
        }
        return region.finish(reducer.image, orientation: .upright)
    }
}
