/*
 * depthwise_backward_avx512.c with 8 channels per 256-bit register, the channel tail through AVX masked loads and
 * stores. With 16 registers the 5×5 kernels' 25 weight-gradient accumulators spill to the stack (L1).
 */
#include "ctrainingkernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,fma")))
#define INLINE_AVX2 static inline __attribute__((always_inline, target("avx2,fma")))
#define UNROLL _Pragma("clang loop unroll(full)")

/* All-ones in lanes [0, count), for maskload/maskstore. */
INLINE_AVX2 __m256i lanes(long count) {
    const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(count >= 8 ? 8 : count)), index);
}

/* Masked moves only for the channel tail: AMD's masked stores are microcoded and slow in the hot loop. */
INLINE_AVX2 __m256 load(const float *p, __m256i mask) {
    return _mm256_testc_si256(mask, _mm256_set1_epi32(-1)) ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, mask);
}
INLINE_AVX2 void store(float *p, __m256i mask, __m256 value) {
    if (_mm256_testc_si256(mask, _mm256_set1_epi32(-1))) _mm256_storeu_ps(p, value);
    else _mm256_maskstore_ps(p, mask, value);
}

/* One tap of one output pixel: the weight-gradient accumulator and (when wanted) the input pixel's gradient. */
INLINE_AVX2 void tap(const float *input, const float *weights, float *inputGradient, long pixel, long tapOffset, __m256 gradient,
                       __m256i mask, __m256 *accumulator) {
    *accumulator = _mm256_fmadd_ps(load(input + pixel, mask), gradient, *accumulator);
    if (inputGradient) {
        const __m256 sum = _mm256_fmadd_ps(load(weights + tapOffset, mask), gradient,
                                           load(inputGradient + pixel, mask));
        store(inputGradient + pixel, mask, sum);
    }
}

INLINE_AVX2 void row_block(const long K, const long S, const float *input, const float *outputGradient, const float *weights,
                             long height, long width, long channels, long padTop, long padLeft, long outputWidth, long oy,
                             float *inputGradient, float *weightGradient, long c) {
    const __m256i mask = lanes(channels - c);
    __m256 accumulator[25];
    UNROLL for (long t = 0; t < K * K; t++) accumulator[t] = load(weightGradient + t * channels + c, mask);
    {
        const long top = oy * S - padTop;
        const int rowsInside = top >= 0 && top + K <= height;
        for (long ox = 0; ox < outputWidth; ox++) {
            const long left = ox * S - padLeft;
            const __m256 gradient = load(outputGradient + (oy * outputWidth + ox) * channels + c, mask);
            if (rowsInside && left >= 0 && left + K <= width) {
                UNROLL for (long ky = 0; ky < K; ky++) {
                    UNROLL for (long kx = 0; kx < K; kx++) {
                        tap(input, weights, inputGradient, ((top + ky) * width + left + kx) * channels + c, (ky * K + kx) * channels + c,
                            gradient, mask, &accumulator[ky * K + kx]);
                    }
                }
            } else {
                UNROLL for (long ky = 0; ky < K; ky++) {
                    const long iy = top + ky;
                    if (iy < 0 || iy >= height) continue;
                    UNROLL for (long kx = 0; kx < K; kx++) {
                        const long ix = left + kx;
                        if (ix < 0 || ix >= width) continue;
                        tap(input, weights, inputGradient, (iy * width + ix) * channels + c, (ky * K + kx) * channels + c, gradient,
                            mask, &accumulator[ky * K + kx]);
                    }
                }
            }
        }
    }
    UNROLL for (long t = 0; t < K * K; t++) store(weightGradient + t * channels + c, mask, accumulator[t]);
}

/* Any other kernel size: the same sweep with the accumulators in memory. */
static AVX2 void generic(const float *input, const float *outputGradient, const float *weights, long height, long width,
                           long channels, long kernel, long stride, long padTop, long padLeft, long outputHeight,
                           long outputWidth, float *inputGradient, float *weightGradient) {
    for (long oy = 0; oy < outputHeight; oy++) {
        for (long ox = 0; ox < outputWidth; ox++) {
            for (long c = 0; c < channels; c += 8) {
                const __m256i mask = lanes(channels - c);
                const __m256 gradient = load(outputGradient + (oy * outputWidth + ox) * channels + c, mask);
                for (long ky = 0; ky < kernel; ky++) {
                    const long iy = oy * stride - padTop + ky;
                    if (iy < 0 || iy >= height) continue;
                    for (long kx = 0; kx < kernel; kx++) {
                        const long ix = ox * stride - padLeft + kx;
                        if (ix < 0 || ix >= width) continue;
                        __m256 accumulator = load(weightGradient + (ky * kernel + kx) * channels + c, mask);
                        tap(input, weights, inputGradient, (iy * width + ix) * channels + c, (ky * kernel + kx) * channels + c,
                            gradient, mask, &accumulator);
                        store(weightGradient + (ky * kernel + kx) * channels + c, mask, accumulator);
                    }
                }
            }
        }
    }
}

AVX2 void wbt_depthwise_backward_avx2(const float *input, const float *outputGradient, const float *weights, long height,
                                          long width, long channels, long kernel, long stride, long padTop, long padLeft,
                                          long outputHeight, long outputWidth, float *inputGradient, float *weightGradient) {
#define SWEEP(K, S) \
    for (long oy = 0; oy < outputHeight; oy++) \
        for (long c = 0; c < channels; c += 8) \
            row_block(K, S, input, outputGradient, weights, height, width, channels, padTop, padLeft, outputWidth, oy, inputGradient, \
                      weightGradient, c)
    if (kernel == 3 && stride == 1) { SWEEP(3, 1); }
    else if (kernel == 3 && stride == 2) { SWEEP(3, 2); }
    else if (kernel == 5 && stride == 1) { SWEEP(5, 1); }
    else if (kernel == 5 && stride == 2) { SWEEP(5, 2); }
    else {
        generic(input, outputGradient, weights, height, width, channels, kernel, stride, padTop, padLeft, outputHeight,
                outputWidth, inputGradient, weightGradient);
    }
#undef SWEEP
}

#else
void wbt_depthwise_backward_avx2(const float *input, const float *outputGradient, const float *weights, long height,
                                   long width, long channels, long kernel, long stride, long padTop, long padLeft,
                                   long outputHeight, long outputWidth, float *inputGradient, float *weightGradient) {}
#endif
