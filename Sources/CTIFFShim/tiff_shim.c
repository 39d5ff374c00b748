// The only C code that talks to libtiff. libtiff's default error and warning handlers print to stderr; every reader
// here is opened with its own handlers (TIFFOpenOptions, libtiff 4.5), which keep the first error's text for the
// Swift side and drop warnings, and the process-wide handlers are switched off once, so libtiff never prints.
#include "tiff_shim.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tiffio.h>

// The most libtiff may allocate at once (a strip or tile buffer): a small file cannot ask for gigabytes. The image
// itself goes into the caller's buffer, sized from the header after the pixel limit was checked.
#define SHIM_SINGLE_ALLOCATION_LIMIT ((tmsize_t)256 * 1024 * 1024)
#define SHIM_MESSAGE_CAPACITY 256

struct tiff_shim_reader {
    TIFF *tiff;
    // File source.
    int descriptor;
    // Memory source (data != NULL).
    const unsigned char *data;
    size_t size;
    uint64_t position;
    uint64_t file_size;
    int read_errno;
    char message[SHIM_MESSAGE_CAPACITY];
};

static pthread_once_t shim_quieted = PTHREAD_ONCE_INIT;
static void shim_quiet(void) {
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

// The message on one line: a library's own text may hold line breaks (libheif's does), and Workbench's errors are
// one line each.
static void shim_set_error(char *error, int error_capacity, const char *message) {
    if (!error || error_capacity <= 0) return;
    snprintf(error, (size_t)error_capacity, "%s", message);
    for (char *character = error; *character; character++) {
        if (*character == '\n' || *character == '\r' || *character == '\t') *character = ' ';
    }
}

// Keeps the first error (the later ones are usually its consequences); 1 tells libtiff it was handled.
static int shim_error(TIFF *tiff, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    (void)module;
    tiff_shim_reader *reader = user_data;
    if (reader->message[0] == 0) vsnprintf(reader->message, sizeof reader->message, format, arguments);
    return 1;
}

static int shim_warning(TIFF *tiff, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    (void)user_data;
    (void)module;
    (void)format;
    (void)arguments;
    return 1;
}

static void shim_report(tiff_shim_reader *reader, const char *fallback, char *error, int error_capacity) {
    char message[SHIM_MESSAGE_CAPACITY + 32];
    if (reader->read_errno) snprintf(message, sizeof message, "read error: %s", strerror(reader->read_errno));
    else snprintf(message, sizeof message, "%s", reader->message[0] ? reader->message : fallback);
    shim_set_error(error, error_capacity, message);
}

static tmsize_t shim_read(thandle_t handle, void *buffer, tmsize_t size) {
    tiff_shim_reader *reader = handle;
    if (size <= 0) return 0;
    if (reader->position >= reader->file_size) return 0;
    uint64_t left = reader->file_size - reader->position;
    size_t wanted = (uint64_t)size < left ? (size_t)size : (size_t)left;
    if (reader->data) {
        memcpy(buffer, reader->data + reader->position, wanted);
        reader->position += wanted;
        return (tmsize_t)wanted;
    }
    size_t done = 0;
    while (done < wanted) {
        ssize_t count = pread(reader->descriptor, (unsigned char *)buffer + done, wanted - done,
                              (off_t)(reader->position + done));
        if (count < 0 && errno == EINTR) continue;
        if (count < 0) {
            reader->read_errno = errno;
            return -1;
        }
        if (count == 0) break;
        done += (size_t)count;
    }
    reader->position += done;
    return (tmsize_t)done;
}

static tmsize_t shim_write(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle;
    (void)buffer;
    (void)size;
    return 0;
}

static toff_t shim_seek(thandle_t handle, toff_t offset, int whence) {
    tiff_shim_reader *reader = handle;
    uint64_t base = whence == SEEK_CUR ? reader->position : whence == SEEK_END ? reader->file_size : 0;
    // libtiff passes negative offsets as huge unsigned values: wrap-around arithmetic gives the intended position.
    uint64_t position = base + (uint64_t)offset;
    if (whence == SEEK_SET) position = (uint64_t)offset;
    reader->position = position;
    return (toff_t)position;
}

static int shim_close_procedure(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t shim_size(thandle_t handle) { return (toff_t)((tiff_shim_reader *)handle)->file_size; }

static int shim_map(thandle_t handle, void **base, toff_t *size) {
    (void)handle;
    (void)base;
    (void)size;
    return 0;
}

static void shim_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle;
    (void)base;
    (void)size;
}

static tiff_shim_reader *shim_open(tiff_shim_reader *reader, tiff_shim_header *header, char *error, int error_capacity) {
    pthread_once(&shim_quieted, shim_quiet);
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) {
        shim_set_error(error, error_capacity, "out of memory");
        free(reader);
        return NULL;
    }
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, SHIM_SINGLE_ALLOCATION_LIMIT);
    TIFFOpenOptionsSetErrorHandlerExtR(options, shim_error, reader);
    TIFFOpenOptionsSetWarningHandlerExtR(options, shim_warning, reader);
    // "m": no memory mapping (the procedures above refuse it anyway); "h"-less: the first directory is read.
    reader->tiff = TIFFClientOpenExt("TIFF", "rm", reader, shim_read, shim_write, shim_seek, shim_close_procedure,
                                     shim_size, shim_map, shim_unmap, options);
    TIFFOpenOptionsFree(options);
    if (!reader->tiff) {
        shim_report(reader, "not a readable TIFF file", error, error_capacity);
        free(reader);
        return NULL;
    }
    uint32_t width = 0, height = 0;
    uint16_t orientation = ORIENTATION_TOPLEFT, samples = 1, bits = 1, photometric = 0;
    TIFFGetField(reader->tiff, TIFFTAG_IMAGEWIDTH, &width);
    TIFFGetField(reader->tiff, TIFFTAG_IMAGELENGTH, &height);
    TIFFGetFieldDefaulted(reader->tiff, TIFFTAG_ORIENTATION, &orientation);
    TIFFGetFieldDefaulted(reader->tiff, TIFFTAG_SAMPLESPERPIXEL, &samples);
    TIFFGetFieldDefaulted(reader->tiff, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetField(reader->tiff, TIFFTAG_PHOTOMETRIC, &photometric);
    // A size beyond int's range is reported as the largest int, which every pixel limit refuses.
    header->width = width > INT32_MAX ? INT32_MAX : (int)width;
    header->height = height > INT32_MAX ? INT32_MAX : (int)height;
    header->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    header->samples_per_pixel = samples;
    header->bits_per_sample = bits;
    header->photometric = photometric;
    return reader;
}

