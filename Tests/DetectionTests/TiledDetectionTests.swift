import Foundation
import XCTest
import Detection
import ImageCodecs

/// A detector made of plain values: it reports the objects whose whole box lies inside the picture it is given,
/// found by the picture's pixels (each test object is a patch of one grey level standing for its id).
private struct PatchDetector: ObjectDetecting {
    /// Object id → box in the full picture.
    let objects: [Int: BoundingBox]
    let labels = ["person"]

    func detect(in image: RGBImage, minimumConfidence: Float) -> [DetectedObject] {
        // Each visible object's id is the grey level; its box is where those pixels are in this image.
        var extents: [Int: (left: Int, top: Int, right: Int, bottom: Int)] = [:]
        for y in 0..<image.height {
            for x in 0..<image.width {
                let level = Int(image[x, y].red)
                guard level > 0, objects[level] != nil else { continue }
                let old = extents[level] ?? (x, y, x + 1, y + 1)
                extents[level] = (min(old.left, x), min(old.top, y), max(old.right, x + 1), max(old.bottom, y + 1))
            }
        }
        return extents.sorted { $0.key < $1.key }.map { id, extent in
            DetectedObject(
                label: "person", confidence: 0.5 + Float(id) / 1000,
                box: BoundingBox(
                    left: Double(extent.left), top: Double(extent.top),
                    right: Double(extent.right), bottom: Double(extent.bottom)))
        }
    }
}

final class TiledDetectionTests: XCTestCase {
    func testGridCoversThePictureWithAQuarterOverlap() {
        let grid = TileGrid(width: 700, height: 350, tilesPerSide: 2)
        XCTAssertEqual(grid.tiles.count, 4)
        // 700 / 1.75 = 400 wide, step 300; 350 / 1.75 = 200 high, step 150.
        XCTAssertEqual(grid.tiles[0], PixelRegion(left: 0, top: 0, width: 400, height: 200))
        XCTAssertEqual(grid.tiles[3], PixelRegion(left: 300, top: 150, width: 400, height: 200))
        for side in 1...TileGrid.maximumTilesPerSide {
            for (width, height) in [(1, 1), (2, 3), (768, 576), (20_000, 40), (301, 299)] {
                let tiles = TileGrid(width: width, height: height, tilesPerSide: side).tiles
                XCTAssertTrue(
                    tiles.allSatisfy {
                        $0.left >= 0 && $0.top >= 0 && $0.left + $0.width <= width && $0.top + $0.height <= height && $0.width > 0 && $0.height > 0
                    })
                XCTAssertEqual(tiles.map { $0.left + $0.width }.max(), width)
                XCTAssertEqual(tiles.map { $0.top + $0.height }.max(), height)
                XCTAssertEqual(tiles.map(\.left).min(), 0)
            }
        }
    }

    func testCutBoxesAreThoseTouchingAnInnerTileEdge() {
        let tile = PixelRegion(left: 300, top: 0, width: 400, height: 200)
        XCTAssertTrue(TileGrid.isCut(BoundingBox(left: 300, top: 50, right: 340, bottom: 90), by: tile, pictureWidth: 700, pictureHeight: 350))
        XCTAssertTrue(TileGrid.isCut(BoundingBox(left: 400, top: 150, right: 440, bottom: 200), by: tile, pictureWidth: 700, pictureHeight: 350))
        // The picture's own right and top edges cut nothing.
        XCTAssertFalse(TileGrid.isCut(BoundingBox(left: 650, top: 0, right: 700, bottom: 40), by: tile, pictureWidth: 700, pictureHeight: 350))
    }

