#include "parallel_idat.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { BLOCK_BYTES = 512 * 1024, WINDOW = 32 * 1024, SLOTS = 4 };
enum job_state { JOB_FREE, JOB_QUEUED, JOB_RUNNING, JOB_DONE };

/* One block: its filtered bytes (in), the 32 KiB before it (dictionary), and its deflated bytes (out). */
typedef struct {
    enum job_state state;
    uint64_t sequence;
    int last;
    uint8_t *in;
    size_t in_length;
    uint8_t dictionary[WINDOW];
    size_t dictionary_length;
    uint8_t *out;
    size_t out_length, out_capacity;
    uLong adler;
    int zlib_status; /* Z_OK, or the failing call's status */
} job;

struct gifx_idat {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pthread_t *threads;
    int thread_count;
    int stopping;
    job jobs[SLOTS];
    uint64_t submitted; /* blocks handed to the threads */
    uint64_t written;   /* blocks written as IDAT, in order */
    /* Filtering (main thread only). */
    uint32_t row_bytes;
    int bpp, filters, level, strategy;
    uint8_t *previous;    /* the previous raw row (zeros before the first) */
    uint8_t *candidate[5];
    uint8_t *block;       /* the block being filled */
    size_t block_length;
    uint8_t tail[WINDOW]; /* the last bytes of the stream so far: the next block's dictionary */
    size_t tail_length;
    uLong adler;          /* of every byte written so far */
};

static void deflate_job(job *j, int level, int strategy) {
    z_stream z;
    memset(&z, 0, sizeof z);
    j->adler = adler32(adler32(0L, Z_NULL, 0), j->in, (uInt)j->in_length);
    j->out_length = 0;
    int status = deflateInit2(&z, level, Z_DEFLATED, -15, 8, strategy);
    if (status != Z_OK) { j->zlib_status = status; return; }
    if (j->dictionary_length > 0) {
        status = deflateSetDictionary(&z, j->dictionary, (uInt)j->dictionary_length);
        if (status != Z_OK) { j->zlib_status = status; deflateEnd(&z); return; }
    }
    size_t bound = deflateBound(&z, j->in_length) + 64;
    if (j->out_capacity < bound) {
        uint8_t *grown = realloc(j->out, bound);
        if (!grown) { j->zlib_status = Z_MEM_ERROR; deflateEnd(&z); return; }
        j->out = grown;
        j->out_capacity = bound;
    }
    z.next_in = j->in;
    z.avail_in = (uInt)j->in_length;
    int flush = j->last ? Z_FINISH : Z_SYNC_FLUSH;
    do {
        if (j->out_length == j->out_capacity) {
            uint8_t *grown = realloc(j->out, j->out_capacity * 2);
            if (!grown) { j->zlib_status = Z_MEM_ERROR; deflateEnd(&z); return; }
            j->out = grown;
            j->out_capacity *= 2;
        }
        z.next_out = j->out + j->out_length;
        z.avail_out = (uInt)(j->out_capacity - j->out_length);
        status = deflate(&z, flush);
        j->out_length = j->out_capacity - z.avail_out;
        if (status == Z_STREAM_ERROR) { j->zlib_status = status; deflateEnd(&z); return; }
    } while (z.avail_out == 0 || (j->last && status != Z_STREAM_END));
    deflateEnd(&z);
    j->zlib_status = Z_OK;
}

