import LogisticHead
import XCTest

final class TrainingDiagnosticsTests: XCTestCase {
    private let labels = ["cat", "dog", "bird"]

    /// 90 % held out on 60 images per label, errors spread evenly, testing close to validation: nothing to say.
    private func cleanHeldOut() -> TrainingDiagnostics.HeldOut {
        TrainingDiagnostics.HeldOut(
            accuracy: 0.9, count: 180, countsPerLabel: [60, 60, 60],
            confusion: [[54, 3, 3], [3, 54, 3], [3, 3, 54]])
    }

    func testCleanRunIsSilent() {
        XCTAssertEqual(
            TrainingDiagnostics.warnings(
                labels: labels, trainingAccuracy: 1, heldOut: cleanHeldOut(),
                testing: (0.87, 60)), [])
        XCTAssertEqual(TrainingDiagnostics.warnings(labels: labels, trainingAccuracy: 1, heldOut: nil, testing: (0.5, 60)), [])
    }

    func testOverfittingFires() {
        var heldOut = cleanHeldOut()
        heldOut.accuracy = 0.6
        heldOut.confusion = [[36, 12, 12], [12, 36, 12], [12, 12, 36]]
        let warnings = TrainingDiagnostics.warnings(labels: labels, trainingAccuracy: 1, heldOut: heldOut, testing: nil)
        XCTAssertEqual(warnings, [.overfitting(trainingAccuracy: 1, heldOutAccuracy: 0.6)])
        XCTAssertTrue(warnings[0].description.contains("more images"), warnings[0].description)
        // The same gap on three held-out images is noise, not a finding.
        heldOut.count = 3
        heldOut.countsPerLabel = [10, 10, 10]
        XCTAssertEqual(
            TrainingDiagnostics.warnings(labels: labels, trainingAccuracy: 1, heldOut: heldOut, testing: nil)
                .filter { if case .overfitting = $0 { return true } else { return false } }, [])
    }

    func testFewHeldOutImagesFiresOncePerRunNamingTheLabels() {
        var heldOut = cleanHeldOut()
        heldOut.countsPerLabel = [9, 60, 4]
        heldOut.count = 73
        heldOut.confusion = [[9, 0, 0], [3, 54, 3], [0, 0, 4]]
        let warnings = TrainingDiagnostics.warnings(labels: labels, trainingAccuracy: 1, heldOut: heldOut, testing: nil)
        XCTAssertEqual(warnings, [.fewHeldOutImages(labels: ["cat", "bird"], counts: [9, 4])])
        XCTAssertTrue(warnings[0].description.contains("cat (9), bird (4)"), warnings[0].description)
    }

    func testConfusedLabelsFiresNamingBoth() {
        var heldOut = cleanHeldOut()
        heldOut.accuracy = 0.85
        heldOut.confusion = [[54, 3, 3], [15, 42, 3], [3, 3, 54]]
        let warnings = TrainingDiagnostics.warnings(labels: labels, trainingAccuracy: 1, heldOut: heldOut, testing: nil)
        XCTAssertEqual(warnings, [.confusedLabels(label: "dog", other: "cat", share: 0.25)])
        XCTAssertTrue(warnings[0].description.contains("'dog' is mostly mistaken for 'cat'"), warnings[0].description)
        // Errors spread over both other labels are not "mostly one".
        heldOut.confusion = [[54, 3, 3], [8, 44, 8], [3, 3, 54]]
        XCTAssertEqual(TrainingDiagnostics.warnings(labels: labels, trainingAccuracy: 1, heldOut: heldOut, testing: nil), [])
    }

    func testTestingFarBelowValidationFires() {
        let warnings = TrainingDiagnostics.warnings(
            labels: labels, trainingAccuracy: 1, heldOut: cleanHeldOut(),
            testing: (0.588, 51))
        XCTAssertEqual(warnings, [.testingBelowValidation(validationAccuracy: 0.9, testingAccuracy: 0.588)])
        XCTAssertTrue(warnings[0].description.contains("58.8 %"), warnings[0].description)
        // Ten points lower on ten testing images is within noise.
        XCTAssertEqual(
            TrainingDiagnostics.warnings(
                labels: labels, trainingAccuracy: 1, heldOut: cleanHeldOut(),
                testing: (0.8, 10)), [])
    }
}
