/*
 * Per-channel scale and bias (the folded batch norm), fused with ReLU6 or the residual add, and its backward pass,
 * with 16 channels per 512-bit register and masked tails. Memory-bound: each tensor is streamed once.
 */
#include "ctrainingkernels.h"

#if defined(__x86_64__)
#include "../CKernels/vector_helpers.h"
#include "scale_bias_sums.h"

/* Rows summed in float before the double totals: accurate float sums, negligible double work. */
enum { rowsPerPartialSum = 256 };

AVX512 void wbt_scale_bias_avx512(const float *input, long rows, long channels, const float *scale, const float *bias,
                                  float lower, float upper, const float *residual, float *output) {
    const __m512 low = _mm512_set1_ps(lower), high = _mm512_set1_ps(upper);
    for (long row = 0; row < rows; row++) {
        const long offset = row * channels;
        for (long c = 0; c < channels; c += 16) {
            const __mmask16 mask = wb_lanes16(channels - c);
            __m512 value = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, input + offset + c), _mm512_maskz_loadu_ps(mask, scale + c),
                                           _mm512_maskz_loadu_ps(mask, bias + c));
            value = _mm512_min_ps(_mm512_max_ps(value, low), high);
            if (residual) value = _mm512_add_ps(value, _mm512_maskz_loadu_ps(mask, residual + offset + c));
            _mm512_mask_storeu_ps(output + offset + c, mask, value);
        }
    }
}

AVX512 void wbt_scale_bias_backward_avx512(const float *outputGradient, const float *input, long rows, long channels,
                                           const float *scale, const float *activation, float *inputGradient,
                                           float *scaleGradient, float *biasGradient) {
    float scalePartial[channels], biasPartial[channels];
    double scaleTotal[channels], biasTotal[channels];
    for (long c = 0; c < channels; c++) scaleTotal[c] = biasTotal[c] = 0;
    const int sumsScale = input != 0 && scaleGradient != 0;
    const __m512 zero = _mm512_setzero_ps(), six = _mm512_set1_ps(6);
    for (long first = 0; first < rows; first += rowsPerPartialSum) {
        for (long c = 0; c < channels; c++) scalePartial[c] = biasPartial[c] = 0;
        const long end = first + rowsPerPartialSum < rows ? first + rowsPerPartialSum : rows;
        for (long row = first; row < end; row++) {
            const long offset = row * channels;
            for (long c = 0; c < channels; c += 16) {
                const __mmask16 mask = wb_lanes16(channels - c);
                __m512 gradient = _mm512_maskz_loadu_ps(mask, outputGradient + offset + c);
                if (activation) {
                    const __m512 value = _mm512_maskz_loadu_ps(mask, activation + offset + c);
                    const __mmask16 inside = _mm512_cmp_ps_mask(value, zero, _CMP_GT_OQ) & _mm512_cmp_ps_mask(value, six, _CMP_LT_OQ);
                    gradient = _mm512_maskz_mov_ps(inside, gradient);
                }
                if (sumsScale) {
                    const __m512 x = _mm512_maskz_loadu_ps(mask, input + offset + c);
                    _mm512_mask_storeu_ps(scalePartial + c, mask, _mm512_fmadd_ps(gradient, x, _mm512_maskz_loadu_ps(mask, scalePartial + c)));
                }
                _mm512_mask_storeu_ps(biasPartial + c, mask, _mm512_add_ps(gradient, _mm512_maskz_loadu_ps(mask, biasPartial + c)));
                if (inputGradient) {
                    if (scale) gradient = _mm512_mul_ps(gradient, _mm512_maskz_loadu_ps(mask, scale + c));
                    _mm512_mask_storeu_ps(inputGradient + offset + c, mask, gradient);
                }
            }
        }
        wbt_add_partial_sums(channels, scalePartial, biasPartial, scaleTotal, biasTotal);
    }
    wbt_store_totals(channels, sumsScale, scaleTotal, biasTotal, scaleGradient, biasGradient);
}

#else
void wbt_scale_bias_avx512(const float *input, long rows, long channels, const float *scale, const float *bias,
                           float lower, float upper, const float *residual, float *output) {}
void wbt_scale_bias_backward_avx512(const float *outputGradient, const float *input, long rows, long channels,
                                    const float *scale, const float *activation, float *inputGradient,
                                    float *scaleGradient, float *biasGradient) {}
#endif
