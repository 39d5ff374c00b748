#ifndef WORKBENCH_CKERNELS_H
#define WORKBENCH_CKERNELS_H

/*
 * Hand-vectorised AVX2 + FMA inference kernels for EfficientNet-Lite0 (NHWC float32).
 *
 * The kernels carry `target("avx2,fma")` attributes instead of the whole file being compiled with -mavx2, so no
 * AVX2 instruction can leak into code that runs before the CPU check: callers must test
 * `wb_kernel_level()` once and take a portable path when it returns 0. The `_avx512` kernels need level 2.
 */

#ifdef __cplusplus
extern "C" {
#endif

/// What the CPU and the operating system support (CPUID and XGETBV): 0 neither AVX2 nor AVX-512, 1 AVX2 and
/// FMA, 2 those and AVX-512F.
int wb_kernel_level(void);

/// Floats needed by `wb_pack_pointwise_weights` for a `[inputs, outputs]` matrix.
long wb_packed_pointwise_count(long inputs, long outputs);

/// The width of the next column panel when `remaining` (a multiple of 8) columns are left: 32, or all that is
/// left (8, 16 or 24) at the right edge.
long wb_pointwise_panel_width(long remaining);

/// Repacks row-major IO weights `[inputs, outputs]` into column panels (widths from
/// `wb_pointwise_panel_width`; outputs padded to a multiple of 8), each stored `[inputs, panelWidth]` right
/// after the previous one, zero-filled beyond `outputs`. Portable C.
void wb_pack_pointwise_weights(const float *weights, long inputs, long outputs, float *packed);

/// output[p, o] = clamp(sum_i input[p, i] * W[i, o] + bias[o], lower, upper) + residual[p, o]
///
/// Shapes: input `[pixels, inputs]` (row stride `inputStride`), packed weights from `wb_pack_pointwise_weights`,
/// bias `[outputs]`, residual and output `[pixels, outputs]` (residual may be NULL; output overlaps neither).
/// `following` (may be NULL) is the packed weights of the layer that runs next: the last panel pulls its start
/// toward the cache, as each panel does for the one after it.
/// Requires level 1.
void wb_pointwise_avx2(const float *input, long pixels, long inputs, long inputStride,
                       const float *packed, long outputs, const float *bias,
                       float lower, float upper, const float *residual, const float *following, float *output);

/// `wb_pointwise_avx2` with 512-bit registers: 12 pixels × 32 channels per tile. Requires level 2.
void wb_pointwise_avx512(const float *input, long pixels, long inputs, long inputStride,
                         const float *packed, long outputs, const float *bias,
                         float lower, float upper, const float *residual, const float *following, float *output);

/// Depthwise k×k convolution of output rows `[firstOutputRow, endOutputRow)` of one image, then
/// clamp(·, lower, upper).
///
/// Shapes: the image is `[height, width, channels]`, of which `input` holds the rows from `inputFirstRow` on
/// (at least those the requested output rows read); weights `[kernel, kernel, channels]` (HWC), bias
/// `[channels]`; `output` receives `[endOutputRow − firstOutputRow, outputWidth, channels]`. `padTop`/`padLeft`
/// are the zero rows/columns before the image; taps beyond the bottom/right edge are skipped. Level 1.
void wb_depthwise_avx2(const float *input, long height, long width, long channels,
                       const float *weights, const float *bias, long kernel, long stride,
                       long padTop, long padLeft, long outputWidth, long firstOutputRow, long endOutputRow,
                       long inputFirstRow, float lower, float upper, float *output);

/// im2col for one image: rows `[firstPixel, firstPixel + pixelCount)` of the patch matrix
/// `[outputHeight·outputWidth, kernel·kernel·channels]` (tap-major, channels innermost, zeros over the padding)
/// from input `[height, width, channels]`. Portable C.
void wb_gather_patches(const float *image, long height, long width, long channels, long kernel, long stride,
                       long padTop, long padLeft, long outputWidth, long firstPixel, long pixelCount,
                       float *patches);

/// `wb_depthwise_avx2` with 16 channels per 512-bit register. Requires level 2.
void wb_depthwise_avx512(const float *input, long height, long width, long channels,
                         const float *weights, const float *bias, long kernel, long stride,
                         long padTop, long padLeft, long outputWidth, long firstOutputRow, long endOutputRow,
                         long inputFirstRow, float lower, float upper, float *output);

#ifdef __cplusplus
}
#endif

#endif
