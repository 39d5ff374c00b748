// libFuzzer harness over the GIF shim, driven the way ImageCodecs/GIFDecoder.swift drives it: open (the screen
// descriptor and global colour table), refuse a canvas over the pixel limit, then decode the first frame into a
// buffer of exactly the canvas's size. A crash, leak or sanitizer report is a finding; so is an unterminated
// message or an alpha other than 0 and 255.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gif_shim.h"

// The pixel limit stands in for --max-megapixels: small, so one input cannot take the RSS limit.
enum { maximum_pixels = 1 << 22, error_capacity = 256 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char error[error_capacity];
    gif_shim_header header;
    gif_shim_decoder *decoder = gif_shim_open_memory(data, size, &header, error, error_capacity);
    if (!decoder) {
        if (memchr(error, 0, sizeof error) == NULL) abort();
        return 0;
    }
    if (header.width <= 0 || header.height <= 0 ||
        (int64_t)header.width * (int64_t)header.height > maximum_pixels) {
        gif_shim_close(decoder);
        return 0;
    }
    size_t pixels = (size_t)header.width * (size_t)header.height;
    unsigned char *rgba = malloc(pixels * 4);
    if (rgba) {
        if (gif_shim_decode_first_frame(decoder, rgba, pixels * 4, error, error_capacity) == 0) {
            for (size_t i = 0; i < pixels; i++) {
                if (rgba[4 * i + 3] != 0 && rgba[4 * i + 3] != 255) abort();
            }
        } else if (memchr(error, 0, sizeof error) == NULL) {
            abort();
        }
    }
    free(rgba);
    gif_shim_close(decoder);
    return 0;
}
