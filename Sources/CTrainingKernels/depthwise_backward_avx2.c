/*
 * depthwise_backward_avx512.c with 8 channels per 256-bit register. With 16 registers the 5×5 kernels' tap weights
 * and accumulators spill to the stack (L1). Plain loads and stores except on the channel tail, where AVX masked
 * moves take over (AMD's masked stores are microcoded and slow in a hot loop).
 */
#include "ctrainingkernels.h"

#if defined(__x86_64__)
#include "../CKernels/vector_helpers.h"

/* All-ones in lanes [0, count). */
INLINE_AVX2 __m256i lanes(long count) {
    const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(count >= 8 ? 8 : count)), index);
}

INLINE_AVX2 __m256 load(const float *p, int full, __m256i mask) {
    return full ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, mask);
}

INLINE_AVX2 void store(float *p, int full, __m256i mask, __m256 value) {
    if (full) _mm256_storeu_ps(p, value);
    else _mm256_maskstore_ps(p, mask, value);
}

INLINE_AVX2 void row_block(const long K, const long S, const float *input, const float *outputGradient, const float *weights,
                           long width, long channels, long padLeft, long outputWidth, long iy, const long *rowOutput,
                           float *inputGradient, int masks, double *inputGradientSum, float *weightGradient, long c) {
    const int full = channels - c >= 8;
    const __m256i mask = lanes(channels - c);
    __m256 tapWeight[25], accumulator[25];
    UNROLL for (long t = 0; t < K * K; t++) {
        tapWeight[t] = load(weights + t * channels + c, full, mask);
        accumulator[t] = load(weightGradient + t * channels + c, full, mask);
    }
    __m256 rowSum = _mm256_setzero_ps();
    const __m256 zero = _mm256_setzero_ps(), six = _mm256_set1_ps(6);
    const float *inputRow = input + iy * width * channels + c;
    for (long ix = 0; ix < width; ix++) {
        const __m256 x = load(inputRow + ix * channels, full, mask);
        __m256 sum = _mm256_setzero_ps();
        UNROLL for (long ky = 0; ky < K; ky++) {
            if (rowOutput[ky] < 0) continue;
            const float *gradientRow = outputGradient + rowOutput[ky] * outputWidth * channels + c;
            UNROLL for (long kx = 0; kx < K; kx++) {
                const long nx = ix + padLeft - kx;
                if (nx < 0 || (nx & (S - 1)) != 0 || nx / S >= outputWidth) continue;
                const __m256 gradient = load(gradientRow + nx / S * channels, full, mask);
                sum = _mm256_fmadd_ps(tapWeight[ky * K + kx], gradient, sum);
                accumulator[ky * K + kx] = _mm256_fmadd_ps(x, gradient, accumulator[ky * K + kx]);
            }
        }
        if (masks) sum = _mm256_and_ps(sum, _mm256_and_ps(_mm256_cmp_ps(x, zero, _CMP_GT_OQ), _mm256_cmp_ps(x, six, _CMP_LT_OQ)));
        if (inputGradient) store(inputGradient + (iy * width + ix) * channels + c, full, mask, sum);
        rowSum = _mm256_add_ps(rowSum, sum);
    }
    UNROLL for (long t = 0; t < K * K; t++) store(weightGradient + t * channels + c, full, mask, accumulator[t]);
    if (inputGradientSum) {
        float lanesOut[8];
        _mm256_storeu_ps(lanesOut, rowSum);
        const long count = channels - c < 8 ? channels - c : 8;
        for (long lane = 0; lane < count; lane++) inputGradientSum[c + lane] += lanesOut[lane];
    }
}

INLINE_AVX2 void sweep(const long K, const long S, const float *input, const float *outputGradient, const float *weights,
                       long height, long width, long channels, long padTop, long padLeft, long outputHeight, long outputWidth,
                       float *inputGradient, int masks, double *inputGradientSum, float *weightGradient) {
    for (long iy = 0; iy < height; iy++) {
        long rowOutput[5];
        UNROLL for (long ky = 0; ky < K; ky++) {
            const long ny = iy + padTop - ky;
            rowOutput[ky] = ny >= 0 && (ny & (S - 1)) == 0 && ny / S < outputHeight ? ny / S : -1;
        }
        for (long c = 0; c < channels; c += 8) {
            row_block(K, S, input, outputGradient, weights, width, channels, padLeft, outputWidth, iy, rowOutput, inputGradient, masks,
                      inputGradientSum, weightGradient, c);
        }
    }
}

/* Any other kernel or stride, scalar: slow and general. */
static void generic(const float *input, const float *outputGradient, const float *weights, long height, long width, long channels,
                    long kernel, long stride, long padTop, long padLeft, long outputHeight, long outputWidth, float *inputGradient,
                    int masks, double *inputGradientSum, float *weightGradient) {
    for (long iy = 0; iy < height; iy++) {
        for (long ix = 0; ix < width; ix++) {
            for (long c = 0; c < channels; c++) {
                const float x = input[(iy * width + ix) * channels + c];
                float sum = 0;
                for (long ky = 0; ky < kernel; ky++) {
                    const long ny = iy + padTop - ky;
                    if (ny < 0 || ny % stride != 0 || ny / stride >= outputHeight) continue;
                    for (long kx = 0; kx < kernel; kx++) {
                        const long nx = ix + padLeft - kx;
                        if (nx < 0 || nx % stride != 0 || nx / stride >= outputWidth) continue;
                        const long t = (ky * kernel + kx) * channels + c;
                        const float gradient = outputGradient[((ny / stride) * outputWidth + nx / stride) * channels + c];
                        sum += weights[t] * gradient;
                        weightGradient[t] += x * gradient;
                    }
                }
                if (masks && !(x > 0 && x < 6)) sum = 0;
                if (inputGradient) inputGradient[(iy * width + ix) * channels + c] = sum;
                if (inputGradientSum) inputGradientSum[c] += sum;
            }
        }
    }
}

AVX2 void wbt_depthwise_backward_avx2(const float *input, const float *outputGradient, const float *weights, long height,
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
void wbt_depthwise_backward_avx2(const float *input, const float *outputGradient, const float *weights, long height,
                                 long width, long channels, long kernel, long stride, long padTop, long padLeft,
                                 long outputHeight, long outputWidth, float *inputGradient, int masksInputGradient,
                                 double *inputGradientSum, float *weightGradient) {}
#endif
