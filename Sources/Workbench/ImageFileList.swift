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
            do {
                files += try walk.imageFiles(under: input)
            } catch {
                throw WorkbenchError(error)
            }
        }
        return ImageFileList(files: files, unreadable: walk.unreadable.map { WorkbenchError(path: $0.path, reason: $0.reason) })
    }

    /// The part of these files (and of the unreadable entries, which count as failed images) that `shard` holds,
    /// split as `InputSharding.images` splits paths.
    public func shard(_ shard: Shard) -> ImageFileList {
        let paths = files + unreadable.map { $0.path ?? "" }
        let kept = Set(InputSharding.imagePositions(paths, shard: shard))
        return ImageFileList(files: files.indices.filter { kept.contains($0) }.map { files[$0] },
                             unreadable: unreadable.indices.filter { kept.contains(files.count + $0) }.map { unreadable[$0] })
    }
}
