// JPEG encoding with libjpeg into memory. As in jpeg_shim.c, libjpeg's default error handler would call exit(),
// so the entry point installs one that longjmps back here and turns the failure into a message.
#include "jpeg_shim.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf recovery;
} encode_error_manager;

static void encode_error_exit(j_common_ptr info) {
    encode_error_manager *manager = (encode_error_manager *)info->err;
    longjmp(manager->recovery, 1);
}

// The compressor's state lives in memory whose address libjpeg holds, so it is still valid after a longjmp.
typedef struct {
    struct jpeg_compress_struct info;
    encode_error_manager manager;
    unsigned char *buffer;
    unsigned long size;
} encode_state;

int jpeg_shim_encode(const unsigned char *rgb, int width, int height, int quality, int full_chroma,
                     unsigned char **output, unsigned long *output_size, char *error, int error_capacity) {
    *output = NULL;
    *output_size = 0;
    if (width <= 0 || height <= 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION) {
        if (error && error_capacity > 0) snprintf(error, (size_t)error_capacity, "image size %dx%d cannot be a JPEG", width, height);
        return -1;
    }
    encode_state *state = calloc(1, sizeof *state);
    if (!state) {
        if (error && error_capacity > 0) snprintf(error, (size_t)error_capacity, "out of memory");
        return -1;
    }
    state->info.err = jpeg_std_error(&state->manager.base);
    state->manager.base.error_exit = encode_error_exit;
    if (setjmp(state->manager.recovery)) {
        char message[JMSG_LENGTH_MAX];
        message[0] = 0;
        state->info.err->format_message((j_common_ptr)&state->info, message);
        if (error && error_capacity > 0) snprintf(error, (size_t)error_capacity, "%s", message);
        jpeg_destroy_compress(&state->info);
        free(state->buffer);
        free(state);
        return -1;
    }
    jpeg_create_compress(&state->info);
    jpeg_mem_dest(&state->info, &state->buffer, &state->size);
    state->info.image_width = (JDIMENSION)width;
    state->info.image_height = (JDIMENSION)height;
    state->info.input_components = 3;
    state->info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&state->info);
    jpeg_set_quality(&state->info, quality < 1 ? 1 : (quality > 100 ? 100 : quality), TRUE);
    if (full_chroma) {
        for (int component = 0; component < state->info.num_components; component++) {
            state->info.comp_info[component].h_samp_factor = 1;
            state->info.comp_info[component].v_samp_factor = 1;
        }
    }
    jpeg_start_compress(&state->info, TRUE);
    while (state->info.next_scanline < state->info.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)state->info.next_scanline * (size_t)width * 3);
        jpeg_write_scanlines(&state->info, &row, 1);
    }
    jpeg_finish_compress(&state->info);
    *output = state->buffer;
    *output_size = state->size;
    jpeg_destroy_compress(&state->info);
    free(state);
    return 0;
}

void jpeg_shim_free(unsigned char *buffer) { free(buffer); }
