/* Writes an Adobe YCCK JPEG from raw CMYK samples; Pillow cannot produce YCCK, libjpeg can.
 * Usage: ycck_writer WIDTH HEIGHT INPUT.cmyk OUTPUT.jpg
 * INPUT holds WIDTH*HEIGHT*4 bytes in the Adobe (inverted) convention: 255 = no ink. */
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: %s W H in.cmyk out.jpg\n", argv[0]); return 2; }
    int width = atoi(argv[1]), height = atoi(argv[2]);
    size_t size = (size_t)width * height * 4;
    unsigned char *samples = malloc(size);
    FILE *input = fopen(argv[3], "rb");
    if (!samples || !input || fread(samples, 1, size, input) != size) { fprintf(stderr, "bad input\n"); return 1; }
    fclose(input);
    FILE *output = fopen(argv[4], "wb");
    if (!output) { fprintf(stderr, "cannot write\n"); return 1; }

    struct jpeg_compress_struct info;
    struct jpeg_error_mgr errors;
    info.err = jpeg_std_error(&errors);
    jpeg_create_compress(&info);
    jpeg_stdio_dest(&info, output);
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = 4;
    info.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&info);
    jpeg_set_colorspace(&info, JCS_YCCK);   /* also turns on the Adobe APP14 marker, transform 2 */
    jpeg_set_quality(&info, 95, TRUE);
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = samples + (size_t)info.next_scanline * width * 4;
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    fclose(output);
    free(samples);
    return 0;
}
