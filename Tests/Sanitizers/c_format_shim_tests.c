// The WebP, HEIF, TIFF and GIF shims under AddressSanitizer and UBSan (built into c_sanitizer_tests by
// scripts/check/sanitize-c.sh): each fixture of formats-manifest.json decoded from memory and from its file as the
// Swift decoders do, RGBA composited onto white and compared with the expected pixels; broken files must fail with
// a message, the same way from memory and from the file.
//
// FORMAT_CASES_FILE has one case a line, "file expected width height tolerance": width and height are the stored
// size (before any orientation, which Swift applies), expected "-" when the file must fail and "=" when only the
// size is checked (the cases turned by an orientation). BMP has no shim (ImageCodecs/BMPDecoder.swift) and is left
// out by the script.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gif_shim.h"
#include "heif_shim.h"
#include "tiff_shim.h"
#include "webp_shim.h"

enum { error_capacity = 256, exif_capacity = 65536 };
// Larger images are refused here as the Swift decoders refuse them (the oversize-header fixtures).
static const long long maximum_pixels = 100000000LL;

static unsigned char *read_whole(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *bytes = malloc(length > 0 ? (size_t)length : 1);
    *size = bytes ? fread(bytes, 1, (size_t)length, file) : 0;
    fclose(file);
    return bytes;
}

static int allowed(int width, int height) {
    return width > 0 && height > 0 && (long long)width * height <= maximum_pixels;
}

// Decodes one file through its shim, from memory (descriptor < 0) or from the descriptor; returns RGB over white.
static unsigned char *decode(const char *name, const unsigned char *data, size_t size, int descriptor, int *width,
                             int *height, char *error) {
    static unsigned char exif[exif_capacity];
    const char *dot = strrchr(name, '.');
    const char *kind = dot ? dot + 1 : "";
    unsigned char *rgba = NULL;
    int status = -1, w = 0, h = 0;
    snprintf(error, error_capacity, "over the pixel limit");
    if (strcmp(kind, "webp") == 0) {
        webp_shim_header header;
        webp_shim_decoder *decoder = descriptor >= 0
            ? webp_shim_open_file(descriptor, (size_t)1 << 30, &header, exif, exif_capacity, error, error_capacity)
            : webp_shim_open_memory(data, size, &header, exif, exif_capacity, error, error_capacity);
        if (decoder && allowed(header.width, header.height)) {
            w = header.width, h = header.height;
            rgba = malloc((size_t)w * h * 4);
            status = webp_shim_decode_rgba(decoder, rgba, (size_t)w * h * 4, error, error_capacity);
        }
        webp_shim_close(decoder);
    } else if (strcmp(kind, "heic") == 0) {
        heif_shim_header header;
        heif_shim_decoder *decoder = descriptor >= 0 ? heif_shim_open_file(descriptor, &header, error, error_capacity)
                                                     : heif_shim_open_memory(data, size, &header, error, error_capacity);
        if (decoder && allowed(header.width, header.height)) {
            w = header.width, h = header.height;
            rgba = malloc((size_t)w * h * 4);
            status = heif_shim_decode_rgba(decoder, rgba, (size_t)w * h * 4, error, error_capacity);
        }
        heif_shim_close(decoder);
    } else if (strcmp(kind, "tif") == 0) {
        tiff_shim_header header;
        tiff_shim_reader *reader = descriptor >= 0 ? tiff_shim_open_file(descriptor, &header, error, error_capacity)
                                                   : tiff_shim_open_memory(data, size, &header, error, error_capacity);
        if (reader && allowed(header.width, header.height)) {
            w = header.width, h = header.height;
            rgba = malloc((size_t)w * h * 4);
            status = tiff_shim_read_rgba(reader, rgba, (size_t)w * h * 4, error, error_capacity);
        }
        tiff_shim_close(reader);
    } else if (strcmp(kind, "gif") == 0) {
        gif_shim_header header;
        gif_shim_decoder *decoder = descriptor >= 0 ? gif_shim_open_file(descriptor, &header, error, error_capacity)
                                                    : gif_shim_open_memory(data, size, &header, error, error_capacity);
        if (decoder && allowed(header.width, header.height)) {
            w = header.width, h = header.height;
            rgba = malloc((size_t)w * h * 4);
            status = gif_shim_decode_first_frame(decoder, rgba, (size_t)w * h * 4, error, error_capacity);
        }
        gif_shim_close(decoder);
    } else {
        snprintf(error, error_capacity, "no shim for %s", name);
    }
    if (status != 0) {
        free(rgba);
        return NULL;
    }
    unsigned char *rgb = malloc((size_t)w * h * 3);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        unsigned alpha = rgba[4 * i + 3];
        for (int c = 0; c < 3; c++) {
            unsigned value = rgba[4 * i + c];
            rgb[3 * i + c] = (unsigned char)(alpha == 255 ? value : (value * alpha + 255 * (255 - alpha) + 127) / 255);
        }
    }
    free(rgba);
    *width = w;
    *height = h;
    return rgb;
}

