import DetectorTraining
import TensorCore
import TrainableLayers
import XCTest
import _TestSupport

/// The head's backward pass against central differences (reference, in Double), the fast passes against the
/// references, and the upsampling's adjoint.
final class DetectorHeadNetworkTests: XCTestCase {
    /// A head small enough for finite differences over every parameter: 5 and 6 input channels, width 4, 2 labels.
    private func smallHead() -> DetectorHeadNetwork<Double> {
        DetectorHeadNetwork<Float>(labelCount: 2, width: 4, fineChannels: 5, coarseChannels: 6, seed: 3).converted(to: Double.self)
    }

    private func randomTensor(_ shape: [Int], seed: UInt64, scale: Double = 1) -> Tensor<Double> {
        var random = SplitMix64(seed: seed)
        return Tensor(
            shape: shape,
            storage: (0..<shape.reduce(1, *)).map { _ in
                (Double(random.next() >> 11) / Double(1 << 53) * 2 - 1) * scale
            })
    }

    func testUpsamplingBackwardIsTheAdjointOfForward() {
        // ⟨up(x), y⟩ = ⟨x, up*(y)⟩ for an odd fine side (5 from 3: the last coarse row and column are used once more).
        let upsampling = NearestUpsampling(fineHeight: 5, fineWidth: 6)
        let coarse = randomTensor([2, 3, 3, 4], seed: 1), fine = randomTensor([2, 5, 6, 4], seed: 2)
        let forward = upsampling.forward(coarse), backward = upsampling.backward(fine, coarseShape: coarse.shape)
        let left = zip(forward.scalars, fine.scalars).reduce(0) { $0 + $1.0 * $1.1 }
        let right = zip(coarse.scalars, backward.scalars).reduce(0) { $0 + $1.0 * $1.1 }
        XCTAssertEqual(left, right, accuracy: 1e-12)
        XCTAssertEqual(forward[1, 4, 5, 2], coarse[1, 2, 2, 2], "fine (4, 5) reads coarse (2, 2)")
    }

    func testReferenceGradientsMatchCentralDifferences() {
        let head = smallHead()
        // The merged sum sits well inside ReLU6's linear range at these scales, so no kink is within the step.
        let fine = randomTensor([2, 4, 5, 5], seed: 11, scale: 0.8), coarse = randomTensor([2, 2, 3, 6], seed: 12, scale: 0.8)
        let weights = randomTensor([2, 4, 5, 6], seed: 13)
        func loss(_ network: DetectorHeadNetwork<Double>) -> Double {
            zip(network.referenceForward(fine: fine, coarse: coarse).output.scalars, weights.scalars).reduce(0) { $0 + $1.0 * $1.1 }
        }
        let (_, cache) = head.referenceForward(fine: fine, coarse: coarse)
        let gradients = head.referenceBackward(weights, cache: cache)
        for (index, named) in gradients.named.enumerated() {
            let start = head.namedParameters[index].value
            XCTAssertEqual(start.shape, named.gradient.shape, named.name)
            assertGradientMatchesCentralDifferences(
                named.gradient.scalars,
                of: { point in
                    var moved = head
                    moved.update(with: gradients) { name, parameter, _ in
                        if name == named.name { parameter = Tensor(shape: parameter.shape, storage: point) }
                    }
                    return loss(moved)
                }, at: start.scalars, named.name)
        }
    }

    func testTheCoarseInputsGradientMatchesCentralDifferences() throws {
        // What fine-tuning sends on into the blocks: ∂loss/∂coarse, through the upsampling's adjoint and the projection.
        let head = smallHead()
        let fine = randomTensor([2, 4, 5, 5], seed: 21, scale: 0.8), coarse = randomTensor([2, 2, 3, 6], seed: 22, scale: 0.8)
        let weights = randomTensor([2, 4, 5, 6], seed: 23)
        let (_, cache) = head.referenceForward(fine: fine, coarse: coarse)
        let step = head.referenceBackward(weights, cache: cache, computesCoarseGradient: true)
        XCTAssertEqual(step.gradients, head.referenceBackward(weights, cache: cache), "the same parameter gradients")
        let gradient = try XCTUnwrap(step.coarse)
        XCTAssertEqual(gradient.shape, coarse.shape)
        assertGradientMatchesCentralDifferences(
            gradient.scalars,
            of: { point in
                let moved = Tensor(shape: coarse.shape, storage: point)
                return zip(head.referenceForward(fine: fine, coarse: moved).output.scalars, weights.scalars).reduce(0) { $0 + $1.0 * $1.1 }
            }, at: coarse.scalars, "coarse input")
        XCTAssertNil(head.referenceBackward(weights, cache: cache, computesCoarseGradient: false).coarse)
    }

    func testFastPassesMatchTheReferences() {
        let head = DetectorHeadNetwork<Float>(labelCount: 3, width: 16, seed: 9)
        var random = SplitMix64(seed: 4)
        func floats(_ count: Int) -> [Float] { (0..<count).map { _ in Float(Double(random.next() >> 11) / Double(1 << 53)) * 2 } }
        let fine = Tensor<Float>(shape: [2, 7, 7, 112], storage: floats(2 * 49 * 112))
        let coarse = Tensor<Float>(shape: [2, 4, 4, 320], storage: floats(2 * 16 * 320))
        let (fast, cache) = head.forward(fine: fine, coarse: coarse, mode: .training)
        let (reference, referenceCache) = head.referenceForward(fine: fine, coarse: coarse)
        assertClose(fast.scalars, reference.scalars, absolute: 1e-4, relative: 1e-4, "outputs")
        let outputGradient = Tensor<Float>(shape: fast.shape, storage: floats(fast.count))
        let fastGradients = head.backward(outputGradient, cache: cache!)
        let referenceGradients = head.referenceBackward(outputGradient, cache: referenceCache)
        for (fastPart, referencePart) in zip(fastGradients.named, referenceGradients.named) {
            // Sums over 98 pixels and up to 144 channels of products of values near 1: Float rounding.
            assertClose(fastPart.gradient.scalars, referencePart.gradient.scalars, absolute: 2e-3, relative: 1e-4, fastPart.name)
        }
        let fastCoarse = head.backward(outputGradient, cache: cache!, computesCoarseGradient: true)
        let referenceCoarse = head.referenceBackward(outputGradient, cache: referenceCache, computesCoarseGradient: true)
        XCTAssertEqual(fastCoarse.gradients, fastGradients)
        // Each coarse cell sums up to four fine cells' gradients over the head's 16 channels: Float rounding.
        assertClose(fastCoarse.coarse!.scalars, referenceCoarse.coarse!.scalars, absolute: 1e-3, relative: 1e-4, "coarse input")
    }
}
