import ImageCodecs

/// `--tiles N`: the detector on the whole picture and, where it can help, on tiles of an N × N `TileGrid`, the
/// boxes merged.
///
/// Tiling is for people too small for the whole frame's 300 × 300 input; on a close-up it can only cut the objects
/// the whole frame already sees into parts, and magnify texture into false people. So:
/// 1. The whole picture always runs first; its boxes are always candidates.
/// 2. A tile runs only when no whole-frame box covers `closeUpCoverage` of it or more: such a tile shows mostly
///    the inside of one object already found, and whatever the tile finds there is a part of it.
/// 3. A tile's box is moved into the picture's pixels and kept only when it is smaller than `largestTileShare` of
///    the picture (width against width, height against height): anything larger is at a size the whole frame's
///    input already shows well, so the whole frame's answer stands (a tile box that large is a part of something
///    bigger or magnified texture).
/// 4. A tile box that touches an edge of its tile lying inside the picture (within 2 pixels) was cut by the tile;
///    it is dropped when another box of the same label, from the whole picture or another tile, covers at least
///    `cutCoverage` of it: that box saw more of the object.
/// 5. A box mostly inside a larger box of the same label from the other scale (a tile's inside the whole frame's,
///    or the whole frame's inside a tile's) is merged into it: it goes when the larger box covers
///    `containment` of it or more. Pairs already overlapping by more than `suppressionOverlap` are left to step 6,
///    which keeps the higher score as the single-frame detector would.
/// 6. The rest are suppressed greedily per label, highest score first: a box goes when its intersection over union
///    with a kept box exceeds `suppressionOverlap` (the detector's own threshold for one frame).
///
/// The three constants of steps 2, 3 and 5 were chosen on validation pictures only (close-ups with nobody or one
/// or two large people, and hand-boxed crowded frames of vtest.avi), never on those docs/evidence/detect-tiles.md
/// reports; `scripts/accuracy/detect-tiles.py --tune` prints the sweep.
public enum TiledDetection {
    /// The share of a cut box another box must cover for the cut box to go.
    public static let cutCoverage = 0.5
    /// The intersection over union above which the lower-scoring of two boxes of one label goes.
    public static let suppressionOverlap = 0.5
    /// The share of a tile one whole-frame box must cover for the tile not to run (step 2).
    public static let closeUpCoverage = 0.7
    /// The share of the picture's width or height from which a tile's box is left to the whole frame (step 3).
    public static let largestTileShare = 0.3
    /// The share of a box a larger same-label box of the other scale must cover to take it in (step 5).
    public static let containment = 0.8

    /// Runs `detector` on `image` and, when `tilesPerSide > 1`, on the tiles that can help, and merges the boxes
    /// (see the type).
    public static func detect(
        in image: RGBImage, tilesPerSide: Int, minimumConfidence: Float,
        detector: some ObjectDetecting
    ) -> [DetectedObject] {
        detect(in: [image], tilesPerSide: tilesPerSide, minimumConfidence: minimumConfidence, detector: detector)[0]
    }

    /// `detect` on several pictures: every whole picture in one call to the detector, then every tile that runs in
    /// a second one (so a detector with worker threads keeps them all busy); the results in the pictures' order.
    public static func detect(
        in images: [RGBImage], tilesPerSide: Int, minimumConfidence: Float,
        detector: some ObjectDetecting
    ) -> [[DetectedObject]] {
        let wholes = detector.detect(in: images, minimumConfidence: minimumConfidence)
        guard tilesPerSide > 1 else { return wholes }
        let grids = zip(images, wholes).map { image, whole in
            image.width > 1 && image.height > 1
                ? tilesToRun(TileGrid(width: image.width, height: image.height, tilesPerSide: tilesPerSide).tiles, whole: whole) : []
        }
        var crops: [RGBImage] = []
        for (image, tiles) in zip(images, grids) { crops += tiles.map { image.cropped(to: $0) } }
        let found = crops.isEmpty ? [] : detector.detect(in: crops, minimumConfidence: minimumConfidence)
        var results: [[DetectedObject]] = []
        var next = 0
        for (index, tiles) in grids.enumerated() {
            let tiled = tiles.enumerated().map { offset, tile in (tile, found[next + offset].map { moved($0, by: tile) }) }
            next += tiles.count
            let image = images[index]
            results.append(
                tiles.isEmpty ? wholes[index] : merge(whole: wholes[index], tiles: tiled, pictureWidth: image.width, pictureHeight: image.height))
        }
        return results
    }

