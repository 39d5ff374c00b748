/*
 * What every vector kernel file starts with, for CKernels and CTrainingKernels alike (the latter includes it by
 * path; it is in neither target's public include folder, so Swift never sees it): the per-function target
 * attributes and the lane masks for a partial channel block. Include it inside `#if defined(__x86_64__)`.
 */
#ifndef WORKBENCH_VECTOR_HELPERS_H
#define WORKBENCH_VECTOR_HELPERS_H

#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,fma")))
#define INLINE_AVX2 static inline __attribute__((always_inline, target("avx2,fma")))
#define AVX512 __attribute__((target("avx512f")))
#define INLINE_AVX512 static inline __attribute__((always_inline, target("avx512f")))

/* Loops over a tile's rows or a kernel's taps unroll completely, so their accumulators stay in registers. */
#define UNROLL _Pragma("clang loop unroll(full)")

/* AVX2: 32-bit lanes [0, count) set, for count in 0...8 (one unaligned load from a table, no compare). */
INLINE_AVX2 __m256i wb_lane_mask8(long count) {
    static const int ones[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256((const __m256i *)(ones + 8 - count));
}

/* AVX-512: lanes [0, count) set, for count ≥ 1 (16 or more: all of them). */
INLINE_AVX512 __mmask16 wb_lanes16(long count) {
    return count >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << count) - 1);
}

/* The same for any count: none when count ≤ 0. */
INLINE_AVX512 __mmask16 wb_lanes16_or_none(long count) {
    if (count <= 0) return 0;
    if (count >= 16) return 0xFFFF;
    return (__mmask16)((1u << count) - 1);
}

#endif
