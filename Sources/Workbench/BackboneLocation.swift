import Foundation

/// Where the converted backbone weights live. Set-up writes them to `models/efficientnet-lite0.safetensors` in
/// the clone; the binary finds them from its own location, so it works from any working directory.
public enum BackboneLocation {
    /// The weights file name set-up writes.
    public static let fileName = "efficientnet-lite0.safetensors"

    /// The weights path: `explicit` if given, else `$WORKBENCH_WEIGHTS`, else `models/<fileName>` in the first
    /// folder at or above the executable (and then the working directory) that has it.
    public static func resolve(explicit: String? = nil) throws(WorkbenchError) -> String {
        if let explicit { return explicit }
        if let fromEnvironment = ProcessInfo.processInfo.environment["WORKBENCH_WEIGHTS"], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        var starts: [URL] = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            starts.insert(executable.deletingLastPathComponent(), at: 0)
        }
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
        throw WorkbenchError("backbone weights \(fileName) not found: run scripts/setup.sh, or pass --backbone PATH")
    }
}
