#ifndef JPEG_SHIM_H
#define JPEG_SHIM_H

#include <stddef.h>

/// What a JPEG's header says, read without decoding any pixel data.
typedef struct {
    int width;
    int height;
    /// Components stored in the file: 1 gray, 3 YCbCr/RGB, 4 CMYK/YCCK.
    int components;
    /// libjpeg's J_COLOR_SPACE of the stored data.
    int color_space;
    int is_progressive;
    /// Bytes of the first EXIF APP1 payload (the TIFF structure after "Exif\0\0") copied to the caller's buffer.
    int exif_length;
} jpeg_shim_header;

/// Reads the header of the JPEG in `data` and copies the EXIF TIFF payload (if any) into `exif`.
/// Returns 0 on success; on failure returns -1 and writes libjpeg's message into `error`.
int jpeg_shim_probe(const unsigned char *data, size_t size,
                    unsigned char *exif, int exif_capacity,
                    jpeg_shim_header *header, char *error, int error_capacity);

/// Decodes the JPEG in `data` to interleaved 8-bit RGB rows, scaled by `scale_num`/8 (1...16) with libjpeg's
/// DCT scaling. Gray, YCbCr, RGB, CMYK and YCCK (Adobe-inverted or plain) files all come out as RGB.
/// `rgb` must hold `rgb_capacity` bytes; the scaled size is written to `out_width`/`out_height`.
/// A premature end of data is an error, not a grey-padded image.
/// Returns 0 on success; on failure returns -1 and writes the reason into `error`.
int jpeg_shim_decode(const unsigned char *data, size_t size, int scale_num,
                     unsigned char *rgb, size_t rgb_capacity, int *out_width, int *out_height,
                     char *error, int error_capacity);

#endif