    /// The tiles worth running (step 2): those of which no box of `whole` covers `closeUpCoverage` or more.
    public static func tilesToRun(_ tiles: [PixelRegion], whole: [DetectedObject]) -> [PixelRegion] {
        tiles.filter { tile in
            let region = BoundingBox(
                left: Double(tile.left), top: Double(tile.top),
                right: Double(tile.left + tile.width), bottom: Double(tile.top + tile.height))
            return !whole.contains { intersection($0.box, region) >= closeUpCoverage * region.area }
        }
    }

    /// Merges the whole picture's boxes with the tiles' (already in the picture's pixels) by steps 3–6 above;
    /// highest score first.
    public static func merge(
        whole: [DetectedObject], tiles: [(tile: PixelRegion, objects: [DetectedObject])],
        pictureWidth: Int, pictureHeight: Int
    ) -> [DetectedObject] {
        var candidates = whole.map { (object: $0, source: -1, isCut: false) }
        for (index, tiled) in tiles.enumerated() {
            for object in tiled.objects
            where object.box.width < largestTileShare * Double(pictureWidth) && object.box.height < largestTileShare * Double(pictureHeight) {
                let cut = TileGrid.isCut(object.box, by: tiled.tile, pictureWidth: pictureWidth, pictureHeight: pictureHeight)
                candidates.append((object, index, cut))
            }
        }
        let uncut = candidates.indices.filter { index in
            let candidate = candidates[index]
            guard candidate.isCut, candidate.object.box.area > 0 else { return true }
            return !candidates.indices.contains { other in
                other != index && candidates[other].source != candidate.source
                    && candidates[other].object.label == candidate.object.label
                    && intersection(candidates[other].object.box, candidate.object.box) >= cutCoverage * candidate.object.box.area
            }
        }
        let kept = uncut.filter { index in
            !uncut.contains { other in
                (candidates[other].source == -1) != (candidates[index].source == -1)
                    && isMostlyInside(candidates[index].object, candidates[other].object)
            }
        }
        return suppress(kept.map { candidates[$0].object }, overlap: suppressionOverlap)
    }

    /// Whether `inner` merges into `outer` (step 5): the same label, `outer` the larger, covering `containment` of
    /// `inner` or more, and the two not already overlapping by more than `suppressionOverlap` (suppression's case).
    public static func isMostlyInside(_ inner: DetectedObject, _ outer: DetectedObject) -> Bool {
        inner.label == outer.label && inner.box.area > 0 && outer.box.area > inner.box.area
            && intersection(inner.box, outer.box) >= containment * inner.box.area
            && inner.box.intersectionOverUnion(outer.box) <= suppressionOverlap
    }

    /// Greedy non-maximum suppression per label: highest score first (ties keep input order), a box is kept unless
    /// it overlaps a kept box of its label by more than `overlap` (intersection over union).
    public static func suppress(_ objects: [DetectedObject], overlap: Double) -> [DetectedObject] {
        let ordered = objects.enumerated().sorted {
            $0.element.confidence != $1.element.confidence
                ? $0.element.confidence > $1.element.confidence : $0.offset < $1.offset
        }.map(\.element)
        var kept: [DetectedObject] = []
        for object in ordered where !kept.contains(where: { $0.label == object.label && $0.box.intersectionOverUnion(object.box) > overlap }) {
            kept.append(object)
        }
        return kept
    }

    /// `object` found in `tile`, in pixels of the whole picture.
    static func moved(_ object: DetectedObject, by tile: PixelRegion) -> DetectedObject {
        var result = object
        result.box.x += Double(tile.left)
        result.box.y += Double(tile.top)
        return result
    }

    /// The area two boxes share.
    static func intersection(_ first: BoundingBox, _ second: BoundingBox) -> Double {
        max(0, min(first.right, second.right) - max(first.left, second.left))
            * max(0, min(first.bottom, second.bottom) - max(first.top, second.top))
    }
}
