import Foundation

/// The one writer of every JSON text Workbench emits: model-file metadata, reports, JSON Lines, phase files, the
/// player's files and safetensors headers all come from here, each in its fixed `Layout`, so no caller builds JSON
/// by joining strings or picks encoder options of its own.
///
/// The layouts are the bytes each output has always had: `line` and `document` keep members in the order a value
/// encodes them and spell numbers as `JSONText` does (`JSONLineEncoder`); the sorted layouts are Foundation's
/// `JSONEncoder` with fixed options (what model files, feature-cache keys and reports have been written with since
/// their first version); `prettyText` writes a `JSONValue` tree.
public enum JSONWriter {
    /// How a text is laid out.
    public enum Layout: Sendable {
        /// One line, no spaces, members in encoding order: `{"b":1,"a":[1,2]}` (JSON Lines, safetensors headers).
        case line
        /// `line` for data inside an HTML `<script>` element: strings also escape what `JSONText.escapesInScript`
        /// names, so no text can end the element (a page's markers).
        case scriptLine
        /// A file a person reads and edits (a phase file): `JSONLineEncoder.Layout.document`, ending with a line feed.
        case document
        /// One line, keys sorted, `/` written as is: equal values give equal bytes (model-file metadata, the
        /// preprocessing's identity, export metadata).
        case sorted
        /// `sorted` with `/` written `\/`: the training report inside a classifier's model file, as it has been
        /// stored since the format's first version.
        case sortedEscapingSlashes
        /// Keys sorted, indented two spaces a level (`"key" : value`), `/` as is, ending with a line feed: a report a
        /// person reads (`train --report`, `--json` of `train`, `evaluate` and `inspect`).
        case indented
    }

    /// `value` as JSON text in `layout`. Throws what the value's `encode(to:)` throws, and, in the sorted layouts,
    /// for a number JSON cannot hold (NaN, an infinity); `line` and `document` write those as `null`.
    public static func text<Value: Encodable>(_ value: Value, layout: Layout) throws -> String {
        switch layout {
        case .line: return try JSONLineEncoder(layout: .line).encode(value)
        case .scriptLine: return try JSONLineEncoder(layout: .line, escapesAsUnicode: JSONText.escapesInScript).encode(value)
        case .document: return try JSONLineEncoder(layout: .document).encode(value)
        case .sorted: return try foundationText(value, [.sortedKeys, .withoutEscapingSlashes])
        case .sortedEscapingSlashes: return try foundationText(value, [.sortedKeys])
        case .indented: return try foundationText(value, [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]) + "\n"
        }
    }

    /// A number spelt as given, for output whose numbers are rounded for people (a page's seconds, `"1.5"`): the
    /// line layouts write `text` as it is; the sorted ones write `Double(text)`. `text` must be a JSON number.
    public struct NumberText: Encodable, Sendable {
        /// The number's JSON text.
        public var text: String

        /// `text`, a JSON number (`"12"`, `"0.125"`, `"-3.5"`).
        public init(_ text: String) { self.text = text }

        /// Outside the line layouts: the value, as a Double.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(Double(text) ?? 0)
        }
    }

    private static func foundationText<Value: Encodable>(_ value: Value, _ formatting: JSONEncoder.OutputFormatting) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

// A `JSONValue` tree's layout: two-space indentation, object keys sorted by their Unicode code points, `" : "`
// between a key and its value, non-ASCII kept as UTF-8, `/` not escaped. Deterministic, so the same tree always gives
// the same bytes.
extension JSONWriter {
    /// The document as pretty-printed text, ending with a newline (the player's `MovieData.json`, result folders).
    public static func prettyText(_ value: JSONValue) -> String {
        var output = ""
        write(value, indent: 0, into: &output)
        output += "\n"
        return output
    }

    private static func write(_ value: JSONValue, indent: Int, into output: inout String) {
        let inner = String(repeating: "  ", count: indent + 1)
        let outer = String(repeating: "  ", count: indent)
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let text): output += text
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            if elements.isEmpty { output += "[]"; return }
            output += "[\n"
            for (offset, element) in elements.enumerated() {
                output += inner
                write(element, indent: indent + 1, into: &output)
                output += offset + 1 < elements.count ? ",\n" : "\n"
            }
            output += outer + "]"
        case .object(let members):
            if members.isEmpty { output += "{}"; return }
            output += "{\n"
            let keys = members.keys.sorted { Array($0.unicodeScalars.map(\.value)).lexicographicallyPrecedes($1.unicodeScalars.map(\.value)) }
            for (offset, key) in keys.enumerated() {
                output += inner
                writeString(key, into: &output)
                output += " : "
                write(members[key]!, indent: indent + 1, into: &output)
                output += offset + 1 < keys.count ? ",\n" : "\n"
            }
            output += outer + "}"
        }
    }

    private static func writeString(_ text: String, into output: inout String) {
        output += JSONText.quoted(text)
    }
}
