#ifndef PNG_ENCODE_SHIM_H
#define PNG_ENCODE_SHIM_H

#include <stddef.h>

/// Encodes 8-bit pixels (`channels` = 3 for RGB, 4 for RGBA; `width * height * channels` bytes, top row first) as a
/// non-interlaced PNG in memory. On success `*output` holds `*output_size` bytes to release with png_shim_free.
/// Returns 0, or -1 with libpng's message in `error` (and nothing to free).
int png_shim_encode(const unsigned char *pixels, int width, int height, int channels,
                    unsigned char **output, size_t *output_size, char *error, int error_capacity);

/// Releases a buffer returned by png_shim_encode.
void png_shim_free(unsigned char *buffer);

#endif
