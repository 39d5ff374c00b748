import Foundation

/// The detector's graph: the backbone at the model's input side, the CenterNet head, and CenterNet's decoding
/// as `CenterNetHead.CenterNetDecoder` does it, up to the selection (see `ONNXExporter.export(detector:network:to:)`).
extension ONNXGraphBuilder {
    /// The graph of `plan`: `image [N, 3, S, S]` → `boxes [N, cells, 4]` and `scores [N, cells, labels]`.
    mutating func buildDetector(_ plan: DetectorExportPlan) {
        let side = Int64(plan.inputSide), cells = Int64(plan.cellCount), labelCount = Int64(plan.labels.count)
        graph.name = "workbench_detector"
        graph.input = [valueInfo(ONNXExporter.inputName, dimensions: [.symbolic("N"), .fixed(3), .fixed(side), .fixed(side)])]
        graph.output = [
            valueInfo(ONNXExporter.boxesOutputName, dimensions: [.symbolic("N"), .fixed(cells), .fixed(4)]),
            valueInfo(ONNXExporter.scoresOutputName, dimensions: [.symbolic("N"), .fixed(cells), .fixed(labelCount)]),
        ]

        addInitializer("preprocess.mean", dimensions: [1, 3, 1, 1], values: plan.mean)
        addInitializer("preprocess.inverse_std", dimensions: [1, 3, 1, 1], values: plan.standardDeviation.map { 1 / $0 })
        addNode("Sub", name: "preprocess.subtract", inputs: [ONNXExporter.inputName, "preprocess.mean"], outputs: ["preprocess.centered"])
        addNode(
            "Mul", name: "preprocess.scale", inputs: ["preprocess.centered", "preprocess.inverse_std"],
            outputs: [ExportPlan.normalizedInput])
        addInitializer("relu6.min", dimensions: [], values: [0])
        addInitializer("relu6.max", dimensions: [], values: [6])
        for step in plan.backbone {
            switch step {
            case let .convolution(convolution, input, output):
                addConvolution(convolution, input: input, output: output)
            case let .add(first, second, output, name):
                addNode("Add", name: name, inputs: [first, second], outputs: [output])
            }
        }

        // The head (DetectorExportPlan's drawing).
        addConvolution(plan.fineProjection, input: plan.fineMap, output: "detector.fine")
        addConvolution(plan.coarseProjection, input: plan.coarseMap, output: "detector.coarse")
        // Nearest ×2: fine cell (y, x) takes coarse cell (⌊y/2⌋, ⌊x/2⌋), NearestUpsampling's rule on an even grid.
        addInitializer("detector.upsampling_scales", dimensions: [4], values: [1, 1, 2, 2])
        addNode(
            "Resize", name: "detector.upsample", inputs: ["detector.coarse", "", "detector.upsampling_scales"],
            outputs: ["detector.coarse_upsampled"],
            attributes: [
                string("mode", "nearest"), string("coordinate_transformation_mode", "asymmetric"),
                string("nearest_mode", "floor"),
            ])
        addNode("Add", name: "detector.merge", inputs: ["detector.fine", "detector.coarse_upsampled"], outputs: ["detector.merged"])
        addNode(
            "Clip", name: "detector.merge.relu6", inputs: ["detector.merged", "relu6.min", "relu6.max"],
            outputs: ["detector.merged_activated"])
        addConvolution(plan.mixing, input: "detector.merged_activated", output: "detector.mixed")
        addConvolution(plan.output, input: "detector.mixed", output: "detector.outputs")

        // [N, labels + 4, H, W] → heat-map logits, sizes and offsets, each along the channel axis.
        let channelSlices: [(String, Int64, Int64)] = [
            ("detector.heat_logits", 0, labelCount), ("detector.size", labelCount, labelCount + 2),
            ("detector.offset", labelCount + 2, labelCount + 4),
        ]
        addInt64Initializer("detector.channel_axis", dimensions: [1], values: [1])
        for (name, start, end) in channelSlices {
            addInt64Initializer(name + ".start", dimensions: [1], values: [start])
            addInt64Initializer(name + ".end", dimensions: [1], values: [end])
            addNode(
                "Slice", name: name, inputs: ["detector.outputs", name + ".start", name + ".end", "detector.channel_axis"],
                outputs: [name])
        }

        // Peaks: a cell whose probability equals the 3×3 maximum around it in its channel (MaxPool's padding never
        // wins, so a border cell compares with its real neighbours only, and equal neighbours are both peaks).
        addNode("Sigmoid", name: "detector.heat", inputs: ["detector.heat_logits"], outputs: ["detector.heat"])
        addNode(
            "MaxPool", name: "detector.heat_max", inputs: ["detector.heat"], outputs: ["detector.heat_max"],
            attributes: [
                integers("kernel_shape", [3, 3]), integers("strides", [1, 1]), integers("pads", [1, 1, 1, 1]),
            ])
        addNode("Equal", name: "detector.is_peak", inputs: ["detector.heat", "detector.heat_max"], outputs: ["detector.is_peak"])
        addNode(
            "Cast", name: "detector.peak", inputs: ["detector.is_peak"], outputs: ["detector.peak"],
            attributes: [integer("to", Int64(Onnx_TensorProto.DataType.float.rawValue))])
        addNode("Mul", name: "detector.peak_scores", inputs: ["detector.heat", "detector.peak"], outputs: ["detector.peak_scores"])
        addCellsLast("detector.peak_scores", channels: labelCount, output: ONNXExporter.scoresOutputName)

        // Boxes: centre (column + offset x, row + offset y) · 16 and size max(0, size) · 16, in input pixels, here
        // divided by the input side; corners cut to the square.
        var corner = [Float](repeating: 0, count: 2 * plan.cellCount)
        for row in 0..<plan.fineSide {
            for column in 0..<plan.fineSide {
                corner[row * plan.fineSide + column] = Float(column)
                corner[plan.cellCount + row * plan.fineSide + column] = Float(row)
            }
        }
        let fine = Int64(plan.fineSide)
        addInitializer("detector.cell_position", dimensions: [1, 2, fine, fine], values: corner)
        addInitializer("detector.cell_scale", dimensions: [], values: [Float(DetectorExportPlan.stride) / Float(plan.inputSide)])
        addInitializer(
            "detector.half_cell_scale", dimensions: [],
            values: [Float(DetectorExportPlan.stride) / Float(plan.inputSide) / 2])
        addNode(
            "Add", name: "detector.centre_cells", inputs: ["detector.offset", "detector.cell_position"],
            outputs: ["detector.centre_cells"])
        addNode("Mul", name: "detector.centre", inputs: ["detector.centre_cells", "detector.cell_scale"], outputs: ["detector.centre"])
        addNode("Relu", name: "detector.size_positive", inputs: ["detector.size"], outputs: ["detector.size_positive"])
        addNode(
            "Mul", name: "detector.half_size", inputs: ["detector.size_positive", "detector.half_cell_scale"],
            outputs: ["detector.half_size"])
        addNode("Sub", name: "detector.top_left", inputs: ["detector.centre", "detector.half_size"], outputs: ["detector.top_left"])
        addNode(
            "Add", name: "detector.bottom_right", inputs: ["detector.centre", "detector.half_size"],
            outputs: ["detector.bottom_right"])
        addNode(
            "Concat", name: "detector.corners", inputs: ["detector.top_left", "detector.bottom_right"],
            outputs: ["detector.corners"], attributes: [integer("axis", 1)])
        addInitializer("detector.unit_min", dimensions: [], values: [0])
        addInitializer("detector.unit_max", dimensions: [], values: [1])
        addNode(
            "Clip", name: "detector.corners_inside", inputs: ["detector.corners", "detector.unit_min", "detector.unit_max"],
            outputs: ["detector.corners_inside"])
        addCellsLast("detector.corners_inside", channels: 4, output: ONNXExporter.boxesOutputName)
    }

    /// `[N, channels, H, W]` → `[N, H·W, channels]`: cell `row · W + column`, its channels last.
    private mutating func addCellsLast(_ input: String, channels: Int64, output: String) {
        addNode(
            "Transpose", name: input + ".cells_first", inputs: [input], outputs: [input + ".cells_first"],
            attributes: [integers("perm", [0, 2, 3, 1])])
        addInt64Initializer(output + ".shape", dimensions: [3], values: [0, -1, channels])
        addNode("Reshape", name: output, inputs: [input + ".cells_first", output + ".shape"], outputs: [output])
    }
}
