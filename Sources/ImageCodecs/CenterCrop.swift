/// The reference preprocessing's square centre crop: the crop that `Resize(outputSide + padding)` followed by
/// `CenterCrop(outputSide)` selects, expressed on the original image.
///
/// Side `c = Int(outputSide / (outputSide + padding) · min(H, W))` in double precision, at least 1;
/// top `((H − c) + 1) / 2`, left `((W − c) + 1) / 2`, rounding half up like the reference.
public struct CenterCrop: Sendable, Equatable {
    /// First column of the crop.
    public let left: Int
    /// First row of the crop.
    public let top: Int
    /// Width and height of the crop.
    public let side: Int

    /// The crop for a `width × height` image. An image 1 pixel wide or high (where the rule gives 0) keeps a
    /// 1-pixel crop, so every image with pixels has something to resize; an image with no pixels gets side 0.
    /// `ImagePreprocessing.centerCrop(width:height:)` passes the model's recipe.
    public init(width: Int, height: Int, outputSide: Int, padding: Int) {
        precondition(width >= 0 && height >= 0 && outputSide > 0 && padding >= 0)
        let ratio = Double(outputSide) / Double(outputSide + padding)
        let shorter = min(width, height)
        let side = shorter > 0 ? max(1, Int(ratio * Double(shorter))) : 0
        self.side = side
        self.top = ((height - side) + 1) / 2
        self.left = ((width - side) + 1) / 2
    }

    /// A crop at an explicit place, e.g. to resize a region chosen elsewhere.
    public init(left: Int, top: Int, side: Int) {
        precondition(left >= 0 && top >= 0 && side >= 0)
        self.left = left
        self.top = top
        self.side = side
    }
}
