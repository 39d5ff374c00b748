import ImageCodecs
import XCTest

/// `ImageLoader.size` reads what a full decode would return, from the header alone.
final class ImageSizeTests: XCTestCase {
    /// Every fixture that decodes: the header's size (EXIF orientation applied or not, as the case asks) is the
    /// size of the whole picture decoded without shrinking or cropping.
    func testHeaderSizeIsTheDecodedSizeOfEveryFixture() throws {
        var checked = 0
        for fixture in try Fixtures.manifest() where fixture.error == nil {
            var options = fixture.options?.decodeOptions ?? DecodeOptions()
            options.minimumCropSide = nil
            options.cropAndResize = nil
            let path = try Fixtures.path(fixture.file)
            if fixture.file == "jpeg_large_4000x3000.jpg" {
                // Decoding 12 megapixels in a debug build is slow; its name says its size.
                XCTAssertEqual(try ImageLoader.size(path: path, options: options), ImageSize(width: 4000, height: 3000))
                continue
            }
            let image = try ImageLoader.load(path: path, options: options)
            XCTAssertEqual(
                try ImageLoader.size(path: path, options: options), ImageSize(width: image.width, height: image.height),
                "\(fixture.file) (\(fixture.note))")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 20)
    }

    /// The EXIF orientations that turn the picture a quarter exchange width and height; a truncated file still has
    /// its header; files that are no picture fail with the decoder's reason.
    func testOrientationTruncationAndRefusals() throws {
        let rotated = try Fixtures.path("jpeg_exif6.jpg")
        let upright = try ImageLoader.size(path: rotated, options: DecodeOptions(appliesEXIFOrientation: false))
        XCTAssertEqual(try ImageLoader.size(path: rotated), ImageSize(width: upright.height, height: upright.width))
        XCTAssertNoThrow(try ImageLoader.size(path: try Fixtures.path("jpeg_truncated.jpg")))
        XCTAssertThrowsError(try ImageLoader.size(path: try Fixtures.path("empty.jpg"))) { error in
            XCTAssertEqual((error as? ImageError)?.reason, "empty file")
        }
        XCTAssertThrowsError(try ImageLoader.size(path: try Fixtures.path("text.jpg"))) { error in
            XCTAssertEqual((error as? ImageError)?.reason, "not a picture Workbench can read (JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP)")
        }
        XCTAssertThrowsError(try ImageLoader.size(path: try Fixtures.path("png_huge_header.png"))) { error in
            XCTAssertTrue((error as? ImageError)?.reason.contains("over the limit") == true, "\(error)")
        }
    }
}
