import FileFormats
import Foundation
import XCTest
@testable import Labeling

final class MovieDataTests: XCTestCase {
    /// A player file with fields Workbench does not know, odd number spellings, nesting and non-ASCII text.
    private let original = """
        [
          {"id": "ghost", "title": "Ghost Story", "description": "Boo", "poster": "ghost.jpg",
           "markers": {"3": "Scary", "40": "Calm"}, "rating": 4.50, "views": 12345678901234567890,
           "tags": ["night", {"deep": [1e3, -0.0, null, true]}], "note": "caf\\u00e9 \\ud83d\\ude00 \\"q\\" / \\n"},
          {"id": "sun", "title": "Sunny", "markers": {}, "extra": {"a": 1}},
          {"id": 7, "title": "Numbered", "markers": {"0": "Funny"}}
        ]
        """

    private func write(_ text: String) throws -> String {
        let path = try makeTemporaryFolder(self) + "/MovieData.json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Parsed by Foundation, independently of our parser, for comparing values.
    private func foundationMovies(_ path: String) throws -> [NSDictionary] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [NSDictionary])
    }

    func testUpdateKeepsOtherMoviesAndUnknownFields() throws {
        let path = try write(original)
        let before = try foundationMovies(path)
        try MovieData.update(path: path, with: MovieUpdate(id: "ghost", markers: ["0": "Calm", "12": "Scary"]))
        let after = try foundationMovies(path)
        XCTAssertEqual(after.count, 3)
        XCTAssertEqual(after[1], before[1])
        XCTAssertEqual(after[2], before[2])
        let ghostBefore = before[0].mutableCopy() as! NSMutableDictionary
        ghostBefore["markers"] = ["0": "Calm", "12": "Scary"]
        XCTAssertEqual(after[0], ghostBefore)
        // Number spellings survive exactly.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains("4.50"))
        XCTAssertTrue(text.contains("12345678901234567890"))
        XCTAssertTrue(text.contains("1e3"))
        XCTAssertTrue(text.contains("-0.0"))
        XCTAssertTrue(text.contains("café 😀"))
    }

    func testValueTreeRoundTripsUnchanged() throws {
        let path = try write(original)
        let data = try MovieData.load(path: path)
        let reparsed = try JSONParser.parse(Array(data.text.utf8))
        XCTAssertEqual(reparsed, try JSONParser.parse(Array(original.utf8)))
        // And the output is stable.
        XCTAssertEqual(try MovieData(document: reparsed, path: path).text, data.text)
    }

    func testOutputIsPrettyAndSorted() throws {
        var data = MovieData()
        data.upsert(MovieUpdate(id: "a", markers: ["2": "B", "10": "A"], title: "T"))
        XCTAssertEqual(
            data.text,
            """
            [
              {
                "description" : "",
                "id" : "a",
                "markers" : {
                  "10" : "A",
                  "2" : "B"
                },
                "poster" : "",
                "title" : "T"
              }
            ]

            """)
    }

    func testUpdateSetsGivenTextFieldsOnly() throws {
        let path = try write(original)
        try MovieData.update(path: path, with: MovieUpdate(id: "sun", markers: ["1": "Calm"], description: "Bright"))
        let sun = try foundationMovies(path)[1]
        XCTAssertEqual(sun["title"] as? String, "Sunny")
        XCTAssertEqual(sun["description"] as? String, "Bright")
        XCTAssertNil(sun["poster"])
        XCTAssertEqual(sun["markers"] as? [String: String], ["1": "Calm"])
    }

    func testNumericIdMatchesAndNewMovieIsAppended() throws {
        let path = try write(original)
        try MovieData.update(path: path, with: MovieUpdate(id: "7", markers: ["5": "Scary"]))
        try MovieData.update(path: path, with: MovieUpdate(id: "new", markers: ["0": "Calm"], poster: "p.png"))
        let movies = try foundationMovies(path)
        XCTAssertEqual(movies.count, 4)
        XCTAssertEqual(movies[2]["id"] as? Int, 7)
        XCTAssertEqual(movies[2]["markers"] as? [String: String], ["5": "Scary"])
        XCTAssertEqual(
            movies[3],
            [
                "id": "new", "title": "", "description": "", "poster": "p.png",
                "markers": ["0": "Calm"],
            ] as NSDictionary)
    }

    func testNewIdIsNumericWhenEveryIdIs() throws {
        let path = try write(#"[{"id": 1, "markers": {}}]"#)
        try MovieData.update(path: path, with: MovieUpdate(id: "2", markers: [:]))
        XCTAssertEqual(try foundationMovies(path)[1]["id"] as? Int, 2)
    }

    func testMissingFileIsCreated() throws {
        let path = try makeTemporaryFolder(self) + "/MovieData.json"
        try MovieData.update(path: path, with: MovieUpdate(id: "m", markers: ["1": "A"], title: "M"))
        let movies = try foundationMovies(path)
        XCTAssertEqual(
            movies,
            [
                [
                    "id": "m", "title": "M", "description": "", "poster": "",
                    "markers": ["1": "A"],
                ] as NSDictionary
            ])
    }

    func testCorruptFilesAreReportedAndLeftUntouched() throws {
        let cases: [(String, MovieDataError.Kind, String)] = [
            ("{\"id\": 1}", .notMovieData, "expected a JSON array of movies, found an object"),
            ("[1]", .notMovieData, "movie 1 is a number, expected an object"),
            (#"[{"id": "a", "markers": ["x"]}]"#, .notMovieData, "movie 1: \"markers\" is an array"),
            (#"[{"id": "a"}, {"id": "b", "markers": {"3": 4}}]"#, .notMovieData, "movie 2: marker \"3\" is a number"),
            (#"[{"id": "a",}]"#, .invalidJSON, "not valid JSON (line 1, column 13"),
            ("[\n{\"id\": tru}]", .invalidJSON, "line 2"),
            ("", .invalidJSON, "unexpected end of input"),
            (String(repeating: "[", count: 100_000), .invalidJSON, "nesting deeper"),
        ]
        for (text, kind, reason) in cases {
            let path = try write(text)
            do {
                try MovieData.update(path: path, with: MovieUpdate(id: "a", markers: ["1": "A"]))
                XCTFail("accepted \(text.prefix(40))")
            } catch {
                XCTAssertEqual(error.kind, kind, "\(error)")
                XCTAssertTrue(error.description.hasPrefix(path + ": "), "\(error)")
                XCTAssertTrue(error.description.contains(reason), "\(error) should mention \(reason)")
            }
            XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), text, "file was modified")
        }
    }

    /// Eight threads, each adding its own movie to one file in each of five rounds (each update opens the lock
    /// file itself, as separate processes do): every movie is there at the end. Without the lock, two updates
    /// that read the same old file each write it back with only their own movie added.
    func testConcurrentUpdatesKeepEveryMovie() throws {
        let path = try write("[]")
        let writers = 8, rounds = 5
        let failures = NSLock()
        nonisolated(unsafe) var errors: [String] = []
        for round in 0..<rounds {
            DispatchQueue.concurrentPerform(iterations: writers) { writer in
                do {
                    try MovieData.update(path: path, with: MovieUpdate(id: "r\(round)w\(writer)", markers: ["0": "A"]))
                } catch {
                    failures.withLock { errors.append("\(error)") }
                }
            }
        }
        XCTAssertEqual(errors, [])
        let ids = try foundationMovies(path).compactMap { $0["id"] as? String }
        XCTAssertEqual(
            Set(ids).count, writers * rounds, "lost: \(Set((0..<rounds).flatMap { r in (0..<writers).map { "r\(r)w\($0)" } }).subtracting(ids))")
        XCTAssertEqual(ids.count, writers * rounds)
        XCTAssertTrue(FileManager.default.fileExists(atPath: (path as NSString).deletingLastPathComponent + "/.MovieData.json.lock"))
    }

    /// A symbolic link stays a link and its target gets the update; the target's mode survives the rename; a link
    /// to a file not there yet creates it; two links to one file share one lock, beside the file.
    func testSymbolicLinksAndModeSurviveAnUpdate() throws {
        let folder = try makeTemporaryFolder(self)
        try FileManager.default.createDirectory(atPath: folder + "/real", withIntermediateDirectories: true)
        let target = folder + "/real/Movies.json"
        try Data(#"[{"id": "kept", "markers": {}}]"#.utf8).write(to: URL(fileURLWithPath: target))
        chmod(target, 0o640)
        let link = folder + "/MovieData.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real/Movies.json")
        let chained = folder + "/chained.json"
        try FileManager.default.createSymbolicLink(atPath: chained, withDestinationPath: link)

        try MovieData.update(path: chained, with: MovieUpdate(id: "new", markers: ["2": "B"]))
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "real/Movies.json")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: chained), link)
        XCTAssertEqual(try foundationMovies(target).compactMap { $0["id"] as? String }, ["kept", "new"])
        var status = stat()
        XCTAssertEqual(stat(target, &status), 0)
        XCTAssertEqual(status.st_mode & 0o7777, 0o640)
        XCTAssertEqual(try MovieData.lockPath(for: chained), folder + "/real/.Movies.json.lock")
        XCTAssertEqual(try MovieData.lockPath(for: link), try MovieData.lockPath(for: target))

        let dangling = folder + "/dangling.json"
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: folder + "/real/later.json")
        try MovieData.update(path: dangling, with: MovieUpdate(id: "first", markers: [:]))
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dangling), folder + "/real/later.json")
        XCTAssertEqual(try foundationMovies(folder + "/real/later.json").count, 1)

        let loop = folder + "/loop.json"
        try FileManager.default.createSymbolicLink(atPath: loop, withDestinationPath: loop)
        XCTAssertThrowsError(try MovieData.update(path: loop, with: MovieUpdate(id: "x", markers: [:]))) { error in
            XCTAssertEqual((error as? MovieDataError)?.description, loop + ": cannot write: too many levels of symbolic links (ELOOP)")
        }
    }

    /// The file's owner and group are kept when the process may set them (as root, any; otherwise its own).
    func testOwnerIsKeptWherePermitted() throws {
        let path = try write("[]")
        let owner: uid_t = getuid() == 0 ? 65534 : getuid()
        let group: gid_t = getuid() == 0 ? 65534 : getgid()
        XCTAssertEqual(chown(path, owner, group), 0)
        try MovieData.update(path: path, with: MovieUpdate(id: "a", markers: [:]))
        var status = stat()
        XCTAssertEqual(stat(path, &status), 0)
        XCTAssertEqual(status.st_uid, owner)
        XCTAssertEqual(status.st_gid, group)
    }

    /// A FIFO or a device is not a player file: refused at once instead of blocking or reading without end.
    func testSpecialFilesAreRefusedWithoutBlocking() throws {
        let folder = try makeTemporaryFolder(self)
        let fifo = folder + "/MovieData.json"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        for path in [fifo, "/dev/zero"] {
            XCTAssertThrowsError(try MovieData.update(path: path, with: MovieUpdate(id: "a", markers: [:]))) { error in
                XCTAssertEqual((error as? MovieDataError)?.description, path + ": not a regular file")
            }
        }
        var status = stat()
        XCTAssertEqual(lstat(fifo, &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO, "the FIFO is left as it was")
    }

    func testWriteIntoMissingFolderFails() {
        XCTAssertThrowsError(try MovieData().save(path: "/nonexistent-folder/MovieData.json")) { error in
            XCTAssertEqual((error as? MovieDataError)?.kind, .writeFailed)
        }
    }

    func testParserRejectsWhatJSONForbids() {
        for text in ["01", "1.", "-", "NaN", "[1,]", "\"\t\"", "// c\n1", "\"\\x\"", "\"\\ud800\"", "1 2", "'a'"] {
            XCTAssertThrowsError(try JSONParser.parse(Array(text.utf8)), "accepted \(text)")
        }
        XCTAssertEqual(
            try JSONParser.parse(Array("\u{FEFF} [0, -1.5E+2, \"\\/\"] ".utf8)),
            .array([.number("0"), .number("-1.5E+2"), .string("/")]))
    }
}
