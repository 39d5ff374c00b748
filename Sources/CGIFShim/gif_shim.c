// The only C code that talks to giflib. giflib never exits or prints: every call returns GIF_ERROR and leaves an
// error code (in its Error field, or the open call's out-parameter), which this shim turns into GifErrorString's
// message.
#include "gif_shim.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gif_lib.h>

// Bytes read from a file per refill: the decoder never holds more of the file than this.
#define SHIM_READ_CHUNK 65536

struct gif_shim_decoder {
    GifFileType *gif;
    // Memory source.
    const unsigned char *data;
    size_t size;
    size_t offset;
    // File source.
    int descriptor;
    unsigned char *buffer;
    size_t buffered;
    size_t buffer_offset;
    int read_errno;
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

static void shim_report(gif_shim_decoder *decoder, int code, char *error, int error_capacity) {
    char message[192];
    if (decoder && decoder->read_errno) {
        snprintf(message, sizeof message, "read error: %s", strerror(decoder->read_errno));
    } else {
        const char *text = GifErrorString(code);
        snprintf(message, sizeof message, "%s", text ? text : "unknown giflib error");
    }
    shim_set_error(error, error_capacity, message);
}

static int shim_read_memory(GifFileType *gif, GifByteType *target, int length) {
    gif_shim_decoder *decoder = gif->UserData;
    if (length <= 0) return 0;
    size_t left = decoder->size - decoder->offset;
    size_t taken = (size_t)length < left ? (size_t)length : left;
    memcpy(target, decoder->data + decoder->offset, taken);
    decoder->offset += taken;
    return (int)taken;
}

static int shim_read_file(GifFileType *gif, GifByteType *target, int length) {
    gif_shim_decoder *decoder = gif->UserData;
    int done = 0;
    while (done < length) {
        if (decoder->buffer_offset == decoder->buffered) {
            ssize_t count;
            do {
                count = read(decoder->descriptor, decoder->buffer, SHIM_READ_CHUNK);
            } while (count < 0 && errno == EINTR);
            if (count < 0) {
                decoder->read_errno = errno;
                return done;
            }
            if (count == 0) return done;
            decoder->buffered = (size_t)count;
            decoder->buffer_offset = 0;
        }
        size_t available = decoder->buffered - decoder->buffer_offset;
        size_t taken = (size_t)(length - done) < available ? (size_t)(length - done) : available;
        memcpy(target + done, decoder->buffer + decoder->buffer_offset, taken);
        decoder->buffer_offset += taken;
        done += (int)taken;
    }
    return done;
}

static gif_shim_decoder *shim_open(gif_shim_decoder *decoder, InputFunc input, gif_shim_header *header,
                                   char *error, int error_capacity) {
    int code = 0;
    decoder->gif = DGifOpen(decoder, input, &code);
    if (!decoder->gif) {
        shim_report(decoder, code, error, error_capacity);
        gif_shim_close(decoder);
        return NULL;
    }
    header->width = decoder->gif->SWidth;
    header->height = decoder->gif->SHeight;
    return decoder;
}

gif_shim_decoder *gif_shim_open_file(int descriptor, gif_shim_header *header, char *error, int error_capacity) {
    memset(header, 0, sizeof *header);
    gif_shim_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder) decoder->buffer = malloc(SHIM_READ_CHUNK);
    if (!decoder || !decoder->buffer) {
        shim_set_error(error, error_capacity, "out of memory");
        gif_shim_close(decoder);
        return NULL;
    }
    decoder->descriptor = descriptor;
    return shim_open(decoder, shim_read_file, header, error, error_capacity);
}

gif_shim_decoder *gif_shim_open_memory(const unsigned char *data, size_t size, gif_shim_header *header,
                                       char *error, int error_capacity) {
    memset(header, 0, sizeof *header);
    gif_shim_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) {
        shim_set_error(error, error_capacity, "out of memory");
        return NULL;
    }
    decoder->data = data;
    decoder->size = data ? size : 0;
    return shim_open(decoder, shim_read_memory, header, error, error_capacity);
}

