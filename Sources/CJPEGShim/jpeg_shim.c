// The only C code that talks to libjpeg. libjpeg's default error handler calls exit(), so every entry point
// installs an error manager that longjmps back here and turns the failure into a message.
#include "jpeg_shim.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf recovery;
} shim_error_manager;

static void shim_error_exit(j_common_ptr info) {
    shim_error_manager *manager = (shim_error_manager *)info->err;
    longjmp(manager->recovery, 1);
}

// libjpeg reports a truncated stream only as a warning and pads the rest with grey; a broken file must be
// reported, so that warning is promoted to an error. Other warnings (stray bytes between markers) are tolerated,
// as most viewers do.
static void shim_emit_message(j_common_ptr info, int level) {
    if (level >= 0) return;
    info->err->num_warnings++;
    if (info->err->msg_code == JWRN_JPEG_EOF) {
        shim_error_manager *manager = (shim_error_manager *)info->err;
        longjmp(manager->recovery, 1);
    }
}

static void shim_copy_message(j_common_ptr info, char *error, int error_capacity) {
    char buffer[JMSG_LENGTH_MAX];
    buffer[0] = 0;
    info->err->format_message(info, buffer);
    if (error && error_capacity > 0) snprintf(error, (size_t)error_capacity, "%s", buffer);
}

static void shim_set_error(char *error, int error_capacity, const char *message) {
    if (error && error_capacity > 0) snprintf(error, (size_t)error_capacity, "%s", message);
}

static void shim_install(struct jpeg_decompress_struct *info, shim_error_manager *manager) {
    info->err = jpeg_std_error(&manager->base);
    manager->base.error_exit = shim_error_exit;
    manager->base.emit_message = shim_emit_message;
}

int jpeg_shim_probe(const unsigned char *data, size_t size,
                    unsigned char *exif, int exif_capacity,
                    jpeg_shim_header *header, char *error, int error_capacity) {
    struct jpeg_decompress_struct info;
    shim_error_manager manager;
    memset(header, 0, sizeof *header);
    if (size == 0) {
        shim_set_error(error, error_capacity, "empty input");
        return -1;
    }
    shim_install(&info, &manager);
    if (setjmp(manager.recovery)) {
        shim_copy_message((j_common_ptr)&info, error, error_capacity);
        jpeg_destroy_decompress(&info);
        return -1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_save_markers(&info, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&info, TRUE);

    header->width = (int)info.image_width;
    header->height = (int)info.image_height;
    header->components = info.num_components;
    header->color_space = (int)info.jpeg_color_space;
    header->is_progressive = info.progressive_mode ? 1 : 0;
    for (jpeg_saved_marker_ptr marker = info.marker_list; marker; marker = marker->next) {
        static const unsigned char signature[6] = {'E', 'x', 'i', 'f', 0, 0};
        if (marker->marker != JPEG_APP0 + 1 || marker->data_length < 6) continue;
        if (memcmp(marker->data, signature, 6) != 0) continue;
        int length = (int)marker->data_length - 6;
        if (length > exif_capacity) length = exif_capacity;
        if (exif && length > 0) memcpy(exif, marker->data + 6, (size_t)length);
        header->exif_length = length;
        break;
    }
    jpeg_destroy_decompress(&info);
    return 0;
}

// Adobe applications store CMYK inverted (255 = no ink) and mark the file with an APP14 "Adobe" segment;
// other writers store ink amounts. Either way the result is the naive subtractive mix, rounded.
static void shim_cmyk_row_to_rgb(const JSAMPLE *cmyk, unsigned char *rgb, int width, int inverted) {
    for (int x = 0; x < width; x++) {
        int c = cmyk[4 * x], m = cmyk[4 * x + 1], y = cmyk[4 * x + 2], k = cmyk[4 * x + 3];
        if (!inverted) {
            c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k;
        }
        rgb[3 * x] = (unsigned char)((c * k + 127) / 255);
        rgb[3 * x + 1] = (unsigned char)((m * k + 127) / 255);
        rgb[3 * x + 2] = (unsigned char)((y * k + 127) / 255);
    }
}

int jpeg_shim_decode(const unsigned char *data, size_t size, int scale_num,
                     unsigned char *rgb, size_t rgb_capacity, int *out_width, int *out_height,
                     char *error, int error_capacity) {
    struct jpeg_decompress_struct info;
    shim_error_manager manager;
    *out_width = 0;
    *out_height = 0;
    if (size == 0) {
        shim_set_error(error, error_capacity, "empty input");
        return -1;
    }
    if (scale_num < 1 || scale_num > 16) {
        shim_set_error(error, error_capacity, "scale must be 1...16 eighths");
        return -1;
    }
    shim_install(&info, &manager);
    if (setjmp(manager.recovery)) {
        shim_copy_message((j_common_ptr)&info, error, error_capacity);
        jpeg_destroy_decompress(&info);
        return -1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);

    int is_cmyk = info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK;
    // libjpeg converts YCCK to CMYK itself when asked for CMYK; RGB from CMYK is ours to do.
    info.out_color_space = is_cmyk ? JCS_CMYK : JCS_RGB;
    info.scale_num = (unsigned int)scale_num;
    info.scale_denom = 8;
    info.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&info);

    size_t width = info.output_width, height = info.output_height;
    if (width * height * 3 > rgb_capacity || info.output_components != (is_cmyk ? 4 : 3)) {
        shim_set_error(error, error_capacity, "decoded size does not match the buffer");
        jpeg_destroy_decompress(&info);
        return -1;
    }
    // Lives in libjpeg's image pool, so a longjmp out of the loop frees it with the decompressor.
    JSAMPARRAY cmyk_row = NULL;
    if (is_cmyk) cmyk_row = (*info.mem->alloc_sarray)((j_common_ptr)&info, JPOOL_IMAGE, (JDIMENSION)(width * 4), 1);
    int inverted = info.saw_Adobe_marker ? 1 : 0;

    while (info.output_scanline < info.output_height) {
        unsigned char *destination = rgb + (size_t)info.output_scanline * width * 3;
        if (is_cmyk) {
            jpeg_read_scanlines(&info, cmyk_row, 1);
            shim_cmyk_row_to_rgb(cmyk_row[0], destination, (int)width, inverted);
        } else {
            JSAMPROW row = destination;
            jpeg_read_scanlines(&info, &row, 1);
        }
    }
    jpeg_finish_decompress(&info);
    *out_width = (int)width;
    *out_height = (int)height;
    jpeg_destroy_decompress(&info);
    return 0;
}
