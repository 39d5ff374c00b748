import Foundation
import ImageCodecs
import XCTest

/// Access to the checked-in fixtures written by `scripts/fixtures/make-codec-fixtures.py`.
enum Fixtures {
    /// The folder holding the fixtures (copied into the test bundle).
    static var folder: URL {
        get throws {
            guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
                throw FixtureError.missing("Fixtures folder not in the test bundle")
            }
            return url
        }
    }

    static func path(_ name: String) throws -> String {
        let path = try folder.appendingPathComponent(name).path
        guard FileManager.default.fileExists(atPath: path) else {
            throw FixtureError.missing(
                "fixture \(name) is missing: run .venv/bin/python3 scripts/fixtures/make-codec-fixtures.py (after scripts/setup.sh)")
        }
        return path
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: try path(name))))
    }

    /// One entry of `manifest.json`.
    struct Case: Decodable {
        struct Options: Decodable {
            var minimumCropSide: Int??
            var appliesEXIFOrientation: Bool?
            var maximumPixels: Int?

            enum CodingKeys: String, CodingKey { case minimumCropSide, appliesEXIFOrientation, maximumPixels }

            init(from decoder: Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                // A present-but-null minimumCropSide means "no shrinking", which differs from "absent" (default).
                if container.contains(.minimumCropSide) {
                    minimumCropSide = .some(try container.decodeIfPresent(Int.self, forKey: .minimumCropSide))
                }
                appliesEXIFOrientation = try container.decodeIfPresent(Bool.self, forKey: .appliesEXIFOrientation)
                maximumPixels = try container.decodeIfPresent(Int.self, forKey: .maximumPixels)
            }

            var decodeOptions: DecodeOptions {
                var options = DecodeOptions()
                if let minimumCropSide { options.minimumCropSide = minimumCropSide }
                if let appliesEXIFOrientation { options.appliesEXIFOrientation = appliesEXIFOrientation }
                if let maximumPixels { options.maximumPixels = maximumPixels }
                return options
            }
        }

        var file: String
        var note: String
        var error: String?
        var width: Int?
        var height: Int?
        var expected: String?
        var tolerance: Int?
        var options: Options?
        var uniform: [UInt8]?
    }

    /// The cases of `manifest.json` (JPEG and PNG, by `make-codec-fixtures.py`) or of another manifest
    /// (`formats-manifest.json`: WebP, HEIC, TIFF, GIF and BMP, by `make-format-fixtures.py`).
    static func manifest(_ name: String = "manifest.json") throws -> [Case] {
        struct Manifest: Decodable { var cases: [Case] }
        let data = try Data(contentsOf: URL(fileURLWithPath: try path(name)))
        return try JSONDecoder().decode(Manifest.self, from: data).cases
    }
}

enum FixtureError: Error, CustomStringConvertible {
    case missing(String)
    var description: String {
        switch self {
        case .missing(let message): message
        }
    }
}

/// Fails unless the images have the same size and every sample differs by at most `tolerance`; names the first
/// mismatch and the largest difference.
func assertPixelsClose(
    _ actual: RGBImage, _ expected: RGBImage, tolerance: Int, _ message: String = "",
    file: StaticString = #filePath, line: UInt = #line
) {
    guard actual.width == expected.width, actual.height == expected.height else {
        XCTFail(
            "size \(actual.width)×\(actual.height), expected \(expected.width)×\(expected.height). \(message)",
            file: file, line: line)
        return
    }
    var worst = 0
    var first: Int?
    for index in actual.pixels.indices {
        let difference = abs(Int(actual.pixels[index]) - Int(expected.pixels[index]))
        if difference > tolerance, first == nil { first = index }
        worst = max(worst, difference)
    }
    if let first {
        let pixel = first / 3
        XCTFail(
            "first mismatch at x=\(pixel % actual.width) y=\(pixel / actual.width) channel \(first % 3): "
                + "\(actual.pixels[first]) vs \(expected.pixels[first]); max difference \(worst). \(message)",
            file: file, line: line)
    }
}

/// The integer-only pattern that `make-codec-fixtures.py`'s `pattern()` also draws.
func testPattern(width: Int, height: Int) -> RGBImage {
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
        for x in 0..<width {
            let index = (y * width + x) * 3
            pixels[index] = UInt8(x * 255 / (width - 1))
            pixels[index + 1] = UInt8(y * 255 / (height - 1))
            pixels[index + 2] = ((x / 37) + (y / 23)) % 2 == 0 ? 230 : 20
        }
    }
    return RGBImage(width: width, height: height, pixels: pixels)
}
