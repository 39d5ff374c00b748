/// What the head outputs for one picture, in `CenterNetGrid`'s layouts: heat-map logits (before the sigmoid),
/// sizes and offsets (both in cells).
public struct CenterNetOutputs<Scalar: BinaryFloatingPoint & Sendable>: Sendable, Equatable {
    /// `[height, width, labelCount]` logits.
    public var heatLogits: [Scalar]
    /// `[height, width, 2]`: box width and height in cells.
    public var size: [Scalar]
    /// `[height, width, 2]`: the centre's x and y offset inside its cell.
    public var offset: [Scalar]

    /// Outputs from their parts.
    public init(heatLogits: [Scalar], size: [Scalar], offset: [Scalar]) {
        self.heatLogits = heatLogits
        self.size = size
        self.offset = offset
    }
}

/// CenterNet's training objective `L = L_heat + λ_size·L_size + λ_offset·L_offset` ("Objects as Points", eq. 5:
/// λ_size = 0.1, λ_offset = 1), its parts, and its gradient with respect to each output map.
public struct CenterNetLoss<Scalar: BinaryFloatingPoint & Sendable>: Sendable {
    /// The weight of the size loss.
    public static var sizeWeight: Double { 0.1 }
    /// The weight of the offset loss.
    public static var offsetWeight: Double { 1 }

    /// The focal loss of the heat map.
    public var heat: Double
    /// The L1 loss of the sizes at the centre cells.
    public var size: Double
    /// The L1 loss of the offsets at the centre cells.
    public var offset: Double
    /// `∂L/∂outputs` of the weighted total.
    public var gradient: CenterNetOutputs<Scalar>

    /// The weighted total.
    public var total: Double { heat + Self.sizeWeight * size + Self.offsetWeight * offset }

    /// The loss of `outputs` against `targets` (same grid), with its gradient.
    public init(outputs: CenterNetOutputs<Scalar>, targets: CenterNetTargets) {
        let grid = targets.grid
        precondition(
            outputs.heatLogits.count == grid.heatMapCount && outputs.size.count == grid.cellCount * 2
                && outputs.offset.count == grid.cellCount * 2, "CenterNetLoss: outputs do not fit the targets' grid")
        let mask = targets.mask.map { Scalar($0) }
        let heatPart = FocalLoss.lossAndGradient(logits: outputs.heatLogits, targets: targets.heatMap.map { Scalar($0) })
        let sizePart = RegressionL1Loss.lossAndGradient(predicted: outputs.size, targets: targets.size.map { Scalar($0) }, mask: mask)
        let offsetPart = RegressionL1Loss.lossAndGradient(predicted: outputs.offset, targets: targets.offset.map { Scalar($0) }, mask: mask)
        heat = heatPart.loss
        size = sizePart.loss
        offset = offsetPart.loss
        gradient = CenterNetOutputs(
            heatLogits: heatPart.gradient,
            size: sizePart.gradient.map { $0 * Scalar(Self.sizeWeight) },
            offset: offsetPart.gradient.map { $0 * Scalar(Self.offsetWeight) })
    }
}
