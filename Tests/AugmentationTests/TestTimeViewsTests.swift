import ImageCodecs
import XCTest
import _TestSupport
@testable import Augmentation

/// The test-time views are what their documentation says, each built here from ImageCodecs' own steps
/// (`networkInput`, `Resize.bicubic` on the centre region) and a mirror done by hand, and averaging is the plain
/// mean over an image's views.
final class TestTimeViewsTests: XCTestCase {
    private let preprocessing = ImagePreprocessing.efficientNetLite0

    /// A 224 × 224 image with structure everywhere (no symmetry a wrong mirror or crop could hide behind).
    private func square() -> RGBImage {
        var generator = SeededGenerator(seed: 26)
        let pixels = (0..<(224 * 224 * 3)).map { index -> UInt8 in
            let x = (index / 3) % 224, y = index / 3 / 224
            return UInt8((x * 3 + y * 5 + index % 3 * 40 + Int.random(in: 0...20, using: &generator)) % 256)
        }
        return RGBImage(width: 224, height: 224, pixels: pixels)
    }

    private func normalised(_ image: RGBImage) -> [Float] { preprocessing.networkInput(from: image) }

    /// Column x of every row takes column 223 − x, on 8-bit pixels.
    private func mirrored(_ image: RGBImage) -> RGBImage {
        var pixels = image.pixels
        for y in 0..<image.height {
            for x in 0..<image.width {
                for channel in 0..<3 {
                    pixels[(y * image.width + x) * 3 + channel] = image.pixels[(y * image.width + image.width - 1 - x) * 3 + channel]
                }
            }
        }
        return RGBImage(width: image.width, height: image.height, pixels: pixels)
    }

    private func view(_ inputs: [Float], _ index: Int) -> [Float] {
        Array(inputs[(index * preprocessing.inputCount)..<((index + 1) * preprocessing.inputCount)])
    }

    func testTheFourViewsAreTheImageTheCentreCropAndTheirMirrors() {
        let image = square()
        let views = TestTimeViews(mirrors: true)
        let inputs = views.render(image, preprocessing: preprocessing)
        XCTAssertEqual(views.count, 4)
        XCTAssertEqual(inputs.count, 4 * preprocessing.inputCount)
        let region = TestTimeViews.centerRegion(inputSide: 224)
        XCTAssertEqual(region, PixelRegion(left: 14, top: 14, width: 196, height: 196), "87.5 % of 224, centred")
        let closer = Resize.bicubic(image, region: region, outputWidth: 224, outputHeight: 224)
        XCTAssertEqual(view(inputs, 0), normalised(image), "view 1 is the network input itself")
        XCTAssertEqual(view(inputs, 1), normalised(closer), "view 2 is the centre crop resized by the preprocessing's resampler")
        XCTAssertEqual(view(inputs, 2), normalised(mirrored(image)), "view 3 is view 1 mirrored")
        XCTAssertEqual(view(inputs, 3), normalised(mirrored(closer)), "view 4 is view 2 mirrored")
        XCTAssertNotEqual(view(inputs, 0), view(inputs, 1))
    }

    /// The crop is centred, so mirroring the image first and cropping after gives the same pixels as the other
    /// way round; the ONNX graph relies on it.
    func testMirroringCommutesWithTheCentreCrop() {
        let image = square()
        let region = TestTimeViews.centerRegion(inputSide: 224)
        XCTAssertEqual(
            Resize.bicubic(mirrored(image), region: region, outputWidth: 224, outputHeight: 224),
            mirrored(Resize.bicubic(image, region: region, outputWidth: 224, outputHeight: 224)))
    }

    /// A model trained with --no-flip: two views, neither mirrored.
    func testANoFlipModelsViewsAreNeverMirrored() {
        let image = square()
        let views = TestTimeViews(mirrors: false)
        let inputs = views.render(image, preprocessing: preprocessing)
        XCTAssertEqual(views.count, 2)
        XCTAssertEqual(
            inputs,
            Array(
                TestTimeViews(mirrors: true).render(image, preprocessing: preprocessing)
                    .prefix(2 * preprocessing.inputCount)))
        XCTAssertFalse(views.parameters(inputSide: 224).contains { $0.flipped })
    }

    /// An image of another size is first cropped and resized as the preprocessing says, then viewed.
    func testALargerImageIsPreprocessedFirst() {
        var generator = SeededGenerator(seed: 3)
        let large = RGBImage(
            width: 300, height: 260,
            pixels: (0..<(300 * 260 * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let views = TestTimeViews(mirrors: true)
        XCTAssertEqual(
            views.render(large, preprocessing: preprocessing),
            views.render(preprocessing.inputImage(from: large), preprocessing: preprocessing))
        XCTAssertEqual(view(views.render(large, preprocessing: preprocessing), 0), preprocessing.networkInput(from: large))
    }

    func testAveragingIsTheMeanOfEachImagesViews() {
        // Two images, four views each, three values per view.
        let rows: [Float] = [
            0.1, 0.2, 0.7, 0.3, 0.3, 0.4, 0.5, 0.5, 0, 0.1, 0, 0.9,
            1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0,
        ]
        let averaged = TestTimeViews(mirrors: true).average(rows, width: 3)
        assertClose(averaged, [0.25, 0.25, 0.5, 0.5, 0.25, 0.25], absolute: 1e-7)
        assertClose(TestTimeViews(mirrors: false).average([0.2, 0.8, 0.6, 0.4], width: 2), [0.4, 0.6], absolute: 1e-7)
    }
}
