import Augmentation
import Foundation
import Models

/// Turns an `ExportPlan` into ONNX nodes and initializers.
struct ONNXGraphBuilder {
    var graph = Onnx_GraphProto()

    /// The graph of `plan`; with `views`, the test-time views are built inside it and their probabilities
    /// averaged (`addTestTimeViews`, `addViewAverage`).
    mutating func build(_ plan: ExportPlan, views: TestTimeViews? = nil) {
        graph.name = "workbench_classifier"
        graph.input = [
            valueInfo(
                ONNXExporter.inputName,
                dimensions: [
                    .symbolic("N"), .fixed(3),
                    .fixed(Int64(EfficientNetLite0.inputSide)),
                    .fixed(Int64(EfficientNetLite0.inputSide)),
                ])
        ]
        graph.output = [valueInfo(ONNXExporter.outputName, dimensions: [.symbolic("N"), .fixed(Int64(plan.labels.count))])]

        // Normalisation: (x − mean) · (1 / std), per channel, broadcast over [N, 3, H, W].
        addInitializer("preprocess.mean", dimensions: [1, 3, 1, 1], values: plan.mean)
        addInitializer("preprocess.inverse_std", dimensions: [1, 3, 1, 1], values: plan.standardDeviation.map { 1 / $0 })
        let pixels = views.map { addTestTimeViews($0) } ?? ONNXExporter.inputName
        addNode("Sub", name: "preprocess.subtract", inputs: [pixels, "preprocess.mean"], outputs: ["preprocess.centered"])
        addNode(
            "Mul", name: "preprocess.scale", inputs: ["preprocess.centered", "preprocess.inverse_std"],
            outputs: [ExportPlan.normalizedInput])

        addInitializer("relu6.min", dimensions: [], values: [0])
        addInitializer("relu6.max", dimensions: [], values: [6])
        for step in plan.steps {
            switch step {
            case let .convolution(convolution, input, output):
                addConvolution(convolution, input: input, output: output)
            case let .add(first, second, output, name):
                addNode("Add", name: name, inputs: [first, second], outputs: [output])
            }
        }

        let classCount = Int64(plan.labels.count), featureCount = Int64(EfficientNetLite0.featureCount)
        addNode("GlobalAveragePool", name: "pool", inputs: [plan.featureMap], outputs: ["pool"])
        addNode("Flatten", name: "features", inputs: ["pool"], outputs: ["features"], attributes: [integer("axis", 1)])
        addInitializer("classifier.weight", dimensions: [classCount, featureCount], values: plan.classifierWeights)
        addInitializer("classifier.bias", dimensions: [classCount], values: plan.classifierBias)
        addNode(
            "Gemm", name: "classifier", inputs: ["features", "classifier.weight", "classifier.bias"], outputs: ["logits"],
            attributes: [integer("transB", 1)])
        // Calibration: probabilities are softmax(logits / temperature), as Workbench computes them.
        addInitializer("calibration.temperature", dimensions: [], values: [Float(plan.temperature)])
        addNode("Div", name: "calibration", inputs: ["logits", "calibration.temperature"], outputs: ["calibrated_logits"])
        let probabilities = views == nil ? ONNXExporter.outputName : "tta.view_probabilities"
        addNode(
            "Softmax", name: "softmax", inputs: ["calibrated_logits"], outputs: [probabilities],
            attributes: [integer("axis", 1)])
        if let views { addViewAverage(views, probabilities: probabilities, classCount: classCount) }
    }

