import Neighbours

/// The constants of an audit.
public struct AuditSettings: Sendable, Equatable {
    /// When two pictures are near-copies.
    public var nearCopy = NearCopyRule.standard
    /// The outlier score (robust standard deviations above the median mean-neighbour distance) from which a picture
    /// is an outlier.
    public var outlierCut = 5.0
    /// Neighbours listed per picture for the outlier score and shown beside an outlier.
    public static let neighbourCount = 10
    /// Neighbours named beside an outlier.
    public static let shownNeighbours = 3

    /// The defaults.
    public init() {}
}

/// What an audit found, each list most certain first.
public struct AuditFindings: Sendable, Equatable {
    public var labelIssues: [LabelIssue]
    public var duplicates: [Duplicate]
    public var outliers: [Outlier]
    /// The near-copy distance `τ` used (`NearCopyRule.distanceThreshold`).
    public var nearCopyDistance: Double
    /// The dataset's neighbour distances the rules were relative to.
    public var neighbourSummary: NeighbourSummary
}

/// A dataset's findings from values: its pictures, their out-of-sample probabilities, their content hashes and their
/// feature neighbours. Reads no file.
public enum DatasetAudit {
    /// Finds label issues (`ConfidentLearning`), exact copies (equal `hashes`; nil hashes are never equal), near-copies
    /// (`settings.nearCopy` over `neighbours`) and outliers (the mean neighbour distance, relative).
    /// `probabilities` is `[pictures.count, labels.count]`; `neighbours` lists `pictures.count` rows.
    public static func find(
        pictures: [AuditedPicture], labels: [String], probabilities: [Float], hashes: [String?],
        neighbours: NeighbourLists, settings: AuditSettings = AuditSettings()
    ) -> AuditFindings {
        precondition(hashes.count == pictures.count && neighbours.count == pictures.count, "DatasetAudit: one hash and one list per picture")
        let summary = NeighbourSummary(neighbours)
        let exact = exactCopies(pictures: pictures, hashes: hashes)
        let threshold = settings.nearCopy.distanceThreshold(summary)
        let near = nearCopies(pictures: pictures, hashes: hashes, neighbours: neighbours, distanceThreshold: threshold)
        return AuditFindings(
            labelIssues: labelIssues(pictures: pictures, labels: labels, probabilities: probabilities),
            duplicates: exact + near,
            outliers: outliers(pictures: pictures, labels: labels, neighbours: neighbours, summary: summary, cut: settings.outlierCut),
            nearCopyDistance: threshold, neighbourSummary: summary)
    }

    /// Confident learning's issues as findings, lowest self-confidence first.
    public static func labelIssues(pictures: [AuditedPicture], labels: [String], probabilities: [Float]) -> [LabelIssue] {
        let classCount = labels.count
        let outcome = ConfidentLearning.find(probabilities: probabilities, labels: pictures.map(\.label), classCount: classCount)
        return outcome.issues.map { row in
            let picture = pictures[row], suggested = outcome.likelyLabels[row]!
            return LabelIssue(
                path: picture.path, split: picture.split, label: labels[picture.label], suggestedLabel: labels[suggested],
                confidence: Double(probabilities[row * classCount + suggested]),
                selfConfidence: Double(probabilities[row * classCount + picture.label]))
        }
    }

    /// Groups of two or more pictures with equal hashes, in the order of their first picture.
    public static func exactCopies(pictures: [AuditedPicture], hashes: [String?]) -> [Duplicate] {
        var groups: [String: [Int]] = [:], order: [String] = []
        for (row, hash) in hashes.enumerated() {
            guard let hash else { continue }
            if groups[hash] == nil { order.append(hash) }
            groups[hash, default: []].append(row)
        }
        return order.compactMap { hash in
            let rows = groups[hash]!
            guard rows.count > 1 else { return nil }
            let splits = rows.map { pictures[$0].split }
            return Duplicate(
                paths: rows.map { pictures[$0].path }, splits: splits, kind: .exact, similarity: 1,
                leak: Set(splits).count > 1)
        }
    }

