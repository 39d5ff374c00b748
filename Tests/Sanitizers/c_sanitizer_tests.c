// The C code of Workbench under AddressSanitizer and UBSan (scripts/check/sanitize-c.sh builds this with the shims and
// kernels, -fsanitize=address,undefined -fno-sanitize-recover=all): any out-of-bounds access, leak or undefined
// behaviour aborts the run.
//
//   c_sanitizer_tests CASES_FILE FIXTURE_FOLDER
//
// CASES_FILE has one decoder case a line, "file expected width height tolerance scale" (expected "-" when the
// file must fail, width/height the decoded size, scale the JPEG numerator in eighths): the shims decode each
// fixture as the Swift decoders do, and the RGB composited onto white must match the expected bytes, streamed from
// the file as well as from memory. The encoders write a pattern that the decoders must read back. Then the
// kernels run at small odd sizes on every path this CPU supports (wb_kernel_level) and are compared with naive
// loops written here.
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckernels.h"
#include "jpeg_shim.h"
#include "png_shim.h"

static int failures = 0, checks = 0;

/* c_training_kernel_tests.c: the CTrainingKernels' cases, counted here. */
void training_kernel_cases(int level, int *checks, int *failures);
/* c_format_shim_tests.c: the WebP, HEIF, TIFF and GIF shims on their fixtures, counted here. */
void format_shim_cases(const char *cases_file, const char *folder, int *cases, int *checks, int *failures);

#define CHECK(condition, ...)                                    \
    do {                                                         \
        checks++;                                                \
        if (!(condition)) {                                      \
            failures++;                                          \
            fprintf(stderr, "c-sanitizers: FAIL: " __VA_ARGS__); \
            fprintf(stderr, "\n");                               \
        }                                                        \
    } while (0)

