/*
 * 1×1 convolution as a register-blocked matrix product with the bias, clamp and residual applied while the
 * results are still in registers.
 *
 * Weights are packed in panels of 32 columns (narrower at the right edge), shared with the AVX-512 kernel.
 * Micro-tile: 6 pixels × 16 output channels in 12 ymm accumulators; per input channel, two loads of the packed
 * weight panel and six broadcasts of the pixels' inputs feed 12 FMAs. The activations are read in place (no
 * packing: the network's input rows are short and already contiguous); the weights are packed once at load so a
 * panel is one sequential stream. Pixels are walked in blocks small enough for the block's inputs to stay in L2
 * while every panel passes over them.
 */
#include "ckernels.h"

long wb_packed_pointwise_count(long inputs, long outputs) {
    return inputs * ((outputs + 7) / 8 * 8);
}

long wb_pointwise_panel_width(long remaining) {
    return remaining >= 32 ? 32 : remaining;
}

void wb_pack_pointwise_weights(const float *weights, long inputs, long outputs, float *packed) {
    const long padded = (outputs + 7) / 8 * 8;
    for (long first = 0, panelWidth; first < padded; first += panelWidth) {
        panelWidth = wb_pointwise_panel_width(padded - first);
        float *panel = packed + first * inputs;
        for (long i = 0; i < inputs; i++) {
            for (long j = 0; j < panelWidth; j++) {
                const long column = first + j;
                panel[i * panelWidth + j] = column < outputs ? weights[i * outputs + column] : 0.0f;
            }
        }
    }
}

#if defined(__x86_64__)
#include "vector_helpers.h"

/* Finishes 8 output channels of one pixel: bias, clamp, residual, store (masked when fewer than 8 remain). */
INLINE_AVX2 void finish8(__m256 sum, const float *bias, const float *residual, float *output, long valid,
                         __m256 lower, __m256 upper) {
    if (valid >= 8) {
        __m256 value = _mm256_add_ps(sum, _mm256_loadu_ps(bias));
        value = _mm256_min_ps(_mm256_max_ps(value, lower), upper);
        if (residual) value = _mm256_add_ps(value, _mm256_loadu_ps(residual));
        _mm256_storeu_ps(output, value);
    } else if (valid > 0) {
        const __m256i mask = wb_lane_mask8(valid);
        __m256 value = _mm256_add_ps(sum, _mm256_maskload_ps(bias, mask));
        value = _mm256_min_ps(_mm256_max_ps(value, lower), upper);
        if (residual) value = _mm256_add_ps(value, _mm256_maskload_ps(residual, mask));
        _mm256_maskstore_ps(output, mask, value);
    }
}

/*
 * rows (1...6) pixels × one panel. Missing rows re-read row 0 (never stored) so the loop has no branches.
 * `columns` is how many of the panel's channels exist (may be below its width at the right edge).
 */
