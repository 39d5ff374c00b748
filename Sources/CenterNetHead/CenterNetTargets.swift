import DetectionAnnotations
import Foundation

/// An object for the head to learn: its label's channel and its box in input pixels.
public struct CenterNetObject: Sendable, Equatable {
    /// The heat-map channel: the label's index.
    public var labelIndex: Int
    /// The box, in pixels of the network's input.
    public var box: CornerBox

    /// An object from its parts.
    public init(labelIndex: Int, box: CornerBox) {
        self.labelIndex = labelIndex
        self.box = box
    }
}

/// What the head should output for one picture (Zhou, Wang & Krähenbühl 2019, "Objects as Points", §3): per
/// label a heat map with a Gaussian bump at each object's centre cell, and at those cells the object's size and
/// the centre's sub-cell offset, marked by a mask.
///
/// - **Bumps.** Each object splats `exp(−(dx² + dy²) / (2σ²))` over the cells within `r` of its centre cell
///   (a `(2r + 1)²` square, cut at the grid's edges), `σ = (2r + 1) / 6`, values below `ε = 2⁻⁵²` of the peak set to
///   0 (numpy's `finfo(float64).eps`, as the reference code); overlapping bumps of one label keep the maximum, so
///   every centre cell holds exactly 1 and only centre cells do.
/// - **Radius.** `r = max(0, ⌊gaussianRadius(height, width)⌋)` in cells, the size-adaptive rule CenterNet took from
///   CornerNet: the largest shift of a corner that keeps IoU ≥ 0.7 with the true box, the least of three cases.
/// - **Size and offset.** In cells: `(box width, box height) / stride` and `centre / stride − centre cell`. A centre
///   exactly on the input's right or bottom edge belongs to the last cell (its offset is then 1).
/// - **Two centres in one cell.** The cell can hold one size: the smaller box keeps it (the larger one is easier
///   to find elsewhere in training data), and `collisions` counts how often that happened.
/// - **Centres off the grid.** An object whose centre or size is not finite, or whose centre lies outside the grid's
///   `width·stride × height·stride` pixels (the input, rounded up to whole cells), has no cell to hold it: it is
///   left out (no bump, size or offset) and counted in `objectsOutside`, as collisions are in `collisions`.
public struct CenterNetTargets: Sendable, Equatable {
    /// The grid the targets are for.
    public var grid: CenterNetGrid
    /// `[height, width, labelCount]`, values in [0, 1], exactly 1 at centre cells.
    public var heatMap: [Float]
    /// `[height, width, 2]`: box width and height in cells at centre cells, 0 elsewhere.
    public var size: [Float]
    /// `[height, width, 2]`: the centre's x and y offset inside its cell at centre cells, 0 elsewhere.
    public var offset: [Float]
    /// `[height, width]`: 1 at cells that hold an object's size and offset, 0 elsewhere.
    public var mask: [Float]
    /// Objects whose centre cell another object of any label already held (see the type's description).
    public var collisions: Int
    /// Objects left out because their centre or size is not finite or their centre lies outside the grid (see the
    /// type's description).
    public var objectsOutside: Int
    /// Cells marked in `mask`: the count the size and offset losses average over.
    public var maskedCount: Int { mask.reduce(0) { $0 + ($1 > 0 ? 1 : 0) } }

    /// The IoU CenterNet's radius keeps between a box and its corners' shifted copies.
    public static let minimumOverlap = 0.7

