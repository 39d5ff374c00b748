import FileFormats
import Foundation

/// A failure reading or writing the player's `MovieData.json`: names the file and what is wrong.
public struct MovieDataError: PathReportingError, Equatable {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The file exists but cannot be read.
        case unreadable
        /// The file is not JSON at all.
        case invalidJSON
        /// The file is JSON but not the player's shape.
        case notMovieData
        /// Writing the new file failed (the old one is intact).
        case writeFailed
    }

    /// The kind of failure.
    public let kind: Kind
    /// The file.
    public let path: String
    /// One-line explanation.
    public let reason: String
}

/// What to set on one movie of the player file.
public struct MovieUpdate: Sendable, Equatable {
    /// The movie's id (matched against existing ids as text; see `MovieData.upsert`).
    public var id: String
    /// The new markers: decimal second → label. Replaces the old markers entirely.
    public var markers: [String: String]
    /// New title, or nil to keep the current one.
    public var title: String?
    /// New description, or nil to keep the current one.
    public var description: String?
    /// New poster (file name or URL), or nil to keep the current one.
    public var poster: String?

    /// Makes an update.
    public init(
        id: String, markers: [String: String], title: String? = nil, description: String? = nil,
        poster: String? = nil
    ) {
        self.id = id
        self.markers = markers
        self.title = title
        self.description = description
        self.poster = poster
    }
}

/// The player's `MovieData.json`: a JSON array of movies `{"id", "title", "description", "poster", "markers"}`,
/// where `markers` maps a decimal second to a label.
///
/// Kept as a generic `JSONValue` tree, so movies and fields Workbench does not know (and number formatting)
/// survive a load → update → save unchanged in value. Saving sorts object keys by code point, so marker keys come
/// out in string order ("10" before "2"); JSON objects are unordered and the player reads them by key.
public struct MovieData: Sendable, Equatable {
    /// The movies, in file order, each a JSON object.
    public private(set) var movies: [JSONValue]

    /// An empty file's content.
    public init() { movies = [] }

    /// Validates and wraps a parsed document; `path` is only used in error messages.
    public init(document: JSONValue, path: String) throws(MovieDataError) {
        guard case .array(let elements) = document else {
            throw MovieDataError(
                kind: .notMovieData, path: path,
                reason: "expected a JSON array of movies, found \(document.kindDescription)")
        }
        for (position, element) in elements.enumerated() {
            guard case .object(let fields) = element else {
                throw MovieDataError(
                    kind: .notMovieData, path: path,
                    reason: "movie \(position + 1) is \(element.kindDescription), expected an object")
            }
            guard let markers = fields["markers"] else { continue }
            guard case .object(let entries) = markers else {
                throw MovieDataError(
                    kind: .notMovieData, path: path,
                    reason: "movie \(position + 1): \"markers\" is \(markers.kindDescription), expected an object of second → label")
            }
            if let (key, value) = entries.first(where: { $0.value.stringValue == nil }) {
                throw MovieDataError(
                    kind: .notMovieData, path: path,
                    reason: "movie \(position + 1): marker \"\(key)\" is \(value.kindDescription), expected a string label")
            }
        }
        movies = elements
    }

    /// The largest player file read: a list of movies with a marker a second is a few megabytes; anything near
    /// this is not one, and reading it whole would only exhaust memory.
    public static let largestFileBytes = 256 << 20

