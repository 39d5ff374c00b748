import Foundation

/// Something about a dataset a person should know, though training can go on. Returned as values; the CLI prints.
public enum DatasetWarning: Sendable, Equatable, CustomStringConvertible {
    /// The same bytes appear in two splits, so the held-out score overstates accuracy.
    case duplicatesAcrossSplits(firstSplit: String, secondSplit: String, pairs: [DuplicatePair])
    /// The largest class has more than `DatasetWarnings.imbalanceRatio` times the images of the smallest.
    case classImbalance(split: String, largest: String, largestCount: Int, smallest: String, smallestCount: Int)
    /// Files inside the split's label folders that are no pictures Workbench can read, passed over.
    case notPictures(split: String, files: [SkippedFile])

    /// One line for a person.
    public var description: String {
        switch self {
        case let .duplicatesAcrossSplits(first, second, pairs):
            let shown = pairs.prefix(3).map { "\($0.first) = \($0.second)" }.joined(separator: "; ")
            let more = pairs.count > 3 ? "; and \(pairs.count - 3) more" : ""
            return "\(pairs.count) identical file(s) in both \(first) and \(second) data, which inflates the \(second) score: \(shown)\(more)"
        case let .classImbalance(split, largest, largestCount, smallest, smallestCount):
            return "\(split) classes are unbalanced: '\(largest)' has \(largestCount) images, '\(smallest)' only \(smallestCount)"
        case let .notPictures(split, files):
            return "\(SkippedFiles.summary(files)) in the \(split) label folders: not pictures Workbench can read "
                + "(\(DatasetLayout.pictureFormats))"
        }
    }
}

/// Two files with identical content.
public struct DuplicatePair: Sendable, Equatable {
    /// A file of the first split.
    public let first: String
    /// The identical file of the second split.
    public let second: String
    /// Creates a pair.
    public init(first: String, second: String) {
        self.first = first
        self.second = second
    }
}

/// Checks that produce `DatasetWarning`s.
public enum DatasetWarnings {
    /// Classes further apart in size than this factor are reported.
    public static let imbalanceRatio = 4

    /// All warnings for a resolved layout: duplicates between each pair of splits, imbalance within each split.
    public static func check(_ layout: DatasetLayout) -> [DatasetWarning] {
        let splits: [(String, ImageFolder)] = [("training", layout.training), ("validation", layout.validation), ("testing", layout.testing)]
            .compactMap { name, folder in folder.map { (name, $0) } }
        var warnings: [DatasetWarning] = []
        for (index, (firstName, firstFolder)) in splits.enumerated() {
            for (secondName, secondFolder) in splits[(index + 1)...] {
                let pairs = duplicates(between: firstFolder, and: secondFolder)
                if !pairs.isEmpty {
                    warnings.append(.duplicatesAcrossSplits(firstSplit: firstName, secondSplit: secondName, pairs: pairs))
                }
            }
        }
        for (name, folder) in splits {
            if let warning = imbalance(in: folder, split: name) { warnings.append(warning) }
        }
        for (name, folder) in splits {
            let passedOver = folder.classes.flatMap(\.skipped)
            if !passedOver.isEmpty { warnings.append(.notPictures(split: name, files: passedOver)) }
        }
        return warnings
    }

    /// Files of `first` whose bytes equal a file of `second`. Sizes are compared first, so only files of a shared
    /// size are hashed. Files that can't be read are left out (the decoder reports them).
    public static func duplicates(between first: ImageFolder, and second: ImageFolder) -> [DuplicatePair] {
        let firstFiles = first.classes.flatMap(\.files), secondFiles = second.classes.flatMap(\.files)
        let sizes = Dictionary((firstFiles + secondFiles).map { ($0, fileSize($0)) }, uniquingKeysWith: { size, _ in size })
        let firstSizes = Set(firstFiles.compactMap { sizes[$0] }.filter { $0 >= 0 })
        let sharedSizes = firstSizes.intersection(secondFiles.compactMap { sizes[$0] })
        var secondByHash: [ContentHash: [String]] = [:]
        for file in secondFiles where sharedSizes.contains(sizes[file]!) {
            if let hash = try? ContentHash.ofFile(path: file) { secondByHash[hash, default: []].append(file) }
        }
        var pairs: [DuplicatePair] = []
        for file in firstFiles where sharedSizes.contains(sizes[file]!) {
            guard let hash = try? ContentHash.ofFile(path: file), let matches = secondByHash[hash] else { continue }
            pairs += matches.map { DuplicatePair(first: file, second: $0) }
        }
        return pairs
    }

    /// A warning when the largest class of `folder` has more than `imbalanceRatio` times the smallest's images.
    public static func imbalance(in folder: ImageFolder, split: String) -> DatasetWarning? {
        guard let largest = folder.classes.max(by: { $0.files.count < $1.files.count }),
            let smallest = folder.classes.min(by: { $0.files.count < $1.files.count }),
            largest.files.count > imbalanceRatio * smallest.files.count
        else { return nil }
        return .classImbalance(
            split: split, largest: largest.label, largestCount: largest.files.count,
            smallest: smallest.label, smallestCount: smallest.files.count)
    }

    /// The file's size in bytes, or -1 when it can't be examined.
    private static func fileSize(_ path: String) -> Int64 {
        var information = stat()
        return stat(path, &information) == 0 ? Int64(information.st_size) : -1
    }
}
