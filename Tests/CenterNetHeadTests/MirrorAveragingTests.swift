import CenterNetHead
import DetectionAnnotations
import XCTest
import _TestSupport

/// `--tta` for detectors: a picture's outputs averaged with its mirror's, checked against a plain turning of the
/// maps written here and against targets drawn for mirrored boxes.
final class MirrorAveragingTests: XCTestCase {
    /// `outputs` as seen from the other side: cells turned left to right, x offsets read from the other edge.
    private func turned(_ outputs: CenterNetOutputs<Float>, grid: CenterNetGrid) -> CenterNetOutputs<Float> {
        var result = outputs
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                let from = y * grid.width + x, to = y * grid.width + grid.width - 1 - x
                for label in 0..<grid.labelCount {
                    result.heatLogits[to * grid.labelCount + label] = outputs.heatLogits[from * grid.labelCount + label]
                }
                result.size[2 * to] = outputs.size[2 * from]
                result.size[2 * to + 1] = outputs.size[2 * from + 1]
                result.offset[2 * to] = 1 - outputs.offset[2 * from]
                result.offset[2 * to + 1] = outputs.offset[2 * from + 1]
            }
        }
        return result
    }

    private func randomOutputs(_ grid: CenterNetGrid, seed: UInt64) -> CenterNetOutputs<Float> {
        var generator = SeededGenerator(seed: seed)
        func values(_ count: Int, _ range: ClosedRange<Float>) -> [Float] { (0..<count).map { _ in Float.random(in: range, using: &generator) } }
        return CenterNetOutputs(
            heatLogits: values(grid.heatMapCount, -6...6), size: values(grid.cellCount * 2, 0.2...9),
            offset: values(grid.cellCount * 2, 0...1))
    }

    func testAveragingTheOtherWayRoundGivesTheTurnedMaps() {
        // What the picture's mirror gets is this picture's answer turned: averaging must not favour either side.
        let grid = CenterNetGrid(width: 7, height: 3, stride: 16, labelCount: 2)
        let plain = randomOutputs(grid, seed: 1), mirrored = randomOutputs(grid, seed: 2)
        let here = MirrorAveraging.average(plain, mirrored: mirrored, grid: grid)
        let there = MirrorAveraging.average(mirrored, mirrored: plain, grid: grid)
        let back = turned(there, grid: grid)
        for (a, b) in zip(here.heatLogits, back.heatLogits) { XCTAssertEqual(a, b, accuracy: 1e-4) }
        XCTAssertEqual(here.size, back.size)
        for (a, b) in zip(here.offset, back.offset) { XCTAssertEqual(a, b, accuracy: 1e-6) }
    }

    func testHeatIsAveragedAsProbabilitiesAndTheRestCellByCell() {
        let grid = CenterNetGrid(width: 4, height: 2, stride: 8, labelCount: 1)
        var plain = randomOutputs(grid, seed: 3), mirrored = randomOutputs(grid, seed: 4)
        // Cell (1, 1) here meets cell (2, 1) of the mirror: probabilities 0.9 and 0.5 give 0.7 (logits would give
        // σ((2.197 + 0) / 2) = 0.750).
        let cell = 1 * 4 + 1, meets = 1 * 4 + 2
        plain.heatLogits[cell] = log(0.9 / 0.1)
        mirrored.heatLogits[meets] = 0
        (plain.size[2 * cell], plain.size[2 * cell + 1], mirrored.size[2 * meets], mirrored.size[2 * meets + 1]) = (2, 5, 3, 4)
        (plain.offset[2 * cell], plain.offset[2 * cell + 1], mirrored.offset[2 * meets], mirrored.offset[2 * meets + 1]) = (0.2, 0.6, 0.7, 0.4)
        let average = MirrorAveraging.average(plain, mirrored: mirrored, grid: grid)
        XCTAssertEqual(1 / (1 + exp(-average.heatLogits[cell])), 0.7, accuracy: 1e-5)
        XCTAssertEqual(average.size[2 * cell], 2.5, accuracy: 1e-6)
        XCTAssertEqual(average.size[2 * cell + 1], 4.5, accuracy: 1e-6)
        XCTAssertEqual(average.offset[2 * cell], (0.2 + 0.3) / 2, accuracy: 1e-6)
        XCTAssertEqual(average.offset[2 * cell + 1], 0.5, accuracy: 1e-6)
        // A broken (NaN) logit counts as probability 0, and every logit stays finite.
        plain.heatLogits[0] = .nan
        mirrored.heatLogits[3] = 30
        let guarded = MirrorAveraging.average(plain, mirrored: mirrored, grid: grid)
        XCTAssertEqual(1 / (1 + exp(-guarded.heatLogits[0])), 0.5, accuracy: 1e-5)
        XCTAssertEqual(guarded.heatLogits.filter(\.isNaN).count, 0)
        // Both broken: NaN stays, so a diverged head still decodes into nothing.
        let broken = CenterNetOutputs<Float>(
            heatLogits: [Float](repeating: .nan, count: grid.heatMapCount),
            size: plain.size, offset: plain.offset)
        let nothing = MirrorAveraging.average(broken, mirrored: broken, grid: grid)
        XCTAssertTrue(nothing.heatLogits.allSatisfy(\.isNaN))
        XCTAssertEqual(CenterNetDecoder.decode(nothing, grid: grid, minimumScore: 0), [])
    }

    func testPerfectAnswersForAPictureAndItsMirrorAverageIntoThePicturesBoxes() {
        // Targets drawn for the boxes and, separately, for their mirror images (x → 320 − x) are what a perfect
        // head answers on the picture and on its mirror; averaged, they must decode into the picture's boxes.
        var generator = SeededGenerator(seed: 11)
        let grid = CenterNetGrid(inputWidth: 320, inputHeight: 256, stride: 16, labelCount: 2)
        func perfect(_ targets: CenterNetTargets) -> CenterNetOutputs<Float> {
            let logits = targets.heatMap.map { value -> Float in
                value >= 1 ? 30 : value <= 0 ? -30 : Float(log(Double(value) / (1 - Double(value))))
            }
            return CenterNetOutputs(heatLogits: logits, size: targets.size, offset: targets.offset)
        }
        for round in 0..<8 {
            var objects: [CenterNetObject] = [], usedCells: Set<Int> = []
            while objects.count < 2 + round / 2 {
                let width = Double.random(in: 12...100, using: &generator), height = Double.random(in: 12...100, using: &generator)
                let left = Double.random(in: 0...(320 - width), using: &generator), top = Double.random(in: 0...(256 - height), using: &generator)
                let box = CornerBox(left: left, top: top, right: left + width, bottom: top + height)
                let cellX = Int(box.centerX / 16), cellY = Int(box.centerY / 16)
                // Each object far from the others (its own peak) and its centre off the cell edges (one cell either way).
                guard (box.centerX / 16 - Double(cellX)) > 0.01, (box.centerX / 16 - Double(cellX)) < 0.99,
                    !(-2...2).contains(where: { dy in (-2...2).contains { dx in usedCells.contains((cellY + dy) * 20 + cellX + dx) } })
                else { continue }
                usedCells.insert(cellY * 20 + cellX)
                objects.append(CenterNetObject(labelIndex: Int.random(in: 0..<2, using: &generator), box: box))
            }
            let mirroredObjects = objects.map { object in
                CenterNetObject(
                    labelIndex: object.labelIndex,
                    box: CornerBox(
                        left: 320 - object.box.right, top: object.box.top,
                        right: 320 - object.box.left, bottom: object.box.bottom))
            }
            let average = MirrorAveraging.average(
                perfect(CenterNetTargets(objects: objects, grid: grid)),
                mirrored: perfect(CenterNetTargets(objects: mirroredObjects, grid: grid)), grid: grid)
            let detections = CenterNetDecoder.decode(average, grid: grid, minimumScore: 0.999)
            XCTAssertEqual(detections.count, objects.count, "round \(round)")
            for object in objects {
                guard let found = detections.first(where: { $0.labelIndex == object.labelIndex && $0.box.intersectionOverUnion(object.box) > 0.99 })
                else { XCTFail("round \(round): \(object) not decoded"); continue }
                XCTAssertEqual(found.box.left, object.box.left, accuracy: 1e-3, "round \(round)")
                XCTAssertEqual(found.box.right, object.box.right, accuracy: 1e-3, "round \(round)")
                XCTAssertEqual(found.box.top, object.box.top, accuracy: 1e-3, "round \(round)")
                XCTAssertEqual(found.box.bottom, object.box.bottom, accuracy: 1e-3, "round \(round)")
            }
        }
    }
}
