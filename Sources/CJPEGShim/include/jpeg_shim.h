#ifndef JPEG_SHIM_H
#define JPEG_SHIM_H
#endif
