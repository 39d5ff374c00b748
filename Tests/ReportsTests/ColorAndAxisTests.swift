import Reports
import XCTest

/// The colour scales' promises (lightness that rises, readable text, distinct categories) and the axes' ticks.
final class ColorAndAxisTests: XCTestCase {
    func testViridisHitsItsPublishedEndsAndGetsLighterAllTheWay() {
        XCTAssertEqual(ColorScale.viridis(0).css, "#440154")
        XCTAssertEqual(ColorScale.viridis(0.5).css, "#21918c")
        XCTAssertEqual(ColorScale.viridis(1).css, "#fde725")
        XCTAssertEqual(ColorScale.viridis(-3), ColorScale.viridis(0), "clamped")
        XCTAssertEqual(ColorScale.viridis(.nan), ColorScale.viridis(0))
        // Order readable without hue (colour-blind readers, grey-scale print): luminance rises with the value.
        let luminances = (0...100).map { ColorScale.viridis(Double($0) / 100).relativeLuminance }
        for (lower, higher) in zip(luminances, luminances.dropFirst()) { XCTAssertLessThan(lower, higher) }
    }

    func testTextOnEveryShadeMeetsWCAGContrast() {
        for step in 0...50 {
            let background = ColorScale.viridis(Double(step) / 50)
            let text = background.readableText
            let (light, dark) = (max(background.relativeLuminance, text.relativeLuminance), min(background.relativeLuminance, text.relativeLuminance))
            // WCAG 2 AA for normal text: 4.5.
            XCTAssertGreaterThanOrEqual((light + 0.05) / (dark + 0.05), 4.5, "text on \(background.css)")
        }
    }

    func testRelativeLuminanceOfKnownColours() {
        XCTAssertEqual(RGBColor(hex: 0xFFFFFF).relativeLuminance, 1, accuracy: 1e-12)
        XCTAssertEqual(RGBColor(hex: 0x000000).relativeLuminance, 0, accuracy: 1e-12)
        // sRGB 0x80 linearises to ((128/255 + 0.055) / 1.055)^2.4 = 0.21586.
        XCTAssertEqual(RGBColor(hex: 0x808080).relativeLuminance, 0.21586, accuracy: 1e-4)
    }

    func testCategoriesAreOkabeItoAndStayDistinctPastSeven() {
        XCTAssertEqual(
            (0..<7).map { CategoricalPalette.color($0).css },
            ["#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7"])
        let twentyOne = (0..<21).map { CategoricalPalette.color($0) }
        XCTAssertEqual(Set(twentyOne.map(\.css)).count, 21)
    }

    func testLinearTicksAreRoundAndInside() {
        XCTAssertEqual(Axis(lower: 0, upper: 1).ticks(target: 5), [0, 0.2, 0.4, 0.6, 0.8, 1])
        XCTAssertEqual(Axis(lower: 0, upper: 31.96).ticks(target: 8), [0, 5, 10, 15, 20, 25, 30])
        let axis = Axis(lower: 0.3, upper: 0.95, tickStyle: .percent)
        let ticks = axis.ticks(target: 6)
        XCTAssertEqual(ticks.map { axis.tickLabel($0, among: ticks) }, ["30 %", "40 %", "50 %", "60 %", "70 %", "80 %", "90 %"])
        XCTAssertEqual(Axis(lower: 2, upper: 2).lower, 1.5, "an empty range is widened")
    }

    func testLogarithmicTicksAreDecades() {
        let axis = Axis(lower: 0.05, upper: 2e4, spacing: .logarithmic, tickStyle: .powerOfTen)
        let ticks = axis.ticks(target: 6)
        XCTAssertEqual(ticks, [0.1, 1, 10, 100, 1000, 10000])
        XCTAssertEqual(ticks.map { axis.tickLabel($0, among: ticks) }, ["10⁻¹", "10⁰", "10¹", "10²", "10³", "10⁴"])
        XCTAssertEqual(axis.fraction(axis.lower), 0, accuracy: 1e-12)
        XCTAssertEqual(axis.fraction(axis.upper), 1, accuracy: 1e-12)
        // Equal ratios, equal distances.
        XCTAssertEqual(axis.fraction(10) - axis.fraction(1), axis.fraction(1000) - axis.fraction(100), accuracy: 1e-12)
    }
}
