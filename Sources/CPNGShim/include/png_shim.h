#ifndef PNG_SHIM_H
#define PNG_SHIM_H

#include <stddef.h>

/// What a PNG's IHDR says.
typedef struct {
    int width;
    int height;
    int bit_depth;
    /// PNG colour type: 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA.
    int color_type;
    int is_interlaced;
} png_shim_header;

/// An open libpng reader over a memory buffer that must outlive it, or over a file descriptor.
typedef struct png_shim_reader png_shim_reader;

/// Reads the PNG signature and every chunk up to the image data, and fills `header`.
/// Returns NULL on failure with libpng's message in `error`.
png_shim_reader *png_shim_open(const unsigned char *data, size_t size, png_shim_header *header,
                               char *error, int error_capacity);

/// Like png_shim_open, reading the file on `descriptor` from its current offset in 64 KB chunks as decoding
/// needs them, never whole. The descriptor stays the caller's to close.
png_shim_reader *png_shim_open_file(int descriptor, png_shim_header *header, char *error, int error_capacity);

/// Asks libpng for 8-bit RGBA rows whatever the file holds (palette and tRNS expanded, 16-bit reduced to its
/// high byte, gray spread to RGB, opaque images given alpha 255). Call once, after png_shim_open.
/// Returns 0, or -1 with the message in `error`.
int png_shim_start_rgba(png_shim_reader *reader, char *error, int error_capacity);

/// Reads the next row into `row` (width * 4 bytes). For an interlaced image, call it `height` times per pass
/// (7 passes): each call writes only the pixels of that pass that lie on that row, at their places in the row.
/// Returns 0, or -1 with the message in `error`.
int png_shim_read_row(png_shim_reader *reader, unsigned char *row, char *error, int error_capacity);

/// Reads a whole image (needed for interlaced files) into `image` (width * height * 4 bytes, rows top to bottom).
/// Returns 0, or -1 with the message in `error`.
int png_shim_read_image(png_shim_reader *reader, unsigned char *image, char *error, int error_capacity);

/// Frees the reader and everything libpng allocated for it.
void png_shim_close(png_shim_reader *reader);

/// Test support: writes a width × height 8-bit RGB PNG to `path`, one row at a time (constant memory), with
/// pixel (x, y) = (x % 256, y * 255 / (height - 1), 128 + (x / 1000 % 2) * 64); green is 0 when height is 1.
/// Returns 0, or -1 with the message in `error`.
int png_shim_write_test_gradient(const char *path, int width, int height, char *error, int error_capacity);

/// Encodes 8-bit pixels (`channels` = 3 for RGB, 4 for RGBA; `width * height * channels` bytes, top row first) as a
/// non-interlaced PNG in memory. On success `*output` holds `*output_size` bytes to release with png_shim_free.
/// Returns 0, or -1 with libpng's message in `error` (and nothing to free).
int png_shim_encode(const unsigned char *pixels, int width, int height, int channels,
                    unsigned char **output, size_t *output_size, char *error, int error_capacity);

/// Releases a buffer returned by png_shim_encode.
void png_shim_free(unsigned char *buffer);

#endif
