import Augmentation
import Foundation
import ImageCodecs
import Models
import XCTest
import _TestSupport

/// With the augmentations off, a view is the model's preprocessing of the file, bit for bit.
final class PreprocessingEquivalenceTests: XCTestCase {
    /// Files that exercise every decoding path: ImageCodecs' fixtures (EXIF orientations, grey, CMYK, 16-bit,
    /// palettes, a 4000 × 3000 JPEG that DCT-scales) and a large PNG that box-reduces, a 224 × 224 and a 1-pixel one.
    private func files(in folder: URL) throws -> [String] {
        let fixtures = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/ImageCodecsTests/Fixtures")
        // The fixtures made to fail (empty, truncated, text, a header claiming 10 gigapixels) have no input to compare.
        let broken: Set<String> = ["empty.jpg", "jpeg_truncated.jpg", "png_truncated.png", "png_huge_header.png", "text.jpg"]
        var paths = try FileManager.default.contentsOfDirectory(atPath: fixtures.path)
            .filter { ($0.hasSuffix(".jpg") || $0.hasSuffix(".png")) && !broken.contains($0) }
            .sorted().map { fixtures.appendingPathComponent($0).path }
        for (name, width, height) in [
            ("large.png", 1300, 1100), ("square.png", 224, 224), ("dot.png", 1, 1),
            ("thin.png", 3, 90),
        ] {
            let image = RGBImage(width: width, height: height, pixels: TestImages.pattern(width: width, height: height, seed: 3))
            let url = folder.appendingPathComponent(name)
            try Data(try PNGEncoder.encode(image, name: name)).write(to: url)
            paths.append(url.path)
        }
        return paths
    }

    func testNoAugmentationEqualsTodaysPreprocessingBitForBit() throws {
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let paths = try files(in: folder)
        XCTAssertGreaterThan(paths.count, 15)
        let expected = try paths.flatMap { path in
            ImagePreprocessing.efficientNetLite0.networkInput(
                from: try ImageLoader.load(path: path, options: ImagePreprocessing.efficientNetLite0.decodeOptions(maximumPixels: 300_000_000)))
        }
        let inputs = try AugmentedInputs(paths: paths, policy: .none, seed: 5, threads: 2)
        XCTAssertEqual(inputs.keptCount, paths.count)
        XCTAssertEqual(try inputs.inputs(images: Array(paths.indices), epoch: 3, threads: 2), expected)
        // Nothing held (every view decodes its file again), and transforms present at zero strength: the same
        // inputs (on the generated files, which take the box-reduction, square and tiny paths).
        let count = ImagePreprocessing.efficientNetLite0.inputCount
        let generated = Array(paths.indices.suffix(4))
        let expectedGenerated = Array(expected[(generated[0] * count)...])
        let decodedAgain = try AugmentedInputs(paths: paths, policy: .none, seed: 5, memoryBudget: 0, threads: 2)
        XCTAssertEqual(decodedAgain.keptCount, 0)
        XCTAssertEqual(try decodedAgain.inputs(images: generated, epoch: 3, threads: 2), expectedGenerated)
        let zero = AugmentationPolicy(
            color: .init(maximumStops: 0, maximumContrastChange: 0),
            blur: .init(probability: 0, maximumSigma: 1),
            noise: .init(probability: 0, maximumStandardDeviation: 4))
        let zeroStrength = try AugmentedInputs(paths: Array(paths.suffix(4)), policy: zero, seed: 5, threads: 2)
        XCTAssertEqual(try zeroStrength.inputs(images: [0, 1, 2, 3], epoch: 0, threads: 2), expectedGenerated)
    }

    func testBudgetKeepsImagesInOrderUntilFull() throws {
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var paths: [String] = []
        for index in 0..<5 {
            let image = RGBImage(width: 100, height: 100, pixels: TestImages.pattern(width: 100, height: 100, seed: UInt64(index)))
            let url = folder.appendingPathComponent("\(index).png")
            try Data(try PNGEncoder.encode(image, name: url.path)).write(to: url)
            paths.append(url.path)
        }
        let inputs = try AugmentedInputs(paths: paths, policy: .fineTuningDefault, seed: 1, memoryBudget: 100 * 100 * 3 * 2 + 5, threads: 2)
        XCTAssertEqual(inputs.keptCount, 2)
        XCTAssertEqual(inputs.keptBytes, 60_000)
        let all = try AugmentedInputs(paths: paths, policy: .fineTuningDefault, seed: 1, threads: 2)
        XCTAssertEqual(try inputs.inputs(images: [4, 0, 3], epoch: 2), try all.inputs(images: [4, 0, 3], epoch: 2))
        // An image past the budget that disappears is reported with its path when its view is asked for.
        try FileManager.default.removeItem(atPath: paths[4])
        XCTAssertThrowsError(try inputs.inputs(images: [0, 4], epoch: 0)) { error in
            XCTAssertEqual((error as? AugmentationError)?.path, paths[4])
        }
    }

    func testUnreadableFileIsNamed() throws {
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("broken.jpg").path
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try AugmentedInputs(paths: [path], policy: .none, seed: 0)) { error in
            XCTAssertEqual("\(error)", "\(path): not a picture Workbench can read (JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP)")
        }
    }
}