    /// Pairs of neighbours within `distanceThreshold` that are not exact copies of each other, most similar first
    /// (equal similarity: by the first picture, then the second).
    public static func nearCopies(
        pictures: [AuditedPicture], hashes: [String?], neighbours: NeighbourLists, distanceThreshold: Double
    ) -> [Duplicate] {
        var pairs: [(first: Int, second: Int, similarity: Float)] = []
        var seen = Set<Int64>()
        for row in 0..<neighbours.count {
            for (other, similarity) in neighbours.neighbours(of: row) {
                guard 1 - Double(similarity) <= distanceThreshold else { break }
                let first = min(row, other), second = max(row, other)
                if let hash = hashes[first], hash == hashes[second] { continue }
                guard seen.insert(Int64(first) << 32 | Int64(second)).inserted else { continue }
                pairs.append((first, second, similarity))
            }
        }
        pairs.sort {
            $0.similarity > $1.similarity || ($0.similarity == $1.similarity && ($0.first, $0.second) < ($1.first, $1.second))
        }
        return pairs.map { pair in
            let splits = [pictures[pair.first].split, pictures[pair.second].split]
            return Duplicate(
                paths: [pictures[pair.first].path, pictures[pair.second].path], splits: splits, kind: .near,
                similarity: Double(min(pair.similarity, 1)), leak: splits[0] != splits[1])
        }
    }

    /// Pictures whose mean neighbour distance lies `cut` or more robust standard deviations above the median,
    /// highest score first. A dataset whose mean distances barely vary (MAD 0) has none.
    public static func outliers(
        pictures: [AuditedPicture], labels: [String], neighbours: NeighbourLists, summary: NeighbourSummary, cut: Double
    ) -> [Outlier] {
        // 1.4826 · MAD estimates the standard deviation of a normal distribution.
        let spread = 1.4826 * summary.meanDistanceDeviation
        guard spread > 1e-9 else { return [] }
        var found: [Outlier] = []
        for (row, distance) in summary.meanDistances.enumerated() {
            let score = (distance - summary.medianMeanDistance) / spread
            guard score >= cut else { continue }
            let picture = pictures[row]
            found.append(
                Outlier(
                    path: picture.path, split: picture.split, label: labels[picture.label], score: score, meanDistance: distance,
                    neighbours: neighbours.neighbours(of: row).prefix(AuditSettings.shownNeighbours).map { pictures[$0.index].path }))
        }
        return found.sorted { $0.score > $1.score || ($0.score == $1.score && $0.path < $1.path) }
    }
}

/// The kinds of finding whose files `doctor --move-to` can move.
public enum FindingKind: String, Sendable, CaseIterable {
    /// Pictures likely in the wrong folder (score: the suggested label's probability).
    case labels
    /// Copies (score: similarity); every file of a copy but its first (the earliest split's) moves.
    case copies
    /// Outliers (score: the outlier score).
    case outliers
}

extension AuditFindings {
    /// The files of the findings of `kinds` whose score is at least `minimumScore` (every one when nil), each once,
    /// in the order of the lists. Of a copy, the first file stays (training before validation before testing), so
    /// moving them ends a leak without losing the picture.
    public func files(of kinds: Set<FindingKind>, minimumScore: Double? = nil) -> [String] {
        func passes(_ score: Double) -> Bool { minimumScore.map { score >= $0 } ?? true }
        var files: [String] = []
        if kinds.contains(.labels) { files += labelIssues.filter { passes($0.confidence) }.map(\.path) }
        if kinds.contains(.copies) { files += duplicates.filter { passes($0.similarity) }.flatMap { $0.paths.dropFirst() } }
        if kinds.contains(.outliers) { files += outliers.filter { passes($0.score) }.map(\.path) }
        var seen = Set<String>()
        return files.filter { seen.insert($0).inserted }
    }
}
