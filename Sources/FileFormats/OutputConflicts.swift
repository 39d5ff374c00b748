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

    /// Throws for the first output that is the same file as an input or as an earlier output, naming both.
    /// An input that does not exist (yet) is compared by its resolved path, like an output.
    public static func check(inputs: [String], outputs: [String]) throws(Conflict) {
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
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        let folder: String, name: String
        if let slash = trimmed.lastIndex(of: "/") {
            folder = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
            name = String(trimmed[trimmed.index(after: slash)...])
        } else {
            (folder, name) = (".", trimmed)
        }
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
