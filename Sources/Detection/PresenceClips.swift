/// The clips the app records while someone is in view, from whether each sampled frame shows a person.
///
/// The rule (issue 24): a clip starts at the first sample with a person while no clip is running, and ends at the
/// earliest of its start + `maximumLength`, the last sample with a person + `stopAfter`, and the end of the video;
/// the next clip can start at the next sample with a person (at or after that end). Clips are half-open,
/// `[start, end)`: a sample exactly at a clip's end belongs to the next. When two endings fall at the same time the
/// clip is said to end by the first of max-length, no-person, end-of-video.
///
/// Fed sample by sample (`add`), so a long video never holds more than the running clip; `PresenceClipsReference`
/// states the same rule over the whole sequence at once, and the tests hold the two against each other.
public struct PresenceClips: Sendable {
    /// The two lengths of the rule, in seconds.
    public struct Rule: Sendable, Equatable {
        /// The longest a clip may run (`--max-length`, the app's 10 s).
        public var maximumLength: Double
        /// How long a clip goes on after the last sample with a person (`--stop-after`, the app's 5 s).
        public var stopAfter: Double

        /// A rule; the defaults are the app's.
        public init(maximumLength: Double = 10, stopAfter: Double = 5) {
            self.maximumLength = maximumLength
            self.stopAfter = stopAfter
        }
    }

    /// Seconds within which two times count as one: sample times are `n · every`, computed in floating point.
    public static let timeTolerance = 1e-6

    /// The rule in force.
    public let rule: Rule
    private var running: (start: Double, lastPerson: Double)?
    private var lastTime = -Double.infinity

    /// An empty sequence under `rule`.
    public init(rule: Rule) {
        self.rule = rule
    }

    /// Whether a clip is running after the samples added so far.
    public var isRecording: Bool { running != nil }

    /// Adds the sample at `time` (later than every earlier one); returns the clip it ended, if any.
    public mutating func add(time: Double, present: Bool) -> PresenceClip? {
        precondition(time > lastTime, "PresenceClips: samples must come in time order")
        lastTime = time
        var ended: PresenceClip?
        if let clip = running {
            let (end, reason) = deadline(clip)
            if time >= end - Self.timeTolerance {
                ended = PresenceClip(start: clip.start, end: end, ended: reason)
                running = nil
            } else if present {
                running?.lastPerson = time
            }
        }
        if running == nil, present { running = (time, time) }
        return ended
    }

    /// Ends the running clip, if any, at the end of the video (or earlier, by the rule).
    public mutating func finish(videoEnd: Double) -> PresenceClip? {
        defer { running = nil }
        guard let clip = running else { return nil }
        let (end, reason) = deadline(clip)
        if end <= videoEnd + Self.timeTolerance { return PresenceClip(start: clip.start, end: end, ended: reason) }
        return PresenceClip(start: clip.start, end: max(videoEnd, clip.start), ended: .endOfVideo)
    }

    /// When the running clip ends if no person comes, and why.
    private func deadline(_ clip: (start: Double, lastPerson: Double)) -> (Double, PresenceClip.Ending) {
        let byLength = clip.start + rule.maximumLength, byAbsence = clip.lastPerson + rule.stopAfter
        return byLength <= byAbsence + Self.timeTolerance ? (byLength, .maximumLength) : (byAbsence, .noPerson)
    }

    /// The clips of a whole sequence: `times` in increasing order, `presence` one flag per time, the video ending
    /// at `videoEnd`.
    public static func clips(times: [Double], presence: [Bool], videoEnd: Double, rule: Rule) -> [PresenceClip] {
        precondition(times.count == presence.count, "PresenceClips: one presence flag per time")
        var sequence = PresenceClips(rule: rule)
        var clips = zip(times, presence).compactMap { sequence.add(time: $0, present: $1) }
        if let last = sequence.finish(videoEnd: videoEnd) { clips.append(last) }
        return clips
    }
}

/// One recorded clip: `[start, end)` in seconds of the video, and which part of the rule ended it.
public struct PresenceClip: Sendable, Equatable {
    /// Why a clip ended, as the JSON spells it.
    public enum Ending: String, Sendable, Equatable, Codable {
        /// It reached the longest length allowed.
        case maximumLength = "max-length"
        /// No person was seen for `stopAfter` seconds.
        case noPerson = "no-person"
        /// The video ended.
        case endOfVideo = "end-of-video"
    }

    /// Seconds from the start of the video.
    public var start: Double
    /// Seconds from the start of the video; the clip holds the video up to, not including, this time.
    public var end: Double
    /// What ended it.
    public var ended: Ending

    /// A clip from its parts.
    public init(start: Double, end: Double, ended: Ending) {
        self.start = start
        self.end = end
        self.ended = ended
    }
}
