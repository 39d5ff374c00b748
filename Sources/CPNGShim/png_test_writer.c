// Test support only: lets the tests build a huge but well-compressing PNG at run time without Python or a
// checked-in file, one row at a time so writing it needs almost no memory.
#include "png_shim.h"
#include "png_shim_errors.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include <png.h>
#include <zlib.h>

typedef struct {
    char message[PNG_SHIM_MESSAGE_CAPACITY];
} shim_writer_state;

int png_shim_write_test_gradient(const char *path, int width, int height, char *error, int error_capacity) {
    shim_writer_state state = {{0}};
    FILE *volatile file = NULL;
    unsigned char *volatile row = NULL;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, state.message, png_shim_store_error, png_shim_drop_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info || width < 1 || height < 1) {
        if (error && error_capacity > 0) snprintf(error, (size_t)error_capacity, "cannot create a PNG writer");
        if (png) png_destroy_write_struct(&png, info ? &info : NULL);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        if (error && error_capacity > 0) snprintf(error, (size_t)error_capacity, "%s", state.message);
        png_destroy_write_struct(&png, &info);
        if (file) fclose(file);
        free(row);
        return -1;
    }
    file = fopen(path, "wb");
    if (!file) png_error(png, "cannot open the output file");
    row = malloc((size_t)width * 3);
    if (!row) png_error(png, "out of memory");
    png_init_io(png, file);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    // Rows differ only in a constant green value, so the Up filter leaves runs that RLE squeezes fast and small.
    png_set_filter(png, 0, PNG_FILTER_UP);
    png_set_compression_strategy(png, Z_RLE);
    png_set_compression_level(png, 1);
    png_write_info(png, info);
    for (int y = 0; y < height; y++) {
        unsigned char green = height > 1 ? (unsigned char)((long)y * 255 / (height - 1)) : 0;
        for (int x = 0; x < width; x++) {
            row[3 * x] = (unsigned char)(x % 256);
            row[3 * x + 1] = green;
            row[3 * x + 2] = (unsigned char)(128 + (x / 1000 % 2) * 64);
        }
        png_write_row(png, row);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    fclose(file);
    free(row);
    return 0;
}
