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

/// An open libjpeg decompressor with its error recovery and input source.
typedef struct jpeg_shim_decoder jpeg_shim_decoder;

/// Reads the header of the JPEG on `descriptor` (from its current offset) and copies the EXIF TIFF payload (if
/// any) into `exif`. The file is read in 64 KB chunks as decoding needs it, never whole.
/// Returns NULL on failure with the reason in `error`. The descriptor stays the caller's to close.
jpeg_shim_decoder *jpeg_shim_open_file(int descriptor, jpeg_shim_header *header,
                                       unsigned char *exif, int exif_capacity,
                                       char *error, int error_capacity);

/// Like jpeg_shim_open_file over `size` bytes at `data`, which must outlive the decoder.
jpeg_shim_decoder *jpeg_shim_open_memory(const unsigned char *data, size_t size, jpeg_shim_header *header,
                                         unsigned char *exif, int exif_capacity,
                                         char *error, int error_capacity);

/// The most bytes a decoder may buffer for a whole image's DCT coefficients (see
/// jpeg_shim_coefficient_buffer_bytes): jpeg_shim_start refuses an image that needs more. 250 MB.
#define JPEG_SHIM_COEFFICIENT_BUFFER_LIMIT 250000000

/// Bytes libjpeg will buffer for the whole image's DCT coefficients before giving the first row: a progressive
/// file, or a sequential one whose components come in separate scans, is read to the end first. Every 8×8 block of
/// every component at 2 bytes a coefficient, at full size whatever the DCT scale (scaling happens after). 0 for a
/// single-scan file, which decodes row by row. Valid once the header was read; 0 after a failure.
size_t jpeg_shim_coefficient_buffer_bytes(const jpeg_shim_decoder *decoder);

/// Starts decoding to interleaved 8-bit RGB, scaled by `scale_num`/8 (1...16) with libjpeg's DCT scaling, and
/// gives the scaled size. Gray, YCbCr, RGB, CMYK and YCCK (Adobe-inverted or plain) files all come out as RGB.
/// Returns 0, -1 with the reason in `error`, or -2 when the image's coefficient buffer would exceed
/// JPEG_SHIM_COEFFICIENT_BUFFER_LIMIT ("progressive JPEG would need N MB to decode; limit 250 MB"); the decoder
/// is then failed.
int jpeg_shim_start(jpeg_shim_decoder *decoder, int scale_num, int *out_width, int *out_height,
                    char *error, int error_capacity);

/// Decodes the next row into `rgb` (out_width * 3 bytes). A premature end of data is an error, not grey rows.
/// Returns 0, or -1 with the reason in `error`.
int jpeg_shim_read_row(jpeg_shim_decoder *decoder, unsigned char *rgb, char *error, int error_capacity);

/// Reads up to the end of image once every row was read. Returns 0, or -1 with the reason in `error`.
int jpeg_shim_finish(jpeg_shim_decoder *decoder, char *error, int error_capacity);

/// Frees the decoder and everything libjpeg allocated for it. NULL is allowed.
void jpeg_shim_close(jpeg_shim_decoder *decoder);

/// Reads the header of the JPEG in `data` and copies the EXIF TIFF payload (if any) into `exif`.
/// Returns 0 on success; on failure returns -1 and writes libjpeg's message into `error`.
int jpeg_shim_probe(const unsigned char *data, size_t size,
                    unsigned char *exif, int exif_capacity,
                    jpeg_shim_header *header, char *error, int error_capacity);

/// Decodes the whole JPEG in `data` into `rgb` (`rgb_capacity` bytes), scaled by `scale_num`/8; the scaled size
/// is written to `out_width`/`out_height`. Returns 0 on success; on failure returns -1 and writes the reason
/// into `error`.
int jpeg_shim_decode(const unsigned char *data, size_t size, int scale_num,
                     unsigned char *rgb, size_t rgb_capacity, int *out_width, int *out_height,
                     char *error, int error_capacity);

/// Encodes interleaved 8-bit RGB rows (`width * height * 3` bytes, top row first) as a baseline JPEG at `quality`
/// (1...100). `full_chroma` keeps colour at full resolution (4:4:4) instead of libjpeg's 2×2-subsampled default,
/// which smears small, saturated pictures. On success `*output` holds `*output_size` bytes to release with
/// jpeg_shim_free. Returns 0, or -1 with the reason in `error` (and nothing to free).
int jpeg_shim_encode(const unsigned char *rgb, int width, int height, int quality, int full_chroma,
                     unsigned char **output, unsigned long *output_size, char *error, int error_capacity);

/// Releases a buffer returned by jpeg_shim_encode.
void jpeg_shim_free(unsigned char *buffer);

#endif
