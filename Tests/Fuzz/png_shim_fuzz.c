// libFuzzer harness over the PNG shim, driven the way ImageCodecs/PNGDecoder.swift drives it: open (IHDR and
// the chunks before the image data), refuse an image over the pixel limit, ask for RGBA, then read it row by row
// (or whole, when interlaced). Every failure must come back as -1 with a message; a crash, leak or sanitizer
// report is a finding.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "png_shim.h"

// The pixel limit stands in for --max-megapixels: small, so one input cannot take the RSS limit.
enum { maximum_pixels = 1 << 22, error_capacity = 256 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char error[error_capacity];
    png_shim_header header;
    png_shim_reader *reader = png_shim_open(data, size, &header, error, error_capacity);
    if (!reader) {
        if (memchr(error, 0, sizeof error) == NULL) abort();  // the message must be terminated
        return 0;
    }
    if (header.width <= 0 || header.height <= 0 ||
        (int64_t)header.width * (int64_t)header.height > maximum_pixels) {
        png_shim_close(reader);
        return 0;
    }
    if (png_shim_start_rgba(reader, error, error_capacity) != 0) {
        png_shim_close(reader);
        return 0;
    }
    size_t width = (size_t)header.width, height = (size_t)header.height;
    if (header.is_interlaced) {
        unsigned char *image = malloc(width * height * 4);
        if (image) (void)png_shim_read_image(reader, image, error, error_capacity);
        free(image);
    } else {
        unsigned char *row = malloc(width * 4);
        for (size_t y = 0; row && y < height; y++) {
            if (png_shim_read_row(reader, row, error, error_capacity) != 0) break;
        }
        free(row);
    }
    png_shim_close(reader);
    return 0;
}
