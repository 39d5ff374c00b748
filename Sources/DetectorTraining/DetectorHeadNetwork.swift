import Models
import TensorCore
import TrainableLayers

/// The detector's head: a small CenterNet head over EfficientNet-Lite0's stride-16 and stride-32 maps.
///
/// ```text
/// fine   [N, Hf, Wf, 112] ─ 1×1 → C ───────────────┐
/// coarse [N, Hc, Wc, 320] ─ 1×1 → C ─ upsample ×2 ─┴─ + bias, ReLU6 ─ 3×3 C → C + bias, ReLU6
///                                                      ─ 1×1 C → labels + 4 + bias = outputs [N, Hf, Wf, labels + 4]
/// ```
/// The output's channels are, per cell, the labels' heat-map logits, then size (x, y) and offset (x, y) in cells
/// (`CenterNetHead`'s three maps, channel-last; `split` separates them). The convolutions are `TrainableLayers`'
/// (each a forward/backward pair beside its reference); the biases are `ChannelScaleBiasLayer`s whose scale stays 1
/// (only the bias trains). `forward`/`backward` run the fast kernels; `referenceForward`/`referenceBackward` the
/// references, in any precision, which the finite-difference checks run in Double.
public struct DetectorHeadNetwork<Scalar: BinaryFloatingPoint & Sendable>: Sendable {
    /// `[112, C]`: the stride-16 map to the head's width.
    public var fineProjection: PointwiseConvolutionLayer<Scalar>
    /// `[320, C]`: the stride-32 map to the head's width.
    public var coarseProjection: PointwiseConvolutionLayer<Scalar>
    /// `[C]`, after the sum of the two projections.
    public var mergeBias: ChannelScaleBiasLayer<Scalar>
    /// `[3, 3, C, C]`, stride 1, SAME padding.
    public var mixing: ConvolutionLayer<Scalar>
    /// `[C]`.
    public var mixingBias: ChannelScaleBiasLayer<Scalar>
    /// `[C, labels + 4]`.
    public var output: PointwiseConvolutionLayer<Scalar>
    /// `[labels + 4]`: the heat-map channels start at `initialHeatBias`, size and offset at 0.
    public var outputBias: ChannelScaleBiasLayer<Scalar>

    /// Labels (heat-map channels).
    public var labelCount: Int { output.outputChannels - 4 }
    /// The head's width C.
    public var width: Int { mixing.outputChannels }

    /// CenterNet's start for the heat map's bias, `−ln((1 − π)/π)` with π = 0.1 (the focal-loss paper's prior): an
    /// untrained head predicts few objects everywhere, so the first steps are not swamped by the background's loss.
    public static var initialHeatBias: Double { -2.19 }

    /// A head from its layers (the model file's tensors, or tests' own).
    public init(
        fineProjection: PointwiseConvolutionLayer<Scalar>, coarseProjection: PointwiseConvolutionLayer<Scalar>,
        mergeBias: ChannelScaleBiasLayer<Scalar>, mixing: ConvolutionLayer<Scalar>, mixingBias: ChannelScaleBiasLayer<Scalar>,
        output: PointwiseConvolutionLayer<Scalar>, outputBias: ChannelScaleBiasLayer<Scalar>
    ) {
        let width = mixing.outputChannels
        precondition(
            fineProjection.outputChannels == width && coarseProjection.outputChannels == width
                && mergeBias.channels == width && mixing.inputChannels == width && mixingBias.channels == width
                && output.inputChannels == width && outputBias.channels == output.outputChannels && output.outputChannels > 4,
            "DetectorHeadNetwork: layer channels")
        (self.fineProjection, self.coarseProjection, self.mergeBias) = (fineProjection, coarseProjection, mergeBias)
        (self.mixing, self.mixingBias, self.output, self.outputBias) = (mixing, mixingBias, output, outputBias)
    }

