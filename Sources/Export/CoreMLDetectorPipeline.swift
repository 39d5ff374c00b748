import Foundation
import ModelFiles
import Models

/// A trained detector as the Core ML pipeline Vision's object-detection requests read (`VNRecognizedObjectObservation`):
/// a neural network, then a non-maximum-suppression model.
///
/// Pipeline inputs: `image` (RGB, S × S, the whole picture stretched by Vision's `.scaleFill`), `iouThreshold` and
/// `confidenceThreshold` (optional doubles). Outputs: `confidence` `[boxes, labels]` and `coordinates` `[boxes, 4]`
/// (centre x, centre y, width, height as fractions of the image), the names and layout Create ML's detectors use.
///
/// The network computes what the ONNX export computes (`ONNXExporter.export(detector:network:to:)`): per cell of the
/// stride-16 grid, `raw_confidence` `[cells, labels]` (σ of the heat map at 3 × 3 peaks, 0 elsewhere) and
/// `raw_coordinates` `[cells, 4]` (the box cut to the image, as centre and size). Layers: the backbone and head
/// convolutions, `upsample` (nearest ×2), `slice` along the channels, `activation` (sigmoid, ReLU), `pooling` (max
/// 3 × 3, stride 1, one pixel of padding: the heat map is positive, so padding never wins), `equal` and `multiply`
/// for the peak mask, `bias` (the cells' positions), `scale`, `add`, `concat`, `clip`, a 1 × 1 `convolution` from
/// corners to centre and size, then `permute` and `reshape` to one row per cell.
///
/// The suppression model keeps, per label (`perClass`), the best boxes scoring at least `confidenceThreshold`
/// (default: the model's stored threshold) whose IoU with a better kept box of that label is at most
/// `iouThreshold` (default `defaultIoUThreshold`). `detect` does not suppress: its 3 × 3 peaks already keep one box
/// per object, so the two agree on objects whose boxes of one label overlap less than that.
extension CoreMLExporter {
    /// The pipeline's outputs, Create ML's names.
    public static let confidenceOutputName = "confidence"
    /// Boxes as centre x, centre y, width, height, fractions of the image.
    public static let coordinatesOutputName = "coordinates"
    /// The suppression's default IoU threshold (Create ML's detectors default to 0.45).
    public static let defaultIoUThreshold = 0.45

    /// Exports a trained detector with the backbone rebuilt from its own `backboneTensors` (atomically).
    public static func export(detector: DetectorModelFile, to path: String) throws(ExportError) {
        try export(detector: detector, network: try ExportWriting.network(for: detector, path: path), to: path)
    }

