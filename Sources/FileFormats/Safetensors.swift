import Foundation

/// Reading and writing the safetensors container: an 8-byte little-endian header length, a JSON header
/// mapping each tensor name to `{"dtype", "shape", "data_offsets": [begin, end]}` (offsets relative to the
/// byte after the header) plus an optional `"__metadata__"` object of string values, then the raw data.
///
/// Only F32 tensors are produced or accepted here; every check names the file and what is wrong.
public struct SafetensorsFile: Sendable {
    /// One named float tensor, row-major.
    public struct Tensor: Sendable, Equatable {
        public var shape: [Int]
        public var values: [Float]
        public init(shape: [Int], values: [Float]) {
            precondition(shape.reduce(1, *) == values.count, "Safetensors tensor: shape \(shape) does not hold \(values.count) values")
            self.shape = shape
            self.values = values
        }
    }

    /// Tensors by name.
    public var tensors: [String: Tensor]
    /// The `__metadata__` strings.
    public var metadata: [String: String]

    public init(tensors: [String: Tensor] = [:], metadata: [String: String] = [:]) {
        self.tensors = tensors
        self.metadata = metadata
    }

    /// The largest header accepted, so a corrupt length can't make the reader allocate gigabytes.
    public static let maximumHeaderBytes = 100 * 1024 * 1024

    /// The largest file `read` accepts: far above any EfficientNet-Lite0 model (about 20 MB), far below what
    /// would strain memory, since the file is read whole.
    public static let maximumFileBytes = 1 << 30

    /// Reads and parses a safetensors file. Only a regular file within `maximumFileBytes` is read (a FIFO or
    /// device is refused unopened, see `InputFile`).
    public static func read(path: String) throws(SafetensorsError) -> SafetensorsFile {
        try parse(try readBytes(path: path), path: path)
    }

    /// The bytes of the regular file at `path`, at most `maximumFileBytes` of them.
    public static func readBytes(path: String) throws(SafetensorsError) -> [UInt8] {
        do {
            return try InputFile.open(path: path, maximumBytes: maximumFileBytes).readAll()
        } catch {
            throw SafetensorsError(path: path, reason: error.reason)
        }
    }

