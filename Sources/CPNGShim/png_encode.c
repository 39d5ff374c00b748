// PNG encoding with libpng into a growing memory buffer. libpng reports errors by longjmp, so the entry point arms
// png_jmpbuf before calling into it and turns a failure into a message, as png_shim.c does for reading.
#include "png_shim.h"
#include "png_shim_errors.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

// Lives on the heap: libpng holds its address, and it must be intact after a longjmp.
typedef struct {
    png_structp png;
    png_infop info;
    unsigned char *buffer;
    size_t size;
    size_t capacity;
    char message[PNG_SHIM_MESSAGE_CAPACITY];
} encode_state;

static void encode_write(png_structp png, png_bytep data, size_t length) {
    encode_state *state = (encode_state *)png_get_io_ptr(png);
    if (length > state->capacity - state->size) {
        size_t capacity = state->capacity ? state->capacity : 4096;
        while (capacity - state->size < length) {
            if (capacity > ((size_t)-1) / 2) png_error(png, "PNG too large for memory");
            capacity *= 2;
        }
        unsigned char *grown = realloc(state->buffer, capacity);
        if (!grown) png_error(png, "out of memory");
        state->buffer = grown;
        state->capacity = capacity;
    }
    memcpy(state->buffer + state->size, data, length);
    state->size += length;
}

static void encode_flush(png_structp png) { (void)png; }

int png_shim_encode(const unsigned char *pixels, int width, int height, int channels,
                    unsigned char **output, size_t *output_size, char *error, int error_capacity) {
    *output = NULL;
    *output_size = 0;
    if (width <= 0 || height <= 0 || (channels != 3 && channels != 4)) {
        if (error && error_capacity > 0) {
            snprintf(error, (size_t)error_capacity, "cannot encode %dx%d pixels of %d channels as PNG", width, height, channels);
        }
        return -1;
    }
    encode_state *state = calloc(1, sizeof *state);
    if (!state) {
        if (error && error_capacity > 0) snprintf(error, (size_t)error_capacity, "out of memory");
        return -1;
    }
    snprintf(state->message, sizeof state->message, "unknown libpng error");
    state->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, state->message, png_shim_store_error, png_shim_drop_warning);
    if (state->png) state->info = png_create_info_struct(state->png);
    if (!state->png || !state->info) {
        if (error && error_capacity > 0) snprintf(error, (size_t)error_capacity, "cannot create a PNG writer");
        png_destroy_write_struct(state->png ? &state->png : NULL, state->info ? &state->info : NULL);
        free(state);
        return -1;
    }
    if (setjmp(png_jmpbuf(state->png))) {
        if (error && error_capacity > 0) snprintf(error, (size_t)error_capacity, "%s", state->message);
        png_destroy_write_struct(&state->png, &state->info);
        free(state->buffer);
        free(state);
        return -1;
    }
    png_set_write_fn(state->png, state, encode_write, encode_flush);
    png_set_IHDR(state->png, state->info, (png_uint_32)width, (png_uint_32)height, 8,
                 channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(state->png, state->info);
    for (int row = 0; row < height; row++) {
        png_write_row(state->png, (png_const_bytep)(pixels + (size_t)row * (size_t)width * (size_t)channels));
    }
    png_write_end(state->png, state->info);
    *output = state->buffer;
    *output_size = state->size;
    png_destroy_write_struct(&state->png, &state->info);
    free(state);
    return 0;
}

void png_shim_free(unsigned char *buffer) { free(buffer); }
