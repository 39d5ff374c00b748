import FileFormats

/// A video's phases in their fixed order, as `workbench phases` writes them and as a person may write them by hand
/// (the player app's manual marking): `{"video": PATH, "order": [...], "phases": [{"label", "start", "end",
/// "confidence"}]}`, times in seconds.
///
/// A valid timeline has exactly one phase per label of `order`, in that order; every phase ends after it starts;
/// times are finite and not negative; a phase starts no earlier than the previous one ends. A gap between two
/// phases is allowed (a hand-marked file may leave a stretch unclaimed); `workbench phases` never writes one.
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

        /// The phase's length in seconds.
        public var duration: Double { end - start }
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

    /// The largest phase file read: a hand-written one is a few hundred bytes; anything near this is not one.
    public static let largestFileBytes = 16 << 20

    /// Reads and validates the phase file at `path` (`validate(path:)`); every failure is a `PhaseError` naming
    /// `path` and the reason on one line. Members other than the documented ones are ignored.
    public static func read(path: String) throws(PhaseError) -> PhaseTimeline {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.open(path: path, maximumBytes: largestFileBytes).readAll()
        } catch {
            throw PhaseError(.unreadable, path: path, reason: error.reason)
        }
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw PhaseError(.notJSON, path: path, reason: "not valid JSON (\(error))")
        }
        let timeline = try PhaseTimeline(document: document, path: path)
        try timeline.validate(path: path)
        return timeline
    }

    /// The timeline in `document`, checked for shape only (members present and of the right kind); `path` names
    /// the file in errors.
    public init(document: JSONValue, path: String) throws(PhaseError) {
        func shapeError(_ reason: String) -> PhaseError { PhaseError(.notPhaseTimeline, path: path, reason: reason) }
        guard let members = document.objectValue else {
            throw shapeError("not a phase file: expected an object with \"video\", \"order\" and \"phases\", found \(document.kindDescription)")
        }
        guard let video = members["video"]?.stringValue else {
            throw shapeError("not a phase file: \"video\" must be a string (the video's path)")
        }
        guard let orderValues = members["order"]?.arrayValue else {
            throw shapeError("not a phase file: \"order\" must be an array of labels")
        }
        var order: [String] = []
        for (index, value) in orderValues.enumerated() {
            guard let label = value.stringValue else {
                throw shapeError("\"order\" item \(index + 1) must be a string, found \(value.kindDescription)")
            }
            order.append(label)
        }
        guard let phaseValues = members["phases"]?.arrayValue else {
            throw shapeError("not a phase file: \"phases\" must be an array of {\"label\", \"start\", \"end\"}")
        }
        var phases: [Phase] = []
        for (index, value) in phaseValues.enumerated() {
            let name = "phase \(index + 1)"
            guard let phase = value.objectValue else {
                throw shapeError("\(name) must be an object, found \(value.kindDescription)")
            }
            guard let label = phase["label"]?.stringValue else { throw shapeError("\(name) has no \"label\" string") }
            guard let start = phase["start"]?.doubleValue else { throw shapeError("\(name) has no \"start\" number (seconds)") }
            guard let end = phase["end"]?.doubleValue else { throw shapeError("\(name) has no \"end\" number (seconds)") }
            var confidence: Double?
            if let value = phase["confidence"], value != .null {
                guard let number = value.doubleValue else { throw shapeError("\(name): \"confidence\" must be a number") }
                confidence = number
            }
            phases.append(Phase(label: label, start: start, end: end, confidence: confidence))
        }
        self.init(video: video, order: order, phases: phases)
    }

    /// Checks the rules of a valid timeline (the type's doc), throwing the first broken one as a `PhaseError`
    /// naming `path`: an empty order or a label twice in it, a phase label not in `order`, a phase missing,
    /// phases out of order, a negative or non-finite time, a phase that does not end after it starts, overlapping
    /// phases.
    public func validate(path: String) throws(PhaseError) {
        guard !order.isEmpty else { throw PhaseError(.invalidOrder, path: path, reason: "\"order\" is empty: name the phases in their order") }
        var position: [String: Int] = [:]
        for (index, label) in order.enumerated() {
            if position[label] != nil {
                throw PhaseError(.invalidOrder, path: path, reason: "\"order\" names \(quoted(label)) twice")
            }
            position[label] = index
        }
        for (index, phase) in phases.enumerated() {
            guard let expected = position[phase.label] else {
                throw PhaseError(
                    .labelNotInOrder, path: path,
                    reason: "phase \(index + 1)'s label \(quoted(phase.label)) is not in \"order\" (\(order.map(quoted).joined(separator: ", ")))")
            }
            if expected != index {
                // Either an earlier label is missing here, or this label comes too early or twice.
                if expected > index, !phases.contains(where: { $0.label == order[index] }) {
                    throw PhaseError(
                        .phaseMissing, path: path, reason: "phase \(quoted(order[index])) is missing (\"order\" has \(order.count) phases)")
                }
                throw PhaseError(
                    .outOfOrder, path: path,
                    reason:
                        "phases out of order: phase \(index + 1) is \(quoted(phase.label)), expected \(quoted(order[index])) (\"order\": \(order.map(quoted).joined(separator: ", ")))"
                )
            }
        }
        if phases.count < order.count {
            throw PhaseError(
                .phaseMissing, path: path, reason: "phase \(quoted(order[phases.count])) is missing (\"order\" has \(order.count) phases)")
        }
        for (index, phase) in phases.enumerated() {
            let name = "phase \(quoted(phase.label))"
            for (what, time) in [("start", phase.start), ("end", phase.end)] {
                guard time.isFinite, time >= 0 else {
                    throw PhaseError(.invalidTime, path: path, reason: "\(name): \(what) \(time) is not a time in seconds (negative or not finite)")
                }
            }
            guard phase.start < phase.end else {
                throw PhaseError(.emptyPhase, path: path, reason: "\(name) starts at \(phase.start) s but does not end after it (end \(phase.end) s)")
            }
            if let confidence = phase.confidence, !(confidence >= 0 && confidence <= 1) {
                throw PhaseError(.notPhaseTimeline, path: path, reason: "\(name): confidence \(confidence) is not between 0 and 1")
            }
            if index > 0, phase.start < phases[index - 1].end {
                throw PhaseError(
                    .overlapping, path: path,
                    reason: "\(name) starts at \(phase.start) s, before phase \(quoted(phases[index - 1].label)) ends (\(phases[index - 1].end) s)")
            }
        }
    }

    /// Checks that the phases fit in a video of `videoDuration` seconds: the last phase may end at most
    /// `tolerance` seconds past it (a container's duration and its last frame's end differ by a frame or so).
    /// `path` names the phase file in the error.
    public func checkFits(videoDuration: Double, tolerance: Double = 0.05, path: String) throws(PhaseError) {
        guard let last = phases.last, last.end > videoDuration + tolerance else { return }
        throw PhaseError(
            .beyondVideo, path: path,
            reason: "phase \(quoted(last.label)) ends at \(last.end) s, after the end of the video (\(video): \(videoDuration) s)")
    }

    /// The phase that holds `time` (seconds), or nil before the first, after the last or in a gap.
    public func phase(at time: Double) -> Phase? {
        phases.first { $0.start <= time && time < $0.end }
    }
}

/// A label in an error line, quoted in its terminal form, so a line feed or tab in it cannot break the line.
func quoted(_ label: String) -> String { DisplayText.quoted(label) }

extension PhaseTimeline {
    /// The timeline as the documented JSON, members in the documented order (`video`, `order`, `phases`; each phase
    /// `label`, `start`, `end`, `confidence` when known), a member a line and a phase a line, ending in a line feed
    /// (`JSONWriter`'s document layout).
    public func jsonText() -> String {
        // Strings, finite or null numbers and arrays: nothing here can fail to encode.
        (try? JSONWriter.text(self, layout: .document)) ?? ""
    }
}
