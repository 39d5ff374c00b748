/// The sides of the square network input a detector takes: multiples of 32, the backbone's coarsest stride (so the
/// stride-16 map is exactly twice the stride-32 one), from 64 to 1024. The one statement of the rule: training,
/// the model file, export and the command line all check a side here.
public enum DetectorInputSide {
    /// Every side is a multiple of this: the backbone's coarsest stride.
    public static let multiple = 32
    /// The smallest and largest side.
    public static let range = 64...1024

    /// Whether a detector takes `side`.
    public static func isValid(_ side: Int) -> Bool { range.contains(side) && side % multiple == 0 }

    /// The rule in words, for messages: "a multiple of 32 from 64 to 1024".
    public static let requirement = "a multiple of \(multiple) from \(range.lowerBound) to \(range.upperBound)"
}
