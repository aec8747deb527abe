#include "CPng.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The APNG writer's frame encoder (Sources/Encoders/APNG): libpng has no APNG write API in Debian's build,
   so each frame's rectangle is written here as a complete PNG in memory (filtered and deflated by libpng),
   and only the concatenated data of its IDAT chunks is handed back; the Swift writer carries that zlib
   stream into the file's IDAT (frame 0) or fdAT chunks, with its own sequence numbers and CRCs. */

typedef struct {
    uint8_t *bytes;
    size_t size, capacity;
    int failed;
} memory_sink;

static void sink_write(png_structp png, png_bytep data, size_t length) {
    memory_sink *sink = png_get_io_ptr(png);
    if (sink->size + length > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity : 4096;
        while (capacity < sink->size + length) capacity *= 2;
        uint8_t *grown = realloc(sink->bytes, capacity);
        if (!grown) {
            sink->failed = 1;
            png_error(png, "out of memory");
        }
        sink->bytes = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->bytes + sink->size, data, length);
    sink->size += length;
}

static void sink_flush(png_structp png) { (void)png; }

static void encode_error(png_structp png, png_const_charp message) {
    char *text = png_get_error_ptr(png);
    if (text) snprintf(text, 256, "%s", message ? message : "libpng error");
    png_longjmp(png, 1);
}

static void encode_warning(png_structp png, png_const_charp message) { (void)png; (void)message; }

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

int gifx_apng_encode_rect(const uint8_t *rows, size_t stride, uint32_t width, uint32_t height,
                          const uint8_t *palette_rgba, int palette_count, int bit_depth, int level, int filters,
                          int strategy, uint8_t **data, size_t *size, char error[256]) {
    error[0] = 0;
    *data = NULL;
    *size = 0;
    memory_sink sink = {NULL, 0, 0, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, error, encode_error, encode_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        if (png) png_destroy_write_struct(&png, NULL);
        snprintf(error, 256, "out of memory");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(sink.bytes);
        if (!error[0]) snprintf(error, 256, "libpng cannot encode the frame");
        return -1;
    }
    png_set_write_fn(png, &sink, sink_write, sink_flush);
    png_set_compression_level(png, level);
    png_set_compression_strategy(png, strategy);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filters);
    png_set_compression_buffer_size(png, 1 << 16);
    int indexed = palette_count > 0;
    png_set_IHDR(png, info, width, height, indexed ? bit_depth : 8,
                 indexed ? PNG_COLOR_TYPE_PALETTE : PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (indexed) {
        png_color colours[256];
        for (int i = 0; i < palette_count; i++) {
            colours[i].red = palette_rgba[4 * i];
            colours[i].green = palette_rgba[4 * i + 1];
            colours[i].blue = palette_rgba[4 * i + 2];
        }
        png_set_PLTE(png, info, colours, palette_count);
    }
    png_write_info(png, info);
    if (indexed && bit_depth < 8) png_set_packing(png);
    for (uint32_t y = 0; y < height; y++) png_write_row(png, rows + (size_t)y * stride);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);

    /* The PNG's IDAT payloads, concatenated in place (they never move forward of where they were). */
    size_t at = 8, out = 0;
    while (at + 12 <= sink.size) {
        uint32_t length = be32(sink.bytes + at);
        if (at + 12 + (size_t)length > sink.size) break;
        if (memcmp(sink.bytes + at + 4, "IDAT", 4) == 0) {
            memmove(sink.bytes + out, sink.bytes + at + 8, length);
            out += length;
        }
        at += 12 + (size_t)length;
    }
    *data = sink.bytes;
    *size = out;
    return 0;
}

void gifx_apng_free(uint8_t *data) { free(data); }
