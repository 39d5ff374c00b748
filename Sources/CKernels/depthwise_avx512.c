/*
 * The depthwise convolution of depthwise.c with 16 channels per 512-bit register. Masked loads and stores make
 * the last, partial channel block take the same four-pixel path as the others.
 */
#include "ckernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f")))
#define INLINE_AVX512 static inline __attribute__((always_inline, target("avx512f")))
#define UNROLL _Pragma("clang loop unroll(full)")

INLINE_AVX512 __mmask16 lanes(long count) {
    return count >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << count) - 1);
}

/* One output pixel, all channels, with bounds checks on both axes. */
static AVX512 void pixel(const float *image, long height, long width, long channels, const float *weights,
                         const float *bias, long kernel, long stride, long padTop, long padLeft, long rowOffset, long oy, long ox,
                         __m512 lower, __m512 upper, float *destination) {
    const long top = oy * stride - padTop, left = ox * stride - padLeft;
    const long firstRow = top < 0 ? -top : 0;
    const long lastRow = height - 1 - top < kernel - 1 ? height - 1 - top : kernel - 1;
    const long firstColumn = left < 0 ? -left : 0;
    const long lastColumn = width - 1 - left < kernel - 1 ? width - 1 - left : kernel - 1;
    for (long c = 0; c < channels; c += 16) {
        const __mmask16 mask = lanes(channels - c);
        __m512 sum = _mm512_maskz_loadu_ps(mask, bias + c);
        for (long ky = firstRow; ky <= lastRow; ky++) {
            for (long kx = firstColumn; kx <= lastColumn; kx++) {
                const float *source = image + ((top + ky - rowOffset) * width + (left + kx)) * channels + c;
                const float *tap = weights + (ky * kernel + kx) * channels + c;
                sum = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, source), _mm512_maskz_loadu_ps(mask, tap), sum);
            }
        }
        _mm512_mask_storeu_ps(destination + c, mask, _mm512_min_ps(_mm512_max_ps(sum, lower), upper));
    }
}

/* Four horizontally adjacent interior pixels; `left` is the input column under tap 0 of the first. */
INLINE_AVX512 void four(const float *image, long width, long channels, const float *weights, const float *bias,
                        const long K, const long S, long top, long rowOffset, long left, long firstRow, long lastRow,
                        __m512 lower, __m512 upper, float *destination) {
    for (long c = 0; c < channels; c += 16) {
        const __mmask16 mask = lanes(channels - c);
        __m512 sum[4];
        sum[0] = sum[1] = sum[2] = sum[3] = _mm512_maskz_loadu_ps(mask, bias + c);
        for (long ky = firstRow; ky <= lastRow; ky++) {
            const float *source = image + ((top + ky - rowOffset) * width + left) * channels + c;
            const float *row = weights + ky * K * channels + c;
            __m512 tap[5];
            UNROLL for (long kx = 0; kx < K; kx++) tap[kx] = _mm512_maskz_loadu_ps(mask, row + kx * channels);
            UNROLL for (long j = 0; j < 3 * S + K; j++) {
                const __m512 x = _mm512_maskz_loadu_ps(mask, source + j * channels);
                UNROLL for (long p = 0; p < 4; p++) {
                    const long kx = j - S * p;
                    if (kx >= 0 && kx < K) sum[p] = _mm512_fmadd_ps(x, tap[kx], sum[p]);
                }
            }
        }
        UNROLL for (long p = 0; p < 4; p++) {
            _mm512_mask_storeu_ps(destination + p * channels + c, mask, _mm512_min_ps(_mm512_max_ps(sum[p], lower), upper));
        }
    }
}

