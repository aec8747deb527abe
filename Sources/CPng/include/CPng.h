#ifndef GIFX_CPNG_H
#define GIFX_CPNG_H
#include <stddef.h>
#include <stdint.h>
#include <png.h>

/* A streaming PNG writer (RGBA, RGB or indexed). libpng reports errors by longjmp, which Swift cannot
 * catch: every call here sets its own setjmp and returns a status instead.
 * Status: 0 ok, -1 libpng error (text in gifx_png_error), -2 I/O error (errno saved). */
typedef struct gifx_png_writer gifx_png_writer;

/* Opens `fd` (owned by the caller, not closed here) for an 8-bit RGBA image.
 * compression_level is zlib's 0-9. Returns NULL only when out of memory. */
gifx_png_writer *gifx_png_writer_create(int fd, uint32_t width, uint32_t height, int compression_level);
/* Optional, between create and begin: the row filters (a PNG_FILTER_* mask; libpng's default tries all
 * five per row, which costs more time than the deflate itself) and zlib's strategy (0 default, 1 filtered,
 * 2 huffman only, 3 RLE). Sprite sheets use them to trade a little size for a lot of speed. */
int gifx_png_writer_set_filters(gifx_png_writer *writer, int filters, int zlib_strategy);
/* Optional, between create and begin: deflate the image data in independent 512 KiB blocks (pigz's
 * scheme; a few hundred bytes larger than one stream) on `threads` threads, or on the writing thread
 * when `threads` is 1 (the same bytes either way). Palettes of at most 16 entries (packed rows) stay on
 * libpng's single stream. */
int gifx_png_writer_set_threads(gifx_png_writer *writer, int threads);
/* Optional, between create and begin: makes the image 8-bit indexed with `count` (1...256) palette
 * entries given as RGBA quadruplets (alpha goes into tRNS); rows are then one index byte per pixel, which
 * libpng packs to 1, 2 or 4 bits when the palette has at most 2, 4 or 16 entries. */
int gifx_png_writer_set_palette(gifx_png_writer *writer, const uint8_t *rgba, int count);
/* Optional, between create and begin: makes the image 8-bit RGB (rows of width*3 bytes); with has_key,
 * the colour (red, green, blue) is written as tRNS, so decoders read it as transparent. */
int gifx_png_writer_set_rgb(gifx_png_writer *writer, int has_key, uint8_t red, uint8_t green, uint8_t blue);
/* Writes the header. */
int gifx_png_writer_begin(gifx_png_writer *writer);
/* Writes `count` rows of width*4 bytes (width*3 for RGB, width when indexed), `stride` bytes apart. */
int gifx_png_writer_write_rows(gifx_png_writer *writer, const uint8_t *rows, uint32_t count, size_t stride);
/* Writes the end of the image and flushes. */
int gifx_png_writer_finish(gifx_png_writer *writer);
/* The last error's text ("" when none). */
const char *gifx_png_writer_error(const gifx_png_writer *writer);
/* The errno of the last I/O error, 0 when none. */
int gifx_png_writer_errno(const gifx_png_writer *writer);
void gifx_png_writer_destroy(gifx_png_writer *writer);

/* Reads the PNG at `path` as 8-bit RGBA (any colour type), width*height*4 bytes in *pixels, freed with
 * gifx_png_free. Status as above; the reason in `error`. */
int gifx_png_read_rgba(const char *path, uint32_t *width, uint32_t *height, uint8_t **pixels, char error[256]);
void gifx_png_free(uint8_t *pixels);

/* The same, row by row (a band of a sprite sheet page at a time): open, then `count` rows of width*4 bytes,
 * `stride` apart, top to bottom; NULL / -1 with the reason in `error`. An interlaced PNG is decoded whole. */
typedef struct gifx_png_reader gifx_png_reader;
gifx_png_reader *gifx_png_reader_open(const char *path, uint32_t *width, uint32_t *height, char error[256]);
int gifx_png_reader_rows(gifx_png_reader *reader, uint8_t *rows, uint32_t count, size_t stride, char error[256]);
void gifx_png_reader_close(gifx_png_reader *reader);

/* One APNG frame, given as a complete PNG in memory (IHDR of `width`×`height`, PLTE/tRNS, IDAT, IEND),
 * decoded to 8-bit RGBA into `rgba` (width*height*4 bytes, rows packed). 0, or -1 with the reason in `error`. */
int gifx_apng_decode_frame(const uint8_t *png, size_t size, uint32_t width, uint32_t height, uint8_t *rgba,
                           char error[256]);
/* zlib's CRC-32 (the PNG chunk CRC): start with 0. */
uint32_t gifx_crc32(uint32_t crc, const uint8_t *bytes, size_t count);

/* The APNG writer's frame data (Sources/Encoders/APNG): a `width`×`height` image, rows `stride` bytes apart
 * (RGBA, 4 bytes a pixel, when palette_count is 0; else one palette index a pixel, packed to bit_depth 1, 2, 4
 * or 8 with palette_count RGBA entries), written by libpng as a PNG in memory with zlib `level`, the row
 * `filters` (a PNG_FILTER_* mask) and zlib `strategy`; *data gets the concatenated payloads of its IDAT
 * chunks (one zlib stream, *size bytes), freed with gifx_apng_free. 0, or -1 with the reason in `error`. */
int gifx_apng_encode_rect(const uint8_t *rows, size_t stride, uint32_t width, uint32_t height,
                          const uint8_t *palette_rgba, int palette_count, int bit_depth, int level, int filters,
                          int strategy, uint8_t **data, size_t *size, char error[256]);
void gifx_apng_free(uint8_t *data);

#endif
