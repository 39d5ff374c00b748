import FileFormats
import Foundation

/// The JSON text of reports, as `train --report` writes it and `train`, `evaluate` and `inspect --json` print it:
/// keys sorted and indented, so equal reports give equal bytes and a person can read them.
public enum ReportJSON {
    /// `value` as indented JSON with sorted keys, ending with a newline. A value JSON cannot hold (NaN, an infinity)
    /// is an error, never a silently empty report.
    public static func text<Value: Encodable>(_ value: Value) throws(WorkbenchError) -> String {
        do {
            return try JSONWriter.text(value, layout: .indented)
        } catch {
            throw WorkbenchError("cannot write the report as JSON: \(error)")
        }
    }
}
