#include "CPng.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The APNG reader's frame decoder (Sources/Frames/APNG): gifx's own chunk reader builds, for each frame,
   a plain PNG in memory (IHDR at the frame's size, PLTE and tRNS of the file, the frame's IDAT/fdAT data
   as IDAT, IEND); libpng decodes it here to 8-bit RGBA: palette and tRNS to alpha, grey to RGB, 16-bit
   stripped to its high byte, interlacing undone. No gamma or colour-space transform (8-bit sRGB values,
   as browsers composite them). */

typedef struct {
    const uint8_t *bytes;
    size_t size;
    size_t offset;
} memory_source;

static void memory_read(png_structp png, png_bytep out, png_size_t count) {
    memory_source *source = png_get_io_ptr(png);
    if (count > source->size - source->offset) png_error(png, "the frame's data ends early");
    memcpy(out, source->bytes + source->offset, count);
    source->offset += count;
}

static void frame_error(png_structp png, png_const_charp message) {
    char *text = png_get_error_ptr(png);
    if (text) snprintf(text, 256, "%s", message);
    png_longjmp(png, 1);
}

static void frame_warning(png_structp png, png_const_charp message) { (void)png; (void)message; }

int gifx_apng_decode_frame(const uint8_t *png_bytes, size_t size, uint32_t width, uint32_t height, uint8_t *rgba,
                           char error[256]) {
    error[0] = 0;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, error, frame_error, frame_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        if (png) png_destroy_read_struct(&png, NULL, NULL);
        snprintf(error, 256, "out of memory");
        return -1;
    }
    png_bytep *volatile rows = NULL;
    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        if (!error[0]) snprintf(error, 256, "libpng cannot decode the frame");
        return -1;
    }
    memory_source source = {png_bytes, size, 0};
    png_set_read_fn(png, &source, memory_read);
    /* The same limits as the frame rect the caller checked. */
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_read_info(png, info);
    if (png_get_image_width(png, info) != width || png_get_image_height(png, info) != height)
        png_error(png, "frame size mismatch");
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    rows = malloc(sizeof(png_bytep) * (height ? height : 1));
    if (!rows) png_error(png, "out of memory");
    for (uint32_t y = 0; y < height; y++) rows[y] = rgba + (size_t)y * width * 4;
    png_read_image(png, rows);
    free(rows);
    rows = NULL;
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

uint32_t gifx_crc32(uint32_t crc, const uint8_t *bytes, size_t count) {
    return (uint32_t)crc32(crc, bytes, (uInt)count);
}
