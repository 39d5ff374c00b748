#ifndef WEBP_SHIM_H
#define WEBP_SHIM_H

#include <stddef.h>

/// What a WebP file's headers say, read without decoding any pixel data.
typedef struct {
    /// The canvas: the image's size, or an animation's.
    int width;
    int height;
    int has_alpha;
    int is_animated;
    /// Bytes of the EXIF chunk's payload (a TIFF structure) copied to the caller's buffer; 0 when there is none.
    int exif_length;
} webp_shim_header;

/// An open WebP file: its bytes in memory and libwebp's demuxer over them.
typedef struct webp_shim_decoder webp_shim_decoder;

/// Reads the WebP file on `descriptor` (from its current offset to its end; libwebp decodes from memory, so the
/// compressed bytes are held whole, at most `maximum_bytes` of them), reads its headers into `header` and copies
/// the EXIF chunk (if any) into `exif`. Returns NULL on failure with the reason in `error`. The descriptor stays
/// the caller's to close.
webp_shim_decoder *webp_shim_open_file(int descriptor, size_t maximum_bytes, webp_shim_header *header,
                                       unsigned char *exif, int exif_capacity, char *error, int error_capacity);

/// Like webp_shim_open_file over `size` bytes at `data`, which must outlive the decoder.
webp_shim_decoder *webp_shim_open_memory(const unsigned char *data, size_t size, webp_shim_header *header,
                                         unsigned char *exif, int exif_capacity, char *error, int error_capacity);

/// Decodes the image (an animation's first frame, composed on its canvas) into `rgba`: width × height pixels of
/// 8-bit R, G, B, A (alpha not premultiplied), rows top to bottom, `rgba_capacity` bytes (at least width *
/// height * 4). Returns 0, or -1 with the reason in `error`.
int webp_shim_decode_rgba(webp_shim_decoder *decoder, unsigned char *rgba, size_t rgba_capacity,
                          char *error, int error_capacity);

/// Frees the decoder and the bytes it read. NULL is allowed.
void webp_shim_close(webp_shim_decoder *decoder);

#endif
