import FileFormats
import Foundation

/// The pictures a file says to leave out of training (`train --exclude`): doctor's JSON report, or a list of paths.
///
/// From doctor's report the files are those its moves would take (`DataAudit.AuditFindings.files`): every label
/// issue's and outlier's file, and of each copy every file but the first. Any other file is read as one path a
/// line (blank lines and lines starting with `#` skipped). Paths are compared after standardising (relative to the
/// working directory, `.` and `..` resolved), so the scan's and the list's spellings of a file meet.
public enum ExcludedPaths {
    /// The most bytes read from a list.
    public static let maximumBytes = 64 << 20

    /// The standardised paths `path` lists.
    public static func read(path: String) throws(DatasetError) -> Set<String> {
        let bytes: [UInt8]
        do {
            let file = try InputFile.open(path: path, maximumBytes: maximumBytes)
            bytes = try file.readAll()
        } catch {
            throw DatasetError(path: path, reason: error.reason)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if let report = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            report["labelIssues"] != nil || report["duplicates"] != nil || report["outliers"] != nil
        {
            return Set(doctorFiles(report).map(standardized))
        }
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        return Set(lines.filter { !$0.isEmpty && !$0.hasPrefix("#") }.map(standardized))
    }

    /// `path` relative to the working directory, standardised.
    public static func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    private static func doctorFiles(_ report: [String: Any]) -> [String] {
        var files: [String] = []
        for issue in report["labelIssues"] as? [[String: Any]] ?? [] { if let path = issue["path"] as? String { files.append(path) } }
        for copy in report["duplicates"] as? [[String: Any]] ?? [] { files += (copy["paths"] as? [String] ?? []).dropFirst() }
        for outlier in report["outliers"] as? [[String: Any]] ?? [] { if let path = outlier["path"] as? String { files.append(path) } }
        return files
    }
}
