import FileFormats
import Foundation

/// Where the converted person detector lives. Set-up writes it beside the backbone, to
/// `models/ssdlite-mobilenetv2-person.safetensors` in the clone, and `scripts/install.sh` copies it to
/// `PREFIX/share/workbench/`; the binary finds either from its own location, as it finds the backbone.
public enum DetectorLocation {
    /// The weights file name set-up writes.
    public static let fileName = "ssdlite-mobilenetv2-person.safetensors"

    /// The environment variable that names a detector file when `--detector` does not.
    public static let environmentVariable = "WORKBENCH_DETECTOR"

    /// The detector's path, the first of: `explicit` (`--detector`); `$WORKBENCH_DETECTOR`;
    /// `<executable's folder>/../share/workbench/<fileName>` (an installed binary); `models/<fileName>` in the first
    /// folder at or above the executable (a build inside the clone), then at or above the working directory.
    public static func resolve(explicit: String?) throws(WorkbenchError) -> String {
        if let explicit { return explicit }
        if let fromEnvironment = ProcessInfo.processInfo.environment[environmentVariable], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        if let found = InstalledFileSearch.find(fileName: fileName) { return found }
        throw WorkbenchError(
            "person detector \(fileName) not found: run scripts/install.sh (or scripts/setup.sh in the clone), "
                + "set \(environmentVariable), or give the detector file's path")
    }
}