static unsigned char *read_file(const char *path, size_t *size) {
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

// PNGDecoder.swift's path at factor 1: RGBA rows composited onto white, rounded.
static unsigned char *decode_png(const unsigned char *data, size_t size, int *width, int *height, char *error) {
    png_shim_header header;
    png_shim_reader *reader = png_shim_open(data, size, &header, error, 256);
    if (!reader) return NULL;
    if (header.width <= 0 || header.height <= 0 || (long long)header.width * header.height > 100000000LL) {
        snprintf(error, 256, "over the pixel limit");
        png_shim_close(reader);
        return NULL;
    }
    size_t w = (size_t)header.width, h = (size_t)header.height;
    unsigned char *rgba = malloc(w * h * 4), *rgb = malloc(w * h * 3);
    int status = png_shim_start_rgba(reader, error, 256);
    if (status == 0 && header.is_interlaced) status = png_shim_read_image(reader, rgba, error, 256);
    for (size_t y = 0; status == 0 && !header.is_interlaced && y < h; y++) {
        status = png_shim_read_row(reader, rgba + y * w * 4, error, 256);
    }
    png_shim_close(reader);
    if (status != 0) {
        free(rgba);
        free(rgb);
        return NULL;
    }
    for (size_t i = 0; i < w * h; i++) {
        unsigned alpha = rgba[4 * i + 3];
        for (int c = 0; c < 3; c++) {
            unsigned value = rgba[4 * i + c];
            rgb[3 * i + c] = (unsigned char)(alpha == 255 ? value : (value * alpha + 255 * (255 - alpha) + 127) / 255);
        }
    }
    free(rgba);
    *width = (int)w;
    *height = (int)h;
    return rgb;
}

static unsigned char *decode_jpeg(const unsigned char *data, size_t size, int scale, int *width, int *height,
                                  char *error) {
    static unsigned char exif[65536];
    jpeg_shim_header header;
    if (jpeg_shim_probe(data, size, exif, sizeof exif, &header, error, 256) != 0) return NULL;
    size_t w = ((size_t)header.width * (size_t)scale + 7) / 8, h = ((size_t)header.height * (size_t)scale + 7) / 8;
    unsigned char *rgb = malloc(w * h * 3 + 1);
    if (jpeg_shim_decode(data, size, scale, rgb, w * h * 3, width, height, error, 256) != 0) {
        free(rgb);
        return NULL;
    }
    return rgb;
}

// The same decodes streamed from a file descriptor (the path the Swift decoders take): every row must equal the
// in-memory decode, and a file that fails in memory must fail streamed too.
static unsigned char *decode_file(const char *path, int is_png, int scale, int *width, int *height, char *error) {
    int descriptor = open(path, O_RDONLY);
    if (descriptor < 0) return NULL;
    unsigned char *rgb = NULL;
    if (is_png) {
        png_shim_header header;
        png_shim_reader *reader = png_shim_open_file(descriptor, &header, error, 256);
        if (reader && header.width > 0 && header.height > 0 && (long long)header.width * header.height <= 100000000LL &&
            png_shim_start_rgba(reader, error, 256) == 0) {
            size_t w = (size_t)header.width, h = (size_t)header.height;
            unsigned char *rgba = malloc(w * h * 4);
            int status = 0;
            for (int pass = 0; status == 0 && pass < (header.is_interlaced ? 7 : 1); pass++) {
                for (size_t y = 0; status == 0 && y < h; y++) {
                    // Interlaced: each pass writes its own pixels of the row into the same row.
                    status = png_shim_read_row(reader, rgba + y * w * 4, error, 256);
                }
            }
            if (status == 0) {
                rgb = malloc(w * h * 3);
                for (size_t i = 0; i < w * h; i++) {
                    unsigned alpha = rgba[4 * i + 3];
                    for (int c = 0; c < 3; c++) {
                        unsigned value = rgba[4 * i + c];
                        rgb[3 * i + c] = (unsigned char)(alpha == 255 ? value : (value * alpha + 255 * (255 - alpha) + 127) / 255);
                    }
                }
                *width = (int)w;
                *height = (int)h;
            }
            free(rgba);
        }
        png_shim_close(reader);
    } else {
        static unsigned char exif[65536];
        jpeg_shim_header header;
        jpeg_shim_decoder *decoder = jpeg_shim_open_file(descriptor, &header, exif, sizeof exif, error, 256);
        int w = 0, h = 0;
        if (decoder && jpeg_shim_start(decoder, scale, &w, &h, error, 256) == 0) {
            rgb = malloc((size_t)w * (size_t)h * 3 + 1);
            int status = 0;
            for (int y = 0; status == 0 && y < h; y++) status = jpeg_shim_read_row(decoder, rgb + (size_t)y * (size_t)w * 3, error, 256);
            if (status == 0) status = jpeg_shim_finish(decoder, error, 256);
            if (status != 0) {
                free(rgb);
                rgb = NULL;
            } else {
                *width = w;
                *height = h;
            }
        }
        jpeg_shim_close(decoder);
    }
    close(descriptor);
    return rgb;
}

static void decoder_case(const char *folder, const char *file, const char *expected, int width, int height,
                         int tolerance, int scale) {
    char path[4096], error[256] = "";
    snprintf(path, sizeof path, "%s/%s", folder, file);
    size_t size = 0;
    unsigned char *data = read_file(path, &size);
    CHECK(data != NULL, "%s: cannot read the fixture", file);
    if (!data) return;
    int is_png = size >= 8 && memcmp(data, "\x89PNG", 4) == 0;
    int decoded_width = 0, decoded_height = 0;
    unsigned char *rgb = is_png ? decode_png(data, size, &decoded_width, &decoded_height, error)
                                : decode_jpeg(data, size, scale, &decoded_width, &decoded_height, error);
    free(data);
    char streamed_error[256] = "";
    int streamed_width = 0, streamed_height = 0;
    unsigned char *streamed = decode_file(path, is_png, scale, &streamed_width, &streamed_height, streamed_error);
    CHECK((rgb == NULL) == (streamed == NULL), "%s: decoded %s from memory but %s streamed (%s)", file,
          rgb ? "fine" : "not", streamed ? "fine" : "not", streamed_error);
    if (rgb && streamed) {
        CHECK(streamed_width == decoded_width && streamed_height == decoded_height &&
                  memcmp(rgb, streamed, (size_t)decoded_width * decoded_height * 3) == 0,
              "%s: the streamed decode differs from the in-memory one", file);
    }
    free(streamed);
    if (strcmp(expected, "-") == 0) {
        CHECK(rgb == NULL, "%s: decoded, but it must fail", file);
        CHECK(error[0] != 0, "%s: failed without a message", file);
        free(rgb);
        return;
    }
    CHECK(rgb != NULL, "%s: %s", file, error);
    if (!rgb) return;
    CHECK(decoded_width == width && decoded_height == height, "%s: decoded %dx%d, expected %dx%d", file,
          decoded_width, decoded_height, width, height);
    if (strcmp(expected, "=") != 0 && decoded_width == width && decoded_height == height) {
        snprintf(path, sizeof path, "%s/%s", folder, expected);
        size_t expected_size = 0;
        unsigned char *reference = read_file(path, &expected_size);
        CHECK(reference && expected_size == (size_t)width * height * 3, "%s: expected file of %d bytes", expected,
              width * height * 3);
        int worst = 0;
        for (size_t i = 0; reference && i < expected_size; i++) {
            int difference = abs((int)rgb[i] - (int)reference[i]);
            if (difference > worst) worst = difference;
        }
        CHECK(worst <= tolerance, "%s: pixels differ by up to %d, tolerance %d", file, worst, tolerance);
        free(reference);
    }
    free(rgb);
}

// ---- Encoders: what they write, read back by the decoders (report thumbnails and heat-map overlays).

static void encoder_cases(void) {
    const int w = 37, h = 23;
    unsigned char rgb[37 * 23 * 3], rgba[37 * 23 * 4];
    for (int i = 0; i < w * h; i++) {
        int x = i % w, y = i / w;
        rgb[3 * i] = (unsigned char)(x * 255 / (w - 1));
        rgb[3 * i + 1] = (unsigned char)(y * 255 / (h - 1));
        rgb[3 * i + 2] = (unsigned char)((x / 5 + y / 5) % 2 ? 200 : 40);
        memcpy(rgba + 4 * i, rgb + 3 * i, 3);
        rgba[4 * i + 3] = (unsigned char)(i % 256);
    }
    char error[256] = "";
    long mean_errors[2] = {-1, -1};
    for (int full_chroma = 0; full_chroma < 2; full_chroma++) {
        unsigned char *jpeg = NULL;
        unsigned long jpeg_size = 0;
        int status = jpeg_shim_encode(rgb, w, h, 90, full_chroma, &jpeg, &jpeg_size, error, sizeof error);
        CHECK(status == 0 && jpeg && jpeg_size > 0, "jpeg_shim_encode (full chroma %d): %s", full_chroma, error);
        if (status != 0) continue;
        int width = 0, height = 0;
        unsigned char *decoded = decode_jpeg(jpeg, jpeg_size, 8, &width, &height, error);
        CHECK(decoded && width == w && height == h, "encoded JPEG does not decode to %dx%d: %s", w, h, error);
        long total = 0;
        for (int i = 0; decoded && i < w * h * 3; i++) total += labs((long)decoded[i] - (long)rgb[i]);
        if (decoded) mean_errors[full_chroma] = total / (w * h * 3);
        free(decoded);
        jpeg_shim_free(jpeg);
    }
    // 5-pixel blue squares: at quality 90, full chroma keeps them within a few levels; 4:2:0 smears their edges.
    CHECK(mean_errors[1] >= 0 && mean_errors[1] < 6 && mean_errors[1] < mean_errors[0],
          "JPEG round trip mean error %ld at full chroma, %ld subsampled", mean_errors[1], mean_errors[0]);
    for (int channels = 3; channels <= 4; channels++) {
        unsigned char *png = NULL;
        size_t png_size = 0;
        int status = png_shim_encode(channels == 3 ? rgb : rgba, w, h, channels, &png, &png_size, error, sizeof error);
        CHECK(status == 0 && png && png_size > 0, "png_shim_encode (%d channels): %s", channels, error);
        if (status != 0) continue;
        int width = 0, height = 0;
        unsigned char *decoded = decode_png(png, png_size, &width, &height, error);
        CHECK(decoded && width == w && height == h, "encoded PNG does not decode to %dx%d: %s", w, h, error);
        int exact = 1;
        for (int i = 0; decoded && i < w * h; i++) {
            for (int c = 0; c < 3; c++) {
                unsigned value = rgb[3 * i + c], alpha = channels == 4 ? rgba[4 * i + 3] : 255;
                unsigned expected = alpha == 255 ? value : (value * alpha + 255 * (255 - alpha) + 127) / 255;
                if (decoded[3 * i + c] != expected) exact = 0;
            }
        }
        CHECK(decoded && exact, "PNG round trip (%d channels) is not exact", channels);
        free(decoded);
        png_shim_free(png);
    }
    unsigned char *nothing = (unsigned char *)1;
    unsigned long nothing_size = 1;
    CHECK(jpeg_shim_encode(rgb, 0, h, 90, 0, &nothing, &nothing_size, error, sizeof error) == -1 && nothing == NULL && error[0],
          "a zero-width JPEG must fail with a message");
    size_t png_nothing_size = 1;
    nothing = (unsigned char *)1;
    CHECK(png_shim_encode(rgb, w, h, 2, &nothing, &png_nothing_size, error, sizeof error) == -1 && nothing == NULL,
          "two channels must fail");
}

// ---- Kernels against naive loops.

// The coefficient bound (issue 23, item 6): a progressive 16,000 × 16,000 file (Y 1×1, Cb and Cr 4×4, one DC scan
// of Y, as scripts/fixtures/make-progressive-jpeg-fixtures.py writes it) is refused before libjpeg allocates its
// 1,056 MB of coefficients; the same file at 1,600 × 1,600 (10.6 MB) decodes to uniform grey.
static size_t progressive_file(int side, unsigned char **bytes) {
    static const unsigned char dqt_head[] = {0xFF, 0xDB, 0x00, 0x43, 0x00};
    size_t luma_blocks = (size_t)((side + 31) / 32) * (size_t)((side + 31) / 32);
    size_t data = (luma_blocks + 7) / 8;
    size_t size = 2 + sizeof dqt_head + 64 + 19 + 22 + 10 + data + 2;
    unsigned char *file = calloc(size, 1), *at = file;
    *at++ = 0xFF; *at++ = 0xD8;
    memcpy(at, dqt_head, sizeof dqt_head); at += sizeof dqt_head;
    memset(at, 1, 64); at += 64;
    unsigned char frame[] = {0xFF, 0xC2, 0x00, 0x11, 8, (unsigned char)(side >> 8), (unsigned char)side,
                             (unsigned char)(side >> 8), (unsigned char)side, 3, 1, 0x11, 0, 2, 0x44, 0, 3, 0x44, 0};
    memcpy(at, frame, sizeof frame); at += sizeof frame;
    unsigned char huffman[22] = {0xFF, 0xC4, 0x00, 0x14, 0x00, 1};  // one 1-bit code, for category 0
    memcpy(at, huffman, sizeof huffman); at += sizeof huffman;
    unsigned char scan[] = {0xFF, 0xDA, 0x00, 0x08, 1, 1, 0x00, 0, 0, 0x00};
    memcpy(at, scan, sizeof scan); at += sizeof scan;
    at += data;  // every block "no change": zero bits
    *at++ = 0xFF; *at++ = 0xD9;
    *bytes = file;
    return (size_t)(at - file);
}

static void progressive_bound_cases(void) {
    unsigned char *file;
    size_t size = progressive_file(16000, &file);
    jpeg_shim_header header;
    char error[256] = {0};
    jpeg_shim_decoder *decoder = jpeg_shim_open_memory(file, size, &header, NULL, 0, error, 256);
    CHECK(decoder != NULL, "progressive 16000: open failed: %s", error);
    if (decoder) {
        CHECK(header.is_progressive == 1, "progressive 16000: not progressive");
        CHECK(jpeg_shim_coefficient_buffer_bytes(decoder) == (size_t)1056000000, "progressive 16000: %zu coefficient bytes",
              jpeg_shim_coefficient_buffer_bytes(decoder));
        int width = 0, height = 0;
        int status = jpeg_shim_start(decoder, 1, &width, &height, error, 256);
        CHECK(status == -2, "progressive 16000: start returned %d", status);
        CHECK(strcmp(error, "progressive JPEG would need 1056 MB to decode; limit 250 MB") == 0, "progressive 16000: '%s'", error);
        CHECK(jpeg_shim_read_row(decoder, NULL, error, 256) == -1, "progressive 16000: a refused decoder reads no row");
        jpeg_shim_close(decoder);
    }
    free(file);

    size = progressive_file(1600, &file);
    int width = 0, height = 0;
    unsigned char *rgb = malloc((size_t)1600 * 1600 * 3);
    int status = jpeg_shim_decode(file, size, 8, rgb, (size_t)1600 * 1600 * 3, &width, &height, error, 256);
    CHECK(status == 0 && width == 1600 && height == 1600, "progressive 1600: %d %dx%d %s", status, width, height, error);
    if (status == 0) CHECK(rgb[0] == 128 && rgb[1] == 128 && rgb[2] == 128 && rgb[(size_t)1600 * 1600 * 3 - 1] == 128,
                           "progressive 1600: not uniform grey (%d %d %d)", rgb[0], rgb[1], rgb[2]);
    free(rgb);
    free(file);
}

static unsigned seed = 12345;
static float random_value(void) {
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}
static float *random_floats(long count) {
    float *values = malloc((size_t)count * sizeof(float));
    for (long i = 0; i < count; i++) values[i] = random_value();
    return values;
}
static float clampf(float value, float lower, float upper) { return fminf(fmaxf(value, lower), upper); }
static int close_enough(float actual, float expected) { return fabsf(actual - expected) <= 1e-4f * (1 + fabsf(expected)); }

typedef void (*pointwise_kernel)(const float *, long, long, long, const float *, long, const float *, float, float,
                                 const float *, const float *, float *);
typedef void (*depthwise_kernel)(const float *, long, long, long, const float *, const float *, long, long, long,
                                 long, long, long, long, long, float, float, float *);

static void pointwise_case(const char *name, pointwise_kernel kernel, long pixels, long inputs, long outputs,
                           int with_residual) {
    long stride = inputs + 3;  // activations read in place from a wider row
    float *input = random_floats(pixels * stride), *weights = random_floats(inputs * outputs);
    float *bias = random_floats(outputs), *residual = with_residual ? random_floats(pixels * outputs) : NULL;
    float *packed = malloc((size_t)wb_packed_pointwise_count(inputs, outputs) * sizeof(float));
    float *following = random_floats(64), *output = malloc((size_t)(pixels * outputs) * sizeof(float));
    wb_pack_pointwise_weights(weights, inputs, outputs, packed);
    const float lower = -0.5f, upper = 0.75f;
    kernel(input, pixels, inputs, stride, packed, outputs, bias, lower, upper, residual, following, output);
    long wrong = 0;
    for (long p = 0; p < pixels; p++) {
        for (long o = 0; o < outputs; o++) {
            float sum = bias[o];
            for (long i = 0; i < inputs; i++) sum += input[p * stride + i] * weights[i * outputs + o];
            float expected = clampf(sum, lower, upper) + (residual ? residual[p * outputs + o] : 0);
            if (!close_enough(output[p * outputs + o], expected)) wrong++;
        }
    }
    CHECK(wrong == 0, "%s pointwise %ld pixels %ld→%ld residual %d: %ld wrong values", name, pixels, inputs, outputs,
          with_residual, wrong);
    free(input); free(weights); free(bias); free(residual); free(packed); free(following); free(output);
}

static float depthwise_reference(const float *image, long height, long width, long channels, const float *weights,
                                 const float *bias, long kernel, long stride, long pad, long oy, long ox, long c) {
    float sum = bias[c];
    for (long ky = 0; ky < kernel; ky++) {
        for (long kx = 0; kx < kernel; kx++) {
            long iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
            if (iy < 0 || iy >= height || ix < 0 || ix >= width) continue;
            sum += image[(iy * width + ix) * channels + c] * weights[(ky * kernel + kx) * channels + c];
        }
    }
    return sum;
}

// Whole image, then a band of output rows read from an input that starts at its first needed row.
static void depthwise_case(const char *name, depthwise_kernel run, long height, long width, long channels,
                           long kernel, long stride) {
    long pad = (kernel - 1) / 2;
    long output_height = (height + stride - 1) / stride, output_width = (width + stride - 1) / stride;
    float *image = random_floats(height * width * channels), *weights = random_floats(kernel * kernel * channels);
    float *bias = random_floats(channels);
    const float lower = -0.5f, upper = 0.75f;
    long bands[2][2] = {{0, output_height}, {output_height / 3, output_height / 3 + 2}};
    for (int band = 0; band < 2; band++) {
        long first = bands[band][0], end = bands[band][1];
        long input_first = first * stride - pad > 0 ? first * stride - pad : 0;
        // The band's input holds only rows from input_first on, in a buffer of exactly that size.
        long rows = height - input_first;
        float *input = malloc((size_t)(rows * width * channels) * sizeof(float));
        memcpy(input, image + input_first * width * channels, (size_t)(rows * width * channels) * sizeof(float));
        float *output = malloc((size_t)((end - first) * output_width * channels) * sizeof(float));
        run(input, height, width, channels, weights, bias, kernel, stride, pad, pad, output_width, first, end,
            input_first, lower, upper, output);
        long wrong = 0;
        for (long oy = first; oy < end; oy++) {
            for (long ox = 0; ox < output_width; ox++) {
                for (long c = 0; c < channels; c++) {
                    float expected = clampf(depthwise_reference(image, height, width, channels, weights, bias, kernel,
                                                                stride, pad, oy, ox, c), lower, upper);
                    if (!close_enough(output[((oy - first) * output_width + ox) * channels + c], expected)) wrong++;
                }
            }
        }
        CHECK(wrong == 0, "%s depthwise %ldx%ldx%ld k%ld s%ld rows %ld..<%ld: %ld wrong values", name, height, width,
              channels, kernel, stride, first, end, wrong);
        free(input);
        free(output);
    }
    free(image); free(weights); free(bias);
}

static void gather_case(long height, long width, long channels, long kernel, long stride) {
    long pad = (kernel - 1) / 2;
    long output_height = (height + stride - 1) / stride, output_width = (width + stride - 1) / stride;
    long first = 1, count = output_height * output_width - 2, length = kernel * kernel * channels;
    float *image = random_floats(height * width * channels);
    float *patches = malloc((size_t)(count * length) * sizeof(float));
    wb_gather_patches(image, height, width, channels, kernel, stride, pad, pad, output_width, first, count, patches);
    long wrong = 0;
    for (long row = 0; row < count; row++) {
        long oy = (first + row) / output_width, ox = (first + row) % output_width;
        for (long ky = 0; ky < kernel; ky++) {
            for (long kx = 0; kx < kernel; kx++) {
                for (long c = 0; c < channels; c++) {
                    long iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
                    float expected = iy < 0 || iy >= height || ix < 0 || ix >= width
                                         ? 0.0f : image[(iy * width + ix) * channels + c];
                    if (patches[row * length + (ky * kernel + kx) * channels + c] != expected) wrong++;
                }
            }
        }
    }
    CHECK(wrong == 0, "im2col %ldx%ldx%ld k%ld s%ld: %ld wrong values", height, width, channels, kernel, stride, wrong);
    free(image);
    free(patches);
}

static void kernel_cases(const char *name, pointwise_kernel pointwise, depthwise_kernel depthwise) {
    const long pointwise_shapes[][3] = {{1, 1, 1}, {7, 5, 13}, {13, 19, 40}, {49, 37, 72}, {25, 16, 24}};
    for (size_t i = 0; i < sizeof pointwise_shapes / sizeof pointwise_shapes[0]; i++) {
        for (int residual = 0; residual < 2; residual++) {
            pointwise_case(name, pointwise, pointwise_shapes[i][0], pointwise_shapes[i][1], pointwise_shapes[i][2],
                           residual);
        }
    }
    const long images[][3] = {{1, 1, 3}, {9, 11, 13}, {7, 7, 40}, {31, 33, 21}};
    for (size_t i = 0; i < sizeof images / sizeof images[0]; i++) {
        for (long kernel = 3; kernel <= 5; kernel += 2) {
            for (long stride = 1; stride <= 2; stride++) {
                depthwise_case(name, depthwise, images[i][0], images[i][1], images[i][2], kernel, stride);
            }
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s CASES_FILE FIXTURE_FOLDER [FORMAT_CASES_FILE]\n", argv[0]);
        return 2;
    }
    FILE *cases = fopen(argv[1], "r");
    if (!cases) {
        fprintf(stderr, "c-sanitizers: cannot read %s\n", argv[1]);
        return 2;
    }
    char file[256], expected[256];
    int width, height, tolerance, scale, decoder_cases = 0;
    while (fscanf(cases, "%255s %255s %d %d %d %d", file, expected, &width, &height, &tolerance, &scale) == 6) {
        decoder_case(argv[2], file, expected, width, height, tolerance, scale);
        decoder_cases++;
    }
    fclose(cases);
    CHECK(decoder_cases > 0, "no decoder cases in %s", argv[1]);

    int format_cases = 0;
    if (argc == 4) {
        format_shim_cases(argv[3], argv[2], &format_cases, &checks, &failures);
        CHECK(format_cases > 0, "no format cases in %s", argv[3]);
    }

    encoder_cases();
    progressive_bound_cases();

    for (long kernel = 1; kernel <= 3; kernel += 2) {
        for (long stride = 1; stride <= 2; stride++) {
            gather_case(9, 11, 3, kernel, stride);
            gather_case(5, 4, 7, kernel, stride);
        }
    }
    int level = wb_kernel_level();
    if (level >= 1) kernel_cases("avx2", wb_pointwise_avx2, wb_depthwise_avx2);
    if (level >= 2) kernel_cases("avx512", wb_pointwise_avx512, wb_depthwise_avx512);
    training_kernel_cases(level, &checks, &failures);
    printf("c-sanitizers: %d decoder cases, %d WebP/HEIF/TIFF/GIF cases, kernel paths: portable C%s%s; %d checks, %d failed\n",
           decoder_cases, format_cases, level >= 1 ? ", avx2" : "", level >= 2 ? ", avx512" : "", checks, failures);
    return failures == 0 ? 0 : 1;
}
