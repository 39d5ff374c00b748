/// The head's output grid over a network input: `width × height` cells of `stride × stride` input pixels, and one
/// heat-map channel per label.
///
/// **Layouts** (channel-last, as the backbone's NHWC activations, one picture): the heat map is
/// `[height, width, labelCount]`, the size and offset maps `[height, width, 2]` (x then y), the mask
/// `[height, width]`. Cell (x, y) covers input pixels `[x·stride, (x + 1)·stride) × [y·stride, (y + 1)·stride)`;
/// an object whose centre is at input pixel (cx, cy) belongs to cell `(⌊cx / stride⌋, ⌊cy / stride⌋)` with the
/// sub-cell offset `(cx / stride − ⌊cx / stride⌋, …)`, and its size is kept in cells (input pixels / stride), as
/// CenterNet's reference code keeps it.
public struct CenterNetGrid: Sendable, Equatable {
    /// Cells across.
    public var width: Int
    /// Cells down.
    public var height: Int
    /// Input pixels per cell, along each axis (16 or 32 on EfficientNet-Lite0's features).
    public var stride: Int
    /// Heat-map channels: one per label.
    public var labelCount: Int

    /// A grid from its parts; every part must be positive (the caller's own numbers, not a file's).
    public init(width: Int, height: Int, stride: Int, labelCount: Int) {
        precondition(width > 0 && height > 0 && stride > 0 && labelCount > 0, "CenterNetGrid: empty grid")
        self.width = width
        self.height = height
        self.stride = stride
        self.labelCount = labelCount
    }

    /// The grid over an `inputWidth × inputHeight` input: `⌈side / stride⌉` cells a side, as a stride-`stride`
    /// network's "same"-padded features have.
    public init(inputWidth: Int, inputHeight: Int, stride: Int, labelCount: Int) {
        self.init(
            width: (inputWidth + stride - 1) / stride, height: (inputHeight + stride - 1) / stride, stride: stride,
            labelCount: labelCount)
    }

    /// Cells in the grid.
    public var cellCount: Int { width * height }
    /// Values in the heat map.
    public var heatMapCount: Int { cellCount * labelCount }
}
