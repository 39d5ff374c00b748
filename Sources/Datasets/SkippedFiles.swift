import Foundation

/// Counts of files passed over, by kind, for one line a person reads: "28 files skipped (20 .xyz, 8 with no
/// extension)".
///
/// A file's kind is its extension, lower case (".xyz"), or "with no extension"; a folder left out (one reached a
/// second time through a link) is "folder seen before". Kinds come most frequent first, then by name.
public enum SkippedFiles {
    /// The files' count and their kinds: "3 files skipped (2 .xyz, 1 .txt)", "1 file skipped (1 .xyz)".
    public static func summary(_ files: [SkippedFile]) -> String {
        let counts = Dictionary(grouping: files.map { kind(of: $0.path) }, by: { $0 }).mapValues(\.count)
        let kinds = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        return "\(files.count) \(files.count == 1 ? "file" : "files") skipped (\(kinds))"
    }

    /// The kind `summary` counts `path` as.
    public static func kind(of path: String) -> String {
        if FolderWalk.isFolder(path) { return "folder seen before" }
        let fileExtension = (path as NSString).pathExtension.lowercased()
        return fileExtension.isEmpty ? "with no extension" : ".\(fileExtension)"
    }
}
