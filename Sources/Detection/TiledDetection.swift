import ImageCodecs

/// `--tiles N`: the detector on the whole picture and on each tile of an N × N `TileGrid`, the boxes merged.
///
/// The merge rule, in order:
/// 1. Tile boxes are moved into the picture's pixels.
/// 2. A tile box that touches an edge of its tile lying inside the picture (within 2 pixels) was cut by the tile;
///    it is dropped when another box of the same label, from the whole picture or another tile, covers at least
///    half of it (intersection over the cut box's area ≥ 0.5): that box saw more of the object.
/// 3. The rest are suppressed greedily per label, highest score first: a box goes when its intersection over union
///    with a kept box exceeds 0.5 (the detector's own threshold for one frame).
public enum TiledDetection {
    /// The share of a cut box another box must cover for the cut box to go.
    public static let cutCoverage = 0.5
    /// The intersection over union above which the lower-scoring of two boxes of one label goes.
    public static let suppressionOverlap = 0.5

    /// Runs `detector` on `image` and, when `tilesPerSide > 1`, on each tile, and merges the boxes (see the type).
    public static func detect(
        in image: RGBImage, tilesPerSide: Int, minimumConfidence: Float,
        detector: some ObjectDetecting
    ) -> [DetectedObject] {
        detect(in: [image], tilesPerSide: tilesPerSide, minimumConfidence: minimumConfidence, detector: detector)[0]
    }

    /// `detect` on several pictures, every whole picture and tile handed to the detector in one call (so a
    /// detector with worker threads keeps them all busy); the results in the pictures' order.
    public static func detect(
        in images: [RGBImage], tilesPerSide: Int, minimumConfidence: Float,
        detector: some ObjectDetecting
    ) -> [[DetectedObject]] {
        let grids = images.map { image in
            tilesPerSide > 1 && image.width > 1 && image.height > 1
                ? TileGrid(width: image.width, height: image.height, tilesPerSide: tilesPerSide).tiles : []
        }
        var inputs: [RGBImage] = []
        for (image, tiles) in zip(images, grids) { inputs += [image] + tiles.map { image.cropped(to: $0) } }
        let found = detector.detect(in: inputs, minimumConfidence: minimumConfidence)
        var results: [[DetectedObject]] = []
        var next = 0
        for (image, tiles) in zip(images, grids) {
            let whole = found[next]
            let tiled = tiles.enumerated().map { index, tile in (tile, found[next + 1 + index].map { moved($0, by: tile) }) }
            next += 1 + tiles.count
            results.append(tiles.isEmpty ? whole : merge(whole: whole, tiles: tiled, pictureWidth: image.width, pictureHeight: image.height))
        }
        return results
    }

    /// Merges the whole picture's boxes with the tiles' (already in the picture's pixels) by the rule above;
    /// highest score first.
    public static func merge(
        whole: [DetectedObject], tiles: [(tile: PixelRegion, objects: [DetectedObject])],
        pictureWidth: Int, pictureHeight: Int
    ) -> [DetectedObject] {
        var candidates = whole.map { (object: $0, source: -1, isCut: false) }
        for (index, tiled) in tiles.enumerated() {
            for object in tiled.objects {
                let cut = TileGrid.isCut(object.box, by: tiled.tile, pictureWidth: pictureWidth, pictureHeight: pictureHeight)
                candidates.append((object, index, cut))
            }
        }
        let kept = candidates.indices.filter { index in
            let candidate = candidates[index]
            guard candidate.isCut, candidate.object.box.area > 0 else { return true }
            return !candidates.indices.contains { other in
                other != index && candidates[other].source != candidate.source
                    && candidates[other].object.label == candidate.object.label
                    && intersection(candidates[other].object.box, candidate.object.box) >= cutCoverage * candidate.object.box.area
            }
        }
        return suppress(kept.map { candidates[$0].object }, overlap: suppressionOverlap)
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
