/// An overlay's colour: a name people type (`yellow`) or `#RRGGBB`.
public struct OverlayColor: Sendable, Equatable {
    /// Red, 0–255.
    public var red: UInt8
    /// Green, 0–255.
    public var green: UInt8
    /// Blue, 0–255.
    public var blue: UInt8

    /// A colour from its components.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// The names `init?(_:)` reads (CSS's values for them).
    public static let names: [(name: String, color: OverlayColor)] = [
        ("yellow", OverlayColor(red: 255, green: 255, blue: 0)), ("red", OverlayColor(red: 255, green: 0, blue: 0)),
        ("orange", OverlayColor(red: 255, green: 165, blue: 0)), ("green", OverlayColor(red: 0, green: 128, blue: 0)),
        ("lime", OverlayColor(red: 0, green: 255, blue: 0)), ("cyan", OverlayColor(red: 0, green: 255, blue: 255)),
        ("blue", OverlayColor(red: 0, green: 0, blue: 255)), ("magenta", OverlayColor(red: 255, green: 0, blue: 255)),
        ("white", OverlayColor(red: 255, green: 255, blue: 255)), ("black", OverlayColor(red: 0, green: 0, blue: 0)),
    ]

    /// `text` as a name of `names` (any case) or `#RRGGBB` (hex digits, any case); nil for anything else.
    public init?(_ text: String) {
        if let named = Self.names.first(where: { $0.name == text.lowercased() }) {
            self = named.color
            return
        }
        let digits = Array(text.utf8)
        guard digits.count == 7, digits[0] == UInt8(ascii: "#"),
            let value = UInt32(String(decoding: digits[1...], as: UTF8.self), radix: 16),
            digits[1...].allSatisfy({
                UInt8(ascii: "0") <= $0 && $0 <= UInt8(ascii: "9") || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20)
            })
        else { return nil }
        self.init(red: UInt8(value >> 16), green: UInt8((value >> 8) & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// `#RRGGBB`.
    public var hex: String {
        "#"
            + [red, green, blue].map { value in
                let text = String(value, radix: 16, uppercase: true)
                return text.count == 1 ? "0" + text : text
            }.joined()
    }
}
