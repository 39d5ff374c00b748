import Foundation

/// Test-time mirroring for CenterNet (after the "flip testing" of "Objects as Points", §5): the head runs on the
/// input and on its left–right mirror, the mirror's maps are turned back, and the two are averaged cell by cell. Two
/// guesses at each box's size and centre average out part of their errors, at twice the network's work. The paper's
/// code averages the heat and the sizes and keeps the plain run's offsets; this averages the offsets too (a centre
/// near a cell's edge may then mix in the neighbouring cell's offset, as the sizes do in both).
///
/// Turning the mirror's maps back: an input `grid.width · stride` pixels wide mirrors a centre at cell x with
/// offset o to cell `width − 1 − x` with offset `1 − o` (the centre at `c` cells goes to `width − c`), so the x
/// offset is read as `1 − o`; sizes and the y offset are unchanged. The heat maps are averaged as probabilities, as
/// the paper's code does, and given back as logits for `CenterNetDecoder` (NaN only where both were NaN).
public enum MirrorAveraging {
    /// The average of `plain` (the head's outputs on the input) and `mirrored` (on the input mirrored left to
    /// right), in `plain`'s orientation.
    public static func average(
        _ plain: CenterNetOutputs<Float>, mirrored: CenterNetOutputs<Float>,
        grid: CenterNetGrid
    ) -> CenterNetOutputs<Float> {
        precondition(
            plain.heatLogits.count == grid.heatMapCount && mirrored.heatLogits.count == grid.heatMapCount
                && plain.size.count == grid.cellCount * 2 && mirrored.size.count == grid.cellCount * 2
                && plain.offset.count == grid.cellCount * 2 && mirrored.offset.count == grid.cellCount * 2,
            "MirrorAveraging: outputs do not fit the grid")
        let labels = grid.labelCount
        var result = plain
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                let cell = y * grid.width + x
                let turned = y * grid.width + (grid.width - 1 - x)
                for label in 0..<labels {
                    let here = plain.heatLogits[cell * labels + label], there = mirrored.heatLogits[turned * labels + label]
                    // Both broken: stay NaN, which the decoder never takes for a peak.
                    result.heatLogits[cell * labels + label] =
                        here.isNaN && there.isNaN
                        ? .nan : logit((probability(here) + probability(there)) / 2)
                }
                result.size[2 * cell] = (plain.size[2 * cell] + mirrored.size[2 * turned]) / 2
                result.size[2 * cell + 1] = (plain.size[2 * cell + 1] + mirrored.size[2 * turned + 1]) / 2
                result.offset[2 * cell] = (plain.offset[2 * cell] + (1 - mirrored.offset[2 * turned])) / 2
                result.offset[2 * cell + 1] = (plain.offset[2 * cell + 1] + mirrored.offset[2 * turned + 1]) / 2
            }
        }
        return result
    }

    /// A logit's probability; a NaN logit (a broken picture) counts as 0, as the decoder counts it.
    static func probability(_ logit: Float) -> Float { logit.isNaN ? 0 : 1 / (1 + exp(-logit)) }

    /// The logit of a probability, kept finite: 0 and 1 map to about ∓17, beyond any score the decoder keeps apart.
    static func logit(_ probability: Float) -> Float {
        let p = min(max(probability, 1e-7), 1 - 1e-7)
        return log(p / (1 - p))
    }
}
