import Foundation
import XCTest
@testable import Labeling

final class MovieResultFolderTests: XCTestCase {
    private let movies = [
        MovieResultFolder.Movie(id: "3", path: "/films/3.mp4"),
        MovieResultFolder.Movie(id: "1", path: "/films/1.mp4"),
        MovieResultFolder.Movie(id: "frames", path: "/films/frames"),
    ]
    private let origin = MovieResultFolder.Origin(modelPath: "/m.wbmodel", modelSHA256: "ab", settings: "every 1, smooth 1")
    private var manifest: MovieResultFolder.Manifest { .init(origin: origin, movies: movies) }

    private func result(_ movie: MovieResultFolder.Movie, _ markers: [String: String]) -> MovieResultFolder.Result {
        .init(movie: movie, markers: markers, frameCount: markers.count, origin: origin)
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
        otherSettings.origin.settings = "every 2, smooth 1"
        let settingsError = assertLabelingError(.resultsMismatch) { try folder.prepare(otherSettings) }
        XCTAssertEqual(
            settingsError?.description,
            "\(folder.path): holds the results of a run with other settings "
                + "(model /m.wbmodel sha256 ab, every 1, smooth 1); use another results folder or empty this one")
        var otherMovies = manifest
        otherMovies.movies[1].path = "/films/one.mp4"
        let moviesError = assertLabelingError(.resultsMismatch) { try folder.prepare(otherMovies) }
        XCTAssertEqual(
            moviesError?.description,
            "\(folder.path): holds the results of a run with other movies "
                + "(3: movie 2 was 1 (/films/1.mp4), now 1 (/films/one.mp4)); use another results folder or empty this one")
    }

    func testResultsRoundTripAndOnlyWholeMatchingFilesCountAsDone() throws {
        let folder = MovieResultFolder(path: try makeTemporaryFolder(self))
        try folder.prepare(manifest)
        XCTAssertFalse(try folder.hasResult(for: movies[0], origin: origin))
        let stored = result(movies[0], ["0": "Calm", "5": "Scary"])
        try folder.store(stored)
        XCTAssertTrue(try folder.hasResult(for: movies[0], origin: origin))
        XCTAssertEqual(try folder.loadResult(for: movies[0]), stored)

        // A result of the same id for another file is not this movie's.
        XCTAssertFalse(try folder.hasResult(for: .init(id: "3", path: "/elsewhere/3.mp4"), origin: origin))
        // Nor is one made by another model or with other settings; the same model moved elsewhere is.
        var otherModel = origin
        otherModel.modelSHA256 = "cd"
        XCTAssertFalse(try folder.hasResult(for: movies[0], origin: otherModel))
        var otherSettings = origin
        otherSettings.settings = "every 1, smooth 3"
        XCTAssertFalse(try folder.hasResult(for: movies[0], origin: otherSettings))
        var moved = origin
        moved.modelPath = "/elsewhere/m.wbmodel"
        XCTAssertTrue(try folder.hasResult(for: movies[0], origin: moved))
        // A damaged file is not done (it is redone), and reading it says why.
        try Data("{\"id\": \"1\", \"path\"".utf8).write(to: URL(fileURLWithPath: folder.resultPath(id: "1")))
        XCTAssertFalse(try folder.hasResult(for: movies[1], origin: origin))
        let damaged = assertLabelingError(.resultsMismatch) { try folder.loadResult(for: movies[1]) }
        XCTAssertTrue(damaged?.description.hasPrefix(folder.resultPath(id: "1") + ": not valid JSON") == true, "\(String(describing: damaged))")
    }

    func testMergeRefusesAResultOfAnotherModelOrSettingsNamingTheFileAndWhatDiffers() throws {
        let folder = MovieResultFolder(path: try makeTemporaryFolder(self))
        try folder.prepare(manifest)
        for movie in movies { try folder.store(result(movie, ["0": "A"])) }
        XCTAssertEqual(try folder.allResults().results.count, 3)

        var otherModel = result(movies[1], ["0": "B"])
        otherModel.origin = .init(modelPath: "/other.wbmodel", modelSHA256: "ef", settings: origin.settings)
        try folder.store(otherModel)
        let modelError = assertLabelingError(.resultsMismatch) { try folder.allResults() }
        XCTAssertEqual(
            modelError?.description,
            "\(folder.resultPath(id: "1")): made by another model (/other.wbmodel, sha256 ef) "
                + "than the run's (/m.wbmodel, sha256 ab); label this movie again or merge another folder")

        var otherSettings = result(movies[1], ["0": "B"])
        otherSettings.origin.settings = "every 1, smooth 3"
        try folder.store(otherSettings)
        let settingsError = assertLabelingError(.resultsMismatch) { try folder.allResults() }
        XCTAssertEqual(
            settingsError?.description,
            "\(folder.resultPath(id: "1")): made with other settings "
                + "(smooth 3 where the run has smooth 1); label this movie again or merge another folder")

        // The same model content at another path makes the same markers: merged.
        var moved = result(movies[1], ["0": "B"])
        moved.origin.modelPath = "/moved/m.wbmodel"
        try folder.store(moved)
        XCTAssertEqual(try folder.allResults().results.map(\.markers), [["0": "A"], ["0": "B"], ["0": "A"]])
    }

