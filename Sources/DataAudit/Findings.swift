/// A picture as the audit sees it: its file, split and folder label.
public struct AuditedPicture: Sendable, Equatable {
    /// The file, as the user's folder names it.
    public var path: String
    /// "training", "validation" or "testing".
    public var split: String
    /// The folder's label, an index into the dataset's labels.
    public var label: Int

    /// A picture.
    public init(path: String, split: String, label: Int) {
        self.path = path
        self.split = split
        self.label = label
    }
}

/// A picture likely in the wrong folder.
public struct LabelIssue: Sendable, Equatable, Codable {
    public var path: String
    public var split: String
    /// Its folder.
    public var label: String
    /// The label confident learning thinks it is.
    public var suggestedLabel: String
    /// The out-of-sample probability of `suggestedLabel`.
    public var confidence: Double
    /// The out-of-sample probability of its folder's label (issues are ranked by this, lowest first).
    public var selfConfidence: Double
}

/// Pictures that are copies of each other.
public struct Duplicate: Sendable, Equatable, Codable {
    /// How they were found.
    public enum Kind: String, Sendable, Codable {
        /// The same bytes (content hash).
        case exact
        /// Features nearly equal (`NearCopyRule`).
        case near
    }
    /// Two or more files (exact) or two (near).
    public var paths: [String]
    /// Each file's split.
    public var splits: [String]
    public var kind: Kind
    /// Cosine similarity of the features (1 for exact copies).
    public var similarity: Double
    /// Whether the copies sit in different splits: a leak that makes the held-out figures look better than they are.
    public var leak: Bool
}

/// A picture far from all others.
public struct Outlier: Sendable, Equatable, Codable {
    public var path: String
    public var split: String
    public var label: String
    /// How far its mean neighbour distance is above the dataset's median, in robust standard deviations
    /// (`(d − median) / (1.4826 · MAD)`).
    public var score: Double
    /// Its mean cosine distance to its nearest neighbours.
    public var meanDistance: Double
    /// Its nearest neighbours' files, most similar first.
    public var neighbours: [String]
}
