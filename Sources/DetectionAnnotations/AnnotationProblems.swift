import ImageCodecs

/// A box that reached past its picture's edge by more than `AnnotationDocument.outsideTolerance` (but no more than
/// `overshootLimit`) and was cut to the picture: kept, and listed so the command can say so once.
public struct ClippedBox: Sendable, Equatable {
    /// The entry (1-based) and its picture's name as written.
    public var entry: Int, image: String
    /// The box (1-based within the entry) and its label.
    public var box: Int, label: String
    /// How far, in pixels, its furthest edge reached past the picture.
    public var overhang: Double
    /// The picture's size as displayed.
    public var pictureSize: ImageSize

    /// A clipped box from its parts.
    public init(entry: Int, image: String, box: Int, label: String, overhang: Double, pictureSize: ImageSize) {
        self.entry = entry
        self.image = image
        self.box = box
        self.label = label
        self.overhang = overhang
        self.pictureSize = pictureSize
    }
}

/// The problems found in one annotations file, gathered so that a file with several is refused with all of them
/// (the first `AnnotationDocument.reportedProblems`, and how many more), in the order of its entries, instead of
/// one fix and rerun per problem.
public struct AnnotationProblems: Sendable {
    /// The annotations file.
    public let file: String
    /// Every problem with its entry (1-based), each an error naming `file`, the entry and the box.
    public private(set) var problems: [(entry: Int, error: AnnotationError)] = []

    /// No problems yet in `file`.
    public init(file: String) { self.file = file }

    /// Adds a problem of entry `entry` (1-based).
    public mutating func add(_ error: AnnotationError, entry: Int) { problems.append((entry, error)) }

    /// The problems in entry order (those of one entry in the order found).
    public var errors: [AnnotationError] {
        problems.enumerated().sorted { ($0.element.entry, $0.offset) < ($1.element.entry, $1.offset) }.map(\.element.error)
    }

    /// Throws the refusal when there is a problem: a single one as it is; several as one error whose reason counts
    /// them, then gives each on its own line, indented, in entry order (the first `reportedProblems`), then how
    /// many more there are.
    public func check() throws(AnnotationError) {
        let errors = self.errors
        guard let first = errors.first else { return }
        guard errors.count > 1 else { throw first }
        let limit = AnnotationDocument.reportedProblems
        var reason = "\(errors.count) problems"
        reason += errors.count > limit ? " (the first \(limit) below):" : ":"
        for error in errors.prefix(limit) { reason += "\n  " + error.reason }
        if errors.count > limit { reason += "\n  and \(errors.count - limit) more" }
        throw AnnotationError(path: file, reason: reason)
    }
}
