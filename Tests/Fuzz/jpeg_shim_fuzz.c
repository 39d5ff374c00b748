// libFuzzer harness over the JPEG shim, driven the way ImageCodecs/JPEGDecoder.swift drives it: probe the header
// (with the EXIF copy), refuse an image over the pixel limit, then decode at a DCT scale into a buffer of exactly
// the size libjpeg will produce. A crash, leak or sanitizer report is a finding; so is a decode that succeeds
// with another size than the one the header promised.
#include <stdint.h>
#include <stdlib.h>

#include "jpeg_shim.h"

// The pixel limit stands in for --max-megapixels: small, so one input cannot take the RSS limit.
enum { maximum_pixels = 1 << 22, error_capacity = 256, exif_capacity = 65536 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static unsigned char exif[exif_capacity];
    char error[error_capacity];
    jpeg_shim_header header;
    if (jpeg_shim_probe(data, size, exif, exif_capacity, &header, error, error_capacity) != 0) return 0;
    if (header.exif_length < 0 || header.exif_length > exif_capacity) abort();
    if (header.width <= 0 || header.height <= 0 ||
        (int64_t)header.width * (int64_t)header.height > maximum_pixels) return 0;
    // Every scale the decoder may choose (1...8 eighths), picked from the input so each file tries one.
    int numerator = 1 + (int)(size % 8);
    size_t width = ((size_t)header.width * (size_t)numerator + 7) / 8;
    size_t height = ((size_t)header.height * (size_t)numerator + 7) / 8;
    size_t capacity = width * height * 3;
    unsigned char *rgb = malloc(capacity);
    if (!rgb) return 0;
    int out_width = 0, out_height = 0;
    int status = jpeg_shim_decode(data, size, numerator, rgb, capacity, &out_width, &out_height, error, error_capacity);
    if (status == 0 && ((size_t)out_width != width || (size_t)out_height != height)) abort();
    free(rgb);
    return 0;
}
