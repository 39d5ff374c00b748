import FineTuning
import XCTest

/// Each fine-tuning setting's bounds are checked in `FineTuningSettings.outOfRange`, as facts a caller words.
final class FineTuningSettingsTests: XCTestCase {
    func testTheDefaultsAreInBounds() {
        XCTAssertNil(FineTuningSettings().outOfRange)
        XCTAssertNil(FineTuningSettings().problem)
    }

    func testAProblemNamesTheSettingItsBoundsAndItsValue() throws {
        var settings = FineTuningSettings()
        settings.epochs = 0
        XCTAssertEqual(settings.outOfRange, .init(setting: .epochs, requirement: "from 1 to 1000", value: "0"))
        XCTAssertEqual(settings.problem, "epochs must be from 1 to 1000, got 0")
        settings = FineTuningSettings()
        settings.refits = 9
        XCTAssertEqual(settings.outOfRange, .init(setting: .refits, requirement: "from 1 to 8", value: "9"))
        settings = FineTuningSettings()
        settings.fineTunedWeight = 0
        XCTAssertEqual(settings.outOfRange?.requirement, "above 0 and at most 1")
        XCTAssertEqual(settings.outOfRange?.value, "0.0")
    }

    func testWithBothRatesOutOfBoundsTheHeadsIsNamedFirst() {
        var settings = FineTuningSettings()
        (settings.headLearningRate, settings.backboneLearningRate) = (5, 5)
        XCTAssertEqual(settings.outOfRange?.setting, .headLearningRate)
        XCTAssertEqual(settings.problem, "the head learning rate must be from 1e-07 to 1.0, got 5.0")
        settings.headLearningRate = 1e-4
        XCTAssertEqual(settings.outOfRange?.setting, .backboneLearningRate)
    }
}
