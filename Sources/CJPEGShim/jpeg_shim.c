// The only C code that talks to libjpeg. libjpeg's default error handler calls exit(), so every entry point
// arms a setjmp in the decoder and turns a failure into a message.
#include "jpeg_shim.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>

// Bytes read from a file per refill: the decoder never holds more of the file than this.
#define SHIM_READ_CHUNK 65536

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf recovery;
} shim_error_manager;

// A libjpeg source over a file descriptor: refills a fixed buffer with read(2), so a file of any size is
// streamed through SHIM_READ_CHUNK bytes of memory.
typedef struct {
    struct jpeg_source_mgr base;
    int descriptor;
    int read_errno;
    JOCTET buffer[SHIM_READ_CHUNK];
} shim_file_source;

struct jpeg_shim_decoder {
    struct jpeg_decompress_struct info;
    shim_error_manager manager;
    shim_file_source *file_source;
    // libjpeg's state is undefined after a longjmp; from then on only jpeg_shim_close is allowed.
    int failed;
    int created;
    int is_cmyk;
    int inverted;
    JSAMPARRAY cmyk_row;
};

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

static void shim_set_error(char *error, int error_capacity, const char *message) {
    if (error && error_capacity > 0) snprintf(error, (size_t)error_capacity, "%s", message);
}

// After a longjmp: libjpeg's own message, or the read error that caused it.
static void shim_fail(jpeg_shim_decoder *decoder, char *error, int error_capacity) {
    decoder->failed = 1;
    if (decoder->file_source && decoder->file_source->read_errno) {
        char buffer[160];
        snprintf(buffer, sizeof buffer, "read error: %s", strerror(decoder->file_source->read_errno));
        shim_set_error(error, error_capacity, buffer);
        return;
    }
    if (decoder->info.err->msg_code == JERR_NO_BACKING_STORE) {
        // The bound jpeg_shim_start set on libjpeg's whole-image buffers was reached.
        char buffer[160];
        snprintf(buffer, sizeof buffer, "the image needs more decoder memory than the limit of %d MB",
                 JPEG_SHIM_COEFFICIENT_BUFFER_LIMIT / 1000000);
        shim_set_error(error, error_capacity, buffer);
        return;
    }
    char buffer[JMSG_LENGTH_MAX];
    buffer[0] = 0;
    decoder->info.err->format_message((j_common_ptr)&decoder->info, buffer);
    shim_set_error(error, error_capacity, buffer);
}

static void shim_source_init(j_decompress_ptr info) { (void)info; }

static boolean shim_source_fill(j_decompress_ptr info) {
    shim_file_source *source = (shim_file_source *)info->src;
    ssize_t count;
    do {
        count = read(source->descriptor, source->buffer, SHIM_READ_CHUNK);
    } while (count < 0 && errno == EINTR);
    if (count < 0) {
        source->read_errno = errno;
        ERREXIT(info, JERR_FILE_READ);
    }
    if (count == 0) {
        // What libjpeg's own sources do at the end: warn (promoted to an error above) and feed a fake EOI.
        WARNMS(info, JWRN_JPEG_EOF);
        source->buffer[0] = (JOCTET)0xFF;
        source->buffer[1] = (JOCTET)JPEG_EOI;
        count = 2;
    }
    source->base.next_input_byte = source->buffer;
    source->base.bytes_in_buffer = (size_t)count;
    return TRUE;
}

static void shim_source_skip(j_decompress_ptr info, long count) {
    struct jpeg_source_mgr *source = info->src;
    if (count <= 0) return;
    while ((size_t)count > source->bytes_in_buffer) {
        count -= (long)source->bytes_in_buffer;
        (void)source->fill_input_buffer(info);
    }
    source->next_input_byte += count;
    source->bytes_in_buffer -= (size_t)count;
}

static void shim_source_term(j_decompress_ptr info) { (void)info; }