    /// A picture of `width × height` with each object's box filled with its id as grey level. Higher ids are
    /// painted first, so a lower id lies in front where boxes overlap, the same in every run (a Dictionary's order
    /// changes from process to process, and the test once failed when object 3 happened to cover object 1).
    private func picture(width: Int, height: Int, objects: [Int: BoundingBox]) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for (id, box) in objects.sorted(by: { $0.key > $1.key }) {
            for y in Int(box.top)..<Int(box.bottom) {
                for x in Int(box.left)..<Int(box.right) { for c in 0..<3 { pixels[(y * width + x) * 3 + c] = UInt8(id) } }
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    func testTilesFindEachObjectOnceAndDropTheCutHalves() {
        // Object 1 straddles the vertical tile border region; 2 lies in one tile only; 3 is large, behind 1.
        let objects: [Int: BoundingBox] = [
            1: BoundingBox(left: 280, top: 40, right: 330, bottom: 120),
            2: BoundingBox(left: 20, top: 20, right: 60, bottom: 80),
            3: BoundingBox(left: 100, top: 100, right: 600, bottom: 340),
        ]
        let detector = PatchDetector(objects: objects)
        let image = picture(width: 700, height: 350, objects: objects)
        let merged = TiledDetection.detect(in: image, tilesPerSide: 2, minimumConfidence: 0.5, detector: detector)
        XCTAssertEqual(merged.count, 3, "\(merged)")
        for (id, box) in objects {
            XCTAssertEqual(merged.filter { $0.box.intersectionOverUnion(box) > 0.99 }.count, 1, "object \(id): \(merged)")
        }
        XCTAssertEqual(merged.map(\.confidence), merged.map(\.confidence).sorted(by: >))
        XCTAssertEqual(TiledDetection.detect(in: image, tilesPerSide: 1, minimumConfidence: 0.5, detector: detector).count, 3)
    }

    func testSuppressionKeepsTheHigherScoreAndOtherLabels() {
        let box = BoundingBox(left: 0, top: 0, right: 10, bottom: 10)
        let shifted = BoundingBox(left: 1, top: 0, right: 11, bottom: 10)
        let far = BoundingBox(left: 50, top: 50, right: 60, bottom: 60)
        let kept = TiledDetection.suppress(
            [
                DetectedObject(label: "person", confidence: 0.6, box: box),
                DetectedObject(label: "person", confidence: 0.9, box: shifted),
                DetectedObject(label: "dog", confidence: 0.7, box: box),
                DetectedObject(label: "person", confidence: 0.55, box: far),
            ], overlap: 0.5)
        XCTAssertEqual(kept.map(\.confidence), [0.9, 0.7, 0.55])
    }
}

/// A detector that reports fixed boxes on the whole picture (recognised by its size) and nothing on a tile, and
/// records the size of every picture it is given.
private final class RecordingDetector: ObjectDetecting, @unchecked Sendable {
    let labels = ["person"]
    let pictureWidth: Int, whole: [DetectedObject]
    private let lock = NSLock()
    private var seen: [Int] = []

    init(pictureWidth: Int, whole: [DetectedObject]) {
        self.pictureWidth = pictureWidth
        self.whole = whole
    }

    /// How many pictures (the whole one and tiles) it was given.
    var calls: Int { lock.withLock { seen.count } }

    func detect(in image: RGBImage, minimumConfidence: Float) -> [DetectedObject] {
        lock.withLock { seen.append(image.width) }
        return image.width == pictureWidth ? whole : []
    }
}

final class TileChoiceAndMergeTests: XCTestCase {
    private let picture = RGBImage(width: 800, height: 600, pixels: [UInt8](repeating: 0, count: 800 * 600 * 3))

    private func person(_ left: Double, _ top: Double, _ right: Double, _ bottom: Double, score: Float = 0.8) -> DetectedObject {
        DetectedObject(label: "person", confidence: score, box: BoundingBox(left: left, top: top, right: right, bottom: bottom))
    }

    /// A close-up: the whole frame's one box covers most of the picture, so no tile is worth running.
    func testNoTileRunsWhereTheWholeFrameFoundOneLargeObject() {
        let closeUp = RecordingDetector(pictureWidth: 800, whole: [person(5, 5, 795, 600)])
        _ = TiledDetection.detect(in: picture, tilesPerSide: 3, minimumConfidence: 0.5, detector: closeUp)
        XCTAssertEqual(closeUp.calls, 1, "only the whole picture")
        // Small people leave every tile to run.
        let crowd = RecordingDetector(pictureWidth: 800, whole: [person(100, 100, 140, 200), person(500, 300, 540, 400)])
        _ = TiledDetection.detect(in: picture, tilesPerSide: 3, minimumConfidence: 0.5, detector: crowd)
        XCTAssertEqual(crowd.calls, 10, "the whole picture and 9 tiles")
        // Nothing found: every tile runs too.
        let empty = RecordingDetector(pictureWidth: 800, whole: [])
        _ = TiledDetection.detect(in: picture, tilesPerSide: 2, minimumConfidence: 0.5, detector: empty)
        XCTAssertEqual(empty.calls, 5)
    }

    func testTileChoiceSkipsOnlyTheTilesALargeBoxCovers() {
        let tiles = TileGrid(width: 800, height: 600, tilesPerSide: 2).tiles  // 458 × 343 each, a quarter shared
        // A box over the left half covers the two left tiles almost whole and the right ones by a fifth.
        let run = TiledDetection.tilesToRun(tiles, whole: [person(0, 0, 420, 600)])
        XCTAssertEqual(run, [tiles[1], tiles[3]])
        XCTAssertEqual(TiledDetection.tilesToRun(tiles, whole: [person(0, 0, 40, 60)]), tiles)
    }

    /// A tile box the size of a large part of the picture is left to the whole frame (a fruit bowl's "person").
    func testATileBoxTooLargeForTheTileScaleIsDropped() {
        let tile = PixelRegion(left: 0, top: 0, width: 458, height: 343)
        let merged = TiledDetection.merge(whole: [], tiles: [(tile, [person(20, 20, 400, 320)])], pictureWidth: 800, pictureHeight: 600)
        XCTAssertEqual(merged, [])
        let small = TiledDetection.merge(whole: [], tiles: [(tile, [person(20, 20, 60, 110)])], pictureWidth: 800, pictureHeight: 600)
        XCTAssertEqual(small.count, 1, "a small person only a tile finds is kept")
    }

    /// A box mostly inside a larger same-label box of the other scale is merged into it; another label, a box of
    /// the same scale, and a neighbour of similar size are not.
    func testABoxInsideALargerBoxOfTheOtherScaleIsMerged() {
        let tile = PixelRegion(left: 0, top: 0, width: 458, height: 343)
        let astronaut = person(100, 40, 420, 600, score: 0.7)
        let helmet = person(200, 60, 280, 160, score: 0.9)  // whole in the tile, far from its inner edges
        let merged = TiledDetection.merge(whole: [astronaut], tiles: [(tile, [helmet])], pictureWidth: 800, pictureHeight: 600)
        XCTAssertEqual(merged, [astronaut], "the helmet's box goes into the astronaut's")
        // The whole frame's smaller box inside a tile's larger one goes the same way.
        let head = person(210, 70, 250, 130)
        let body = person(190, 55, 290, 215, score: 0.6)
        XCTAssertEqual(TiledDetection.merge(whole: [head], tiles: [(tile, [body])], pictureWidth: 800, pictureHeight: 600), [body])
        // Another label inside stays.
        var ball = helmet
        ball.label = "ball"
        XCTAssertEqual(TiledDetection.merge(whole: [astronaut], tiles: [(tile, [ball])], pictureWidth: 800, pictureHeight: 600).count, 2)
        // Two boxes of one tile (one scale) stay: the detector's own suppression already judged them.
        let pair = TiledDetection.merge(whole: [], tiles: [(tile, [body, head])], pictureWidth: 800, pictureHeight: 600)
        XCTAssertEqual(pair.count, 2)
        // Neighbours of similar size overlapping by half of each: two people, both kept.
        let left = person(100, 200, 160, 300), right = person(130, 200, 190, 300)
        XCTAssertEqual(TiledDetection.merge(whole: [left], tiles: [(tile, [right])], pictureWidth: 800, pictureHeight: 600).count, 2)
        XCTAssertTrue(TiledDetection.isMostlyInside(helmet, astronaut))
        XCTAssertFalse(TiledDetection.isMostlyInside(astronaut, helmet))
        XCTAssertFalse(TiledDetection.isMostlyInside(left, right))
    }
}
