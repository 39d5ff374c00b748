import Foundation
import XCTest
@testable import Labeling

final class MovieResultFolderTests: XCTestCase {
    private let movies = [
        MovieResultFolder.Movie(id: "3", path: "/films/3.mp4"),
        MovieResultFolder.Movie(id: "1", path: "/films/1.mp4"),
        MovieResultFolder.Movie(id: "frames", path: "/films/frames"),
    ]
    private var manifest: MovieResultFolder.Manifest { .init(settings: "model /m.wbmodel sha256 ab, every 1", movies: movies) }

    private func result(_ movie: MovieResultFolder.Movie, _ markers: [String: String]) -> MovieResultFolder.Result {
        .init(movie: movie, markers: markers, frameCount: markers.count)
    }

    func testManifestIsWrittenOnceAndEveryTaskOfTheSameRunAgrees() throws {
        let folder = MovieResultFolder(path: try makeTemporaryFolder(self) + "/results/run")
        try folder.prepare(manifest)
        try folder.prepare(manifest)
        XCTAssertEqual(try folder.loadManifest(), manifest)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(names, ["manifest.json", "movies"], "no temporary file left behind")
    }

    func testManyTasksPreparingAtOnceAllSucceedOnOneManifest() throws {
        let folder = MovieResultFolder(path: try makeTemporaryFolder(self) + "/results")
        let failures = FailureList()
        let manifest = manifest
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            do { try folder.prepare(manifest) } catch { failures.add("\(error)") }
        }
        XCTAssertEqual(failures.all, [])
        XCTAssertEqual(try folder.loadManifest(), manifest)
    }

    func testAnotherRunsFolderIsRefusedNamingWhatDiffers() throws {
        let folder = MovieResultFolder(path: try makeTemporaryFolder(self))
        try folder.prepare(manifest)
        var otherSettings = manifest
        otherSettings.settings = "model /m.wbmodel sha256 ab, every 2"
        let settingsError = assertLabelingError(.resultsMismatch) { try folder.prepare(otherSettings) }
        XCTAssertEqual(settingsError?.description, "\(folder.path): holds the results of a run with other settings "
                       + "(model /m.wbmodel sha256 ab, every 1); use another results folder or empty this one")
        var otherMovies = manifest
        otherMovies.movies[1].path = "/films/one.mp4"
        let moviesError = assertLabelingError(.resultsMismatch) { try folder.prepare(otherMovies) }
        XCTAssertEqual(moviesError?.description, "\(folder.path): holds the results of a run with other movies "
                       + "(3: movie 2 was 1 (/films/1.mp4), now 1 (/films/one.mp4)); use another results folder or empty this one")
    }

    func testResultsRoundTripAndOnlyWholeMatchingFilesCountAsDone() throws {
        let folder = MovieResultFolder(path: try makeTemporaryFolder(self))
        try folder.prepare(manifest)
        XCTAssertFalse(folder.hasResult(for: movies[0]))
        let stored = result(movies[0], ["0": "Calm", "5": "Scary"])
        try folder.store(stored)
        XCTAssertTrue(folder.hasResult(for: movies[0]))
        XCTAssertEqual(try folder.loadResult(for: movies[0]), stored)

        // A result of the same id for another file is not this movie's.
        XCTAssertFalse(folder.hasResult(for: .init(id: "3", path: "/elsewhere/3.mp4")))
        // A damaged file is not done (it is redone), and reading it says why.
        try Data("{\"id\": \"1\", \"path\"".utf8).write(to: URL(fileURLWithPath: folder.resultPath(id: "1")))
        XCTAssertFalse(folder.hasResult(for: movies[1]))
        let damaged = assertLabelingError(.resultsMismatch) { try folder.loadResult(for: movies[1]) }
        XCTAssertTrue(damaged?.description.hasPrefix(folder.resultPath(id: "1") + ": not valid JSON") == true, "\(String(describing: damaged))")
    }

    func testAllResultsComeInManifestOrderOrTheMissingAreNamed() throws {
        let folder = MovieResultFolder(path: try makeTemporaryFolder(self))
        try folder.prepare(manifest)
        try folder.store(result(movies[1], ["0": "A"]))
        let missing = assertLabelingError(.resultsMissing) { try folder.allResults() }
        XCTAssertEqual(missing?.description, "\(folder.path): 2 of 3 movies have no result: 3 (/films/3.mp4), frames (/films/frames)")
        try folder.store(result(movies[2], ["1": "B"]))
        try folder.store(result(movies[0], ["2": "C"]))
        XCTAssertEqual(try folder.allResults().results.map(\.movie.id), ["3", "1", "frames"])
    }

    func testManyMissingAreCountedAfterTheFirstTen() throws {
        let many = (1...25).map { MovieResultFolder.Movie(id: "\($0)", path: "/films/\($0).mp4") }
        let folder = MovieResultFolder(path: try makeTemporaryFolder(self))
        try folder.prepare(.init(settings: "s", movies: many))
        let error = assertLabelingError(.resultsMissing) { try folder.allResults() }
        XCTAssertTrue(error?.description.hasSuffix("10 (/films/10.mp4) and 15 more") == true, "\(String(describing: error))")
    }

    func testIdsBecomeDistinctPlainFileNames() {
        XCTAssertEqual(MovieResultFolder.fileName(id: "3"), "3")
        XCTAssertEqual(MovieResultFolder.fileName(id: "The_Movie-2.final"), "The_Movie-2.final")
        XCTAssertEqual(MovieResultFolder.fileName(id: "a/b"), "a%2Fb")
        XCTAssertEqual(MovieResultFolder.fileName(id: ".."), "%2E.")
        XCTAssertEqual(MovieResultFolder.fileName(id: "50%"), "50%25")
        XCTAssertEqual(MovieResultFolder.fileName(id: "two words"), "two%20words")
        XCTAssertEqual(MovieResultFolder.fileName(id: "é"), "%C3%A9")
        XCTAssertEqual(MovieResultFolder.fileName(id: ""), "%")
    }

    func testOneMergeWriteEqualsOneUpdatePerMovieInOrder() throws {
        let folder = try makeTemporaryFolder(self)
        let start = #"[{"id": 2, "title": "Kept", "markers": {"9": "Old"}, "rating": 4.50}]"#
        let updates = [MovieUpdate(id: "5", markers: ["0": "A", "10": "B"]), MovieUpdate(id: "2", markers: ["1": "C"]),
                       MovieUpdate(id: "x", markers: [:])]
        for name in ["one-by-one.json", "merged.json"] {
            try Data(start.utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
        }
        for update in updates { try MovieData.update(path: folder + "/one-by-one.json", with: update) }
        try MovieData.update(path: folder + "/merged.json", with: updates)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: folder + "/merged.json")),
                       try Data(contentsOf: URL(fileURLWithPath: folder + "/one-by-one.json")))
    }
}

/// Errors collected from concurrent work.
private final class FailureList: @unchecked Sendable {
    private let lock = NSLock()
    private var failures: [String] = []
    func add(_ failure: String) { lock.lock(); failures.append(failure); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return failures }
}
