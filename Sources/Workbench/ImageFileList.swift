import Datasets
import Foundation

/// Command-line inputs expanded into image files: files as given, folders walked recursively (`FolderWalk`: natural
/// order, `2.jpg` before `10.jpg`, hidden entries skipped, files kept when they look like images, each real folder
/// once), plus the entries found that cannot be read.
public struct ImageFileList: Sendable {
    /// The image files, in order.
    public var files: [String]
    /// Entries of the walked folders that may be images but cannot be read (names that are not UTF-8, FIFOs and
    /// devices, broken links, unreadable folders): each one a line for the user and a failed image.
    public var unreadable: [WorkbenchError]
    /// Files of the walked folders passed over as no pictures Workbench can read: counted, by kind, when nothing
    /// else is left.
    public var skipped: [SkippedFile] = []

    /// The image files named by `inputs`; a missing input is an error naming it.
    public static func expand(_ inputs: [String]) throws(WorkbenchError) -> ImageFileList {
        var files: [String] = []
        var walk = FolderWalk()
        for input in inputs {
            var link = stat()
            guard lstat(input, &link) == 0 else {
                throw WorkbenchError(path: input, reason: "no such file or folder")
            }
            guard FolderWalk.isFolder(input) else {
                // A file named on the command line is taken as given; the decoder reports what is wrong with it.
                files.append(input)
                continue
            }
            files += try WorkbenchError.passingOn { try walk.imageFiles(under: input) }
        }
        return ImageFileList(
            files: files, unreadable: walk.unreadable.map { WorkbenchError(path: $0.path, reason: $0.reason) },
            skipped: walk.skipped)
    }

    /// `inputs` as a command over images takes them (`features`, `classify`): expanded (`expand`), refused when
    /// they hold no image at all, cut to `shard`'s part when given (reported as `.shard`, and possibly empty), and
    /// with `strict` the first unreadable entry thrown; otherwise each unreadable entry is reported as `.skipped`
    /// and stays in the list, to be counted as a failed image.
    public static func gather(
        _ inputs: [String], shard: Shard? = nil, strict: Bool,
        events: (ImageFilesEvent) -> Void
    ) throws(WorkbenchError) -> ImageFileList {
        var list = try expand(inputs)
        guard list.count > 0 else {
            let passedOver = list.skipped.isEmpty ? "" : ": \(SkippedFiles.summary(list.skipped)), not pictures Workbench can read"
            throw WorkbenchError("no image files in \(inputs.joined(separator: ", "))\(passedOver)")
        }
        if let shard {
            let total = list.count
            list = list.shard(shard)
            events(.shard(shard, images: list.count, total: total))
        }
        if strict, let first = list.unreadable.first { throw first }
        for problem in list.unreadable { events(.skipped(problem)) }
        return list
    }

    /// The images a run counts: the files and the unreadable entries.
    public var count: Int { files.count + unreadable.count }

    /// The part of these files (and of the unreadable entries, which count as failed images) that `shard` holds,
    /// split as `InputSharding.images` splits paths.
    public func shard(_ shard: Shard) -> ImageFileList {
        let paths = files + unreadable.map { $0.path ?? "" }
        let kept = Set(InputSharding.imagePositions(paths, shard: shard))
        return ImageFileList(
            files: files.indices.filter { kept.contains($0) }.map { files[$0] },
            unreadable: unreadable.indices.filter { kept.contains(files.count + $0) }.map { unreadable[$0] },
            skipped: skipped)
    }
}

/// What a workflow over image files (`FeaturesWorkflow`, `ClassificationWorkflow.classify(_:)`) reports as it goes,
/// in order: the shard, the unreadable entries, the start, then progress with the images that failed.
public enum ImageFilesEvent: Sendable {
    /// Only `shard`'s part of the inputs is worked on: `images` of `total` (unreadable entries count as images).
    case shard(Shard, images: Int, total: Int)
    /// An entry or image that cannot be read: skipped and counted as failed, the run goes on.
    case skipped(WorkbenchError)
    /// The network starts on this many files.
    case started(images: Int)
    /// Files done so far, read or failed.
    case progress(done: Int, total: Int)
}