INLINE_AVX2 void tile(const float *a, long lda, long rows, long inputs, const float *panel, long panelWidth,
                      long panelStride, const float *ahead, const float *bias, const float *residual, float *output, long ldc, long columns,
                      __m256 lower, __m256 upper) {
    const float *a0 = a;
    const float *a1 = a + (rows > 1 ? 1 : 0) * lda;
    const float *a2 = a + (rows > 2 ? 2 : 0) * lda;
    const float *a3 = a + (rows > 3 ? 3 : 0) * lda;
    const float *a4 = a + (rows > 4 ? 4 : 0) * lda;
    const float *a5 = a + (rows > 5 ? 5 : 0) * lda;
    __m256 c[6][2];
    for (int r = 0; r < 6; r++) { c[r][0] = _mm256_setzero_ps(); c[r][1] = _mm256_setzero_ps(); }
    if (panelWidth == 16) {
        const float *b = panel;
        for (long k = 0; k < inputs; k++, b += panelStride) {
            /* Pull the next panel toward L2 while this one computes (see pointwise_avx512.c). */
            _mm_prefetch((const char *)(ahead + k * 32), _MM_HINT_T1);
            _mm_prefetch((const char *)(ahead + k * 32 + 16), _MM_HINT_T1);
            const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
            __m256 x;
            x = _mm256_broadcast_ss(a0 + k); c[0][0] = _mm256_fmadd_ps(x, b0, c[0][0]); c[0][1] = _mm256_fmadd_ps(x, b1, c[0][1]);
            x = _mm256_broadcast_ss(a1 + k); c[1][0] = _mm256_fmadd_ps(x, b0, c[1][0]); c[1][1] = _mm256_fmadd_ps(x, b1, c[1][1]);
            x = _mm256_broadcast_ss(a2 + k); c[2][0] = _mm256_fmadd_ps(x, b0, c[2][0]); c[2][1] = _mm256_fmadd_ps(x, b1, c[2][1]);
            x = _mm256_broadcast_ss(a3 + k); c[3][0] = _mm256_fmadd_ps(x, b0, c[3][0]); c[3][1] = _mm256_fmadd_ps(x, b1, c[3][1]);
            x = _mm256_broadcast_ss(a4 + k); c[4][0] = _mm256_fmadd_ps(x, b0, c[4][0]); c[4][1] = _mm256_fmadd_ps(x, b1, c[4][1]);
            x = _mm256_broadcast_ss(a5 + k); c[5][0] = _mm256_fmadd_ps(x, b0, c[5][0]); c[5][1] = _mm256_fmadd_ps(x, b1, c[5][1]);
        }
    } else {
        const float *b = panel;
        for (long k = 0; k < inputs; k++, b += panelStride) {
            const __m256 b0 = _mm256_loadu_ps(b);
            c[0][0] = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + k), b0, c[0][0]);
            c[1][0] = _mm256_fmadd_ps(_mm256_broadcast_ss(a1 + k), b0, c[1][0]);
            c[2][0] = _mm256_fmadd_ps(_mm256_broadcast_ss(a2 + k), b0, c[2][0]);
            c[3][0] = _mm256_fmadd_ps(_mm256_broadcast_ss(a3 + k), b0, c[3][0]);
            c[4][0] = _mm256_fmadd_ps(_mm256_broadcast_ss(a4 + k), b0, c[4][0]);
            c[5][0] = _mm256_fmadd_ps(_mm256_broadcast_ss(a5 + k), b0, c[5][0]);
        }
    }
    for (long r = 0; r < rows; r++) {
        const float *skip = residual ? residual + r * ldc : 0;
        finish8(c[r][0], bias, skip, output + r * ldc, columns, lower, upper);
        if (panelWidth == 16) {
            finish8(c[r][1], bias + 8, skip ? skip + 8 : 0, output + r * ldc + 8, columns - 8, lower, upper);
        }
    }
}

AVX2 void wb_pointwise_avx2(const float *input, long pixels, long inputs, long inputStride,
                            const float *packed, long outputs, const float *bias,
                            float lower, float upper, const float *residual, const float *following,
                            float *output) {
    const __m256 lowerVector = _mm256_set1_ps(lower), upperVector = _mm256_set1_ps(upper);
    const long padded = (outputs + 7) / 8 * 8;
    /* About 96 KB of inputs per block: L2-resident while all panels pass over it. */
    long block = (24 * 1024 / (inputs > 0 ? inputs : 1)) / 6 * 6;
    if (block < 6) block = 6;
    if (block > 384) block = 384;
    for (long first = 0; first < pixels; first += block) {
        const long blockRows = pixels - first < block ? pixels - first : block;
        for (long panelStart = 0, panelStride; panelStart < padded; panelStart += panelStride) {
            panelStride = wb_pointwise_panel_width(padded - panelStart);
            /* A 32-wide panel is two 16-wide halves for this kernel, read with the panel's row stride. */
            for (long part = 0, panelWidth; part < panelStride; part += panelWidth) {
                panelWidth = panelStride - part >= 16 ? 16 : 8;
                const long column = panelStart + part;
                const float *panel = packed + panelStart * inputs + part;
                const long columns = outputs - column;
                /* The block's first tile of a panel prefetches the next panel (harmless past the end). */
                const float *nextPanel = panelStart + panelStride < padded ? packed + (panelStart + panelStride) * inputs
                                       : first + blockRows < pixels || !following ? packed : following;
                for (long row = first; row < first + blockRows; row += 6) {
                    const long rows = first + blockRows - row < 6 ? first + blockRows - row : 6;
                    const float *ahead = row == first && part == 0 ? nextPanel : panel;
                    tile(input + row * inputStride, inputStride, rows, inputs, panel, panelWidth, panelStride, ahead,
                         bias + column, residual ? residual + row * outputs + column : 0,
                         output + row * outputs + column, outputs, columns, lowerVector, upperVector);
                }
            }
        }
    }
}
#else
void wb_pointwise_avx2(const float *input, long pixels, long inputs, long inputStride,
                       const float *packed, long outputs, const float *bias,
                       float lower, float upper, const float *residual, const float *following,
                       float *output) {
    (void)following; (void)input; (void)pixels; (void)inputs; (void)inputStride; (void)packed; (void)outputs; (void)bias;
    (void)lower; (void)upper; (void)residual; (void)output;
}
#endif
