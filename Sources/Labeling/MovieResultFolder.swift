import FileFormats
import Foundation

/// The results of one labeling run split into shards: a folder shared by all its tasks, holding the run's manifest
/// and one result file per movie, merged into the player's file once every movie has one.
///
/// Layout: `manifest.json` (the format version, the model and settings, every movie of the run in order) and
/// `movies/<id>.json` (one movie's markers, with the version, model and settings that made them; the id is
/// percent-encoded where it is not a plain file name). Every file is written atomically, so a task killed at any
/// moment leaves either a whole result or none, and a task that runs again skips the movies that have one of this
/// run: a requeued task resumes where it stopped.
///
/// The manifest is what makes results mergeable: every task writes the same one (the first creates it, the others
/// find it equal), a task of another run (other movies, model or settings) is refused rather than mixed in, and the
/// merge knows which movies must be there and in which order they go into the player file. Each result names its
/// model and settings too, so a result left by another run (a manifest removed and the run started again with
/// another model, a file copied in) is redone by a task and refused by the merge, never mixed in.
///
/// The folder is shared storage others may write to, so nothing inside it is followed or opened unless it is what
/// it should be (`ConfinedFolder`): a symbolic link, FIFO or device as `manifest.json`, `movies/` or a result file
/// is refused with a line naming it, and result files are new files renamed into place, never written through.
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

    /// What makes a run's markers what they are: the model (its path and the SHA-256 of its content) and every
    /// other setting (sampling, marker policy) as one line.
    public struct Origin: Sendable, Equatable, CustomStringConvertible {
        /// The model file, as the run named it (absolute).
        public var modelPath: String
        /// The SHA-256 of the model file's bytes, in lowercase hex.
        public var modelSHA256: String
        /// Every other setting that changes a result, as one line.
        public var settings: String

        /// Makes an origin.
        public init(modelPath: String, modelSHA256: String, settings: String) {
            self.modelPath = modelPath
            self.modelSHA256 = modelSHA256
            self.settings = settings
        }

        /// "model PATH sha256 HEX, SETTINGS".
        public var description: String { "model \(modelPath) sha256 \(modelSHA256), \(settings)" }

        /// Whether results of `other` are interchangeable with this one's: the same model content and settings (the
        /// model may have moved).
        public func makesTheSameMarkers(as other: Origin) -> Bool {
            modelSHA256 == other.modelSHA256 && settings == other.settings
        }
    }

    /// What a run is: how it labels and which movies, in the order they go into the player file.
    public struct Manifest: Sendable, Equatable {
        /// The model and settings.
        public var origin: Origin
        /// Every movie of the run, in order.
        public var movies: [Movie]

        /// Makes a manifest.
        public init(origin: Origin, movies: [Movie]) {
            self.origin = origin
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
        /// The model and settings that made it.
        public var origin: Origin

        /// Makes a result.
        public init(movie: Movie, markers: [String: String], frameCount: Int, origin: Origin) {
            self.movie = movie
            self.markers = markers
            self.frameCount = frameCount
            self.origin = origin
        }
    }

    /// The format version this build writes, of the manifest and the result files alike (docs/model-file.md
    /// has the rule). 1 (before 2026-11): no `version`, the model and settings as one `settings` line in the
    /// manifest only; refused, naming the version, since its results cannot show which run made them. 2: `version`,
    /// `model` (`path`, `sha256`) and `settings` in the manifest and in every result file.
    public static let formatVersion = 2

    /// The folder.
    public let path: String

    /// A results folder at `path` (nothing is created until `prepare`).
    public init(path: String) { self.path = path }

    private static let manifestName = "manifest.json"
    private static let moviesName = "movies"
    /// The run's manifest.
    public var manifestPath: String { path + "/" + Self.manifestName }
    /// The folder of the result files, one per movie.
    public var moviesFolder: String { path + "/" + Self.moviesName }

    /// The manifest and the result files now in the folder, listed without opening any: what a merge reads.
    public var listedFiles: [String] {
        let results = (try? FileManager.default.contentsOfDirectory(atPath: moviesFolder)) ?? []
        return [manifestPath] + results.sorted().map { moviesFolder + "/" + $0 }
    }

    /// The result file of the movie with `id`.
    public func resultPath(id: String) -> String { moviesFolder + "/" + Self.resultName(id: id) }

    /// Creates the folder and its manifest, or checks that the manifest already there is `manifest`. Safe to call
    /// from many tasks at once: the manifest appears whole, once (`link` of a finished temporary file).
    public func prepare(_ manifest: Manifest) throws(LabelingError) {
        do {
            try FolderCreation.create(path)
        } catch {
            throw LabelingError(.writeFailed, path: error.path, reason: error.reason)
        }
        let folder = try open()
        let bytes = Array(JSONWriter.prettyText(Self.document(manifest)).utf8)
        do {
            _ = try folder.makeSubfolder(Self.moviesName)
            try folder.createOnce(bytes, as: Self.manifestName)
        } catch {
            throw Self.labelingError(error, otherwise: .writeFailed)
        }
        let existing = try loadManifest(in: folder)
        guard existing == manifest else {
            let difference =
                existing.origin != manifest.origin
                ? "settings (\(existing.origin))" : "movies (\(existing.movies.count): \(Self.firstDifference(existing.movies, manifest.movies)))"
            throw LabelingError(
                .resultsMismatch, path: path,
                reason: "holds the results of a run with other \(difference); use another results folder or empty this one")
        }
    }

    /// The manifest in the folder.
    public func loadManifest() throws(LabelingError) -> Manifest {
        try loadManifest(in: try open())
    }

    private func loadManifest(in folder: ConfinedFolder) throws(LabelingError) -> Manifest {
        let file = manifestPath
        guard let document = try Self.readJSON(Self.manifestName, in: folder) else {
            throw LabelingError(.fileNotFound, path: file, reason: "no manifest.json: not a results folder of a sharded label run")
        }
        guard let fields = document.objectValue else {
            throw LabelingError(.resultsMismatch, path: file, reason: "not a results manifest (\(document.kindDescription), expected an object)")
        }
        try Self.checkVersion(fields, file: file, redo: "use another results folder or empty this one")
        guard let origin = Self.origin(fields), let movies = fields["movies"]?.arrayValue else {
            throw LabelingError(.resultsMismatch, path: file, reason: "not a results manifest (expected \"model\", \"settings\" and \"movies\")")
        }
        var entries: [Movie] = []
        for (position, movie) in movies.enumerated() {
            guard let id = movie.objectValue?["id"]?.stringValue, let moviePath = movie.objectValue?["path"]?.stringValue else {
                throw LabelingError(.resultsMismatch, path: file, reason: "movie \(position + 1) has no \"id\" and \"path\" strings")
            }
            entries.append(Movie(id: id, path: moviePath))
        }
        return Manifest(origin: origin, movies: entries)
    }

    /// Whether `movie` has a whole result of the run with `origin` already. A missing, damaged or foreign result
    /// (another movie's, model's or settings', an earlier format's) does not count: it is redone. A link, FIFO or
    /// other non-regular file in its place is refused (`.refusedFile`), since redoing it would write through it.
    public func hasResult(for movie: Movie, origin: Origin) throws(LabelingError) -> Bool {
        do {
            return try loadResult(for: movie).origin.makesTheSameMarkers(as: origin)
        } catch  where error.kind == .refusedFile {
            throw error
        } catch {
            return false
        }
    }

    /// Writes one movie's result atomically, replacing any earlier one: a new file renamed into place. A link,
    /// FIFO or other non-regular file at its name is refused and left alone, as is a `movies` that is not a folder.
    public func store(_ result: Result) throws(LabelingError) {
        let document = JSONValue.object(
            [
                "version": .number("\(Self.formatVersion)"),
                "id": .string(result.movie.id),
                "path": .string(result.movie.path),
                "markers": .object(result.markers.mapValues { .string($0) }),
                "frameCount": .number("\(result.frameCount)"),
            ].merging(Self.members(result.origin)) { first, _ in first })
        let folder = try open()
        do {
            try folder.makeSubfolder(Self.moviesName).write(Array(JSONWriter.prettyText(document).utf8), to: Self.resultName(id: result.movie.id))
        } catch {
            throw Self.labelingError(error, otherwise: .writeFailed)
        }
    }

    /// The result of `movie`, with the origin it records; throws when it is missing (`.fileNotFound`), damaged or
    /// another movie's or format's (`.resultsMismatch`), or not a regular file (`.refusedFile`).
    public func loadResult(for movie: Movie) throws(LabelingError) -> Result {
        guard let movies = try moviesFolder(in: try open()) else {
            throw LabelingError(.fileNotFound, path: resultPath(id: movie.id), reason: "no result yet")
        }
        return try Self.result(for: movie, in: movies)
    }

    /// The result of `movie` in the `movies` folder.
    private static func result(for movie: Movie, in movies: ConfinedFolder) throws(LabelingError) -> Result {
        let name = resultName(id: movie.id)
        let file = movies.entryPath(name)
        guard let document = try readJSON(name, in: movies) else { throw LabelingError(.fileNotFound, path: file, reason: "no result yet") }
        guard let fields = document.objectValue else {
            throw LabelingError(.resultsMismatch, path: file, reason: "not a movie result (\(document.kindDescription), expected an object)")
        }
        try checkVersion(fields, file: file, redo: "label this movie again")
        guard let id = fields["id"]?.stringValue, let moviePath = fields["path"]?.stringValue,
            let markerFields = fields["markers"]?.objectValue, let frames = count(fields["frameCount"]), let origin = origin(fields)
        else {
            throw LabelingError(
                .resultsMismatch, path: file,
                reason: "not a movie result (expected \"id\", \"path\", \"markers\", \"frameCount\", \"model\", \"settings\")")
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
        return Result(movie: movie, markers: markers, frameCount: frames, origin: origin)
    }

    /// Every movie's result, in manifest order, each made by the manifest's model and settings. Throws
    /// `.resultsMissing` naming the movies without a result (the first ten, and how many more); a result that is
    /// damaged, another run's or no regular file is refused, naming it and, for another run's, what differs.
    public func allResults() throws(LabelingError) -> (manifest: Manifest, results: [Result]) {
        let folder = try open()
        let manifest = try loadManifest(in: folder)
        let movies = try moviesFolder(in: folder)
        var results: [Result] = []
        var missing: [Movie] = []
        for movie in manifest.movies {
            guard let movies else {
                missing.append(movie)
                continue
            }
            let result: Result
            do {
                result = try Self.result(for: movie, in: movies)
            } catch  where error.kind == .fileNotFound {
                missing.append(movie)
                continue
            }
            if let difference = Self.difference(result.origin, manifest.origin) {
                throw LabelingError(
                    .resultsMismatch, path: movies.entryPath(Self.resultName(id: movie.id)),
                    reason: "made \(difference); label this movie again or merge another folder")
            }
            results.append(result)
        }
        guard missing.isEmpty else {
            let shown = missing.prefix(10).map { "\($0.id) (\($0.path))" }.joined(separator: ", ")
            let more = missing.count > 10 ? " and \(missing.count - 10) more" : ""
            throw LabelingError(
                .resultsMissing, path: path,
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
            let plain =
                ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || (byte == UInt8(ascii: ".") && offset > 0)
            name += plain ? String(scalar) : String(format: "%%%02X", byte)
        }
        return name.isEmpty ? "%" : name
    }

    /// The result file's name of the movie with `id`.
    static func resultName(id: String) -> String { fileName(id: id) + ".json" }

    private static func document(_ manifest: Manifest) -> JSONValue {
        .object(
            [
                "version": .number("\(formatVersion)"),
                "movies": .array(manifest.movies.map { .object(["id": .string($0.id), "path": .string($0.path)]) }),
            ].merging(members(manifest.origin)) { first, _ in first })
    }

    /// `model` (`path`, `sha256`) and `settings`, as the manifest and every result file hold them.
    private static func members(_ origin: Origin) -> [String: JSONValue] {
        [
            "model": .object(["path": .string(origin.modelPath), "sha256": .string(origin.modelSHA256)]),
            "settings": .string(origin.settings),
        ]
    }

    private static func origin(_ fields: [String: JSONValue]) -> Origin? {
        guard let model = fields["model"]?.objectValue, let modelPath = model["path"]?.stringValue,
            let hash = model["sha256"]?.stringValue, let settings = fields["settings"]?.stringValue
        else { return nil }
        return Origin(modelPath: modelPath, modelSHA256: hash, settings: settings)
    }

    /// A non-negative integer written as plain digits (what the writer writes), else nil.
    private static func count(_ value: JSONValue?) -> Int? {
        guard case .number(let text)? = value, let number = Int(text), number >= 0 else { return nil }
        return number
    }

    /// Refuses a file of a format version this build does not read, naming the version; `redo` says what to do
    /// about an earlier one.
    private static func checkVersion(_ fields: [String: JSONValue], file: String, redo: String) throws(LabelingError) {
        guard let stored = fields["version"] else {
            throw LabelingError(
                .resultsMismatch, path: file,
                reason: "written by an earlier Workbench (results format version 1, "
                    + "which does not record the model and settings of each result; this build reads version \(formatVersion)): \(redo)")
        }
        guard let version = count(stored), version >= 1 else {
            throw LabelingError(.resultsMismatch, path: file, reason: "\"version\" is not a results format version (a whole number from 1)")
        }
        guard version <= formatVersion else {
            throw LabelingError(
                .resultsMismatch, path: file,
                reason: "written by a newer Workbench (results format version \(version); "
                    + "this build reads up to version \(formatVersion)): update Workbench")
        }
        guard version == formatVersion else {
            throw LabelingError(
                .resultsMismatch, path: file,
                reason: "written by an earlier Workbench (results format version \(version); "
                    + "this build reads version \(formatVersion)): \(redo)")
        }
    }

    /// What differs between a result's origin and the run's, in words ("by another model (sha256 …) than the
    /// run's (sha256 …)"), or nil when the result is interchangeable with the run's.
    static func difference(_ result: Origin, _ run: Origin) -> String? {
        if result.modelSHA256 != run.modelSHA256 {
            return "by another model (\(result.modelPath), sha256 \(result.modelSHA256)) than the run's (\(run.modelPath), sha256 \(run.modelSHA256))"
        }
        guard result.settings != run.settings else { return nil }
        // Settings are "name value" items joined by ", "; name the items that differ when both split alike.
        let mine = result.settings.components(separatedBy: ", "), theirs = run.settings.components(separatedBy: ", ")
        let differing = zip(mine, theirs).filter { $0 != $1 }
        if mine.count == theirs.count, !differing.isEmpty {
            return "with other settings (" + differing.map { "\($0) where the run has \($1)" }.joined(separator: ", ") + ")"
        }
        return "with other settings (\(result.settings)) than the run's (\(run.settings))"
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

    /// The folder itself (named by the user, so reached through links), to reach its entries without following any.
    private func open() throws(LabelingError) -> ConfinedFolder {
        do {
            return try ConfinedFolder.open(path, role: "a results folder")
        } catch  where error.kind == .missing {
            throw LabelingError(.fileNotFound, path: manifestPath, reason: "no manifest.json: not a results folder of a sharded label run")
        } catch {
            throw Self.labelingError(error, otherwise: .resultsMismatch)
        }
    }

    /// `movies/`, or nil when it is not there yet.
    private func moviesFolder(in folder: ConfinedFolder) throws(LabelingError) -> ConfinedFolder? {
        do {
            return try folder.subfolder(Self.moviesName)
        } catch {
            throw Self.labelingError(error, otherwise: .resultsMismatch)
        }
    }

    /// The JSON document in the entry `name`, or nil when there is none.
    private static func readJSON(_ name: String, in folder: ConfinedFolder) throws(LabelingError) -> JSONValue? {
        let bytes: [UInt8]
        do {
            guard let read = try folder.read(name, maximumBytes: largestFileBytes) else { return nil }
            bytes = read
        } catch {
            throw labelingError(error, otherwise: .resultsMismatch)
        }
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw LabelingError(.resultsMismatch, path: folder.entryPath(name), reason: "not valid JSON (\(error))")
        }
    }

    /// A refused entry (a link, FIFO, device) as `.refusedFile`, any other failure as `kind`.
    private static func labelingError(_ error: ConfinedFolder.Failure, otherwise kind: LabelingFailure) -> LabelingError {
        LabelingError(error.kind == .refused ? .refusedFile : kind, path: error.path, reason: error.reason)
    }
}
