/*
 * The patch gather of an im2col convolution (the network's stem), in portable C: the compiler turns the short
 * per-tap copies into straight-line moves, which Swift's per-tap buffer copies did not.
 */
#include "ckernels.h"

void wb_gather_patches(const float *image, long height, long width, long channels, long kernel, long stride,
                       long padTop, long padLeft, long outputWidth, long firstPixel, long pixelCount,
                       float *patches) {
    const long patchLength = kernel * kernel * channels;
    for (long row = 0; row < pixelCount; row++) {
        const long pixel = firstPixel + row;
        const long oy = pixel / outputWidth, ox = pixel % outputWidth;
        float *patch = patches + row * patchLength;
        const long left = ox * stride - padLeft;
        const int columnsInside = left >= 0 && left + kernel <= width;
        for (long ky = 0; ky < kernel; ky++) {
            const long iy = oy * stride - padTop + ky;
            if (columnsInside && iy >= 0 && iy < height) {
                /* The kernel row's taps are one contiguous run of kernel·channels floats. */
                const float *source = image + (iy * width + left) * channels;
                if (kernel * channels == 9) {
                    /* The RGB 3×3 stem: a constant count the compiler turns into a few moves. */
                    for (long i = 0; i < 9; i++) patch[i] = source[i];
                } else {
                    for (long i = 0; i < kernel * channels; i++) patch[i] = source[i];
                }
                patch += kernel * channels;
                continue;
            }
            for (long kx = 0; kx < kernel; kx++, patch += channels) {
                const long ix = ox * stride - padLeft + kx;
                if (iy >= 0 && iy < height && ix >= 0 && ix < width) {
                    const float *source = image + (iy * width + ix) * channels;
                    for (long c = 0; c < channels; c++) patch[c] = source[c];
                } else {
                    for (long c = 0; c < channels; c++) patch[c] = 0.0f;
                }
            }
        }
    }
}
