extension RGBImage {
    /// The pixels of `region` as an image of their own (rows copied, nothing resampled). The region is clipped to
    /// the image; an empty intersection gives an empty image.
    public func cropped(to region: PixelRegion) -> RGBImage {
        let left = max(0, region.left), top = max(0, region.top)
        let right = min(width, region.left + region.width), bottom = min(height, region.top + region.height)
        guard right > left, bottom > top else { return RGBImage(width: 0, height: 0, pixels: []) }
        let rowBytes = (right - left) * 3
        var result = [UInt8](repeating: 0, count: rowBytes * (bottom - top))
        pixels.withUnsafeBufferPointer { source in
            result.withUnsafeMutableBufferPointer { destination in
                for y in top..<bottom {
                    let from = (y * width + left) * 3, to = (y - top) * rowBytes
                    for offset in 0..<rowBytes { destination[to + offset] = source[from + offset] }
                }
            }
        }
        return RGBImage(width: right - left, height: bottom - top, pixels: result)
    }
}