    /// Parses safetensors bytes; `path` is used in error messages only.
    public static func parse(_ bytes: [UInt8], path: String) throws(SafetensorsError) -> SafetensorsFile {
        func fail(_ reason: String) -> SafetensorsError { SafetensorsError(path: path, reason: reason) }
        guard bytes.count >= 8 else { throw fail("file too short for a safetensors header (\(bytes.count) bytes)") }
        var headerLength: UInt64 = 0
        for index in 0..<8 { headerLength |= UInt64(bytes[index]) << (8 * UInt64(index)) }
        guard headerLength <= UInt64(maximumHeaderBytes), Int(headerLength) <= bytes.count - 8 else {
            throw fail("header length \(headerLength) exceeds the file size (\(bytes.count) bytes): truncated or not a safetensors file")
        }
        let dataStart = 8 + Int(headerLength)
        let headerBytes = Data(bytes[8..<dataStart])
        guard let header = try? JSONSerialization.jsonObject(with: headerBytes) as? [String: Any] else {
            throw fail("header is not a JSON object: not a safetensors file")
        }
        var file = SafetensorsFile()
        let dataLength = bytes.count - dataStart
        var ranges: [(name: String, begin: Int, end: Int)] = []
        for (name, entry) in header {
            if name == "__metadata__" {
                guard let strings = entry as? [String: String] else { throw fail("__metadata__ must map strings to strings") }
                file.metadata = strings
                continue
            }
            guard let entry = entry as? [String: Any],
                let dtype = entry["dtype"] as? String,
                let shape = entry["shape"] as? [Int],
                let offsets = entry["data_offsets"] as? [Int], offsets.count == 2
            else {
                throw fail("tensor '\(name)' has a malformed header entry")
            }
            guard dtype == "F32" else { throw fail("tensor '\(name)' has dtype \(dtype); only F32 is supported") }
            guard shape.allSatisfy({ $0 >= 0 }) else { throw fail("tensor '\(name)' has a negative dimension") }
            let (count, overflow) = shape.reduce((1, false)) { partial, dimension in
                let product = partial.0.multipliedReportingOverflow(by: dimension)
                return (product.partialValue, partial.1 || product.overflow)
            }
            // The byte count is checked too: a shape whose element count fits in Int can still overflow it at 4
            // bytes per element, and that trap killed the process on a 70-byte file.
            let (byteCount, byteOverflow) = count.multipliedReportingOverflow(by: MemoryLayout<Float>.size)
            guard !overflow, !byteOverflow else {
                throw fail("tensor '\(name)' has shape \(shape), too large for any file")
            }
            guard offsets[0] >= 0, offsets[1] >= offsets[0], offsets[1] <= dataLength else {
                throw fail("tensor '\(name)' points outside the file (offsets \(offsets), \(dataLength) data bytes): truncated?")
            }
            guard offsets[1] - offsets[0] == byteCount else {
                throw fail("tensor '\(name)' has shape \(shape) but \(offsets[1] - offsets[0]) bytes")
            }
            ranges.append((name, offsets[0], offsets[1]))
            var values = [Float](repeating: 0, count: count)
            values.withUnsafeMutableBytes { destination in
                bytes.withUnsafeBytes { source in
                    destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[(dataStart + offsets[0])..<(dataStart + offsets[1])]))
                }
            }
            // The format is little-endian; so is every machine Workbench runs on, but say so once.
            #if _endian(big)
                values = values.map { Float(bitPattern: $0.bitPattern.byteSwapped) }
            #endif
            // Weights are finite; one NaN or infinity would turn every result into NaN.
            if let index = values.firstIndex(where: { !$0.isFinite }) {
                throw fail("tensor '\(name)' holds \(values[index]) at index \(index): weights must be finite numbers")
            }
            file.tensors[name] = Tensor(shape: shape, values: values)
        }
        try checkLayout(ranges, dataLength: dataLength, path: path)
        return file
    }

    /// The tensors must tile the data exactly, as the format requires: no two share a byte, no byte is left over.
    private static func checkLayout(
        _ ranges: [(name: String, begin: Int, end: Int)], dataLength: Int,
        path: String
    ) throws(SafetensorsError) {
        func fail(_ reason: String) -> SafetensorsError { SafetensorsError(path: path, reason: reason) }
        let sorted = ranges.sorted { ($0.begin, $0.end, $0.name) < ($1.begin, $1.end, $1.name) }
        var covered = 0
        var previous: (name: String, begin: Int, end: Int)?
        for range in sorted {
            if range.begin < covered, let previous {
                throw fail(
                    "tensors '\(previous.name)' (data bytes \(previous.begin)..<\(previous.end)) and '\(range.name)' "
                        + "(\(range.begin)..<\(range.end)) overlap")
            }
            if range.begin > covered {
                throw fail("data bytes \(covered)..<\(range.begin) belong to no tensor (a gap before '\(range.name)')")
            }
            covered = range.end
            previous = range
        }
        if covered < dataLength {
            throw fail("data bytes \(covered)..<\(dataLength) after the last tensor belong to no tensor")
        }
    }

    /// The file's bytes: tensors sorted by name, so equal contents give identical bytes.
    public func serialized() -> [UInt8] {
        var entries: [(name: String, entry: SafetensorsHeader.Entry)] = []
        var offset = 0
        let names = tensors.keys.sorted()
        for name in names {
            let tensor = tensors[name]!
            let byteCount = tensor.values.count * 4
            entries.append((name, .init(shape: tensor.shape, dataOffsets: [offset, offset + byteCount])))
            offset += byteCount
        }
        let header = SafetensorsHeader(metadata: metadata.keys.sorted().map { ($0, metadata[$0]!) }, tensors: entries)
        let headerText: String
        do {
            headerText = try JSONWriter.text(header, layout: .line)
        } catch {
            // Strings and integers in fixed containers: the line layout has nothing that can fail.
            preconditionFailure("a safetensors header failed to encode: \(error)")
        }
        var headerBytes = Array(headerText.utf8)
        // Pad with spaces so the data starts 8-byte aligned, as the reference implementation does.
        while (8 + headerBytes.count) % 8 != 0 { headerBytes.append(0x20) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + headerBytes.count + offset)
        let length = UInt64(headerBytes.count)
        for index in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: length >> (8 * UInt64(index)))) }
        bytes += headerBytes
        for name in names {
            tensors[name]!.values.withUnsafeBytes { bytes += $0 }
        }
        return bytes
    }

    /// Writes the file atomically: a temporary file in the same folder, then a rename.
    public func write(path: String) throws(SafetensorsError) {
        do {
            try AtomicFile.write(serialized(), to: path)
        } catch {
            throw SafetensorsError(path: path, reason: error.reason)
        }
    }
}

/// Marks `FileError`s raised by `Safetensors`.
public enum SafetensorsErrorDomain {}

/// A safetensors file that cannot be read or written: "path: reason".
public typealias SafetensorsError = FileError<SafetensorsErrorDomain>

/// A safetensors header as `JSONWriter`'s line layout writes it: `__metadata__` first (when there is any, its keys
/// in the order given), then each tensor's `{"dtype":"F32","shape":[…],"data_offsets":[begin,end]}` in the order given.
private struct SafetensorsHeader: Encodable {
    /// One tensor's entry.
    struct Entry: Encodable {
        var shape: [Int]
        var dataOffsets: [Int]

        private enum CodingKeys: String, CodingKey {
            case dtype, shape, dataOffsets = "data_offsets"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("F32", forKey: .dtype)
            try container.encode(shape, forKey: .shape)
            try container.encode(dataOffsets, forKey: .dataOffsets)
        }
    }

    var metadata: [(key: String, value: String)]
    var tensors: [(name: String, entry: Entry)]

    private struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Name.self)
        if !metadata.isEmpty {
            var members = container.nestedContainer(keyedBy: Name.self, forKey: Name("__metadata__"))
            for (key, value) in metadata { try members.encode(value, forKey: Name(key)) }
        }
        for (name, entry) in tensors { try container.encode(entry, forKey: Name(name)) }
    }
}
