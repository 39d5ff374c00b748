#ifndef HEIF_SHIM_H
#define HEIF_SHIM_H

#include <stddef.h>

/// What a HEIF file (HEIC, iPhone photos) says of its primary image, read without decoding any pixel data.
typedef struct {
    /// The primary image's size as displayed: after its rotation (irot) and mirroring (imir), which libheif applies.
    int width;
    int height;
    int has_alpha;
} heif_shim_header;

/// An open libheif context and its primary image.
typedef struct heif_shim_decoder heif_shim_decoder;

/// Reads the boxes of the HEIF file on `descriptor` (from offset 0; libheif reads the parts it needs with pread,
/// never the whole file) and the primary image's header. Returns NULL on failure with the reason in `error`. The
/// descriptor stays the caller's to close, after the decoder.
heif_shim_decoder *heif_shim_open_file(int descriptor, heif_shim_header *header, char *error, int error_capacity);

/// Like heif_shim_open_file over `size` bytes at `data`, which must outlive the decoder.
heif_shim_decoder *heif_shim_open_memory(const unsigned char *data, size_t size, heif_shim_header *header,
                                         char *error, int error_capacity);

/// Decodes the primary image, with libheif's transformations (crop, rotation, mirroring) applied and high bit
/// depths reduced to 8, into `rgba`: width × height pixels of R, G, B, A (alpha 255 when the image has none),
/// rows top to bottom, `rgba_capacity` bytes (at least width * height * 4). Returns 0, or -1 with the reason.
int heif_shim_decode_rgba(heif_shim_decoder *decoder, unsigned char *rgba, size_t rgba_capacity,
                          char *error, int error_capacity);

/// Frees the decoder and everything libheif allocated for it. NULL is allowed.
void heif_shim_close(heif_shim_decoder *decoder);

#endif
