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
/// (may be NULL) = g·scale (g itself when scale is NULL), and overwrites scaleGradient = Σ_rows g·input (unless
/// input or scaleGradient is NULL) and biasGradient = Σ_rows g; the sums run in float over blocks of 256 rows
/// and in double across blocks.
///
/// Shapes: outputGradient, input, activation, inputGradient `[rows, channels]`; scale and the gradients
/// `[channels]`. Level 2 or 1.
void wbt_scale_bias_backward_avx512(const float *outputGradient, const float *input, long rows, long channels,
                                    const float *scale, const float *activation, float *inputGradient,
                                    float *scaleGradient, float *biasGradient);
void wbt_scale_bias_backward_avx2(const float *outputGradient, const float *input, long rows, long channels,
                                  const float *scale, const float *activation, float *inputGradient,
                                  float *scaleGradient, float *biasGradient);

/// One image's depthwise-convolution backward pass. For every input pixel and the taps that reached an output pixel:
///     g = Σ_taps weights[ky, kx, c] · outputGradient[oy, ox, c]
///     weightGradient[ky, kx, c] += input[iy, ix, c] · outputGradient[oy, ox, c]      (accumulated)
/// where iy = oy·stride − padTop + ky (and likewise for x). With masksInputGradient, g is zeroed where the input is
/// not strictly inside (0, 6) (the input is a ReLU6 output and g becomes the gradient before that ReLU6). g is
/// written to inputGradient (may be NULL) and added to inputGradientSum[c] (may be NULL; double).
///
/// Shapes: input and inputGradient `[height, width, channels]`; outputGradient `[outputHeight, outputWidth,
/// channels]`; weights and weightGradient `[kernel, kernel, channels]` (HWC); inputGradientSum `[channels]`.
/// Kernels 3 and 5 at strides 1 and 2 are fast; others take a slow general path. Level 2 or 1.
void wbt_depthwise_backward_avx512(const float *input, const float *outputGradient, const float *weights, long height,
                                   long width, long channels, long kernel, long stride, long padTop, long padLeft,
                                   long outputHeight, long outputWidth, float *inputGradient, int masksInputGradient,
                                   double *inputGradientSum, float *weightGradient);
void wbt_depthwise_backward_avx2(const float *input, const float *outputGradient, const float *weights, long height,
                                 long width, long channels, long kernel, long stride, long padTop, long padLeft,
                                 long outputHeight, long outputWidth, float *inputGradient, int masksInputGradient,
                                 double *inputGradientSum, float *weightGradient);

/// weightGradient[inputs, outputs] = input[pixels, inputs]ᵀ · outputGradient[pixels, outputs], overwritten or, with
/// accumulates, added to: the weight gradient of a 1×1 convolution (a sum over every pixel of the batch), or of an
/// im2col convolution with the patch matrix as input. Level 2.
void wbt_weight_gradient_avx512(const float *input, const float *outputGradient, long pixels, long inputs, long outputs,
                                int accumulates, float *weightGradient);

#ifdef __cplusplus
}
#endif

#endif
