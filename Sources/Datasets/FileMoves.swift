import FileFormats
import Foundation

/// One file moved: where it was and where it went.
public struct FileMove: Sendable, Codable, Equatable {
    /// The file's place before the move.
    public var from: String
    /// Its place after.
    public var to: String

    /// A move.
    public init(from: String, to: String) {
        self.from = from
        self.to = to
    }
}

/// Moving pictures out of a dataset into a folder under their relative paths, all or nothing, with an undo list.
///
/// A move is planned first (`plan`): every source must be a regular file under one of the roots, no destination may
/// exist, and the folder may be neither inside a root nor a file. `perform` then renames file by file (a copy and a
/// delete across file systems); when one fails, the files moved so far go back, newest first, and the folders it
/// made are removed again, so a failure leaves the dataset as it was.
public enum FileMoves {
    /// The moves that put `paths` (each under one of `roots`, as the scan named it) into `folder` under their paths
    /// relative to their root; a path under a root other than the first goes under that root's folder name.
    public static func plan(paths: [String], roots: [String], into folder: String) throws(DatasetError) -> [FileMove] {
        try refuseDestination(folder, roots: roots)
        var moves: [FileMove] = [], destinations = Set<String>()
        for path in paths {
            guard let (index, root) = roots.enumerated().first(where: { path.hasPrefix(Self.withSlash($0.element)) }) else {
                throw DatasetError(path: path, reason: "is not under the dataset's folders")
            }
            let relative = String(path.dropFirst(Self.withSlash(root).count))
            let destination = Self.withSlash(folder) + (index == 0 ? "" : (root as NSString).lastPathComponent + "/") + relative
            var information = stat()
            guard lstat(path, &information) == 0, (information.st_mode & S_IFMT) == S_IFREG else {
                throw DatasetError(path: path, reason: "is not a regular file any more")
            }
            if lstat(destination, &information) == 0 { throw DatasetError(path: destination, reason: "already exists; nothing was moved") }
            guard destinations.insert(destination).inserted else { continue }
            moves.append(FileMove(from: path, to: destination))
        }
        return moves
    }

    /// Refuses a destination folder that is a file, or that lies inside (or is) one of `roots`.
    public static func refuseDestination(_ folder: String, roots: [String]) throws(DatasetError) {
        var information = stat()
        if stat(folder, &information) == 0, (information.st_mode & S_IFMT) != S_IFDIR {
            throw DatasetError(path: folder, reason: "is a file, not a folder to move pictures into")
        }
        let resolvedFolder = resolved(folder)
        for root in roots {
            let resolvedRoot = resolved(root)
            if resolvedFolder == resolvedRoot || resolvedFolder.hasPrefix(withSlash(resolvedRoot)) {
                throw DatasetError(path: folder, reason: "is inside the dataset folder \(root): moved pictures would still be in it")
            }
        }
    }

    /// Performs `moves` in order, all or nothing (see the type's notes).
    public static func perform(_ moves: [FileMove]) throws(DatasetError) {
        var done: [FileMove] = [], madeFolders: [String] = []
        for move in moves {
            do {
                madeFolders += try makeFolders(for: move.to)
                try moveFile(from: move.from, to: move.to)
                done.append(move)
            } catch {
                for undone in done.reversed() { try? moveFile(from: undone.to, to: undone.from) }
                for made in madeFolders.reversed() { rmdir(made) }
                throw DatasetError(
                    path: move.from, reason: "cannot move to \(move.to): \(error.reason); the \(done.count) file(s) moved before it are back")
            }
        }
    }

    /// Puts the files of `moves` (as `perform` moved them) back, all or nothing.
    public static func undo(_ moves: [FileMove]) throws(DatasetError) {
        try perform(moves.reversed().map { FileMove(from: $0.to, to: $0.from) })
    }

    /// The folders missing on the way to `path`'s folder, made now, outermost first.
    private static func makeFolders(for path: String) throws(DatasetError) -> [String] {
        var missing: [String] = []
        var folder = (path as NSString).deletingLastPathComponent
        while !folder.isEmpty && folder != "/" && !FolderWalk.isFolder(folder) {
            missing.insert(folder, at: 0)
            folder = (folder as NSString).deletingLastPathComponent
        }
        for made in missing where mkdir(made, 0o755) != 0 {
            throw DatasetError(path: made, reason: String(cString: strerror(errno)))
        }
        return missing
    }

    /// `rename(2)`; across file systems a copy of the bytes, then the source removed.
    private static func moveFile(from source: String, to destination: String) throws(DatasetError) {
        var information = stat()
        guard lstat(destination, &information) != 0 else { throw DatasetError(path: destination, reason: "already exists") }
        if rename(source, destination) == 0 { return }
        guard errno == EXDEV else { throw DatasetError(path: source, reason: String(cString: strerror(errno))) }
        do {
            try FileManager.default.copyItem(atPath: source, toPath: destination)
        } catch {
            unlink(destination)
            throw DatasetError(path: source, reason: "cannot copy to another file system: \(error.localizedDescription)")
        }
        guard unlink(source) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(destination)
            throw DatasetError(path: source, reason: reason)
        }
    }

    private static func withSlash(_ folder: String) -> String { folder.hasSuffix("/") ? folder : folder + "/" }

    private static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
