import Foundation

/// The check every workflow makes of the files it will write before it starts: a long run never ends without its
/// file because the folder was missing.
public enum WritableOutput {
    /// Fails unless `path` can be written: a device or FIFO (`/dev/null`) must itself be writable, a regular file's
    /// folder must exist and be writable.
    public static func check(_ path: String) throws(WorkbenchError) {
        if OutputFile.writesThrough(path: path) {
            guard FileManager.default.isWritableFile(atPath: path) else {
                throw WorkbenchError(path: path, reason: "cannot write: permission denied")
            }
            return
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue,
            FileManager.default.isWritableFile(atPath: folder)
        else {
            throw WorkbenchError(path: path, reason: "cannot write here: folder \(folder) does not exist or is not writable")
        }
    }

    /// Fails when one of `outputs` is one of `inputs` or another of `outputs` (the same file by device and inode,
    /// or, not there yet, by resolved path: `OutputConflicts`), naming both. Files read and written by design (the
    /// player's MovieData.json) are listed once, as outputs.
    public static func checkConflicts(inputs: [String], outputs: [String?]) throws(WorkbenchError) {
        try WorkbenchError.passingOn { try OutputConflicts.check(inputs: inputs, outputs: outputs.compactMap { $0 }) }
    }
}
