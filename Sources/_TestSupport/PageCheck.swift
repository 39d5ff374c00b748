import Foundation
import XCTest

/// What headless Chromium met on a page, from `scripts/check/check-page.py` (see its documentation for each field).
public struct PageCheck: Decodable, Sendable {
    public let consoleErrors: [String]
    public let requests: [String]
    public let loadMs: Double
    public let renderMs: Double
    public let text: String
    public let dataPaths: [String]
    public let videoStates: [Int]?
    public let distinctColors: Int?
    public let pageHeight: Int
    /// The values of the `evaluate` expressions, as JSON text each.
    public let evaluations: [JSONValueText]

    enum CodingKeys: String, CodingKey {
        case consoleErrors = "console_errors", requests, loadMs = "load_ms", renderMs = "render_ms", text
        case dataPaths = "data_paths", videoStates = "video_states", distinctColors = "distinct_colors", pageHeight = "page_height"
        case evaluations
    }

    /// A value an expression returned: strings and arrays of strings are what the tests read.
    public enum JSONValueText: Decodable, Sendable, Equatable {
        case string(String)
        case strings([String])
        case other

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .string(text)
            } else if let texts = try? container.decode([String].self) {
                self = .strings(texts)
            } else {
                self = .other
            }
        }
    }

    /// Requests that left the page's own file and its inline `data:` pictures: anything on the network, or any
    /// other file (the labeling page's movies are passed in `allowedFiles`).
    public func outsideRequests(page: String, allowedFiles: [String] = []) -> [String] {
        let allowed = Set(([page] + allowedFiles).map { URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path })
        return requests.filter { request in
            if request.hasPrefix("data:") { return false }
            guard let url = URL(string: request), url.isFileURL else { return true }
            return !allowed.contains(url.standardizedFileURL.resolvingSymlinksInPath().path)
        }
    }

    /// Where screenshots are kept for people to look at after a run: `/tmp/workbench-screenshots-UID` (not
    /// removed). One folder per user: another user's folder in the shared /tmp is not writable.
    public static var screenshotFolder: URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("workbench-screenshots-\(getuid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Opens `page` in headless Chromium; with `screenshot`, a full-page PNG of that name goes into
    /// `screenshotFolder`; with `videos`, waits for every `<video>` to have data; `evaluate` runs JavaScript
    /// expressions afterwards (promises are awaited). Fails the test (never skips) when Chromium or the script
    /// cannot run.
    public static func run(
        page: String, screenshot: String? = nil, videos: Bool = false, evaluate: [String] = [],
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> PageCheck {
        let root = WorkbenchBinary.repositoryRoot()
        let result = FileManager.default.temporaryDirectory.appendingPathComponent("page-check-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: result) }
        var arguments = [root.appendingPathComponent("scripts/check/check-page.py").path, page, result.path]
        if let screenshot { arguments += ["--screenshot", screenshotFolder.appendingPathComponent(screenshot).path] }
        if videos { arguments.append("--videos") }
        for expression in evaluate { arguments += ["--evaluate", expression] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ProjectPython.interpreter(file: file, line: line))
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            XCTFail("check-page.py failed (run scripts/setup.sh: it installs chromium): \(message)", file: file, line: line)
            throw CocoaError(.executableLoad)
        }
        return try JSONDecoder().decode(PageCheck.self, from: Data(contentsOf: result))
    }
}
