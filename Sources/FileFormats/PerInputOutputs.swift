import Foundation

/// Where a run with one output file per input puts them (`label --vtt/--annotate`, `detect --annotate/--vtt` on
/// videos): the destination itself for a single input (unless it is a folder), else one file per input in the
/// destination folder, named after the input (a number added when two inputs share a name).
public enum PerInputOutputs {
    /// Each of `inputs`' output paths under `destination` with `fileExtension`. Computed for all the inputs of a run
    /// before it starts, these are a superset of the files written: an input that fails only frees a numbered name.
    public static func paths(inputs: [String], destination: String, fileExtension: String) throws(WorkbenchError) -> [String] {
        var isDirectory: ObjCBool = false
        let isFolder = FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory) && isDirectory.boolValue
        if inputs.count == 1 && !isFolder { return [destination] }
        guard isFolder else {
            throw WorkbenchError(path: destination, reason: "with several movies this must be an existing folder (one file per movie goes in it)")
        }
        var used: Set<String> = []
        return inputs.map { input in
            let stem = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
            let name = uniqueName(stem: stem, fileExtension: fileExtension, used: &used)
            return URL(fileURLWithPath: destination).appendingPathComponent(name).path
        }
    }

    /// `stem.fileExtension`, or `stem-2.fileExtension`, `stem-3` … when `used` holds it already; the name is added
    /// to `used`. One numbering for every folder a run fills with a file per input.
    public static func uniqueName(stem: String, fileExtension: String, used: inout Set<String>) -> String {
        var name = "\(stem).\(fileExtension)", number = 2
        while used.contains(name) {
            name = "\(stem)-\(number).\(fileExtension)"
            number += 1
        }
        used.insert(name)
        return name
    }
}
