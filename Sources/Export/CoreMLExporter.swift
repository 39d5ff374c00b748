import Augmentation
import Foundation
import ModelFiles
import Models

/// Writes a Workbench classifier as a Core ML neural-network classifier (`.mlmodel`, specification version 4,
/// iOS 13 / macOS 10.15).
///
/// Input `image`: an RGB image of 224 × 224 (Core ML hands the network `[3, 224, 224]` pixels 0…255); the
/// model's image scaler applies `(pixel − mean) / std`. Layers: convolutions with explicit (asymmetric)
/// border amounts for TensorFlow SAME, depthwise ones as grouped convolutions (`nGroups` = channels), ReLU6 as
/// `clip(0, 6)`, `add` for residuals, global average pooling, `innerProduct` (standardisation folded in), a
/// diagonal `innerProduct` multiplying by `1 / temperature` (calibration) and `softmax`. Outputs: `classLabel` (string) and `classLabelProbs` (label → probability).
public enum CoreMLExporter {
    /// Core ML specification version written: 4 is the first with `clip` layers (iOS 13).
    public static let specificationVersion: Int32 = 4
    /// Name of the image input.
    public static let inputName = "image"
    /// Name of the predicted-label output.
    public static let labelOutputName = "classLabel"
    /// Name of the label → probability output.
    public static let probabilitiesOutputName = "classLabelProbs"

    /// Exports `model` with the backbone rebuilt from its own `backboneTensors` (atomically; nothing is left
    /// behind on failure).
    public static func export(model: ModelFile, to path: String) throws(ExportError) {
        try export(model: model, network: try ExportWriting.network(for: model, path: path), to: path)
    }

    /// Exports `model`'s head on top of `network` to `path` (atomically; nothing is left behind on failure).
    public static func export(model: ModelFile, network: EfficientNetLite0, to path: String) throws(ExportError) {
        let plan = try ExportPlan(model: model, network: network, path: path)
        var classifier = CoreML_Specification_NeuralNetworkClassifier()
        classifier.preprocessing = [try imageScaling(mean: plan.mean, standardDeviation: plan.standardDeviation, path: path)]
        classifier.layers = layers(plan)
        classifier.stringClassLabels = CoreML_Specification_StringVector.with { $0.vector = plan.labels }
        classifier.labelProbabilityLayerName = probabilitiesOutputName

        var specification = CoreML_Specification_Model()
        specification.specificationVersion = specificationVersion
        specification.description_p = description(model: model, plan: plan)
        specification.neuralNetworkClassifier = classifier

        try ExportWriting.write(specification, format: "Core ML", to: path)
    }

    private static func description(model: ModelFile, plan: ExportPlan) -> CoreML_Specification_ModelDescription {
        CoreML_Specification_ModelDescription.with {
            $0.input = [
                CoreML_Specification_FeatureDescription.with {
                    $0.name = inputName
                    $0.shortDescription = ExportMetadata.preprocessingSummary(model.preprocessing)
                    $0.type.imageType = CoreML_Specification_ImageFeatureType.with {
                        $0.width = Int64(EfficientNetLite0.inputSide)
                        $0.height = Int64(EfficientNetLite0.inputSide)
                        $0.colorSpace = .rgb
                    }
                }
            ]
            $0.output = [
                CoreML_Specification_FeatureDescription.with {
                    $0.name = labelOutputName
                    $0.shortDescription = "The most probable class"
                    $0.type.stringType = CoreML_Specification_StringFeatureType()
                },
                CoreML_Specification_FeatureDescription.with {
                    $0.name = probabilitiesOutputName
                    $0.shortDescription = "Probability of each class"
                    $0.type.dictionaryType = CoreML_Specification_DictionaryFeatureType.with {
                        $0.stringKeyType = CoreML_Specification_StringFeatureType()
                    }
                },
            ]
            $0.predictedFeatureName = labelOutputName
            $0.predictedProbabilitiesName = probabilitiesOutputName
            $0.metadata = ExportMetadata.coreMLMetadata(
                shortDescription: "\(model.backboneName) image classifier (\(plan.labels.count) classes) trained with "
                    + "Workbench; backbone: \(ExportMetadata.backboneTraining(model))",
                creationDate: model.creationDate, workbenchVersion: model.workbenchVersion,
                userDefined: [
                    "labels": ExportMetadata.labelsJSON(plan.labels),
                    "preprocessing": ExportMetadata.preprocessingJSON(model.preprocessing),
                    "backbone": model.backboneName,
                    "backbone_training": ExportMetadata.backboneTraining(model),
                    "temperature": String(describing: model.temperature),
                ].merging(plan.confidenceThreshold.map { ["confidence_threshold": String(describing: $0)] } ?? [:]) { first, _ in first }
                    .merging(ExportMetadata.fineTuningJSON(model).map { ["fine_tuning": $0] } ?? [:]) { first, _ in first }
                    .merging([
                        "test_time_augmentation": ExportMetadata.testTimeAugmentation(
                            model.testTimeAugmentation.byDefault ? TestTimeViews(mirrors: model.testTimeAugmentation.mirrors) : nil,
                            carried: false)
                    ]) { first, _ in first })
        }
    }

