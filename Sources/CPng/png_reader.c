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

/* Row by row: what a sprite sheet's verification reads, a band of rows at a time, instead of a whole page. */
struct gifx_png_reader {
    FILE *file;
    png_structp png;
    png_infop info;
    uint32_t width, height, next_row;
    uint8_t *whole; /* interlaced images only: decoded whole, rows served from here */
    char error[256];
};

gifx_png_reader *gifx_png_reader_open(const char *path, uint32_t *width, uint32_t *height, char error[256]) {
    error[0] = 0;
    gifx_png_reader *reader = calloc(1, sizeof *reader);
    if (!reader) { snprintf(error, 256, "out of memory"); return NULL; }
    reader->file = fopen(path, "rb");
    if (!reader->file) { snprintf(error, 256, "cannot open: %s", strerror(errno)); free(reader); return NULL; }
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, reader->error, reader_error, reader_warning);
    reader->info = reader->png ? png_create_info_struct(reader->png) : NULL;
    if (!reader->png || !reader->info || setjmp(png_jmpbuf(reader->png))) {
        snprintf(error, 256, "%s", reader->error[0] ? reader->error : "not a readable PNG");
        gifx_png_reader_close(reader);
        return NULL;
    }
    png_init_io(reader->png, reader->file);
    png_read_info(reader->png, reader->info);
    int interlaced = png_get_interlace_type(reader->png, reader->info) != PNG_INTERLACE_NONE;
    png_set_expand(reader->png);
    png_set_strip_16(reader->png);
    png_set_gray_to_rgb(reader->png);
    png_set_add_alpha(reader->png, 0xFF, PNG_FILLER_AFTER);
    if (interlaced) png_set_interlace_handling(reader->png);
    png_read_update_info(reader->png, reader->info);
    reader->width = png_get_image_width(reader->png, reader->info);
    reader->height = png_get_image_height(reader->png, reader->info);
    if ((uint64_t)reader->width * 4 > ((uint64_t)1 << 30)) png_error(reader->png, "image too wide to verify");
    if (interlaced) {
        if ((uint64_t)reader->width * reader->height > ((uint64_t)1 << 30)) png_error(reader->png, "image too large to verify");
        reader->whole = malloc((size_t)reader->width * reader->height * 4 + 1);
        png_bytep *rows = malloc(sizeof(png_bytep) * (reader->height ? reader->height : 1));
        if (!reader->whole || !rows) { free(rows); png_error(reader->png, "out of memory"); }
        for (uint32_t y = 0; y < reader->height; y++) rows[y] = reader->whole + (size_t)y * reader->width * 4;
        png_read_image(reader->png, rows);
        free(rows);
    }
    *width = reader->width;
    *height = reader->height;
    return reader;
}

int gifx_png_reader_rows(gifx_png_reader *reader, uint8_t *rows, uint32_t count, size_t stride, char error[256]) {
    error[0] = 0;
    if (count > reader->height - reader->next_row) { snprintf(error, 256, "reading past the last row"); return -1; }
    if (reader->whole) {
        for (uint32_t i = 0; i < count; i++)
            memcpy(rows + i * stride, reader->whole + (size_t)(reader->next_row + i) * reader->width * 4, (size_t)reader->width * 4);
        reader->next_row += count;
        return 0;
    }
    if (setjmp(png_jmpbuf(reader->png))) {
        snprintf(error, 256, "%s", reader->error[0] ? reader->error : "damaged PNG data");
        return -1;
    }
    for (uint32_t i = 0; i < count; i++) png_read_row(reader->png, rows + i * stride, NULL);
    reader->next_row += count;
    return 0;
}

void gifx_png_reader_close(gifx_png_reader *reader) {
    if (!reader) return;
    if (reader->png) png_destroy_read_struct(&reader->png, reader->info ? &reader->info : NULL, NULL);
    if (reader->file) fclose(reader->file);
    free(reader->whole);
    free(reader);
}
