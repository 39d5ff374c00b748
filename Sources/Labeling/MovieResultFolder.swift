import FileFormats
import Foundation

/// The results of one labeling run split into shards: a folder shared by all its tasks, holding the run's manifest
/// and one result file per movie, merged into the player's file once every movie has one.
///
/// Layout: `manifest.json` (the settings and every movie of the run, in order) and `movies/<id>.json` (one movie's
/// markers; the id is percent-encoded where it is not a plain file name). Every file is written atomically, so a
/// task killed at any moment leaves either a whole result or none, and a task that runs again skips the movies that
/// have one: a requeued task resumes where it stopped.
///
/// The manifest is what makes results mergeable: every task writes the same one (the first creates it, the others
/// find it equal), a task of another run (other movies or settings) is refused rather than mixed in, and the merge
/// knows which movies must be there and in which order they go into the player file.
public struct MovieResultFolder: Sendable {
    /// One movie of the run.
    public struct Movie: Sendable, Equatable {
        /// Its id in the player file.
        public var id: String
        /// The video file or frames folder, as labeled.
        public var path: String

        /// Makes an entry.
        public init(id: String, path: String) {
            self.id = id
            self.path = path
        }
    }

    /// What a run is: how it labels and which movies, in the order they go into the player file.
    public struct Manifest: Sendable, Equatable {
        /// Everything that changes a result (model, sampling, marker policy), as one line.
        public var settings: String
        /// Every movie of the run, in order.
        public var movies: [Movie]

        /// Makes a manifest.
        public init(settings: String, movies: [Movie]) {
            self.settings = settings
            self.movies = movies
        }
    }

    /// One movie's result.
    public struct Result: Sendable, Equatable {
        /// The movie.
        public var movie: Movie
        /// Decimal second → label, as the player file holds them.
        public var markers: [String: String]
        /// Frames labeled.
        public var frameCount: Int

        /// Makes a result.
        public init(movie: Movie, markers: [String: String], frameCount: Int) {
            self.movie = movie
            self.markers = markers
            self.frameCount = frameCount
        }
    }

    /// The folder.
    public let path: String

    /// A results folder at `path` (nothing is created until `prepare`).
    public init(path: String) { self.path = path }

    private var manifestPath: String { path + "/manifest.json" }
    private var moviesFolder: String { path + "/movies" }

    /// The result file of the movie with `id`.
    public func resultPath(id: String) -> String { moviesFolder + "/" + Self.fileName(id: id) + ".json" }

