import TensorCore

/// Exact k-nearest-neighbour search by cosine similarity over feature vectors, by blocked matrix products.
///
/// Rows are L2-normalised first, so the cosine similarity of rows `i` and `j` is the dot product `x̂_i · x̂_j` and a
/// block of similarities `S[B, C] = X̂[rows] · X̂[columns]ᵀ` is one `GEMM` call. Query blocks of `queryBlock` rows
/// run against column blocks of `columnBlock` rows; each query row keeps its best `k` in a small sorted list while
/// the blocks stream past. Memory beyond the normalised copy of the features is `O(count · k)` for the answer plus
/// one `[queryBlock, columnBlock]` block per thread — never the `count × count` matrix. Work is `count² · dimension`
/// multiply-adds. The answer equals `NearestNeighboursReference.search` up to Float rounding of the similarities.
public enum NearestNeighbours {
    /// Query rows per block: enough to keep the product compute-bound.
    public static let queryBlock = 512
    /// Compared rows per block: a 512 × 2,048 block of similarities is 4 MiB.
    public static let columnBlock = 2048

    /// The `k` most similar other rows of every row of `features` (`[count, dimension]`, row-major, raw).
    ///
    /// A zero row has similarity 0 to every row. Query blocks spread over `threads` threads; each row's answer
    /// depends only on the inputs, whatever the thread count. BLAS itself is called as configured (Workbench keeps it
    /// single-threaded, `GEMM.setBLASThreads`).
    public static func search(features: [Float], count: Int, dimension: Int, k: Int, threads: Int = 1) -> NeighbourLists {
        precondition(count >= 0 && dimension > 0 && k >= 0 && features.count == count * dimension, "NearestNeighbours: [count, dimension] features")
        var indices = [Int32](repeating: -1, count: count * k)
        var similarities = [Float](repeating: -.infinity, count: count * k)
        guard count > 1, k > 0 else { return NeighbourLists(count: count, k: k, indices: indices, similarities: similarities) }
        let normalized = normalizedRows(features, count: count, dimension: dimension)
        let blockCount = (count + queryBlock - 1) / queryBlock
        normalized.withUnsafeBufferPointer { normalized in
            indices.withUnsafeMutableBufferPointer { indicesOut in
                similarities.withUnsafeMutableBufferPointer { similaritiesOut in
                    // Each query block writes only its own rows of the answer.
                    let output = UncheckedSendable((indicesOut.baseAddress!, similaritiesOut.baseAddress!))
                    let input = UncheckedSendable(normalized.baseAddress!)
                    Parallel.forEach(blockCount, threads: threads) { block in
                        searchBlock(
                            block, features: input.value, count: count, dimension: dimension, k: k,
                            indices: output.value.0, similarities: output.value.1)
                    }
                }
            }
        }
        return NeighbourLists(count: count, k: k, indices: indices, similarities: similarities)
    }

    /// Every row divided by its Euclidean length (zero rows stay zero), `[count, dimension]`.
    public static func normalizedRows(_ features: [Float], count: Int, dimension: Int) -> [Float] {
        var result = features
        for row in 0..<count {
            var sum: Double = 0
            for column in 0..<dimension {
                let value = Double(features[row * dimension + column])
                sum += value * value
            }
            guard sum > 0 else { continue }
            let scale = Float(1 / sum.squareRoot())
            for column in 0..<dimension { result[row * dimension + column] *= scale }
        }
        return result
    }

    /// Query rows `block · queryBlock ..<` against every column block.
    private static func searchBlock(
        _ block: Int, features: UnsafePointer<Float>, count: Int, dimension: Int, k: Int,
        indices: UnsafeMutablePointer<Int32>, similarities: UnsafeMutablePointer<Float>
    ) {
        let firstRow = block * queryBlock
        let rows = min(queryBlock, count - firstRow)
        let scores = UnsafeMutablePointer<Float>.allocate(capacity: rows * columnBlock)
        defer { scores.deallocate() }
        var firstColumn = 0
        while firstColumn < count {
            let columns = min(columnBlock, count - firstColumn)
            // scores[rows, columns] = X̂[firstRow..., :] · X̂[firstColumn..., :]ᵀ: both operands stored [·, dimension]
            // (lda = ldb = dimension), the second transposed as stored; ldc = columns.
            GEMM.multiply(
                m: rows, n: columns, k: dimension,
                a: features + firstRow * dimension, lda: dimension,
                b: features + firstColumn * dimension, ldb: dimension, transposeB: true,
                c: scores, ldc: columns)
            for row in 0..<rows {
                let query = firstRow + row
                let listIndices = indices + query * k, listSimilarities = similarities + query * k
                let rowScores = scores + row * columns
                for column in 0..<columns {
                    let candidate = firstColumn + column
                    let similarity = rowScores[column]
                    // Columns arrive in ascending order, so a candidate equal to the last kept one comes after it.
                    guard candidate != query, similarity > listSimilarities[k - 1] else { continue }
                    insert(Int32(candidate), similarity, indices: listIndices, similarities: listSimilarities, k: k)
                }
            }
            firstColumn += columns
        }
    }

    /// Puts a candidate into a list sorted by similarity (descending), dropping the last entry. Equal similarities
    /// keep the earlier (lower) index first.
    @inline(__always)
    private static func insert(
        _ candidate: Int32, _ similarity: Float, indices: UnsafeMutablePointer<Int32>,
        similarities: UnsafeMutablePointer<Float>, k: Int
    ) {
        var place = k - 1
        while place > 0 && similarities[place - 1] < similarity {
            similarities[place] = similarities[place - 1]
            indices[place] = indices[place - 1]
            place -= 1
        }
        similarities[place] = similarity
        indices[place] = candidate
    }
}
