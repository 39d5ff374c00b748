import Synchronization

/// The values of a tensor: a contiguous buffer, shared between copies until one of them is written (copy on
/// write, like `Array`). Large buffers come from and go back to `TensorMemory`'s reuse pool, so the activations
/// of one training step land in the memory the previous step freed instead of in fresh pages.
public struct TensorStorage<Scalar: BinaryFloatingPoint & Sendable>: RandomAccessCollection, MutableCollection, Sendable, Equatable {
    var buffer: TensorBuffer<Scalar>

    /// `count` copies of `value`.
    public init(count: Int, repeating value: Scalar) {
        buffer = TensorBuffer(count: count)
        buffer.pointer.initialize(repeating: value, count: count)
    }

    /// The values of `array`.
    public init(_ array: [Scalar]) {
        buffer = TensorBuffer(count: array.count)
        array.withUnsafeBufferPointer { buffer.pointer.initialize(from: $0.baseAddress!, count: array.count) }
    }

    /// `count` values that `initializer` writes, every one of them.
    public init(count: Int, unsafeUninitialized initializer: (UnsafeMutableBufferPointer<Scalar>) throws -> Void) rethrows {
        buffer = TensorBuffer(count: count)
        try initializer(UnsafeMutableBufferPointer(start: buffer.pointer, count: count))
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of values.
    public var endIndex: Int { buffer.count }

    /// The value at `index`.
    public subscript(index: Int) -> Scalar {
        get {
            precondition(index >= 0 && index < buffer.count, "TensorStorage: index \(index) outside 0..<\(buffer.count)")
            return buffer.pointer[index]
        }
        set {
            precondition(index >= 0 && index < buffer.count, "TensorStorage: index \(index) outside 0..<\(buffer.count)")
            makeUnique()
            buffer.pointer[index] = newValue
        }
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&buffer) {
            let copy = TensorBuffer<Scalar>(count: buffer.count)
            copy.pointer.initialize(from: buffer.pointer, count: buffer.count)
            buffer = copy
        }
    }

    /// Calls `body` with the values.
    public func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<Scalar>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: buffer.pointer, count: buffer.count))
    }

    /// Calls `body` with the values, writable (copied first if another tensor shares them).
    public mutating func withUnsafeMutableBufferPointer<Result>(
        _ body: (UnsafeMutableBufferPointer<Scalar>) throws -> Result
    ) rethrows -> Result {
        makeUnique()
        return try body(UnsafeMutableBufferPointer(start: buffer.pointer, count: buffer.count))
    }

    /// The values as an array (one copy, not one element at a time).
    public var array: [Scalar] {
        [Scalar](unsafeUninitializedCapacity: buffer.count) { target, initialized in
            target.baseAddress!.initialize(from: buffer.pointer, count: buffer.count)
            initialized = buffer.count
        }
    }

    /// The first value's address, for kernels that only read.
    var baseAddress: UnsafePointer<Scalar> { UnsafePointer(buffer.pointer) }

    /// Equal counts and equal values (a shared buffer without comparing).
    public static func == (left: Self, right: Self) -> Bool {
        guard left.count == right.count else { return false }
        if left.buffer === right.buffer { return true }
        for index in 0..<left.count where left.buffer.pointer[index] != right.buffer.pointer[index] { return false }
        return true
    }
}

/// One allocation of `count` values; its memory goes back to `TensorMemory` when the last tensor using it is gone.
/// Written only through `TensorStorage`, which copies before writing unless it holds the only reference.
final class TensorBuffer<Scalar: BinaryFloatingPoint & Sendable>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Scalar>
    let count: Int

    init(count: Int) {
        precondition(count >= 0, "TensorBuffer: negative count")
        self.count = count
        pointer = TensorMemory.allocate(byteCount: max(1, count) * MemoryLayout<Scalar>.stride).bindMemory(to: Scalar.self, capacity: count)
    }

    deinit { TensorMemory.release(UnsafeMutableRawPointer(pointer), byteCount: max(1, count) * MemoryLayout<Scalar>.stride) }
}

/// Where tensors get their memory. Buffers of at least `pooledMinimum` bytes are kept when freed, by size, and
/// handed out again for the next request of that size: a training step allocates the same sizes as the step
/// before, and on the machines Workbench runs on a fresh page costs far more than the arithmetic done in it
/// (measured on a 2-vCPU VM: 0.8 GB/s for freshly mapped memory against 13 GB/s for memory written before).
/// At most `pooledLimit` bytes wait in the pool; `releaseCachedMemory` empties it.
public enum TensorMemory {
    /// Smaller buffers go straight to and from the system allocator (which reuses them well).
    static let pooledMinimum = 256 * 1024
    /// Sizes are rounded up to this step so that nearly equal requests share buffers.
    static let sizeStep = 64 * 1024
    /// The most the pool keeps; beyond this, freed buffers go back to the system.
    static let pooledLimit = 4 << 30
    /// Cache-line (and AVX-512 register) alignment.
    static let alignment = 64

    private struct Pool {
        /// Free buffers by rounded byte count, as addresses.
        var free: [Int: [UInt]] = [:]
        var bytes = 0
    }

    private static let pool = Mutex(Pool())

    private static func rounded(_ byteCount: Int) -> Int {
        byteCount < pooledMinimum ? byteCount : (byteCount + sizeStep - 1) / sizeStep * sizeStep
    }

    static func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        let size = rounded(byteCount)
        if size >= pooledMinimum {
            let reused = pool.withLock { pool -> UInt? in
                guard let address = pool.free[size]?.popLast() else { return nil }
                pool.bytes -= size
                return address
            }
            if let reused, let pointer = UnsafeMutableRawPointer(bitPattern: reused) { return pointer }
        }
        return UnsafeMutableRawPointer.allocate(byteCount: size, alignment: alignment)
    }

    static func release(_ pointer: UnsafeMutableRawPointer, byteCount: Int) {
        let size = rounded(byteCount)
        if size >= pooledMinimum {
            let kept = pool.withLock { pool -> Bool in
                guard pool.bytes + size <= pooledLimit else { return false }
                pool.free[size, default: []].append(UInt(bitPattern: pointer))
                pool.bytes += size
                return true
            }
            if kept { return }
        }
        pointer.deallocate()
    }

    /// Bytes waiting in the pool for reuse.
    public static var cachedBytes: Int { pool.withLock { $0.bytes } }

    /// Gives every pooled buffer back to the system (after training, say).
    public static func releaseCachedMemory() {
        let addresses = pool.withLock { pool -> [UInt] in
            defer { pool = Pool() }
            return pool.free.values.flatMap { $0 }
        }
        for address in addresses { UnsafeMutableRawPointer(bitPattern: address)?.deallocate() }
    }
}
