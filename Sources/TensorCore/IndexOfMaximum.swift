extension Collection where Element: FloatingPoint {
    /// The position (0-based, counted from `startIndex`) of the largest element: the argmax of a row of logits or
    /// probabilities. The first of equal elements wins, so predictions are deterministic and follow model order;
    /// NaN never wins. 0 for an empty collection.
    public var indexOfMaximum: Int {
        var bestPosition = 0
        var best: Element?
        for (position, value) in enumerated() where !value.isNaN && (best == nil || value > best!) {
            best = value
            bestPosition = position
        }
        return bestPosition
    }
}