    /// A freshly initialised head: He-uniform weights (`±√(6 / fan-in)`, ReLU6 follows) from a seeded generator,
    /// the output layer's weights 100 times smaller (the start is the biases' prior), biases zero but the heat
    /// map's.
    public init(
        labelCount: Int, width: Int, fineChannels: Int = EfficientNetLite0.stride16Channels,
        coarseChannels: Int = EfficientNetLite0.stride32Channels, seed: UInt64
    ) {
        var random = SplitMix64(seed: seed)
        func uniform(_ shape: [Int], fanIn: Int, scale: Double = 1) -> Tensor<Scalar> {
            let bound = scale * (6 / Double(fanIn)).squareRoot()
            let values = (0..<shape.reduce(1, *)).map { _ in
                Scalar((Double(random.next() >> 11) / Double(1 << 53) * 2 - 1) * bound)
            }
            return Tensor(shape: shape, storage: values)
        }
        let outputs = labelCount + 4
        let bias = (0..<outputs).map { $0 < labelCount ? Scalar(Self.initialHeatBias) : 0 }
        self.init(
            fineProjection: PointwiseConvolutionLayer(weights: uniform([fineChannels, width], fanIn: fineChannels)),
            coarseProjection: PointwiseConvolutionLayer(weights: uniform([coarseChannels, width], fanIn: coarseChannels)),
            mergeBias: ChannelScaleBiasLayer(bias: Tensor(shape: [width])),
            mixing: ConvolutionLayer(weights: uniform([3, 3, width, width], fanIn: 9 * width), stride: 1),
            mixingBias: ChannelScaleBiasLayer(bias: Tensor(shape: [width])),
            output: PointwiseConvolutionLayer(weights: uniform([width, outputs], fanIn: width, scale: 0.01)),
            outputBias: ChannelScaleBiasLayer(bias: Tensor(shape: [outputs], storage: bias)))
    }

    /// The head in another precision.
    public func converted<Other: BinaryFloatingPoint & Sendable>(to _: Other.Type) -> DetectorHeadNetwork<Other> {
        DetectorHeadNetwork<Other>(
            fineProjection: fineProjection.converted(to: Other.self),
            coarseProjection: coarseProjection.converted(to: Other.self),
            mergeBias: mergeBias.converted(to: Other.self), mixing: mixing.converted(to: Other.self),
            mixingBias: mixingBias.converted(to: Other.self), output: output.converted(to: Other.self),
            outputBias: outputBias.converted(to: Other.self))
    }

    /// What the backward pass reads.
    public struct Cache: Sendable {
        let fineProjection: PointwiseConvolutionLayer<Scalar>.Cache
        let coarseProjection: PointwiseConvolutionLayer<Scalar>.Cache
        let coarseShape: [Int]
        let mergeBias: ChannelScaleBiasLayer<Scalar>.Cache
        let mergeActivation: ReLU6Layer<Scalar>.Cache
        let mixing: ConvolutionLayer<Scalar>.Cache
        let mixingBias: ChannelScaleBiasLayer<Scalar>.Cache
        let mixingActivation: ReLU6Layer<Scalar>.Cache
        let output: PointwiseConvolutionLayer<Scalar>.Cache
        let outputBias: ChannelScaleBiasLayer<Scalar>.Cache
    }

    /// Every parameter's gradient (the biases' scales are not parameters).
    public struct Gradients: Sendable, Equatable {
        /// `[112, C]`.
        public var fineProjection: Tensor<Scalar>
        /// `[320, C]`.
        public var coarseProjection: Tensor<Scalar>
        /// `[C]`.
        public var mergeBias: Tensor<Scalar>
        /// `[3, 3, C, C]`.
        public var mixing: Tensor<Scalar>
        /// `[C]`.
        public var mixingBias: Tensor<Scalar>
        /// `[C, labels + 4]`.
        public var output: Tensor<Scalar>
        /// `[labels + 4]`.
        public var outputBias: Tensor<Scalar>

        /// Adds another part of a batch's gradients.
        public static func += (left: inout Self, right: Self) {
            left.fineProjection += right.fineProjection
            left.coarseProjection += right.coarseProjection
            left.mergeBias += right.mergeBias
            left.mixing += right.mixing
            left.mixingBias += right.mixingBias
            left.output += right.output
            left.outputBias += right.outputBias
        }

        /// The gradients in the order and under the names `update` passes them.
        public var named: [(name: String, gradient: Tensor<Scalar>)] {
            [
                ("fineProjection.weights", fineProjection), ("coarseProjection.weights", coarseProjection),
                ("mergeBias.bias", mergeBias), ("mixing.weights", mixing), ("mixingBias.bias", mixingBias),
                ("output.weights", output), ("outputBias.bias", outputBias),
            ]
        }
    }

    /// Calls `rule` for each parameter with its gradient, by the names the model file stores them under.
    public mutating func update(with gradients: Gradients, _ rule: ParameterUpdate<Scalar>) {
        rule("fineProjection.weights", &fineProjection.weights, gradients.fineProjection)
        rule("coarseProjection.weights", &coarseProjection.weights, gradients.coarseProjection)
        rule("mergeBias.bias", &mergeBias.bias, gradients.mergeBias)
        rule("mixing.weights", &mixing.weights, gradients.mixing)
        rule("mixingBias.bias", &mixingBias.bias, gradients.mixingBias)
        rule("output.weights", &output.weights, gradients.output)
        rule("outputBias.bias", &outputBias.bias, gradients.outputBias)
    }

