/// One labelled box of a picture: what a person (or a corrected `detect` run) says is there.
public struct ObjectAnnotation: Sendable, Equatable, Hashable {
    /// The label, as written in the annotations.
    public var label: String
    /// Where it is, in pixels of the picture as displayed, inside the picture.
    public var box: CornerBox

    /// An annotation from its parts.
    public init(label: String, box: CornerBox) {
        self.label = label
        self.box = box
    }
}
