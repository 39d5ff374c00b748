/// A dense tensor: a shape, the strides that address it and the storage that holds it.
///
/// **Layout.** Storage is row-major and contiguous: the last dimension varies fastest and `strides[i]` is the
/// product of `shape[(i + 1)...]`. Every activation in this module is NHWC, `[batch, height, width, channels]`,
/// so a pixel's channels are contiguous (a 1×1 convolution over a batch is one matrix product, a depthwise tap
/// one vector multiply-add); features and logits are `[batch, count]`. Weight layouts are stated on each layer.
///
/// `Scalar` is `Float` for the fast layers and may be `Double` for the naive references, which the gradient
/// checks run in double precision. A value type: copies share storage until one of them is written
/// (`TensorStorage`, whose large buffers are reused from step to step).
public struct Tensor<Scalar: BinaryFloatingPoint & Sendable>: Sendable, Equatable {
    /// Extent of each dimension.
    public let shape: [Int]
    /// Storage distance between neighbours along each dimension (row-major, contiguous).
    public let strides: [Int]
    /// The values, `shape.reduce(1, *)` of them, in row-major order.
    public var storage: TensorStorage<Scalar>

    /// A tensor holding `storage`, whose count must match `shape`.
    public init(shape: [Int], storage: TensorStorage<Scalar>) {
        precondition(shape.allSatisfy { $0 >= 0 }, "Tensor: negative dimension in \(shape)")
        precondition(storage.count == shape.reduce(1, *), "Tensor: \(storage.count) values for shape \(shape)")
        self.shape = shape
        self.strides = Self.rowMajorStrides(shape)
        self.storage = storage
    }

    /// A tensor holding a copy of `values`, whose count must match `shape`.
    public init(shape: [Int], storage values: [Scalar]) {
        self.init(shape: shape, storage: TensorStorage(values))
    }

    /// A tensor of `shape` filled with `value`.
    public init(shape: [Int], repeating value: Scalar = 0) {
        self.init(shape: shape, storage: TensorStorage(count: shape.reduce(1, *), repeating: value))
    }

    /// A tensor of `shape` whose every value `initializer` writes (for kernels that overwrite their output,
    /// which would otherwise pay for zeroing it first).
    public init(shape: [Int], unsafeUninitialized initializer: (UnsafeMutableBufferPointer<Scalar>) -> Void) {
        self.init(shape: shape, storage: TensorStorage(count: shape.reduce(1, *), unsafeUninitialized: initializer))
    }

    /// The values as an array (a copy).
    public var scalars: [Scalar] { storage.array }

    static func rowMajorStrides(_ shape: [Int]) -> [Int] {
        var strides = [Int](repeating: 1, count: shape.count)
        for axis in stride(from: shape.count - 2, through: 0, by: -1) { strides[axis] = strides[axis + 1] * shape[axis + 1] }
        return strides
    }

    /// Number of values.
    public var count: Int { storage.count }
    /// Number of dimensions.
    public var rank: Int { shape.count }

    /// The value at one multi-index (one index per dimension).
    public subscript(_ indices: Int...) -> Scalar {
        get { storage[offset(indices)] }
        set { storage[offset(indices)] = newValue }
    }

    private func offset(_ indices: [Int]) -> Int {
        precondition(indices.count == shape.count, "Tensor: \(indices.count) indices for shape \(shape)")
        var offset = 0
        for axis in indices.indices {
            precondition(indices[axis] >= 0 && indices[axis] < shape[axis], "Tensor: index \(indices) outside \(shape)")
            offset += indices[axis] * strides[axis]
        }
        return offset
    }

    /// The same values under another shape with the same count.
    public func reshaped(_ newShape: [Int]) -> Tensor {
        Tensor(shape: newShape, storage: storage)
    }

    /// The values converted to another precision (Float ↔ Double for the reference checks).
    public func converted<Other: BinaryFloatingPoint & Sendable>(to _: Other.Type = Other.self) -> Tensor<Other> {
        Tensor<Other>(shape: shape) { output in
            storage.withUnsafeBufferPointer { values in
                for index in values.indices { output[index] = Other(values[index]) }
            }
        }
    }

    /// Items `range` of the leading (batch) dimension, copied.
    public func batchSlice(_ range: Range<Int>) -> Tensor {
        precondition(rank >= 1 && range.lowerBound >= 0 && range.upperBound <= shape[0], "Tensor: batch slice \(range) of \(shape)")
        let itemCount = rank == 1 ? 1 : strides[0]
        return Tensor(shape: [range.count] + shape.dropFirst()) { output in
            output.baseAddress!.initialize(from: storage.baseAddress + range.lowerBound * itemCount, count: range.count * itemCount)
        }
    }

    /// Tensors of equal trailing shape stacked along the leading (batch) dimension, in order.
    public static func concatenatingBatches(_ parts: [Tensor]) -> Tensor {
        precondition(!parts.isEmpty, "Tensor: nothing to concatenate")
        let trailing = Array(parts[0].shape.dropFirst())
        precondition(parts.allSatisfy { Array($0.shape.dropFirst()) == trailing }, "Tensor: concatenated shapes differ")
        return Tensor(shape: [parts.reduce(0) { $0 + $1.shape[0] }] + trailing) { output in
            var offset = 0
            for part in parts {
                (output.baseAddress! + offset).initialize(from: part.storage.baseAddress, count: part.count)
                offset += part.count
            }
        }
    }

    /// Calls `body` with the contiguous storage.
    public func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<Scalar>) throws -> Result) rethrows -> Result {
        try storage.withUnsafeBufferPointer(body)
    }

    /// Calls `body` with the contiguous storage, writable.
    public mutating func withUnsafeMutableBufferPointer<Result>(
        _ body: (UnsafeMutableBufferPointer<Scalar>) throws -> Result
    ) rethrows -> Result {
        try storage.withUnsafeMutableBufferPointer { try body($0) }
    }

    /// Adds `other` (same shape) elementwise: used to sum gradients, always in the caller's fixed order.
    public static func += (left: inout Tensor, right: Tensor) {
        precondition(left.shape == right.shape, "Tensor: adding \(right.shape) to \(left.shape)")
        let source = right.storage.baseAddress
        left.storage.withUnsafeMutableBufferPointer { target in
            for index in target.indices { target[index] += source[index] }
        }
    }

    /// `[batch, height, width, channels]` of a rank-4 NHWC tensor (a programmer error otherwise).
    public var nhwc: (batch: Int, height: Int, width: Int, channels: Int) {
        precondition(rank == 4, "Tensor: expected an NHWC tensor, got shape \(shape)")
        return (shape[0], shape[1], shape[2], shape[3])
    }
}

/// Whether a forward pass keeps what its backward pass needs.
public enum ForwardMode: Sendable, Equatable {
    /// Output only; no cache is kept (what frozen layers and evaluation use).
    case inference
    /// Output and the cache the backward pass reads.
    case training
}
