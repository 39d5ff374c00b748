import Foundation
import Glibc

/// The check that no output of a run replaces one of its inputs or another of its outputs (a review copy written
/// over the movie it shows, an HTML page over the model, the model and its report in one file). Made before any
/// work, so the refusal costs nothing.
///
/// Sameness is the file system's, not the names': two existing paths are one file when they have the same device
/// and inode (`stat`, following links), so a symbolic or hard link and `./x` against `x` are caught. An output that
/// does not exist yet is where a write will create it: the end of its chain of links, in its folder with links and
/// `..` resolved (`realpath`); two such outputs clash when those paths are equal. Outputs that are written through
/// rather than replaced (a device or FIFO: `/dev/null`, standard output) never clash.
public enum OutputConflicts {
    /// Marks `FileError`s raised by `OutputConflicts`.
    public enum ConflictDomain {}

    /// A refused output: the output as the caller named it, and a reason naming the other file.
    public typealias Conflict = FileError<ConflictDomain>

    /// A folder a run fills with files whose names are known only by their form until the work is done (`detect`'s
    /// clips, `<video stem>-<n>.mp4`): every file of the folder whose name `holds` accepts counts as an output.
    public struct FilledFolder: Sendable {
        /// The folder as the caller named it.
        public var path: String
        /// What goes into it, for messages ("a clip").
        public var contents: String
        /// Whether the run may write a file of this name (no folder part) into the folder.
        public var holds: @Sendable (String) -> Bool
        /// Whether a write into the folder goes through a symbolic link there to its target, as every output does;
        /// false for a folder whose writes replace the entry itself (`ConfinedFolder`), where only names can clash.
        public var writesThroughLinks: Bool

        /// A folder that receives `contents`, files whose names `holds` accepts.
        public init(
            path: String, contents: String, writesThroughLinks: Bool = true, holds: @escaping @Sendable (String) -> Bool
        ) {
            self.path = path
            self.contents = contents
            self.writesThroughLinks = writesThroughLinks
            self.holds = holds
        }
    }

    /// Throws for the first output that is the same file as an input or as an earlier output, naming both; then for
    /// an input or output that a file written into one of `filledFolders` could replace (its name in that folder
    /// is one the folder holds, or a file of such a name there is a link to it). An input that does not exist (yet)
    /// is compared by its resolved path, like an output. `inputs` are every file the run reads (a folder's files
    /// listed, not only the folder), so an output inside an input folder is refused only where it replaces one.
    public static func check(inputs: [String], outputs: [String], filledFolders: [FilledFolder] = []) throws(Conflict) {
        let inputIdentities = inputs.map { ($0, identity(of: $0)) }
        var earlierOutputs: [(String, Identity)] = []
        for output in outputs {
            guard let outputIdentity = identity(of: output), !outputIdentity.isWrittenThrough else { continue }
            if let input = inputIdentities.first(where: { $0.1 == outputIdentity })?.0 {
                throw Conflict(path: output, reason: "is the same file as the input \(input): an output must not replace an input")
            }
            if let other = earlierOutputs.first(where: { $0.1 == outputIdentity })?.0 {
                throw Conflict(path: output, reason: "is the same file as the output \(other): each output needs a file of its own")
            }
            earlierOutputs.append((output, outputIdentity))
        }
        for folder in filledFolders {
            try check(folder, inputs: inputIdentities, outputs: earlierOutputs)
        }
    }

    /// Refuses an input or output that a file written into `folder` could replace: named in the folder with a name
    /// it holds, or the same file as an entry of the folder with such a name (a symbolic or hard link).
    private static func check(
        _ folder: FilledFolder, inputs: [(String, Identity?)], outputs: [(String, Identity)]
    ) throws(Conflict) {
        let location = folderLocation(folder.path)
        func threatened(_ path: String) -> Bool {
            let (parent, name) = split(path)
            return folderLocation(parent) == location && folder.holds(name)
        }
        let named = inputs.map { ($0.0, true) } + outputs.map { ($0.0, false) }
        for (path, isInput) in named where threatened(path) {
            throw Conflict(path: path, reason: refusal(folder, isInput: isInput))
        }
        guard folder.writesThroughLinks, let entries = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in entries where folder.holds(name) {
            guard let entryIdentity = identity(of: location + name) else { continue }
            if let input = inputs.first(where: { $0.1 == entryIdentity })?.0 {
                throw Conflict(path: input, reason: refusal(folder, isInput: true) + " (\(location + name) is the same file)")
            }
            if let output = outputs.first(where: { $0.1 == entryIdentity })?.0 {
                throw Conflict(path: output, reason: refusal(folder, isInput: false) + " (\(location + name) is the same file)")
            }
        }
    }

    private static func refusal(_ folder: FilledFolder, isInput: Bool) -> String {
        isInput
            ? "is an input that \(folder.contents) written into \(folder.path) would replace: an output must not replace an input"
            : "is an output that \(folder.contents) written into \(folder.path) would replace: each output needs a file of its own"
    }

    /// Where the files of a folder are, ending in "/": the folder resolved when it exists, else its nearest existing
    /// ancestor resolved and the rest of its names after it (where it will be made).
    private static func folderLocation(_ path: String) -> String {
        var location: String
        if let resolved = realpath(path, nil) {
            location = String(cString: resolved)
            free(resolved)
        } else {
            let (parent, name) = split(path)
            location = parent == path ? path : folderLocation(parent) + name
        }
        return location.hasSuffix("/") ? location : location + "/"
    }

    /// A path's folder ("." for a bare name) and its last name, trailing slashes dropped.
    private static func split(_ path: String) -> (folder: String, name: String) {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return (".", trimmed) }
        return (slash == trimmed.startIndex ? "/" : String(trimmed[..<slash]), String(trimmed[trimmed.index(after: slash)...]))
    }

    /// What makes two paths one file.
    enum Identity: Equatable {
        /// An existing file or folder; `writtenThrough` for a device, FIFO or socket.
        case existing(device: UInt64, inode: UInt64, writtenThrough: Bool)
        /// Where a file not yet there would be created.
        case planned(String)

        var isWrittenThrough: Bool {
            if case .existing(_, _, true) = self { return true }
            return false
        }
    }

    /// `path`'s identity; nil for an empty path.
    static func identity(of path: String) -> Identity? {
        guard !path.isEmpty else { return nil }
        var information = stat()
        if stat(path, &information) == 0 {
            let type = information.st_mode & S_IFMT
            return .existing(
                device: UInt64(information.st_dev), inode: UInt64(information.st_ino),
                writtenThrough: type != S_IFREG && type != S_IFDIR)
        }
        return .planned(plannedLocation(of: (try? OutputFile.resolveLinks(path)) ?? path))
    }

    /// The absolute path a file not yet at `path` would get: its folder resolved by `realpath` when the folder
    /// exists, else made absolute against the working directory, then its name.
    static func plannedLocation(of path: String) -> String {
        let (folder, name) = split(path)
        var resolvedFolder: String
        if let resolved = realpath(folder, nil) {
            resolvedFolder = String(cString: resolved)
            free(resolved)
        } else if folder.hasPrefix("/") {
            resolvedFolder = folder
        } else {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let workingDirectory =
                getcwd(&buffer, buffer.count) != nil
                ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "."
            resolvedFolder = workingDirectory + "/" + folder
        }
        if !resolvedFolder.hasSuffix("/") { resolvedFolder += "/" }
        return resolvedFolder + name
    }
}
