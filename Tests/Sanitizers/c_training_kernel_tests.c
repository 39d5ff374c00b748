// The CTrainingKernels under AddressSanitizer and UBSan (linked into c_sanitizer_tests by scripts/check/sanitize-c.sh):
// every kernel this CPU supports, at small odd sizes (channel counts off the 8/16-lane blocks, pixel counts off
// the 6-row tiles), against naive loops written here. The Swift tests compare the same kernels with the
// double-precision references; this run checks that they read and write only what they own.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrainingkernels.h"

static int *checks_counter, *failures_counter;

#define CHECK(condition, ...)                                    \
    do {                                                         \
        (*checks_counter)++;                                     \
        if (!(condition)) {                                      \
            (*failures_counter)++;                               \
            fprintf(stderr, "c-sanitizers: FAIL: " __VA_ARGS__); \
            fprintf(stderr, "\n");                               \
        }                                                        \
    } while (0)

static unsigned long long state = 88172645463325252ull;
static float value_in(float lower, float upper) {
    state ^= state << 13; state ^= state >> 7; state ^= state << 17;
    return lower + (upper - lower) * (float)((state >> 40) & 0xFFFFFF) / (float)0x1000000;
}
/* Exactly count floats, so any read or write past the end is a heap overflow ASan reports. */
static float *floats(long count, float lower, float upper) {
    float *values = malloc((size_t)(count > 0 ? count : 1) * sizeof(float));
    for (long i = 0; i < count; i++) values[i] = value_in(lower, upper);
    return values;
}
static int close_to(double actual, double expected) { return fabs(actual - expected) <= 1e-4 * (1 + fabs(expected)); }
static int inside(float value) { return value > 0 && value < 6; }

typedef void (*scale_bias_kernel)(const float *, long, long, const float *, const float *, float, float, const float *, float *);
typedef void (*scale_bias_backward_kernel)(const float *, const float *, long, long, const float *, const float *, float *,
                                           float *, float *);
typedef void (*depthwise_backward_kernel)(const float *, const float *, const float *, long, long, long, long, long, long, long,
                                          long, long, float *, int, double *, float *);

static void scale_bias_cases(const char *name, scale_bias_kernel forward, scale_bias_backward_kernel backward, long rows,
                             long channels) {
    float *input = floats(rows * channels, -2, 8), *scale = floats(channels, 0.5f, 1.5f), *bias = floats(channels, -1, 1);
    float *residual = floats(rows * channels, -1, 1), *output = floats(rows * channels, 0, 0);
    float *gradient = floats(rows * channels, -1, 1), *activation = floats(rows * channels, -1, 7);
    float *inputGradient = floats(rows * channels, 0, 0), *scaleGradient = floats(channels, 0, 0), *biasGradient = floats(channels, 0, 0);
    for (int variant = 0; variant < 2; variant++) {
        const float *skip = variant ? residual : NULL;
        forward(input, rows, channels, scale, bias, variant ? -INFINITY : 0, variant ? INFINITY : 6, skip, output);
        long wrong = 0;
        for (long i = 0; i < rows * channels; i++) {
            double expected = (double)input[i] * scale[i % channels] + bias[i % channels];
            if (!variant) expected = expected < 0 ? 0 : (expected > 6 ? 6 : expected);
            if (skip) expected += skip[i];
            if (!close_to(output[i], expected)) wrong++;
        }
        CHECK(wrong == 0, "%s scale-bias %ldx%ld variant %d: %ld wrong values", name, rows, channels, variant, wrong);
    }
    // Backward: everything given, then no activation/scale/input (the bias-sum-only use).
    for (int variant = 0; variant < 2; variant++) {
        backward(gradient, variant ? NULL : input, rows, channels, variant ? NULL : scale, variant ? NULL : activation,
                 variant ? NULL : inputGradient, variant ? NULL : scaleGradient, biasGradient);
        long wrong = 0;
        for (long c = 0; c < channels; c++) {
            double scaleSum = 0, biasSum = 0;
            for (long r = 0; r < rows; r++) {
                long i = r * channels + c;
                double g = variant || inside(activation[i]) ? gradient[i] : 0;
                scaleSum += g * input[i];
                biasSum += g;
                if (!variant && !close_to(inputGradient[i], g * scale[c])) wrong++;
            }
            if (!variant && !close_to(scaleGradient[c], scaleSum)) wrong++;
            if (!close_to(biasGradient[c], biasSum)) wrong++;
        }
        CHECK(wrong == 0, "%s scale-bias backward %ldx%ld variant %d: %ld wrong values", name, rows, channels, variant, wrong);
    }
    free(input); free(scale); free(bias); free(residual); free(output); free(gradient); free(activation);
    free(inputGradient); free(scaleGradient); free(biasGradient);
}

