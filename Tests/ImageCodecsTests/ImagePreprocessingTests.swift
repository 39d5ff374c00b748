import Foundation
import ImageCodecs
import XCTest
import _TestSupport

/// The preprocessing value: its stored form, its checks, and that it does what its fields say.
final class ImagePreprocessingTests: XCTestCase {
    /// The stored text is part of the model format (and of every feature cache key): spelled out here by hand.
    func testCanonicalJSONIsSortedAndComplete() throws {
        let text = ImagePreprocessing.efficientNetLite0.canonicalJSON
        XCTAssertEqual(
            text,
            #"{"alphaBackground":[255,255,255],"channelOrder":"RGB","cropPadding":32,"inputSide":224,"#
                + #""mean":[127,127,127],"name":"tf_crop_pad32","resample":"bicubic-antialiased","std":[128,128,128],"#
                + #""version":1}"#)
        XCTAssertEqual(try JSONDecoder().decode(ImagePreprocessing.self, from: Data(text.utf8)), .efficientNetLite0)
    }

    func testDefaultIsSupportedAndOtherValuesNameTheirField() {
        XCTAssertNil(ImagePreprocessing.efficientNetLite0.unsupportedField(backboneInputSide: 224))
        var other = ImagePreprocessing.efficientNetLite0
        other.inputSide = 256
        XCTAssertNil(other.unsupportedField(), "without a backbone, any positive side can be performed")
        XCTAssertEqual(other.unsupportedField(backboneInputSide: 224), "'inputSide' is 256; the backbone takes 224")
        other = .efficientNetLite0
        other.mean = [127, 127]
        XCTAssertEqual(other.unsupportedField(), "'mean' is [127.0, 127.0], not 3 finite numbers")
        other = .efficientNetLite0
        other.inputSide = .max
        XCTAssertEqual(other.unsupportedField(), "'inputSide' is \(Int.max), not between 1 and 1048576", "no overflow")
        other.cropPadding = .max
        XCTAssertNotNil(other.unsupportedField())
        other = .efficientNetLite0
        other.cropPadding = -1
        XCTAssertEqual(other.unsupportedField(), "'cropPadding' is -1, not between 0 and 3584")
    }

    /// Per-channel normalisation: `(pixel − mean[c]) / std[c]`, checked against a hand computation on a 224 × 224
    /// image, with different numbers per channel so a channel mix-up shows.
    func testNetworkInputNormalisesEachChannelWithItsOwnNumbers() {
        var recipe = ImagePreprocessing.efficientNetLite0
        recipe.mean = [100, 50, 0]
        recipe.std = [2, 4, 8]
        let side = recipe.inputSide
        var pixels = [UInt8](repeating: 0, count: side * side * 3)
        for index in 0..<side * side { pixels[3 * index] = 200; pixels[3 * index + 1] = 10; pixels[3 * index + 2] = 255 }
        let input = recipe.networkInput(from: RGBImage(width: side, height: side, pixels: pixels))
        XCTAssertEqual(input.count, side * side * 3)
        XCTAssertEqual(Array(input[0..<3]), [50, -10, 31.875])
        XCTAssertEqual(Array(input[(input.count - 3)...]), [50, -10, 31.875])
    }

    /// An image of another size is centre-cropped with `cropPadding` and resized to `inputSide`: the same as
    /// doing those two steps by hand.
    func testNetworkInputCropsWithTheValuesPadding() {
        var generator = SeededGenerator(seed: 3)
        let image = RGBImage(width: 300, height: 260, pixels: (0..<(300 * 260 * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        var recipe = ImagePreprocessing.efficientNetLite0
        recipe.cropPadding = 0
        let byHand = Resize.bicubic(image, crop: CenterCrop(width: 300, height: 260, outputSide: 224, padding: 0), outputSide: 224)
        XCTAssertEqual(recipe.networkInput(from: image), byHand.pixels.map { (Float($0) - 127) / 128 })
        XCTAssertNotEqual(
            ImagePreprocessing.efficientNetLite0.networkInput(from: image), recipe.networkInput(from: image),
            "the padding is used, not a constant")
    }
}
