// The only C code that talks to libwebp. libwebp never exits or prints; it reports failures as status codes, which
// this shim turns into messages, and it decodes from memory only, so a file is read into one buffer first.
#include "webp_shim.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <webp/decode.h>
#include <webp/demux.h>

struct webp_shim_decoder {
    // The file's bytes when read from a descriptor (owned), else the caller's.
    unsigned char *owned;
    const unsigned char *data;
    size_t size;
    WebPBitstreamFeatures features;
};

// The message on one line: a library's own text may hold line breaks (libheif's does), and Workbench's errors are
// one line each.
static void shim_set_error(char *error, int error_capacity, const char *message) {
    if (!error || error_capacity <= 0) return;
    snprintf(error, (size_t)error_capacity, "%s", message);
    for (char *character = error; *character; character++) {
        if (*character == '\n' || *character == '\r' || *character == '\t') *character = ' ';
    }
}

static const char *shim_status_text(VP8StatusCode status) {
    switch (status) {
    case VP8_STATUS_OK: return "no error";
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED: return "decoding suspended";
    case VP8_STATUS_USER_ABORT: return "decoding aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "not enough data (truncated file)";
    }
    return "unknown libwebp status";
}

// Reads the headers and the EXIF chunk of the bytes the decoder holds; closes it on failure.
static webp_shim_decoder *shim_begin(webp_shim_decoder *decoder, webp_shim_header *header, unsigned char *exif,
                                     int exif_capacity, char *error, int error_capacity) {
    VP8StatusCode status = WebPGetFeatures(decoder->data, decoder->size, &decoder->features);
    if (status != VP8_STATUS_OK) {
        char message[160];
        snprintf(message, sizeof message, "cannot read the WebP header: %s", shim_status_text(status));
        shim_set_error(error, error_capacity, message);
        webp_shim_close(decoder);
        return NULL;
    }
    header->has_alpha = decoder->features.has_alpha ? 1 : 0;
    header->is_animated = decoder->features.has_animation ? 1 : 0;
    header->width = decoder->features.width;
    header->height = decoder->features.height;
    // The container, for an animation's canvas and the EXIF chunk. Partial: a file cut inside its image data still
    // gives its headers (the pixel limit is checked on them before decoding, which then reports the truncation).
    // A still image whose chunks cannot be parsed keeps its bitstream's size and no EXIF; decoding will say what
    // is wrong with it.
    WebPData whole = {decoder->data, decoder->size};
    WebPDemuxState state = WEBP_DEMUX_PARSE_ERROR;
    WebPDemuxer *demuxer = WebPDemuxPartial(&whole, &state);
    if (demuxer && (state == WEBP_DEMUX_PARSE_ERROR || state == WEBP_DEMUX_PARSING_HEADER)) {
        WebPDemuxDelete(demuxer);
        demuxer = NULL;
    }
    if (!demuxer) {
        if (!header->is_animated) return decoder;
        shim_set_error(error, error_capacity, "cannot read the WebP container (truncated or corrupt RIFF chunks)");
        webp_shim_close(decoder);
        return NULL;
    }
    int canvas_width = (int)WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH);
    int canvas_height = (int)WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT);
    if (header->is_animated) {
        header->width = canvas_width;
        header->height = canvas_height;
    } else if ((canvas_width != 0 || canvas_height != 0) &&
               (canvas_width != header->width || canvas_height != header->height)) {
        shim_set_error(error, error_capacity, "the WebP canvas and its image differ in size");
        WebPDemuxDelete(demuxer);
        webp_shim_close(decoder);
        return NULL;
    }
    if (WebPDemuxGetI(demuxer, WEBP_FF_FORMAT_FLAGS) & EXIF_FLAG) {
        WebPChunkIterator chunk;
        if (WebPDemuxGetChunk(demuxer, "EXIF", 1, &chunk)) {
            const uint8_t *bytes = chunk.chunk.bytes;
            size_t length = chunk.chunk.size;
            // Some writers keep JPEG's "Exif\0\0" prefix in the chunk; the TIFF structure follows it.
            if (length >= 6 && memcmp(bytes, "Exif\0\0", 6) == 0) {
                bytes += 6;
                length -= 6;
            }
            if (length > (size_t)exif_capacity) length = (size_t)exif_capacity;
            if (exif && length > 0) memcpy(exif, bytes, length);
            header->exif_length = (int)length;
            WebPDemuxReleaseChunkIterator(&chunk);
        }
    }
    WebPDemuxDelete(demuxer);
    return decoder;
}

