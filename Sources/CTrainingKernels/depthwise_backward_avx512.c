/*
 * The depthwise convolution's backward pass, 16 channels per 512-bit register, gathered per input pixel: for each
 * input pixel, the taps that reached an output pixel give
 *     inputGradient = Σ_taps weights[tap] · outputGradient[output pixel]     (one store, no zeroing, no re-reads)
 *     weightGradient[tap] += input · outputGradient[output pixel]             (k² accumulators in registers)
 * so every (input pixel, tap, output pixel) triple costs one load of the output gradient and two FMAs. The input
 * is loaded once per pixel, which is also what the optional ReLU6 mask needs: when the input is the previous
 * layer's ReLU6 output, its gradient is zeroed outside (0, 6) before the store and summed (that layer's bias
 * gradient), so the block never makes a separate pass over its largest tensor for it.
 * Input row by input row, channel block by channel block within a row: the rows under the window stay in L1/L2
 * (a channel block sweeping the whole image instead touches one cache line in six of a tensor bigger than L2,
 * and read everything six times). Kernel 3 and 5 × stride 1 and 2 are compile-time specialisations, so the tap
 * loops unroll; which taps reach an output pixel is decided per row (vertically) and per pixel (horizontally).
 */
#include "ctrainingkernels.h"

#if defined(__x86_64__)
#include "../CKernels/vector_helpers.h"

/* One input row iy, the channel block at c. rowOutput[ky] is the output row tap row ky reaches, or -1. */
INLINE_AVX512 void row_block(const long K, const long S, const float *input, const float *outputGradient, const float *weights,
                             long width, long channels, long padLeft, long outputWidth, long iy, const long *rowOutput,
                             float *inputGradient, int masks, double *inputGradientSum, float *weightGradient, long c) {
    const __mmask16 mask = wb_lanes16(channels - c);
    __m512 tapWeight[25], accumulator[25];
    UNROLL for (long t = 0; t < K * K; t++) {
        tapWeight[t] = _mm512_maskz_loadu_ps(mask, weights + t * channels + c);
        accumulator[t] = _mm512_maskz_loadu_ps(mask, weightGradient + t * channels + c);
    }
    __m512 rowSum = _mm512_setzero_ps();
    const __m512 zero = _mm512_setzero_ps(), six = _mm512_set1_ps(6);
    const float *inputRow = input + iy * width * channels + c;
    for (long ix = 0; ix < width; ix++) {
        const __m512 x = _mm512_maskz_loadu_ps(mask, inputRow + ix * channels);
        __m512 sum = _mm512_setzero_ps();
        UNROLL for (long ky = 0; ky < K; ky++) {
            if (rowOutput[ky] < 0) continue;
            const float *gradientRow = outputGradient + rowOutput[ky] * outputWidth * channels + c;
            UNROLL for (long kx = 0; kx < K; kx++) {
                const long nx = ix + padLeft - kx;
                if (nx < 0 || (nx & (S - 1)) != 0 || nx / S >= outputWidth) continue;
                const __m512 gradient = _mm512_maskz_loadu_ps(mask, gradientRow + nx / S * channels);
                sum = _mm512_fmadd_ps(tapWeight[ky * K + kx], gradient, sum);
                accumulator[ky * K + kx] = _mm512_fmadd_ps(x, gradient, accumulator[ky * K + kx]);
            }
        }
        if (masks) {
            const __mmask16 inside = _mm512_cmp_ps_mask(x, zero, _CMP_GT_OQ) & _mm512_cmp_ps_mask(x, six, _CMP_LT_OQ);
            sum = _mm512_maskz_mov_ps(inside, sum);
        }
        if (inputGradient) _mm512_mask_storeu_ps(inputGradient + (iy * width + ix) * channels + c, mask, sum);
        rowSum = _mm512_add_ps(rowSum, sum);
    }
    UNROLL for (long t = 0; t < K * K; t++) _mm512_mask_storeu_ps(weightGradient + t * channels + c, mask, accumulator[t]);
    if (inputGradientSum) {
        float lanesOut[16];
        _mm512_storeu_ps(lanesOut, rowSum);
        const long count = channels - c < 16 ? channels - c : 16;
        for (long lane = 0; lane < count; lane++) inputGradientSum[c + lane] += lanesOut[lane];
    }
}

