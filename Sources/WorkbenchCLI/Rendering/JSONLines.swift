import Workbench

/// JSON Lines output (`classify`, `features` and `label` with `--json`): one `Encodable` value per line, encoded
/// in `JSONWriter`'s line layout so members keep the order the output has always had and numbers their shortest form.
enum JSONLines {
    /// `value` as one line of JSON, newline included.
    static func line(_ value: some Encodable) -> String {
        do {
            return try JSONWriter.text(value, layout: .line) + "\n"
        } catch {
            // The encoder itself never fails, and these plain values encode without throwing.
            preconditionFailure("a JSON line failed to encode: \(error)")
        }
    }
}

/// A JSON object whose member names are data (labels, seconds), written in the order given; `Dictionary` would
/// write them in hash order.
struct OrderedMembers<Value: Encodable>: Encodable {
    /// The members, in order.
    var members: [(name: String, value: Value)]

    init(_ members: [(name: String, value: Value)]) { self.members = members }

    private struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Name.self)
        for member in members { try container.encode(member.value, forKey: Name(stringValue: member.name)) }
    }
}
