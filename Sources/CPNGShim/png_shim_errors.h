// libpng's error and warning callbacks, shared by the three files that call into libpng. The error pointer given to
// png_create_*_struct is the caller's PNG_SHIM_MESSAGE_CAPACITY-byte message buffer: the callback stores libpng's
// message there, then jumps to the caller's png_jmpbuf. Warnings are dropped.
#ifndef WORKBENCH_PNG_SHIM_ERRORS_H
#define WORKBENCH_PNG_SHIM_ERRORS_H

#include <stdio.h>

#include <png.h>

#define PNG_SHIM_MESSAGE_CAPACITY 256

static void png_shim_store_error(png_structp png, png_const_charp message) {
    char *buffer = (char *)png_get_error_ptr(png);
    snprintf(buffer, PNG_SHIM_MESSAGE_CAPACITY, "%s", message ? message : "unknown libpng error");
    png_longjmp(png, 1);
}

static void png_shim_drop_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

#endif
