/*
 * Depthwise convolution over NHWC, 8 channels per ymm register.
 *
 * Interior output pixels (every tap column inside the image) go four at a time: for each kernel row the k
 * weights of an 8-channel block sit in registers, each input pixel of the row is loaded once and feeds every
 * accumulator whose window covers it (stride 1, k = 3: 6 loads for 12 FMAs). Kernel size and stride are
 * compile-time constants in the specialised copies, so the loops unroll and the accumulators stay in
 * registers. Edge pixels, leftover pixels and the last channels when the count is not a multiple of 8 take
 * a one-pixel path with bounds checks and masked loads.
 */
#include "ckernels.h"

#if defined(__x86_64__)
#include "vector_helpers.h"

/*
 * One output pixel, channels [firstChannel, channels), with bounds checks on both axes. Four channel blocks at a
 * time (masked past the end): each sum is a chain of up to k² dependent FMAs, and four independent chains hide
 * the FMA latency on the 7×7 layers, where every pixel is an edge pixel.
 */
static AVX2 void pixel(const float *image, long height, long width, long channels, const float *weights,
                       const float *bias, long kernel, long stride, long padTop, long padLeft, long rowOffset, long oy, long ox,
                       long firstChannel, __m256 lower, __m256 upper, float *destination) {
    const long top = oy * stride - padTop, left = ox * stride - padLeft;
    const long firstRow = top < 0 ? -top : 0;
    const long lastRow = height - 1 - top < kernel - 1 ? height - 1 - top : kernel - 1;
    const long firstColumn = left < 0 ? -left : 0;
    const long lastColumn = width - 1 - left < kernel - 1 ? width - 1 - left : kernel - 1;
    for (long c = firstChannel; c < channels; c += 32) {
        __m256i mask[4];
        __m256 sum[4];
        UNROLL for (long b = 0; b < 4; b++) {
            const long remaining = channels - c - 8 * b;
            mask[b] = wb_lane_mask8(remaining <= 0 ? 0 : remaining >= 8 ? 8 : remaining);
            sum[b] = _mm256_maskload_ps(bias + c + 8 * b, mask[b]);
        }
        for (long ky = firstRow; ky <= lastRow; ky++) {
            for (long kx = firstColumn; kx <= lastColumn; kx++) {
                const float *source = image + ((top + ky - rowOffset) * width + (left + kx)) * channels + c;
                const float *tap = weights + (ky * kernel + kx) * channels + c;
                UNROLL for (long b = 0; b < 4; b++) {
                    sum[b] = _mm256_fmadd_ps(_mm256_maskload_ps(source + 8 * b, mask[b]),
                                             _mm256_maskload_ps(tap + 8 * b, mask[b]), sum[b]);
                }
            }
        }
        UNROLL for (long b = 0; b < 4; b++) {
            _mm256_maskstore_ps(destination + c + 8 * b, mask[b], _mm256_min_ps(_mm256_max_ps(sum[b], lower), upper));
        }
    }
}

/*
 * Four horizontally adjacent interior pixels, channels [0, fullChannels) in blocks of 8. `left` is the input
 * column under tap 0 of the first pixel; kernel rows [firstRow, lastRow] are inside the image.
 */
INLINE_AVX2 void four(const float *image, long width, long channels, long fullChannels, const float *weights,
                      const float *bias, const long K, const long S, long top, long rowOffset, long left, long firstRow,
                      long lastRow, __m256 lower, __m256 upper, float *destination) {
    for (long c = 0; c < fullChannels; c += 8) {
        __m256 sum[4];
        sum[0] = sum[1] = sum[2] = sum[3] = _mm256_loadu_ps(bias + c);
        for (long ky = firstRow; ky <= lastRow; ky++) {
            const float *source = image + ((top + ky - rowOffset) * width + left) * channels + c;
            const float *row = weights + ky * K * channels + c;
            __m256 tap[5];
            UNROLL for (long kx = 0; kx < K; kx++) tap[kx] = _mm256_loadu_ps(row + kx * channels);
            UNROLL for (long j = 0; j < 3 * S + K; j++) {
                const __m256 x = _mm256_loadu_ps(source + j * channels);
                UNROLL for (long p = 0; p < 4; p++) {
                    const long kx = j - S * p;
                    if (kx >= 0 && kx < K) sum[p] = _mm256_fmadd_ps(x, tap[kx], sum[p]);
                }
            }
        }
        UNROLL for (long p = 0; p < 4; p++) {
            _mm256_storeu_ps(destination + p * channels + c, _mm256_min_ps(_mm256_max_ps(sum[p], lower), upper));
        }
    }
}

