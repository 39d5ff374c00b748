import FileFormats
import Layers

/// Marks `FileError`s about the person detector's converted weights.
public enum DetectorWeightsErrorDomain {}

/// A detector weights file that cannot be used: the file and a one-line reason that names every missing, unused
/// and wrong-shape tensor (or the missing setting).
public typealias DetectorWeightsError = FileError<DetectorWeightsErrorDomain>

/// The tensors the converted SSDLite + MobileNetV2 file must hold (written by `workbench-convert-detector`): per
/// convolution, `SCOPE.weight` (OIHW, batch norm folded in) and `SCOPE.bias`, with the frozen graph's scope names
/// (see `SSDLiteMobileNetV2Architecture`), plus `anchors`.
public enum DetectorWeights {
    /// The anchors tensor: `[anchorCount, 4]`, each (yCenter, xCenter, height, width) in fractions of the input.
    public static let anchorsName = "anchors"

    /// How one convolution runs; the shapes of its two tensors follow from it.
    public enum LayerKind: Sendable, Equatable {
        /// 3×3 stride-2 dense convolution (the stem).
        case dense(inputChannels: Int, outputChannels: Int, stride: Int)
        /// 3×3 depthwise convolution.
        case depthwise(channels: Int, stride: Int)
        /// 1×1 convolution.
        case pointwise(inputChannels: Int, outputChannels: Int)
    }

    /// One convolution of the network: its scope (the tensor names' stem), kind and activation.
    public struct Layer: Sendable, Equatable {
        public let scope: String
        public let kind: LayerKind
        public let activation: Activation

        /// OIHW shape of `scope.weight`.
        public var weightShape: [Int] {
            let k = SSDLiteMobileNetV2Architecture.kernelSize
            switch kind {
            case .dense(let input, let output, _): return [output, input, k, k]
            case .depthwise(let channels, _): return [channels, 1, k, k]
            case .pointwise(let input, let output): return [output, input, 1, 1]
            }
        }

        /// Output channels: the length of `scope.bias`.
        public var outputChannels: Int { weightShape[0] }
    }

    /// Every convolution in the order the network runs them.
    public static let layers: [Layer] = {
        typealias Architecture = SSDLiteMobileNetV2Architecture
        var layers = [
            Layer(
                scope: Architecture.stemScope,
                kind: .dense(inputChannels: Architecture.inputChannels, outputChannels: Architecture.stemChannels, stride: 2),
                activation: .relu6)
        ]
        for block in Architecture.blocks {
            if block.hasExpansion {
                layers.append(
                    Layer(
                        scope: block.scope + "/expand",
                        kind: .pointwise(inputChannels: block.inputChannels, outputChannels: block.expandedChannels),
                        activation: .relu6))
            }
            layers.append(
                Layer(
                    scope: block.scope + "/depthwise", kind: .depthwise(channels: block.expandedChannels, stride: block.stride),
                    activation: .relu6))
            layers.append(
                Layer(
                    scope: block.scope + "/project",
                    kind: .pointwise(inputChannels: block.expandedChannels, outputChannels: block.outputChannels),
                    activation: .none))
        }
        layers.append(
            Layer(
                scope: Architecture.lastScope,
                kind: .pointwise(inputChannels: Architecture.blocks.last!.outputChannels, outputChannels: Architecture.lastChannels),
                activation: .relu6))
        for extra in Architecture.extraLayers {
            layers.append(
                Layer(
                    scope: extra.reduceScope,
                    kind: .pointwise(inputChannels: extra.inputChannels, outputChannels: extra.reducedChannels), activation: .relu6))
            layers.append(Layer(scope: extra.depthwiseScope, kind: .depthwise(channels: extra.reducedChannels, stride: 2), activation: .relu6))
            layers.append(
                Layer(
                    scope: extra.expandScope,
                    kind: .pointwise(inputChannels: extra.reducedChannels, outputChannels: extra.outputChannels), activation: .relu6))
        }
        for map in Architecture.featureMaps {
            for (scope, perAnchor) in [(map.boxScope, Architecture.boxCodeLength), (map.classScope, Architecture.classCount)] {
                layers.append(Layer(scope: scope + "_depthwise", kind: .depthwise(channels: map.channels, stride: 1), activation: .relu6))
                layers.append(
                    Layer(
                        scope: scope, kind: .pointwise(inputChannels: map.channels, outputChannels: map.anchorsPerPosition * perAnchor),
                        activation: .none))
            }
        }
        return layers
    }()

    /// Every expected tensor with its shape.
    public static let expectedShapes: [String: [Int]] = {
        var shapes: [String: [Int]] = [anchorsName: [SSDLiteMobileNetV2Architecture.anchorCount, 4]]
        for layer in layers {
            shapes[layer.scope + ".weight"] = layer.weightShape
            shapes[layer.scope + ".bias"] = [layer.outputChannels]
        }
        return shapes
    }()

