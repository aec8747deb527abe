#include "CPng.h"
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The verifier's reader: any PNG libpng reads, expanded to 8-bit RGBA (palette and tRNS to alpha, grey to RGB,
   16-bit stripped), so a sheet or poster written by any tool compares pixel for pixel with a canvas. */

static void reader_error(png_structp png, png_const_charp message) {
    char *text = png_get_error_ptr(png);
    if (text) snprintf(text, 256, "%s", message);
    png_longjmp(png, 1);
}

static void reader_warning(png_structp png, png_const_charp message) { (void)png; (void)message; }

int gifx_png_read_rgba(const char *path, uint32_t *width, uint32_t *height, uint8_t **pixels, char error[256]) {
    error[0] = 0;
    *pixels = NULL;
    FILE *file = fopen(path, "rb");
    if (!file) {
        snprintf(error, 256, "cannot open: %s", strerror(errno));
        return -2;
    }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, error, reader_error, reader_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        if (png) png_destroy_read_struct(&png, NULL, NULL);
        fclose(file);
        snprintf(error, 256, "out of memory");
        return -1;
    }
    uint8_t *volatile buffer = NULL;
    png_bytep *volatile rows = NULL;
    if (setjmp(png_jmpbuf(png))) {
        free(buffer);
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        fclose(file);
        if (!error[0]) snprintf(error, 256, "not a readable PNG");
        return -1;
    }
    png_init_io(png, file);
    png_read_info(png, info);
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    uint32_t w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if ((uint64_t)w * h > (uint64_t)1 << 30) png_error(png, "image too large to verify");
    buffer = malloc((size_t)w * h * 4 + 1);
    rows = malloc(sizeof(png_bytep) * (h ? h : 1));
    if (!buffer || !rows) png_error(png, "out of memory");
    for (uint32_t y = 0; y < h; y++) rows[y] = buffer + (size_t)y * w * 4;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(file);
    *width = w;
    *height = h;
    *pixels = buffer;
    return 0;
}

void gifx_png_free(uint8_t *pixels) { free(pixels); }
