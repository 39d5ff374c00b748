import Foundation
import ImageCodecs

/// The rectangle of a random resized crop, chosen by torchvision's `RandomResizedCrop` rule: up to 10 tries of an
/// area share uniform in the policy's range and an aspect ratio log-uniform in its range, rounded to whole pixels;
/// the first that fits is placed uniformly at random. When none fits (a thin image, a tiny one), the largest
/// centred rectangle whose aspect ratio is clamped into the range is taken instead.
public enum RandomResizedCrop {
    /// How many random rectangles are tried before the centred fallback.
    public static let attempts = 10

    /// A rectangle inside a `width × height` image (both ≥ 1), at least 1 × 1; `isFallback` says no try fitted.
    public static func rectangle(
        width: Int, height: Int, crop: AugmentationPolicy.Crop, random: inout AugmentationRandom
    ) -> (region: PixelRegion, isFallback: Bool) {
        precondition(width > 0 && height > 0, "a crop needs an image with pixels")
        let area = Double(width) * Double(height)
        let logRatioRange = (log(crop.minimumAspectRatio), log(crop.maximumAspectRatio))
        for _ in 0..<attempts {
            let targetArea = area * random.uniform(crop.minimumArea, crop.maximumArea)
            let ratio = exp(random.uniform(logRatioRange.0, logRatioRange.1))
            let cropWidth = Int((targetArea * ratio).squareRoot().rounded())
            let cropHeight = Int((targetArea / ratio).squareRoot().rounded())
            if cropWidth > 0 && cropWidth <= width && cropHeight > 0 && cropHeight <= height {
                let left = Int(random.next() % UInt64(width - cropWidth + 1))
                let top = Int(random.next() % UInt64(height - cropHeight + 1))
                return (PixelRegion(left: left, top: top, width: cropWidth, height: cropHeight), false)
            }
        }
        let imageRatio = Double(width) / Double(height)
        var cropWidth = width, cropHeight = height
        if imageRatio < crop.minimumAspectRatio {
            cropHeight = Int((Double(width) / crop.minimumAspectRatio).rounded())
        } else if imageRatio > crop.maximumAspectRatio {
            cropWidth = Int((Double(height) * crop.maximumAspectRatio).rounded())
        }
        cropWidth = min(max(cropWidth, 1), width)
        cropHeight = min(max(cropHeight, 1), height)
        return (
            PixelRegion(
                left: (width - cropWidth) / 2, top: (height - cropHeight) / 2,
                width: cropWidth, height: cropHeight), true
        )
    }
}