    /// The test-time views of the input pixels, as `TestTimeViews` makes them, stacked view after view along the
    /// batch: `[views · N, 3, 224, 224]` (all N images' view 1, then all their view 2, ...). Returns its name.
    ///
    /// The centre crop is a `Slice`, resized back to 224 as Workbench's resampler does: one `Resize` per axis
    /// (horizontal first), cubic with a = −0.5, half-pixel centres and the taps outside the crop dropped and the
    /// rest renormalised (`exclude_outside`), each pass rounded half up and clamped to 0…255 (`Floor(x + 0.5)`,
    /// `Clip`) like the 8-bit intermediate of `Resize.bicubic`. When upscaling, Pillow's antialiased bicubic is
    /// exactly this filter. The mirror is a `Gather` of the columns in reverse order.
    private mutating func addTestTimeViews(_ views: TestTimeViews) -> String {
        let side = EfficientNetLite0.inputSide
        let region = TestTimeViews.centerRegion(inputSide: side)
        addInt64Initializer("tta.crop_starts", dimensions: [2], values: [Int64(region.top), Int64(region.left)])
        addInt64Initializer(
            "tta.crop_ends", dimensions: [2],
            values: [Int64(region.top + region.height), Int64(region.left + region.width)])
        addInt64Initializer("tta.crop_axes", dimensions: [2], values: [2, 3])
        addNode(
            "Slice", name: "tta.crop", inputs: [ONNXExporter.inputName, "tta.crop_starts", "tta.crop_ends", "tta.crop_axes"],
            outputs: ["tta.cropped"])
        let scale = Float(Double(side) / Double(region.width))
        addInitializer("tta.scales_horizontal", dimensions: [4], values: [1, 1, 1, scale])
        addInitializer("tta.scales_vertical", dimensions: [4], values: [1, 1, scale, 1])
        addInitializer("tta.half", dimensions: [], values: [0.5])
        addInitializer("tta.pixel_min", dimensions: [], values: [0])
        addInitializer("tta.pixel_max", dimensions: [], values: [255])
        var current = "tta.cropped"
        for (pass, scales) in [("horizontal", "tta.scales_horizontal"), ("vertical", "tta.scales_vertical")] {
            let name = "tta.resize_\(pass)"
            addNode(
                "Resize", name: name, inputs: [current, "", scales], outputs: [name + ".exact"],
                attributes: [
                    string("mode", "cubic"), float("cubic_coeff_a", -0.5),
                    string("coordinate_transformation_mode", "half_pixel"), integer("exclude_outside", 1),
                ])
            addNode("Add", name: name + ".plus_half", inputs: [name + ".exact", "tta.half"], outputs: [name + ".plus_half"])
            addNode("Floor", name: name + ".round", inputs: [name + ".plus_half"], outputs: [name + ".rounded"])
            addNode(
                "Clip", name: name + ".clamp", inputs: [name + ".rounded", "tta.pixel_min", "tta.pixel_max"],
                outputs: [name + ".pixels"])
            current = name + ".pixels"
        }
        var stacked = [ONNXExporter.inputName, current]
        if views.mirrors {
            addInt64Initializer("tta.mirrored_columns", dimensions: [Int64(side)], values: (0..<side).reversed().map(Int64.init))
            for (index, view) in stacked.enumerated() {
                addNode(
                    "Gather", name: "tta.mirror_\(index)", inputs: [view, "tta.mirrored_columns"],
                    outputs: ["tta.mirrored_\(index)"], attributes: [integer("axis", 3)])
            }
            stacked += stacked.indices.map { "tta.mirrored_\($0)" }
        }
        precondition(stacked.count == views.count, "ONNXGraphBuilder: one input per test-time view")
        addNode("Concat", name: "tta.views", inputs: stacked, outputs: ["tta.views"], attributes: [integer("axis", 0)])
        return "tta.views"
    }

    /// `probabilities [views · N, classes]` → `[views, N, classes]` → the mean over the views, `[N, classes]`:
    /// Workbench's rule, the mean of each view's calibrated softmax.
    private mutating func addViewAverage(_ views: TestTimeViews, probabilities: String, classCount: Int64) {
        addInt64Initializer("tta.view_shape", dimensions: [3], values: [Int64(views.count), -1, classCount])
        addNode("Reshape", name: "tta.by_view", inputs: [probabilities, "tta.view_shape"], outputs: ["tta.by_view"])
        addNode(
            "ReduceMean", name: "tta.average", inputs: ["tta.by_view"], outputs: [ONNXExporter.outputName],
            attributes: [integers("axes", [0]), integer("keepdims", 0)])
    }

