/*
 * elementwise_avx512.c with 8 channels per 256-bit register; the channel tail (channels % 8) goes one value at a
 * time, in the same order as the vector lanes would.
 */
#include "ctrainingkernels.h"

#if defined(__x86_64__)
#include "../CKernels/vector_helpers.h"
#include "scale_bias_sums.h"

enum { rowsPerPartialSum = 256 };

AVX2 void wbt_scale_bias_avx2(const float *input, long rows, long channels, const float *scale, const float *bias,
                              float lower, float upper, const float *residual, float *output) {
    const __m256 low = _mm256_set1_ps(lower), high = _mm256_set1_ps(upper);
    const long vectorEnd = channels / 8 * 8;
    for (long row = 0; row < rows; row++) {
        const long offset = row * channels;
        long c = 0;
        for (; c < vectorEnd; c += 8) {
            __m256 value = _mm256_fmadd_ps(_mm256_loadu_ps(input + offset + c), _mm256_loadu_ps(scale + c), _mm256_loadu_ps(bias + c));
            value = _mm256_min_ps(_mm256_max_ps(value, low), high);
            if (residual) value = _mm256_add_ps(value, _mm256_loadu_ps(residual + offset + c));
            _mm256_storeu_ps(output + offset + c, value);
        }
        for (; c < channels; c++) {
            float value = __builtin_fmaf(input[offset + c], scale[c], bias[c]);
            value = value < lower ? lower : (value > upper ? upper : value);
            if (residual) value += residual[offset + c];
            output[offset + c] = value;
        }
    }
}

AVX2 void wbt_scale_bias_backward_avx2(const float *outputGradient, const float *input, long rows, long channels,
                                       const float *scale, const float *activation, float *inputGradient,
                                       float *scaleGradient, float *biasGradient) {
    float scalePartial[channels], biasPartial[channels];
    double scaleTotal[channels], biasTotal[channels];
    for (long c = 0; c < channels; c++) scaleTotal[c] = biasTotal[c] = 0;
    const int sumsScale = input != 0 && scaleGradient != 0;
    const __m256 zero = _mm256_setzero_ps(), six = _mm256_set1_ps(6);
    const long vectorEnd = channels / 8 * 8;
    for (long first = 0; first < rows; first += rowsPerPartialSum) {
        for (long c = 0; c < channels; c++) scalePartial[c] = biasPartial[c] = 0;
        const long end = first + rowsPerPartialSum < rows ? first + rowsPerPartialSum : rows;
        for (long row = first; row < end; row++) {
            const long offset = row * channels;
            long c = 0;
            for (; c < vectorEnd; c += 8) {
                __m256 gradient = _mm256_loadu_ps(outputGradient + offset + c);
                if (activation) {
                    const __m256 value = _mm256_loadu_ps(activation + offset + c);
                    const __m256 inside = _mm256_and_ps(_mm256_cmp_ps(value, zero, _CMP_GT_OQ), _mm256_cmp_ps(value, six, _CMP_LT_OQ));
                    gradient = _mm256_and_ps(gradient, inside);
                }
                if (sumsScale) {
                    _mm256_storeu_ps(scalePartial + c,
                                     _mm256_fmadd_ps(gradient, _mm256_loadu_ps(input + offset + c), _mm256_loadu_ps(scalePartial + c)));
                }
                _mm256_storeu_ps(biasPartial + c, _mm256_add_ps(gradient, _mm256_loadu_ps(biasPartial + c)));
                if (inputGradient) {
                    if (scale) gradient = _mm256_mul_ps(gradient, _mm256_loadu_ps(scale + c));
                    _mm256_storeu_ps(inputGradient + offset + c, gradient);
                }
            }
            for (; c < channels; c++) {
                float gradient = outputGradient[offset + c];
                if (activation && !(activation[offset + c] > 0 && activation[offset + c] < 6)) gradient = 0;
                if (sumsScale) scalePartial[c] = __builtin_fmaf(gradient, input[offset + c], scalePartial[c]);
                biasPartial[c] += gradient;
                if (inputGradient) inputGradient[offset + c] = scale ? gradient * scale[c] : gradient;
            }
        }
        wbt_add_partial_sums(channels, scalePartial, biasPartial, scaleTotal, biasTotal);
    }
    wbt_store_totals(channels, sumsScale, scaleTotal, biasTotal, scaleGradient, biasGradient);
}

#else
void wbt_scale_bias_avx2(const float *input, long rows, long channels, const float *scale, const float *bias,
                         float lower, float upper, const float *residual, float *output) {}
void wbt_scale_bias_backward_avx2(const float *outputGradient, const float *input, long rows, long channels,
                                  const float *scale, const float *activation, float *inputGradient,
                                  float *scaleGradient, float *biasGradient) {}
#endif
