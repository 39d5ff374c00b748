import DetectionAnnotations
import Foundation

/// One box the head found: its label's channel, its score and its box in input pixels.
public struct CenterNetDetection: Sendable, Equatable {
    /// The heat-map channel: the label's index.
    public var labelIndex: Int
    /// The peak's probability, σ(logit).
    public var score: Float
    /// The box, in pixels of the network's input.
    public var box: CornerBox

    /// A detection from its parts.
    public init(labelIndex: Int, score: Float, box: CornerBox) {
        self.labelIndex = labelIndex
        self.score = score
        self.box = box
    }
}

/// From the head's outputs to boxes, CenterNet's way (no anchors, no box suppression): the heat map's
/// probabilities `σ(logit)`; a cell is a peak where it equals the 3 × 3 maximum around it in its channel (a
/// stride-1 max pooling whose padding never wins, so equal neighbours are both peaks, as in the reference code's
/// `hmax == heat`); the `maximumCount` best peaks scoring at least `minimumScore` (equal scores: lower channel,
/// then row, then column first); each peak's box is centred at `(x + offset_x, y + offset_y) · stride` with size
/// `(size_w, size_h) · stride`, a negative size (an untrained head's) taken as 0.
///
/// A NaN logit (a diverged head's) is taken as −∞: probability 0, so it never outranks a neighbour, and it is never
/// a peak itself, whatever `minimumScore` (a score it does not have would be made up). Both paths do exactly this.
///
/// The maximum is separable: a pass along rows, then one along columns over its result, 6 comparisons a value
/// instead of 8. `reference` is the plain loop over every cell and its neighbours.
public enum CenterNetDecoder {
    /// The boxes of `outputs` on `grid`, best first.
    public static func decode(
        _ outputs: CenterNetOutputs<Float>, grid: CenterNetGrid, maximumCount: Int = 100,
        minimumScore: Float = 0
    ) -> [CenterNetDetection] {
        checkSizes(outputs, grid: grid)
        let (width, height, channels) = (grid.width, grid.height, grid.labelCount)
        let heat = outputs.heatLogits.map(probability)
        // heat [height, width, channels] → the 3-wide maximum along each row, then along each column.
        var rowMaximum = heat
        for y in 0..<height {
            for x in 0..<width {
                let base = (y * width + x) * channels
                for channel in 0..<channels {
                    var value = heat[base + channel]
                    if x > 0 { value = max(value, heat[base - channels + channel]) }
                    if x + 1 < width { value = max(value, heat[base + channels + channel]) }
                    rowMaximum[base + channel] = value
                }
            }
        }
        var peaks: [(score: Float, index: Int)] = []
        let rowStride = width * channels
        for index in heat.indices where heat[index] >= minimumScore && !outputs.heatLogits[index].isNaN {
            let y = index / rowStride
            var neighbourhood = rowMaximum[index]
            if y > 0 { neighbourhood = max(neighbourhood, rowMaximum[index - rowStride]) }
            if y + 1 < height { neighbourhood = max(neighbourhood, rowMaximum[index + rowStride]) }
            if heat[index] == neighbourhood { peaks.append((heat[index], index)) }
        }
        // Heat-map order is row, column, channel; the tie rule wants channel, row, column.
        peaks.sort { first, second in
            if first.score != second.score { return first.score > second.score }
            let (a, b) = (first.index % channels, second.index % channels)
            return a != b ? a < b : first.index < second.index
        }
        return peaks.prefix(max(maximumCount, 0)).map { detection(at: $0.index, score: $0.score, outputs: outputs, grid: grid) }
    }

