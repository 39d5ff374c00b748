/*
 * The depthwise convolution of depthwise.c with 16 channels per 512-bit register. Masked loads and stores make
 * the last, partial channel block take the same four-pixel path as the others.
 */
#include "ckernels.h"

#if defined(__x86_64__)
#include "vector_helpers.h"

/*
 * One output pixel, all channels, with bounds checks on both axes. Four channel blocks at a time: each sum is a
 * chain of up to k² dependent FMAs, and four independent chains hide the FMA latency (one chain ran at a quarter
 * of the throughput on the 7×7 layers, where every pixel is an edge pixel).
 */
static AVX512 void pixel(const float *image, long height, long width, long channels, const float *weights,
                         const float *bias, long kernel, long stride, long padTop, long padLeft, long rowOffset, long oy, long ox,
                         __m512 lower, __m512 upper, float *destination) {
    const long top = oy * stride - padTop, left = ox * stride - padLeft;
    const long firstRow = top < 0 ? -top : 0;
    const long lastRow = height - 1 - top < kernel - 1 ? height - 1 - top : kernel - 1;
    const long firstColumn = left < 0 ? -left : 0;
    const long lastColumn = width - 1 - left < kernel - 1 ? width - 1 - left : kernel - 1;
    for (long c = 0; c < channels; c += 64) {
        __mmask16 mask[4];
        __m512 sum[4];
        UNROLL for (long b = 0; b < 4; b++) {
            const long remaining = channels - c - 16 * b;
            mask[b] = remaining <= 0 ? 0 : wb_lanes16(remaining);
            sum[b] = _mm512_maskz_loadu_ps(mask[b], bias + c + 16 * b);
        }
        for (long ky = firstRow; ky <= lastRow; ky++) {
            for (long kx = firstColumn; kx <= lastColumn; kx++) {
                const float *source = image + ((top + ky - rowOffset) * width + (left + kx)) * channels + c;
                const float *tap = weights + (ky * kernel + kx) * channels + c;
                UNROLL for (long b = 0; b < 4; b++) {
                    sum[b] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask[b], source + 16 * b),
                                             _mm512_maskz_loadu_ps(mask[b], tap + 16 * b), sum[b]);
                }
            }
        }
        UNROLL for (long b = 0; b < 4; b++) {
            _mm512_mask_storeu_ps(destination + c + 16 * b, mask[b], _mm512_min_ps(_mm512_max_ps(sum[b], lower), upper));
        }
    }
}

/*
 * Four horizontally adjacent interior pixels; `left` is the input column under tap 0 of the first. Two channel
 * blocks at a time, so eight independent accumulator chains keep both FMA pipes busy.
 */