static void *work(void *argument) {
    gifx_idat *d = argument;
    pthread_mutex_lock(&d->lock);
    for (;;) {
        job *next = NULL;
        for (int i = 0; i < SLOTS; i++) {
            job *j = &d->jobs[i];
            if (j->state == JOB_QUEUED && (!next || j->sequence < next->sequence)) next = j;
        }
        if (!next) {
            if (d->stopping) break;
            pthread_cond_wait(&d->changed, &d->lock);
            continue;
        }
        next->state = JOB_RUNNING;
        pthread_mutex_unlock(&d->lock);
        deflate_job(next, d->level, d->strategy);
        pthread_mutex_lock(&d->lock);
        next->state = JOB_DONE;
        pthread_cond_broadcast(&d->changed);
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

gifx_idat *gifx_idat_create(int threads, uint32_t row_bytes, int bytes_per_pixel, int filters, int level,
                            int strategy) {
    gifx_idat *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->changed, NULL);
    d->row_bytes = row_bytes;
    d->bpp = bytes_per_pixel;
    d->filters = filters & (PNG_FILTER_NONE | PNG_FILTER_SUB | PNG_FILTER_UP | PNG_FILTER_AVG | PNG_FILTER_PAETH);
    if (!d->filters) d->filters = PNG_FILTER_NONE;
    d->level = level;
    d->strategy = strategy;
    d->adler = adler32(0L, Z_NULL, 0);
    d->previous = calloc(1, row_bytes + 1);
    d->block = malloc(BLOCK_BYTES + row_bytes + 1);
    int ok = d->previous && d->block;
    for (int f = 0; f < 5; f++) ok = ok && (d->candidate[f] = malloc(row_bytes + 1)) != NULL;
    for (int i = 0; ok && i < SLOTS; i++) ok = (d->jobs[i].in = malloc(BLOCK_BYTES + row_bytes + 1)) != NULL;
    /* One thread: the blocks are deflated on the caller's thread as they fill (same bytes, no thread). */
    int workers = threads > 1 ? threads : 0;
    d->threads = ok ? calloc((size_t)(workers > 0 ? workers : 1), sizeof(pthread_t)) : NULL;
    if (!d->threads) { gifx_idat_destroy(d); return NULL; }
    for (; d->thread_count < workers; d->thread_count++) {
        if (pthread_create(&d->threads[d->thread_count], NULL, work, d) != 0) { gifx_idat_destroy(d); return NULL; }
    }
    return d;
}

static int fail(char *error, size_t size, const char *what, int status) {
    snprintf(error, size, "%s (zlib %d)", what, status);
    return -1;
}

/* Writes block `written` as one IDAT chunk once a thread has deflated it (waiting if `wait`); the first
 * carries the zlib header, the last the Adler-32 of the whole stream. Returns 1 written, 0 not ready. */
static int write_next(gifx_idat *d, png_structp png, int wait, char *error, size_t size) {
    job *j = &d->jobs[d->written % SLOTS];
    pthread_mutex_lock(&d->lock);
    while (wait && j->state != JOB_DONE) pthread_cond_wait(&d->changed, &d->lock);
    int ready = j->state == JOB_DONE;
    pthread_mutex_unlock(&d->lock);
    if (!ready) return 0;
    if (j->zlib_status != Z_OK) return fail(error, size, "deflate failed", j->zlib_status);
    d->adler = adler32_combine(d->adler, j->adler, (z_off_t)j->in_length);
    uint8_t header[2] = {0x78, 0};
    /* FLEVEL as zlib writes it, then FCHECK so that the 16-bit header is a multiple of 31. */
    int flevel = d->strategy >= Z_HUFFMAN_ONLY || d->level < 2 ? 0 : d->level < 6 ? 1 : d->level == 6 ? 2 : 3;
    header[1] = (uint8_t)(flevel << 6);
    header[1] += (uint8_t)(31 - (header[0] * 256 + header[1]) % 31);
    uint8_t trailer[4] = {(uint8_t)(d->adler >> 24), (uint8_t)(d->adler >> 16), (uint8_t)(d->adler >> 8),
                          (uint8_t)d->adler};
    int first = d->written == 0;
    size_t length = j->out_length + (first ? 2 : 0) + (j->last ? 4 : 0);
    png_write_chunk_start(png, (png_const_bytep) "IDAT", (png_uint_32)length);
    if (first) png_write_chunk_data(png, header, 2);
    png_write_chunk_data(png, j->out, j->out_length);
    if (j->last) png_write_chunk_data(png, trailer, 4);
    png_write_chunk_end(png);
    pthread_mutex_lock(&d->lock);
    j->state = JOB_FREE;
    pthread_mutex_unlock(&d->lock);
    d->written++;
    return 1;
}

/* Hands the current block to the threads, after writing out the oldest to free its slot if need be. */
static int submit(gifx_idat *d, png_structp png, int last, char *error, size_t size) {
    while (d->submitted - d->written >= SLOTS) {
        if (write_next(d, png, 1, error, size) < 0) return -1;
    }
    job *j = &d->jobs[d->submitted % SLOTS];
    memcpy(j->dictionary, d->tail, d->tail_length);
    j->dictionary_length = d->tail_length;
    uint8_t *swap = j->in;
    j->in = d->block;
    j->in_length = d->block_length;
    d->block = swap;
    d->block_length = 0;
    /* The next block's dictionary: the last 32 KiB of the stream, this block included. */
    if (j->in_length >= WINDOW) {
        memcpy(d->tail, j->in + j->in_length - WINDOW, WINDOW);
        d->tail_length = WINDOW;
    } else {
        size_t keep = d->tail_length + j->in_length > WINDOW ? WINDOW - j->in_length : d->tail_length;
        memmove(d->tail, d->tail + d->tail_length - keep, keep);
        memcpy(d->tail + keep, j->in, j->in_length);
        d->tail_length = keep + j->in_length;
    }
    if (d->thread_count == 0) {
        j->last = last;
        j->sequence = d->submitted++;
        deflate_job(j, d->level, d->strategy);
        j->state = JOB_DONE;
    } else {
        pthread_mutex_lock(&d->lock);
        j->last = last;
        j->sequence = d->submitted++;
        j->state = JOB_QUEUED;
        pthread_cond_broadcast(&d->changed);
        pthread_mutex_unlock(&d->lock);
    }
    /* Write whatever is already done, without waiting. */
    int status;
    while (d->written < d->submitted && (status = write_next(d, png, 0, error, size)) != 0) {
        if (status < 0) return -1;
    }
    return 0;
}

static inline uint8_t paeth(uint8_t a, uint8_t b, uint8_t c) {
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* One filter type applied to `row` (above it: `up`) into `o`; returns the sum of the filtered bytes' absolute
 * values read as signed, libpng's measure. One loop per type so that each stays a tight loop. */
static uint64_t apply_filter(int type, const uint8_t *row, const uint8_t *up, uint32_t n, int bpp, uint8_t *o) {
    uint32_t i = 0;
    switch (type) {
    case 0: memcpy(o, row, n); break;
    case 1:
        for (; i < (uint32_t)bpp && i < n; i++) o[i] = row[i];
        for (; i < n; i++) o[i] = (uint8_t)(row[i] - row[i - bpp]);
        break;
    case 2:
        for (; i < n; i++) o[i] = (uint8_t)(row[i] - up[i]);
        break;
    case 3:
        for (; i < (uint32_t)bpp && i < n; i++) o[i] = (uint8_t)(row[i] - (up[i] >> 1));
        for (; i < n; i++) o[i] = (uint8_t)(row[i] - ((row[i - bpp] + up[i]) >> 1));
        break;
    default:
        for (; i < (uint32_t)bpp && i < n; i++) o[i] = (uint8_t)(row[i] - up[i]); /* paeth(0, b, 0) = b */
        for (; i < n; i++) o[i] = (uint8_t)(row[i] - paeth(row[i - bpp], up[i], up[i - bpp]));
        break;
    }
    uint64_t sum = 0;
    for (i = 0; i < n; i++) sum += o[i] < 128 ? o[i] : 256 - o[i];
    return sum;
}

/* Row filtering as libpng does it when several filters are allowed: each allowed filter is tried and the
 * one whose bytes, read as signed, have the least sum of absolute values wins (ties: the lower type). */
int gifx_idat_write_row(gifx_idat *d, png_structp png, const uint8_t *row, char *error, size_t size) {
    const uint32_t n = d->row_bytes;
    int best = -1;
    uint64_t best_sum = UINT64_MAX;
    for (int type = 0; type < 5; type++) {
        if (!(d->filters & (PNG_FILTER_NONE << type))) continue;
        d->candidate[type][0] = (uint8_t)type;
        uint64_t sum = apply_filter(type, row, d->previous, n, d->bpp, d->candidate[type] + 1);
        if (sum < best_sum) { best_sum = sum; best = type; }
    }
    memcpy(d->block + d->block_length, d->candidate[best], n + 1);
    d->block_length += n + 1;
    memcpy(d->previous, row, n);
    if (d->block_length >= BLOCK_BYTES) return submit(d, png, 0, error, size);
    return 0;
}

int gifx_idat_finish(gifx_idat *d, png_structp png, char *error, size_t size) {
    if (submit(d, png, 1, error, size) < 0) return -1;
    while (d->written < d->submitted) {
        if (write_next(d, png, 1, error, size) < 0) return -1;
    }
    return 0;
}

void gifx_idat_destroy(gifx_idat *d) {
    if (!d) return;
    pthread_mutex_lock(&d->lock);
    d->stopping = 1;
    pthread_cond_broadcast(&d->changed);
    pthread_mutex_unlock(&d->lock);
    for (int i = 0; i < d->thread_count; i++) pthread_join(d->threads[i], NULL);
    free(d->threads);
    for (int i = 0; i < SLOTS; i++) { free(d->jobs[i].in); free(d->jobs[i].out); }
    for (int f = 0; f < 5; f++) free(d->candidate[f]);
    free(d->previous);
    free(d->block);
    pthread_mutex_destroy(&d->lock);
    pthread_cond_destroy(&d->changed);
    free(d);
}
