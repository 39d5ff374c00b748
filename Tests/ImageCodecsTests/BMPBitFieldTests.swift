@testable import ImageCodecs
import XCTest

/// A BMP's bit masks come from the file: one that is not a single run of ones must not overflow the channel.
final class BMPBitFieldTests: XCTestCase {
    func testAMaskWithAGapKeepsItsLowRunAndNeverTraps() {
        // 0b101: the run is bit 0 alone; bit 2 is past it and dropped.
        XCTAssertEqual(BMPDecoder.channel(0b101, mask: 0b101), 255)
        XCTAssertEqual(BMPDecoder.channel(0b100, mask: 0b101), 0)
        // Both ends of the word: a one-bit run at bit 0 and a stray top bit.
        XCTAssertEqual(BMPDecoder.channel(0xFFFF_FFFF, mask: 0x8000_0001), 255)
        XCTAssertEqual(BMPDecoder.channel(0x8000_0000, mask: 0x8000_0001), 0)
        // Ordinary masks are unchanged: 5-6-5 as Pillow scales them, a whole byte, a wide field's top 8 bits.
        XCTAssertEqual(BMPDecoder.channel(0xF800, mask: 0xF800), 255)
        XCTAssertEqual(BMPDecoder.channel(0x0800, mask: 0xF800), 8)
        XCTAssertEqual(BMPDecoder.channel(0x00AB_0000, mask: 0x00FF_0000), 0xAB)
        XCTAssertEqual(BMPDecoder.channel(0xFFFF_FFFF, mask: 0xFFFF_FFFF), 255)
    }
}
