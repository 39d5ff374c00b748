// The only C code that talks to libheif. libheif reports failures as heif_error values, never by exiting or
// printing; the shim turns them into messages and keeps libheif's work on the calling thread.
#include "heif_shim.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libheif/heif.h>

// Wider or taller images are refused by libheif itself while it reads the boxes; the Swift side's own limits
// (DecodeOptions.maximumSide, and the pixel count) are checked from the header after that, with Workbench's message.
#define SHIM_MAXIMUM_SIDE (1 << 20)

struct heif_shim_decoder {
    struct heif_context *context;
    struct heif_image_handle *handle;
    int descriptor;
    int64_t position;
    int64_t file_size;
    int read_errno;
};

static pthread_once_t shim_initialised = PTHREAD_ONCE_INIT;
static void shim_initialise(void) { (void)heif_init(NULL); }

// The message on one line: a library's own text may hold line breaks (libheif's does), and Workbench's errors are
// one line each.
static void shim_set_error(char *error, int error_capacity, const char *message) {
    if (!error || error_capacity <= 0) return;
    snprintf(error, (size_t)error_capacity, "%s", message);
    for (char *character = error; *character; character++) {
        if (*character == '\n' || *character == '\r' || *character == '\t') *character = ' ';
    }
}

static void shim_report(heif_shim_decoder *decoder, struct heif_error failure, char *error, int error_capacity) {
    char message[256];
    if (decoder && decoder->read_errno) {
        snprintf(message, sizeof message, "read error: %s", strerror(decoder->read_errno));
    } else {
        snprintf(message, sizeof message, "%s", failure.message ? failure.message : "unknown libheif error");
    }
    shim_set_error(error, error_capacity, message);
}

// A libheif reader over a file descriptor, by pread: libheif asks for the boxes and the image data it needs.
static int64_t shim_get_position(void *userdata) { return ((heif_shim_decoder *)userdata)->position; }

static int shim_read(void *data, size_t size, void *userdata) {
    heif_shim_decoder *decoder = userdata;
    unsigned char *target = data;
    while (size > 0) {
        ssize_t count = pread(decoder->descriptor, target, size, (off_t)decoder->position);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0) {
            decoder->read_errno = errno;
            return -1;
        }
        if (count == 0) return -1;
        target += count;
        size -= (size_t)count;
        decoder->position += count;
    }
    return 0;
}

static int shim_seek(int64_t position, void *userdata) {
    heif_shim_decoder *decoder = userdata;
    if (position < 0 || position > decoder->file_size) return -1;
    decoder->position = position;
    return 0;
}

static enum heif_reader_grow_status shim_wait_for_file_size(int64_t target_size, void *userdata) {
    heif_shim_decoder *decoder = userdata;
    return target_size > decoder->file_size ? heif_reader_grow_status_size_beyond_eof : heif_reader_grow_status_size_reached;
}

static struct heif_reader shim_file_reader = {
    .reader_api_version = 1,
    .get_position = shim_get_position,
    .read = shim_read,
    .seek = shim_seek,
    .wait_for_file_size = shim_wait_for_file_size,
};

static heif_shim_decoder *shim_new(char *error, int error_capacity) {
    pthread_once(&shim_initialised, shim_initialise);
    heif_shim_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder) decoder->context = heif_context_alloc();
    if (!decoder || !decoder->context) {
        shim_set_error(error, error_capacity, "out of memory");
        heif_shim_close(decoder);
        return NULL;
    }
    heif_context_set_maximum_image_size_limit(decoder->context, SHIM_MAXIMUM_SIDE);
    // Workbench decodes several pictures at once on its own threads; a grid's tiles are decoded on this one.
    heif_context_set_max_decoding_threads(decoder->context, 0);
    return decoder;
}

