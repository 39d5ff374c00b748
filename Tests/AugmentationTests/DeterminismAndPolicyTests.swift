import Augmentation
import Foundation
import ImageCodecs
import Models
import XCTest
import _TestSupport

/// Views depend on (seed, epoch, image) only; the policy's text, JSON and checks.
final class DeterminismAndPolicyTests: XCTestCase {
    private func images() -> [RGBImage] {
        [(300, 200), (97, 151), (224, 224), (1, 1), (640, 480), (33, 35)].enumerated().map { index, size in
            RGBImage(width: size.0, height: size.1, pixels: TestImages.pattern(width: size.0, height: size.1, seed: UInt64(index)))
        }
    }

    func testViewsAreTheSameWhateverTheThreadsOrderAndBatch() throws {
        let inputs = try AugmentedInputs(images: images(), policy: .fineTuningDefault, seed: 42)
        let count = ImagePreprocessing.efficientNetLite0.inputCount
        let reference = try inputs.inputs(images: [0, 1, 2, 3, 4, 5], epoch: 4, threads: 1)
        for threads in [2, 3, 6] {
            XCTAssertEqual(try inputs.inputs(images: [0, 1, 2, 3, 4, 5], epoch: 4, threads: threads), reference, "\(threads) threads")
        }
        let shuffled = try inputs.inputs(images: [5, 3, 1, 0, 4, 2], epoch: 4, threads: 2)
        for (slot, image) in [5, 3, 1, 0, 4, 2].enumerated() {
            XCTAssertEqual(
                Array(shuffled[(slot * count)..<((slot + 1) * count)]),
                Array(reference[(image * count)..<((image + 1) * count)]))
        }
        XCTAssertEqual(try inputs.inputs(images: [4], epoch: 4, threads: 1), Array(reference[(4 * count)..<(5 * count)]))
        // Another epoch or seed gives other views; the same again gives the same.
        XCTAssertNotEqual(try inputs.inputs(images: [0], epoch: 5, threads: 1), Array(reference[0..<count]))
        let otherSeed = try AugmentedInputs(images: images(), policy: .fineTuningDefault, seed: 43)
        XCTAssertNotEqual(try otherSeed.inputs(images: [0], epoch: 4, threads: 1), Array(reference[0..<count]))
        XCTAssertTrue(reference.allSatisfy { $0.isFinite && $0 >= -127.0 / 128 - 1e-6 && $0 <= 1 })
    }

    func testTurningOneTransformOnLeavesTheOthersChoices() {
        let cropOnly = ViewParameters(policy: AugmentationPolicy(transforms: [.crop]), seed: 3, epoch: 1, image: 2, width: 500, height: 400)
        let all = ViewParameters(policy: .fineTuningDefault, seed: 3, epoch: 1, image: 2, width: 500, height: 400)
        XCTAssertEqual(cropOnly.crop, all.crop)
        XCTAssertNotNil(all.crop)
    }

    func testFlipHappensAboutHalfTheTime() {
        let policy = AugmentationPolicy(transforms: [.flip])
        let flips = (0..<2000).filter { ViewParameters(policy: policy, seed: 1, epoch: 0, image: $0, width: 10, height: 10).flipped }.count
        // Binomial(2000, 1/2): standard deviation 22.
        XCTAssertEqual(Double(flips), 1000, accuracy: 110)
    }

    func testPolicyRoundTripsThroughJSONAndDescribesItself() throws {
        let policy = AugmentationPolicy.fineTuningDefault
        let decoded = try JSONDecoder().decode(AugmentationPolicy.self, from: try JSONEncoder().encode(policy))
        XCTAssertEqual(decoded, policy)
        XCTAssertEqual(AugmentationPolicy.none.describe, "none")
        XCTAssertEqual(
            policy.describe,
            "crop 35–100 % of the area, aspect 0.75–1.33; horizontal flip; rotate ±10°; "
                + "exposure ±0.5 stop, contrast ±25 %; blur σ ≤ 1.5 px on 25 %; noise σ ≤ 8 levels on 25 %")
        XCTAssertEqual(policy.transforms, AugmentationPolicy.Transform.allCases)
        XCTAssertTrue(AugmentationPolicy.none.isNone)
    }

    func testTransformListsParseAndBadOnesAreRefusedWithTheReason() throws {
        XCTAssertEqual(try AugmentationPolicy.transforms(parsing: "crop, flip,noise"), [.crop, .flip, .noise])
        XCTAssertEqual(try AugmentationPolicy.transforms(parsing: "all"), Set(AugmentationPolicy.Transform.allCases))
        XCTAssertEqual(try AugmentationPolicy.transforms(parsing: "none"), [])
        XCTAssertThrowsError(try AugmentationPolicy.transforms(parsing: "crop,zoom")) { error in
            XCTAssertEqual("\(error)", "unknown augmentation 'zoom' (known: crop, flip, rotate, color, blur, noise, or all, or none)")
        }
        XCTAssertThrowsError(try AugmentationPolicy.transforms(parsing: "flip,flip")) { error in
            XCTAssertEqual("\(error)", "augmentation 'flip' is listed twice")
        }
        XCTAssertThrowsError(try AugmentationPolicy.transforms(parsing: "")) { error in
            XCTAssertEqual("\(error)", "unknown augmentation '' (known: crop, flip, rotate, color, blur, noise, or all, or none)")
        }
    }

    func testOutOfRangePoliciesAreRefused() {
        let bad: [(AugmentationPolicy, String)] = [
            (AugmentationPolicy(crop: .init(minimumArea: 0, maximumArea: 1, minimumAspectRatio: 1, maximumAspectRatio: 1)), "crop area"),
            (AugmentationPolicy(crop: .init(minimumArea: 0.5, maximumArea: 1, minimumAspectRatio: 2, maximumAspectRatio: 1)), "aspect ratio"),
            (AugmentationPolicy(maximumRotationDegrees: 90), "rotation"),
            (AugmentationPolicy(color: .init(maximumStops: .nan, maximumContrastChange: 0)), "exposure"),
            (AugmentationPolicy(blur: .init(probability: 1.5, maximumSigma: 1)), "blur probability"),
            (AugmentationPolicy(noise: .init(probability: 1, maximumStandardDeviation: 0)), "noise σ"),
        ]
        for (policy, word) in bad {
            XCTAssertThrowsError(try policy.validate()) { error in
                XCTAssertTrue("\(error)".contains(word), "\(error)")
            }
            XCTAssertThrowsError(try AugmentedInputs(images: [], policy: policy, seed: 0))
        }
        XCTAssertNoThrow(try AugmentationPolicy.fineTuningDefault.validate())
        XCTAssertThrowsError(try AugmentedInputs(images: [RGBImage(width: 0, height: 5, pixels: [])], policy: .none, seed: 0)) { error in
            XCTAssertEqual("\(error)", "image 0 has no pixels (0×5)")
        }
    }
}
