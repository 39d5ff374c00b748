/// How a weights file's tensors differ from the names and shapes its reader expects: every missing, unused and
/// wrong-shape tensor. The one strict comparison every weights file goes through (the pretrained backbone's, the
/// person detector's, the backbone inside a model file); each reader words the refusal for its own file.
public struct TensorMismatch: Sendable, Equatable {
    /// A tensor that is there with another shape.
    public struct WrongShape: Sendable, Equatable {
        /// The tensor's name.
        public let name: String
        /// The shape the file holds.
        public let shape: [Int]
        /// The shape the reader expects.
        public let expected: [Int]

        /// A tensor `name` of `shape` where `expected` was.
        public init(name: String, shape: [Int], expected: [Int]) {
            (self.name, self.shape, self.expected) = (name, shape, expected)
        }
    }

    /// Expected tensors the file lacks, sorted.
    public let missing: [String]
    /// Tensors the file holds that nothing reads, sorted.
    public let unused: [String]
    /// Expected tensors of another shape, by name.
    public let wrongShapes: [WrongShape]

    /// The differences between `tensors` and `expected` (name → shape); nil when the file holds exactly the expected
    /// tensors with their shapes.
    public init?(tensors: [String: SafetensorsFile.Tensor], expected: [String: [Int]]) {
        missing = expected.keys.filter { tensors[$0] == nil }.sorted()
        unused = tensors.keys.filter { expected[$0] == nil }.sorted()
        wrongShapes = expected.keys.sorted().compactMap { name in
            guard let tensor = tensors[name], tensor.shape != expected[name]! else { return nil }
            return WrongShape(name: name, shape: tensor.shape, expected: expected[name]!)
        }
        if missing.isEmpty && unused.isEmpty && wrongShapes.isEmpty { return nil }
    }

    /// One line naming them all: "missing tensors: a, b; unused tensors: c; wrong shapes: d is [1, 2], expected [2, 1]",
    /// each list cut short after `limit` names ("… and 12 more"), since a wholly different file would name hundreds.
    public func summary(limit: Int = 8) -> String {
        var problems: [String] = []
        if !missing.isEmpty { problems.append("missing tensors: " + Self.abbreviated(missing, limit: limit)) }
        if !unused.isEmpty { problems.append("unused tensors: " + Self.abbreviated(unused, limit: limit)) }
        if !wrongShapes.isEmpty {
            let shapes = wrongShapes.map { "\($0.name) is \($0.shape), expected \($0.expected)" }
            problems.append("wrong shapes: " + Self.abbreviated(shapes, limit: limit))
        }
        return problems.joined(separator: "; ")
    }

    /// `items` joined by commas, the first `limit` of them and a count of the rest.
    static func abbreviated(_ items: [String], limit: Int) -> String {
        if items.count <= limit { return items.joined(separator: ", ") }
        return items.prefix(limit).joined(separator: ", ") + " and \(items.count - limit) more"
    }
}