// Once the boxes are read: the primary image's handle and header.
static heif_shim_decoder *shim_begin(heif_shim_decoder *decoder, struct heif_error read, heif_shim_header *header,
                                     char *error, int error_capacity) {
    if (read.code != heif_error_Ok) {
        shim_report(decoder, read, error, error_capacity);
        heif_shim_close(decoder);
        return NULL;
    }
    struct heif_error found = heif_context_get_primary_image_handle(decoder->context, &decoder->handle);
    if (found.code != heif_error_Ok) {
        shim_report(decoder, found, error, error_capacity);
        heif_shim_close(decoder);
        return NULL;
    }
    header->width = heif_image_handle_get_width(decoder->handle);
    header->height = heif_image_handle_get_height(decoder->handle);
    header->has_alpha = heif_image_handle_has_alpha_channel(decoder->handle) ? 1 : 0;
    return decoder;
}

heif_shim_decoder *heif_shim_open_file(int descriptor, heif_shim_header *header, char *error, int error_capacity) {
    memset(header, 0, sizeof *header);
    heif_shim_decoder *decoder = shim_new(error, error_capacity);
    if (!decoder) return NULL;
    struct stat information;
    if (fstat(descriptor, &information) != 0) {
        char message[160];
        snprintf(message, sizeof message, "read error: %s", strerror(errno));
        shim_set_error(error, error_capacity, message);
        heif_shim_close(decoder);
        return NULL;
    }
    decoder->descriptor = descriptor;
    decoder->file_size = (int64_t)information.st_size;
    struct heif_error read = heif_context_read_from_reader(decoder->context, &shim_file_reader, decoder, NULL);
    return shim_begin(decoder, read, header, error, error_capacity);
}

heif_shim_decoder *heif_shim_open_memory(const unsigned char *data, size_t size, heif_shim_header *header,
                                         char *error, int error_capacity) {
    memset(header, 0, sizeof *header);
    heif_shim_decoder *decoder = shim_new(error, error_capacity);
    if (!decoder) return NULL;
    struct heif_error read = heif_context_read_from_memory_without_copy(decoder->context, data, size, NULL);
    return shim_begin(decoder, read, header, error, error_capacity);
}

int heif_shim_decode_rgba(heif_shim_decoder *decoder, unsigned char *rgba, size_t rgba_capacity,
                          char *error, int error_capacity) {
    int width = heif_image_handle_get_width(decoder->handle);
    int height = heif_image_handle_get_height(decoder->handle);
    if (width <= 0 || height <= 0 || (size_t)width * (size_t)height * 4 > rgba_capacity) {
        shim_set_error(error, error_capacity, "the image does not fit the buffer");
        return -1;
    }
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (!options) {
        shim_set_error(error, error_capacity, "out of memory");
        return -1;
    }
    options->ignore_transformations = 0;
    options->convert_hdr_to_8bit = 1;
    struct heif_image *image = NULL;
    struct heif_error decoded = heif_decode_image(decoder->handle, &image, heif_colorspace_RGB,
                                                  heif_chroma_interleaved_RGBA, options);
    heif_decoding_options_free(options);
    if (decoded.code != heif_error_Ok || !image) {
        shim_report(decoder, decoded, error, error_capacity);
        if (image) heif_image_release(image);
        return -1;
    }
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int status = 0;
    if (!plane || heif_image_get_width(image, heif_channel_interleaved) != width ||
        heif_image_get_height(image, heif_channel_interleaved) != height ||
        heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved) != 8 || stride < width * 4) {
        shim_set_error(error, error_capacity, "libheif returned an image of another size or depth than its header's");
        status = -1;
    } else {
        for (int y = 0; y < height; y++) {
            memcpy(rgba + (size_t)y * (size_t)width * 4, plane + (size_t)y * (size_t)stride, (size_t)width * 4);
        }
    }
    heif_image_release(image);
    return status;
}

void heif_shim_close(heif_shim_decoder *decoder) {
    if (!decoder) return;
    if (decoder->handle) heif_image_handle_release(decoder->handle);
    if (decoder->context) heif_context_free(decoder->context);
    free(decoder);
}
