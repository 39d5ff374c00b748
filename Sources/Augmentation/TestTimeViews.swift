import ImageCodecs

/// The fixed views of test-time augmentation (`--tta`): a model's answers on every view of an image are
/// averaged, which evens out where the object sits and which way it faces.
///
/// The views are taken from the network's `inputSide × inputSide` image (the model's preprocessing: decoded,
/// composited, centre-cropped and resized), in this order:
/// 1. the image itself;
/// 2. its centre `cropFraction` (`7/8`: 196 of 224 pixels, 14 off each side), resized back to `inputSide` by the
///    preprocessing's own resampler (`Resize.bicubic`, through `AugmentedView.render`), a closer look;
/// 3. and 4. (only when `mirrors`) views 1 and 2 mirrored left–right. The crop is centred, so mirroring before or
///    after it gives the same pixels.
///
/// Nothing is random: equal images give equal views. A model trained with `--no-flip` records that it must not
/// be mirrored (`TestTimeAugmentationRecord.mirrors`), and its views are 1 and 2 only. The network runs once per
/// view, so `--tta` costs `count` times the network work of a plain answer.
public struct TestTimeViews: Sendable, Equatable {
    /// Whether views 3 and 4 (the mirrored ones) are included.
    public var mirrors: Bool

    /// The share of the input's side that the centre crop keeps: 7/8, as in the 87.5 % crop of ImageNet
    /// evaluation.
    public static let cropFraction = 0.875

    /// The views of a model whose record allows mirroring (`mirrors`) or not.
    public init(mirrors: Bool) { self.mirrors = mirrors }

    /// How many views each image gives (4 with mirrors, 2 without).
    public var count: Int { mirrors ? 4 : 2 }

    /// The centre crop of view 2 on an `inputSide × inputSide` image: side `Int(inputSide · cropFraction)`, at
    /// `(inputSide − side) / 2` from the top and the left.
    public static func centerRegion(inputSide: Int) -> PixelRegion {
        let side = Int(Double(inputSide) * cropFraction)
        let offset = (inputSide - side) / 2
        return PixelRegion(left: offset, top: offset, width: side, height: side)
    }

    /// Each view's crop (nil: the whole input) and mirroring, in view order.
    public func parameters(inputSide: Int) -> [ViewParameters] {
        let whole = ViewParameters(policy: .none, seed: 0, epoch: 0, image: 0, width: inputSide, height: inputSide)
        var closer = whole
        closer.crop = Self.centerRegion(inputSide: inputSide)
        guard mirrors else { return [whole, closer] }
        var mirrored = whole, mirroredCloser = closer
        mirrored.flipped = true
        mirroredCloser.flipped = true
        return [whole, closer, mirrored, mirroredCloser]
    }

    /// Writes the `count` network inputs of `image` (decoded; cropped and resized here unless it already is the
    /// input size) to `destination`, `[count, inputSide, inputSide, 3]`, normalised as `preprocessing` says.
    public func render(
        _ image: RGBImage, preprocessing: ImagePreprocessing, into destination: UnsafeMutablePointer<Float>
    ) {
        let square = preprocessing.inputImage(from: image)
        // No view draws noise; the stream is only there because `render` takes one.
        let unused = AugmentationRandom(seed: 0, epoch: 0, image: 0, transform: .noise, substream: 1)
        for (index, view) in parameters(inputSide: preprocessing.inputSide).enumerated() {
            AugmentedView.render(
                square, parameters: view, noiseRandom: unused, preprocessing: preprocessing,
                into: destination + index * preprocessing.inputCount)
        }
    }

    /// The `count` network inputs of `image` as a new array, `[count, inputSide, inputSide, 3]`.
    public func render(_ image: RGBImage, preprocessing: ImagePreprocessing) -> [Float] {
        let total = count * preprocessing.inputCount
        return [Float](unsafeUninitializedCapacity: total) { buffer, initialised in
            render(image, preprocessing: preprocessing, into: buffer.baseAddress!)
            initialised = total
        }
    }

    /// The mean over views of already-computed rows: `values` is `[images · count, width]` (each image's views
    /// together, in view order), the result `[images, width]`. For probabilities this is the documented rule: the
    /// mean of each view's `softmax(logits / temperature)`.
    public func average(_ values: [Float], width: Int) -> [Float] {
        let images = values.count / (count * width)
        var result = [Float](repeating: 0, count: images * width)
        for image in 0..<images {
            for view in 0..<count {
                let row = (image * count + view) * width
                for column in 0..<width { result[image * width + column] += values[row + column] }
            }
            for column in 0..<width { result[image * width + column] /= Float(count) }
        }
        return result
    }
}
