#ifndef JPEG_ENCODE_SHIM_H
#define JPEG_ENCODE_SHIM_H

/// Encodes interleaved 8-bit RGB rows (`width * height * 3` bytes, top row first) as a baseline JPEG at `quality`
/// (1...100). `full_chroma` keeps colour at full resolution (4:4:4) instead of libjpeg's 2×2-subsampled default,
/// which smears small, saturated pictures. On success `*output` holds `*output_size` bytes to release with
/// jpeg_shim_free. Returns 0, or -1 with the reason in `error` (and nothing to free).
int jpeg_shim_encode(const unsigned char *rgb, int width, int height, int quality, int full_chroma,
                     unsigned char **output, unsigned long *output_size, char *error, int error_capacity);

/// Releases a buffer returned by jpeg_shim_encode.
void jpeg_shim_free(unsigned char *buffer);

#endif
