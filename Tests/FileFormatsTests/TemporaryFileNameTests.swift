import FileFormats
import Glibc
import XCTest

/// The one temporary naming: hidden, beside the destination, unique per call, the ending kept where asked.
final class TemporaryFileNameTests: XCTestCase {
    func testANameIsHiddenAndCarriesTheProcessAndARandomPart() throws {
        let name = TemporaryFileName.beside("model.wbmodel")
        XCTAssertTrue(name.hasPrefix(".model.wbmodel.partial-\(getpid())-"), name)
        XCTAssertNotNil(UInt32(try XCTUnwrap(name.split(separator: "-").last)), name)
        XCTAssertNotEqual(
            TemporaryFileName.beside("model.wbmodel"), TemporaryFileName.beside("model.wbmodel"),
            "two writers of one file get two names (a 1 in 2^32 clash aside)")
    }

    func testAnEndingReplacesTheNamesOwnSoFFmpegKnowsTheContainer() {
        let name = TemporaryFileName.beside("clip.final.mov", ending: "mov")
        XCTAssertTrue(name.hasPrefix(".clip.final.partial-\(getpid())-"), name)
        XCTAssertTrue(name.hasSuffix(".mov"), name)
        XCTAssertTrue(TemporaryFileName.beside("reel", ending: "mp4").hasPrefix(".reel.partial-"))
        XCTAssertTrue(TemporaryFileName.beside(".hidden", ending: "mp4").hasPrefix("..hidden.partial-"))
    }

    func testAPathStaysInItsFolderAndTheRootHasNoDoubleSlash() {
        XCTAssertTrue(TemporaryFileName.beside("a.png", in: "out/pages").hasPrefix("out/pages/.a.png.partial-"))
        XCTAssertTrue(TemporaryFileName.beside("a.png", in: "/").hasPrefix("/.a.png.partial-"))
    }
}