tiff_shim_reader *tiff_shim_open_file(int descriptor, tiff_shim_header *header, char *error, int error_capacity) {
    memset(header, 0, sizeof *header);
    tiff_shim_reader *reader = calloc(1, sizeof *reader);
    if (!reader) {
        shim_set_error(error, error_capacity, "out of memory");
        return NULL;
    }
    struct stat information;
    if (fstat(descriptor, &information) != 0) {
        char message[160];
        snprintf(message, sizeof message, "read error: %s", strerror(errno));
        shim_set_error(error, error_capacity, message);
        free(reader);
        return NULL;
    }
    reader->descriptor = descriptor;
    reader->file_size = (uint64_t)information.st_size;
    return shim_open(reader, header, error, error_capacity);
}

tiff_shim_reader *tiff_shim_open_memory(const unsigned char *data, size_t size, tiff_shim_header *header,
                                        char *error, int error_capacity) {
    memset(header, 0, sizeof *header);
    tiff_shim_reader *reader = calloc(1, sizeof *reader);
    if (!reader) {
        shim_set_error(error, error_capacity, "out of memory");
        return NULL;
    }
    reader->descriptor = -1;
    reader->data = data ? data : (const unsigned char *)"";
    reader->size = size;
    reader->file_size = size;
    return shim_open(reader, header, error, error_capacity);
}

int tiff_shim_read_rgba(tiff_shim_reader *reader, unsigned char *rgba, size_t rgba_capacity,
                        char *error, int error_capacity) {
    uint32_t width = 0, height = 0;
    uint16_t orientation = ORIENTATION_TOPLEFT;
    TIFFGetField(reader->tiff, TIFFTAG_IMAGEWIDTH, &width);
    TIFFGetField(reader->tiff, TIFFTAG_IMAGELENGTH, &height);
    TIFFGetFieldDefaulted(reader->tiff, TIFFTAG_ORIENTATION, &orientation);
    if (orientation < 1 || orientation > 8) orientation = ORIENTATION_TOPLEFT;
    if (width == 0 || height == 0 || (uint64_t)width * height * 4 > rgba_capacity || ((uintptr_t)rgba & 3) != 0) {
        shim_set_error(error, error_capacity, "the image does not fit the buffer");
        return -1;
    }
    char reason[1024];
    if (!TIFFRGBAImageOK(reader->tiff, reason)) {
        char message[1100];
        snprintf(message, sizeof message, "unsupported TIFF layout: %s", reason);
        shim_set_error(error, error_capacity, message);
        return -1;
    }
    // Asking for the file's own orientation means no flip at all: the raster comes in stored order, top row
    // first, and the Swift side turns it upright as it does a JPEG's EXIF orientation (libtiff's own turning
    // handles flips, not the transpositions of orientations 5–8).
    uint32_t *raster = (uint32_t *)(void *)rgba;
    reader->message[0] = 0;
    if (!TIFFReadRGBAImageOriented(reader->tiff, width, height, raster, orientation, 1)) {
        shim_report(reader, "cannot decode the TIFF image", error, error_capacity);
        return -1;
    }
    for (size_t i = 0; i < (size_t)width * height; i++) {
        uint32_t pixel = raster[i];
        unsigned alpha = TIFFGetA(pixel);
        unsigned red = TIFFGetR(pixel), green = TIFFGetG(pixel), blue = TIFFGetB(pixel);
        // Premultiplied over white: c + (255 − a), at most 255 for valid data (clamped for files that lie).
        unsigned white = 255 - alpha;
        rgba[4 * i] = (unsigned char)(red + white > 255 ? 255 : red + white);
        rgba[4 * i + 1] = (unsigned char)(green + white > 255 ? 255 : green + white);
        rgba[4 * i + 2] = (unsigned char)(blue + white > 255 ? 255 : blue + white);
        rgba[4 * i + 3] = 255;
    }
    return 0;
}

void tiff_shim_close(tiff_shim_reader *reader) {
    if (!reader) return;
    if (reader->tiff) TIFFClose(reader->tiff);
    free(reader);
}
