import Foundation
import Workbench
import XCTest
import _TestSupport

/// The Swift snippet of `README.md` and `docs/library.md` is this file's `snippet()`, compiled with the suite and
/// run here on the tiny dataset, in a folder laid out as the docs' examples folder is (`datasets/drawings`,
/// `photo.jpg`). Changing the API without the docs, or the docs without the code, fails here.
final class LibrarySnippetTests: XCTestCase {
    func testTheDocumentedSnippetIsThisCodeAndItRuns() throws {
        let code = try Self.snippetSource()
        let root = WorkbenchBinary.repositoryRoot()
        for page in ["README.md", "docs/library.md"] {
            let text = try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
            let block = try XCTUnwrap(Self.firstSwiftBlock(text), "\(page) has no swift block")
            XCTAssertEqual(block, "import Workbench\n\n" + code, "\(page)'s snippet differs from LibrarySnippetTests.snippet()")
        }

        let workspace = try TinyDatasetWorkspace()
        defer { workspace.remove() }
        let files = FileManager.default
        let folder = workspace.folder.appendingPathComponent("examples")
        try files.createDirectory(at: folder.appendingPathComponent("datasets"), withIntermediateDirectories: true)
        try files.createSymbolicLink(at: folder.appendingPathComponent("datasets/drawings"), withDestinationURL: workspace.dataset)
        try files.copyItem(
            at: root.appendingPathComponent("Tests/ModelsTests/Fixtures/chelsea.jpg"),
            to: folder.appendingPathComponent("photo.jpg"))
        // Neither the user's feature cache nor the suite's working folder is touched.
        let previousCache = ProcessInfo.processInfo.environment["WORKBENCH_CACHE"]
        setenv("WORKBENCH_CACHE", workspace.folder.appendingPathComponent("cache").path, 1)
        let previousFolder = files.currentDirectoryPath
        XCTAssertTrue(files.changeCurrentDirectoryPath(folder.path))
        defer {
            _ = files.changeCurrentDirectoryPath(previousFolder)
            if let previousCache { setenv("WORKBENCH_CACHE", previousCache, 1) } else { unsetenv("WORKBENCH_CACHE") }
        }
        let printed = try snippet()
        XCTAssertEqual(printed.first, "fitting the head")
        XCTAssertTrue(printed.contains { $0.hasPrefix("Drawings.wbmodel ") }, "\(printed)")
        XCTAssertTrue(printed.contains { $0.hasPrefix("photo.jpg cat ") }, "the cat photo is a cat: \(printed)")
        XCTAssertTrue(files.fileExists(atPath: folder.appendingPathComponent("Drawings.html").path), "the page beside the model")
    }

    /// The documented code, with `print` collecting its lines; returns them.
    private func snippet() throws -> [String] {
        var lines: [String] = []
        func print(_ items: Any...) { lines.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet:start
        let trained = try TrainingWorkflow.run(TrainingWorkflowRequest(datasetPath: "datasets/drawings")) { event in
            if case .fitting = event { print("fitting the head") }
        }
        print(trained.modelPath, trained.result.report.testing.accuracy)  // Drawings.wbmodel, a fraction

        let request = ClassifyRequest(inputs: ["photo.jpg"], model: .path(trained.modelPath))
        _ = try ClassificationWorkflow.run(request) {
            print($0.path, $0.label, $0.confidence)
            return true
        }
        // snippet:end
        return lines
    }

    /// The lines between the markers of this file, less the method body's indentation.
    private static func snippetSource() throws -> String {
        let text = try String(contentsOfFile: #filePath, encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex { $0.hasSuffix("// snippet:start") })
        let end = try XCTUnwrap(lines.firstIndex { $0.hasSuffix("// snippet:end") })
        return lines[(start + 1)..<end].map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : $0 }.joined(separator: "\n") + "\n"
    }

    /// The first ```swift block of a Markdown text, without its fences.
    private static func firstSwiftBlock(_ markdown: String) -> String? {
        let lines = markdown.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "```swift"),
            let end = lines[(start + 1)...].firstIndex(of: "```")
        else { return nil }
        return lines[(start + 1)..<end].joined(separator: "\n") + "\n"
    }
}