    /// Exports a trained detector on top of `network` as a Core ML pipeline to `path` (atomically).
    public static func export(detector: DetectorModelFile, network: EfficientNetLite0, to path: String) throws(ExportError) {
        let plan = try DetectorExportPlan(model: detector, network: network, path: path)
        let scaling = try imageScaling(mean: plan.mean, standardDeviation: plan.standardDeviation, path: path)
        let side = Int64(plan.inputSide), cells = Int64(plan.cellCount), labelCount = Int64(plan.labels.count)
        let image = CoreML_Specification_FeatureDescription.with {
            $0.name = inputName
            $0.shortDescription = ExportMetadata.detectorPreprocessingSummary(detector.preprocessing, inputSide: plan.inputSide)
            $0.type.imageType = CoreML_Specification_ImageFeatureType.with {
                $0.width = side
                $0.height = side
                $0.colorSpace = .rgb
            }
        }
        func array(_ name: String, _ shape: [Int64], _ text: String) -> CoreML_Specification_FeatureDescription {
            CoreML_Specification_FeatureDescription.with {
                $0.name = name
                $0.shortDescription = text
                $0.type.multiArrayType = CoreML_Specification_ArrayFeatureType.with {
                    $0.shape = shape; $0.dataType = .double
                }
            }
        }
        func threshold(_ name: String, _ text: String) -> CoreML_Specification_FeatureDescription {
            CoreML_Specification_FeatureDescription.with {
                $0.name = name
                $0.shortDescription = text
                $0.type.doubleType = CoreML_Specification_DoubleFeatureType()
                $0.type.isOptional = true
            }
        }
        let rawConfidence = array("raw_confidence", [cells, labelCount], "Per cell and label: the heat map's probability at 3 x 3 peaks, else 0")
        let rawCoordinates = array("raw_coordinates", [cells, 4], "Per cell: centre x, centre y, width, height, fractions of the image")
        let iou = threshold(
            "iouThreshold", "Boxes of one label overlapping a better one by more than this IoU are dropped (default \(defaultIoUThreshold))")
        let confidence = threshold("confidenceThreshold", "Boxes scoring below this are dropped (default the model's \(plan.scoreThreshold))")
        let confidenceOutput = array(confidenceOutputName, [], "Per box, each label's score")
        let coordinatesOutput = array(coordinatesOutputName, [], "Per box: centre x, centre y, width, height, fractions of the image")

        var networkModel = CoreML_Specification_Model()
        networkModel.specificationVersion = specificationVersion
        networkModel.description_p = CoreML_Specification_ModelDescription.with {
            $0.input = [image]
            $0.output = [rawConfidence, rawCoordinates]
        }
        networkModel.neuralNetwork = CoreML_Specification_NeuralNetwork.with {
            $0.preprocessing = [scaling]
            $0.layers = detectorLayers(plan)
        }

        var suppression = CoreML_Specification_Model()
        suppression.specificationVersion = specificationVersion
        suppression.description_p = CoreML_Specification_ModelDescription.with {
            $0.input = [rawConfidence, rawCoordinates, iou, confidence]
            $0.output = [confidenceOutput, coordinatesOutput]
        }
        suppression.nonMaximumSuppression = CoreML_Specification_NonMaximumSuppression.with {
            $0.pickTop = CoreML_Specification_NonMaximumSuppression.PickTop.with { $0.perClass = true }
            $0.stringClassLabels = CoreML_Specification_StringVector.with { $0.vector = plan.labels }
            $0.iouThreshold = defaultIoUThreshold
            $0.confidenceThreshold = plan.scoreThreshold
            $0.confidenceInputFeatureName = rawConfidence.name
            $0.coordinatesInputFeatureName = rawCoordinates.name
            $0.iouThresholdInputFeatureName = iou.name
            $0.confidenceThresholdInputFeatureName = confidence.name
            $0.confidenceOutputFeatureName = confidenceOutputName
            $0.coordinatesOutputFeatureName = coordinatesOutputName
        }

        var specification = CoreML_Specification_Model()
        specification.specificationVersion = specificationVersion
        specification.description_p = CoreML_Specification_ModelDescription.with {
            $0.input = [image, iou, confidence]
            $0.output = [confidenceOutput, coordinatesOutput]
            $0.metadata = ExportMetadata.coreMLMetadata(
                shortDescription: "\(detector.backboneName) CenterNet object detector (\(plan.labels.count) labels, input "
                    + "\(plan.inputSide) px) trained with Workbench",
                creationDate: detector.creationDate, workbenchVersion: detector.workbenchVersion,
                userDefined: [
                    "kind": "detector",
                    "labels": ExportMetadata.labelsJSON(plan.labels),
                    "preprocessing": ExportMetadata.detectorPreprocessingJSON(detector.preprocessing, inputSide: plan.inputSide),
                    "input_side": String(plan.inputSide),
                    "score_threshold": String(describing: plan.scoreThreshold),
                    "iou_threshold": String(describing: defaultIoUThreshold),
                    "backbone": detector.backboneName,
                    "backbone_training": ExportMetadata.detectorBackboneTraining(detector),
                ])
        }
        specification.pipeline = CoreML_Specification_Pipeline.with {
            $0.models = [networkModel, suppression]
            $0.names = ["detector", "suppression"]
        }
        try ExportWriting.write(specification, format: "Core ML", to: path)
    }

