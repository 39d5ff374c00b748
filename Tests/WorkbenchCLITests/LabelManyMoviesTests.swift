import Foundation
import XCTest
import _TestSupport

/// `workbench label MODEL a.mp4 b.mp4 ... --movie-data FILE`: several movies into the player's file in one run, each
/// under its file name, each written as soon as it is labelled. Uses `LabelCommandTests`' model and 40-second video.
extension LabelCommandTests {
    /// A fresh folder holding `Heat.mp4` (the 40-second video) and `Kitten/` (three numbered frames of the cat).
    private func movies() throws -> (folder: URL, video: String, frames: String) {
        let work = folder.appendingPathComponent("many-\(UUID().uuidString)")
        let frames = work.appendingPathComponent("Kitten")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        let cat = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/ModelsTests/Fixtures/chelsea.jpg")
        for number in 1...3 { try FileManager.default.copyItem(at: cat, to: frames.appendingPathComponent("\(number).jpg")) }
        let heat = work.appendingPathComponent("Heat.mp4").path
        try FileManager.default.copyItem(atPath: video, toPath: heat)
        return (work, heat, frames.path)
    }

    private func movieData(_ path: String) throws -> [[String: Any]] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [[String: Any]])
    }

    func testSeveralMoviesGoIntoOneMovieDataUnderTheirFileNames() throws {
        let (work, heat, kitten) = try movies()
        let file = work.appendingPathComponent("MovieData.json").path
        try #"[{"id": 7, "title": "Someone else's", "markers": {"1": "cat"}}]"#.write(toFile: file, atomically: true, encoding: .utf8)
        let outcome = try WorkbenchBinary.run(["label", model, heat, kitten, "--movie-data", file])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertTrue(outcome.errorLines.contains("40 markers written to \(file) (movie id Heat)"), outcome.standardError)
        XCTAssertTrue(outcome.errorLines.contains("3 markers written to \(file) (movie id Kitten)"), outcome.standardError)
        let movies = try movieData(file)
        XCTAssertEqual(movies.map { "\($0["id"] ?? "")" }, ["7", "Heat", "Kitten"], "the other movie kept, then the run's in order")
        XCTAssertEqual((movies[0]["markers"] as? [String: String]), ["1": "cat"])
        XCTAssertEqual((movies[1]["markers"] as? [String: String])?.count, 40)
        XCTAssertEqual((movies[2]["markers"] as? [String: String]), ["0": "cat", "1": "cat", "2": "cat"])

        // One movie without --id: its file name too, so a rerun updates it in place.
        let again = try WorkbenchBinary.run(["label", model, kitten, "--movie-data", file, "--changes-only"])
        XCTAssertEqual(again.status, 0, again.standardError)
        let updated = try movieData(file)
        XCTAssertEqual(updated.map { "\($0["id"] ?? "")" }, ["7", "Heat", "Kitten"])
        XCTAssertEqual((updated[2]["markers"] as? [String: String]), ["0": "cat"])
    }

    func testTwoMoviesWithOneIDAreRefusedBeforeAnyWork() throws {
        let (work, heat, kitten) = try movies()
        let other = work.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let twin = other.appendingPathComponent("Heat.mkv").path
        try FileManager.default.copyItem(atPath: heat, toPath: twin)
        let file = work.appendingPathComponent("MovieData.json").path
        let refused = try WorkbenchBinary.run(["label", model, heat, kitten, twin, "--movie-data", file])
        XCTAssertEqual(refused.status, 1)
        let message = "workbench: \(twin): has the id 'Heat' of \(heat) too: movie ids are file names without extension, and must differ"
        XCTAssertEqual(refused.errorLines, [message])
        XCTAssertFalse(FileManager.default.fileExists(atPath: file), "refused before any movie is labelled")
        // The wording of a sharded run's, whose results `label merge` reads.
        let sharded = try WorkbenchBinary.run(["label", model, heat, kitten, twin, "--results", work.appendingPathComponent("results").path])
        XCTAssertEqual(sharded.status, 1)
        XCTAssertEqual(sharded.errorLines, [message])

        // --id and the details name one movie.
        for option in [["--id", "3"], ["--title", "Heat"], ["--poster", "heat.jpg"]] {
            let outcome = try WorkbenchBinary.run(["label", model, heat, kitten, "--movie-data", file] + option)
            XCTAssertEqual(outcome.status, 64, "\(option)")
            XCTAssertEqual(
                outcome.errorLines.first,
                "Error: --id, --title, --description and --poster describe a single movie; "
                    + "with several, each movie's id in --movie-data is its file name without extension")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file))
    }

    func testAMovieThatFailsIsNamedAndTheOthersAreStillWritten() throws {
        let (work, heat, _) = try movies()
        let broken = work.appendingPathComponent("Broken.mp4").path
        try Data("this is not a video".utf8).write(to: URL(fileURLWithPath: broken))
        let file = work.appendingPathComponent("MovieData.json").path
        let outcome = try WorkbenchBinary.run(["label", model, heat, broken, "--movie-data", file])
        XCTAssertEqual(outcome.status, 1, outcome.standardError)
        let errors = outcome.errorLines.filter { $0.hasPrefix("workbench: ") }
        XCTAssertEqual(errors.count, 2, outcome.standardError)
        XCTAssertTrue(errors[0].hasPrefix("workbench: \(broken): not a video file") && errors[0].hasSuffix("(movie skipped)"), errors[0])
        XCTAssertEqual(errors[1], "workbench: 1 of 2 movies could not be labelled: \(broken)")
        let movies = try movieData(file)
        XCTAssertEqual(movies.map { "\($0["id"] ?? "")" }, ["Heat"], "the movie labelled before the failure is kept")
        XCTAssertEqual((movies[0]["markers"] as? [String: String])?.count, 40)
    }
}
