import CJPEGShim
import Foundation
import ImageCodecs
import XCTest

/// A 20000×12000 PNG (720 MB as RGB) must decode row by row with box reduction, in far less memory.
final class LargePNGMemoryTests: XCTestCase {
    private func peakResidentMegabytes() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024  // Linux reports kilobytes
    }

    /// Resident set size now, from /proc/self/statm (second field, in pages).
    private func currentResidentMegabytes() throws -> Double {
        let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else {
            throw FixtureError.missing("cannot parse /proc/self/statm: \(statm)")
        }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }

    func testHugePNGDecodesWithinAMemoryBound() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("codecs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("huge.png").path
        var message = [CChar](repeating: 0, count: 256)
        let written = png_shim_write_test_gradient(path, 20_000, 12_000, &message, 256)
        let writerMessage = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        XCTAssertEqual(written, 0, "writing the test PNG failed: \(writerMessage)")
        guard written == 0 else { return }

        let before = try currentResidentMegabytes()
        let image = try ImageLoader.load(path: path)
        // The peak may predate this test, so the bound is taken from the resident size just before decoding:
        // peak-after minus current-before can only overstate what the decode added.
        let growth = peakResidentMegabytes() - before

        // f = 23 is the largest factor keeping the crop side ≥ 448: 869×521 (crop 455); f = 24 gives 833×500 (437).
        XCTAssertEqual([image.width, image.height], [869, 521])
        XCTAssertLessThan(growth, 150, "peak RSS grew by up to \(growth) MB; a full decode needs 720 MB")
        // Pixel (x, y) of the source is (x % 256, y·255/11999, 128 or 192): check one reduced block exactly.
        let (x, y) = (400, 300)
        var sums = [0, 0, 0]
        for dy in 0..<23 {
            for dx in 0..<23 {
                let (sx, sy) = (x * 23 + dx, y * 23 + dy)
                sums[0] += sx % 256
                sums[1] += sy * 255 / 11_999
                sums[2] += 128 + (sx / 1000 % 2) * 64
            }
        }
        let pixel = image[x, y]
        XCTAssertEqual([Int(pixel.red), Int(pixel.green), Int(pixel.blue)], sums.map { ($0 + 264) / 529 })
    }
}
