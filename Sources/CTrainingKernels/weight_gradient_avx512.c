/*
 * The weight gradient of a 1×1 convolution, W[i, o] = Σ_p X[p, i]·G[p, o], with 512-bit registers: a tile of up to
 * 12 input channels × 32 output channels sits in 24 zmm accumulators while the pixels stream past; per pixel, 12
 * broadcasts of X (one contiguous run of the pixel's row) and two loads of G feed 24 FMAs. Neither matrix needs
 * packing: X's rows and G's rows are read where they are. Pixels go in chunks whose G panel (chunk × 32 columns)
 * stays in L1 while every input-channel tile passes over it; the tile's partial sums wait in W between chunks.
 * Written because Debian's OpenBLAS 0.3.21 runs its Haswell (AVX2) kernels on AVX-512 CPUs it does not know
 * (such as Zen 5): about 80 GFLOP/s on these shapes where 512-bit kernels reach 200.
 */
#include "ctrainingkernels.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f")))
#define INLINE_AVX512 static inline __attribute__((always_inline, target("avx512f")))
#define UNROLL _Pragma("clang loop unroll(full)")

/* 192 pixels × 32 columns of G are 24 KB: with the 12-channel run of X per pixel (12 KB) they fit a 48 KB L1. */
enum { pixelChunk = 192 };

INLINE_AVX512 __mmask16 lanes(long count) {
    if (count <= 0) return 0;
    return count >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << count) - 1);
}

/* R input channels (a compile-time constant in every inlined copy) × up to 32 output channels, pixels [first, end). */
INLINE_AVX512 void tile(const long R, const float *input, long inputs, const float *outputGradient, long outputs, long first,
                        long end, long i, long o, __mmask16 low, __mmask16 high, float *weightGradient) {
    __m512 c0[12], c1[12];
    UNROLL for (long r = 0; r < R; r++) {
        c0[r] = _mm512_maskz_loadu_ps(low, weightGradient + (i + r) * outputs + o);
        c1[r] = _mm512_maskz_loadu_ps(high, weightGradient + (i + r) * outputs + o + 16);
    }
    const float *x = input + first * inputs + i;
    const float *g = outputGradient + first * outputs + o;
    for (long p = first; p < end; p++, x += inputs, g += outputs) {
        const __m512 g0 = _mm512_maskz_loadu_ps(low, g), g1 = _mm512_maskz_loadu_ps(high, g + 16);
        UNROLL for (long r = 0; r < R; r++) {
            const __m512 value = _mm512_set1_ps(x[r]);
            c0[r] = _mm512_fmadd_ps(value, g0, c0[r]);
            c1[r] = _mm512_fmadd_ps(value, g1, c1[r]);
        }
    }
    UNROLL for (long r = 0; r < R; r++) {
        _mm512_mask_storeu_ps(weightGradient + (i + r) * outputs + o, low, c0[r]);
        _mm512_mask_storeu_ps(weightGradient + (i + r) * outputs + o + 16, high, c1[r]);
    }
}

AVX512 void wbt_weight_gradient_avx512(const float *input, const float *outputGradient, long pixels, long inputs, long outputs,
                                       float *weightGradient) {
    memset(weightGradient, 0, (size_t)(inputs * outputs) * sizeof(float));
    for (long first = 0; first < pixels; first += pixelChunk) {
        const long end = first + pixelChunk < pixels ? first + pixelChunk : pixels;
        for (long o = 0; o < outputs; o += 32) {
            const __mmask16 low = lanes(outputs - o), high = lanes(outputs - o - 16);
            long i = 0;
            for (; i + 12 <= inputs; i += 12) tile(12, input, inputs, outputGradient, outputs, first, end, i, o, low, high, weightGradient);
            if (i + 8 <= inputs) { tile(8, input, inputs, outputGradient, outputs, first, end, i, o, low, high, weightGradient); i += 8; }
            if (i + 4 <= inputs) { tile(4, input, inputs, outputGradient, outputs, first, end, i, o, low, high, weightGradient); i += 4; }
            for (; i < inputs; i++) tile(1, input, inputs, outputGradient, outputs, first, end, i, o, low, high, weightGradient);
        }
    }
}

#else
void wbt_weight_gradient_avx512(const float *input, const float *outputGradient, long pixels, long inputs, long outputs,
                                float *weightGradient) {}
#endif