webp_shim_decoder *webp_shim_open_file(int descriptor, size_t maximum_bytes, webp_shim_header *header,
                                       unsigned char *exif, int exif_capacity, char *error, int error_capacity) {
    memset(header, 0, sizeof *header);
    webp_shim_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) {
        shim_set_error(error, error_capacity, "out of memory");
        return NULL;
    }
    size_t capacity = 0, size = 0;
    for (;;) {
        if (size == capacity) {
            if (capacity >= maximum_bytes) {
                shim_set_error(error, error_capacity, "file is larger than the limit for a WebP image");
                webp_shim_close(decoder);
                return NULL;
            }
            size_t grown = capacity ? capacity * 2 : 65536;
            if (grown > maximum_bytes) grown = maximum_bytes;
            unsigned char *larger = realloc(decoder->owned, grown);
            if (!larger) {
                shim_set_error(error, error_capacity, "out of memory");
                webp_shim_close(decoder);
                return NULL;
            }
            decoder->owned = larger;
            capacity = grown;
        }
        ssize_t count;
        do {
            count = read(descriptor, decoder->owned + size, capacity - size);
        } while (count < 0 && errno == EINTR);
        if (count < 0) {
            char message[160];
            snprintf(message, sizeof message, "read error: %s", strerror(errno));
            shim_set_error(error, error_capacity, message);
            webp_shim_close(decoder);
            return NULL;
        }
        if (count == 0) break;
        size += (size_t)count;
    }
    decoder->data = decoder->owned;
    decoder->size = size;
    return shim_begin(decoder, header, exif, exif_capacity, error, error_capacity);
}

webp_shim_decoder *webp_shim_open_memory(const unsigned char *data, size_t size, webp_shim_header *header,
                                         unsigned char *exif, int exif_capacity, char *error, int error_capacity) {
    memset(header, 0, sizeof *header);
    webp_shim_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) {
        shim_set_error(error, error_capacity, "out of memory");
        return NULL;
    }
    decoder->data = data;
    decoder->size = size;
    return shim_begin(decoder, header, exif, exif_capacity, error, error_capacity);
}

// An animation's first frame as the animation decoder composes it on the canvas (background transparent).
static int shim_decode_first_frame(webp_shim_decoder *decoder, unsigned char *rgba, size_t rgba_capacity,
                                   char *error, int error_capacity) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) {
        shim_set_error(error, error_capacity, "libwebp version mismatch");
        return -1;
    }
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData whole = {decoder->data, decoder->size};
    WebPAnimDecoder *animation = WebPAnimDecoderNew(&whole, &options);
    if (!animation) {
        shim_set_error(error, error_capacity, "cannot read the WebP animation");
        return -1;
    }
    WebPAnimInfo info;
    uint8_t *frame = NULL;
    int timestamp = 0;
    int status = -1;
    if (!WebPAnimDecoderGetInfo(animation, &info)) {
        shim_set_error(error, error_capacity, "cannot read the WebP animation");
    } else if ((size_t)info.canvas_width * (size_t)info.canvas_height * 4 > rgba_capacity) {
        shim_set_error(error, error_capacity, "the canvas does not fit the buffer");
    } else if (!WebPAnimDecoderGetNext(animation, &frame, &timestamp) || !frame) {
        shim_set_error(error, error_capacity, "cannot decode the first frame of the WebP animation");
    } else {
        memcpy(rgba, frame, (size_t)info.canvas_width * (size_t)info.canvas_height * 4);
        status = 0;
    }
    WebPAnimDecoderDelete(animation);
    return status;
}

int webp_shim_decode_rgba(webp_shim_decoder *decoder, unsigned char *rgba, size_t rgba_capacity,
                          char *error, int error_capacity) {
    if (decoder->features.has_animation) return shim_decode_first_frame(decoder, rgba, rgba_capacity, error, error_capacity);
    int width = decoder->features.width, height = decoder->features.height;
    if (width <= 0 || height <= 0 || (size_t)width * (size_t)height * 4 > rgba_capacity) {
        shim_set_error(error, error_capacity, "the image does not fit the buffer");
        return -1;
    }
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        shim_set_error(error, error_capacity, "libwebp version mismatch");
        return -1;
    }
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = rgba;
    config.output.u.RGBA.stride = width * 4;
    config.output.u.RGBA.size = (size_t)width * (size_t)height * 4;
    VP8StatusCode status = WebPDecode(decoder->data, decoder->size, &config);
    WebPFreeDecBuffer(&config.output);
    if (status != VP8_STATUS_OK) {
        char message[160];
        snprintf(message, sizeof message, "%s", shim_status_text(status));
        shim_set_error(error, error_capacity, message);
        return -1;
    }
    return 0;
}

void webp_shim_close(webp_shim_decoder *decoder) {
    if (!decoder) return;
    free(decoder->owned);
    free(decoder);
}