    /// Creates the folder and its manifest, or checks that the manifest already there is `manifest`. Safe to call
    /// from many tasks at once: the manifest appears whole, once (`link` of a finished temporary file).
    public func prepare(_ manifest: Manifest) throws(LabelingError) {
        try Self.makeFolders(moviesFolder)
        let text = JSONWriter.prettyText(Self.document(manifest))
        if !FileManager.default.fileExists(atPath: manifestPath) {
            let temporary = path + "/.manifest.json.tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            do {
                try AtomicFile.write(text: text, to: temporary)
            } catch {
                throw LabelingError(.writeFailed, path: manifestPath, reason: error.reason)
            }
            let linked = link(temporary, manifestPath) == 0 ? 0 : errno
            unlink(temporary)
            if linked != 0, linked != EEXIST {
                throw LabelingError(.writeFailed, path: manifestPath, reason: SystemError.describe(linked))
            }
        }
        let existing = try loadManifest()
        guard existing == manifest else {
            let difference = existing.settings != manifest.settings
                ? "settings (\(existing.settings))" : "movies (\(existing.movies.count): \(Self.firstDifference(existing.movies, manifest.movies)))"
            throw LabelingError(.resultsMismatch, path: path,
                                reason: "holds the results of a run with other \(difference); use another results folder or empty this one")
        }
    }

    /// The manifest in the folder.
    public func loadManifest() throws(LabelingError) -> Manifest {
        let document = try Self.readJSON(manifestPath, missing: "no manifest.json: not a results folder of a sharded label run")
        guard let settings = document.objectValue?["settings"]?.stringValue,
              let movies = document.objectValue?["movies"]?.arrayValue else {
            throw LabelingError(.resultsMismatch, path: manifestPath, reason: "not a results manifest (expected \"settings\" and \"movies\")")
        }
        var entries: [Movie] = []
        for (position, movie) in movies.enumerated() {
            guard let id = movie.objectValue?["id"]?.stringValue, let moviePath = movie.objectValue?["path"]?.stringValue else {
                throw LabelingError(.resultsMismatch, path: manifestPath, reason: "movie \(position + 1) has no \"id\" and \"path\" strings")
            }
            entries.append(Movie(id: id, path: moviePath))
        }
        return Manifest(settings: settings, movies: entries)
    }

    /// Whether `movie` has a whole result already (a damaged or foreign file does not count: it is redone).
    public func hasResult(for movie: Movie) -> Bool {
        (try? loadResult(for: movie)) != nil
    }

    /// Writes one movie's result atomically, replacing any earlier one.
    public func store(_ result: Result) throws(LabelingError) {
        let document = JSONValue.object([
            "id": .string(result.movie.id),
            "path": .string(result.movie.path),
            "markers": .object(result.markers.mapValues { .string($0) }),
            "frameCount": .number("\(result.frameCount)"),
        ])
        let destination = resultPath(id: result.movie.id)
        do {
            try AtomicFile.write(text: JSONWriter.prettyText(document), to: destination)
        } catch {
            throw LabelingError(.writeFailed, path: destination, reason: error.reason)
        }
    }

    /// The result of `movie`; throws when it is missing, damaged, or another movie's.
    public func loadResult(for movie: Movie) throws(LabelingError) -> Result {
        let file = resultPath(id: movie.id)
        let document = try Self.readJSON(file, missing: "no result yet")
        guard let fields = document.objectValue, let id = fields["id"]?.stringValue, let moviePath = fields["path"]?.stringValue,
              let markerFields = fields["markers"]?.objectValue, let frames = fields["frameCount"]?.doubleValue else {
            throw LabelingError(.resultsMismatch, path: file, reason: "not a movie result (expected \"id\", \"path\", \"markers\", \"frameCount\")")
        }
        guard id == movie.id, moviePath == movie.path else {
            throw LabelingError(.resultsMismatch, path: file, reason: "holds movie \(id) (\(moviePath)), not \(movie.id) (\(movie.path))")
        }
        var markers: [String: String] = [:]
        for (second, label) in markerFields {
            guard let label = label.stringValue else {
                throw LabelingError(.resultsMismatch, path: file, reason: "marker \"\(second)\" is \(label.kindDescription), expected a label")
            }
            markers[second] = label
        }
        return Result(movie: movie, markers: markers, frameCount: Int(frames))
    }

    /// Every movie's result, in manifest order. Throws `.resultsMissing` naming the movies without a whole result
    /// (the first ten, and how many more).
    public func allResults() throws(LabelingError) -> (manifest: Manifest, results: [Result]) {
        let manifest = try loadManifest()
        var results: [Result] = []
        var missing: [Movie] = []
        for movie in manifest.movies {
            do {
                results.append(try loadResult(for: movie))
            } catch {
                missing.append(movie)
            }
        }
        guard missing.isEmpty else {
            let shown = missing.prefix(10).map { "\($0.id) (\($0.path))" }.joined(separator: ", ")
            let more = missing.count > 10 ? " and \(missing.count - 10) more" : ""
            throw LabelingError(.resultsMissing, path: path,
                                reason: "\(missing.count) of \(manifest.movies.count) movies have no result: \(shown)\(more)")
        }
        return (manifest, results)
    }

    // MARK: - Files

    /// A movie id as a file name: letters, digits, `-`, `_` and `.` stay (a leading `.` does not, nor does `%`),
    /// every other byte of its UTF-8 becomes `%XX`, so distinct ids never share a file.
    static func fileName(id: String) -> String {
        var name = ""
        for (offset, byte) in id.utf8.enumerated() {
            let scalar = Unicode.Scalar(byte)
            let plain = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || (byte == UInt8(ascii: ".") && offset > 0)
            name += plain ? String(scalar) : String(format: "%%%02X", byte)
        }
        return name.isEmpty ? "%" : name
    }

    private static func document(_ manifest: Manifest) -> JSONValue {
        .object([
            "settings": .string(manifest.settings),
            "movies": .array(manifest.movies.map { .object(["id": .string($0.id), "path": .string($0.path)]) }),
        ])
    }

    private static func firstDifference(_ old: [Movie], _ new: [Movie]) -> String {
        for (position, (before, now)) in zip(old, new).enumerated() where before != now {
            return "movie \(position + 1) was \(before.id) (\(before.path)), now \(now.id) (\(now.path))"
        }
        return "\(old.count) movies before, \(new.count) now"
    }

    /// The largest manifest or result file read: a catalog's manifest or a film's markers are far smaller, and a
    /// bound keeps a stray huge file from being read whole.
    static let largestFileBytes = 64 << 20

    private static func readJSON(_ file: String, missing: String) throws(LabelingError) -> JSONValue {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.open(path: file, maximumBytes: largestFileBytes).readAll()
        } catch {
            if error.kind == .missing { throw LabelingError(.fileNotFound, path: file, reason: missing) }
            throw LabelingError(.resultsMismatch, path: file, reason: error.reason)
        }
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw LabelingError(.resultsMismatch, path: file, reason: "not valid JSON (\(error))")
        }
    }

    /// Creates the folder and its parents while other tasks may be creating them too.
    private static func makeFolders(_ folder: String) throws(LabelingError) {
        do {
            try FolderCreation.create(folder)
        } catch {
            throw LabelingError(.writeFailed, path: error.path, reason: error.reason)
        }
    }
}
