import FileFormats
import Foundation
import SwiftProtobuf

/// Marks `FileError`s about a frozen TensorFlow graph that cannot be converted.
public enum DetectorConversionErrorDomain {}

/// A frozen graph that cannot be converted: the graph file and a one-line reason naming the node at fault.
public typealias DetectorConversionError = FileError<DetectorConversionErrorDomain>

/// A frozen TensorFlow 1 inference graph (a `GraphDef` protobuf) read through the schema subset in
/// `proto/tensorflow_graph_subset.proto`: its nodes by name and the values of its constants.
struct TensorFlowGraph {
    /// The graph file, named in every error.
    let path: String
    /// Every node by name.
    let nodes: [String: Tensorflow_NodeDef]

    /// Largest graph file read: the detector's is 12.9 MB; a file far larger is not one.
    static let maximumBytes = 256 * 1024 * 1024

    /// Reads and decodes `path`.
    init(path: String) throws(DetectorConversionError) {
        self.path = path
        let bytes: [UInt8]
        do {
            bytes = try InputFile.open(path: path, maximumBytes: Self.maximumBytes).readAll()
        } catch {
            throw DetectorConversionError(path: path, reason: error.reason)
        }
        let graph: Tensorflow_GraphDef
        do {
            graph = try Tensorflow_GraphDef(serializedBytes: bytes)
        } catch {
            throw DetectorConversionError(path: path, reason: "not a TensorFlow GraphDef: \(error)")
        }
        var nodes: [String: Tensorflow_NodeDef] = [:]
        for node in graph.node { nodes[node.name] = node }
        if nodes.isEmpty { throw DetectorConversionError(path: path, reason: "the graph has no nodes") }
        self.nodes = nodes
    }

    /// The node named `name`, or an error naming what it was wanted for.
    func node(_ name: String, for purpose: String) throws(DetectorConversionError) -> Tensorflow_NodeDef {
        guard let node = nodes[name] else {
            throw DetectorConversionError(path: path, reason: "no node \(name) (\(purpose))")
        }
        return node
    }

    /// The node an input reference names, with `:N` output suffixes dropped and `Identity` nodes (the frozen
    /// variables' `read` ops) followed to their source.
    func source(of input: String, for purpose: String) throws(DetectorConversionError) -> Tensorflow_NodeDef {
        var name = input.hasPrefix("^") ? String(input.dropFirst()) : input
        if let colon = name.lastIndex(of: ":") { name = String(name[..<colon]) }
        var node = try self.node(name, for: purpose)
        var hops = 0
        while node.op == "Identity", let first = node.input.first, hops < 16 {
            node = try self.node(first, for: purpose)
            hops += 1
        }
        return node
    }

    /// A constant's shape and values as Float (float and integer constants; `tensor_content` or the typed lists,
    /// a one-element list filling the whole shape as TensorFlow does).
    func constant(_ node: Tensorflow_NodeDef) throws(DetectorConversionError) -> (shape: [Int], values: [Float]) {
        guard node.op == "Const", let attribute = node.attr["value"], case .tensor(let tensor)? = attribute.value else {
            throw DetectorConversionError(path: path, reason: "node \(node.name) is a \(node.op), expected a constant")
        }
        let shape = tensor.tensorShape.dim.map { Int($0.size) }
        guard shape.allSatisfy({ $0 >= 0 && $0 < 1 << 28 }) else {
            throw DetectorConversionError(path: path, reason: "constant \(node.name) has shape \(shape)")
        }
        let count = shape.reduce(1, *)
        var values: [Float]
        switch tensor.dtype {
        case .dtFloat:
            if !tensor.tensorContent.isEmpty {
                guard tensor.tensorContent.count == count * 4 else {
                    throw DetectorConversionError(path: path, reason: "constant \(node.name): \(tensor.tensorContent.count) bytes for shape \(shape)")
                }
                values = tensor.tensorContent.withUnsafeBytes { raw in
                    (0..<count).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
                }
            } else {
                values = tensor.floatVal
            }
        case .dtInt32:
            if !tensor.tensorContent.isEmpty {
                guard tensor.tensorContent.count == count * 4 else {
                    throw DetectorConversionError(path: path, reason: "constant \(node.name): \(tensor.tensorContent.count) bytes for shape \(shape)")
                }
                values = tensor.tensorContent.withUnsafeBytes { raw in
                    (0..<count).map { Float(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self))) }
                }
            } else {
                values = tensor.intVal.map { Float($0) }
            }
        default:
            throw DetectorConversionError(path: path, reason: "constant \(node.name) has element type \(tensor.dtype), expected float or int32")
        }
        if values.count == 1 && count > 1 { values = Array(repeating: values[0], count: count) }
        guard values.count == count else {
            throw DetectorConversionError(path: path, reason: "constant \(node.name): \(values.count) values for shape \(shape)")
        }
        return (shape, values)
    }

    /// The value of a scalar (or one-element) constant named `name`.
    func scalar(_ name: String, for purpose: String) throws(DetectorConversionError) -> Float {
        let (_, values) = try constant(try source(of: name, for: purpose))
        guard values.count == 1 else {
            throw DetectorConversionError(path: path, reason: "constant \(name) (\(purpose)) has \(values.count) values, expected 1")
        }
        return values[0]
    }

    /// The scalar constant `name` as a whole number (a count or a size): refused when it is not one.
    func wholeScalar(_ name: String, for purpose: String) throws(DetectorConversionError) -> Int {
        let value = try scalar(name, for: purpose)
        guard let whole = WholeNumber.rounding(Double(value)), Float(whole) == value else {
            throw DetectorConversionError(path: path, reason: "constant \(name) (\(purpose)) is \(value), not a whole number")
        }
        return whole
    }

    /// The nodes that take `name`'s output as an input.
    func consumers(of name: String) -> [Tensorflow_NodeDef] {
        nodes.values.filter { node in node.input.contains { $0 == name || $0.hasPrefix(name + ":") } }
            .sorted { $0.name < $1.name }
    }
}