INLINE_AVX512 void four(const float *image, long width, long channels, const float *weights, const float *bias,
                        const long K, const long S, long top, long rowOffset, long left, long firstRow, long lastRow,
                        __m512 lower, __m512 upper, float *destination) {
    for (long c = 0; c < channels; c += 32) {
        __mmask16 mask[2];
        __m512 sum[2][4];
        UNROLL for (long b = 0; b < 2; b++) {
            const long remaining = channels - c - 16 * b;
            mask[b] = remaining <= 0 ? 0 : wb_lanes16(remaining);
            sum[b][0] = sum[b][1] = sum[b][2] = sum[b][3] = _mm512_maskz_loadu_ps(mask[b], bias + c + 16 * b);
        }
        for (long ky = firstRow; ky <= lastRow; ky++) {
            const float *source = image + ((top + ky - rowOffset) * width + left) * channels + c;
            const float *row = weights + ky * K * channels + c;
            __m512 tap[2][5];
            UNROLL for (long b = 0; b < 2; b++) {
                UNROLL for (long kx = 0; kx < K; kx++) tap[b][kx] = _mm512_maskz_loadu_ps(mask[b], row + kx * channels + 16 * b);
            }
            UNROLL for (long j = 0; j < 3 * S + K; j++) {
                UNROLL for (long b = 0; b < 2; b++) {
                    const __m512 x = _mm512_maskz_loadu_ps(mask[b], source + j * channels + 16 * b);
                    UNROLL for (long p = 0; p < 4; p++) {
                        const long kx = j - S * p;
                        if (kx >= 0 && kx < K) sum[b][p] = _mm512_fmadd_ps(x, tap[b][kx], sum[b][p]);
                    }
                }
            }
        }
        UNROLL for (long b = 0; b < 2; b++) {
            UNROLL for (long p = 0; p < 4; p++) {
                _mm512_mask_storeu_ps(destination + p * channels + c + 16 * b, mask[b],
                                      _mm512_min_ps(_mm512_max_ps(sum[b][p], lower), upper));
            }
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

/* Padded scratch for `small_image`: 1200 pixels × 16 channels (75 KB, L2), enough for 28×28 with a 5×5 kernel. */
enum { smallPixels = 1200 };

/*
 * Small images at stride 1 (the 28×28, 14×14 and 7×7 layers), where most pixels touch an edge and the pixel-at-a-time path
 * streams all k²·channels weights from L2 for every pixel. Instead, one 16-channel block at a time: copy its
 * slice of the rows into a zero-padded scratch (so no window needs a bounds check), hold the block's k² weights
 * in registers, and sweep every output pixel with fully unrolled taps.
 */
INLINE_AVX512 void small_image(const float *image, long height, long width, long channels, const float *weights,
                               const float *bias, const long K, const long S, long padTop, long padLeft,
                               long rowOffset, long outputWidth, long firstOutputRow, long endOutputRow,
                               __m512 lower, __m512 upper, float *output) {
    const long paddedWidth = (outputWidth - 1) * S + K;
    const long paddedHeight = (endOutputRow - 1 - firstOutputRow) * S + K;
    const long firstRow = firstOutputRow * S - padTop;
    float scratch[smallPixels * 16] __attribute__((aligned(64)));
    for (long c = 0; c < channels; c += 16) {
        const __mmask16 mask = wb_lanes16(channels - c);
        for (long py = 0; py < paddedHeight; py++) {
            const long iy = firstRow + py;
            const int rowInside = iy >= 0 && iy < height;
            for (long px = 0; px < paddedWidth; px++) {
                const long ix = px - padLeft;
                __m512 value = _mm512_setzero_ps();
                if (rowInside && ix >= 0 && ix < width) {
                    value = _mm512_maskz_loadu_ps(mask, image + ((iy - rowOffset) * width + ix) * channels + c);
                }
                _mm512_store_ps(scratch + (py * paddedWidth + px) * 16, value);
            }
        }
        __m512 tap[25];
        UNROLL for (long t = 0; t < K * K; t++) tap[t] = _mm512_maskz_loadu_ps(mask, weights + t * channels + c);
        const __m512 start = _mm512_maskz_loadu_ps(mask, bias + c);
        for (long oy = firstOutputRow; oy < endOutputRow; oy++) {
            const float *rows = scratch + (oy - firstOutputRow) * S * paddedWidth * 16;
            float *destination = output + (oy - firstOutputRow) * outputWidth * channels + c;
            for (long ox = 0; ox < outputWidth; ox++) {
                const float *window = rows + ox * S * 16;
                /* Four partial sums: one chain of k² dependent FMAs would leave the pipes waiting on latency. */
                __m512 sum[4] = {start, _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
                UNROLL for (long ky = 0; ky < K; ky++) {
                    UNROLL for (long kx = 0; kx < K; kx++) {
                        const long t = ky * K + kx;
                        sum[t % 4] = _mm512_fmadd_ps(_mm512_load_ps(window + (ky * paddedWidth + kx) * 16), tap[t], sum[t % 4]);
                    }
                }
                const __m512 total = _mm512_add_ps(_mm512_add_ps(sum[0], sum[1]), _mm512_add_ps(sum[2], sum[3]));
                _mm512_mask_storeu_ps(destination + ox * channels, mask, _mm512_min_ps(_mm512_max_ps(total, lower), upper));
            }
        }
    }
}

#define SPECIALISE(NAME, KERNEL, STRIDE)                                                                       \
    static AVX512 void NAME(const float *image, long height, long width, long channels, const float *weights,   \
                          const float *bias, long padTop, long padLeft, long rowOffset, long outputWidth,      \
                          long firstOutputRow, long endOutputRow, __m512 lower, __m512 upper, float *output) {     \
        if (STRIDE == 1 && ((outputWidth - 1) * STRIDE + KERNEL) *                                             \
            ((endOutputRow - 1 - firstOutputRow) * STRIDE + KERNEL) <= smallPixels) {                          \
            small_image(image, height, width, channels, weights, bias, KERNEL, STRIDE, padTop, padLeft,        \
                        rowOffset, outputWidth, firstOutputRow, endOutputRow, lower, upper, output);           \
            return;                                                                                            \
        }                                                                                                      \
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