    /// The network's layers: backbone, head, decoding to one row per cell.
    private static func detectorLayers(_ plan: DetectorExportPlan) -> [CoreML_Specification_NeuralNetworkLayer] {
        var layers = backboneLayers(plan.backbone)
        layers += convolutionLayers(plan.fineProjection, input: plan.fineMap, output: "detector.fine")
        layers += convolutionLayers(plan.coarseProjection, input: plan.coarseMap, output: "detector.coarse")
        layers.append(
            layer("detector.upsample", inputs: ["detector.coarse"], output: "detector.coarse_upsampled") {
                $0.upsample = CoreML_Specification_UpsampleLayerParams.with {
                    $0.scalingFactor = [2, 2]; $0.mode = .nn
                }
            })
        layers.append(
            layer("detector.merge", inputs: ["detector.fine", "detector.coarse_upsampled"], output: "detector.merged") {
                $0.add = CoreML_Specification_AddLayerParams()
            })
        layers.append(
            layer("detector.merge.relu6", inputs: ["detector.merged"], output: "detector.merged_activated") {
                $0.clip = CoreML_Specification_ClipLayerParams.with {
                    $0.minVal = 0; $0.maxVal = 6
                }
            })
        layers += convolutionLayers(plan.mixing, input: "detector.merged_activated", output: "detector.mixed")
        layers += convolutionLayers(plan.output, input: "detector.mixed", output: "detector.outputs")

        let labelCount = plan.labels.count
        for (name, start, end) in [
            ("detector.heat_logits", 0, labelCount), ("detector.size", labelCount, labelCount + 2),
            ("detector.offset", labelCount + 2, labelCount + 4),
        ] {
            layers.append(
                layer(name, inputs: ["detector.outputs"], output: name) {
                    $0.slice = CoreML_Specification_SliceLayerParams.with {
                        $0.startIndex = Int64(start); $0.endIndex = Int64(end); $0.stride = 1; $0.axis = .channelAxis
                    }
                })
        }
        layers.append(
            layer("detector.heat", inputs: ["detector.heat_logits"], output: "detector.heat") {
                $0.activation = CoreML_Specification_ActivationParams.with { $0.sigmoid = CoreML_Specification_ActivationSigmoid() }
            })
        layers.append(
            layer("detector.heat_max", inputs: ["detector.heat"], output: "detector.heat_max") {
                $0.pooling = CoreML_Specification_PoolingLayerParams.with {
                    $0.type = .max
                    $0.kernelSize = [3, 3]
                    $0.stride = [1, 1]
                    let edge = CoreML_Specification_BorderAmounts.EdgeSizes.with {
                        $0.startEdgeSize = 1; $0.endEdgeSize = 1
                    }
                    $0.valid.paddingAmounts.borderAmounts = [edge, edge]
                }
            })
        layers.append(
            layer("detector.peak", inputs: ["detector.heat", "detector.heat_max"], output: "detector.peak") {
                $0.equal = CoreML_Specification_EqualLayerParams()
            })
        layers.append(
            layer("detector.peak_scores", inputs: ["detector.heat", "detector.peak"], output: "detector.peak_scores") {
                $0.multiply = CoreML_Specification_MultiplyLayerParams()
            })

        // Boxes: centre (column + offset x, row + offset y) · 16 / S, half size max(0, size) · 8 / S.
        var position = [Float](repeating: 0, count: 2 * plan.cellCount)
        for row in 0..<plan.fineSide {
            for column in 0..<plan.fineSide {
                position[row * plan.fineSide + column] = Float(column)
                position[plan.cellCount + row * plan.fineSide + column] = Float(row)
            }
        }
        let cellScale = Float(DetectorExportPlan.stride) / Float(plan.inputSide)
        layers.append(
            layer("detector.centre_cells", inputs: ["detector.offset"], output: "detector.centre_cells") {
                $0.bias = CoreML_Specification_BiasLayerParams.with {
                    $0.shape = [2, UInt64(plan.fineSide), UInt64(plan.fineSide)]
                    $0.bias.floatValue = position
                }
            })
        func scaling(_ name: String, input: String, by factor: Float) -> CoreML_Specification_NeuralNetworkLayer {
            layer(name, inputs: [input], output: name) {
                $0.scale = CoreML_Specification_ScaleLayerParams.with {
                    $0.shapeScale = [1]; $0.scale.floatValue = [factor]
                }
            }
        }
        layers.append(scaling("detector.centre", input: "detector.centre_cells", by: cellScale))
        layers.append(
            layer("detector.size_positive", inputs: ["detector.size"], output: "detector.size_positive") {
                $0.activation = CoreML_Specification_ActivationParams.with { $0.reLu = CoreML_Specification_ActivationReLU() }
            })
        layers.append(scaling("detector.half_size", input: "detector.size_positive", by: cellScale / 2))
        layers.append(scaling("detector.negative_half_size", input: "detector.size_positive", by: -cellScale / 2))
        layers.append(
            layer("detector.top_left", inputs: ["detector.centre", "detector.negative_half_size"], output: "detector.top_left") {
                $0.add = CoreML_Specification_AddLayerParams()
            })
        layers.append(
            layer("detector.bottom_right", inputs: ["detector.centre", "detector.half_size"], output: "detector.bottom_right") {
                $0.add = CoreML_Specification_AddLayerParams()
            })
        layers.append(
            layer("detector.corners", inputs: ["detector.top_left", "detector.bottom_right"], output: "detector.corners") {
                $0.concat = CoreML_Specification_ConcatLayerParams()
            })
        layers.append(
            layer("detector.corners_inside", inputs: ["detector.corners"], output: "detector.corners_inside") {
                $0.clip = CoreML_Specification_ClipLayerParams.with {
                    $0.minVal = 0; $0.maxVal = 1
                }
            })
        // x1, y1, x2, y2 → centre x, centre y, width, height: a 1 × 1 convolution, [outputChannels, inputChannels].
        let centreAndSize = ExportPlan.Convolution(
            name: "detector.centre_and_size", inputChannels: 4, outputChannels: 4, groups: 1, kernelSize: 1, stride: 1,
            padding: .zero, weightsOIHW: [0.5, 0, 0.5, 0, 0, 0.5, 0, 0.5, -1, 0, 1, 0, 0, -1, 0, 1], bias: [0, 0, 0, 0], relu6: false)
        layers += convolutionLayers(centreAndSize, input: "detector.corners_inside", output: "detector.centre_and_size")

        // [channels, H, W] → [H, W, channels] → [1, cells, channels]: one row per cell (row · W + column).
        for (input, output, channels) in [
            ("detector.peak_scores", "raw_confidence", labelCount),
            ("detector.centre_and_size", "raw_coordinates", 4),
        ] {
            layers.append(
                layer(input + ".cells_first", inputs: [input], output: input + ".cells_first") {
                    // Axes of (sequence, channels, height, width).
                    $0.permute = CoreML_Specification_PermuteLayerParams.with { $0.axis = [0, 2, 3, 1] }
                })
            layers.append(
                layer(output, inputs: [input + ".cells_first"], output: output) {
                    $0.reshape = CoreML_Specification_ReshapeLayerParams.with {
                        $0.targetShape = [1, Int64(plan.cellCount), Int64(channels)]
                        $0.mode = .channelFirst
                    }
                })
        }
        return layers
    }
}
