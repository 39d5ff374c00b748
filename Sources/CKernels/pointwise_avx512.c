/*
 * The 1×1 convolution of pointwise.c with 512-bit registers: 12 pixels × 32 output channels in 24 zmm
 * accumulators (14 loads feed 24 FMAs per input channel). Panels narrower than 32 (the last 8 or 16 columns)
 * use one register with a masked weight load (24-wide ones two); AVX-512 masks also handle the last, partial store.
 */
#include "ckernels.h"

#if defined(__x86_64__)
#include "vector_helpers.h"

INLINE_AVX512 void finish(__m512 sum, const float *bias, const float *residual, float *output, __mmask16 mask,
                          __m512 lower, __m512 upper) {
    if (!mask) return;
    __m512 value = _mm512_add_ps(sum, _mm512_maskz_loadu_ps(mask, bias));
    value = _mm512_min_ps(_mm512_max_ps(value, lower), upper);
    if (residual) value = _mm512_add_ps(value, _mm512_maskz_loadu_ps(mask, residual));
    _mm512_mask_storeu_ps(output, mask, value);
}

/*
 * rows (1...tileRows) pixels × one panel of width 32 (two registers) or 8/16 (one, masked). Missing rows re-read
 * row 0 and are never stored. tileRows is 12, or 4 or 8 for the last pixels (49 = 4·12 + 1 would otherwise
 * compute 11 dead rows on the 7×7 layers, 30 % of the network's multiply-adds).
 */
INLINE_AVX512 void tile(const long tileRows, const float *a, long lda, long rows, long inputs, const float *panel,
                        long panelWidth, const float *ahead, const float *bias, const float *residual, float *output,
                        long ldc, long columns, __m512 lower, __m512 upper) {
    const float *row[12];
    UNROLL for (long r = 0; r < tileRows; r++) row[r] = a + (r < rows ? r : 0) * lda;
    __m512 c0[12], c1[12];
    UNROLL for (long r = 0; r < tileRows; r++) { c0[r] = _mm512_setzero_ps(); c1[r] = _mm512_setzero_ps(); }
    if (panelWidth > 16) {
        /* 24 or 32 columns: two registers, the second masked for 24 (the 24-channel project layers). */
        const __mmask16 secondMask = wb_lanes16_or_none(panelWidth - 16);
        const float *b = panel;
        for (long k = 0; k < inputs; k++, b += panelWidth) {
            /* Pull the next panel toward L2 while this one computes: the late layers' weights (up to 1.8 MB a
             * block) are usually out of cache at batch 1, and the first tile would otherwise wait on memory. */
            _mm_prefetch((const char *)(ahead + k * 32), _MM_HINT_T1);
            _mm_prefetch((const char *)(ahead + k * 32 + 16), _MM_HINT_T1);
            const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_maskz_loadu_ps(secondMask, b + 16);
            UNROLL for (long r = 0; r < tileRows; r++) {
                const __m512 x = _mm512_set1_ps(row[r][k]);
                c0[r] = _mm512_fmadd_ps(x, b0, c0[r]);
                c1[r] = _mm512_fmadd_ps(x, b1, c1[r]);
            }
        }
    } else {
        const __mmask16 panelMask = wb_lanes16_or_none(panelWidth);
        const float *b = panel;
        for (long k = 0; k < inputs; k++, b += panelWidth) {
            const __m512 b0 = _mm512_maskz_loadu_ps(panelMask, b);
            UNROLL for (long r = 0; r < tileRows; r++) c0[r] = _mm512_fmadd_ps(_mm512_set1_ps(row[r][k]), b0, c0[r]);
        }
    }
    const __mmask16 first = wb_lanes16_or_none(columns), second = panelWidth > 16 ? wb_lanes16_or_none(columns - 16) : 0;
    UNROLL for (long r = 0; r < tileRows; r++) {
        if (r < rows) {
            const float *skip = residual ? residual + r * ldc : 0;
            finish(c0[r], bias, skip, output + r * ldc, first, lower, upper);
            finish(c1[r], bias + 16, skip ? skip + 16 : 0, output + r * ldc + 16, second, lower, upper);
        }
    }
}

AVX512 void wb_pointwise_avx512(const float *input, long pixels, long inputs, long inputStride,
                                const float *packed, long outputs, const float *bias,
                                float lower, float upper, const float *residual, const float *following,
                                float *output) {
    const __m512 lowerVector = _mm512_set1_ps(lower), upperVector = _mm512_set1_ps(upper);
    const long padded = (outputs + 7) / 8 * 8;
    /* About 96 KB of inputs per block: L2-resident while all panels pass over it. */
    long block = (24 * 1024 / (inputs > 0 ? inputs : 1)) / 12 * 12;
    if (block < 12) block = 12;
    if (block > 384) block = 384;
    for (long first = 0; first < pixels; first += block) {
        const long blockRows = pixels - first < block ? pixels - first : block;
        for (long column = 0, panelWidth; column < padded; column += panelWidth) {
            panelWidth = wb_pointwise_panel_width(padded - column);
            const float *panel = packed + column * inputs;
            /* The panel after this one (the first one again at the end: prefetching it is harmless). */
            const float *nextPanel = column + panelWidth < padded ? panel + panelWidth * inputs
                                   : first + blockRows < pixels || !following ? packed : following;
            const long columns = outputs - column;
            for (long row = first; row < first + blockRows; row += 12) {
                const long rows = first + blockRows - row < 12 ? first + blockRows - row : 12;
                const float *a = input + row * inputStride;
                const float *skip = residual ? residual + row * outputs + column : 0;
                float *destination = output + row * outputs + column;
                /* Only the block's first tile prefetches the next panel (32 floats a row; past a narrower last
                 * panel's end it touches nothing, as prefetches never fault); later tiles re-touch their own. */
                const float *ahead = row == first ? nextPanel : panel;
                if (rows > 8) {
                    tile(12, a, inputStride, rows, inputs, panel, panelWidth, ahead, bias + column, skip, destination,
                         outputs, columns, lowerVector, upperVector);
                } else if (rows > 4) {
                    tile(8, a, inputStride, rows, inputs, panel, panelWidth, ahead, bias + column, skip, destination,
                         outputs, columns, lowerVector, upperVector);
                } else {
                    tile(4, a, inputStride, rows, inputs, panel, panelWidth, ahead, bias + column, skip, destination,
                         outputs, columns, lowerVector, upperVector);
                }
            }
        }
    }
}
#else
void wb_pointwise_avx512(const float *input, long pixels, long inputs, long inputStride,
                         const float *packed, long outputs, const float *bias,
                         float lower, float upper, const float *residual, const float *following,
                         float *output) {
    (void)following; (void)input; (void)pixels; (void)inputs; (void)inputStride; (void)packed; (void)outputs; (void)bias;
    (void)lower; (void)upper; (void)residual; (void)output;
}
#endif
