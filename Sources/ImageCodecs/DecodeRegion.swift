/// The rectangle of the stored (scaled, not yet turned upright) image a decoder keeps, and what is done with it
/// afterwards: turned upright, then resized when the options ask for a crop-and-resize.
///
/// For a crop, the rectangle is the preimage of the upright image's centre crop under the EXIF orientation, so
/// turning the kept rectangle upright gives exactly the crop of the whole upright image.
struct DecodeRegion: Equatable {
    /// First stored column kept.
    let left: Int
    /// First stored row kept.
    let top: Int
    /// Stored columns kept.
    let width: Int
    /// Stored rows kept.
    let height: Int
    /// The side to resize the upright kept square to; nil keeps the pixels as decoded.
    let resizeSide: Int?

    /// The region for a stored image of `storedWidth × storedHeight` that `orientation` turns upright.
    init(storedWidth: Int, storedHeight: Int, orientation: EXIFOrientation, options: DecodeOptions) {
        let (uprightWidth, uprightHeight) = orientation.swapsAxes ? (storedHeight, storedWidth) : (storedWidth, storedHeight)
        guard let crop = options.cropAndResize,
            !(uprightWidth == crop.outputSide && uprightHeight == crop.outputSide)
        else {
            self.init(left: 0, top: 0, width: storedWidth, height: storedHeight, resizeSide: nil)
            return
        }
        let square = CenterCrop(width: uprightWidth, height: uprightHeight, outputSide: crop.outputSide, padding: crop.padding)
        // The square's two corners, traced back to stored coordinates, span the stored rectangle.
        let first = orientation.sourcePosition(square.left, square.top, width: storedWidth, height: storedHeight)
        let last = orientation.sourcePosition(
            square.left + square.side - 1, square.top + square.side - 1,
            width: storedWidth, height: storedHeight)
        self.init(
            left: min(first.0, last.0), top: min(first.1, last.1), width: square.side, height: square.side,
            resizeSide: crop.outputSide)
    }

    private init(left: Int, top: Int, width: Int, height: Int, resizeSide: Int?) {
        self.left = left
        self.top = top
        self.width = width
        self.height = height
        self.resizeSide = resizeSide
    }

    /// Whether stored row `y` is kept.
    func contains(row y: Int) -> Bool { y >= top && y < top + height }

    /// The kept pixels (`width × height`, stored orientation) turned upright and, for a crop, resized.
    func finish(_ kept: RGBImage, orientation: EXIFOrientation) -> RGBImage {
        let upright = orientation.apply(to: kept)
        guard let resizeSide else { return upright }
        return Resize.bicubic(upright, crop: CenterCrop(left: 0, top: 0, side: upright.width), outputSide: resizeSide)
    }
}
