import Overlays
import XCTest
import _TestSupport

final class QuadraticCurveTests: XCTestCase {
    func testTheCurvePassesItsThreePointsAtZeroHalfAndOne() {
        var random = SeededGenerator(seed: 3)
        for _ in 0..<100 {
            let points = (0..<3).map { _ in
                OverlayPoint(x: Double.random(in: -500...500, using: &random), y: Double.random(in: -500...500, using: &random))
            }
            let curve = QuadraticCurve(start: points[0], through: points[1], end: points[2])
            for (t, point) in zip([0.0, 0.5, 1.0], points) {
                XCTAssertEqual(curve.point(at: t).x, point.x, accuracy: 1e-9)
                XCTAssertEqual(curve.point(at: t).y, point.y, accuracy: 1e-9)
            }
            // The Bernstein form against the power form (P₀ + 2t(C − P₀) + t²(P₀ − 2C + P₂)).
            let t = Double.random(in: 0...1, using: &random)
            let c = curve.control
            XCTAssertEqual(
                curve.point(at: t).x, points[0].x + 2 * t * (c.x - points[0].x) + t * t * (points[0].x - 2 * c.x + points[2].x), accuracy: 1e-9)
        }
    }

    func testAGrowingPolylineIsAPrefixOfTheWholeOne() {
        let curve = QuadraticCurve(start: OverlayPoint(x: 0, y: 100), through: OverlayPoint(x: 50, y: 0), end: OverlayPoint(x: 100, y: 100))
        let whole = curve.polyline(upTo: 1)
        XCTAssertEqual(whole.count, curve.segmentCount + 1)
        XCTAssertEqual(curve.polyline(upTo: 0), [curve.start])
        let half = curve.polyline(upTo: 0.5)
        XCTAssertEqual(half.last!.x, 50, accuracy: 1e-9)
        XCTAssertEqual(half.last!.y, 0, accuracy: 1e-9)
        XCTAssertEqual(half.count, curve.segmentCount / 2 + (curve.segmentCount % 2 == 0 ? 1 : 2))
        for (point, wholePoint) in zip(half.dropLast(), whole) {
            XCTAssertEqual(point.x, wholePoint.x, accuracy: 1e-9)
            XCTAssertEqual(point.y, wholePoint.y, accuracy: 1e-9)
        }
    }

    func testPointListsParseOrAreRefused() {
        XCTAssertEqual(OverlayPoint.list(from: "1,2 3.5,4  5,-6"), [OverlayPoint(x: 1, y: 2), OverlayPoint(x: 3.5, y: 4), OverlayPoint(x: 5, y: -6)])
        for bad in ["1,2,3", "1 2", "a,b", "1,", ",2", "nan,1", "inf,1", "1;2"] {
            XCTAssertNil(OverlayPoint.list(from: bad), bad)
        }
    }

    func testColoursByNameOrHex() {
        XCTAssertEqual(OverlayColor("yellow"), OverlayColor(red: 255, green: 255, blue: 0))
        XCTAssertEqual(OverlayColor("Red"), OverlayColor(red: 255, green: 0, blue: 0))
        XCTAssertEqual(OverlayColor("#FF8800"), OverlayColor(red: 255, green: 136, blue: 0))
        XCTAssertEqual(OverlayColor("#0a0B0c")?.hex, "#0A0B0C")
        for bad in ["", "#FFF", "#GG0000", "FF8800", "#FF88000", "#+F8800", "purple-ish"] { XCTAssertNil(OverlayColor(bad), bad) }
    }
}

final class StrokeRasterizerTests: XCTestCase {
    /// The fast path (each piece's bounding box) against the reference (every pixel, every piece): equal.
    func testFastCoverageEqualsTheReferenceOnRandomCurves() {
        var random = SeededGenerator(seed: 11)
        for _ in 0..<40 {
            let points = (0..<3).map { _ in
                OverlayPoint(x: Double.random(in: -10...70, using: &random), y: Double.random(in: -10...50, using: &random))
            }
            let curve = QuadraticCurve(start: points[0], through: points[1], end: points[2])
            let polyline = curve.polyline(upTo: Double.random(in: 0...1, using: &random))
            let width = Double.random(in: 0.5...9, using: &random)
            let region = PixelRectangle(x: Int.random(in: -5...5, using: &random), y: Int.random(in: -5...5, using: &random), width: 64, height: 48)
            XCTAssertEqual(
                StrokeRasterizer.coverage(points: polyline, width: width, region: region),
                StrokeRasterizer.referenceCoverage(points: polyline, width: width, region: region))
        }
    }

