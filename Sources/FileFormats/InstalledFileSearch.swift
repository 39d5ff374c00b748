import Foundation

/// Where the files set-up converts (the backbone, the person detector) are found without being named: beside an
/// installed binary, or in the clone a binary was built in or is run from.
public enum InstalledFileSearch {
    /// The first of `<executable's folder>/../share/workbench/<fileName>` (an installed binary) and
    /// `models/<fileName>` in the first folder at or above the executable (a build inside the clone), then at or
    /// above the working directory; nil when there is none.
    public static func find(fileName: String) -> String? {
        let executableFolder = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent()
        if let executableFolder {
            let installed = executableFolder.deletingLastPathComponent()
                .appendingPathComponent("share/workbench").appendingPathComponent(fileName).path
            if FileManager.default.fileExists(atPath: installed) { return installed }
        }
        let starts = [executableFolder, URL(fileURLWithPath: FileManager.default.currentDirectoryPath)].compactMap { $0 }
        for start in starts {
            var folder = start
            while true {
                let candidate = folder.appendingPathComponent("models").appendingPathComponent(fileName).path
                if FileManager.default.fileExists(atPath: candidate) { return candidate }
                let parent = folder.deletingLastPathComponent()
                if parent.path == folder.path { break }
                folder = parent
            }
        }
        return nil
    }
}
