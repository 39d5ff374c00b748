/// Facts about this build of Workbench.
public enum WorkbenchInfo {
    /// The version model files record.
    public static let version = "0.1.0"
}
