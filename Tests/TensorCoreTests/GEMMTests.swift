import TensorCore
import XCTest
import _TestSupport

final class GEMMTests: XCTestCase {
    /// BLAS against the triple loop on odd shapes, every transpose combination, with alpha and beta.
    func testBLASMatchesReferenceOnOddShapes() {
        var random = SeededGenerator(seed: 7)
        for (m, n, k) in [(1, 1, 1), (3, 5, 7), (13, 2, 9), (17, 31, 1), (33, 16, 96)] {
            for transposeA in [false, true] {
                for transposeB in [false, true] {
                    let a = random.floats(m * k), b = random.floats(k * n), c0 = random.floats(m * n)
                    let lda = transposeA ? m : k, ldb = transposeB ? k : n
                    var fast = c0, slow = c0
                    a.withUnsafeBufferPointer { a in
                        b.withUnsafeBufferPointer { b in
                            GEMM.multiply(
                                m: m, n: n, k: k, a: a.baseAddress!, lda: lda, transposeA: transposeA,
                                b: b.baseAddress!, ldb: ldb, transposeB: transposeB,
                                c: &fast, ldc: n, alpha: 0.5, beta: 2)
                            GEMM.referenceMultiply(
                                m: m, n: n, k: k, a: a.baseAddress!, lda: lda, transposeA: transposeA,
                                b: b.baseAddress!, ldb: ldb, transposeB: transposeB,
                                c: &slow, ldc: n, alpha: 0.5, beta: 2)
                        }
                    }
                    assertClose(fast, slow, absolute: 1e-4, "m=\(m) n=\(n) k=\(k) tA=\(transposeA) tB=\(transposeB)")
                }
            }
        }
    }
}
