import DataAudit
import Neighbours
import XCTest

final class DatasetAuditTests: XCTestCase {
    /// Twelve pictures in three tight clusters of features (one per label) with spread inside each cluster, a
    /// near-copy of picture 0 in testing, an exact copy (same hash) of picture 4 in validation, and one picture far
    /// from every cluster.
    private func constructed() -> (pictures: [AuditedPicture], features: [Float], hashes: [String?]) {
        let dimension = 6
        var features: [Float] = [], pictures: [AuditedPicture] = [], hashes: [String?] = []
        func add(_ vector: [Float], split: String, label: Int, hash: String? = nil) {
            features += vector
            pictures.append(AuditedPicture(path: "p\(pictures.count).png", split: split, label: label))
            hashes.append(hash ?? "h\(pictures.count)")
        }
        for label in 0..<3 {
            for member in 0..<4 {
                var vector = [Float](repeating: 0.1, count: dimension)
                vector[label * 2] = 1
                vector[label * 2 + 1] = 0.3 + 0.15 * Float(member)
                vector[(label * 2 + 2) % dimension] = 0.05 * Float(member)
                add(vector, split: "training", label: label)
            }
        }
        var copy = Array(features[0..<dimension])
        copy[5] += 0.004
        add(copy, split: "testing", label: 0)  // 12: near-copy of 0
        add(Array(features[(4 * dimension)..<(5 * dimension)]), split: "validation", label: 1, hash: "h5")  // 13: same bytes as 4
        hashes[4] = "h5"
        add([0, 0, 0, 0, 0.2, -1], split: "training", label: 2)  // 14: far from all
        return (pictures, features, hashes)
    }

    func testCopiesLeaksAndOutliers() {
        let (pictures, features, hashes) = constructed()
        let neighbours = NearestNeighbours.search(features: features, count: pictures.count, dimension: 6, k: 3)
        let probabilities = pictures.flatMap { picture in (0..<3).map { $0 == picture.label ? Float(0.8) : Float(0.1) } }
        var settings = AuditSettings()
        // The tight clusters' own spread is tiny, so their edge pictures score near 10; the far picture scores hundreds.
        settings.outlierCut = 50
        let findings = DatasetAudit.find(
            pictures: pictures, labels: ["a", "b", "c"], probabilities: probabilities, hashes: hashes, neighbours: neighbours,
            settings: settings)
        XCTAssertEqual(findings.labelIssues, [], "every picture is sure of its own label")
        let exact = findings.duplicates.filter { $0.kind == .exact }
        XCTAssertEqual(exact.map(\.paths), [["p4.png", "p13.png"]])
        XCTAssertEqual(exact.first?.leak, true)
        let near = findings.duplicates.filter { $0.kind == .near }
        XCTAssertEqual(near.map(\.paths), [["p0.png", "p12.png"]], "τ \(findings.nearCopyDistance)")
        XCTAssertEqual(near.first?.splits, ["training", "testing"])
        XCTAssertEqual(near.first?.leak, true)
        XCTAssertGreaterThan(near.first?.similarity ?? 0, 1 - findings.nearCopyDistance)
        XCTAssertEqual(findings.duplicates.first?.kind, .exact, "exact copies come first")
        XCTAssertEqual(findings.outliers.first?.path, "p14.png")
        XCTAssertEqual(findings.outliers.count, 1)
        XCTAssertEqual(findings.outliers.first?.neighbours.count, AuditSettings.shownNeighbours)
    }

    /// The near-copy distance is relative: the same pair is a near-copy among well-separated pictures and not
    /// among pictures that all lie that close together.
    func testNearCopyRuleIsRelativeToTheDataset() {
        let spreadOut = NeighbourSummary.median([0.2, 0.3, 0.25])
        let crowded = NeighbourSummary.median([0.002, 0.003, 0.0025])
        let rule = NearCopyRule(factor: 0.35, ceiling: 0.08)
        func summary(_ median: Double) -> NeighbourSummary {
            // Rows whose only neighbour lies at `median`.
            NeighbourSummary(NeighbourLists(count: 2, k: 1, indices: [1, 0], similarities: [Float(1 - median), Float(1 - median)]))
        }
        XCTAssertEqual(rule.distanceThreshold(summary(spreadOut)), 0.08, accuracy: 1e-6, "capped by the ceiling")
        XCTAssertEqual(rule.distanceThreshold(summary(crowded)), 0.35 * 0.0025, accuracy: 1e-6)
        XCTAssertEqual(rule.distanceThreshold(summary(0)), 0)
    }

    /// A dataset of identical pictures: one exact group, no near pairs beyond it, no outliers (the distances do
    /// not vary).
    func testIdenticalPictures() {
        let pictures = (0..<5).map { AuditedPicture(path: "x\($0).png", split: $0 < 3 ? "training" : "testing", label: $0 % 2) }
        let features = [Float](repeating: 0.5, count: 5 * 4)
        let neighbours = NearestNeighbours.search(features: features, count: 5, dimension: 4, k: 3)
        let findings = DatasetAudit.find(
            pictures: pictures, labels: ["a", "b"], probabilities: [Float](repeating: 0.5, count: 10),
            hashes: [String?](repeating: "same", count: 5), neighbours: neighbours)
        XCTAssertEqual(findings.duplicates.count, 1)
        XCTAssertEqual(findings.duplicates.first?.paths.count, 5)
        XCTAssertEqual(findings.outliers, [])
    }

    /// Label issues carry the folder, the suggestion and both probabilities, lowest self-confidence first.
    func testLabelIssueFindings() {
        let pictures = (0..<6).map { AuditedPicture(path: "q\($0).png", split: "training", label: $0 < 3 ? 0 : 1) }
        let probabilities: [Float] = [0.9, 0.1, 0.9, 0.1, 0.3, 0.7, 0.1, 0.9, 0.1, 0.9, 0.8, 0.2]
        let issues = DatasetAudit.labelIssues(pictures: pictures, labels: ["cat", "dog"], probabilities: probabilities)
        XCTAssertEqual(issues.map(\.path), ["q5.png", "q2.png"])
        XCTAssertEqual(issues.first?.label, "dog")
        XCTAssertEqual(issues.first?.suggestedLabel, "cat")
        XCTAssertEqual(issues.first?.confidence ?? 0, 0.8, accuracy: 1e-6)
        XCTAssertEqual(issues.first?.selfConfidence ?? 0, 0.2, accuracy: 1e-6)
    }
}
