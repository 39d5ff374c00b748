import Foundation

/// Which augmentations a training run applies and how strongly: Create ML's set (random resized crop, horizontal
/// flip, small rotation, exposure and contrast, blur, noise). A transform that is `nil` (or `flip == false`) is off;
/// with everything off (`AugmentationPolicy.none`) a view is exactly the model's own preprocessing.
public struct AugmentationPolicy: Codable, Sendable, Equatable {
    /// Random resized crop: a rectangle covering a random share of the image's area, with a random aspect ratio,
    /// stretched to the network's square input (torchvision's `RandomResizedCrop` rule, 10 tries, then a centred
    /// fallback).
    public struct Crop: Codable, Sendable, Equatable {
        /// The smallest share of the image's area a crop covers, in (0, 1].
        public var minimumArea: Double
        /// The largest share, in [minimumArea, 1].
        public var maximumArea: Double
        /// The narrowest crop's width / height, > 0.
        public var minimumAspectRatio: Double
        /// The widest crop's width / height, ≥ minimumAspectRatio.
        public var maximumAspectRatio: Double

        /// A crop with the given ranges.
        public init(minimumArea: Double, maximumArea: Double, minimumAspectRatio: Double, maximumAspectRatio: Double) {
            self.minimumArea = minimumArea
            self.maximumArea = maximumArea
            self.minimumAspectRatio = minimumAspectRatio
            self.maximumAspectRatio = maximumAspectRatio
        }

        /// 35–100 % of the area, aspect ratio 3/4 to 4/3: milder than torchvision's 8 % floor, because a
        /// classifier trained from few images loses the object in a crop that small.
        public static let standard = Crop(
            minimumArea: 0.35, maximumArea: 1, minimumAspectRatio: 3.0 / 4.0,
            maximumAspectRatio: 4.0 / 3.0)
    }

    /// Exposure and contrast: `v · 2^e` with e uniform in ±`maximumStops`, then `(v − m) · c + m` with m the
    /// image's mean luminance and c uniform in 1 ± `maximumContrastChange`; clamped to 0...255.
    public struct Color: Codable, Sendable, Equatable {
        /// The largest exposure change in stops (EV), in [0, 2].
        public var maximumStops: Double
        /// The largest relative contrast change, in [0, 0.9].
        public var maximumContrastChange: Double

        /// A colour change with the given ranges.
        public init(maximumStops: Double, maximumContrastChange: Double) {
            self.maximumStops = maximumStops
            self.maximumContrastChange = maximumContrastChange
        }

        /// ±0.5 stop, ±25 % contrast.
        public static let standard = Color(maximumStops: 0.5, maximumContrastChange: 0.25)
    }

    /// Gaussian blur with probability `probability`, its standard deviation uniform in (0, maximumSigma] pixels
    /// of the network's input; the kernel reaches 3σ, edges replicated.
    public struct Blur: Codable, Sendable, Equatable {
        /// The share of views blurred, in [0, 1].
        public var probability: Double
        /// The largest standard deviation in pixels, in (0, 5].
        public var maximumSigma: Double

        /// A blur with the given probability and strength.
        public init(probability: Double, maximumSigma: Double) {
            self.probability = probability
            self.maximumSigma = maximumSigma
        }

        /// A quarter of the views, σ up to 1.5 pixels.
        public static let standard = Blur(probability: 0.25, maximumSigma: 1.5)
    }

    /// Additive Gaussian noise with probability `probability`, its standard deviation uniform in
    /// (0, maximumStandardDeviation] levels of 0...255, independent per sample; clamped to 0...255.
    public struct Noise: Codable, Sendable, Equatable {
        /// The share of views with noise, in [0, 1].
        public var probability: Double
        /// The largest standard deviation in 8-bit levels, in (0, 64].
        public var maximumStandardDeviation: Double

        /// Noise with the given probability and strength.
        public init(probability: Double, maximumStandardDeviation: Double) {
            self.probability = probability
            self.maximumStandardDeviation = maximumStandardDeviation
        }

        /// A quarter of the views, σ up to 8 levels.
        public static let standard = Noise(probability: 0.25, maximumStandardDeviation: 8)
    }

    /// The transforms by name, as the command line spells them.
    public enum Transform: String, CaseIterable, Codable, Sendable {
        case crop, flip, rotate, color, blur, noise
    }

    /// Random resized crop; nil takes the model's centre crop.
    public var crop: Crop?
    /// Mirror left–right with probability 1/2 (off for digits and text, where a mirror is another symbol).
    public var flip: Bool
    /// Rotation by an angle uniform in ±this many degrees, in (0, 45]; nil is none.
    public var maximumRotationDegrees: Double?
    /// Exposure and contrast; nil is none.
    public var color: Color?
    /// Blur; nil is none.
    public var blur: Blur?
    /// Noise; nil is none.
    public var noise: Noise?

    /// A policy with the given transforms.
    public init(
        crop: Crop? = nil, flip: Bool = false, maximumRotationDegrees: Double? = nil, color: Color? = nil,
        blur: Blur? = nil, noise: Noise? = nil
    ) {
        self.crop = crop
        self.flip = flip
        self.maximumRotationDegrees = maximumRotationDegrees
        self.color = color
        self.blur = blur
        self.noise = noise
    }

    /// Nothing: every view is the model's preprocessing of the image.
    public static let none = AugmentationPolicy()