    /// The network's layers; Core ML tensors are `[channels, height, width]` per image.
    private static func layers(_ plan: ExportPlan) -> [CoreML_Specification_NeuralNetworkLayer] {
        var layers = backboneLayers(plan.steps)
        layers.append(
            layer("pool", inputs: [plan.featureMap], output: "features") {
                $0.pooling = CoreML_Specification_PoolingLayerParams.with {
                    $0.type = .average
                    $0.globalPooling = true
                    $0.valid = CoreML_Specification_ValidPadding()
                }
            })
        layers.append(
            layer("classifier", inputs: ["features"], output: "logits") {
                $0.innerProduct = CoreML_Specification_InnerProductLayerParams.with {
                    $0.inputChannels = UInt64(EfficientNetLite0.featureCount)
                    $0.outputChannels = UInt64(plan.labels.count)
                    $0.hasBias_p = true
                    // [outputChannels, inputChannels], row-major, as the plan holds it.
                    $0.weights.floatValue = plan.classifierWeights
                    $0.bias.floatValue = plan.classifierBias
                }
            })
        // Calibration: softmax(logits / temperature), as Workbench computes the probabilities.
        // A diagonal inner product keeps it a layer of its own (visible in the spec) with the layer kinds already used.
        let classCount = plan.labels.count
        var diagonal = [Float](repeating: 0, count: classCount * classCount)
        for index in 0..<classCount { diagonal[index * classCount + index] = Float(1 / plan.temperature) }
        layers.append(
            layer("calibration", inputs: ["logits"], output: "calibrated_logits") {
                $0.innerProduct = CoreML_Specification_InnerProductLayerParams.with {
                    $0.inputChannels = UInt64(classCount)
                    $0.outputChannels = UInt64(classCount)
                    $0.hasBias_p = false
                    $0.weights.floatValue = diagonal
                }
            })
        layers.append(
            layer("softmax", inputs: ["calibrated_logits"], output: probabilitiesOutputName) {
                $0.softmax = CoreML_Specification_SoftmaxLayerParams()
            })
        return layers
    }

    /// The backbone's steps as layers: convolutions (ReLU6 as a `clip` after), `add` for residuals; the scaled
    /// image is read under the input's own name.
    static func backboneLayers(_ steps: [ExportPlan.Step]) -> [CoreML_Specification_NeuralNetworkLayer] {
        var layers: [CoreML_Specification_NeuralNetworkLayer] = []
        // Core ML feeds the scaled image under the input's own name.
        let rename = { (name: String) in name == ExportPlan.normalizedInput ? inputName : name }
        for step in steps {
            switch step {
            case let .convolution(convolution, input, output):
                layers += convolutionLayers(convolution, input: rename(input), output: output)
            case let .add(first, second, output, name):
                layers.append(
                    layer(name, inputs: [rename(first), rename(second)], output: output) {
                        $0.add = CoreML_Specification_AddLayerParams()
                    })
            }
        }
        return layers
    }