/* One output row; K and S are constants in each specialised caller. */
INLINE_AVX2 void output_row(const float *image, long height, long width, long channels, const float *weights,
                            const float *bias, const long K, const long S, long padTop, long padLeft,
                            long rowOffset, long outputWidth, long oy, __m256 lower, __m256 upper, float *row) {
    const long top = oy * S - padTop;
    const long firstRow = top < 0 ? -top : 0;
    const long lastRow = height - 1 - top < K - 1 ? height - 1 - top : K - 1;
    const long fullChannels = channels / 8 * 8;
    /* Interior columns: ox·S − padLeft ≥ 0 and ox·S − padLeft + K − 1 ≤ width − 1. */
    long firstInterior = (padLeft + S - 1) / S;
    long lastInterior = width - K + padLeft >= 0 ? (width - K + padLeft) / S : -1;
    if (lastInterior > outputWidth - 1) lastInterior = outputWidth - 1;
    if (firstInterior > lastInterior + 1) firstInterior = lastInterior + 1;
    long ox = 0;
    for (; ox < firstInterior && ox < outputWidth; ox++) {
        pixel(image, height, width, channels, weights, bias, K, S, padTop, padLeft, rowOffset, oy, ox, 0, lower, upper,
              row + ox * channels);
    }
    for (; ox + 3 <= lastInterior; ox += 4) {
        if (fullChannels > 0) {
            four(image, width, channels, fullChannels, weights, bias, K, S, top, rowOffset, ox * S - padLeft, firstRow,
                 lastRow, lower, upper, row + ox * channels);
        }
        if (fullChannels < channels) {
            for (long p = 0; p < 4; p++) {
                pixel(image, height, width, channels, weights, bias, K, S, padTop, padLeft, rowOffset, oy, ox + p,
                      fullChannels, lower, upper, row + (ox + p) * channels);
            }
        }
    }
    for (; ox < outputWidth; ox++) {
        pixel(image, height, width, channels, weights, bias, K, S, padTop, padLeft, rowOffset, oy, ox, 0, lower, upper,
              row + ox * channels);
    }
}

#define SPECIALISE(NAME, KERNEL, STRIDE)                                                                       \
    static AVX2 void NAME(const float *image, long height, long width, long channels, const float *weights,   \
                          const float *bias, long padTop, long padLeft, long rowOffset, long outputWidth,      \
                          long firstOutputRow, long endOutputRow, __m256 lower, __m256 upper, float *output) {     \
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

AVX2 void wb_depthwise_avx2(const float *input, long height, long width, long channels,
                            const float *weights, const float *bias, long kernel, long stride,
                            long padTop, long padLeft, long outputWidth, long firstOutputRow, long endOutputRow,
                            long inputFirstRow, float lower, float upper, float *output) {
    const __m256 lowerVector = _mm256_set1_ps(lower), upperVector = _mm256_set1_ps(upper);
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
                      oy, ox, 0,
                      lowerVector, upperVector, output + ((oy - firstOutputRow) * outputWidth + ox) * channels);
            }
        }
    }
#undef ARGUMENTS
}
#else
void wb_depthwise_avx2(const float *input, long height, long width, long channels,
                       const float *weights, const float *bias, long kernel, long stride,
                       long padTop, long padLeft, long outputWidth, long firstOutputRow, long endOutputRow,
                       long inputFirstRow, float lower, float upper, float *output) {
    (void)input; (void)firstOutputRow; (void)endOutputRow; (void)inputFirstRow; (void)height; (void)width; (void)channels; (void)weights; (void)bias; (void)kernel;
    (void)stride; (void)padTop; (void)padLeft; (void)outputWidth; (void)lower; (void)upper;
    (void)output;
}
#endif
