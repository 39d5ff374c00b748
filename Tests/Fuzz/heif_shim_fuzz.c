// libFuzzer harness over the HEIF shim, driven the way ImageCodecs/HEIFDecoder.swift drives it: open (the boxes and
// the primary image's header), refuse an image over the pixel limit, then decode into a buffer of exactly the
// header's size. A crash, leak or sanitizer report is a finding; so is an unterminated message.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heif_shim.h"

// The pixel limit stands in for --max-megapixels: small, so one input cannot take the RSS limit.
enum { maximum_pixels = 1 << 22, error_capacity = 256 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char error[error_capacity];
    heif_shim_header header;
    heif_shim_decoder *decoder = heif_shim_open_memory(data, size, &header, error, error_capacity);
    if (!decoder) {
        if (memchr(error, 0, sizeof error) == NULL) abort();
        return 0;
    }
    if (header.width <= 0 || header.height <= 0 ||
        (int64_t)header.width * (int64_t)header.height > maximum_pixels) {
        heif_shim_close(decoder);
        return 0;
    }
    size_t capacity = (size_t)header.width * (size_t)header.height * 4;
    unsigned char *rgba = malloc(capacity);
    if (rgba && heif_shim_decode_rgba(decoder, rgba, capacity, error, error_capacity) != 0 &&
        memchr(error, 0, sizeof error) == NULL) abort();
    free(rgba);
    heif_shim_close(decoder);
    return 0;
}
