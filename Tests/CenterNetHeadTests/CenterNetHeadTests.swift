import CenterNetHead
import DetectionAnnotations
import XCTest
import _TestSupport

/// The head's math: targets, every gradient against central differences in double precision, the decoder against
/// its plain-loop reference, and targets decoded back into their boxes.
final class CenterNetHeadTests: XCTestCase {
    private let smallGrid = CenterNetGrid(width: 5, height: 4, stride: 8, labelCount: 2)

    /// Two objects of label 0 and one of label 1 on the 40 × 32 input of `smallGrid`.
    private var smallTargets: CenterNetTargets {
        CenterNetTargets(
            objects: [
                CenterNetObject(labelIndex: 0, box: CornerBox(left: 2, top: 3, right: 18, bottom: 20)),
                CenterNetObject(labelIndex: 0, box: CornerBox(left: 20, top: 10, right: 39, bottom: 31)),
                CenterNetObject(labelIndex: 1, box: CornerBox(left: 12, top: 0, right: 28, bottom: 12)),
            ], grid: smallGrid)
    }

    private func randomValues(_ count: Int, in range: ClosedRange<Double>, seed: UInt64) -> [Double] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in Double.random(in: range, using: &generator) }
    }

    // MARK: Targets

    func testRadiusFollowsCenterNetsPublishedRule() {
        // 10 × 10 cells: the third case decides, (−28 + √1120) / 2; the first and second give 19.07 and 36.73.
        XCTAssertEqual(CenterNetTargets.gaussianRadius(width: 10, height: 10), (-28 + 1120.0.squareRoot()) / 2, accuracy: 1e-12)
        XCTAssertEqual(CenterNetTargets.gaussianRadius(width: 10, height: 10), 2.7332, accuracy: 1e-4)
        // A sliver: the radius shrinks with the short side.
        XCTAssertLessThan(CenterNetTargets.gaussianRadius(width: 40, height: 1), CenterNetTargets.gaussianRadius(width: 40, height: 10))
    }

    func testTargetsHaveOnePeakPerObjectAndTheirSizesAndOffsets() {
        let targets = smallTargets
        XCTAssertEqual(targets.collisions, 0)
        XCTAssertEqual(targets.maskedCount, 3)
        XCTAssertEqual(targets.heatMap.filter { $0 == 1 }.count, 3)
        XCTAssertTrue(targets.heatMap.allSatisfy { $0 >= 0 && $0 <= 1 })
        // The first box: centre (10, 11.5) → cell (1, 1), offset (0.25, 0.4375), size (2, 2.125) cells.
        let cell = 1 * 5 + 1
        XCTAssertEqual(targets.heatMap[cell * 2 + 0], 1)
        XCTAssertEqual(targets.mask[cell], 1)
        XCTAssertEqual(Array(targets.offset[(cell * 2)...(cell * 2 + 1)]), [0.25, 0.4375])
        XCTAssertEqual(Array(targets.size[(cell * 2)...(cell * 2 + 1)]), [2, 2.125])
    }

    func testABumpIsCenterNetsGaussianOfItsRadius() {
        // A 10 × 10 box on a stride-1 grid: radius ⌊2.73⌋ = 2, σ = 5/6, cut beyond two cells.
        let grid = CenterNetGrid(width: 9, height: 9, stride: 1, labelCount: 1)
        let heat = CenterNetTargets(
            objects: [CenterNetObject(labelIndex: 0, box: CornerBox(left: -0.5, top: -0.5, right: 9.5, bottom: 9.5))],
            grid: grid
        ).heatMap
        let twoSigmaSquared = 2 * (5.0 / 6) * (5.0 / 6)
        XCTAssertEqual(heat[4 * 9 + 4], 1)
        XCTAssertEqual(heat[4 * 9 + 5], Float(exp(-1 / twoSigmaSquared)), accuracy: 1e-7)
        XCTAssertEqual(heat[5 * 9 + 6], Float(exp(-5 / twoSigmaSquared)), accuracy: 1e-7)
        XCTAssertEqual(heat[6 * 9 + 6], Float(exp(-8 / twoSigmaSquared)), accuracy: 1e-7)
        XCTAssertEqual(heat[4 * 9 + 7], 0)
        XCTAssertEqual(heat.filter { $0 > 0 }.count, 25)
    }

    func testTwoCentresInOneCellKeepTheSmallerBox() {
        let grid = CenterNetGrid(width: 4, height: 4, stride: 16, labelCount: 2)
        let targets = CenterNetTargets(
            objects: [
                CenterNetObject(labelIndex: 0, box: CornerBox(left: 0, top: 0, right: 40, bottom: 40)),
                CenterNetObject(labelIndex: 1, box: CornerBox(left: 16, top: 16, right: 24, bottom: 24)),
            ], grid: grid)
        XCTAssertEqual(targets.collisions, 1)
        XCTAssertEqual(targets.maskedCount, 1)
        XCTAssertEqual(Array(targets.size[(5 * 2)...(5 * 2 + 1)]), [0.5, 0.5])
        // Both labels still have their peak.
        XCTAssertEqual(targets.heatMap[5 * 2 + 0], 1)
        XCTAssertEqual(targets.heatMap[5 * 2 + 1], 1)
    }

    func testAHugeFiniteBoxIsKeptWithABumpOverTheWholeGrid() {
        let huge = CenterNetObject(labelIndex: 0, box: CornerBox(left: -1e200, top: -1e200, right: 1e200 + 40, bottom: 1e200 + 32))
        let targets = CenterNetTargets(objects: [huge], grid: smallGrid)
        XCTAssertEqual(targets.objectsOutside, 0)
        XCTAssertEqual(targets.mask.reduce(0, +), 1)
        // Every cell of its label's map is inside the bump (at most 1, and above 0 everywhere).
        let channel = (0..<smallGrid.cellCount).map { targets.heatMap[$0 * smallGrid.labelCount] }
        XCTAssertEqual(channel.max(), 1)
        XCTAssertGreaterThan(channel.min() ?? 0, 0)
    }

    func testObjectsWhoseCentreIsNotFiniteOrOffTheGridAreLeftOutAndCounted() {
        // smallGrid covers 40 × 32 input pixels; a centre on its far edges is still inside (last cell, offset 1).
        let inside = CenterNetObject(labelIndex: 0, box: CornerBox(left: 30, top: 24, right: 50, bottom: 40))
        let outside = [
            CornerBox(left: 40, top: 0, right: 42, bottom: 4),  // centre x 41 > 40
            CornerBox(left: -6, top: 4, right: 4, bottom: 8),  // centre x −1 < 0
            CornerBox(left: 2, top: 30, right: 6, bottom: 40),  // centre y 35 > 32
            CornerBox(left: .nan, top: 0, right: 4, bottom: 4),
            CornerBox(left: 0, top: 0, right: .infinity, bottom: 4),
            CornerBox(left: -.infinity, top: 0, right: .infinity, bottom: 4),
            CornerBox(left: 0, top: -.greatestFiniteMagnitude, right: 4, bottom: .greatestFiniteMagnitude / 2),
            CornerBox(left: -1e308, top: 0, right: 1e308, bottom: 4),  // centre 0, width infinite
        ].map { CenterNetObject(labelIndex: 1, box: $0) }
        let targets = CenterNetTargets(objects: outside + [inside] + outside, grid: smallGrid)
        XCTAssertEqual(targets.objectsOutside, 2 * outside.count)
        XCTAssertEqual(targets.collisions, 0)
        XCTAssertEqual(targets, CenterNetTargets(objects: [inside], grid: smallGrid).with(objectsOutside: 2 * outside.count))
        // The kept object: centre (40, 32) → the last cell (4, 3), offset (1, 1), all offsets within [0, 1].
        let cell = 3 * 5 + 4
        XCTAssertEqual(targets.mask[cell], 1)
        XCTAssertEqual(Array(targets.offset[(cell * 2)...(cell * 2 + 1)]), [1, 1])
        XCTAssertTrue(targets.offset.allSatisfy { $0 >= 0 && $0 <= 1 })
        XCTAssertEqual(targets.heatMap.enumerated().filter { $0.offset % 2 == 1 && $0.element != 0 }.count, 0, "no bump of label 1")
    }

    // MARK: Gradients

    func testFocalLossGradientMatchesCentralDifferences() {
        let targets = smallTargets.heatMap.map(Double.init)
        for seed in [1, 2, 3] as [UInt64] {
            let logits = randomValues(targets.count, in: -4...4, seed: seed)
            let (_, gradient) = FocalLoss.lossAndGradient(logits: logits, targets: targets)
            assertGradientMatchesCentralDifferences(
                gradient, of: { FocalLoss.lossAndGradient(logits: $0, targets: targets).loss },
                at: logits, "seed \(seed)")
        }
        // Large logits: the loss and its gradient stay finite, and match where the loss is still measurable.
        let extreme = targets.indices.map { Double(($0 % 7) - 3) * 9 }
        let (loss, gradient) = FocalLoss.lossAndGradient(logits: extreme, targets: targets)
        XCTAssertTrue(loss.isFinite && gradient.allSatisfy(\.isFinite))
        assertGradientMatchesCentralDifferences(gradient, of: { FocalLoss.lossAndGradient(logits: $0, targets: targets).loss }, at: extreme)
    }

    func testFocalLossWithoutObjectsIsNotDividedByZero() {
        let (loss, gradient) = FocalLoss.lossAndGradient(logits: [0.0, 1, -1], targets: [0.0, 0, 0.5])
        XCTAssertTrue(loss > 0 && loss.isFinite)
        XCTAssertTrue(gradient.allSatisfy(\.isFinite))
        // A single negative cell at logit 0: −(1 − 0)^4 · 0.5² · log 0.5.
        XCTAssertEqual(FocalLoss.lossAndGradient(logits: [0.0], targets: [0.0]).loss, -0.25 * log(0.5), accuracy: 1e-15)
    }

    func testRegressionLossGradientMatchesCentralDifferences() {
        let targets = smallTargets
        let mask = targets.mask.map(Double.init), sizeTargets = targets.size.map(Double.init)
        let predicted = randomValues(sizeTargets.count, in: -1...3, seed: 4)
        let (loss, gradient) = RegressionL1Loss.lossAndGradient(predicted: predicted, targets: sizeTargets, mask: mask)
        XCTAssertGreaterThan(loss, 0)
        assertGradientMatchesCentralDifferences(
            gradient, of: { RegressionL1Loss.lossAndGradient(predicted: $0, targets: sizeTargets, mask: mask).loss },
            at: predicted)
        XCTAssertEqual(zip(gradient, mask.flatMap { [$0, $0] }).filter { $0.1 == 0 && $0.0 != 0 }.count, 0, "no gradient outside the mask")
    }

    func testRegressionLossIsTheMeanOverMaskedValuesAsCenterNetsCode() {
        // Two masked cells of three, two channels: |1 − 0| + |2 − 0| + |0 − 1| + |0 − 3| = 7 over mask.sum() = 2 · 2.
        let (loss, gradient) = RegressionL1Loss.lossAndGradient(predicted: [1.0, 2, 5, 5, 0, 0], targets: [0.0, 0, 0, 0, 1, 3], mask: [1.0, 0, 1])
        XCTAssertEqual(loss, 7.0 / 4, accuracy: 1e-15)
        XCTAssertEqual(gradient, [0.25, 0.25, 0, 0, -0.25, -0.25])
        // The sizes of `smallTargets`, predicted 1 cell too wide and 1 too tall at each of its 3 centres: 6 / 6.
        let targets = smallTargets
        let outputs = CenterNetOutputs<Double>(
            heatLogits: targets.heatMap.map { $0 >= 1 ? 30 : -30 },
            size: zip(targets.size, targets.mask.flatMap { [$0, $0] }).map { Double($0 + $1) },
            offset: targets.offset.map(Double.init))
        let total = CenterNetLoss(outputs: outputs, targets: targets)
        XCTAssertEqual(total.size, 1, accuracy: 1e-6)
        XCTAssertEqual(total.offset, 0)
    }

    func testTotalLossGradientMatchesCentralDifferencesForEveryMap() {
        let targets = smallTargets
        let heatCount = smallGrid.heatMapCount, mapCount = smallGrid.cellCount * 2
        let point =
            randomValues(heatCount, in: -3...3, seed: 5) + randomValues(mapCount, in: 0...3, seed: 6) + randomValues(mapCount, in: 0...1, seed: 7)
        func outputs(_ values: [Double]) -> CenterNetOutputs<Double> {
            CenterNetOutputs(
                heatLogits: Array(values[0..<heatCount]), size: Array(values[heatCount..<(heatCount + mapCount)]),
                offset: Array(values[(heatCount + mapCount)...]))
        }
        let loss = CenterNetLoss(outputs: outputs(point), targets: targets)
        XCTAssertEqual(loss.total, loss.heat + 0.1 * loss.size + loss.offset, accuracy: 1e-15)
        let gradient = loss.gradient.heatLogits + loss.gradient.size + loss.gradient.offset
        assertGradientMatchesCentralDifferences(gradient, of: { CenterNetLoss(outputs: outputs($0), targets: targets).total }, at: point)
    }

    // MARK: Decoding

    func testDecoderEqualsThePlainLoopsOnRandomMapsWithTies() {
        var generator = SeededGenerator(seed: 8)
        for round in 0..<30 {
            let grid = CenterNetGrid(width: 1 + round % 7, height: 1 + (round * 3) % 6, stride: 4 << (round % 3), labelCount: 1 + round % 3)
            // Logits from a few levels, so plateaus and equal peaks are common.
            let levels: [Float] = [-3, -1, 0, 0.5, 2]
            let outputs = CenterNetOutputs<Float>(
                heatLogits: (0..<grid.heatMapCount).map { _ in levels.randomElement(using: &generator)! },
                size: (0..<(grid.cellCount * 2)).map { _ in Float.random(in: -0.5...4, using: &generator) },
                offset: (0..<(grid.cellCount * 2)).map { _ in Float.random(in: 0...1, using: &generator) })
            for (count, score) in [(100, Float(0)), (3, Float(0.3)), (1, Float(0.9)), (0, Float(0))] {
                XCTAssertEqual(
                    CenterNetDecoder.decode(outputs, grid: grid, maximumCount: count, minimumScore: score),
                    CenterNetDecoder.reference(outputs, grid: grid, maximumCount: count, minimumScore: score),
                    "round \(round), \(count) best at \(score)")
            }
        }
    }

    func testDecoderEqualsThePlainLoopsOnMapsWithNaN() {
        var generator = SeededGenerator(seed: 10)
        for round in 0..<20 {
            let grid = CenterNetGrid(width: 1 + round % 6, height: 1 + (round * 5) % 5, stride: 8, labelCount: 1 + round % 2)
            // NaN beside ties, infinities and logits so low that their probability is 0 in single precision.
            let levels: [Float] = [.nan, .nan, -.infinity, -200, -1, 0, 0, 2, .infinity]
            let outputs = CenterNetOutputs<Float>(
                heatLogits: (0..<grid.heatMapCount).map { _ in levels.randomElement(using: &generator)! },
                size: (0..<(grid.cellCount * 2)).map { _ in Float.random(in: 0...4, using: &generator) },
                offset: (0..<(grid.cellCount * 2)).map { _ in Float.random(in: 0..<1, using: &generator) })
            for (count, score) in [(100, Float(0)), (2, Float(0.5)), (100, Float(1))] {
                let decoded = CenterNetDecoder.decode(outputs, grid: grid, maximumCount: count, minimumScore: score)
                XCTAssertEqual(
                    decoded, CenterNetDecoder.reference(outputs, grid: grid, maximumCount: count, minimumScore: score),
                    "round \(round), \(count) best at \(score)")
                XCTAssertTrue(
                    decoded.allSatisfy { !$0.score.isNaN && !outputs.heatLogits[self.heatIndex(of: $0, grid: grid)].isNaN },
                    "round \(round): a NaN logit became a peak")
            }
        }
        // A lone NaN is no peak; beside it, a logit of −∞ (probability 0) is one at a minimum score of 0.
        let grid = CenterNetGrid(width: 2, height: 1, stride: 4, labelCount: 1)
        let outputs = CenterNetOutputs<Float>(heatLogits: [.nan, -.infinity], size: [1, 1, 1, 1], offset: [0.5, 0.5, 0.5, 0.5])
        XCTAssertEqual(CenterNetDecoder.decode(outputs, grid: grid).map(\.box.centerX), [6])
        XCTAssertEqual(CenterNetDecoder.reference(outputs, grid: grid).map(\.box.centerX), [6])
    }

    /// The heat-map index of a detection's peak, from its box centre (offsets in [0, 1) keep it in its cell).
    private func heatIndex(of detection: CenterNetDetection, grid: CenterNetGrid) -> Int {
        let x = Int(detection.box.centerX / Double(grid.stride)), y = Int(detection.box.centerY / Double(grid.stride))
        return (y * grid.width + x) * grid.labelCount + detection.labelIndex
    }

    func testTargetsDecodeBackIntoTheirBoxes() {
        var generator = SeededGenerator(seed: 9)
        let grid = CenterNetGrid(inputWidth: 320, inputHeight: 256, stride: 16, labelCount: 3)
        XCTAssertEqual([grid.width, grid.height], [20, 16])
        for round in 0..<10 {
            var objects: [CenterNetObject] = [], usedCells: Set<Int> = []
            while objects.count < 2 + round {
                let width = Double.random(in: 12...120, using: &generator), height = Double.random(in: 12...120, using: &generator)
                let left = Double.random(in: 0...(320 - width), using: &generator), top = Double.random(in: 0...(256 - height), using: &generator)
                let box = CornerBox(left: left, top: top, right: left + width, bottom: top + height)
                // One object per centre cell and per 3 × 3 neighbourhood of its label, so each is its own peak.
                let cell = Int(box.centerY / 16) * 20 + Int(box.centerX / 16)
                let label = Int.random(in: 0..<3, using: &generator)
                let neighbourhood = (-1...1).flatMap { dy in (-1...1).map { dx in cell + dy * 20 + dx } }
                guard usedCells.isDisjoint(with: neighbourhood.map { $0 * 3 + label }), !usedCells.contains(where: { $0 / 3 == cell }) else {
                    continue
                }
                usedCells.insert(cell * 3 + label)
                objects.append(CenterNetObject(labelIndex: label, box: box))
            }
            let targets = CenterNetTargets(objects: objects, grid: grid)
            XCTAssertEqual(targets.collisions, 0)
            // The outputs a perfect head would give: logits of the target probabilities.
            let logits = targets.heatMap.map { value -> Float in
                value >= 1 ? 30 : value <= 0 ? -30 : Float(log(Double(value) / (1 - Double(value))))
            }
            let outputs = CenterNetOutputs(heatLogits: logits, size: targets.size, offset: targets.offset)
            let detections = CenterNetDecoder.decode(outputs, grid: grid, minimumScore: 0.999)
            XCTAssertEqual(detections.count, objects.count, "round \(round)")
            for object in objects {
                let found = detections.first { $0.labelIndex == object.labelIndex && $0.box.intersectionOverUnion(object.box) > 0.999 }
                let box = try? XCTUnwrap(found, "round \(round): \(object) not decoded").box
                for (decoded, original) in zip(
                    [box?.left, box?.top, box?.right, box?.bottom], [object.box.left, object.box.top, object.box.right, object.box.bottom])
                {
                    XCTAssertEqual(decoded ?? .nan, original, accuracy: 1e-3, "round \(round)")
                }
            }
        }
    }
}

private extension CenterNetTargets {
    /// The same targets with another count of objects left out.
    func with(objectsOutside count: Int) -> CenterNetTargets {
        var copy = self
        copy.objectsOutside = count
        return copy
    }
}
