import Foundation

/// Creating folders for files that several processes write at once (cache entries, results of array tasks).
public enum FolderCreation {
    /// `mkdir -p`: creates `path` and its missing parents (mode 0755 less the umask), tolerating other processes
    /// creating the same folders at the same moment. Fails, naming the folder, when one cannot be made or a file
    /// stands where a folder should.
    public static func create(_ path: String) throws(AtomicFile.WriteError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0, errno != EEXIST {
                throw AtomicFile.WriteError(path: current, reason: "cannot create the folder: \(SystemError.describe(errno))")
            }
        }
        var status = stat()
        // A name that exists but cannot be followed (a link loop, a link to nothing) is not "a file in the way".
        guard stat(path, &status) == 0 else {
            throw AtomicFile.WriteError(path: path, reason: "cannot create the folder: \(SystemError.describe(errno))")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw AtomicFile.WriteError(path: path, reason: "cannot create the folder: a file is in the way")
        }
    }
}
