import Workbench
import XCTest
@testable import WorkbenchCLI

/// The library's hints worded with the CLI's options: the lines the binary prints (its tests hold the same text).
final class ErrorWordingTests: XCTestCase {
    func testEachHintIsWordedAfterTheReason() {
        XCTAssertEqual(
            ErrorWording.line(
                for: ClusterJobError(
                    reason: "sbatch not found on PATH: run this on a Slurm login node",
                    hint: .printScriptsInstead)),
            "sbatch not found on PATH: run this on a Slurm login node (or print the scripts with --dry-run)")
        XCTAssertEqual(
            ErrorWording.line(
                for: WorkbenchError(
                    ModelFileError(
                        path: "d.wbmodel", reason: "is a detector model, not a classifier",
                        hint: .useAsDetector))),
            "d.wbmodel: is a detector model, not a classifier: use it with workbench detect --model")
        XCTAssertEqual(
            ErrorWording.line(
                for: VideoError(
                    .invalidArgument, path: "b.mp4", reason: "has no sound to take",
                    hint: .chooseInputWithSound)),
            "b.mp4: has no sound to take (--audio)")
        XCTAssertEqual(
            ErrorWording.line(
                for: AnnotationError(
                    path: "a.json", reason: "this is detect's output for a video; annotations are an array of pictures",
                    hint: .annotatePictures)),
            "a.json: this is detect's output for a video; annotations are an array of pictures (detect --json on pictures writes one)")
    }

    /// Where the remedy sits inside the sentence, the CLI gives the whole reason in its options' words: the lines
    /// these refusals had when the library spelt the options.
    func testAHintInsideTheSentenceRewordsTheWholeReason() {
        XCTAssertEqual(
            ErrorWording.line(for: WorkbenchError(reason: "made from videos", hint: .videoOutputsOnPictures)),
            "--clips, --vtt and --html are for videos; these inputs are pictures")
        XCTAssertEqual(
            ErrorWording.line(for: WorkbenchError(path: "m.wbmodel", reason: "is a detector", hint: .exportCarriesNoMirrorAveraging)),
            "m.wbmodel: is a detector: its exports do not carry --tta's mirror averaging (detect --tta and evaluate --tta do)")
        XCTAssertEqual(
            ErrorWording.line(for: WorkbenchError(path: "d", reason: "no boxes", hint: .scoreDetectorOnBoxes)),
            "d: no annotations.json here or in \"Testing Data/\": a detector is scored on boxes (Create ML's annotations "
                + "or detect --json's output), not on folders of labelled images")
    }

    /// Fine-tuning's notes: the library says what happened flag-free, with a typed hint; the CLI's words are the
    /// lines `train` printed when the library spelt the options.
    func testFineTuningHintsAreWordedWithTheOptions() {
        XCTAssertEqual(ErrorWording.words(for: .insistOnFineTuning), " (use --fine-tune to insist)")
        XCTAssertEqual(ErrorWording.words(for: .keptFineTunedAsAsked), " (--keep-fine-tuned)")
        let premise = "hint: the frozen head's held-out accuracy is 64.4 %, below 80 %, where fine-tuning has paid: "
        XCTAssertEqual(
            ErrorWording.line(for: TrainingReport.FineTuningHint(premise: premise, remedy: "r", hint: .fineTuneAutomatically, estimatedMinutes: 2)),
            premise + "--fine-tune-auto tries it (minutes, not seconds)")
        XCTAssertEqual(
            ErrorWording.line(for: TrainingReport.FineTuningHint(premise: premise, remedy: "r", hint: .fineTuneOverBudget, estimatedMinutes: 12)),
            premise + "--fine-tune tries it (about 12 minutes by --fine-tune-auto's estimate, over its budget)")
        XCTAssertEqual(
            ErrorWording.line(for: TrainingReport.FineTuningHint(premise: "stored text", remedy: "", hint: nil, estimatedMinutes: 0)),
            "stored text", "a hint read back from a file is its text")
        XCTAssertEqual(
            ReportRendering.fineTuningProgress(.decision("+3 held-out images …: kept fine-tuning as asked", hint: .keptFineTunedAsAsked)),
            "decision: +3 held-out images …: kept fine-tuning as asked (--keep-fine-tuned)")
        XCTAssertEqual(
            ReportRendering.fineTuningProgress(
                .automaticChoice(fineTunes: false, reason: "not fine-tuned: over the budget", hint: .insistOnFineTuning)),
            "not fine-tuned: over the budget (use --fine-tune to insist)")
    }

    func testAnErrorWithoutAHintIsItsOwnLine() {
        XCTAssertEqual(ErrorWording.line(for: WorkbenchError(path: "x", reason: "no such file or folder")), "x: no such file or folder")
        XCTAssertEqual(ErrorWording.line(for: WorkbenchError(path: nil, reason: "r", hint: ErrorHint("Elsewhere.unknown"))), "r")
    }

    func testAHintPassedOnAtABoundaryIsKept() {
        let lower = AnnotationError(path: "a.json", reason: "why", hint: .annotatePictures)
        XCTAssertEqual(WorkbenchError(lower).hint, .annotatePictures)
        XCTAssertEqual(WorkbenchError(lower, context: "reading").hint, .annotatePictures)
        XCTAssertEqual(ClusterJobError(WorkbenchError(lower)).hint, .annotatePictures)
        for body in [{ () throws -> Void in throw ClusterJobError(reason: "r", hint: .printScriptsInstead) }, { throw lower }] {
            XCTAssertThrowsError(try WorkbenchError.passingOn(body)) { XCTAssertNotNil(($0 as? WorkbenchError)?.hint) }
            XCTAssertThrowsError(try WorkbenchError.passingOn(context: "c", body)) { XCTAssertNotNil(($0 as? WorkbenchError)?.hint) }
        }
    }
}
