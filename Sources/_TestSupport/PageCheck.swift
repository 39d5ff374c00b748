import Foundation
import XCTest

/// What headless Chromium met on a page, from `scripts/check_page.py` (see its documentation for each field).
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

    enum CodingKeys: String, CodingKey {
        case consoleErrors = "console_errors", requests, loadMs = "load_ms", renderMs = "render_ms", text
        case dataPaths = "data_paths", videoStates = "video_states", distinctColors = "distinct_colors", pageHeight = "page_height"
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

    /// Where screenshots are kept for people to look at after a run: `/tmp/workbench-screenshots` (not removed).
    public static var screenshotFolder: URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("workbench-screenshots")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Opens `page` in headless Chromium; with `screenshot`, a full-page PNG of that name goes into
    /// `screenshotFolder`; with `videos`, waits for every `<video>` to have data. Fails the test (never skips)
    /// when Chromium or the script cannot run.
    public static func run(page: String, screenshot: String? = nil, videos: Bool = false,
                           file: StaticString = #filePath, line: UInt = #line) throws -> PageCheck {
        let root = WorkbenchBinary.repositoryRoot()
        let result = FileManager.default.temporaryDirectory.appendingPathComponent("page-check-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: result) }
        var arguments = [root.appendingPathComponent("scripts/check_page.py").path, page, result.path]
        if let screenshot { arguments += ["--screenshot", screenshotFolder.appendingPathComponent(screenshot).path] }
        if videos { arguments.append("--videos") }
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
            XCTFail("check_page.py failed (run scripts/setup.sh: it installs chromium): \(message)", file: file, line: line)
            throw CocoaError(.executableLoad)
        }
        return try JSONDecoder().decode(PageCheck.self, from: Data(contentsOf: result))
    }
}