    /// A horizontal stroke 4 pixels wide along y = 10: rows 8–11 covered, rows 7 and 12 not (pixel centres at
    /// 7.5 and 12.5 are 2.5 away: 2 + 0.5 − 2.5 = 0), a half-covered pixel where the centre is 2 away.
    func testCoverageIsTheDistanceRamp() {
        let line = [OverlayPoint(x: 0, y: 10), OverlayPoint(x: 20, y: 10)]
        let region = PixelRectangle(x: 0, y: 0, width: 20, height: 20)
        let coverage = StrokeRasterizer.coverage(points: line, width: 4, region: region)
        XCTAssertEqual(coverage[8 * 20 + 10], 1)
        XCTAssertEqual(coverage[11 * 20 + 10], 1)
        XCTAssertEqual(coverage[7 * 20 + 10], 0)
        XCTAssertEqual(coverage[12 * 20 + 10], 0)
        let thin = StrokeRasterizer.coverage(points: [OverlayPoint(x: 0, y: 10.5), OverlayPoint(x: 20, y: 10.5)], width: 3, region: region)
        XCTAssertEqual(thin[8 * 20 + 5], 0)  // centre 2 away: 1.5 + 0.5 − 2
        XCTAssertEqual(thin[9 * 20 + 5], 1)  // centre 1 away
        let half = StrokeRasterizer.coverage(points: [OverlayPoint(x: 0, y: 10.5), OverlayPoint(x: 20, y: 10.5)], width: 2, region: region)
        XCTAssertEqual(half[9 * 20 + 5], 0.5)  // centre 1 away: 1 + 0.5 − 1
        let rgba = StrokeRasterizer.rgba(coverage: half, color: OverlayColor(red: 1, green: 2, blue: 3))
        XCTAssertEqual(Array(rgba[(9 * 20 + 5) * 4..<(9 * 20 + 6) * 4]), [1, 2, 3, 128])
        XCTAssertEqual(Array(rgba[0..<4]), [0, 0, 0, 0])
    }
}

final class CurveAnimationTests: XCTestCase {
    private let curve = QuadraticCurve(start: OverlayPoint(x: 20, y: 100), through: OverlayPoint(x: 60, y: 20), end: OverlayPoint(x: 100, y: 100))

    private func animation(start: Double = 1, duration: Double = 1, frames: Int = 100, curve: QuadraticCurve? = nil) throws -> CurveAnimation {
        try CurveAnimation(
            video: "v.mp4", curve: curve ?? self.curve, strokeWidth: 3, color: OverlayColor(red: 255, green: 0, blue: 0),
            start: start, duration: duration, framesPerSecond: 25, frameCount: frames, frameSize: (160, 120))
    }

    func testTheCurveGrowsLinearlyFromItsFirstFrameAndIsWholeAfterTheDuration() throws {
        let animation = try animation(start: 1, duration: 1)
        XCTAssertEqual(animation.firstFrame, 25)
        XCTAssertEqual(animation.pictureCount, 26)  // frames 25 … 50, frame 50 the whole curve
        XCTAssertEqual(animation.progress(ofFrame: 24), 0)
        XCTAssertEqual(animation.progress(ofFrame: 25), 0)
        XCTAssertEqual(animation.progress(ofFrame: 37), 0.48, accuracy: 1e-12)
        XCTAssertEqual(animation.progress(ofFrame: 50), 1)
        XCTAssertEqual(animation.progress(ofFrame: 90), 1)
        let between = try self.animation(start: 1.01, duration: 0.5)
        XCTAssertEqual(between.firstFrame, 26)
        XCTAssertEqual(between.pictureCount, 13)  // 26 … 38 (1.52 s ≥ 1.51 s)
        // A video that ends first: the pictures stop at its last frame.
        XCTAssertEqual(try self.animation(start: 3, duration: 2, frames: 100).pictureCount, 25)
    }

    func testTheRegionHoldsTheWholeStrokeAndPicturesDrawIt() throws {
        let animation = try animation()
        let region = animation.region
        XCTAssertLessThanOrEqual(region.x, 18)
        XCTAssertLessThanOrEqual(region.y, 57)  // the curve's top is at y = 60 − 40 / 2 … the through point is at 20
        XCTAssertGreaterThanOrEqual(region.x + region.width, 102)
        XCTAssertGreaterThanOrEqual(region.y + region.height, 102)
        let last = animation.picture(animation.pictureCount - 1)
        XCTAssertEqual(last.count, region.width * region.height * 4)
        for point in [curve.start, curve.through, curve.end] {
            let index = ((Int(point.y) - region.y) * region.width + Int(point.x) - region.x) * 4
            XCTAssertEqual(Array(last[index..<index + 4]), [255, 0, 0, 255], "\(point)")
        }
        let first = animation.picture(0)
        let middle = ((20 - region.y) * region.width + 60 - region.x) * 4
        XCTAssertEqual(first[middle + 3], 0, "the through point is not drawn on the first frame")
    }

    func testRefusesPointsOutsideTheFrameAndAStartAtTheEnd() {
        let outside = QuadraticCurve(start: OverlayPoint(x: 20, y: 100), through: OverlayPoint(x: 60, y: -1), end: OverlayPoint(x: 100, y: 100))
        XCTAssertThrowsError(try animation(curve: outside)) { error in
            XCTAssertEqual("\(error)", "v.mp4: the second point (60,-1) is outside the 160x120 frame (x from 0 to 160, y from 0 to 120)")
        }
        let edge = QuadraticCurve(start: OverlayPoint(x: 0, y: 0), through: OverlayPoint(x: 160, y: 120), end: OverlayPoint(x: 160, y: 0))
        XCTAssertNoThrow(try animation(curve: edge))
        XCTAssertThrowsError(try animation(start: 4, frames: 100)) { error in
            XCTAssertEqual("\(error)", "v.mp4: the curve would start at 4 s, at or after the end of the video (4 s)")
        }
        XCTAssertThrowsError(try animation(duration: 0))
    }
}
