import FileFormats
import Foundation

/// A recursive walk over folders that finds image files and accounts for everything else.
///
/// - Names are read as bytes (`readdir`), so a name that is not valid UTF-8 cannot vanish: it is listed in
///   `unreadable`, shown with `\xNN` escapes, since Workbench's paths are text and cannot name it.
/// - Entries are examined with `lstat`/`stat` before anything is opened: FIFOs, devices and sockets are never
///   opened (a FIFO would block), they are listed in `unreadable`, as are broken symbolic links and folders that
///   cannot be read.
/// - Symbolic links are followed, but each real folder (device and inode) is walked at most once, so a link back
///   up the tree or a second link to a folder cannot repeat its images.
/// - Hidden entries (names starting with ".") are ignored; regular files that are not images go to `skipped`.
///
/// `skipped` is for `--verbose`; every `unreadable` entry is worth a warning and counts as an image that could not
/// be read.
public struct FolderWalk {
    /// One visible entry of a folder, symbolic links followed.
    public struct Entry: Sendable, Equatable {
        /// The entry's name.
        public let name: String
        /// The folder's path joined with the name.
        public let path: String
        /// What the entry is.
        public let kind: Kind
    }

    /// What an entry is, after following symbolic links.
    public enum Kind: Sendable, Equatable {
        case folder
        case regularFile
        /// A FIFO, device or socket; the text says which ("a FIFO").
        case otherFile(String)
    }

    /// Entries left out on purpose (not images, folders already walked), with reasons.
    public var skipped: [SkippedFile] = []
    /// Entries that cannot be read (see the type's description), with reasons.
    public var unreadable: [SkippedFile] = []
    /// Folders already walked, by device and inode.
    private var visited: Set<[UInt64]> = []

    /// A walk that has seen nothing yet.
    public init() {}

    /// Throws unless `path` is a folder (symbolic links followed).
    public static func requireFolder(_ path: String) throws(DatasetError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DatasetError(path: path, reason: "folder does not exist")
        }
        guard isDirectory.boolValue else { throw DatasetError(path: path, reason: "not a folder") }
    }

    /// Whether `path` is a folder (symbolic links followed).
    public static func isFolder(_ path: String) -> Bool {
        var information = stat()
        return stat(path, &information) == 0 && (information.st_mode & S_IFMT) == S_IFDIR
    }

    /// The names of `folder`'s visible entries, natural order (nothing recorded: for looking around).
    public static func visibleNames(of folder: String) throws(DatasetError) -> [String] {
        var walk = FolderWalk()
        return try walk.entries(of: folder).map(\.name)
    }

    /// `folder` joined with `name`, without doubling a trailing slash.
    public static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The visible entries of `folder`, natural order by name, each examined. Names that are not UTF-8, broken
    /// symbolic links and entries that cannot be examined go to `unreadable` instead.
    public mutating func entries(of folder: String) throws(DatasetError) -> [Entry] {
        var entries: [Entry] = []
        // Sorted first, so the entries reported as unreadable come in a stable order too.
        let names = try Self.rawNames(of: folder).filter { $0.first != UInt8(ascii: ".") }
            .map { (raw: $0, shown: Self.escaped($0)) }
            .sorted { NaturalOrder.areInIncreasingOrder($0.shown, $1.shown) }
        for (raw, shown) in names {
            guard let name = String(validating: raw, as: UTF8.self) else {
                unreadable.append(
                    SkippedFile(
                        path: Self.join(folder, shown),
                        reason: "name is not valid UTF-8, so it cannot be opened (shown with \\x escapes); rename it"))
                continue
            }
            let path = Self.join(folder, name)
            var information = stat()
            guard stat(path, &information) == 0 else {
                let code = errno
                var link = stat()
                let isLink = lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK
                let reason: String
                switch code {
                case ENOENT where isLink: reason = "broken symbolic link (its target does not exist)"
                case ELOOP: reason = "symbolic link loop"
                default: reason = "cannot read: \(SystemError.describe(code))"
                }
                unreadable.append(SkippedFile(path: path, reason: reason))
                continue
            }
            let kind: Kind
            switch information.st_mode & S_IFMT {
            case S_IFDIR: kind = .folder
            case S_IFREG: kind = .regularFile
            default: kind = .otherFile(InputFile.nonRegularKind(information.st_mode) ?? "not a regular file")
            }
            entries.append(Entry(name: name, path: path, kind: kind))
        }
        return entries
    }

    /// Image files anywhere below `root`, natural order by path below `root`.
    public mutating func imageFiles(under root: String) throws(DatasetError) -> [String] {
        var found: [String] = []
        try collect(folder: root, into: &found, isRoot: true)
        return found
    }

    /// Depth first, entries in natural order: the order `NaturalOrder.pathsInIncreasingOrder` gives the paths.
    private mutating func collect(folder: String, into found: inout [String], isRoot: Bool) throws(DatasetError) {
        var information = stat()
        if stat(folder, &information) == 0 {
            let identity = [UInt64(information.st_dev), UInt64(information.st_ino)]
            if !visited.insert(identity).inserted {
                skipped.append(SkippedFile(path: folder, reason: "folder already scanned (symbolic link loop?)"))
                return
            }
        }
        let entries: [Entry]
        do {
            entries = try self.entries(of: folder)
        } catch {
            if isRoot { throw error }
            unreadable.append(SkippedFile(path: folder, reason: error.reason))
            return
        }
        for entry in entries {
            switch entry.kind {
            case .folder:
                try collect(folder: entry.path, into: &found, isRoot: false)
            case .regularFile:
                switch ImageFileCheck.verdict(path: entry.path) {
                case .image: found.append(entry.path)
                case .notImage(let reason): skipped.append(SkippedFile(path: entry.path, reason: reason))
                }
            case .otherFile(let kind):
                unreadable.append(SkippedFile(path: entry.path, reason: "not a regular file (\(kind)); not opened"))
            }
        }
    }

    /// The raw names in `folder`, "." and ".." left out.
    private static func rawNames(of folder: String) throws(DatasetError) -> [[UInt8]] {
        guard let directory = opendir(folder) else {
            throw DatasetError(path: folder, reason: "cannot read the folder: \(SystemError.describe(errno))")
        }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw DatasetError(path: folder, reason: "cannot read the folder: \(SystemError.describe(errno))") }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            names.append(name)
        }
    }

    /// `bytes` as text with every byte that is not part of valid UTF-8 written `\xNN`.
    static func escaped(_ bytes: [UInt8]) -> String {
        var text = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        loop: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                text.unicodeScalars.append(Unicode.UTF8.decode(encoded))
                offset += encoded.count
            case .error(let length):
                for byte in bytes[offset..<(offset + length)] {
                    text += "\\x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
                }
                offset += length
            case .emptyInput:
                break loop
            }
        }
        return text
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
