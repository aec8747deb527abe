#ifndef GIFX_PARALLEL_IDAT_H
#define GIFX_PARALLEL_IDAT_H
#include <stddef.h>
#include <stdint.h>
#include <png.h>

/* The image data of an 8-bit RGB, RGBA or indexed PNG, filtered here and deflated on several threads (pigz's
 * scheme): the filtered rows are cut into blocks of about 512 KiB, each deflated on its own with the
 * previous 32 KiB as its dictionary and ended by a sync flush (the last by a final block), so the blocks
 * concatenate into one zlib stream that any inflater reads. The result is written in order as IDAT
 * chunks through libpng's png_write_chunk_* calls; rows are filtered with libpng's own heuristic (each
 * allowed filter, least sum of absolute values). Memory: at most 4 blocks in flight. */
typedef struct gifx_idat gifx_idat;

/* Starts `threads` deflating threads. filters: a PNG_FILTER_* mask; bytes_per_pixel 1 (indexed), 3 or 4. NULL when
 * out of memory or when a thread cannot be started. */
gifx_idat *gifx_idat_create(int threads, uint32_t row_bytes, int bytes_per_pixel, int filters, int level,
                            int strategy);
/* Filters one row into the current block; a full block goes to the threads (and finished blocks are
 * written). 0, or -1 with the reason in `error`. libpng errors longjmp out of here as from png_write_row. */
int gifx_idat_write_row(gifx_idat *idat, png_structp png, const uint8_t *row, char *error, size_t error_size);
/* Deflates what is left, writes every block and the stream's end. */
int gifx_idat_finish(gifx_idat *idat, png_structp png, char *error, size_t error_size);
/* Stops and joins the threads; frees everything (safe after an error or a longjmp). */
void gifx_idat_destroy(gifx_idat *idat);

#endif
