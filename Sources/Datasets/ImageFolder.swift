import Foundation

/// A file left out of a dataset scan, with the reason (shown by `--verbose`).
public struct SkippedFile: Sendable, Equatable, CustomStringConvertible {
    /// The file's path.
    public let path: String
    /// Why it was left out.
    public let reason: String
    /// Creates a record.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    /// "path: reason".
    public var description: String { "\(path): \(reason)" }
}

/// A folder whose subfolders are labels and whose image files, at any depth, belong to their top-level label.
///
/// Labels and files come in natural order (`NaturalOrder`), so a scan of the same folder always lists the same
/// images in the same order. Hidden entries (names starting with ".") are ignored; other non-image files are
/// listed in `skipped`.
public struct ImageFolder: Sendable, Equatable {
    /// One label and its image files.
    public struct LabelFolder: Sendable, Equatable {
        /// The label: the name of the top-level subfolder.
        public var label: String
        /// The subfolder's path.
        public var path: String
        /// Image file paths, natural order by their path below `path`.
        public var files: [String]
        /// Creates a label folder.
        public init(label: String, path: String, files: [String]) {
            self.label = label
            self.path = path
            self.files = files
        }
    }

    /// The scanned folder, as given.
    public var path: String
    /// Labels with their files, natural order.
    public var classes: [LabelFolder]
    /// Files left out, with reasons, in scan order.
    public var skipped: [SkippedFile]

    /// Creates a folder value (scans use `scan`).
    public init(path: String, classes: [LabelFolder], skipped: [SkippedFile] = []) {
        self.path = path
        self.classes = classes
        self.skipped = skipped
    }

    /// The labels, natural order.
    public var labels: [String] { classes.map(\.label) }
    /// The number of image files over all labels.
    public var imageCount: Int { classes.reduce(0) { $0 + $1.files.count } }
    /// The files of one label, or nil when the folder has no such label.
    public func files(label: String) -> [String]? { classes.first { $0.label == label }?.files }

    /// Scans `path`. Only a missing or unreadable folder is an error here; what makes a dataset usable
    /// (two labels, images in each) is checked by `DatasetLayout`.
    public static func scan(path: String) throws(DatasetError) -> ImageFolder {
        try FolderWalk.requireFolder(path)
        var walk = FolderWalk()
        var classes: [LabelFolder] = []
        for entry in try walk.visibleEntries(of: path) {
            let entryPath = path + "/" + entry
            if FolderWalk.isFolder(entryPath) {
                let files = try walk.imageFiles(under: entryPath)
                classes.append(LabelFolder(label: entry, path: entryPath, files: files))
            } else {
                walk.skipped.append(SkippedFile(path: entryPath, reason: "not inside a label folder"))
            }
        }
        return ImageFolder(path: path, classes: classes, skipped: walk.skipped)
    }
}

/// The recursive part of a scan: visible entries, image files at any depth, loops through symbolic links cut.
struct FolderWalk {
    var skipped: [SkippedFile] = []
    /// Folders already entered, by device and inode, so a symbolic link back up the tree can't loop forever.
    private var visited: Set<[UInt64]> = []

    static func requireFolder(_ path: String) throws(DatasetError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DatasetError(path: path, reason: "folder does not exist")
        }
        guard isDirectory.boolValue else { throw DatasetError(path: path, reason: "not a folder") }
    }

    static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Names in `folder` that don't start with ".", natural order.
    func visibleEntries(of folder: String) throws(DatasetError) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            throw DatasetError(path: folder, reason: "cannot read the folder")
        }
        return NaturalOrder.sorted(names.filter { !$0.hasPrefix(".") })
    }

    /// Image files anywhere below `root`, natural order by path below `root`.
    mutating func imageFiles(under root: String) throws(DatasetError) -> [String] {
        var found: [[String]] = []
        try collect(folder: root, relative: [], into: &found, isRoot: true)
        found.sort(by: NaturalOrder.pathsInIncreasingOrder)
        return found.map { root + "/" + $0.joined(separator: "/") }
    }

    private mutating func collect(folder: String, relative: [String], into found: inout [[String]], isRoot: Bool) throws(DatasetError) {
        var information = stat()
        if stat(folder, &information) == 0 {
            let identity = [UInt64(information.st_dev), UInt64(information.st_ino)]
            if !visited.insert(identity).inserted {
                skipped.append(SkippedFile(path: folder, reason: "folder already scanned (symbolic link loop?)"))
                return
            }
        }
        let names: [String]
        do {
            names = try visibleEntries(of: folder)
        } catch {
            if isRoot { throw error }
            skipped.append(SkippedFile(path: folder, reason: "cannot read the folder"))
            return
        }
        for name in names {
            let path = folder + "/" + name
            if Self.isFolder(path) {
                try collect(folder: path, relative: relative + [name], into: &found, isRoot: false)
            } else {
                switch ImageFileCheck.verdict(path: path) {
                case .image: found.append(relative + [name])
                case .notImage(let reason): skipped.append(SkippedFile(path: path, reason: reason))
                }
            }
        }
    }
}