    // MARK: - Links and special files (decoys in a scratch folder, never system files)

    func testALinkAsAResultFileIsRefusedAndItsTargetNeverWritten() throws {
        let scratch = try makeTemporaryFolder(self)
        let decoy = scratch + "/decoy.txt"
        try Data("decoy\n".utf8).write(to: URL(fileURLWithPath: decoy))
        let folder = MovieResultFolder(path: scratch + "/results")
        try folder.prepare(manifest)
        try FileManager.default.createSymbolicLink(atPath: folder.resultPath(id: "3"), withDestinationPath: decoy)

        let refused = assertLabelingError(.refusedFile) { try folder.store(result(movies[0], ["0": "Calm"])) }
        XCTAssertEqual(refused?.description, "\(folder.resultPath(id: "3")): is a symbolic link; links are not followed inside a results folder")
        XCTAssertEqual(try String(contentsOfFile: decoy, encoding: .utf8), "decoy\n")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: folder.resultPath(id: "3")), decoy, "left as it was")
        // A task asking whether the movie is done is told about the link rather than redoing it through it.
        assertLabelingError(.refusedFile) { try folder.hasResult(for: movies[0], origin: origin) }
        // And a merge refuses it, even when the link points at a well-formed result.
        for movie in movies.dropFirst() { try folder.store(result(movie, ["0": "A"])) }
        try FileManager.default.removeItem(atPath: folder.resultPath(id: "3"))
        try FileManager.default.createSymbolicLink(atPath: folder.resultPath(id: "3"), withDestinationPath: folder.resultPath(id: "1"))
        let merge = assertLabelingError(.refusedFile) { try folder.allResults() }
        XCTAssertEqual(merge?.path, folder.resultPath(id: "3"))
        XCTAssertEqual(try listing(scratch + "/results/movies"), ["1.json", "3.json", "frames.json"], "no temporary file left behind")
    }

    func testALinkedMoviesFolderOrManifestIsRefusedAndNothingIsWrittenIntoItsTarget() throws {
        let scratch = try makeTemporaryFolder(self)
        try FileManager.default.createDirectory(atPath: scratch + "/elsewhere", withIntermediateDirectories: true)
        let linkedMovies = MovieResultFolder(path: scratch + "/one")
        try FileManager.default.createDirectory(atPath: linkedMovies.path, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: linkedMovies.path + "/movies", withDestinationPath: scratch + "/elsewhere")
        let prepare = assertLabelingError(.refusedFile) { try linkedMovies.prepare(manifest) }
        XCTAssertEqual(prepare?.description, "\(linkedMovies.path)/movies: is a symbolic link; links are not followed inside a results folder")
        assertLabelingError(.refusedFile) { try linkedMovies.store(result(movies[0], ["0": "Calm"])) }
        XCTAssertEqual(try listing(scratch + "/elsewhere"), [])

        let decoy = scratch + "/elsewhere/decoy.json"
        try Data("{}".utf8).write(to: URL(fileURLWithPath: decoy))
        let linkedManifest = MovieResultFolder(path: scratch + "/two")
        try FileManager.default.createDirectory(atPath: linkedManifest.path, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: linkedManifest.path + "/manifest.json", withDestinationPath: decoy)
        let manifestError = assertLabelingError(.refusedFile) { try linkedManifest.prepare(manifest) }
        XCTAssertEqual(
            manifestError?.description, "\(linkedManifest.path)/manifest.json: is a symbolic link; links are not followed inside a results folder")
        assertLabelingError(.refusedFile) { try linkedManifest.allResults() }
        XCTAssertEqual(try String(contentsOfFile: decoy, encoding: .utf8), "{}")
    }

    func testAFIFOAsAResultFileIsRefusedWithoutBlocking() throws {
        let folder = MovieResultFolder(path: try makeTemporaryFolder(self))
        try folder.prepare(manifest)
        XCTAssertEqual(mkfifo(folder.resultPath(id: "3"), 0o644), 0)
        let started = Date()
        assertLabelingError(.refusedFile) { try folder.hasResult(for: movies[0], origin: origin) }
        let refused = assertLabelingError(.refusedFile) { try folder.store(result(movies[0], ["0": "Calm"])) }
        XCTAssertEqual(refused?.description, "\(folder.resultPath(id: "3")): is a FIFO, not a regular file; refused inside a results folder")
        assertLabelingError(.refusedFile) { try folder.loadResult(for: movies[0]) }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "nothing waited for a reader or writer")
    }

    func testAResultReplacesTheEntryWithANewFile() throws {
        let folder = MovieResultFolder(path: try makeTemporaryFolder(self))
        try folder.prepare(manifest)
        try folder.store(result(movies[0], ["0": "Calm"]))
        let hardLink = folder.path + "/hard-link-to-result"
        XCTAssertEqual(link(folder.resultPath(id: "3"), hardLink), 0)
        try folder.store(result(movies[0], ["0": "Scary"]))
        XCTAssertEqual(try folder.loadResult(for: movies[0]).markers, ["0": "Scary"])
        XCTAssertTrue(try String(contentsOfFile: hardLink, encoding: .utf8).contains("Calm"), "the old inode was not written")
    }

    // MARK: - Format versions (docs/model-file.md: the version policy)

    private static let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    func testVersion2FolderLoadsWithEverythingItHoldsAndTheWriterWritesItByteForByte() throws {
        let stored = MovieResultFolder(path: Self.fixtures.appendingPathComponent("results-format-2").path)
        let origin = MovieResultFolder.Origin(
            modelPath: "/models/Kids.wbmodel", modelSHA256: "3b1f0c55e2a9d8c7b6a5f4e3d2c1b0a99887766554433221100ffeeddccbbaa9",
            settings: "every 1.0 s, fps -, min-confidence 0.0, fallback Unsure, smooth 1, changes-only no")
        let expected = MovieResultFolder.Manifest(
            origin: origin,
            movies: [
                .init(id: "3", path: "/films/3.mp4"),
                .init(id: "two words", path: "/films/two words"),
            ])
        let (manifest, results) = try stored.allResults()
        XCTAssertEqual(manifest, expected)
        XCTAssertEqual(
            results,
            [
                .init(movie: expected.movies[0], markers: ["0": "Calm", "2": "Scary"], frameCount: 3, origin: origin),
                .init(movie: expected.movies[1], markers: [:], frameCount: 0, origin: origin),
            ])

        let written = MovieResultFolder(path: try makeTemporaryFolder(self) + "/results")
        try written.prepare(expected)
        for result in results { try written.store(result) }
        for file in ["manifest.json", "movies/3.json", "movies/two%20words.json"] {
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: written.path + "/" + file)),
                try Data(contentsOf: Self.fixtures.appendingPathComponent("results-format-2/" + file)), file)
        }
    }

    func testVersion1FolderIsRefusedNamingTheVersion() throws {
        let stored = MovieResultFolder(path: Self.fixtures.appendingPathComponent("results-format-1").path)
        let merge = assertLabelingError(.resultsMismatch) { try stored.allResults() }
        XCTAssertEqual(
            merge?.description,
            "\(stored.path)/manifest.json: written by an earlier Workbench (results format version 1, "
                + "which does not record the model and settings of each result; this build reads version 2): "
                + "use another results folder or empty this one")
        // A version 1 result file in a version 2 folder is redone by a task and refused by a merge.
        let folder = MovieResultFolder(path: try makeTemporaryFolder(self))
        try folder.prepare(manifest)
        for movie in movies { try folder.store(result(movie, ["0": "A"])) }
        try FileManager.default.removeItem(atPath: folder.resultPath(id: "3"))
        try FileManager.default.copyItem(atPath: stored.path + "/movies/3.json", toPath: folder.resultPath(id: "3"))
        XCTAssertFalse(try folder.hasResult(for: movies[0], origin: origin))
        let old = assertLabelingError(.resultsMismatch) { try folder.allResults() }
        XCTAssertEqual(
            old?.description,
            "\(folder.resultPath(id: "3")): written by an earlier Workbench (results format version 1, "
                + "which does not record the model and settings of each result; this build reads version 2): label this movie again")
    }

    func testANewerVersionIsRefusedAskingForAnUpdate() throws {
        let folder = MovieResultFolder(path: try makeTemporaryFolder(self))
        try folder.prepare(manifest)
        let text = try String(contentsOfFile: folder.path + "/manifest.json", encoding: .utf8)
        try Data(text.replacingOccurrences(of: "\"version\" : 2", with: "\"version\" : 3").utf8)
            .write(to: URL(fileURLWithPath: folder.path + "/manifest.json"))
        let newer = assertLabelingError(.resultsMismatch) { try folder.loadManifest() }
        XCTAssertEqual(
            newer?.description,
            "\(folder.path)/manifest.json: written by a newer Workbench (results format version 3; "
                + "this build reads up to version 2): update Workbench")
        for version in ["0", "2.5", "\"2\"", "-1", "99999999999999999999"] {
            try Data(text.replacingOccurrences(of: "\"version\" : 2", with: "\"version\" : \(version)").utf8)
                .write(to: URL(fileURLWithPath: folder.path + "/manifest.json"))
            let bad = assertLabelingError(.resultsMismatch) { try folder.loadManifest() }
            XCTAssertEqual(bad?.reason, "\"version\" is not a results format version (a whole number from 1)", version)
        }
    }

    private func listing(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
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
        try folder.prepare(.init(origin: origin, movies: many))
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
        let updates = [
            MovieUpdate(id: "5", markers: ["0": "A", "10": "B"]), MovieUpdate(id: "2", markers: ["1": "C"]),
            MovieUpdate(id: "x", markers: [:]),
        ]
        for name in ["one-by-one.json", "merged.json"] {
            try Data(start.utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
        }
        for update in updates { try MovieData.update(path: folder + "/one-by-one.json", with: update) }
        try MovieData.update(path: folder + "/merged.json", with: updates)
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: folder + "/merged.json")),
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
