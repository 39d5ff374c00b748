/*
 * The weight gradient of a 1×1 convolution, W[i, o] = Σ_p X[p, i]·G[p, o], with 512-bit registers: a tile of up to
 * 6 input channels × 64 output channels sits in 24 zmm accumulators while the pixels stream past; per pixel, 6
 * broadcasts of X (one contiguous run of the pixel's row) and four loads of G feed 24 FMAs. Neither matrix needs
 * packing: X's rows and G's rows are read where they are. Pixels go in chunks whose G panel (chunk × 64 columns)
 * stays in L1 while every input-channel tile passes over it; the tiles' partial sums wait in W between chunks.
 * Measured against 12 × 32 and 8 × 48 tiles on the network's shapes, 6 × 64 was the fastest or close to it on
 * all of them (150–205 GFLOP/s on the 7×7 and 14×14 layers, one core).
 * Written because Debian's OpenBLAS 0.3.21 runs its Haswell (AVX2) kernels on AVX-512 CPUs it does not know
 * (such as Zen 5): about 115 GFLOP/s on these shapes.
 */
#include "ctrainingkernels.h"

#include <string.h>

#if defined(__x86_64__)
#include "../CKernels/vector_helpers.h"

/* R input channels × Z registers of output channels (both compile-time constants in every inlined copy), over
 * pixels [first, end); mask[z] covers the columns that exist. */
INLINE_AVX512 void tile(const long R, const long Z, const float *input, long inputs, const float *outputGradient, long outputs,
                        long first, long end, long i, long o, const __mmask16 *mask, float *weightGradient) {
    __m512 sum[6][4];
    UNROLL for (long r = 0; r < R; r++) {
        UNROLL for (long z = 0; z < Z; z++) sum[r][z] = _mm512_maskz_loadu_ps(mask[z], weightGradient + (i + r) * outputs + o + 16 * z);
    }
    const float *x = input + first * inputs + i;
    const float *g = outputGradient + first * outputs + o;
    for (long p = first; p < end; p++, x += inputs, g += outputs) {
        __m512 gradient[4];
        UNROLL for (long z = 0; z < Z; z++) gradient[z] = _mm512_maskz_loadu_ps(mask[z], g + 16 * z);
        UNROLL for (long r = 0; r < R; r++) {
            const __m512 value = _mm512_set1_ps(x[r]);
            UNROLL for (long z = 0; z < Z; z++) sum[r][z] = _mm512_fmadd_ps(value, gradient[z], sum[r][z]);
        }
    }
    UNROLL for (long r = 0; r < R; r++) {
        UNROLL for (long z = 0; z < Z; z++) _mm512_mask_storeu_ps(weightGradient + (i + r) * outputs + o + 16 * z, mask[z], sum[r][z]);
    }
}

/* Every input channel for the Z-register column tile at o: 6 rows at a time, then the rest one by one. */
INLINE_AVX512 void columns(const long Z, const float *input, long inputs, const float *outputGradient, long outputs, long first,
                           long end, long o, const __mmask16 *mask, float *weightGradient) {
    long i = 0;
    for (; i + 6 <= inputs; i += 6) tile(6, Z, input, inputs, outputGradient, outputs, first, end, i, o, mask, weightGradient);
    for (; i < inputs; i++) tile(1, Z, input, inputs, outputGradient, outputs, first, end, i, o, mask, weightGradient);
}

AVX512 void wbt_weight_gradient_avx512(const float *input, const float *outputGradient, long pixels, long inputs, long outputs,
                                       int accumulates, float *weightGradient) {
    if (!accumulates) memset(weightGradient, 0, (size_t)(inputs * outputs) * sizeof(float));
    /* 192 pixels × 64 columns of G are 48 KB; narrow layers (24 or 40 outputs) take longer chunks for the same bytes. */
    const long chunk = outputs >= 64 ? 192 : 384;
    for (long first = 0; first < pixels; first += chunk) {
        const long end = first + chunk < pixels ? first + chunk : pixels;
        for (long o = 0; o < outputs; o += 64) {
            __mmask16 mask[4];
            for (long z = 0; z < 4; z++) {
                const long remaining = outputs - o - 16 * z;
                mask[z] = remaining <= 0 ? 0 : wb_lanes16(remaining);
            }
            const long registers = (outputs - o + 15) / 16;
            switch (registers >= 4 ? 4 : registers) {
            case 4: columns(4, input, inputs, outputGradient, outputs, first, end, o, mask, weightGradient); break;
            case 3: columns(3, input, inputs, outputGradient, outputs, first, end, o, mask, weightGradient); break;
            case 2: columns(2, input, inputs, outputGradient, outputs, first, end, o, mask, weightGradient); break;
            default: columns(1, input, inputs, outputGradient, outputs, first, end, o, mask, weightGradient); break;
            }
        }
    }
}

#else
void wbt_weight_gradient_avx512(const float *input, const float *outputGradient, long pixels, long inputs, long outputs,
                                int accumulates, float *weightGradient) {}
#endif