    mutating func addConvolution(_ convolution: ExportPlan.Convolution, input: String, output: String) {
        let name = convolution.name
        let kernel = Int64(convolution.kernelSize)
        addInitializer(
            name + ".weight",
            dimensions: [Int64(convolution.outputChannels), Int64(convolution.inputChannels / convolution.groups), kernel, kernel],
            values: convolution.weightsOIHW)
        addInitializer(name + ".bias", dimensions: [Int64(convolution.outputChannels)], values: convolution.bias)
        let padding = convolution.padding
        let convolutionOutput = convolution.relu6 ? name + ".linear" : output
        addNode(
            "Conv", name: name, inputs: [input, name + ".weight", name + ".bias"], outputs: [convolutionOutput],
            attributes: [
                integers("kernel_shape", [kernel, kernel]),
                integers("strides", [Int64(convolution.stride), Int64(convolution.stride)]),
                // ONNX order: [top, left, bottom, right].
                integers("pads", [padding.top, padding.left, padding.bottom, padding.right].map(Int64.init)),
                integers("dilations", [1, 1]),
                integer("group", Int64(convolution.groups)),
            ])
        if convolution.relu6 {
            addNode("Clip", name: name + ".relu6", inputs: [convolutionOutput, "relu6.min", "relu6.max"], outputs: [output])
        }
    }

    mutating func addNode(
        _ operation: String, name: String, inputs: [String], outputs: [String],
        attributes: [Onnx_AttributeProto] = []
    ) {
        graph.node.append(
            Onnx_NodeProto.with {
                $0.opType = operation
                $0.name = name
                $0.input = inputs
                $0.output = outputs
                $0.attribute = attributes
            })
    }

    /// A float32 initializer.
    mutating func addInitializer(_ name: String, dimensions: [Int64], values: [Float]) {
        addTensor(name, dimensions: dimensions, values: values, dataType: .float)
    }

    /// An int64 initializer (indices, shapes, slice bounds).
    mutating func addInt64Initializer(_ name: String, dimensions: [Int64], values: [Int64]) {
        addTensor(name, dimensions: dimensions, values: values, dataType: .int64)
    }

    /// An initializer stored as little-endian `raw_data` (all supported hosts are little-endian); the shapes are
    /// the builder's own, so a mismatch is a bug here, never bad input.
    private mutating func addTensor<Element>(
        _ name: String, dimensions: [Int64], values: [Element],
        dataType: Onnx_TensorProto.DataType
    ) {
        precondition(Int64(values.count) == dimensions.reduce(1, *), "ONNXGraphBuilder: \(name) shape")
        graph.initializer.append(
            Onnx_TensorProto.with {
                $0.name = name
                $0.dims = dimensions
                $0.dataType = Int32(dataType.rawValue)
                $0.rawData = values.withUnsafeBytes { Data($0) }
            })
    }

    func string(_ name: String, _ value: String) -> Onnx_AttributeProto {
        Onnx_AttributeProto.with {
            $0.name = name; $0.type = .string; $0.s = Data(value.utf8)
        }
    }

    func float(_ name: String, _ value: Float) -> Onnx_AttributeProto {
        Onnx_AttributeProto.with {
            $0.name = name; $0.type = .float; $0.f = value
        }
    }

    func integer(_ name: String, _ value: Int64) -> Onnx_AttributeProto {
        Onnx_AttributeProto.with {
            $0.name = name; $0.type = .int; $0.i = value
        }
    }

    func integers(_ name: String, _ values: [Int64]) -> Onnx_AttributeProto {
        Onnx_AttributeProto.with {
            $0.name = name; $0.type = .ints; $0.ints = values
        }
    }

    enum Dimension {
        case fixed(Int64)
        case symbolic(String)
    }

    func valueInfo(_ name: String, dimensions: [Dimension]) -> Onnx_ValueInfoProto {
        Onnx_ValueInfoProto.with {
            $0.name = name
            $0.type.tensorType.elemType = Int32(Onnx_TensorProto.DataType.float.rawValue)
            $0.type.tensorType.shape.dim = dimensions.map { dimension in
                Onnx_TensorShapeProto.Dimension.with {
                    switch dimension {
                    case .fixed(let value): $0.dimValue = value
                    case .symbolic(let name): $0.dimParam = name
                    }
                }
            }
        }
    }
}