    /// The naive reference: every cell of every channel compared with each of its up to 8 neighbours; then the
    /// best peak taken, again and again, `maximumCount` times.
    public static func reference(
        _ outputs: CenterNetOutputs<Float>, grid: CenterNetGrid, maximumCount: Int = 100,
        minimumScore: Float = 0
    ) -> [CenterNetDetection] {
        checkSizes(outputs, grid: grid)
        let (width, height, channels) = (grid.width, grid.height, grid.labelCount)
        func logit(_ x: Int, _ y: Int, _ channel: Int) -> Float { outputs.heatLogits[(y * width + x) * channels + channel] }
        func probability(_ x: Int, _ y: Int, _ channel: Int) -> Float {
            let value = logit(x, y, channel)
            return value.isNaN ? 0 : sigmoid(value)
        }
        var candidates: [(score: Float, channel: Int, y: Int, x: Int)] = []
        for channel in 0..<channels {
            for y in 0..<height {
                for x in 0..<width {
                    let value = probability(x, y, channel)
                    guard value >= minimumScore, !logit(x, y, channel).isNaN else { continue }
                    var isPeak = true
                    for dy in -1...1 {
                        for dx in -1...1 {
                            let (neighbourX, neighbourY) = (x + dx, y + dy)
                            guard neighbourX >= 0, neighbourX < width, neighbourY >= 0, neighbourY < height else { continue }
                            if probability(neighbourX, neighbourY, channel) > value { isPeak = false }
                        }
                    }
                    if isPeak { candidates.append((value, channel, y, x)) }
                }
            }
        }
        var detections: [CenterNetDetection] = []
        while detections.count < maximumCount, !candidates.isEmpty {
            var best = 0
            for index in candidates.indices {
                let (a, b) = (candidates[index], candidates[best])
                if a.score > b.score || (a.score == b.score && (a.channel, a.y, a.x) < (b.channel, b.y, b.x)) { best = index }
            }
            let chosen = candidates.remove(at: best)
            detections.append(
                detection(
                    at: (chosen.y * width + chosen.x) * channels + chosen.channel, score: chosen.score,
                    outputs: outputs, grid: grid))
        }
        return detections
    }

    /// The box of the peak at heat-map index `index`.
    static func detection(at index: Int, score: Float, outputs: CenterNetOutputs<Float>, grid: CenterNetGrid) -> CenterNetDetection {
        let cell = index / grid.labelCount
        let (x, y) = (cell % grid.width, cell / grid.width)
        let stride = Double(grid.stride)
        let centerX = (Double(x) + Double(outputs.offset[cell * 2])) * stride
        let centerY = (Double(y) + Double(outputs.offset[cell * 2 + 1])) * stride
        let width = max(0, Double(outputs.size[cell * 2])) * stride
        let height = max(0, Double(outputs.size[cell * 2 + 1])) * stride
        return CenterNetDetection(
            labelIndex: index % grid.labelCount, score: score,
            box: CornerBox(centerX: centerX, centerY: centerY, width: width, height: height))
    }

    /// The probability of a logit, in single precision, the same function for the fast path and the reference.
    static func sigmoid(_ logit: Float) -> Float { 1 / (1 + exp(-logit)) }

    /// The fast path's probability of a logit: a NaN's is −∞'s, 0.
    static func probability(_ logit: Float) -> Float { logit.isNaN ? 0 : sigmoid(logit) }

    /// Traps unless each of the three maps has the grid's length (the outputs are the caller's own, never a file's).
    static func checkSizes(_ outputs: CenterNetOutputs<Float>, grid: CenterNetGrid) {
        precondition(
            outputs.heatLogits.count == grid.heatMapCount,
            "CenterNetDecoder: \(outputs.heatLogits.count) heat logits for a \(grid.width) × \(grid.height) grid of \(grid.labelCount) labels (\(grid.heatMapCount))"
        )
        precondition(
            outputs.size.count == grid.cellCount * 2,
            "CenterNetDecoder: \(outputs.size.count) size values for a \(grid.width) × \(grid.height) grid (\(grid.cellCount * 2))")
        precondition(
            outputs.offset.count == grid.cellCount * 2,
            "CenterNetDecoder: \(outputs.offset.count) offset values for a \(grid.width) × \(grid.height) grid (\(grid.cellCount * 2))")
    }
}
