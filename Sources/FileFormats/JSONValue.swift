/// A JSON document as a plain value tree, so files can be edited without dropping what we do not model.
///
/// Numbers keep their exact source text (`1.50` stays `1.50`, huge integers stay exact), so a value read and
/// written back is unchanged. Object member order is not kept: the writer sorts keys.
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` / `false`.
    case bool(Bool)
    /// A number, as its literal text (already validated against the JSON grammar).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; duplicate keys in the source keep the last value.
    case object([String: JSONValue])

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as a Double, when this is one.
    public var doubleValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// A short name of the kind of value, for error messages ("an object", "a string" …).
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Why a text is not JSON; `line`/`column` are 1-based.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based line of the problem.
    public let line: Int
    /// 1-based column (in bytes) of the problem.
    public let column: Int
    /// What was wrong.
    public let reason: String
    /// "line L, column C: reason".
    public var description: String { "line \(line), column \(column): \(reason)" }
}

/// A strict RFC 8259 parser: no comments, no trailing commas, no NaN; nesting is bounded so hostile input
/// cannot overflow the stack.
public struct JSONParser {
    private let bytes: [UInt8]
    private var position = 0
    private static let maximumDepth = 512

    /// Parses a whole document (a leading UTF-8 byte-order mark is allowed).
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.position = 3 }
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.position < bytes.count { throw parser.error("unexpected text after the end of the document") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ reason: String) -> JSONSyntaxError {
        var line = 1, lineStart = 0
        for index in 0..<min(position, bytes.count) where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        return JSONSyntaxError(line: line, column: position - lineStart + 1, reason: reason)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func expect(_ literal: String) throws(JSONSyntaxError) {
        let expected = Array(literal.utf8)
        guard position + expected.count <= bytes.count,
            Array(bytes[position..<position + expected.count]) == expected
        else {
            throw error("invalid literal (expected \(literal))")
        }
        position += expected.count
    }

    private mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected \(Self.describe(byte))")
        }
    }

    /// A byte as an error names it: printable ASCII as itself, anything else (a control byte, part of a multi-byte
    /// character) by number, so the message stays one printable line.
    static func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "character '\(Unicode.Scalar(byte))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") { position += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
            position += 1
            skipWhitespace()
            members[key] = try parseValue(depth: depth + 1)
            skipWhitespace()
            if current == UInt8(ascii: ",") { position += 1; continue }
            if current == UInt8(ascii: "}") { position += 1; return .object(members) }
            throw error("expected ',' or '}' in an object")
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { position += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            if current == UInt8(ascii: ",") { position += 1; continue }
            if current == UInt8(ascii: "]") { position += 1; return .array(elements) }
            throw error("expected ',' or ']' in an array")
        }
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = position
        func digits(_ parser: inout JSONParser) -> Int {
            let begin = parser.position
            while let byte = parser.current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { parser.position += 1 }
            return parser.position - begin
        }
        if current == UInt8(ascii: "-") { position += 1 }
        if current == UInt8(ascii: "0") {
            position += 1
            if let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                throw error("numbers may not have leading zeros")
            }
        } else if digits(&self) == 0 {
            throw error("expected digits in a number")
        }
        if current == UInt8(ascii: ".") {
            position += 1
            if digits(&self) == 0 { throw error("expected digits after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            if digits(&self) == 0 { throw error("expected digits in an exponent") }
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func parseHexQuad() throws(JSONSyntaxError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value * 16 + digit
            position += 1
        }
        return value
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        position += 1
        var utf8: [UInt8] = []
        while true {
            guard let byte = current else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                // Invalid UTF-8 in the source must not be silently replaced: that would change the value.
                guard let text = String(validating: utf8, as: UTF8.self) else { throw error("invalid UTF-8 in a string") }
                return text
            case UInt8(ascii: "\\"):
                position += 1
                guard let escape = current else { throw error("unterminated escape") }
                position += 1
                switch escape {
                case UInt8(ascii: "\""): utf8.append(0x22)
                case UInt8(ascii: "\\"): utf8.append(0x5C)
                case UInt8(ascii: "/"): utf8.append(0x2F)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHexQuad()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard position + 2 <= bytes.count, bytes[position] == UInt8(ascii: "\\"),
                            bytes[position + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired surrogate") }
                        position += 2
                        let low = try parseHexQuad()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("unpaired surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                    utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: throw error("invalid escape: backslash and \(Self.describe(escape))")
                }
            case 0x00..<0x20:
                throw error("control character in a string")
            default:
                utf8.append(byte)
                position += 1
            }
        }
    }
}