static void depthwise_backward_case(const char *name, depthwise_backward_kernel run, long height, long width, long channels,
                                    long kernel, long stride) {
    const long outputHeight = (height + stride - 1) / stride, outputWidth = (width + stride - 1) / stride;
    const long totalRows = (outputHeight - 1) * stride + kernel - height, totalColumns = (outputWidth - 1) * stride + kernel - width;
    const long padTop = totalRows > 0 ? totalRows / 2 : 0, padLeft = totalColumns > 0 ? totalColumns / 2 : 0;
    float *input = floats(height * width * channels, -1, 7), *weights = floats(kernel * kernel * channels, -1, 1);
    float *outputGradient = floats(outputHeight * outputWidth * channels, -1, 1);
    float *inputGradient = floats(height * width * channels, 0, 0), *weightGradient = floats(kernel * kernel * channels, 0, 0);
    double *sums = calloc((size_t)channels, sizeof(double));
    for (int masks = 0; masks < 2; masks++) {
        memset(weightGradient, 0, (size_t)(kernel * kernel * channels) * sizeof(float));
        memset(sums, 0, (size_t)channels * sizeof(double));
        run(input, outputGradient, weights, height, width, channels, kernel, stride, padTop, padLeft, outputHeight, outputWidth,
            masks ? inputGradient : NULL, masks, masks ? sums : NULL, weightGradient);
        double *expectedInput = calloc((size_t)(height * width * channels), sizeof(double));
        double *expectedWeights = calloc((size_t)(kernel * kernel * channels), sizeof(double));
        for (long oy = 0; oy < outputHeight; oy++) {
            for (long ox = 0; ox < outputWidth; ox++) {
                for (long ky = 0; ky < kernel; ky++) {
                    for (long kx = 0; kx < kernel; kx++) {
                        long iy = oy * stride - padTop + ky, ix = ox * stride - padLeft + kx;
                        if (iy < 0 || iy >= height || ix < 0 || ix >= width) continue;
                        for (long c = 0; c < channels; c++) {
                            double g = outputGradient[(oy * outputWidth + ox) * channels + c];
                            expectedWeights[(ky * kernel + kx) * channels + c] += input[(iy * width + ix) * channels + c] * g;
                            expectedInput[(iy * width + ix) * channels + c] += weights[(ky * kernel + kx) * channels + c] * g;
                        }
                    }
                }
            }
        }
        long wrong = 0;
        for (long i = 0; i < kernel * kernel * channels; i++) wrong += !close_to(weightGradient[i], expectedWeights[i]);
        if (masks) {
            double *expectedSums = calloc((size_t)channels, sizeof(double));
            for (long i = 0; i < height * width * channels; i++) {
                double expected = inside(input[i]) ? expectedInput[i] : 0;
                expectedSums[i % channels] += expected;
                wrong += !close_to(inputGradient[i], expected);
            }
            for (long c = 0; c < channels; c++) wrong += !close_to(sums[c], expectedSums[c]);
            free(expectedSums);
        }
        CHECK(wrong == 0, "%s depthwise backward %ldx%ldx%ld k%ld s%ld masks %d: %ld wrong values", name, height, width, channels,
              kernel, stride, masks, wrong);
        free(expectedInput); free(expectedWeights);
    }
    free(input); free(weights); free(outputGradient); free(inputGradient); free(weightGradient); free(sums);
}

static void weight_gradient_case(long pixels, long inputs, long outputs) {
    float *input = floats(pixels * inputs, -1, 1), *gradient = floats(pixels * outputs, -1, 1);
    float *result = floats(inputs * outputs, -1, 1), *before = malloc((size_t)(inputs * outputs) * sizeof(float));
    for (int accumulates = 0; accumulates < 2; accumulates++) {
        memcpy(before, result, (size_t)(inputs * outputs) * sizeof(float));
        wbt_weight_gradient_avx512(input, gradient, pixels, inputs, outputs, accumulates, result);
        long wrong = 0;
        for (long i = 0; i < inputs; i++) {
            for (long o = 0; o < outputs; o++) {
                double sum = accumulates ? before[i * outputs + o] : 0;
                for (long p = 0; p < pixels; p++) sum += (double)input[p * inputs + i] * gradient[p * outputs + o];
                wrong += !close_to(result[i * outputs + o], sum);
            }
        }
        CHECK(wrong == 0, "avx512 weight gradient %ld pixels %ld→%ld accumulates %d: %ld wrong values", pixels, inputs, outputs,
              accumulates, wrong);
    }
    free(input); free(gradient); free(result); free(before);
}

void training_kernel_cases(int level, int *checks, int *failures) {
    checks_counter = checks;
    failures_counter = failures;
    for (int which = 1; which <= level && which <= 2; which++) {
        const char *name = which == 2 ? "avx512" : "avx2";
        scale_bias_cases(name, which == 2 ? wbt_scale_bias_avx512 : wbt_scale_bias_avx2,
                         which == 2 ? wbt_scale_bias_backward_avx512 : wbt_scale_bias_backward_avx2, 300, 21);
        scale_bias_cases(name, which == 2 ? wbt_scale_bias_avx512 : wbt_scale_bias_avx2,
                         which == 2 ? wbt_scale_bias_backward_avx512 : wbt_scale_bias_backward_avx2, 3, 5);
        const long images[][3] = {{1, 1, 3}, {7, 9, 13}, {8, 6, 37}};
        for (size_t i = 0; i < sizeof images / sizeof images[0]; i++) {
            for (long kernel = 3; kernel <= 5; kernel += 2) {
                for (long stride = 1; stride <= 2; stride++) {
                    depthwise_backward_case(name, which == 2 ? wbt_depthwise_backward_avx512 : wbt_depthwise_backward_avx2,
                                            images[i][0], images[i][1], images[i][2], kernel, stride);
                }
            }
        }
        depthwise_backward_case(name, which == 2 ? wbt_depthwise_backward_avx512 : wbt_depthwise_backward_avx2, 6, 5, 11, 7, 3);
    }
    if (level >= 2) {
        const long shapes[][3] = {{1, 1, 1}, {7, 5, 13}, {13, 19, 70}, {400, 11, 24}};
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) weight_gradient_case(shapes[i][0], shapes[i][1], shapes[i][2]);
    }
}