// One case; returns the number of failed checks and adds to *checks.
static int format_case(const char *folder, const char *file, const char *expected, int width, int height, int tolerance,
                       int *checks) {
    int failed = 0;
#define FORMAT_CHECK(condition, ...)                                      \
    do {                                                                  \
        (*checks)++;                                                      \
        if (!(condition)) {                                               \
            failed++;                                                     \
            fprintf(stderr, "c-sanitizers: FAIL: " __VA_ARGS__);          \
            fprintf(stderr, "\n");                                        \
        }                                                                 \
    } while (0)
    char path[4096], error[error_capacity] = "", streamed_error[error_capacity] = "";
    snprintf(path, sizeof path, "%s/%s", folder, file);
    size_t size = 0;
    unsigned char *data = read_whole(path, &size);
    FORMAT_CHECK(data != NULL, "%s: cannot read the fixture", file);
    if (!data) return failed;
    int w = 0, h = 0, sw = 0, sh = 0;
    unsigned char *rgb = decode(file, data, size, -1, &w, &h, error);
    free(data);
    int descriptor = open(path, O_RDONLY);
    unsigned char *streamed = descriptor >= 0 ? decode(file, NULL, 0, descriptor, &sw, &sh, streamed_error) : NULL;
    if (descriptor >= 0) close(descriptor);
    FORMAT_CHECK((rgb == NULL) == (streamed == NULL), "%s: decoded %s from memory but %s from the file (%s / %s)", file,
                 rgb ? "fine" : "not", streamed ? "fine" : "not", error, streamed_error);
    if (rgb && streamed) {
        FORMAT_CHECK(w == sw && h == sh && memcmp(rgb, streamed, (size_t)w * h * 3) == 0,
                     "%s: the file decode differs from the memory one", file);
    }
    free(streamed);
    if (strcmp(expected, "-") == 0) {
        FORMAT_CHECK(rgb == NULL, "%s: decoded, but it must fail", file);
        FORMAT_CHECK(error[0] != 0 && streamed_error[0] != 0, "%s: failed without a message", file);
        free(rgb);
        return failed;
    }
    FORMAT_CHECK(rgb != NULL, "%s: %s", file, error);
    if (!rgb) return failed;
    FORMAT_CHECK(w == width && h == height, "%s: decoded %dx%d, expected %dx%d", file, w, h, width, height);
    if (strcmp(expected, "=") != 0 && w == width && h == height) {
        snprintf(path, sizeof path, "%s/%s", folder, expected);
        size_t expected_size = 0;
        unsigned char *reference = read_whole(path, &expected_size);
        FORMAT_CHECK(reference && expected_size == (size_t)w * h * 3, "%s: expected %d bytes", expected, w * h * 3);
        int worst = 0;
        for (size_t i = 0; reference && i < expected_size && i < (size_t)w * h * 3; i++) {
            int difference = abs((int)rgb[i] - (int)reference[i]);
            if (difference > worst) worst = difference;
        }
        FORMAT_CHECK(worst <= tolerance, "%s: pixels differ by up to %d, tolerance %d", file, worst, tolerance);
        free(reference);
    }
    free(rgb);
    return failed;
#undef FORMAT_CHECK
}

void format_shim_cases(const char *cases_file, const char *folder, int *cases, int *checks, int *failures) {
    FILE *list = fopen(cases_file, "r");
    (*checks)++;
    if (!list) {
        (*failures)++;
        fprintf(stderr, "c-sanitizers: FAIL: cannot read %s\n", cases_file);
        return;
    }
    char file[256], expected[256];
    int width, height, tolerance;
    while (fscanf(list, "%255s %255s %d %d %d", file, expected, &width, &height, &tolerance) == 5) {
        *failures += format_case(folder, file, expected, width, height, tolerance, checks);
        (*cases)++;
    }
    fclose(list);
}
