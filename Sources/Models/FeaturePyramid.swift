/// EfficientNet-Lite0's two maps a detector head reads, for a batch of square inputs (`featurePyramid`).
///
/// Layouts, NHWC: `fine` `[batch, fineSide, fineSide, 112]` (stride 16: the input of the first stride-32 block),
/// `coarse` `[batch, coarseSide, coarseSide, 320]` (stride 32: the last block's output, before the 1×1 head).
/// For a 320-pixel input the sides are 20 and 10.
public struct FeaturePyramid: Sendable, Equatable {
    /// Images in the batch.
    public let batch: Int
    /// Side of the square input the maps were computed from.
    public let inputSide: Int
    /// Side of the stride-16 map.
    public let fineSide: Int
    /// `[batch, fineSide, fineSide, EfficientNetLite0.stride16Channels]`.
    public let fine: [Float]
    /// Side of the stride-32 map.
    public let coarseSide: Int
    /// `[batch, coarseSide, coarseSide, EfficientNetLite0.stride32Channels]`.
    public let coarse: [Float]

    /// Maps from their parts; the counts must agree with the sides (the network's own output).
    public init(batch: Int, inputSide: Int, fineSide: Int, fine: [Float], coarseSide: Int, coarse: [Float]) {
        precondition(
            fine.count == batch * fineSide * fineSide * EfficientNetLite0.stride16Channels
                && coarse.count == batch * coarseSide * coarseSide * EfficientNetLite0.stride32Channels,
            "FeaturePyramid: map sizes")
        self.batch = batch
        self.inputSide = inputSide
        self.fineSide = fineSide
        self.fine = fine
        self.coarseSide = coarseSide
        self.coarse = coarse
    }

    /// Floats of one image's two maps together (`fine` then `coarse`), the layout the feature cache stores.
    public var floatsPerImage: Int {
        (fineSide * fineSide * EfficientNetLite0.stride16Channels + coarseSide * coarseSide * EfficientNetLite0.stride32Channels)
    }

    /// Image `index`'s maps, `fine` then `coarse`, as one array.
    public func packed(image index: Int) -> [Float] {
        let fineFloats = fineSide * fineSide * EfficientNetLite0.stride16Channels
        let coarseFloats = coarseSide * coarseSide * EfficientNetLite0.stride32Channels
        return Array(fine[(index * fineFloats)..<((index + 1) * fineFloats)])
            + Array(coarse[(index * coarseFloats)..<((index + 1) * coarseFloats)])
    }
}
