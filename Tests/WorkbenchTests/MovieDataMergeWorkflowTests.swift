import Foundation
import Workbench
import XCTest
import _TestSupport

/// `label merge` in-process: a results folder written through `MovieResultFolder` (as a sharded run's tasks write
/// it, without labeling anything) folded into the player's file.
final class MovieDataMergeWorkflowTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try WorkbenchBinary.temporaryFolder()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private let origin = MovieResultFolder.Origin(
        modelPath: "/models/m.wbmodel", modelSHA256: String(repeating: "ab", count: 32), settings: "every 1 s, smoothing 1")

    /// A run of the movies `a`, `b`, `c` (in that order) whose results folder holds the results of `stored`.
    private func results(storing stored: [String]) throws -> String {
        let path = folder.appendingPathComponent("results").path
        let results = MovieResultFolder(path: path)
        let movies = ["a", "b", "c"].map { MovieResultFolder.Movie(id: $0, path: folder.appendingPathComponent("\($0).mp4").path) }
        try results.prepare(.init(origin: origin, movies: movies))
        for movie in movies where stored.contains(movie.id) {
            let markers = ["0": "\(movie.id)-start", "2.5": "\(movie.id)-end"]
            try results.store(.init(movie: movie, markers: markers, frameCount: 3, origin: origin))
        }
        return path
    }

    private func movies(in path: String) throws -> [[String: Any]] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [[String: Any]])
    }

    func testEveryResultGoesIntoThePlayerFileInTheRunsOrderAndTheOtherMoviesStay() throws {
        let results = try results(storing: ["a", "b", "c"])
        let movieData = folder.appendingPathComponent("MovieData.json").path
        try Data(#"[{"id": "kept", "title": "Kept", "markers": {"1": "x"}}, {"id": "b", "title": "Bee", "markers": {"9": "old"}}]"#.utf8)
            .write(to: URL(fileURLWithPath: movieData))
        let merged = try MovieDataMergeWorkflow.run(MovieDataMergeRequest(results: results, movieData: movieData))
        XCTAssertEqual([merged.movies, merged.markers], [3, 6])
        let written = try movies(in: movieData)
        XCTAssertEqual(written.compactMap { $0["id"] as? String }, ["kept", "b", "a", "c"], "b updated in place, a and c added in run order")
        XCTAssertEqual(written[0]["markers"] as? [String: String], ["1": "x"], "a movie of no result is left as it was")
        XCTAssertEqual(written[1]["title"] as? String, "Bee", "an updated movie keeps its title")
        XCTAssertEqual(written[1]["markers"] as? [String: String], ["0": "b-start", "2.5": "b-end"], "and gets the result's markers only")
        XCTAssertEqual(written[3]["markers"] as? [String: String], ["0": "c-start", "2.5": "c-end"])
    }

    func testAMovieWithoutAResultIsNamedAndThePlayerFileIsLeftAsItWas() throws {
        let results = try results(storing: ["a", "b"])
        let movieData = folder.appendingPathComponent("MovieData.json").path
        let before = Data(#"[{"id": "b", "markers": {}}]"#.utf8)
        try before.write(to: URL(fileURLWithPath: movieData))
        XCTAssertThrowsError(try MovieDataMergeWorkflow.run(MovieDataMergeRequest(results: results, movieData: movieData))) { error in
            let error = error as? WorkbenchError
            XCTAssertEqual(error?.path, results)
            XCTAssertEqual(error?.reason, "1 of 3 movies have no result: c (\(self.folder.appendingPathComponent("c.mp4").path))")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: movieData)), before)
        // The results folder cannot be the player file too.
        XCTAssertThrowsError(try MovieDataMergeWorkflow.run(MovieDataMergeRequest(results: results, movieData: results)))
    }
}