    /// Reads the file; a missing file is an empty list (it is created on save). Only a regular file (or a link to
    /// one) is read: a FIFO would block forever and a device (`/dev/zero`) never ends.
    public static func load(path: String) throws(MovieDataError) -> MovieData {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return MovieData() }
            throw MovieDataError(kind: .unreadable, path: path, reason: "cannot read the file: \(String(cString: strerror(errno)))")
        }
        try refuseSpecialFile(status, path: path)
        guard status.st_size <= largestFileBytes else {
            throw MovieDataError(
                kind: .unreadable, path: path,
                reason: "the file is \(status.st_size) bytes, more than a player file's \(largestFileBytes)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MovieDataError(kind: .unreadable, path: path, reason: "cannot read the file")
        }
        let document: JSONValue
        do {
            document = try JSONParser.parse([UInt8](data))
        } catch {
            throw MovieDataError(kind: .invalidJSON, path: path, reason: "not valid JSON (\(error))")
        }
        return try MovieData(document: document, path: path)
    }

    /// A FIFO, device, socket or folder is never read or replaced as a player file.
    private static func refuseSpecialFile(_ status: stat, path: String) throws(MovieDataError) {
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw MovieDataError(kind: .unreadable, path: path, reason: "not a regular file")
        }
    }

    /// Inserts or updates the movie with `update.id`.
    ///
    /// An existing movie matches when its `"id"` is that string, or a number written exactly that way. Its
    /// `markers` are replaced, and `title`/`description`/`poster` are set when given; every other field stays.
    /// A new movie goes at the end with `""` for each of title/description/poster not given (the player expects
    /// strings); its id is a number when the given id is an integer and every existing id is a number, else a string.
    public mutating func upsert(_ update: MovieUpdate) {
        var fields: [String: JSONValue] = [:]
        let position = movies.firstIndex { movie in
            switch movie.objectValue?["id"] {
            case .string(let id)?: id == update.id
            case .number(let id)?: id == update.id
            default: false
            }
        }
        if let position, let existing = movies[position].objectValue {
            fields = existing
        } else {
            let allNumeric =
                !movies.isEmpty
                && movies.allSatisfy {
                    if case .number? = $0.objectValue?["id"] { true } else { false }
                }
            let isInteger =
                !update.id.isEmpty && update.id.allSatisfy { ("0"..."9").contains($0) }
                && (update.id == "0" || !update.id.hasPrefix("0"))
            fields["id"] = allNumeric && isInteger ? .number(update.id) : .string(update.id)
            for key in ["title", "description", "poster"] { fields[key] = .string("") }
        }
        fields["markers"] = .object(update.markers.mapValues { .string($0) })
        if let title = update.title { fields["title"] = .string(title) }
        if let description = update.description { fields["description"] = .string(description) }
        if let poster = update.poster { fields["poster"] = .string(poster) }
        if let position { movies[position] = .object(fields) } else { movies.append(.object(fields)) }
    }

    /// The file's text: pretty-printed, keys sorted.
    public var text: String { JSONWriter.prettyText(.array(movies)) }

    /// Writes the file atomically (temporary file in the same folder, then rename), so an interrupted run
    /// leaves the previous file whole. A symbolic link stays a link to the new file, and the file keeps its mode
    /// (and owner, where permitted): see `AtomicFile`.
    public func save(path: String) throws(MovieDataError) {
        do {
            try AtomicFile.write(text: text, to: path)
        } catch {
            throw MovieDataError(kind: .writeFailed, path: path, reason: error.reason)
        }
    }

    /// Load, upsert, save: the `label` command's whole file step, under an exclusive lock (`lockPath(for:)`), so
    /// concurrent updates of one file each see the others' movies and none is lost. A file that is not valid
    /// MovieData is reported and left untouched.
    public static func update(path: String, with update: MovieUpdate) throws(MovieDataError) {
        try self.update(path: path, with: [update])
    }

    /// Load, upsert each movie in order, save once, all under the one lock: a merge of many results is one write,
    /// and the file is the same as after one `update` per movie in that order.
    public static func update(path: String, with updates: [MovieUpdate]) throws(MovieDataError) {
        // Before the lock, so `/dev/zero` is refused without a lock file appearing in /dev.
        var status = stat()
        if stat(path, &status) == 0 { try refuseSpecialFile(status, path: path) }
        let lock = try FileLock(path: lockPath(for: path), subject: path)
        defer { lock.release() }
        var data = try load(path: path)
        for update in updates { data.upsert(update) }
        try data.save(path: path)
    }

    /// The lock file that serialises updates of `path`: `.NAME.lock` beside the file `path` finally names (through
    /// any symbolic links, so two links to one file share one lock).
    ///
    /// Not the file itself: each save renames a new file over it, so a process that opened the old file would
    /// hold a lock on an inode nobody else locks any more. The lock file is never removed; removing it would let a
    /// waiter lock a file a newcomer has already replaced.
    public static func lockPath(for path: String) throws(MovieDataError) -> String {
        let target: String
        do {
            target = try AtomicFile.destination(of: path)
        } catch {
            throw MovieDataError(kind: .writeFailed, path: path, reason: error.reason)
        }
        let folder = (target as NSString).deletingLastPathComponent
        return (folder.isEmpty ? "." : folder) + "/." + (target as NSString).lastPathComponent + ".lock"
    }
}

/// An exclusive advisory lock (`flock`) on a lock file, held until `release()`; the kernel drops it if the process
/// dies, so a killed run never leaves the file locked.
private struct FileLock {
    private let descriptor: Int32

    /// Creates the lock file if needed and waits until the lock is ours; errors name `subject`.
    init(path: String, subject: String) throws(MovieDataError) {
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            throw MovieDataError(
                kind: .writeFailed, path: subject,
                reason: "cannot create the lock file \(path): \(String(cString: strerror(errno)))")
        }
        while flock(descriptor, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw MovieDataError(kind: .writeFailed, path: subject, reason: "cannot lock \(path): \(reason)")
        }
    }

    /// Unlocks (closing the file releases the lock).
    func release() { close(descriptor) }
}
