import Foundation
import Video

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
    /// or, not there yet, by resolved path: `OutputConflicts`), or when a file written into one of `filledFolders`
    /// could replace an input or an output, naming both. `inputs` are every file the run reads (a dataset's files as
    /// listed, the model, the weights), not only the folders named. Files read and written by design (the player's
    /// MovieData.json) are listed once, as outputs. Every workflow that writes calls this before any work.
    public static func checkConflicts(
        inputs: [String], outputs: [String?], filledFolders: [OutputConflicts.FilledFolder] = []
    ) throws(WorkbenchError) {
        try WorkbenchError.passingOn {
            try OutputConflicts.check(inputs: inputs, outputs: outputs.compactMap { $0 }, filledFolders: filledFolders)
        }
    }

    /// The files labeling `movies` reads: each video file, and each frames folder with its frames (`FrameFolder`'s
    /// listing, no picture decoded), for `checkConflicts`.
    static func movieFiles(_ movies: [String]) -> [String] {
        movies.flatMap { movie in [movie] + ((try? FrameFolder(path: movie))?.framePaths ?? []) }
    }
}
