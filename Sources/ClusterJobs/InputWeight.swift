import Foundation

/// Sizes on disk, the weights inputs are balanced by: known from one `stat` each, with no decoding, so every task
/// of a job can weigh every input cheaply and all of them arrive at the same split.
public enum InputWeight {
    /// The size in bytes of the file at `path` (through symbolic links); a folder's is the total of the regular
    /// files directly inside it (a folder of numbered frames). 0 when it cannot be read: the command that then
    /// opens it reports why, and the split stays the same on every machine that sees the same files.
    public static func bytes(of path: String) -> Int64 {
        var status = stat()
        guard stat(path, &status) == 0 else { return 0 }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return Int64(status.st_size)
        case S_IFDIR: return folderBytes(path)
        default: return 0
        }
    }

    private static func folderBytes(_ folder: String) -> Int64 {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        var total: Int64 = 0
        for name in names where !name.hasPrefix(".") {
            var status = stat()
            if stat(folder + "/" + name, &status) == 0, status.st_mode & S_IFMT == S_IFREG { total += Int64(status.st_size) }
        }
        return total
    }
}
