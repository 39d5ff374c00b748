import Foundation
import XCTest

/// The per-test set-up of the command tests that train on the tiny dataset: a fresh temporary folder holding
/// `scripts/fixtures/make-tiny-dataset.py`'s cat/espresso dataset (`tiny`), a private feature cache (so runs
/// neither read nor pollute the user's) and a fixed `SOURCE_DATE_EPOCH`; `run` calls the release binary with both.
public struct TinyDatasetWorkspace {
    /// The temporary folder; `remove()` deletes it.
    public let folder: URL
    /// The generated dataset, in Create ML's layout (`Training Data`, `Testing Data`).
    public let dataset: URL
    /// What `run` adds to the inherited environment.
    public let environment: [String: String]

    /// Makes the folder and the dataset; throws, naming the script and what it printed, when the dataset cannot be
    /// made (and leaves no folder behind).
    public init(file: StaticString = #filePath, line: UInt = #line) throws {
        folder = try WorkbenchBinary.temporaryFolder()
        dataset = folder.appendingPathComponent("tiny")
        environment = ["WORKBENCH_CACHE": folder.appendingPathComponent("cache").path, "SOURCE_DATE_EPOCH": "1700000000"]
        do {
            let root = WorkbenchBinary.repositoryRoot()
            let maker = try WorkbenchBinary.runProcess(
                try ProjectPython.interpreter(file: file, line: line),
                [
                    root.appendingPathComponent("scripts/fixtures/make-tiny-dataset.py").path,
                    root.appendingPathComponent("Tests/ModelsTests/Fixtures").path, dataset.path,
                ], environment: ProcessInfo.processInfo.environment)
            try TestMedia.check(maker, "scripts/fixtures/make-tiny-dataset.py (needs Pillow: run scripts/setup.sh)")
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// `workbench arguments...` with `environment` added, to completion.
    public func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> WorkbenchBinary.Outcome {
        try WorkbenchBinary.run(arguments, environment: environment, file: file, line: line)
    }

    /// Deletes the folder and everything the test wrote into it.
    public func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}

/// A test case whose every test gets a fresh `TinyDatasetWorkspace`, removed after it: the command tests that
/// train on the tiny dataset inherit their set-up from here instead of each writing it out.
open class TinyDatasetTestCase: XCTestCase {
    /// This test's workspace (nil only if set-up failed).
    public private(set) var workspace: TinyDatasetWorkspace!
    /// The workspace's temporary folder.
    public var folder: URL { workspace.folder }
    /// The workspace's tiny dataset.
    public var dataset: URL { workspace.dataset }

    /// Makes the workspace.
    open override func setUpWithError() throws {
        try super.setUpWithError()
        workspace = try TinyDatasetWorkspace()
    }

    /// Removes the workspace.
    open override func tearDownWithError() throws {
        workspace?.remove()
        try super.tearDownWithError()
    }

    /// `workbench arguments...` in the workspace's environment.
    public func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> WorkbenchBinary.Outcome {
        try workspace.run(arguments, file: file, line: line)
    }
}
