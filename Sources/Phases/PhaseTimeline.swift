/// A video's phases in their fixed order, as `workbench phases` writes them and as a person may write them by hand
/// (the player app's manual marking): `{"video": PATH, "order": [...], "phases": [{"label", "start", "end",
/// "confidence"}]}`, times in seconds.
public struct PhaseTimeline: Sendable, Equatable, Codable {
    /// One phase: its label and where it starts and ends, in seconds from the start of the video.
    public struct Phase: Sendable, Equatable, Codable {
        /// The phase's label, one of the timeline's `order`.
        public var label: String
        /// Where the phase starts, in seconds.
        public var start: Double
        /// Where the phase ends (the next phase's start, or the end of the last one), in seconds.
        public var end: Double
        /// The mean probability of `label` over the phase's sampled frames; absent in a file written by hand.
        public var confidence: Double?

        /// A phase from its parts.
        public init(label: String, start: Double, end: Double, confidence: Double? = nil) {
            self.label = label
            self.start = start
            self.end = end
            self.confidence = confidence
        }
    }

    /// The video the phases belong to, as given.
    public var video: String
    /// The phases' labels in their fixed order.
    public var order: [String]
    /// The phases, in `order`.
    public var phases: [Phase]

    /// A timeline from its parts.
    public init(video: String, order: [String], phases: [Phase]) {
        self.video = video
        self.order = order
        self.phases = phases
    }
}
