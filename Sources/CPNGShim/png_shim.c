// The only C code that talks to libpng. libpng reports errors by longjmp; Swift cannot setjmp, so each entry
// point here re-arms png_jmpbuf before calling into libpng and turns a failure into a message.
#include "png_shim.h"
#include "png_shim_errors.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <png.h>

// Bytes read from a file per refill: the reader never holds more of the file than this.
#define SHIM_READ_CHUNK 65536
// The most memory libpng may spend on one ancillary chunk (text, ICC profile...), decompressed: a few-byte
// zTXt or iCCP chunk must not inflate into gigabytes. Image data is streamed row by row and not affected.
#define SHIM_CHUNK_MEMORY_LIMIT (16 * 1024 * 1024)

struct png_shim_reader {
    png_structp png;
    png_infop info;
    // Memory source.
    const unsigned char *data;
    size_t size;
    size_t offset;
    // File source: a descriptor and a refill buffer.
    int descriptor;
    unsigned char *file_buffer;
    size_t buffered;
    size_t buffer_offset;
    png_bytepp row_pointers;
    char message[PNG_SHIM_MESSAGE_CAPACITY];
};

static void shim_png_read(png_structp png, png_bytep destination, size_t length) {
    struct png_shim_reader *reader = (struct png_shim_reader *)png_get_io_ptr(png);
    if (length > reader->size - reader->offset) png_error(png, "unexpected end of data");
    memcpy(destination, reader->data + reader->offset, length);
    reader->offset += length;
}

static void shim_png_read_file(png_structp png, png_bytep destination, size_t length) {
    struct png_shim_reader *reader = (struct png_shim_reader *)png_get_io_ptr(png);
    while (length > 0) {
        if (reader->buffer_offset == reader->buffered) {
            ssize_t count;
            do {
                count = read(reader->descriptor, reader->file_buffer, SHIM_READ_CHUNK);
            } while (count < 0 && errno == EINTR);
            if (count < 0) {
                char message[160];
                snprintf(message, sizeof message, "read error: %s", strerror(errno));
                png_error(png, message);
            }
            if (count == 0) png_error(png, "unexpected end of data");
            reader->buffered = (size_t)count;
            reader->buffer_offset = 0;
        }
        size_t available = reader->buffered - reader->buffer_offset;
        size_t taken = length < available ? length : available;
        memcpy(destination, reader->file_buffer + reader->buffer_offset, taken);
        reader->buffer_offset += taken;
        destination += taken;
        length -= taken;
    }
}

static void shim_png_report(struct png_shim_reader *reader, char *error, int error_capacity) {
    if (error && error_capacity > 0) snprintf(error, (size_t)error_capacity, "%s", reader->message);
}

static png_shim_reader *shim_png_open(struct png_shim_reader *reader, png_rw_ptr read_function,
                                      png_shim_header *header, char *error, int error_capacity);

png_shim_reader *png_shim_open(const unsigned char *data, size_t size, png_shim_header *header,
                               char *error, int error_capacity) {
    memset(header, 0, sizeof *header);
    struct png_shim_reader *reader = calloc(1, sizeof *reader);
    if (!reader) {
        if (error && error_capacity > 0) snprintf(error, (size_t)error_capacity, "out of memory");
        return NULL;
    }
    reader->data = data;
    reader->size = size;
    return shim_png_open(reader, shim_png_read, header, error, error_capacity);
}

png_shim_reader *png_shim_open_file(int descriptor, png_shim_header *header, char *error, int error_capacity) {
    memset(header, 0, sizeof *header);
    struct png_shim_reader *reader = calloc(1, sizeof *reader);
    if (reader) reader->file_buffer = malloc(SHIM_READ_CHUNK);
    if (!reader || !reader->file_buffer) {
        if (error && error_capacity > 0) snprintf(error, (size_t)error_capacity, "out of memory");
        png_shim_close(reader);
        return NULL;
    }
    reader->descriptor = descriptor;
    return shim_png_open(reader, shim_png_read_file, header, error, error_capacity);
}

