#ifndef GIF_SHIM_H
#define GIF_SHIM_H

#include <stddef.h>

/// What a GIF's screen descriptor says.
typedef struct {
    /// The logical screen (canvas) every frame is placed on.
    int width;
    int height;
} gif_shim_header;

/// An open giflib reader.
typedef struct gif_shim_decoder gif_shim_decoder;

/// Reads the GIF header, screen descriptor and global colour table from `descriptor` (its current offset on,
/// streamed through a 64 KB buffer, never whole). Returns NULL on failure with giflib's message in `error`. The
/// descriptor stays the caller's to close.
gif_shim_decoder *gif_shim_open_file(int descriptor, gif_shim_header *header, char *error, int error_capacity);

/// Like gif_shim_open_file over `size` bytes at `data`, which must outlive the decoder.
gif_shim_decoder *gif_shim_open_memory(const unsigned char *data, size_t size, gif_shim_header *header,
                                       char *error, int error_capacity);

/// Decodes the first frame onto the canvas, into `rgba`: width × height pixels of R, G, B, A, rows top to bottom,
/// `rgba_capacity` bytes (at least width * height * 4). The frame's transparent colour and the canvas outside the
/// frame have alpha 0; everything else is opaque. Later frames are never read. Returns 0, or -1 with the reason.
int gif_shim_decode_first_frame(gif_shim_decoder *decoder, unsigned char *rgba, size_t rgba_capacity,
                                char *error, int error_capacity);

/// Frees the decoder and everything giflib allocated for it. NULL is allowed.
void gif_shim_close(gif_shim_decoder *decoder);

#endif
