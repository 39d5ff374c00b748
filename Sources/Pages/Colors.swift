import Foundation

/// An sRGB colour with 8-bit channels.
public struct RGBColor: Sendable, Equatable {
    public var red: UInt8, green: UInt8, blue: UInt8

    /// A colour from its channels.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// A colour from `0xRRGGBB`.
    public init(hex: UInt32) {
        self.init(red: UInt8((hex >> 16) & 0xFF), green: UInt8((hex >> 8) & 0xFF), blue: UInt8(hex & 0xFF))
    }

    /// `#rrggbb`, for CSS and SVG.
    public var css: String {
        "#"
            + [red, green, blue].map { value in
                let text = String(value, radix: 16)
                return text.count == 1 ? "0" + text : text
            }.joined()
    }

    /// WCAG relative luminance (0 black … 1 white), from linearised sRGB.
    public var relativeLuminance: Double {
        func linear(_ channel: UInt8) -> Double {
            let value = Double(channel) / 255
            return value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// Black or white, whichever reads better on this colour (the higher WCAG contrast ratio).
    public var readableText: RGBColor {
        let luminance = relativeLuminance
        let againstBlack = (luminance + 0.05) / 0.05, againstWhite = 1.05 / (luminance + 0.05)
        return againstBlack >= againstWhite ? RGBColor(hex: 0x000000) : RGBColor(hex: 0xFFFFFF)
    }
}

/// A sequential colour scale for heat maps: viridis (van der Walt and Smith, matplotlib 2.0), designed so that
/// lightness rises steadily from dark purple to yellow, which keeps it readable for colour-blind readers and in
/// grey-scale print.
public enum ColorScale {
    /// Viridis sampled at 0, 0.1, …, 1 (matplotlib's published values); between them, linear in sRGB.
    static let viridisStops: [RGBColor] = [
        0x440154, 0x482475, 0x414487, 0x355F8D, 0x2A788E, 0x21918C, 0x22A884, 0x44BF70, 0x7AD151, 0xBDDF26, 0xFDE725,
    ].map { RGBColor(hex: $0) }

    /// The colour at `fraction` (clamped to 0…1).
    public static func viridis(_ fraction: Double) -> RGBColor {
        let clamped = fraction.isFinite ? min(1, max(0, fraction)) : 0
        let position = clamped * Double(viridisStops.count - 1)
        let lower = min(viridisStops.count - 2, Int(position))
        let weight = position - Double(lower)
        let a = viridisStops[lower], b = viridisStops[lower + 1]
        func mix(_ x: UInt8, _ y: UInt8) -> UInt8 { UInt8((Double(x) * (1 - weight) + Double(y) * weight).rounded()) }
        return RGBColor(red: mix(a.red, b.red), green: mix(a.green, b.green), blue: mix(a.blue, b.blue))
    }
}

/// Colours for categories (labels), from Okabe and Ito's palette ("Color Universal Design", 2008), chosen to stay
/// distinct under the common colour-vision deficiencies.
public enum CategoricalPalette {
    /// Orange, sky blue, bluish green, yellow, blue, vermillion, reddish purple; black is left out (it is the
    /// text colour), grey is kept for "unsure".
    public static let okabeIto: [RGBColor] = [0xE69F00, 0x56B4E9, 0x009E73, 0xF0E442, 0x0072B2, 0xD55E00, 0xCC79A7]
        .map { RGBColor(hex: $0) }
    /// The colour for a fallback or unknown label.
    public static let neutral = RGBColor(hex: 0x999999)

    /// The colour of category `index`. Past seven the palette repeats, darkened, so neighbours still differ; the
    /// pages always print the label next to its colour as well.
    public static func color(_ index: Int) -> RGBColor {
        let base = okabeIto[index % okabeIto.count]
        let round = index / okabeIto.count
        guard round > 0 else { return base }
        let factor = round % 2 == 1 ? 0.6 : 0.8
        return RGBColor(
            red: UInt8(Double(base.red) * factor), green: UInt8(Double(base.green) * factor),
            blue: UInt8(Double(base.blue) * factor))
    }
}
