// libFuzzer harness over the WebP shim, driven the way ImageCodecs/WebPDecoder.swift drives it: open (headers and
// the EXIF chunk), refuse an image over the pixel limit, then decode into a buffer of exactly the header's size.
// A crash, leak or sanitizer report is a finding; so is an EXIF length outside the buffer or an unterminated message.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "webp_shim.h"

// The pixel limit stands in for --max-megapixels: small, so one input cannot take the RSS limit.
enum { maximum_pixels = 1 << 22, error_capacity = 256, exif_capacity = 65536 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static unsigned char exif[exif_capacity];
    char error[error_capacity];
    webp_shim_header header;
    webp_shim_decoder *decoder = webp_shim_open_memory(data, size, &header, exif, exif_capacity, error, error_capacity);
    if (!decoder) {
        if (memchr(error, 0, sizeof error) == NULL) abort();
        return 0;
    }
    if (header.exif_length < 0 || header.exif_length > exif_capacity) abort();
    if (header.width <= 0 || header.height <= 0 ||
        (int64_t)header.width * (int64_t)header.height > maximum_pixels) {
        webp_shim_close(decoder);
        return 0;
    }
    size_t capacity = (size_t)header.width * (size_t)header.height * 4;
    unsigned char *rgba = malloc(capacity);
    if (rgba && webp_shim_decode_rgba(decoder, rgba, capacity, error, error_capacity) != 0 &&
        memchr(error, 0, sizeof error) == NULL) abort();
    free(rgba);
    webp_shim_close(decoder);
    return 0;
}