INLINE_AVX512 void sweep(const long K, const long S, const float *input, const float *outputGradient, const float *weights,
                         long height, long width, long channels, long padTop, long padLeft, long outputHeight, long outputWidth,
                         float *inputGradient, int masks, double *inputGradientSum, float *weightGradient) {
    for (long iy = 0; iy < height; iy++) {
        long rowOutput[5];
        UNROLL for (long ky = 0; ky < K; ky++) {
            const long ny = iy + padTop - ky;
            rowOutput[ky] = ny >= 0 && (ny & (S - 1)) == 0 && ny / S < outputHeight ? ny / S : -1;
        }
        for (long c = 0; c < channels; c += 16) {
            row_block(K, S, input, outputGradient, weights, width, channels, padLeft, outputWidth, iy, rowOutput, inputGradient, masks,
                      inputGradientSum, weightGradient, c);
        }
    }
}

/* Any other kernel or stride: the scatter form, one tap at a time, accumulators in memory. Slow, general. */
static AVX512 void generic(const float *input, const float *outputGradient, const float *weights, long height, long width,
                           long channels, long kernel, long stride, long padTop, long padLeft, long outputHeight,
                           long outputWidth, float *inputGradient, int masks, double *inputGradientSum, float *weightGradient) {
    for (long iy = 0; iy < height; iy++) {
        for (long ix = 0; ix < width; ix++) {
            for (long c = 0; c < channels; c += 16) {
                const __mmask16 mask = wb_lanes16(channels - c);
                const __m512 x = _mm512_maskz_loadu_ps(mask, input + (iy * width + ix) * channels + c);
                __m512 sum = _mm512_setzero_ps();
                for (long ky = 0; ky < kernel; ky++) {
                    const long ny = iy + padTop - ky;
                    if (ny < 0 || ny % stride != 0 || ny / stride >= outputHeight) continue;
                    for (long kx = 0; kx < kernel; kx++) {
                        const long nx = ix + padLeft - kx;
                        if (nx < 0 || nx % stride != 0 || nx / stride >= outputWidth) continue;
                        const long t = (ky * kernel + kx) * channels + c;
                        const __m512 gradient =
                            _mm512_maskz_loadu_ps(mask, outputGradient + ((ny / stride) * outputWidth + nx / stride) * channels + c);
                        sum = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, weights + t), gradient, sum);
                        _mm512_mask_storeu_ps(weightGradient + t, mask,
                                              _mm512_fmadd_ps(x, gradient, _mm512_maskz_loadu_ps(mask, weightGradient + t)));
                    }
                }
                if (masks) {
                    const __mmask16 inside = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ)
                                             & _mm512_cmp_ps_mask(x, _mm512_set1_ps(6), _CMP_LT_OQ);
                    sum = _mm512_maskz_mov_ps(inside, sum);
                }
                if (inputGradient) _mm512_mask_storeu_ps(inputGradient + (iy * width + ix) * channels + c, mask, sum);
                if (inputGradientSum) {
                    float lanesOut[16];
                    _mm512_storeu_ps(lanesOut, sum);
                    for (long lane = 0; lane < 16 && c + lane < channels; lane++) inputGradientSum[c + lane] += lanesOut[lane];
                }
            }
        }
    }
}

AVX512 void wbt_depthwise_backward_avx512(const float *input, const float *outputGradient, const float *weights, long height,
                                          long width, long channels, long kernel, long stride, long padTop, long padLeft,
                                          long outputHeight, long outputWidth, float *inputGradient, int masksInputGradient,
                                          double *inputGradientSum, float *weightGradient) {
#define SWEEP(K, S) \
    sweep(K, S, input, outputGradient, weights, height, width, channels, padTop, padLeft, outputHeight, outputWidth, inputGradient, \
          masksInputGradient, inputGradientSum, weightGradient)
    if (kernel == 3 && stride == 1) SWEEP(3, 1);
    else if (kernel == 3 && stride == 2) SWEEP(3, 2);
    else if (kernel == 5 && stride == 1) SWEEP(5, 1);
    else if (kernel == 5 && stride == 2) SWEEP(5, 2);
    else {
        generic(input, outputGradient, weights, height, width, channels, kernel, stride, padTop, padLeft, outputHeight, outputWidth,
                inputGradient, masksInputGradient, inputGradientSum, weightGradient);
    }
#undef SWEEP
}

#else
void wbt_depthwise_backward_avx512(const float *input, const float *outputGradient, const float *weights, long height,
                                   long width, long channels, long kernel, long stride, long padTop, long padLeft,
                                   long outputHeight, long outputWidth, float *inputGradient, int masksInputGradient,
                                   double *inputGradientSum, float *weightGradient) {}
#endif
