/// Encodes an `Encodable` value as one line of compact JSON, its members in the order the value encodes them.
///
/// Foundation's `JSONEncoder` either sorts object keys or writes them in hash order, and writes `0.0` as `0`; JSON
/// Lines output (`classify --json`, `features --json`, `label --json`) keeps the order a person reads best (path
/// first, the long vectors last) and spells numbers as `JSONText` does: Swift's shortest round-trip form, `null` for
/// NaN and infinities. Strings are quoted by `JSONText.quoted`. A synthesised `encode(to:)` encodes in declaration
/// order and leaves out nil optionals; a value that needs members named at run time (label → probability) encodes
/// them through a keyed container with its own `CodingKey`, in the order it chooses.
///
/// `JSONWriter`'s `line` and `document` layouts: `Layout.line` for JSON Lines and safetensors headers,
/// `Layout.document` for a small file a person reads and edits (a phase file). Callers go through `JSONWriter`.
struct JSONLineEncoder {
    /// How the text is laid out.
    enum Layout: Sendable {
        /// One line, no spaces: `{"a":1,"b":[1,2]}`.
        case line
        /// A top-level object with a member a line (two spaces in); an array of objects inside it with an element
        /// a line (four spaces in), each element on one line with `", "` and `": "` between its parts; other
        /// arrays on one line. Ends with a line feed.
        case document
    }

    /// The layout this encoder writes.
    var layout: Layout
    /// The scalars strings and keys write as `\uXXXX` (`JSONText.quoted(_:escapingAsUnicode:)`); none by default.
    var escapesAsUnicode: @Sendable (Unicode.Scalar) -> Bool

    /// An encoder writing `layout` (by default one line), escaping what `escapesAsUnicode` says besides JSON's own.
    init(layout: Layout = .line, escapesAsUnicode: @escaping @Sendable (Unicode.Scalar) -> Bool = { _ in false }) {
        self.layout = layout
        self.escapesAsUnicode = escapesAsUnicode
    }

    /// `value` as JSON in `layout`: a line without a trailing newline, or a document ending with one.
    func encode<Value: Encodable>(_ value: Value) throws -> String {
        let root = JSONLineNode(quote: { [escapesAsUnicode] in JSONText.quoted($0, escapingAsUnicode: escapesAsUnicode) })
        try value.encode(to: JSONLineNodeEncoder(node: root, codingPath: []))
        var text = ""
        switch layout {
        case .line: root.write(into: &text)
        case .document:
            root.writeDocument(into: &text)
            text += "\n"
        }
        return text
    }
}

/// A value being built: a literal, or an object or array whose members are filled in as they are encoded.
private final class JSONLineNode {
    enum Content {
        case empty
        case literal(String)
        case object([(key: String, value: JSONLineNode)])
        case array([JSONLineNode])
    }

    var content = Content.empty
    /// How strings and keys are quoted: `JSONText.quoted` with the encoder's escapes.
    let quote: (String) -> String

    init(quote: @escaping (String) -> String) { self.quote = quote }

    func write(into text: inout String) {
        switch content {
        case .empty: text += "null"
        case .literal(let literal): text += literal
        case .object(let members):
            text += "{"
            for (offset, member) in members.enumerated() {
                if offset > 0 { text += "," }
                text += quote(member.key) + ":"
                member.value.write(into: &text)
            }
            text += "}"
        case .array(let elements):
            text += "["
            for (offset, element) in elements.enumerated() {
                if offset > 0 { text += "," }
                element.write(into: &text)
            }
            text += "]"
        }
    }

    /// One line with a space after each `,` and `:`, as a document's innermost values are written.
    func writeSpaced(into text: inout String) {
        switch content {
        case .object(let members):
            text +=
                "{"
                + members.map { member in
                    var value = ""
                    member.value.writeSpaced(into: &value)
                    return quote(member.key) + ": " + value
                }.joined(separator: ", ") + "}"
        case .array(let elements):
            text +=
                "["
                + elements.map { element in
                    var value = ""
                    element.writeSpaced(into: &value)
                    return value
                }.joined(separator: ", ") + "]"
        default: write(into: &text)
        }
    }

    /// `Layout.document`: members of a top-level object a line each, arrays of objects an element a line.
    func writeDocument(into text: inout String) {
        guard case .object(let members) = content else { return writeSpaced(into: &text) }
        text +=
            "{\n"
            + members.map { member in
                var value = ""
                if case .array(let elements) = member.value.content, !elements.isEmpty,
                    elements.allSatisfy({ if case .object = $0.content { true } else { false } })
                {
                    value =
                        "[\n"
                        + elements.map { element in
                            var line = "    "
                            element.writeSpaced(into: &line)
                            return line
                        }.joined(separator: ",\n") + "\n  ]"
                } else {
                    member.value.writeSpaced(into: &value)
                }
                return "  " + quote(member.key) + ": " + value
            }.joined(separator: ",\n") + "\n}"
    }

    /// Becomes an object (if it is not one yet) and adds an empty member.
    func addMember(_ key: String) -> JSONLineNode {
        let node = JSONLineNode(quote: quote)
        if case .object(var members) = content {
            members.append((key, node))
            content = .object(members)
        } else {
            content = .object([(key, node)])
        }
        return node
    }

    /// Becomes an array (if it is not one yet) and adds an empty element.
    func addElement() -> JSONLineNode {
        let node = JSONLineNode(quote: quote)
        if case .array(var elements) = content {
            elements.append(node)
            content = .array(elements)
        } else {
            content = .array([node])
        }
        return node
    }

    var count: Int {
        switch content {
        case .object(let members): members.count
        case .array(let elements): elements.count
        default: 0
        }
    }

    /// Stores a value: numbers and strings as `JSONText` writes them, anything else through its own `encode(to:)`.
    func store<Value: Encodable>(_ value: Value, codingPath: [any CodingKey]) throws {
        switch value {
        case let string as String: content = .literal(quote(string))
        case let number as JSONWriter.NumberText: content = .literal(number.text)
        case let bool as Bool: content = .literal(bool ? "true" : "false")
        case let number as Double: content = .literal(JSONText.number(number))
        case let number as Float: content = .literal(JSONText.number(number))
        case let number as any BinaryInteger: content = .literal("\(number)")
        default: try value.encode(to: JSONLineNodeEncoder(node: self, codingPath: codingPath))
        }
    }
}

private struct JSONLineNodeEncoder: Encoder {
    let node: JSONLineNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([]) }
        return KeyedEncodingContainer(KeyedContainer(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: JSONLineNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.addMember(key.stringValue).content = .literal("null") }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try node.addMember(key.stringValue).store(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        JSONLineNodeEncoder(node: node.addMember(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        JSONLineNodeEncoder(node: node.addMember(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        JSONLineNodeEncoder(node: node.addMember("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        JSONLineNodeEncoder(node: node.addMember(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: JSONLineNode
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    mutating func encodeNil() throws { node.addElement().content = .literal("null") }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try node.addElement().store(value, codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        JSONLineNodeEncoder(node: node.addElement(), codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        JSONLineNodeEncoder(node: node.addElement(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        JSONLineNodeEncoder(node: node.addElement(), codingPath: codingPath)
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let node: JSONLineNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .literal("null") }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try node.store(value, codingPath: codingPath)
    }
}
