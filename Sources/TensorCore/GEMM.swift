import CBLAS

/// Single-precision matrix products. This is the only file that calls BLAS.
///
/// All matrices are row-major. `C[M, N] = alpha · op(A) · op(B) + beta · C`, where `op(A)` is `[M, K]`
/// and `op(B)` is `[K, N]`. With `transposeA`, `A` is stored as `[K, M]`; with `transposeB`, `B` as `[N, K]`.
/// Leading dimensions are the row lengths of the stored matrices.
public enum GEMM {
    /// Runs `C = alpha · op(A) · op(B) + beta · C` through OpenBLAS's `cblas_sgemm`.
    ///
    /// Layout mapping: CblasRowMajor with `lda`/`ldb`/`ldc` the stored row lengths, so no copies are made;
    /// `transposeA`/`transposeB` map to CblasTrans on the stored operands.
    public static func multiply(
        m: Int, n: Int, k: Int,
        a: UnsafePointer<Float>, lda: Int, transposeA: Bool = false,
        b: UnsafePointer<Float>, ldb: Int, transposeB: Bool = false,
        c: UnsafeMutablePointer<Float>, ldc: Int,
        alpha: Float = 1, beta: Float = 0
    ) {
        precondition(m >= 0 && n >= 0 && k >= 0, "GEMM: negative dimension")
        if m == 0 || n == 0 { return }
        cblas_sgemm(
            CblasRowMajor,
            transposeA ? CblasTrans : CblasNoTrans,
            transposeB ? CblasTrans : CblasNoTrans,
            Int32(m), Int32(n), Int32(k),
            alpha, a, Int32(lda), b, Int32(ldb),
            beta, c, Int32(ldc))
    }

    /// `c = a · bᵀ + beta · c` on whole row-major arrays: `a [rows, depth]`, `b [columns, depth]` (a layer's or a
    /// classifier's `[out, in]` weights, used as stored), `c [rows, columns]`. The product of a dense layer and of
    /// the logistic regression, without each caller opening the buffers.
    public static func multiplyByTranspose(
        _ a: [Float], _ b: [Float], rows: Int, columns: Int, depth: Int,
        into c: inout [Float], beta: Float = 0
    ) {
        precondition(
            a.count == rows * depth && b.count == columns * depth && c.count == rows * columns,
            "GEMM: array sizes do not match [\(rows), \(depth)] · [\(columns), \(depth)]ᵀ")
        if rows == 0 || columns == 0 { return }
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                c.withUnsafeMutableBufferPointer { c in
                    multiply(
                        m: rows, n: columns, k: depth, a: a.baseAddress!, lda: depth, b: b.baseAddress!, ldb: depth,
                        transposeB: true, c: c.baseAddress!, ldc: columns, beta: beta)
                }
            }
        }
    }

    /// The naive triple loop with the same contract as `multiply`, kept as the reference for tests.
    public static func referenceMultiply(
        m: Int, n: Int, k: Int,
        a: UnsafePointer<Float>, lda: Int, transposeA: Bool = false,
        b: UnsafePointer<Float>, ldb: Int, transposeB: Bool = false,
        c: UnsafeMutablePointer<Float>, ldc: Int,
        alpha: Float = 1, beta: Float = 0
    ) {
        for i in 0..<m {
            for j in 0..<n {
                var sum: Double = 0
                for p in 0..<k {
                    let aValue = transposeA ? a[p * lda + i] : a[i * lda + p]
                    let bValue = transposeB ? b[j * ldb + p] : b[p * ldb + j]
                    sum += Double(aValue) * Double(bValue)
                }
                let previous = beta == 0 ? 0 : beta * c[i * ldc + j]
                c[i * ldc + j] = alpha * Float(sum) + previous
            }
        }
    }

    /// Sets how many threads OpenBLAS's own pool may use. Workbench runs one image per worker thread,
    /// so it keeps BLAS single-threaded there and avoids oversubscribing the cores.
    public static func setBLASThreads(_ count: Int) {
        openblas_set_num_threads(Int32(max(1, count)))
    }
}
