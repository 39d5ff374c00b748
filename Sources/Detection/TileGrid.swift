import ImageCodecs

/// An N × N grid of overlapping tiles over a picture, for finding people too small for the whole frame's 300 × 300
/// input.
///
/// Each tile is `1 / (N − (N − 1) · overlap)` of the picture's width and height, rounded up, so neighbours share
/// `overlap` (a quarter) of a tile; tile `i` of a row starts at `round(i · (W − tileWidth) / (N − 1))`. The tiles
/// thus cover the picture exactly, the first starting at its left edge and the last ending at its right edge. A
/// person narrower than the overlap is whole in at least one tile.
public struct TileGrid: Sendable, Equatable {
    /// The share of a tile that its neighbour also covers.
    public static let overlap = 0.25
    /// The largest grid `--tiles` accepts: beyond it, tiles of an ordinary frame hold fewer pixels than the
    /// network's input.
    public static let maximumTilesPerSide = 8

    /// The tiles, row by row, in pixels of the picture.
    public let tiles: [PixelRegion]

    /// The grid of `tilesPerSide × tilesPerSide` tiles over a `width × height` picture; one tile per side is the
    /// whole picture.
    public init(width: Int, height: Int, tilesPerSide: Int) {
        let count = max(1, tilesPerSide)
        let columns = Self.spans(length: width, count: count), rows = Self.spans(length: height, count: count)
        tiles = rows.flatMap { row in
            columns.map { column in PixelRegion(left: column.start, top: row.start, width: column.length, height: row.length) }
        }
    }

    /// `count` overlapping spans over `0..<length` (see the type's description).
    static func spans(length: Int, count: Int) -> [(start: Int, length: Int)] {
        guard count > 1, length > 1 else { return [(0, length)] }
        let span = min(length, Int((Double(length) / (Double(count) - Double(count - 1) * overlap)).rounded(.up)))
        let step = Double(length - span) / Double(count - 1)
        return (0..<count).map { index in (Int((Double(index) * step).rounded()), span) }
    }

    /// Whether `box` (in pixels of the picture) touches an edge of `tile` that lies inside the picture, within
    /// `margin` pixels: the tile cut the object, so the box may hold only part of it.
    public static func isCut(
        _ box: BoundingBox, by tile: PixelRegion, pictureWidth: Int, pictureHeight: Int,
        margin: Double = 2
    ) -> Bool {
        let tileRight = Double(tile.left + tile.width), tileBottom = Double(tile.top + tile.height)
        if tile.left > 0, box.left <= Double(tile.left) + margin { return true }
        if tile.top > 0, box.top <= Double(tile.top) + margin { return true }
        if tile.left + tile.width < pictureWidth, box.right >= tileRight - margin { return true }
        if tile.top + tile.height < pictureHeight, box.bottom >= tileBottom - margin { return true }
        return false
    }
}
