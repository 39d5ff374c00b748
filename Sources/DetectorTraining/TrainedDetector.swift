import CenterNetHead
import DetectionAnnotations
import DetectionMetrics
import Inference
import Models
import TrainableLayers

/// A trained head with what it needs to turn a view's maps into boxes on the picture: its labels (heat-map
/// channels in order), the input side its maps were computed at, and the score threshold chosen on held-out
/// pictures (`detect`'s default).
public struct TrainedDetector: Sendable {
    /// The head.
    public var head: DetectorHeadNetwork<Float>
    /// Labels in heat-map channel order.
    public var labels: [String]
    /// Side of the square network input.
    public var inputSide: Int
    /// The score threshold of best F1 on the held-out pictures.
    public var threshold: Double

    /// A detector from its parts.
    public init(head: DetectorHeadNetwork<Float>, labels: [String], inputSide: Int, threshold: Double) {
        precondition(head.labelCount == labels.count, "TrainedDetector: \(labels.count) labels for \(head.labelCount) channels")
        self.head = head
        self.labels = labels
        self.inputSide = inputSide
        self.threshold = threshold
    }

    /// The most boxes decoded per picture (pycocotools' cap; `detect` keeps at most 100 too).
    public static let maximumBoxes = 100

    /// The output grid at stride 16 over the input square.
    public var grid: CenterNetGrid {
        CenterNetGrid(
            width: EfficientNetLite0.mapSide(inputSide: inputSide, stride: 16),
            height: EfficientNetLite0.mapSide(inputSide: inputSide, stride: 16), stride: 16, labelCount: labels.count)
    }

    /// The head's outputs for packed maps (`DetectionFeatureExtractor`'s layout), `[maps.count, Hf, Wf, labels + 4]`.
    public func outputs(for maps: [[Float]]) -> Tensor<Float> {
        let (fine, coarse) = DetectorBatch.tensors(maps, inputSide: inputSide)
        return head.forward(fine: fine, coarse: coarse, mode: .inference).output
    }

    /// The boxes of the whole-picture view whose maps are `maps`, in pixels of a `pictureWidth × pictureHeight`
    /// picture (the view's pixels scaled back and cut to the picture), best first, scoring at least `minimumScore`.
    /// With `mirroredOutputs` (the head's outputs on the mirrored views, same items), the two are averaged first
    /// (`MirrorAveraging`: `--tta`).
    public func objects(
        outputs: Tensor<Float>, mirroredOutputs: Tensor<Float>? = nil, item: Int, pictureWidth: Int,
        pictureHeight: Int, minimumScore: Double = 0
    ) -> [PredictedObject] {
        var maps = DetectorHeadOutputs.split(outputs, item: item, labelCount: labels.count)
        if let mirroredOutputs {
            maps = MirrorAveraging.average(
                maps, mirrored: DetectorHeadOutputs.split(mirroredOutputs, item: item, labelCount: labels.count),
                grid: grid)
        }
        let found = CenterNetDecoder.decode(maps, grid: grid, maximumCount: Self.maximumBoxes, minimumScore: Float(minimumScore))
        let scaleX = Double(pictureWidth) / Double(inputSide), scaleY = Double(pictureHeight) / Double(inputSide)
        return found.compactMap { detection in
            let box = CornerBox(
                left: detection.box.left * scaleX, top: detection.box.top * scaleY,
                right: detection.box.right * scaleX, bottom: detection.box.bottom * scaleY
            )
            .clipped(width: Double(pictureWidth), height: Double(pictureHeight))
            guard box.width > 0 && box.height > 0 else { return nil }
            return PredictedObject(label: labels[detection.labelIndex], score: Double(detection.score), box: box)
        }
    }
}

/// Packed maps (fine then coarse, per view) as the head's two input tensors.
enum DetectorBatch {
    static func tensors(_ maps: [[Float]], inputSide: Int) -> (fine: Tensor<Float>, coarse: Tensor<Float>) {
        let fineSide = EfficientNetLite0.mapSide(inputSide: inputSide, stride: 16)
        let coarseSide = EfficientNetLite0.mapSide(inputSide: inputSide, stride: 32)
        let fineFloats = fineSide * fineSide * EfficientNetLite0.stride16Channels
        let coarseFloats = coarseSide * coarseSide * EfficientNetLite0.stride32Channels
        var fine: [Float] = [], coarse: [Float] = []
        fine.reserveCapacity(maps.count * fineFloats)
        coarse.reserveCapacity(maps.count * coarseFloats)
        for packed in maps {
            precondition(packed.count == fineFloats + coarseFloats, "DetectorBatch: maps of another input side")
            fine += packed[0..<fineFloats]
            coarse += packed[fineFloats...]
        }
        return (
            Tensor(shape: [maps.count, fineSide, fineSide, EfficientNetLite0.stride16Channels], storage: fine),
            Tensor(shape: [maps.count, coarseSide, coarseSide, EfficientNetLite0.stride32Channels], storage: coarse)
        )
    }
}
