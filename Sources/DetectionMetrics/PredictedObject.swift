import DetectionAnnotations

/// One box a detector reported: its label, its score and where it is, in pixels of the picture.
public struct PredictedObject: Sendable, Equatable {
    /// The label.
    public var label: String
    /// The detector's score; higher is surer. Only the order of scores matters to average precision. A NaN
    /// score ranks below every other.
    public var score: Double
    /// Where it is.
    public var box: CornerBox

    /// A prediction from its parts.
    public init(label: String, score: Double, box: CornerBox) {
        self.label = label
        self.score = score
        self.box = box
    }
}

/// One picture's ground truth and the detector's boxes on it, the unit the metrics work on.
public struct EvaluatedImage: Sendable, Equatable {
    /// What is there (an annotated picture's objects; none for a negative).
    public var groundTruth: [ObjectAnnotation]
    /// What the detector reported, in its own order (equal scores are taken in this order, as pycocotools does).
    public var predictions: [PredictedObject]

    /// A picture from its parts.
    public init(groundTruth: [ObjectAnnotation], predictions: [PredictedObject]) {
        self.groundTruth = groundTruth
        self.predictions = predictions
    }
}
