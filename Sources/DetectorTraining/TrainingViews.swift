import CenterNetHead
import DetectionAnnotations
import Foundation
import ImageCodecs
import Inference
import TensorCore

/// The views a training picture is seen through, and where its boxes land in each: augmentation that moves the
/// boxes with the pixels.
///
/// View 0 is the whole picture, view 1 its mirror; each further view is a crop of 60–100 % of each side (so the
/// objects appear up to 1.7 times larger: the scale augmentation), at a random place, mirrored or not. The draws
/// come from a generator seeded by the run's seed and the picture's name, so a picture gets the same views (and
/// cache entries) in every run with that seed, whatever the dataset's order.
public enum TrainingViews {
    /// Views of one picture: the whole picture, its mirror, then `crops` random crops.
    public static func views(name: String, crops: Int, seed: UInt64) -> [DetectionView] {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        var random = SplitMix64(seed: SplitMix64.mix(seed ^ hash))
        func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        var views = [DetectionView.whole, DetectionView.mirror]
        for _ in 0..<max(0, crops) {
            let width = 0.6 + 0.4 * unit(), height = 0.6 + 0.4 * unit()
            let left = (1 - width) * unit(), top = (1 - height) * unit()
            views.append(DetectionView(left: left, top: top, width: width, height: height, mirrored: unit() < 0.5))
        }
        return views
    }

    /// Share of a box's area that must stay inside a crop for it to count as an object there; a box cut more is
    /// left out (it would teach the head that a sliver is a whole object).
    public static let minimumVisibleShare = 0.5

    /// The objects of a `pictureWidth × pictureHeight` picture as seen in `view` at `inputSide`, for the targets.
    public static func objects(
        _ objects: [ObjectAnnotation], in view: DetectionView, pictureWidth: Int, pictureHeight: Int,
        inputSide: Int, labels: [String]
    ) -> [CenterNetObject] {
        let transform = view.boxTransform(pictureWidth: pictureWidth, pictureHeight: pictureHeight, inputSide: inputSide)
        let side = Double(inputSide)
        return objects.compactMap { object in
            guard let labelIndex = labels.firstIndex(of: object.label) else { return nil }
            var left = (object.box.left - transform.offsetX) * transform.scaleX
            var right = (object.box.right - transform.offsetX) * transform.scaleX
            let top = (object.box.top - transform.offsetY) * transform.scaleY
            let bottom = (object.box.bottom - transform.offsetY) * transform.scaleY
            if transform.mirrored { (left, right) = (side - right, side - left) }
            let whole = CornerBox(left: left, top: top, right: right, bottom: bottom)
            let visible = whole.clipped(width: side, height: side)
            guard whole.area > 0, visible.width >= 1, visible.height >= 1,
                visible.area >= minimumVisibleShare * whole.area
            else { return nil }
            return CenterNetObject(labelIndex: labelIndex, box: visible)
        }
    }
}
