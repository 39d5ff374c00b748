import Foundation
import Models

/// Turns an `ExportPlan` into ONNX nodes and initializers.
struct ONNXGraphBuilder {
    private(set) var graph = Onnx_GraphProto()

    mutating func build(_ plan: ExportPlan) {
        graph.name = "workbench_classifier"
        graph.input = [valueInfo(ONNXExporter.inputName, dimensions: [.symbolic("N"), .fixed(3),
                                                                      .fixed(Int64(EfficientNetLite0.inputSide)),
                                                                      .fixed(Int64(EfficientNetLite0.inputSide))])]
        graph.output = [valueInfo(ONNXExporter.outputName, dimensions: [.symbolic("N"), .fixed(Int64(plan.labels.count))])]

        // Normalisation: (x − mean) · (1 / std), per channel, broadcast over [N, 3, H, W].
        addInitializer("preprocess.mean", dimensions: [1, 3, 1, 1], values: plan.mean)
        addInitializer("preprocess.inverse_std", dimensions: [1, 3, 1, 1], values: plan.standardDeviation.map { 1 / $0 })
        addNode("Sub", name: "preprocess.subtract", inputs: [ONNXExporter.inputName, "preprocess.mean"], outputs: ["preprocess.centered"])
        addNode("Mul", name: "preprocess.scale", inputs: ["preprocess.centered", "preprocess.inverse_std"],
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
        addNode("Gemm", name: "classifier", inputs: ["features", "classifier.weight", "classifier.bias"], outputs: ["logits"],
                attributes: [integer("transB", 1)])
        // Calibration: probabilities are softmax(logits / temperature), as Workbench computes them.
        addInitializer("calibration.temperature", dimensions: [], values: [Float(plan.temperature)])
        addNode("Div", name: "calibration", inputs: ["logits", "calibration.temperature"], outputs: ["calibrated_logits"])
        addNode("Softmax", name: "softmax", inputs: ["calibrated_logits"], outputs: [ONNXExporter.outputName],
                attributes: [integer("axis", 1)])
    }

    private mutating func addConvolution(_ convolution: ExportPlan.Convolution, input: String, output: String) {
        let name = convolution.name
        let kernel = Int64(convolution.kernelSize)
        addInitializer(name + ".weight",
                       dimensions: [Int64(convolution.outputChannels), Int64(convolution.inputChannels / convolution.groups), kernel, kernel],
                       values: convolution.weightsOIHW)
        addInitializer(name + ".bias", dimensions: [Int64(convolution.outputChannels)], values: convolution.bias)
        let padding = convolution.padding
        let convolutionOutput = convolution.relu6 ? name + ".linear" : output
        addNode("Conv", name: name, inputs: [input, name + ".weight", name + ".bias"], outputs: [convolutionOutput], attributes: [
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

    private mutating func addNode(_ operation: String, name: String, inputs: [String], outputs: [String],
                                  attributes: [Onnx_AttributeProto] = []) {
        graph.node.append(Onnx_NodeProto.with {
            $0.opType = operation
            $0.name = name
            $0.input = inputs
            $0.output = outputs
            $0.attribute = attributes
        })
    }

    /// A float32 initializer stored as little-endian `raw_data` (all supported hosts are little-endian).
    private mutating func addInitializer(_ name: String, dimensions: [Int64], values: [Float]) {
        precondition(Int64(values.count) == dimensions.reduce(1, *), "ONNXGraphBuilder: \(name) shape")
        graph.initializer.append(Onnx_TensorProto.with {
            $0.name = name
            $0.dims = dimensions
            $0.dataType = Int32(Onnx_TensorProto.DataType.float.rawValue)
            $0.rawData = values.withUnsafeBytes { Data($0) }
        })
    }

    private func integer(_ name: String, _ value: Int64) -> Onnx_AttributeProto {
        Onnx_AttributeProto.with { $0.name = name; $0.type = .int; $0.i = value }
    }

    private func integers(_ name: String, _ values: [Int64]) -> Onnx_AttributeProto {
        Onnx_AttributeProto.with { $0.name = name; $0.type = .ints; $0.ints = values }
    }

    private enum Dimension {
        case fixed(Int64)
        case symbolic(String)
    }

    private func valueInfo(_ name: String, dimensions: [Dimension]) -> Onnx_ValueInfoProto {
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
