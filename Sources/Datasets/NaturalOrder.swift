/// The order people expect for file and label names: digit runs compare as numbers ("2" < "10"), letters compare
/// case-insensitively, and names equal under those rules fall back to a plain code-point comparison, so the
/// order is total and the same on every machine.
public enum NaturalOrder {
    /// Whether `left` sorts before `right`.
    public static func areInIncreasingOrder(_ left: String, _ right: String) -> Bool {
        switch compare(left, right) {
        case .less: return true
        case .greater: return false
        case .equal: return left.unicodeScalars.lexicographicallyPrecedes(right.unicodeScalars)
        }
    }

    /// `names` sorted naturally.
    public static func sorted(_ names: [String]) -> [String] {
        names.sorted(by: areInIncreasingOrder)
    }

    /// Paths compared component by component, so "a/b" and "a.png" order by their first component.
    public static func pathsInIncreasingOrder(_ left: [String], _ right: [String]) -> Bool {
        for (leftComponent, rightComponent) in zip(left, right) where leftComponent != rightComponent {
            return areInIncreasingOrder(leftComponent, rightComponent)
        }
        return left.count < right.count
    }

    private enum Ordering { case less, equal, greater }

    /// The natural comparison without the final tiebreak.
    private static func compare(_ left: String, _ right: String) -> Ordering {
        let leftChunks = chunks(left), rightChunks = chunks(right)
        for (leftChunk, rightChunk) in zip(leftChunks, rightChunks) {
            let order: Ordering
            switch (leftChunk, rightChunk) {
            case let (.number(a), .number(b)): order = compareNumbers(a, b)
            case let (.text(a), .text(b)): order = a == b ? .equal : (a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars) ? .less : .greater)
            // Numbers before text, as in "1a" < "a1".
            case (.number, .text): order = .less
            case (.text, .number): order = .greater
            }
            if order != .equal { return order }
        }
        if leftChunks.count == rightChunks.count { return .equal }
        return leftChunks.count < rightChunks.count ? .less : .greater
    }

    private enum Chunk {
        /// ASCII digits with leading zeros removed, so any length compares correctly.
        case number(Substring)
        /// Lowercased text.
        case text(String)
    }

    private static func chunks(_ name: String) -> [Chunk] {
        var result: [Chunk] = []
        var index = name.startIndex
        while index < name.endIndex {
            let isDigit = name[index].isASCII && name[index].isNumber
            var end = index
            while end < name.endIndex, (name[end].isASCII && name[end].isNumber) == isDigit { end = name.index(after: end) }
            let piece = name[index..<end]
            if isDigit {
                let trimmed = piece.drop { $0 == "0" }
                result.append(.number(trimmed))
            } else {
                result.append(.text(piece.lowercased()))
            }
            index = end
        }
        return result
    }

    private static func compareNumbers(_ a: Substring, _ b: Substring) -> Ordering {
        if a.count != b.count { return a.count < b.count ? .less : .greater }
        if a == b { return .equal }
        return a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars) ? .less : .greater
    }
}