    /// One convolution, and its ReLU6 as a `clip` layer when it has one.
    static func convolutionLayers(
        _ convolution: ExportPlan.Convolution, input: String,
        output: String
    ) -> [CoreML_Specification_NeuralNetworkLayer] {
        let linear = convolution.relu6 ? convolution.name + ".linear" : output
        var layers = [
            layer(convolution.name, inputs: [input], output: linear) {
                $0.convolution = convolutionParameters(convolution)
            }
        ]
        if convolution.relu6 {
            layers.append(
                layer(convolution.name + ".relu6", inputs: [linear], output: output) {
                    $0.clip = CoreML_Specification_ClipLayerParams.with {
                        $0.minVal = 0; $0.maxVal = 6
                    }
                })
        }
        return layers
    }

    private static func convolutionParameters(_ convolution: ExportPlan.Convolution) -> CoreML_Specification_ConvolutionLayerParams {
        let kernel = UInt64(convolution.kernelSize), stride = UInt64(convolution.stride)
        let padding = convolution.padding
        return CoreML_Specification_ConvolutionLayerParams.with {
            $0.outputChannels = UInt64(convolution.outputChannels)
            $0.kernelChannels = UInt64(convolution.inputChannels / convolution.groups)
            $0.nGroups = UInt64(convolution.groups)
            $0.kernelSize = [kernel, kernel]
            $0.stride = [stride, stride]
            $0.dilationFactor = [1, 1]
            // Border amounts: height first, then width.
            $0.valid.paddingAmounts.borderAmounts = [
                CoreML_Specification_BorderAmounts.EdgeSizes.with {
                    $0.startEdgeSize = UInt64(padding.top); $0.endEdgeSize = UInt64(padding.bottom)
                },
                CoreML_Specification_BorderAmounts.EdgeSizes.with {
                    $0.startEdgeSize = UInt64(padding.left); $0.endEdgeSize = UInt64(padding.right)
                },
            ]
            $0.hasBias_p = true
            // [outputChannels, kernelChannels, kernelHeight, kernelWidth]: the plan's OIHW.
            $0.weights.floatValue = convolution.weightsOIHW
            $0.bias.floatValue = convolution.bias
        }
    }

    static func layer(
        _ name: String, inputs: [String], output: String,
        configure: (inout CoreML_Specification_NeuralNetworkLayer) -> Void
    ) -> CoreML_Specification_NeuralNetworkLayer {
        var layer = CoreML_Specification_NeuralNetworkLayer()
        layer.name = name
        layer.input = inputs
        layer.output = [output]
        configure(&layer)
        return layer
    }

    /// The image input's normalisation as Core ML's image scaler: `(pixel − mean) / std` as one scale and a bias per
    /// channel. The scaler has one scale for all channels, so a preprocessing with per-channel deviations is refused.
    static func imageScaling(mean: [Float], standardDeviation: [Float], path: String)
        throws(ExportError) -> CoreML_Specification_NeuralNetworkPreprocessing
    {
        guard Set(standardDeviation).count == 1 else {
            throw ExportError(
                path: path,
                reason: "Core ML's image scaler needs one standard deviation for all channels, "
                    + "the model has \(standardDeviation)")
        }
        let scale = 1 / standardDeviation[0]
        return CoreML_Specification_NeuralNetworkPreprocessing.with {
            $0.featureName = inputName
            $0.scaler = CoreML_Specification_NeuralNetworkImageScaler.with {
                $0.channelScale = scale
                $0.redBias = -mean[0] * scale
                $0.greenBias = -mean[1] * scale
                $0.blueBias = -mean[2] * scale
            }
        }
    }
}