    /// The standard strength of each named transform (rotation ±10°), the others off.
    public init(transforms: Set<Transform>) {
        self.init(
            crop: transforms.contains(.crop) ? .standard : nil,
            flip: transforms.contains(.flip),
            maximumRotationDegrees: transforms.contains(.rotate) ? Self.standardRotationDegrees : nil,
            color: transforms.contains(.color) ? .standard : nil,
            blur: transforms.contains(.blur) ? .standard : nil,
            noise: transforms.contains(.noise) ? .standard : nil)
    }

    /// The default rotation range, ±10°.
    public static let standardRotationDegrees = 10.0

    /// The default for fine-tuning and for `--augment`: every transform at its standard strength.
    public static let fineTuningDefault = AugmentationPolicy(transforms: Set(Transform.allCases))

    /// The transforms that are on, in the order they are applied.
    public var transforms: [Transform] {
        var list: [Transform] = []
        if crop != nil { list.append(.crop) }
        if flip { list.append(.flip) }
        if maximumRotationDegrees != nil { list.append(.rotate) }
        if color != nil { list.append(.color) }
        if blur != nil { list.append(.blur) }
        if noise != nil { list.append(.noise) }
        return list
    }

    /// Whether every view is the plain preprocessing.
    public var isNone: Bool { transforms.isEmpty }

    /// One line for reports and progress: each transform with its range, or "none".
    public var describe: String {
        func number(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.3g", value)
        }
        var parts: [String] = []
        if let crop {
            parts.append(
                "crop \(number(crop.minimumArea * 100))–\(number(crop.maximumArea * 100)) % of the area, "
                    + "aspect \(number(crop.minimumAspectRatio))–\(number(crop.maximumAspectRatio))")
        }
        if flip { parts.append("horizontal flip") }
        if let maximumRotationDegrees { parts.append("rotate ±\(number(maximumRotationDegrees))°") }
        if let color {
            parts.append("exposure ±\(number(color.maximumStops)) stop, contrast ±\(number(color.maximumContrastChange * 100)) %")
        }
        if let blur {
            parts.append("blur σ ≤ \(number(blur.maximumSigma)) px on \(number(blur.probability * 100)) %")
        }
        if let noise {
            parts.append("noise σ ≤ \(number(noise.maximumStandardDeviation)) levels on \(number(noise.probability * 100)) %")
        }
        return parts.isEmpty ? "none" : parts.joined(separator: "; ")
    }

    /// Checks every range (a policy decoded from JSON or built by hand may hold anything).
    public func validate() throws(AugmentationError) {
        func require(_ condition: Bool, _ reason: String) throws(AugmentationError) {
            if !condition { throw AugmentationError(path: nil, reason: "augmentation policy: " + reason) }
        }
        if let crop {
            try require(
                crop.minimumArea > 0 && crop.minimumArea <= crop.maximumArea && crop.maximumArea <= 1,
                "crop area range must satisfy 0 < minimum ≤ maximum ≤ 1 (got \(crop.minimumArea)...\(crop.maximumArea))")
            try require(
                crop.minimumAspectRatio > 0 && crop.minimumAspectRatio <= crop.maximumAspectRatio
                    && crop.maximumAspectRatio <= 10,
                "crop aspect ratio range must satisfy 0 < minimum ≤ maximum ≤ 10 (got \(crop.minimumAspectRatio)...\(crop.maximumAspectRatio))")
        }
        if let maximumRotationDegrees {
            try require(
                maximumRotationDegrees > 0 && maximumRotationDegrees <= 45,
                "rotation must be in (0, 45] degrees (got \(maximumRotationDegrees))")
        }
        if let color {
            try require(
                color.maximumStops >= 0 && color.maximumStops <= 2,
                "exposure must be in [0, 2] stops (got \(color.maximumStops))")
            try require(
                color.maximumContrastChange >= 0 && color.maximumContrastChange <= 0.9,
                "contrast change must be in [0, 0.9] (got \(color.maximumContrastChange))")
        }
        if let blur {
            try require((0...1).contains(blur.probability), "blur probability must be in [0, 1] (got \(blur.probability))")
            try require(blur.maximumSigma > 0 && blur.maximumSigma <= 5, "blur σ must be in (0, 5] pixels (got \(blur.maximumSigma))")
        }
        if let noise {
            try require((0...1).contains(noise.probability), "noise probability must be in [0, 1] (got \(noise.probability))")
            try require(
                noise.maximumStandardDeviation > 0 && noise.maximumStandardDeviation <= 64,
                "noise σ must be in (0, 64] levels (got \(noise.maximumStandardDeviation))")
        }
    }

    /// Parses a comma-separated list of transform names (`crop,flip,rotate,color,blur,noise`, or `all`, or `none`),
    /// with the reason in the error when a name is unknown or repeated.
    public static func transforms(parsing text: String) throws(AugmentationError) -> Set<Transform> {
        let names = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if names == ["all"] { return Set(Transform.allCases) }
        if names == ["none"] { return [] }
        var chosen: Set<Transform> = []
        for name in names {
            guard let transform = Transform(rawValue: name) else {
                let known = Transform.allCases.map(\.rawValue).joined(separator: ", ")
                throw AugmentationError(path: nil, reason: "unknown augmentation '\(name)' (known: \(known), or all, or none)")
            }
            guard chosen.insert(transform).inserted else {
                throw AugmentationError(path: nil, reason: "augmentation '\(name)' is listed twice")
            }
        }
        return chosen
    }
}