    /// The targets of `objects` on `grid`. Every label index must be below `grid.labelCount`.
    public init(objects: [CenterNetObject], grid: CenterNetGrid) {
        self.grid = grid
        heatMap = [Float](repeating: 0, count: grid.heatMapCount)
        size = [Float](repeating: 0, count: grid.cellCount * 2)
        offset = [Float](repeating: 0, count: grid.cellCount * 2)
        mask = [Float](repeating: 0, count: grid.cellCount)
        collisions = 0
        objectsOutside = 0
        var heldArea = [Double](repeating: 0, count: grid.cellCount)
        let stride = Double(grid.stride)
        for object in objects {
            precondition((0..<grid.labelCount).contains(object.labelIndex), "CenterNetTargets: label index \(object.labelIndex) out of range")
            let centerX = object.box.centerX / stride, centerY = object.box.centerY / stride
            // NaN fails every comparison, so a non-finite centre is outside too.
            guard centerX >= 0, centerX <= Double(grid.width), centerY >= 0, centerY <= Double(grid.height) else {
                objectsOutside += 1
                continue
            }
            let cellX = min(max(Int(centerX.rounded(.down)), 0), grid.width - 1)
            let cellY = min(max(Int(centerY.rounded(.down)), 0), grid.height - 1)
            let width = object.box.width / stride, height = object.box.height / stride
            guard width.isFinite, height.isFinite else {
                objectsOutside += 1
                continue
            }
            // A bump wider than the grid paints the same cells as one as wide as the grid; a box so large that
            // the radius formula overflows (NaN or infinite) gets that widest bump too, and Int() never traps.
            let widest = Double(grid.width + grid.height)
            let exact = Self.gaussianRadius(width: width, height: height)
            let radius = Int(exact.isFinite ? min(max(exact, 0), widest) : widest)
            drawGaussian(channel: object.labelIndex, cellX: cellX, cellY: cellY, radius: radius)

            let cell = cellY * grid.width + cellX
            if mask[cell] > 0 {
                collisions += 1
                if object.box.area >= heldArea[cell] { continue }
            }
            mask[cell] = 1
            heldArea[cell] = object.box.area
            size[cell * 2] = Float(width)
            size[cell * 2 + 1] = Float(height)
            offset[cell * 2] = Float(centerX - Double(cellX))
            offset[cell * 2 + 1] = Float(centerY - Double(cellY))
        }
    }

    /// Splats one bump into `channel` around a centre cell, keeping the larger value where bumps overlap.
    private mutating func drawGaussian(channel: Int, cellX: Int, cellY: Int, radius: Int) {
        let sigma = Double(2 * radius + 1) / 6
        for dy in -radius...radius {
            let y = cellY + dy
            guard y >= 0, y < grid.height else { continue }
            for dx in -radius...radius {
                let x = cellX + dx
                guard x >= 0, x < grid.width else { continue }
                var value = exp(-Double(dx * dx + dy * dy) / (2 * sigma * sigma))
                if value < Double.ulpOfOne { value = 0 }
                let index = (y * grid.width + x) * grid.labelCount + channel
                heatMap[index] = max(heatMap[index], Float(value))
            }
        }
    }

    /// CornerNet's radius as CenterNet's code computes it, for a `width × height` box (in cells): the least of
    /// the three quadratic roots `(b + √(b² − 4ac)) / 2` for a corner shift that keeps IoU ≥ `minimumOverlap` with
    /// both corners moving inwards and outwards (a = 1), both inwards (a = 4) and both outwards (a = 4·overlap).
    /// The code divides every root by 2 rather than by 2a, which gives the second and third cases larger radii
    /// than the algebra; the third usually decides (a 10 × 10 box: 2.73 cells, where the algebra gives 0.98). Kept
    /// as published, since CenterNet's results were trained with it.
    public static func gaussianRadius(width: Double, height: Double, minimumOverlap overlap: Double = minimumOverlap) -> Double {
        let b1 = height + width
        let c1 = width * height * (1 - overlap) / (1 + overlap)
        let r1 = (b1 + (b1 * b1 - 4 * c1).squareRoot()) / 2
        let b2 = 2 * (height + width)
        let c2 = (1 - overlap) * width * height
        let r2 = (b2 + (b2 * b2 - 16 * c2).squareRoot()) / 2
        let a3 = 4 * overlap
        let b3 = -2 * overlap * (height + width)
        let c3 = (overlap - 1) * width * height
        let r3 = (b3 + (b3 * b3 - 4 * a3 * c3).squareRoot()) / 2
        return min(r1, r2, r3)
    }
}
