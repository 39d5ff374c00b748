/// The clip rule stated over the whole sequence at once, without running state: the reference `PresenceClips` is
/// tested against (quadratic in the number of samples; tests only).
///
/// With P the times of the samples with a person: a clip starting at s (the first time in P at or after the
/// previous clip's end) ends at the least of s + maximumLength, the video's end, and p + stopAfter for every p in P
/// at or after s that no later time of P follows within stopAfter (a gap long enough to stop).
public enum PresenceClipsReference {
    /// The clips of `times` and `presence` under `rule` (see the type).
    public static func clips(times: [Double], presence: [Bool], videoEnd: Double, rule: PresenceClips.Rule) -> [PresenceClip] {
        let tolerance = PresenceClips.timeTolerance
        let people = zip(times, presence).filter(\.1).map(\.0)
        // The sightings no later one follows within stopAfter.
        let lastBeforeGaps = people.filter { person in !people.contains { $0 > person && $0 < person + rule.stopAfter - tolerance } }
        var clips: [PresenceClip] = []
        var from = -Double.infinity
        while let start = people.first(where: { $0 >= from - tolerance }) {
            let gaps = lastBeforeGaps.filter { $0 >= start }
            var candidates: [(Double, PresenceClip.Ending)] = [(start + rule.maximumLength, .maximumLength)]
            if let gap = gaps.first { candidates.append((gap + rule.stopAfter, .noPerson)) }
            candidates.append((max(videoEnd, start), .endOfVideo))
            // The earliest ending; within the tolerance, the first named wins (max-length, no-person, end-of-video).
            var best = candidates[0]
            for candidate in candidates.dropFirst() where candidate.0 < best.0 - tolerance { best = candidate }
            clips.append(PresenceClip(start: start, end: best.0, ended: best.1))
            // A clip that does not move the search on (a zero stop-after ends it where it starts) ends the rule.
            if best.1 == .endOfVideo || best.0 <= start + tolerance { break }
            from = best.0
        }
        return clips
    }
}