    /// The parameters by name (`update`'s names), for the model file.
    public var namedParameters: [(name: String, value: Tensor<Scalar>)] {
        [
            ("fineProjection.weights", fineProjection.weights), ("coarseProjection.weights", coarseProjection.weights),
            ("mergeBias.bias", mergeBias.bias), ("mixing.weights", mixing.weights), ("mixingBias.bias", mixingBias.bias),
            ("output.weights", output.weights), ("outputBias.bias", outputBias.bias),
        ]
    }

    private func upsampling(fine: Tensor<Scalar>) -> NearestUpsampling {
        NearestUpsampling(fineHeight: fine.nhwc.height, fineWidth: fine.nhwc.width)
    }

    /// The reference forward pass: fine `[N, Hf, Wf, 112]`, coarse `[N, Hc, Wc, 320]` → `[N, Hf, Wf, labels + 4]`.
    public func referenceForward(fine: Tensor<Scalar>, coarse: Tensor<Scalar>) -> (output: Tensor<Scalar>, cache: Cache) {
        let fineStep = fineProjection.referenceForward(fine, mode: .training)
        let coarseStep = coarseProjection.referenceForward(coarse, mode: .training)
        var merged = fineStep.output
        merged += upsampling(fine: fine).forward(coarseStep.output)
        let mergeBiasStep = mergeBias.referenceForward(merged, mode: .training)
        let mergeActivation = ReLU6Layer<Scalar>().referenceForward(mergeBiasStep.output, mode: .training)
        let mixingStep = mixing.referenceForward(mergeActivation.output, mode: .training)
        let mixingBiasStep = mixingBias.referenceForward(mixingStep.output, mode: .training)
        let mixingActivation = ReLU6Layer<Scalar>().referenceForward(mixingBiasStep.output, mode: .training)
        let outputStep = output.referenceForward(mixingActivation.output, mode: .training)
        let outputBiasStep = outputBias.referenceForward(outputStep.output, mode: .training)
        return (
            outputBiasStep.output,
            Cache(
                fineProjection: fineStep.cache!, coarseProjection: coarseStep.cache!, coarseShape: coarse.shape,
                mergeBias: mergeBiasStep.cache!, mergeActivation: mergeActivation.cache!, mixing: mixingStep.cache!,
                mixingBias: mixingBiasStep.cache!, mixingActivation: mixingActivation.cache!, output: outputStep.cache!,
                outputBias: outputBiasStep.cache!)
        )
    }

    /// The reference backward pass from the outputs' gradient.
    public func referenceBackward(_ outputGradient: Tensor<Scalar>, cache: Cache) -> Gradients {
        referenceBackward(outputGradient, cache: cache, computesCoarseGradient: false).gradients
    }

    /// The reference backward pass that also gives the gradient on the coarse input `[N, Hc, Wc, 320]` when
    /// `computesCoarseGradient` (fine-tuning: it flows on into the blocks that made the coarse map). The fine
    /// input's is never formed: the layers that make it stay frozen.
    public func referenceBackward(
        _ outputGradient: Tensor<Scalar>, cache: Cache,
        computesCoarseGradient: Bool
    ) -> (gradients: Gradients, coarse: Tensor<Scalar>?) {
        let outputBiasStep = outputBias.referenceBackward(outputGradient, cache: cache.outputBias)
        let outputStep = output.referenceBackward(outputBiasStep.input!, cache: cache.output)
        let mixingActivated = ReLU6Layer<Scalar>().referenceBackward(outputStep.input!, cache: cache.mixingActivation)
        let mixingBiasStep = mixingBias.referenceBackward(mixingActivated, cache: cache.mixingBias)
        let mixingStep = mixing.referenceBackward(mixingBiasStep.input!, cache: cache.mixing)
        let mergeActivated = ReLU6Layer<Scalar>().referenceBackward(mixingStep.input!, cache: cache.mergeActivation)
        let mergeBiasStep = mergeBias.referenceBackward(mergeActivated, cache: cache.mergeBias)
        let merged = mergeBiasStep.input!
        let fineStep = fineProjection.referenceBackward(merged, cache: cache.fineProjection, computesInputGradient: false)
        let coarseGradient = upsampling(fine: merged).backward(merged, coarseShape: cache.coarseShape.dropLast() + [width])
        let coarseStep = coarseProjection.referenceBackward(
            coarseGradient, cache: cache.coarseProjection,
            computesInputGradient: computesCoarseGradient)
        return (
            Gradients(
                fineProjection: fineStep.gradients.weights, coarseProjection: coarseStep.gradients.weights,
                mergeBias: mergeBiasStep.gradients.bias, mixing: mixingStep.gradients.weights,
                mixingBias: mixingBiasStep.gradients.bias, output: outputStep.gradients.weights,
                outputBias: outputBiasStep.gradients.bias), coarseStep.input
        )
    }
}