static jpeg_shim_decoder *shim_new_decoder(char *error, int error_capacity) {
    jpeg_shim_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) {
        shim_set_error(error, error_capacity, "out of memory");
        return NULL;
    }
    decoder->info.err = jpeg_std_error(&decoder->manager.base);
    decoder->manager.base.error_exit = shim_error_exit;
    decoder->manager.base.emit_message = shim_emit_message;
    return decoder;
}

// Reads the header through whichever source is installed, and copies the first EXIF payload.
static int shim_read_header(jpeg_shim_decoder *decoder, unsigned char *exif, int exif_capacity,
                            jpeg_shim_header *header) {
    struct jpeg_decompress_struct *info = &decoder->info;
    jpeg_save_markers(info, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(info, TRUE);
    header->width = (int)info->image_width;
    header->height = (int)info->image_height;
    header->components = info->num_components;
    header->color_space = (int)info->jpeg_color_space;
    header->is_progressive = info->progressive_mode ? 1 : 0;
    for (jpeg_saved_marker_ptr marker = info->marker_list; marker; marker = marker->next) {
        static const unsigned char signature[6] = {'E', 'x', 'i', 'f', 0, 0};
        if (marker->marker != JPEG_APP0 + 1 || marker->data_length < 6) continue;
        if (memcmp(marker->data, signature, 6) != 0) continue;
        int length = (int)marker->data_length - 6;
        if (length > exif_capacity) length = exif_capacity;
        if (exif && length > 0) memcpy(exif, marker->data + 6, (size_t)length);
        header->exif_length = length;
        break;
    }
    return 0;
}

// Creates the decompressor, attaches its source (the decoder's file source if it has one, else `data`) and reads
// the header, all under a recovery point armed in this frame, which stays live until they are done. Returns the
// decoder, or NULL with the error after closing it.
static jpeg_shim_decoder *shim_begin(jpeg_shim_decoder *decoder, const unsigned char *data, size_t size,
                                     jpeg_shim_header *header, unsigned char *exif, int exif_capacity,
                                     char *error, int error_capacity) {
    if (setjmp(decoder->manager.recovery)) {
        shim_fail(decoder, error, error_capacity);
        jpeg_shim_close(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->info);
    decoder->created = 1;
    shim_file_source *source = decoder->file_source;
    if (source) {
        source->base.init_source = shim_source_init;
        source->base.fill_input_buffer = shim_source_fill;
        source->base.skip_input_data = shim_source_skip;
        source->base.resync_to_restart = jpeg_resync_to_restart;
        source->base.term_source = shim_source_term;
        decoder->info.src = &source->base;
    } else {
        jpeg_mem_src(&decoder->info, data, (unsigned long)size);
    }
    shim_read_header(decoder, exif, exif_capacity, header);
    return decoder;
}

jpeg_shim_decoder *jpeg_shim_open_file(int descriptor, jpeg_shim_header *header,
                                       unsigned char *exif, int exif_capacity,
                                       char *error, int error_capacity) {
    memset(header, 0, sizeof *header);
    jpeg_shim_decoder *decoder = shim_new_decoder(error, error_capacity);
    if (!decoder) return NULL;
    decoder->file_source = calloc(1, sizeof *decoder->file_source);
    if (!decoder->file_source) {
        shim_set_error(error, error_capacity, "out of memory");
        jpeg_shim_close(decoder);
        return NULL;
    }
    decoder->file_source->descriptor = descriptor;
    return shim_begin(decoder, NULL, 0, header, exif, exif_capacity, error, error_capacity);
}

jpeg_shim_decoder *jpeg_shim_open_memory(const unsigned char *data, size_t size, jpeg_shim_header *header,
                                         unsigned char *exif, int exif_capacity,
                                         char *error, int error_capacity) {
    memset(header, 0, sizeof *header);
    if (size == 0) {
        shim_set_error(error, error_capacity, "empty input");
        return NULL;
    }
    jpeg_shim_decoder *decoder = shim_new_decoder(error, error_capacity);
    if (!decoder) return NULL;
    return shim_begin(decoder, data, size, header, exif, exif_capacity, error, error_capacity);
}

size_t jpeg_shim_coefficient_buffer_bytes(const jpeg_shim_decoder *decoder) {
    if (!decoder || decoder->failed || !decoder->created) return 0;
    const struct jpeg_decompress_struct *info = &decoder->info;
    // libjpeg's own rule (jdinput.c) for reading the whole file before the first row.
    if (!info->progressive_mode && info->comps_in_scan >= info->num_components) return 0;
    if (!info->comp_info) return 0;
    size_t total = 0;
    for (int component = 0; component < info->num_components; component++) {
        const jpeg_component_info *part = &info->comp_info[component];
        size_t h = part->h_samp_factor > 0 ? (size_t)part->h_samp_factor : 1;
        size_t v = part->v_samp_factor > 0 ? (size_t)part->v_samp_factor : 1;
        // What jdcoefct.c requests: the block counts rounded up to the sampling factors.
        size_t columns = ((size_t)part->width_in_blocks + h - 1) / h * h;
        size_t rows = ((size_t)part->height_in_blocks + v - 1) / v * v;
        total += columns * rows * DCTSIZE2 * sizeof(JCOEF);
    }
    return total;
}

int jpeg_shim_start(jpeg_shim_decoder *decoder, int scale_num, int *out_width, int *out_height,
                    char *error, int error_capacity) {
    *out_width = 0;
    *out_height = 0;
    if (decoder->failed) {
        shim_set_error(error, error_capacity, "decoder already failed");
        return -1;
    }
    if (scale_num < 1 || scale_num > 16) {
        shim_set_error(error, error_capacity, "scale must be 1...16 eighths");
        return -1;
    }
    if (setjmp(decoder->manager.recovery)) {
        shim_fail(decoder, error, error_capacity);
        return -1;
    }
    struct jpeg_decompress_struct *info = &decoder->info;
    // A few kilobytes of progressive file can ask for gigabytes of coefficients: refused before they are
    // allocated. libjpeg's own bound on its whole-image buffers backs this up (with no backing store it then fails
    // instead of allocating).
    size_t buffered = jpeg_shim_coefficient_buffer_bytes(decoder);
    if (buffered > (size_t)JPEG_SHIM_COEFFICIENT_BUFFER_LIMIT) {
        char buffer[160];
        snprintf(buffer, sizeof buffer, "%s JPEG would need %zu MB to decode; limit %d MB",
                 info->progressive_mode ? "progressive" : "multi-scan", (buffered + 999999) / 1000000,
                 JPEG_SHIM_COEFFICIENT_BUFFER_LIMIT / 1000000);
        shim_set_error(error, error_capacity, buffer);
        decoder->failed = 1;
        return -2;
    }
    info->mem->max_memory_to_use = JPEG_SHIM_COEFFICIENT_BUFFER_LIMIT + (16L << 20);
    decoder->is_cmyk = info->jpeg_color_space == JCS_CMYK || info->jpeg_color_space == JCS_YCCK;
    // libjpeg converts YCCK to CMYK itself when asked for CMYK; RGB from CMYK is ours to do.
    info->out_color_space = decoder->is_cmyk ? JCS_CMYK : JCS_RGB;
    info->scale_num = (unsigned int)scale_num;
    info->scale_denom = 8;
    info->dct_method = JDCT_ISLOW;
    jpeg_start_decompress(info);
    if (info->output_components != (decoder->is_cmyk ? 4 : 3)) {
        decoder->failed = 1;
        shim_set_error(error, error_capacity, "unexpected number of output components");
        return -1;
    }
    // Lives in libjpeg's image pool, so it is freed with the decompressor whatever happens.
    if (decoder->is_cmyk) {
        decoder->cmyk_row = (*info->mem->alloc_sarray)((j_common_ptr)info, JPOOL_IMAGE,
                                                      (JDIMENSION)(info->output_width * 4), 1);
    }
    decoder->inverted = info->saw_Adobe_marker ? 1 : 0;
    *out_width = (int)info->output_width;
    *out_height = (int)info->output_height;
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

int jpeg_shim_read_row(jpeg_shim_decoder *decoder, unsigned char *rgb, char *error, int error_capacity) {
    if (decoder->failed) {
        shim_set_error(error, error_capacity, "decoder already failed");
        return -1;
    }
    struct jpeg_decompress_struct *info = &decoder->info;
    if (info->output_scanline >= info->output_height) {
        shim_set_error(error, error_capacity, "no rows left");
        return -1;
    }
    if (setjmp(decoder->manager.recovery)) {
        shim_fail(decoder, error, error_capacity);
        return -1;
    }
    // The sources here never suspend, so each call yields one row; anything else is a broken stream.
    JSAMPROW row = rgb;
    JDIMENSION read = decoder->is_cmyk ? jpeg_read_scanlines(info, decoder->cmyk_row, 1)
                                       : jpeg_read_scanlines(info, &row, 1);
    if (read != 1) {
        decoder->failed = 1;
        shim_set_error(error, error_capacity, "the decoder returned no row");
        return -1;
    }
    if (decoder->is_cmyk) shim_cmyk_row_to_rgb(decoder->cmyk_row[0], rgb, (int)info->output_width, decoder->inverted);
    return 0;
}

int jpeg_shim_finish(jpeg_shim_decoder *decoder, char *error, int error_capacity) {
    if (decoder->failed) {
        shim_set_error(error, error_capacity, "decoder already failed");
        return -1;
    }
    if (setjmp(decoder->manager.recovery)) {
        shim_fail(decoder, error, error_capacity);
        return -1;
    }
    jpeg_finish_decompress(&decoder->info);
    return 0;
}

void jpeg_shim_close(jpeg_shim_decoder *decoder) {
    if (!decoder) return;
    if (decoder->created) jpeg_destroy_decompress(&decoder->info);
    free(decoder->file_source);
    free(decoder);
}

int jpeg_shim_probe(const unsigned char *data, size_t size,
                    unsigned char *exif, int exif_capacity,
                    jpeg_shim_header *header, char *error, int error_capacity) {
    jpeg_shim_decoder *decoder = jpeg_shim_open_memory(data, size, header, exif, exif_capacity, error, error_capacity);
    if (!decoder) return -1;
    jpeg_shim_close(decoder);
    return 0;
}

int jpeg_shim_decode(const unsigned char *data, size_t size, int scale_num,
                     unsigned char *rgb, size_t rgb_capacity, int *out_width, int *out_height,
                     char *error, int error_capacity) {
    jpeg_shim_header header;
    *out_width = 0;
    *out_height = 0;
    jpeg_shim_decoder *decoder = jpeg_shim_open_memory(data, size, &header, NULL, 0, error, error_capacity);
    if (!decoder) return -1;
    int width = 0, height = 0;
    if (jpeg_shim_start(decoder, scale_num, &width, &height, error, error_capacity) != 0) {
        jpeg_shim_close(decoder);
        return -1;
    }
    if ((size_t)width * (size_t)height * 3 > rgb_capacity) {
        shim_set_error(error, error_capacity, "decoded size does not match the buffer");
        jpeg_shim_close(decoder);
        return -1;
    }
    for (int y = 0; y < height; y++) {
        if (jpeg_shim_read_row(decoder, rgb + (size_t)y * (size_t)width * 3, error, error_capacity) != 0) {
            jpeg_shim_close(decoder);
            return -1;
        }
    }
    if (jpeg_shim_finish(decoder, error, error_capacity) != 0) {
        jpeg_shim_close(decoder);
        return -1;
    }
    jpeg_shim_close(decoder);
    *out_width = width;
    *out_height = height;
    return 0;
}
