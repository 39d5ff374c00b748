import FileFormats
import XCTest

/// Asserts that `body` throws a `KindedFileError` of `kind` (a `VideoError`, a `LabelingError`, …) on one line, and
/// returns it for further checks.
@discardableResult
public func assertKindedError<Kind, T>(
    _ kind: Kind, file: StaticString = #filePath, line: UInt = #line,
    _ body: () throws -> T
) -> KindedFileError<Kind>? {
    do {
        _ = try body()
        XCTFail("expected a \(kind) error, got success", file: file, line: line)
    } catch let error as KindedFileError<Kind> {
        XCTAssertEqual(error.kind, kind, "\(error)", file: file, line: line)
        XCTAssertFalse(error.description.contains("\n"), "error must be one line: \(error)", file: file, line: line)
        return error
    } catch {
        XCTFail("expected a \(KindedFileError<Kind>.self), got \(error)", file: file, line: line)
    }
    return nil
}
