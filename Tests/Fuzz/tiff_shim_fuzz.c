// libFuzzer harness over the TIFF shim, driven the way ImageCodecs/TIFFDecoder.swift drives it: open (the first
// page's header), refuse an image over the pixel limit, then decode into a buffer of exactly the header's size.
// A crash, leak or sanitizer report is a finding; so is an orientation outside 1...8 or an unterminated message.
// libtiff must print nothing either (its handlers are the shim's): a libtiff line in the run's log is a bug.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tiff_shim.h"

// The pixel limit stands in for --max-megapixels: small, so one input cannot take the RSS limit.
enum { maximum_pixels = 1 << 22, error_capacity = 256 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char error[error_capacity];
    tiff_shim_header header;
    tiff_shim_reader *reader = tiff_shim_open_memory(data, size, &header, error, error_capacity);
    if (!reader) {
        if (memchr(error, 0, sizeof error) == NULL) abort();
        return 0;
    }
    if (header.orientation < 1 || header.orientation > 8) abort();
    if (header.width <= 0 || header.height <= 0 ||
        (int64_t)header.width * (int64_t)header.height > maximum_pixels) {
        tiff_shim_close(reader);
        return 0;
    }
    size_t capacity = (size_t)header.width * (size_t)header.height * 4;
    unsigned char *rgba = malloc(capacity);
    if (rgba && tiff_shim_read_rgba(reader, rgba, capacity, error, error_capacity) != 0 &&
        memchr(error, 0, sizeof error) == NULL) abort();
    free(rgba);
    tiff_shim_close(reader);
    return 0;
}
