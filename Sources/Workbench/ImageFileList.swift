import Datasets
import Foundation

/// Expands command-line inputs into image files: files as given, folders walked recursively in a stable natural
/// order (`2.jpg` before `10.jpg`), hidden entries skipped, files kept when they look like images.
public enum ImageFileList {
    /// The image files named by `inputs`, in order; a missing input is an error naming it.
    public static func expand(_ inputs: [String]) throws(WorkbenchError) -> [String] {
        var files: [String] = []
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else {
                throw WorkbenchError(path: input, reason: "no such file or folder")
            }
            if isDirectory.boolValue {
                files += walk(input)
            } else {
                files.append(input)
            }
        }
        return files
    }

    private static func walk(_ folder: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var files: [String] = []
        for name in NaturalOrder.sorted(names) where !name.hasPrefix(".") {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                files += walk(path)
            } else if ImageFileCheck.verdict(path: path) == .image {
                files.append(path)
            }
        }
        return files
    }
}