    /// Checks that `file` holds exactly the expected tensors with the expected shapes; the error lists every
    /// missing, unused and wrong-shape tensor by name (`TensorMismatch`, the one strict check).
    public static func validate(_ file: SafetensorsFile, path: String) throws(DetectorWeightsError) {
        if let mismatch = TensorMismatch(tensors: file.tensors, expected: expectedShapes) {
            throw DetectorWeightsError(path: path, reason: "not SSDLite MobileNetV2 detector weights: " + mismatch.summary())
        }
    }
}

/// The settings a detector weights file carries beside its tensors (in the safetensors metadata), taken from the
/// frozen graph by the converter: the labels and the graph's own post-processing constants.
public struct DetectorSettings: Sendable, Equatable {
    /// The labels of the non-background classes, in the order of the class logits after the background: `["person"]`.
    public var labels: [String]
    /// The box coder's scales (y, x, height, width): encodings are divided by them before decoding (10, 10, 5, 5).
    public var boxCoderScales: [Float]
    /// Class logits are divided by this before the sigmoid (the graph's `scale_logits`, 1).
    public var logitScale: Float
    /// Non-maximum suppression drops a box whose IoU with a kept, higher-scoring box of its class exceeds this (0.6).
    public var overlapThreshold: Float
    /// Boxes scoring at most this never enter suppression (1e-8).
    public var scoreThreshold: Float
    /// Boxes kept per class after suppression (100).
    public var maximumPerClass: Int
    /// Boxes kept in all (100).
    public var maximumTotal: Int

    /// Settings from their parts.
    public init(
        labels: [String], boxCoderScales: [Float], logitScale: Float, overlapThreshold: Float, scoreThreshold: Float,
        maximumPerClass: Int, maximumTotal: Int
    ) {
        self.labels = labels
        self.boxCoderScales = boxCoderScales
        self.logitScale = logitScale
        self.overlapThreshold = overlapThreshold
        self.scoreThreshold = scoreThreshold
        self.maximumPerClass = maximumPerClass
        self.maximumTotal = maximumTotal
    }

    /// The format marker written as `format`; a file without it (or with another) is refused.
    public static let format = "workbench-detector-1"

    /// The settings as safetensors metadata (numbers in Swift's shortest round-trip form, labels one per line).
    public var metadata: [String: String] {
        [
            "format": Self.format,
            "labels": labels.joined(separator: "\n"),
            "box_coder_scales": boxCoderScales.map { "\($0)" }.joined(separator: " "),
            "logit_scale": "\(logitScale)",
            "nms_iou_threshold": "\(overlapThreshold)",
            "nms_score_threshold": "\(scoreThreshold)",
            "max_detections_per_class": "\(maximumPerClass)",
            "max_total_detections": "\(maximumTotal)",
        ]
    }

    /// Reads the settings back from a file's metadata; the error names the first missing or unreadable entry.
    public init(metadata: [String: String], path: String) throws(DetectorWeightsError) {
        func value(_ key: String) throws(DetectorWeightsError) -> String {
            guard let text = metadata[key] else {
                throw DetectorWeightsError(path: path, reason: "not a Workbench detector file: no \(key) in its metadata")
            }
            return text
        }
        func number(_ key: String) throws(DetectorWeightsError) -> Float {
            let text = try value(key)
            guard let number = Float(text), number.isFinite else {
                throw DetectorWeightsError(path: path, reason: "metadata \(key) is not a number: \(text)")
            }
            return number
        }
        func count(_ key: String) throws(DetectorWeightsError) -> Int {
            let text = try value(key)
            guard let count = Int(text), count > 0 else {
                throw DetectorWeightsError(path: path, reason: "metadata \(key) is not a positive whole number: \(text)")
            }
            return count
        }
        let format = try value("format")
        guard format == Self.format else {
            throw DetectorWeightsError(path: path, reason: "detector file format \(format), this Workbench reads \(Self.format)")
        }
        let labels = try value("labels").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard labels.count == SSDLiteMobileNetV2Architecture.classCount - 1, labels.allSatisfy({ !$0.isEmpty }) else {
            throw DetectorWeightsError(path: path, reason: "metadata labels must name \(SSDLiteMobileNetV2Architecture.classCount - 1) class")
        }
        let scaleTexts = try value("box_coder_scales").split(separator: " ")
        let scales = scaleTexts.compactMap { Float($0) }.filter { $0.isFinite && $0 > 0 }
        guard scales.count == 4, scaleTexts.count == 4 else {
            throw DetectorWeightsError(path: path, reason: "metadata box_coder_scales must be 4 positive numbers")
        }
        self.init(
            labels: labels, boxCoderScales: scales, logitScale: try number("logit_scale"),
            overlapThreshold: try number("nms_iou_threshold"), scoreThreshold: try number("nms_score_threshold"),
            maximumPerClass: try count("max_detections_per_class"), maximumTotal: try count("max_total_detections"))
        guard logitScale > 0 else { throw DetectorWeightsError(path: path, reason: "metadata logit_scale must be positive") }
    }
}
