#include "CPng.h"
#include "parallel_idat.h"
#include <zlib.h>
#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gifx_png_writer {
    png_structp png;
    png_infop info;
    int fd;
    uint32_t width, height;
    int io_errno;
    char error[256];
    int palette_count; /* 0: RGBA or RGB */
    png_color palette[256];
    png_byte alpha[256];
    int rgb;           /* 1: 8-bit RGB rows (3 bytes a pixel) */
    int has_key;       /* RGB only: one colour written as tRNS (transparent) */
    png_color_16 key;
    int level, filters, strategy; /* kept for the parallel deflate */
    int threads;                  /* >= 1: 8-bit image data deflated in blocks on that many threads (1: inline) */
    gifx_idat *idat;
};

static void on_error(png_structp png, png_const_charp message) {
    gifx_png_writer *w = png_get_error_ptr(png);
    snprintf(w->error, sizeof w->error, "%s", message ? message : "libpng error");
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) { (void)png; (void)message; }

static void on_write(png_structp png, png_bytep data, size_t length) {
    gifx_png_writer *w = png_get_io_ptr(png);
    while (length > 0) {
        ssize_t n = write(w->fd, data, length);
        if (n < 0) {
            if (errno == EINTR) continue;
            w->io_errno = errno;
            png_error(png, strerror(errno));
        }
        data += n;
        length -= (size_t)n;
    }
}

static void on_flush(png_structp png) { (void)png; }

gifx_png_writer *gifx_png_writer_create(int fd, uint32_t width, uint32_t height, int compression_level) {
    gifx_png_writer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->fd = fd;
    w->width = width;
    w->height = height;
    w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, w, on_error, on_warning);
    if (!w->png) { free(w); return NULL; }
    w->info = png_create_info_struct(w->png);
    if (!w->info) { png_destroy_write_struct(&w->png, NULL); free(w); return NULL; }
    png_set_write_fn(w->png, w, on_write, on_flush);
    if (setjmp(png_jmpbuf(w->png))) return w; /* error text kept; begin reports it */
    png_set_compression_level(w->png, compression_level);
    /* libpng's defaults for filtered images, until gifx_png_writer_set_filters says otherwise. */
    w->level = compression_level;
    w->filters = PNG_ALL_FILTERS;
    w->strategy = Z_FILTERED;
    /* 1 MiB IDAT chunks instead of 8 KiB: 12 bytes of chunk framing per MiB rather than per 8 KiB. */
    png_set_compression_buffer_size(w->png, 1 << 20);
    return w;
}

static int status(const gifx_png_writer *w) { return w->io_errno ? -2 : -1; }

int gifx_png_writer_set_filters(gifx_png_writer *w, int filters, int zlib_strategy) {
    if (w->error[0]) return status(w);
    if (setjmp(png_jmpbuf(w->png))) return status(w);
    png_set_filter(w->png, PNG_FILTER_TYPE_BASE, filters);
    png_set_compression_strategy(w->png, zlib_strategy);
    w->filters = filters;
    w->strategy = zlib_strategy;
    return 0;
}

int gifx_png_writer_set_threads(gifx_png_writer *w, int threads) {
    w->threads = threads;
    return 0;
}

int gifx_png_writer_set_palette(gifx_png_writer *w, const uint8_t *rgba, int count) {
    if (count < 1 || count > 256) return -1;
    for (int i = 0; i < count; i++) {
        w->palette[i].red = rgba[4 * i];
        w->palette[i].green = rgba[4 * i + 1];
        w->palette[i].blue = rgba[4 * i + 2];
        w->alpha[i] = rgba[4 * i + 3];
    }
    w->palette_count = count;
    return 0;
}

int gifx_png_writer_set_rgb(gifx_png_writer *w, int has_key, uint8_t red, uint8_t green, uint8_t blue) {
    w->rgb = 1;
    w->palette_count = 0;
    w->has_key = has_key != 0;
    memset(&w->key, 0, sizeof w->key);
    w->key.red = red;
    w->key.green = green;
    w->key.blue = blue;
    return 0;
}

int gifx_png_writer_begin(gifx_png_writer *w) {
    if (w->error[0]) return status(w);
    if (setjmp(png_jmpbuf(w->png))) return status(w);
    int indexed = w->palette_count > 0;
    int type = indexed ? PNG_COLOR_TYPE_PALETTE : (w->rgb ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA);
    /* A small palette packs 2, 4 or 8 pixels a byte (rows still arrive one index byte a pixel). */
    int depth = !indexed ? 8 : w->palette_count <= 2 ? 1 : w->palette_count <= 4 ? 2 : w->palette_count <= 16 ? 4 : 8;
    png_set_IHDR(w->png, w->info, w->width, w->height, depth, type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (w->rgb && w->has_key) png_set_tRNS(w->png, w->info, NULL, 0, &w->key);
    if (indexed) {
        png_set_PLTE(w->png, w->info, w->palette, w->palette_count);
        int transparent = 0; /* tRNS up to the last entry that is not opaque */
        for (int i = 0; i < w->palette_count; i++) if (w->alpha[i] != 255) transparent = i + 1;
        if (transparent > 0) png_set_tRNS(w->png, w->info, w->alpha, transparent, NULL);
    }
    png_write_info(w->png, w->info);
    if (depth < 8) png_set_packing(w->png);
    /* Bytes the parallel deflate filters itself; packed (1/2/4-bit) palette rows stay with libpng. */
    if (w->threads >= 1 && depth == 8) {
        int bpp = indexed ? 1 : w->rgb ? 3 : 4;
        w->idat = gifx_idat_create(w->threads, w->width * (uint32_t)bpp, bpp, w->filters, w->level, w->strategy);
        if (!w->idat) {
            snprintf(w->error, sizeof w->error, "cannot start the deflating threads");
            return -1;
        }
    }
    return 0;
}

int gifx_png_writer_write_rows(gifx_png_writer *w, const uint8_t *rows, uint32_t count, size_t stride) {
    if (w->error[0]) return status(w);
    if (setjmp(png_jmpbuf(w->png))) return status(w);
    if (w->idat) {
        for (uint32_t i = 0; i < count; i++) {
            if (gifx_idat_write_row(w->idat, w->png, rows + (size_t)i * stride, w->error, sizeof w->error) != 0) {
                return status(w);
            }
        }
        return 0;
    }
    for (uint32_t i = 0; i < count; i++) png_write_row(w->png, rows + (size_t)i * stride);
    return 0;
}

int gifx_png_writer_finish(gifx_png_writer *w) {
    if (w->error[0]) return status(w);
    if (setjmp(png_jmpbuf(w->png))) return status(w);
    if (w->idat) {
        /* The image data went out as IDAT chunks written here, which libpng's png_write_end does not
         * know of; nothing follows the image data but IEND. */
        if (gifx_idat_finish(w->idat, w->png, w->error, sizeof w->error) != 0) return status(w);
        png_write_chunk(w->png, (png_const_bytep) "IEND", NULL, 0);
        return 0;
    }
    png_write_end(w->png, w->info);
    return 0;
}

const char *gifx_png_writer_error(const gifx_png_writer *w) { return w->error; }
int gifx_png_writer_errno(const gifx_png_writer *w) { return w->io_errno; }

void gifx_png_writer_destroy(gifx_png_writer *w) {
    if (!w) return;
    gifx_idat_destroy(w->idat);
    png_destroy_write_struct(&w->png, &w->info);
    free(w);
}
