import Foundation
import XCTest
import _TestSupport

/// `workbench features` through the release binary: the golden numbers end to end, and every kind of bad input.
final class FeaturesCommandTests: XCTestCase {
    let fixtures = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/ModelsTests/Fixtures")

    private func golden(_ name: String, _ key: String) throws -> [Float] {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("golden.json"))
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let image = try XCTUnwrap((root["images"] as? [String: Any])?[name] as? [String: Any])
        return try XCTUnwrap(image[key] as? [Double]).map(Float.init)
    }

    private func jsonLines(_ text: String) throws -> [(path: String, features: [Float])] {
        try text.split(separator: "\n").map { line in
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let features = try XCTUnwrap(object["features"] as? [Double]).map(Float.init)
            return (try XCTUnwrap(object["path"] as? String), features)
        }
    }

    func testGoldenImagesEndToEndOnTheReleaseBuild() throws {
        let inputs = ["chelsea_224.png", "coffee_224.png", "chelsea.png", "coffee.jpg"].map { fixtures.appendingPathComponent($0).path }
        let outcome = try WorkbenchBinary.run(["features", "--json"] + inputs)
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let lines = try jsonLines(outcome.standardOutput)
        XCTAssertEqual(lines.map(\.path), inputs, "one line per image, in input order")
        XCTAssertTrue(lines.allSatisfy { $0.features.count == 1280 })
        // From the exact 224 inputs: as tight as the network test. From full-size files: the whole pipeline.
        XCTAssertGreaterThanOrEqual(cosineSimilarity(lines[0].features, try golden("chelsea", "features_full_from_png")), 0.99999)
        assertClose(lines[1].features, try golden("coffee", "features_full_from_png"), absolute: Tolerance.goldenFeatureMaxAbs)
        XCTAssertGreaterThanOrEqual(cosineSimilarity(lines[2].features, try golden("chelsea", "features_full_from_png")), 0.999)
        XCTAssertGreaterThanOrEqual(cosineSimilarity(lines[3].features, try golden("coffee", "features_full_from_jpeg")), 0.999)
        XCTAssertTrue(outcome.errorLines.last?.contains("images/s") ?? false, "last line gives images per second")
    }

    func testBrokenFilesAreReportedOneLineEachAndTheRestEmbedded() throws {
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let coffee = try Data(contentsOf: fixtures.appendingPathComponent("coffee.jpg"))
        let png = try Data(contentsOf: fixtures.appendingPathComponent("coffee_224.png"))
        let files: [(String, Data)] = [
            ("1-good.jpg", coffee), ("2-empty.jpg", Data()), ("3-text.jpg", Data("hello".utf8)),
            ("4-truncated.jpg", coffee.prefix(coffee.count / 3)), ("5-truncated.png", png.prefix(png.count / 2)),
            ("6-png-named.jpg", png), ("notes.txt", Data("not an image".utf8)),
        ]
        for (name, data) in files { try data.write(to: folder.appendingPathComponent(name)) }
        let outputPath = folder.appendingPathComponent("out.txt").path
        let outcome = try WorkbenchBinary.run(["features", folder.path, "-o", outputPath])
        XCTAssertEqual(outcome.status, 1, "a failed file makes the exit status non-zero")
        let failures = outcome.errorLines.dropLast()
        XCTAssertEqual(failures.count, 4, outcome.standardError)
        for name in ["2-empty.jpg", "3-text.jpg", "4-truncated.jpg", "5-truncated.png"] {
            XCTAssertEqual(
                outcome.errorLines.filter { $0.hasPrefix(folder.appendingPathComponent(name).path + ": ") }.count, 1,
                "\(name) gets exactly one line: \(outcome.standardError)")
        }
        let written = try String(contentsOfFile: outputPath, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(
            written.map { String($0.prefix { $0 != "\t" }) },
            ["1-good.jpg", "6-png-named.jpg"].map { folder.appendingPathComponent($0).path })
    }

    func testMissingInputAndUnwritableOutputFailWithOneLine() throws {
        let missing = try WorkbenchBinary.run(["features", "/no/such/folder"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.errorLines, ["workbench: /no/such/folder: no such file or folder"])

        let unwritable = try WorkbenchBinary.run([
            "features", fixtures.appendingPathComponent("coffee_224.png").path,
            "-o", "/no/such/folder/out.txt",
        ])
        XCTAssertEqual(unwritable.status, 1)
        XCTAssertEqual(unwritable.errorLines.count, 1, unwritable.standardError)
        XCTAssertTrue(unwritable.standardError.contains("/no/such/folder/out.txt"), unwritable.standardError)
    }

    func testHelpTeachesByExample() throws {
        let help = try WorkbenchBinary.run(["features", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.standardOutput.contains("Examples:"), help.standardOutput)
        XCTAssertTrue(help.standardOutput.contains("--threads"), help.standardOutput)
    }
}
