#ifndef WORKBENCH_CKERNELS_H
#define WORKBENCH_CKERNELS_H

/*
 * Hand-vectorised AVX2 + FMA inference kernels for EfficientNet-Lite0 (NHWC float32).
 *
 * The kernels carry `target("avx2,fma")` attributes instead of the whole file being compiled with -mavx2, so no
 * AVX2 instruction can leak into code that runs before the CPU check: callers must test
 * `wb_kernels_available()` once and take a portable path when it returns 0.
 */

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when the CPU and the operating system support AVX2 and FMA (CPUID leaf 7 and XGETBV), else 0.
int wb_kernels_available(void);

/// Floats needed by `wb_pack_pointwise_weights` for a `[inputs, outputs]` matrix.
long wb_packed_pointwise_count(long inputs, long outputs);

/// Repacks row-major IO weights `[inputs, outputs]` into column panels of 16 (the last one 8 wide when the
/// padded width leaves 8), each stored `[inputs, panelWidth]`, zero-filled beyond `outputs`. Portable C.
void wb_pack_pointwise_weights(const float *weights, long inputs, long outputs, float *packed);

/// output[p, o] = clamp(sum_i input[p, i] * W[i, o] + bias[o], lower, upper) + residual[p, o]
///
/// Shapes: input `[pixels, inputs]` (row stride `inputStride`), packed weights from `wb_pack_pointwise_weights`,
/// bias `[outputs]`, residual and output `[pixels, outputs]` (residual may be NULL; output overlaps neither).
/// Requires `wb_kernels_available()`.
void wb_pointwise_avx2(const float *input, long pixels, long inputs, long inputStride,
                       const float *packed, long outputs, const float *bias,
                       float lower, float upper, const float *residual, float *output);

/// Depthwise k×k convolution of one image, then clamp(·, lower, upper).
///
/// Shapes: input `[height, width, channels]`, weights `[kernel, kernel, channels]` (HWC), bias `[channels]`,
/// output `[outputHeight, outputWidth, channels]`. `padTop`/`padLeft` are the zero rows/columns before the
/// image; taps beyond the bottom/right edge are skipped. Requires `wb_kernels_available()`.
void wb_depthwise_avx2(const float *input, long height, long width, long channels,
                       const float *weights, const float *bias, long kernel, long stride,
                       long padTop, long padLeft, long outputHeight, long outputWidth,
                       float lower, float upper, float *output);

#ifdef __cplusplus
}
#endif

#endif
