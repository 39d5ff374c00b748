import FileFormats
import Foundation

/// Where the converted backbone weights live. Set-up writes them to `models/efficientnet-lite0.safetensors` in
/// the clone and `scripts/install.sh` copies them to `PREFIX/share/workbench/` beside `PREFIX/bin/workbench`; the
/// binary finds either from its own location, so it works from any working directory with no environment variable.
public enum BackboneLocation {
    /// The weights file name set-up writes.
    public static let fileName = "efficientnet-lite0.safetensors"

    /// The weights path, the first of: `explicit` (`--backbone`); `$WORKBENCH_WEIGHTS`;
    /// `<executable's folder>/../share/workbench/<fileName>` (an installed binary); `models/<fileName>` in the first
    /// folder at or above the executable (a build inside the clone), then at or above the working directory.
    public static func resolve(explicit: String? = nil) throws(WorkbenchError) -> String {
        if let explicit { return explicit }
        if let fromEnvironment = ProcessInfo.processInfo.environment["WORKBENCH_WEIGHTS"], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        if let found = InstalledFileSearch.find(fileName: fileName) { return found }
        throw WorkbenchError(
            "backbone weights \(fileName) not found: run scripts/install.sh (or scripts/setup.sh in "
                + "the clone), set WORKBENCH_WEIGHTS, or give the weights file's path")
    }
}