INLINE_AVX512 void output_row(const float *image, long height, long width, long channels, const float *weights,
                              const float *bias, const long K, const long S, long padTop, long padLeft,
                              long rowOffset, long outputWidth, long oy, __m512 lower, __m512 upper, float *row) {
    const long top = oy * S - padTop;
    const long firstRow = top < 0 ? -top : 0;
    const long lastRow = height - 1 - top < K - 1 ? height - 1 - top : K - 1;
    long firstInterior = (padLeft + S - 1) / S;
    long lastInterior = width - K + padLeft >= 0 ? (width - K + padLeft) / S : -1;
    if (lastInterior > outputWidth - 1) lastInterior = outputWidth - 1;
    if (firstInterior > lastInterior + 1) firstInterior = lastInterior + 1;
    long ox = 0;
    for (; ox < firstInterior && ox < outputWidth; ox++) {
        pixel(image, height, width, channels, weights, bias, K, S, padTop, padLeft, rowOffset, oy, ox, lower, upper, row + ox * channels);
    }
    for (; ox + 3 <= lastInterior; ox += 4) {
        four(image, width, channels, weights, bias, K, S, top, rowOffset, ox * S - padLeft, firstRow, lastRow, lower, upper,
             row + ox * channels);
    }
    for (; ox < outputWidth; ox++) {
        pixel(image, height, width, channels, weights, bias, K, S, padTop, padLeft, rowOffset, oy, ox, lower, upper, row + ox * channels);
    }
}

#define SPECIALISE(NAME, KERNEL, STRIDE)                                                                       \
    static AVX512 void NAME(const float *image, long height, long width, long channels, const float *weights,   \
                          const float *bias, long padTop, long padLeft, long rowOffset, long outputWidth,      \
                          long firstOutputRow, long endOutputRow, __m512 lower, __m512 upper, float *output) {     \
        for (long oy = firstOutputRow; oy < endOutputRow; oy++) {                                             \
            output_row(image, height, width, channels, weights, bias, KERNEL, STRIDE, padTop, padLeft,         \
                       rowOffset, outputWidth, oy, lower, upper,                                               \
                       output + (oy - firstOutputRow) * outputWidth * channels);                               \
        }                                                                                                      \
    }

SPECIALISE(depthwise_k3_s1, 3, 1)
SPECIALISE(depthwise_k3_s2, 3, 2)
SPECIALISE(depthwise_k5_s1, 5, 1)
SPECIALISE(depthwise_k5_s2, 5, 2)

AVX512 void wb_depthwise_avx512(const float *input, long height, long width, long channels,
                            const float *weights, const float *bias, long kernel, long stride,
                            long padTop, long padLeft, long outputWidth, long firstOutputRow, long endOutputRow,
                            long inputFirstRow, float lower, float upper, float *output) {
    const __m512 lowerVector = _mm512_set1_ps(lower), upperVector = _mm512_set1_ps(upper);
#define ARGUMENTS input, height, width, channels, weights, bias, padTop, padLeft, inputFirstRow, outputWidth, \
                  firstOutputRow, endOutputRow, lowerVector, upperVector, output
    if (kernel == 3 && stride == 1) {
        depthwise_k3_s1(ARGUMENTS);
    } else if (kernel == 3 && stride == 2) {
        depthwise_k3_s2(ARGUMENTS);
    } else if (kernel == 5 && stride == 1) {
        depthwise_k5_s1(ARGUMENTS);
    } else if (kernel == 5 && stride == 2) {
        depthwise_k5_s2(ARGUMENTS);
    } else {
        /* Other shapes: the checked one-pixel path everywhere. */
        for (long oy = firstOutputRow; oy < endOutputRow; oy++) {
            for (long ox = 0; ox < outputWidth; ox++) {
                pixel(input, height, width, channels, weights, bias, kernel, stride, padTop, padLeft, inputFirstRow,
                      oy, ox, 
                      lowerVector, upperVector, output + ((oy - firstOutputRow) * outputWidth + ox) * channels);
            }
        }
    }
#undef ARGUMENTS
}
#else
void wb_depthwise_avx512(const float *input, long height, long width, long channels,
                         const float *weights, const float *bias, long kernel, long stride,
                         long padTop, long padLeft, long outputWidth, long firstOutputRow, long endOutputRow,
                         long inputFirstRow, float lower, float upper, float *output) {
    (void)input; (void)firstOutputRow; (void)endOutputRow; (void)inputFirstRow; (void)height; (void)width; (void)channels; (void)weights; (void)bias; (void)kernel;
    (void)stride; (void)padTop; (void)padLeft; (void)outputWidth; (void)lower; (void)upper;
    (void)output;
}
#endif
