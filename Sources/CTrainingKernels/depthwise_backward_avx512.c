/*
 * The depthwise convolution's backward pass, 16 channels per 512-bit register. Output row by output row, and within
 * a row one channel block at a time: each output gradient is loaded once and, for every tap inside the image, adds
 * input·gradient to the tap's weight-gradient accumulator (k² registers for the row, loaded from and stored back to
 * the gradient) and weight·gradient to the input pixel's gradient (a read-modify-write on the k input rows under
 * the output row, which stay in L1/L2). Rows outside, channels inside: a channel block sweeping the whole image
 * instead touched one cache line in six (96 channels) of tensors bigger than L2 and read them all six times,
 * which made this pass four times slower. Kernel 3 and 5 × stride 1 and 2 are compile-time specialisations, so
 * the tap loops unroll and the accumulators stay in registers; interior pixels skip the bounds checks.
 */
#include "ctrainingkernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f")))
#define INLINE_AVX512 static inline __attribute__((always_inline, target("avx512f")))
#define UNROLL _Pragma("clang loop unroll(full)")

INLINE_AVX512 __mmask16 lanes(long count) {
    return count >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << count) - 1);
}

/* One tap of one output pixel: the weight-gradient accumulator and (when wanted) the input pixel's gradient. */
INLINE_AVX512 void tap(const float *input, const float *weights, float *inputGradient, long pixel, long tapOffset, __m512 gradient,
                       __mmask16 mask, __m512 *accumulator) {
    *accumulator = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, input + pixel), gradient, *accumulator);
    if (inputGradient) {
        const __m512 sum = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, weights + tapOffset), gradient,
                                           _mm512_maskz_loadu_ps(mask, inputGradient + pixel));
        _mm512_mask_storeu_ps(inputGradient + pixel, mask, sum);
    }
}

INLINE_AVX512 void row_block(const long K, const long S, const float *input, const float *outputGradient, const float *weights,
                             long height, long width, long channels, long padTop, long padLeft, long outputWidth, long oy,
                             float *inputGradient, float *weightGradient, long c) {
    const __mmask16 mask = lanes(channels - c);
    __m512 accumulator[25];
    UNROLL for (long t = 0; t < K * K; t++) accumulator[t] = _mm512_maskz_loadu_ps(mask, weightGradient + t * channels + c);
    {
        const long top = oy * S - padTop;
        const int rowsInside = top >= 0 && top + K <= height;
        for (long ox = 0; ox < outputWidth; ox++) {
            const long left = ox * S - padLeft;
            const __m512 gradient = _mm512_maskz_loadu_ps(mask, outputGradient + (oy * outputWidth + ox) * channels + c);
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
    UNROLL for (long t = 0; t < K * K; t++) _mm512_mask_storeu_ps(weightGradient + t * channels + c, mask, accumulator[t]);
}

/* Any other kernel size: the same sweep with the accumulators in memory. */
static AVX512 void generic(const float *input, const float *outputGradient, const float *weights, long height, long width,
                           long channels, long kernel, long stride, long padTop, long padLeft, long outputHeight,
                           long outputWidth, float *inputGradient, float *weightGradient) {
    for (long oy = 0; oy < outputHeight; oy++) {
        for (long ox = 0; ox < outputWidth; ox++) {
            for (long c = 0; c < channels; c += 16) {
                const __mmask16 mask = lanes(channels - c);
                const __m512 gradient = _mm512_maskz_loadu_ps(mask, outputGradient + (oy * outputWidth + ox) * channels + c);
                for (long ky = 0; ky < kernel; ky++) {
                    const long iy = oy * stride - padTop + ky;
                    if (iy < 0 || iy >= height) continue;
                    for (long kx = 0; kx < kernel; kx++) {
                        const long ix = ox * stride - padLeft + kx;
                        if (ix < 0 || ix >= width) continue;
                        __m512 accumulator = _mm512_maskz_loadu_ps(mask, weightGradient + (ky * kernel + kx) * channels + c);
                        tap(input, weights, inputGradient, (iy * width + ix) * channels + c, (ky * kernel + kx) * channels + c,
                            gradient, mask, &accumulator);
                        _mm512_mask_storeu_ps(weightGradient + (ky * kernel + kx) * channels + c, mask, accumulator);
                    }
                }
            }
        }
    }
}

AVX512 void wbt_depthwise_backward_avx512(const float *input, const float *outputGradient, const float *weights, long height,
                                          long width, long channels, long kernel, long stride, long padTop, long padLeft,
                                          long outputHeight, long outputWidth, float *inputGradient, float *weightGradient) {
#define SWEEP(K, S) \
    for (long oy = 0; oy < outputHeight; oy++) \
        for (long c = 0; c < channels; c += 16) \
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
void wbt_depthwise_backward_avx512(const float *input, const float *outputGradient, const float *weights, long height,
                                   long width, long channels, long kernel, long stride, long padTop, long padLeft,
                                   long outputHeight, long outputWidth, float *inputGradient, float *weightGradient) {}
#endif
