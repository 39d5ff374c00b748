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
    /// "path: reason", as every `PathReportingError` prints.
    public var description: String { "\(path): \(reason)" }
}

/// A folder whose subfolders are labels and whose image files, at any depth, belong to their top-level label.
///
/// Labels and files come in natural order (`NaturalOrder`), so a scan of the same folder always lists the same
/// images in the same order. Hidden entries (names starting with ".") are ignored; other non-image files are
/// listed in `skipped`, entries that cannot be read in `unreadable` (see `FolderWalk`).
public struct ImageFolder: Sendable, Equatable {
    /// One label and its image files.
    public struct LabelFolder: Sendable, Equatable {
        /// The label: the name of the top-level subfolder.
        public var label: String
        /// The subfolder's path.
        public var path: String
        /// Image file paths, natural order by their path below `path`.
        public var files: [String]
        /// Files below `path` passed over as no pictures (or folders seen before), with reasons: what an empty
        /// label's error and the scan's warning count.
        public var skipped: [SkippedFile]
        /// Creates a label folder.
        public init(label: String, path: String, files: [String], skipped: [SkippedFile] = []) {
            self.label = label
            self.path = path
            self.files = files
            self.skipped = skipped
        }
    }

    /// The scanned folder, as given.
    public var path: String
    /// Labels with their files, natural order.
    public var classes: [LabelFolder]
    /// Files left out on purpose (not images, not in a label folder, folders seen before), with reasons, in scan
    /// order: for `--verbose`.
    public var skipped: [SkippedFile]
    /// Entries that may hold images but cannot be read (names that are not UTF-8, FIFOs and devices, broken links,
    /// unreadable folders), in scan order: each is a warning and counts as an unreadable image.
    public var unreadable: [SkippedFile]

    /// Creates a folder value (scans use `scan`).
    public init(path: String, classes: [LabelFolder], skipped: [SkippedFile] = [], unreadable: [SkippedFile] = []) {
        self.path = path
        self.classes = classes
        self.skipped = skipped
        self.unreadable = unreadable
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
        for entry in try walk.entries(of: path) {
            switch entry.kind {
            case .folder:
                let skippedBefore = walk.skipped.count
                let files = try walk.imageFiles(under: entry.path)
                classes.append(
                    LabelFolder(
                        label: entry.name, path: entry.path, files: files,
                        skipped: Array(walk.skipped[skippedBefore...])))
            case .regularFile, .otherFile:
                walk.skipped.append(SkippedFile(path: entry.path, reason: "not inside a label folder"))
            }
        }
        return ImageFolder(path: path, classes: classes, skipped: walk.skipped, unreadable: walk.unreadable)
    }
}