// The row of the frame that the `index`-th row in the file is: interlaced frames come in four passes (rows 0, 8,
// 16…; 4, 12…; 2, 6…; 1, 3…), as the GIF89a specification's appendix E orders them.
static int shim_frame_row(int index, int height, int interlaced) {
    if (!interlaced) return index;
    static const int starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
    for (int pass = 0; pass < 4; pass++) {
        int rows = starts[pass] < height ? (height - starts[pass] + steps[pass] - 1) / steps[pass] : 0;
        if (index < rows) return starts[pass] + index * steps[pass];
        index -= rows;
    }
    return -1;
}

int gif_shim_decode_first_frame(gif_shim_decoder *decoder, unsigned char *rgba, size_t rgba_capacity,
                                char *error, int error_capacity) {
    GifFileType *gif = decoder->gif;
    int width = gif->SWidth, height = gif->SHeight;
    if (width <= 0 || height <= 0 || (size_t)width * (size_t)height * 4 > rgba_capacity) {
        shim_set_error(error, error_capacity, "the canvas does not fit the buffer");
        return -1;
    }
    memset(rgba, 0, (size_t)width * (size_t)height * 4);
    int transparent = -1;
    for (;;) {
        GifRecordType record;
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) {
            shim_report(decoder, gif->Error, error, error_capacity);
            return -1;
        }
        if (record == TERMINATE_RECORD_TYPE) {
            shim_set_error(error, error_capacity, "the GIF holds no image");
            return -1;
        }
        if (record == EXTENSION_RECORD_TYPE) {
            int code = 0;
            GifByteType *block = NULL;
            if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) {
                shim_report(decoder, gif->Error, error, error_capacity);
                return -1;
            }
            // Graphic control: flags, delay (2 bytes), transparent index; bit 0 of the flags says it is used.
            if (code == GRAPHICS_EXT_FUNC_CODE && block && block[0] >= 4) transparent = (block[1] & 1) ? block[4] : -1;
            while (block) {
                if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) {
                    shim_report(decoder, gif->Error, error, error_capacity);
                    return -1;
                }
            }
            continue;
        }
        if (record != IMAGE_DESC_RECORD_TYPE) continue;
        if (DGifGetImageDesc(gif) == GIF_ERROR) {
            shim_report(decoder, gif->Error, error, error_capacity);
            return -1;
        }
        break;
    }
    GifImageDesc *frame = &gif->Image;
    ColorMapObject *colors = frame->ColorMap ? frame->ColorMap : gif->SColorMap;
    if (!colors || !colors->Colors || colors->ColorCount <= 0) {
        shim_set_error(error, error_capacity, "the first frame has no colour table");
        return -1;
    }
    if (frame->Width <= 0 || frame->Height <= 0) {
        shim_set_error(error, error_capacity, "the first frame has no pixels");
        return -1;
    }
    GifPixelType *line = malloc((size_t)frame->Width);
    if (!line) {
        shim_set_error(error, error_capacity, "out of memory");
        return -1;
    }
    for (int index = 0; index < frame->Height; index++) {
        if (DGifGetLine(gif, line, frame->Width) == GIF_ERROR) {
            shim_report(decoder, gif->Error, error, error_capacity);
            free(line);
            return -1;
        }
        // A frame reaching past the canvas is cut to it.
        int y = frame->Top + shim_frame_row(index, frame->Height, frame->Interlace);
        if (y < 0 || y >= height) continue;
        for (int x = 0; x < frame->Width; x++) {
            int column = frame->Left + x;
            if (column < 0 || column >= width) continue;
            int value = line[x];
            unsigned char *pixel = rgba + ((size_t)y * (size_t)width + (size_t)column) * 4;
            if (value == transparent) continue;
            // An index past the colour table is black, as most viewers show it.
            if (value < colors->ColorCount) {
                pixel[0] = colors->Colors[value].Red;
                pixel[1] = colors->Colors[value].Green;
                pixel[2] = colors->Colors[value].Blue;
            }
            pixel[3] = 255;
        }
    }
    free(line);
    return 0;
}

void gif_shim_close(gif_shim_decoder *decoder) {
    if (!decoder) return;
    if (decoder->gif) {
        int code = 0;
        DGifCloseFile(decoder->gif, &code);
    }
    free(decoder->buffer);
    free(decoder);
}
