#ifndef WORKBENCH_CTRAININGKERNELS_H
#define WORKBENCH_CTRAININGKERNELS_H

/*
 * Hand-vectorised AVX-512 and AVX2 + FMA kernels for the backward passes of Workbench's trainable layers
 * (NHWC float32). Like CKernels, every kernel carries a `target(...)` attribute instead of the file being
 * compiled for those instruction sets, so callers must check the CPU first (Layers' `KernelChoice`, one check
 * per process) and take their portable path below level 1 (AVX2 + FMA) or level 2 (AVX-512) as marked.
 * `TrainableLayers/TrainingKernels.swift` is the only caller.
 */

#ifdef __cplusplus
extern "C" {
#endif

/// output = clamp(input·scale + bias, lower, upper) + residual, per channel.
///
/// Shapes: input, residual (may be NULL) and output `[rows, channels]`; scale and bias `[channels]`.
/// Level 2 (`_avx512`) or 1 (`_avx2`).
void wbt_scale_bias_avx512(const float *input, long rows, long channels, const float *scale, const float *bias,
                           float lower, float upper, const float *residual, float *output);
void wbt_scale_bias_avx2(const float *input, long rows, long channels, const float *scale, const float *bias,
                         float lower, float upper, const float *residual, float *output);

/// The backward pass of `wbt_scale_bias` without a residual. With `activation` (the ReLU6 output, may be NULL)
/// the incoming gradient g is zeroed where the output is not strictly inside (0, 6). Writes inputGradient
/// (may be NULL) = g·scale, and overwrites scaleGradient = Σ_rows g·input and biasGradient = Σ_rows g; the sums
/// run in float over blocks of 256 rows and in double across blocks.
///
/// Shapes: outputGradient, input, activation, inputGradient `[rows, channels]`; scale and the gradients
/// `[channels]`. Level 2 or 1.
void wbt_scale_bias_backward_avx512(const float *outputGradient, const float *input, long rows, long channels,
                                    const float *scale, const float *activation, float *inputGradient,
                                    float *scaleGradient, float *biasGradient);
void wbt_scale_bias_backward_avx2(const float *outputGradient, const float *input, long rows, long channels,
                                  const float *scale, const float *activation, float *inputGradient,
                                  float *scaleGradient, float *biasGradient);

/// One image's depthwise-convolution backward pass, accumulating into the gradients:
/// weightGradient[ky, kx, c] += Σ_{oy, ox} input[oy·stride − padTop + ky, ox·stride − padLeft + kx, c] · outputGradient[oy, ox, c]
/// and, when inputGradient is not NULL, inputGradient[that pixel, c] += weights[ky, kx, c] · outputGradient[oy, ox, c],
/// over the taps inside the image.
///
/// Shapes: input and inputGradient `[height, width, channels]`; outputGradient `[outputHeight, outputWidth,
/// channels]`; weights and weightGradient `[kernel, kernel, channels]` (HWC). kernel is 3 or 5 (others take a
/// slower generic path), stride 1 or 2. Level 2 or 1.
void wbt_depthwise_backward_avx512(const float *input, const float *outputGradient, const float *weights, long height,
                                   long width, long channels, long kernel, long stride, long padTop, long padLeft,
                                   long outputHeight, long outputWidth, float *inputGradient, float *weightGradient);
void wbt_depthwise_backward_avx2(const float *input, const float *outputGradient, const float *weights, long height,
                                 long width, long channels, long kernel, long stride, long padTop, long padLeft,
                                 long outputHeight, long outputWidth, float *inputGradient, float *weightGradient);

/// weightGradient[inputs, outputs] = input[pixels, inputs]ᵀ · outputGradient[pixels, outputs] (overwritten): the
/// weight gradient of a 1×1 convolution, a sum over every pixel of the batch. Level 2.
void wbt_weight_gradient_avx512(const float *input, const float *outputGradient, long pixels, long inputs, long outputs,
                                float *weightGradient);

#ifdef __cplusplus
}
#endif

#endif
