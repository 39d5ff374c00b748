import XCTest
import ImageCodecs

final class RectangleOutlineTests: XCTestCase {
    func testOutlineAgainstAPerPixelDistanceRule() {
        var image = RGBImage(width: 12, height: 9, pixels: [UInt8](repeating: 0, count: 12 * 9 * 3))
        let region = PixelRegion(left: -2, top: 2, width: 10, height: 6)
        RectangleOutline(region: region, thickness: 2, red: 255, green: 220, blue: 0).draw(on: &image)
        for y in 0..<9 {
            for x in 0..<12 {
                // Inside the rectangle and within 2 pixels of one of its edges.
                let inside = x >= -2 && x < 8 && y >= 2 && y < 8
                let nearEdge = x - (-2) < 2 || 7 - x < 2 || y - 2 < 2 || 7 - y < 2
                let expected: (UInt8, UInt8, UInt8) = inside && nearEdge ? (255, 220, 0) : (0, 0, 0)
                XCTAssertTrue(image[x, y] == expected, "pixel \(x), \(y)")
            }
        }
    }

    func testCropCopiesTheRegionAndClipsIt() {
        let pixels = (0..<(5 * 4 * 3)).map { UInt8($0) }
        let image = RGBImage(width: 5, height: 4, pixels: pixels)
        let crop = image.cropped(to: PixelRegion(left: 3, top: 2, width: 4, height: 4))
        XCTAssertEqual(crop.width, 2)
        XCTAssertEqual(crop.height, 2)
        XCTAssertTrue(crop[1, 1] == image[4, 3])
        XCTAssertEqual(image.cropped(to: PixelRegion(left: 9, top: 0, width: 2, height: 2)).width, 0)
    }
}
