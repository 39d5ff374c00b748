import Workbench
import XCTest
import _TestSupport
@testable import WorkbenchCLI

/// Issue 45, defect 7: a name's line feed or tab never reaches stderr raw, in a failure's line (its path and the
/// names its reason quotes) or in a usage error that quotes an argument.
final class TerminalTextTests: XCTestCase {
    /// What `Console.warn` writes for a failure: one line, every name in it one field.
    private func shownFailure(_ error: any Error) -> String { DisplayText.terminalLines(Console.failureText(error)) }

    func testAFailureIsOneLineWhateverThePathAndThePhaseName() {
        HostileNames.check("failure lines", includingNUL: true) { name in
            let document = JSONValue.object([
                "video": .string("v.mp4"), "order": .array([.string(name), .string(name)]), "phases": .array([]),
            ])
            do {
                try PhaseTimeline(document: document, path: "phases/\(name).json").validate(path: "phases/\(name).json")
                return "a doubled label was accepted"
            } catch {
                let shown = shownFailure(error)
                if let problem = HostileNames.terminalProblem(shown) { return problem }
                guard !shown.contains("\n"), !shown.contains("\t") else { return "the line breaks: \(HostileNames.escaped(shown))" }
                guard shown.hasSuffix("twice") else { return "not the doubled label's line: \(HostileNames.escaped(shown))" }
                return nil
            }
        }
    }

    func testTheFailureLineEscapesALineFeedInThePathAndTheLabel() {
        let error = PhaseError(.invalidOrder, path: "a\nb.json", reason: "\"order\" names \(DisplayText.quoted("x\ty\nz")) twice")
        XCTAssertEqual(shownFailure(error), #"a\nb.json: "order" names "x\ty\nz" twice"#)
    }

    func testWarningsEscapeTabsAndKeepTheirOwnLines() {
        XCTAssertEqual(DisplayText.terminalLines("one\ttwo\nthree\u{1B}"), "one\\ttwo\nthree\\u001B")
        XCTAssertEqual(DisplayText.terminalLines("a\r\nb"), "a\\u000D\nb", "a carriage return before a line feed is shown, the break kept")
    }

    func testAUsageErrorQuotesAnArgumentWithALineFeedInItsTerminalForm() {
        let message = "Error: The value 'x\ny' is invalid for '--stack <stack>'\nUsage: workbench sync ..."
        XCTAssertEqual(
            WorkbenchCommand.escapingArguments(message, arguments: ["sync", "--stack=x\ny"]),
            "Error: The value 'x\\ny' is invalid for '--stack <stack>'\nUsage: workbench sync ...")
        XCTAssertEqual(WorkbenchCommand.escapingArguments(message, arguments: ["sync", "--stack", "x\ny"]).split(separator: "\n").count, 2)
    }
}
