#ifndef TIFF_SHIM_H
#define TIFF_SHIM_H

#include <stddef.h>

/// What the first page (directory) of a TIFF file says, read without decoding any pixel data.
typedef struct {
    /// The stored size, before the orientation is applied.
    int width;
    int height;
    /// The Orientation tag (274), 1...8 as in EXIF (TIFF's meaning is EXIF's); 1 when absent or out of range.
    int orientation;
    int samples_per_pixel;
    int bits_per_sample;
    /// The Photometric tag: 0/1 greyscale, 2 RGB, 3 palette, 5 separated (CMYK), 6 YCbCr...
    int photometric;
} tiff_shim_header;

/// An open libtiff reader with its error messages.
typedef struct tiff_shim_reader tiff_shim_reader;

/// Opens the TIFF file on `descriptor` (read with pread as libtiff asks, never whole) and reads its first page's
/// header. Returns NULL on failure with libtiff's message in `error`. The descriptor stays the caller's to close.
tiff_shim_reader *tiff_shim_open_file(int descriptor, tiff_shim_header *header, char *error, int error_capacity);

/// Like tiff_shim_open_file over `size` bytes at `data`, which must outlive the reader.
tiff_shim_reader *tiff_shim_open_memory(const unsigned char *data, size_t size, tiff_shim_header *header,
                                        char *error, int error_capacity);

/// Decodes the first page with libtiff's RGBA interface (greyscale, palette, RGB, YCbCr, CMYK... at any common
/// depth) into `rgba`: width × height pixels in stored orientation (the Orientation tag is the caller's to apply),
/// rows top to bottom, R, G, B, A bytes, `rgba_capacity` bytes (at least width * height * 4, 4-byte aligned).
/// Transparent pixels come out composited onto white with alpha 255 (libtiff's samples are premultiplied, so this
/// is exactly PNG's `(c·a + 255·(255 − a) + 127) / 255` for a file with unassociated alpha).
/// Returns 0, or -1 with libtiff's message in `error`.
int tiff_shim_read_rgba(tiff_shim_reader *reader, unsigned char *rgba, size_t rgba_capacity,
                        char *error, int error_capacity);

/// Closes the reader. NULL is allowed.
void tiff_shim_close(tiff_shim_reader *reader);

#endif
