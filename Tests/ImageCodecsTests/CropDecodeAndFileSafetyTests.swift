import CPNGShim
import Foundation
import ImageCodecs
import XCTest

/// Decoding straight to the network's input (`CropAndResize`), images 1 pixel wide or high, and files that must
/// be refused without hanging or reading them whole.
final class CropDecodeAndFileSafetyTests: XCTestCase {
    private let crop = CropAndResize(outputSide: 224, padding: 32)
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("codecs-safety-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// What crop-and-resize must equal: the whole decoded image, cropped and resized afterwards (an image that is
    /// already 224 × 224 taken as it is).
    private func reference(_ whole: RGBImage) -> RGBImage {
        if whole.width == 224 && whole.height == 224 { return whole }
        return Resize.bicubic(whole, crop: CenterCrop(width: whole.width, height: whole.height, outputSide: 224, padding: 32), outputSide: 224)
    }

    private func writeGradientPNG(_ name: String, width: Int, height: Int) throws -> String {
        let path = folder.appendingPathComponent(name).path
        var message = [CChar](repeating: 0, count: 256)
        let status = png_shim_write_test_gradient(path, Int32(width), Int32(height), &message, 256)
        XCTAssertEqual(status, 0, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        return path
    }

    private func reason(loading path: String, options: DecodeOptions = DecodeOptions()) -> String? {
        do {
            _ = try ImageLoader.load(path: path, options: options)
            return nil
        } catch {
            XCTAssertEqual(error.path, path)
            return error.reason
        }
    }

    // MARK: - Crop while decoding gives exactly the crop of the whole image

    func testCropWhileDecodingEqualsCroppingTheWholeImageForEveryFixture() throws {
        var compared = 0
        for fixture in try Fixtures.manifest() where fixture.error == nil {
            let path = try Fixtures.path(fixture.file)
            var options = fixture.options?.decodeOptions ?? DecodeOptions()
            let whole = try ImageLoader.load(path: path, options: options)
            options.cropAndResize = crop
            let cropped = try ImageLoader.load(path: path, options: options)
            XCTAssertEqual(cropped, reference(whole), fixture.file)
            compared += 1
        }
        XCTAssertGreaterThan(compared, 20, "the manifest's decodable fixtures")
    }

    func testCropFollowsEveryEXIFOrientation() throws {
        // jpeg_exif6.jpg is big-endian TIFF with the orientation SHORT at byte 48 of the file (checked below).
        var bytes = try Fixtures.bytes("jpeg_exif6.jpg")
        XCTAssertEqual(Array(bytes[40..<44]), [0x01, 0x12, 0x00, 0x03], "orientation tag, type SHORT")
        XCTAssertEqual(Array(bytes[48..<50]), [0x00, 0x06])
        var outcomes: Set<[UInt8]> = []
        for orientation in UInt8(1)...8 {
            bytes[49] = orientation
            let whole = try ImageLoader.decode(bytes: bytes, path: "exif\(orientation).jpg", options: DecodeOptions())
            let cropped = try ImageLoader.decode(
                bytes: bytes, path: "exif\(orientation).jpg",
                options: DecodeOptions(cropAndResize: crop))
            XCTAssertEqual(cropped, reference(whole), "orientation \(orientation)")
            outcomes.insert(cropped.pixels)
        }
        XCTAssertEqual(outcomes.count, 8, "each orientation turns the crop differently")
    }

    // MARK: - Images 1 pixel wide or high

    func testOnePixelWideOrHighImagesKeepAOnePixelCrop() throws {
        XCTAssertEqual(CenterCrop(width: 1, height: 50, outputSide: 224, padding: 32), CenterCrop(left: 0, top: 25, side: 1))
        XCTAssertEqual(CenterCrop(width: 50, height: 1, outputSide: 224, padding: 32), CenterCrop(left: 25, top: 0, side: 1))
        XCTAssertEqual(CenterCrop(width: 1, height: 1, outputSide: 224, padding: 32), CenterCrop(left: 0, top: 0, side: 1))
        XCTAssertEqual(CenterCrop(width: 2, height: 9, outputSide: 224, padding: 32), CenterCrop(left: 1, top: 4, side: 1), "Int(0.875 · 2) = 1")
        XCTAssertEqual(CenterCrop(width: 0, height: 9, outputSide: 224, padding: 32).side, 0, "no pixels, no crop")
    }

    func testOnePixelWideAndHighPNGsBecomeUniformNetworkInputs() throws {
        // Gradient pixel (x, y) = (x % 256, y·255/(h − 1), 128 + (x/1000 % 2)·64), green 0 when h = 1.
        let cases: [(width: Int, height: Int, pixel: [UInt8])] = [
            (1, 50, [0, UInt8(25 * 255 / 49), 128]),  // crop row (50 − 1 + 1)/2 = 25
            (50, 1, [25, 0, 128]),  // crop column 25
            (1, 1, [0, 0, 128]),
        ]
        for (width, height, pixel) in cases {
            let path = try writeGradientPNG("gradient-\(width)x\(height).png", width: width, height: height)
            let image = try ImageLoader.load(path: path, options: DecodeOptions(cropAndResize: crop))
            XCTAssertEqual([image.width, image.height], [224, 224], "\(width)×\(height)")
            // One pixel resized is that pixel everywhere: the kernel's weights sum to 1.
            XCTAssertEqual(image.pixels, [UInt8]((0..<(224 * 224)).flatMap { _ in pixel }), "\(width)×\(height)")
            let whole = try ImageLoader.load(path: path)
            XCTAssertEqual([whole.width, whole.height], [width, height])
        }
    }

    // MARK: - Header bombs and wide images cost a row and the crop, not the claimed area

    func testWideImageDecodesToItsCropInLittleMemory() throws {
        // 100,000 × 299: 90 MB as RGB. The crop is 261 × 261; a decoder that kept the whole image would need 90 MB.
        let path = try writeGradientPNG("wide.png", width: 100_000, height: 299)
        let before = try resetPeakResidentMegabytes()
        let image = try ImageLoader.load(path: path, options: DecodeOptions(cropAndResize: crop))
        let growth = try peakResidentMegabytes() - before
        XCTAssertEqual([image.width, image.height], [224, 224])
        XCTAssertLessThan(growth, 40, "peak RSS grew by up to \(growth) MB; the whole image is 90 MB")
        // Only the crop's columns count: left = (100000 − 261 + 1)/2 = 49870, so x runs 49870..<50131 and the blue
        // channel (128 + (x/1000 % 2)·64) is 192 for x < 50000 (49 is odd) and 128 after: the middle row crosses over.
        let row = 112
        let blues = (0..<224).map { image[$0, row].blue }
        XCTAssertEqual(blues.first, 192)
        XCTAssertEqual(blues.last, 128)
    }

    func testHeaderBombFailsWithoutAllocatingTheClaimedImage() throws {
        // 65 bytes claiming 1,000,000 × 299 (299 megapixels, under the limit) and holding no image data.
        let path = folder.appendingPathComponent("bomb.png").path
        try Data(Self.headerOnlyPNG(width: 1_000_000, height: 299)).write(to: URL(fileURLWithPath: path))
        let before = try resetPeakResidentMegabytes()
        XCTAssertEqual(reason(loading: path, options: DecodeOptions(cropAndResize: crop))?.hasPrefix("truncated or corrupt PNG data"), true)
        XCTAssertEqual(reason(loading: path)?.hasPrefix("truncated or corrupt PNG data"), true)
        let growth = try peakResidentMegabytes() - before
        XCTAssertLessThan(growth, 60, "peak RSS grew by up to \(growth) MB; the claimed image is 900 MB")
    }

    func testSidesOverTheLimitAreRefusedFromTheHeader() throws {
        let path = folder.appendingPathComponent("tall.png").path
        try Data(Self.headerOnlyPNG(width: 1, height: 2_000_000)).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(reason(loading: path), "image is 1×2000000, wider or taller than the limit of 1048576 pixels")
    }

    // MARK: - Files that are not regular, or too large, are refused unopened and unread

    func testFIFOIsRefusedWithoutBlocking() throws {
        let path = folder.appendingPathComponent("x.png").path
        XCTAssertEqual(mkfifo(path, 0o644), 0)
        XCTAssertEqual(try reasonWithin(seconds: 10, loading: path), "not a regular file (a FIFO)")
    }

    func testDeviceBehindASymbolicLinkIsRefusedUnread() throws {
        let path = folder.appendingPathComponent("zero.jpg").path
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/zero")
        XCTAssertEqual(try reasonWithin(seconds: 10, loading: path), "not a regular file (a character device)")
        let broken = folder.appendingPathComponent("broken.jpg").path
        try FileManager.default.createSymbolicLink(atPath: broken, withDestinationPath: folder.appendingPathComponent("nothing").path)
        XCTAssertEqual(reason(loading: broken), "broken symbolic link (its target does not exist)")
    }

    func testFileLargerThanAnyImageWithinThePixelLimitIsRefusedBySize() throws {
        // 1 megapixel allows 8 bytes a pixel plus 64 MiB: 8,000,000 + 67,108,864 = 75,108,864 bytes.
        let options = DecodeOptions(maximumPixels: 1_000_000)
        XCTAssertEqual(options.maximumFileBytes, 75_108_864)
        let path = folder.appendingPathComponent("huge.jpg").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        XCTAssertEqual(truncate(path, 100_000_000), 0, "a sparse file: no disk used")
        XCTAssertEqual(
            reason(loading: path, options: options),
            "file is 100.0 MB, larger than an image of at most 1 megapixels can be (limit 75.1 MB)")
    }

    func testJPEGFollowedByJunkIsStreamedNotReadWhole() throws {
        // A real JPEG, then 400 MB of zeros (sparse): decoding stops at the end-of-image marker.
        let jpeg = try Fixtures.bytes("jpeg_baseline.jpg")
        let path = folder.appendingPathComponent("junk.jpg").path
        try Data(jpeg).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(truncate(path, off_t(jpeg.count + 400_000_000)), 0)
        let before = try resetPeakResidentMegabytes()
        let image = try ImageLoader.load(path: path, options: DecodeOptions(cropAndResize: crop))
        let growth = try peakResidentMegabytes() - before
        XCTAssertEqual(image, try ImageLoader.decode(bytes: jpeg, path: "plain.jpg", options: DecodeOptions(cropAndResize: crop)))
        XCTAssertLessThan(growth, 40, "peak RSS grew by up to \(growth) MB; the file is 400 MB")
    }

    // MARK: - Helpers

    /// A PNG signature, an IHDR for an 8-bit RGB `width × height` image, an empty IDAT and IEND (CRCs computed).
    static func headerOnlyPNG(width: UInt32, height: UInt32) -> [UInt8] {
        func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
        }
        let header = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]
        // zlib stream of nothing: header 78 9C, a final empty stored block, Adler-32 of nothing (1).
        let emptyZlib: [UInt8] = [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", emptyZlib) + chunk("IEND", [])
    }

    /// CRC-32 as PNG defines it (ISO 3309, reflected, polynomial 0xEDB88320).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// Loads on another thread and fails (rather than hanging the suite) when the load does not return in time.
    private func reasonWithin(seconds: Double, loading path: String) throws -> String? {
        let done = expectation(description: "load returns")
        let box = ReasonBox()
        Thread.detachNewThread {
            do throws(ImageError) {
                _ = try ImageLoader.load(path: path)
            } catch {
                box.set(error.reason)
            }
            done.fulfill()
        }
        wait(for: [done], timeout: seconds)
        return box.get()
    }

    /// Resets the process's peak resident size to the current one (Linux: "5" to /proc/self/clear_refs) and
    /// returns it, so a later peak measures this test alone, whatever earlier tests used.
    private func resetPeakResidentMegabytes() throws -> Double {
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return try peakResidentMegabytes()
    }

    /// VmHWM, the peak resident size since the last reset, in megabytes.
    private func peakResidentMegabytes() throws -> Double {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else {
            throw FixtureError.missing("no VmHWM in /proc/self/status")
        }
        return kilobytes / 1024
    }
}

/// A value handed from a worker thread to the test.
private final class ReasonBox: @unchecked Sendable {
    private let lock = NSLock()
    private var reason: String?
    func set(_ value: String) { lock.lock(); reason = value; lock.unlock() }
    func get() -> String? { lock.lock(); defer { lock.unlock() }; return reason }
}