extension DetectorHeadNetwork where Scalar == Float {
    /// The fast forward pass (the layers' vector kernels), the same arithmetic steps as `referenceForward`.
    public func forward(fine: Tensor<Float>, coarse: Tensor<Float>, mode: ForwardMode) -> (output: Tensor<Float>, cache: Cache?) {
        let fineStep = fineProjection.forward(fine, mode: mode)
        let coarseStep = coarseProjection.forward(coarse, mode: mode)
        var merged = fineStep.output
        merged += upsampling(fine: fine).forward(coarseStep.output)
        let mergeBiasStep = mergeBias.forward(merged, mode: mode)
        let mergeActivation = ReLU6Layer<Float>().forward(mergeBiasStep.output, mode: mode)
        let mixingStep = mixing.forward(mergeActivation.output, mode: mode)
        let mixingBiasStep = mixingBias.forward(mixingStep.output, mode: mode)
        let mixingActivation = ReLU6Layer<Float>().forward(mixingBiasStep.output, mode: mode)
        let outputStep = output.forward(mixingActivation.output, mode: mode)
        let outputBiasStep = outputBias.forward(outputStep.output, mode: mode)
        guard mode == .training else { return (outputBiasStep.output, nil) }
        return (
            outputBiasStep.output,
            Cache(
                fineProjection: fineStep.cache!, coarseProjection: coarseStep.cache!, coarseShape: coarse.shape,
                mergeBias: mergeBiasStep.cache!, mergeActivation: mergeActivation.cache!, mixing: mixingStep.cache!,
                mixingBias: mixingBiasStep.cache!, mixingActivation: mixingActivation.cache!, output: outputStep.cache!,
                outputBias: outputBiasStep.cache!)
        )
    }

    /// The fast backward pass.
    public func backward(_ outputGradient: Tensor<Float>, cache: Cache) -> Gradients {
        backward(outputGradient, cache: cache, computesCoarseGradient: false).gradients
    }

    /// The fast backward pass, with the coarse input's gradient when `computesCoarseGradient` (as
    /// `referenceBackward(_:cache:computesCoarseGradient:)`).
    public func backward(
        _ outputGradient: Tensor<Float>, cache: Cache,
        computesCoarseGradient: Bool
    ) -> (gradients: Gradients, coarse: Tensor<Float>?) {
        let outputBiasStep = outputBias.backward(outputGradient, cache: cache.outputBias)
        let outputStep = output.backward(outputBiasStep.input!, cache: cache.output)
        let mixingActivated = ReLU6Layer<Float>().backward(outputStep.input!, cache: cache.mixingActivation)
        let mixingBiasStep = mixingBias.backward(mixingActivated, cache: cache.mixingBias)
        let mixingStep = mixing.backward(mixingBiasStep.input!, cache: cache.mixing)
        let mergeActivated = ReLU6Layer<Float>().backward(mixingStep.input!, cache: cache.mergeActivation)
        let mergeBiasStep = mergeBias.backward(mergeActivated, cache: cache.mergeBias)
        let merged = mergeBiasStep.input!
        let fineStep = fineProjection.backward(merged, cache: cache.fineProjection, computesInputGradient: false)
        let coarseGradient = upsampling(fine: merged).backward(merged, coarseShape: cache.coarseShape.dropLast() + [width])
        let coarseStep = coarseProjection.backward(
            coarseGradient, cache: cache.coarseProjection,
            computesInputGradient: computesCoarseGradient)
        return (
            Gradients(
                fineProjection: fineStep.gradients.weights, coarseProjection: coarseStep.gradients.weights,
                mergeBias: mergeBiasStep.gradients.bias, mixing: mixingStep.gradients.weights,
                mixingBias: mixingBiasStep.gradients.bias, output: outputStep.gradients.weights,
                outputBias: outputBiasStep.gradients.bias), coarseStep.input
        )
    }
}