static png_shim_reader *shim_png_open(struct png_shim_reader *reader, png_rw_ptr read_function,
                                      png_shim_header *header, char *error, int error_capacity) {
    snprintf(reader->message, sizeof reader->message, "unknown libpng error");
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, reader->message, png_shim_store_error, png_shim_drop_warning);
    if (reader->png) reader->info = png_create_info_struct(reader->png);
    if (!reader->png || !reader->info) {
        if (error && error_capacity > 0) snprintf(error, (size_t)error_capacity, "cannot create a PNG reader");
        png_shim_close(reader);
        return NULL;
    }
    if (setjmp(png_jmpbuf(reader->png))) {
        shim_png_report(reader, error, error_capacity);
        png_shim_close(reader);
        return NULL;
    }
    png_set_read_fn(reader->png, reader, read_function);
    // The caller enforces its own pixel limit from the header; libpng's defaults would reject earlier with a
    // less helpful message, so the width/height caps are raised to the format's maximum.
    png_set_user_limits(reader->png, 0x7fffffff, 0x7fffffff);
    png_set_chunk_malloc_max(reader->png, SHIM_CHUNK_MEMORY_LIMIT);
    png_read_info(reader->png, reader->info);
    header->width = (int)png_get_image_width(reader->png, reader->info);
    header->height = (int)png_get_image_height(reader->png, reader->info);
    header->bit_depth = png_get_bit_depth(reader->png, reader->info);
    header->color_type = png_get_color_type(reader->png, reader->info);
    header->is_interlaced = png_get_interlace_type(reader->png, reader->info) != PNG_INTERLACE_NONE;
    return reader;
}

int png_shim_start_rgba(png_shim_reader *reader, char *error, int error_capacity) {
    if (setjmp(png_jmpbuf(reader->png))) {
        shim_png_report(reader, error, error_capacity);
        return -1;
    }
    png_structp png = reader->png;
    png_infop info = reader->info;
    int color_type = png_get_color_type(png, info);
    png_set_expand(png);
    png_set_strip_16(png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    int has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
    if (!has_alpha) png_set_filler(png, 0xFF, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)png_get_image_width(png, info) * 4 ||
        png_get_channels(png, info) != 4 || png_get_bit_depth(png, info) != 8) {
        snprintf(reader->message, sizeof reader->message, "unsupported PNG layout after conversion");
        shim_png_report(reader, error, error_capacity);
        return -1;
    }
    return 0;
}

int png_shim_read_row(png_shim_reader *reader, unsigned char *row, char *error, int error_capacity) {
    if (setjmp(png_jmpbuf(reader->png))) {
        shim_png_report(reader, error, error_capacity);
        return -1;
    }
    png_read_row(reader->png, row, NULL);
    return 0;
}

int png_shim_read_image(png_shim_reader *reader, unsigned char *image, char *error, int error_capacity) {
    size_t height = png_get_image_height(reader->png, reader->info);
    size_t stride = png_get_rowbytes(reader->png, reader->info);
    // Kept in the reader (not a local) so png_shim_close frees it after a longjmp.
    reader->row_pointers = malloc(height * sizeof(png_bytep));
    if (!reader->row_pointers) {
        snprintf(reader->message, sizeof reader->message, "out of memory");
        shim_png_report(reader, error, error_capacity);
        return -1;
    }
    for (size_t y = 0; y < height; y++) reader->row_pointers[y] = image + y * stride;
    if (setjmp(png_jmpbuf(reader->png))) {
        shim_png_report(reader, error, error_capacity);
        return -1;
    }
    png_read_image(reader->png, reader->row_pointers);
    return 0;
}

void png_shim_close(png_shim_reader *reader) {
    if (!reader) return;
    if (reader->png) png_destroy_read_struct(&reader->png, reader->info ? &reader->info : NULL, NULL);
    free(reader->row_pointers);
    free(reader->file_buffer);
    free(reader);
}
