import Foundation

/// Where a dataset's training, validation and testing images are, found from one folder given by the user.
///
/// Recognised layouts, first match wins:
/// 1. Create ML: `Training Data/` (and usually `Testing Data/`), each holding label folders;
/// 2. `train/` with optional `val/` (or `valid/`, `validation/`) and optional `test/`;
/// 3. otherwise the folder itself holds the label folders and is used for training.
/// Folder names are matched case-insensitively.
public struct DatasetLayout: Sendable, Equatable {
    /// Which layout was recognised.
    public enum Kind: String, Sendable, Equatable {
        /// `Training Data` + `Testing Data`.
        case createML
        /// `train` + optional `val`/`valid`/`validation` + optional `test`.
        case splitFolders
        /// The folder's subfolders are the labels.
        case singleFolder
    }

    /// The folder the user gave.
    public var root: String
    /// The recognised layout.
    public var kind: Kind
    /// Images to train on; its labels (natural order) are the model's labels.
    public var training: ImageFolder
    /// Images to tune on, when the dataset provides them.
    public var validation: ImageFolder?
    /// Images to report accuracy on, when the dataset provides them.
    public var testing: ImageFolder?
    /// Entries of `root` that the recognised layout does not use (only for the split-folder layouts).
    public var ignored: [SkippedFile]

    /// The model's labels: the training labels, natural order.
    public var labels: [String] { training.labels }

    /// Every file left out by the scans, with reasons: for `--verbose`.
    public var skipped: [SkippedFile] {
        ignored + training.skipped + (validation?.skipped ?? []) + (testing?.skipped ?? [])
    }
    /// Every entry the scans found but could not read (see `FolderWalk`): each one a warning.
    public var unreadable: [SkippedFile] {
        training.unreadable + (validation?.unreadable ?? []) + (testing?.unreadable ?? [])
    }

    /// Every file the scans found to read: each split's images, then the entries that could not be read. What no
    /// output of a run on the dataset may replace.
    public var files: [String] {
        [training, validation, testing].compactMap { $0 }.flatMap { $0.classes.flatMap(\.files) } + unreadable.map(\.path)
    }

    /// Creates a layout value (users call `resolve`).
    public init(
        root: String, kind: Kind, training: ImageFolder, validation: ImageFolder? = nil,
        testing: ImageFolder? = nil, ignored: [SkippedFile] = []
    ) {
        self.root = root
        self.kind = kind
        self.training = training
        self.validation = validation
        self.testing = testing
        self.ignored = ignored
    }

    /// Finds the layout of `path`, scans it and checks it is usable: at least two training labels, every label
    /// with at least one image file, and no validation or testing label that training lacks.
    public static func resolve(path: String) throws(DatasetError) -> DatasetLayout {
        try FolderWalk.requireFolder(path)
        let names = try FolderWalk.visibleNames(of: path).filter { FolderWalk.isFolder(path + "/" + $0) }
        func find(_ candidates: [String]) throws(DatasetError) -> String? {
            let matches = names.filter { candidates.contains($0.lowercased()) }
            if matches.count > 1 {
                throw DatasetError(path: path, reason: "ambiguous layout: both '\(matches[0])' and '\(matches[1])' exist; keep one")
            }
            return matches.first
        }

        let layout: DatasetLayout
        if let trainingName = try find(["training data"]) {
            let testingName = try find(["testing data"])
            layout = DatasetLayout(
                root: path, kind: .createML, training: try ImageFolder.scan(path: path + "/" + trainingName),
                testing: try testingName.map { name throws(DatasetError) in try ImageFolder.scan(path: path + "/" + name) },
                ignored: ignoredEntries(in: path, using: [trainingName, testingName].compactMap { $0 }))
        } else if let trainingName = try find(["train"]) {
            let validationName = try find(["val", "valid", "validation"])
            let testingName = try find(["test"])
            layout = DatasetLayout(
                root: path, kind: .splitFolders, training: try ImageFolder.scan(path: path + "/" + trainingName),
                validation: try validationName.map { name throws(DatasetError) in try ImageFolder.scan(path: path + "/" + name) },
                testing: try testingName.map { name throws(DatasetError) in try ImageFolder.scan(path: path + "/" + name) },
                ignored: ignoredEntries(in: path, using: [trainingName, validationName, testingName].compactMap { $0 }))
        } else {
            layout = DatasetLayout(root: path, kind: .singleFolder, training: try ImageFolder.scan(path: path))
        }
        try layout.validate()
        return layout
    }

    /// The picture formats a label folder's files may be in, for messages (ImageCodecs reads them all).
    public static let pictureFormats = "JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP"

    /// The checks `resolve` applies to the scanned folders.
    public func validate() throws(DatasetError) {
        guard training.classes.count >= 2 else {
            let found = training.labels.isEmpty ? "none" : training.labels.map { "'\($0)'" }.joined(separator: ", ")
            throw DatasetError(path: training.path, reason: "fewer than two labels (found \(found)); each label is a subfolder of images")
        }
        for folder in [training, validation, testing].compactMap({ $0 }) {
            if let empty = folder.classes.first(where: { $0.files.isEmpty }) {
                let found = empty.skipped.isEmpty ? "the folder holds no files" : SkippedFiles.summary(empty.skipped)
                throw DatasetError(
                    path: empty.path,
                    reason: "label '\(empty.label)' has no pictures Workbench can read "
                        + "(\(Self.pictureFormats)): \(found)")
            }
        }
        let known = Set(training.labels)
        for folder in [validation, testing].compactMap({ $0 }) {
            if let unknown = folder.classes.first(where: { !known.contains($0.label) }) {
                throw DatasetError(path: unknown.path, reason: "label '\(unknown.label)' is not among the training labels")
            }
        }
    }

    /// Throws when a label of `folder` has no readable image: call it once the images have been decoded.
    ///
    /// - Parameter readableCounts: for each label, how many of its files decoded; labels not listed count as 0.
    public static func requireReadableImages(in folder: ImageFolder, readableCounts: [String: Int]) throws(DatasetError) {
        for labelFolder in folder.classes where (readableCounts[labelFolder.label] ?? 0) == 0 {
            throw DatasetError(
                path: labelFolder.path,
                reason: "label '\(labelFolder.label)' has no readable images (all \(labelFolder.files.count) files failed to decode)")
        }
    }

    private static func ignoredEntries(in path: String, using used: [String]) -> [SkippedFile] {
        let names = (try? FolderWalk.visibleNames(of: path)) ?? []
        return names.filter { !used.contains($0) }.map {
            SkippedFile(path: path + "/" + $0, reason: "not part of the dataset layout (\(used.joined(separator: ", ")))")
        }
    }
}
