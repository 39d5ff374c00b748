import Foundation
import ModelFiles

/// The text both exporters store beside the network, so that a consumer can label outputs and prepare images
/// without Workbench.
enum ExportMetadata {
    /// Name written as the producer of every exported file.
    static let producerName = "Workbench"
    /// Version of the export layout (bumped when node names, inputs or metadata keys change).
    static let producerVersion = "2"

    /// The labels as a JSON array, in output order.
    static func labelsJSON(_ labels: [String]) -> String {
        encode(labels)
    }

    /// How a photo becomes the model's 224 × 224 input, as JSON: the crop and resize happen outside the model,
    /// the `(pixel − mean) / std` normalisation inside it.
    static func preprocessingJSON(_ description: PreprocessingDescription) -> String {
        encode(Recipe(description))
    }

    /// A one-line, human-readable version of the same recipe.
    static func preprocessingSummary(_ description: PreprocessingDescription) -> String {
        let side = description.inputSide, outer = description.inputSide + description.cropPadding
        return "Centre-crop a square of side Int(\(side)/\(outer)·min(height, width)), resize it to "
            + "\(side)×\(side) with \(description.resample) resampling, and feed \(description.channelOrder) pixels 0…255; "
            + "the model subtracts \(description.mean) and divides by \(description.std) itself. Composite transparent "
            + "pixels onto white (255, 255, 255) first: c' = (c·a + 255·(255 − a) + 127) / 255, integer division."
    }

    private struct Recipe: Encodable {
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

        init(_ description: PreprocessingDescription) {
            name = description.name
            inputSide = description.inputSide
            cropPadding = description.cropPadding
            crop = "centre square of side c = Int(\(description.inputSide) / \(description.inputSide + description.cropPadding) * min(height, width)), "
                + "top (height - c + 1) / 2, left (width - c + 1) / 2 (integer division), after EXIF orientation"
            resample = description.resample
            channelOrder = description.channelOrder
            pixelRange = [0, 255]
            mean = description.mean
            std = description.std
            normalizationInModel = true
            // Workbench's decoders always composite onto white (the model file's recipe has no other choice yet).
            alphaBackground = [255, 255, 255]
            alphaCompositing = "c' = (c * a + 255 * (255 - a) + 127) // 255 per channel, 8-bit, before cropping"
            colour = "8-bit RGB: gray repeated in three channels, CMYK/YCCK converted, 16-bit samples keep their high "
                + "byte, EXIF orientation applied, no colour profile applied"
        }
    }

    private static func encode<Value: Encodable>(_ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, integers and finite floats cannot fail; a failure here is a programming error.
        guard let data = try? encoder.encode(value), let text = String(data: data, encoding: .utf8) else {
            preconditionFailure("ExportMetadata: JSON encoding failed")
        }
        return text
    }
}
