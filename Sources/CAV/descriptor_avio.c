#include "CAV.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

/* An AVIOContext that writes to an open descriptor (see gifx_descriptor_avio_open in CAV.h). */
typedef struct {
    int fd;                /* where the bytes go (not owned) */
    int64_t duration_us;   /* the whole presentation, filled into the streamed moov */
    int64_t position;      /* bytes written so far */
    int64_t next_box;      /* offset of the next top-level box header */
    int done;              /* the moov was found (and patched) or cannot be */
} gifx_descriptor_state;

static uint32_t read32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static void write32(uint8_t *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v; }
static void write64(uint8_t *p, uint64_t v) { write32(p, (uint32_t)(v >> 32)); write32(p + 4, (uint32_t)v); }

/* The child box of `type` among [start, end), or NULL. */
static uint8_t *child(uint8_t *start, uint8_t *end, const char *type, uint32_t *size) {
    while (end - start >= 8) {
        uint32_t box = read32(start);
        if (box < 8 || box > (uint64_t)(end - start)) return NULL;
        if (start[4] == type[0] && start[5] == type[1] && start[6] == type[2] && start[7] == type[3]) {
            *size = box;
            return start;
        }
        start += box;
    }
    return NULL;
}

/* Sets a full box's duration field: `timescale_at` is the timescale's offset in a version 0 box (12 for
   mvhd/mdhd, -1 for tkhd, whose duration is in the movie's timescale `movie_scale`). */
static uint32_t set_duration(uint8_t *box, uint32_t size, int timescale_at, uint32_t movie_scale, int64_t us) {
    if (size < 8 + 4) return 0;
    uint8_t *p = box + 8;
    int v1 = p[0] == 1;
    uint32_t scale = movie_scale;
    if (timescale_at >= 0) {
        uint32_t at = v1 ? 20 : (uint32_t)timescale_at;
        if (size < 8 + at + 4 + (v1 ? 8 : 4)) return 0;
        scale = read32(p + at);
    }
    uint64_t units = (uint64_t)((us * (int64_t)scale + 500000) / 1000000);
    uint32_t duration_at = timescale_at >= 0 ? (v1 ? 24 : 16) : (v1 ? 28 : 20);
    if (size < 8 + duration_at + (v1 ? 8 : 4)) return 0;
    if (v1) write64(p + duration_at, units); else write32(p + duration_at, (uint32_t)units);
    return scale;
}

/* A fragmented MP4's moov is written before the end is known, with durations 0: a reader of the pipe
   (ffprobe -) then takes the duration from the first fragment. gifx knows the duration up front. */
static void patch_moov(uint8_t *moov, uint32_t size, int64_t us) {
    uint8_t *end = moov + size;
    uint32_t mvhd_size, trak_size, tkhd_size, mdia_size, mdhd_size;
    uint8_t *mvhd = child(moov + 8, end, "mvhd", &mvhd_size);
    uint32_t movie_scale = mvhd ? set_duration(mvhd, mvhd_size, 12, 0, us) : 0;
    uint8_t *trak = child(moov + 8, end, "trak", &trak_size);
    if (!trak) return;
    uint8_t *tkhd = child(trak + 8, trak + trak_size, "tkhd", &tkhd_size);
    if (tkhd && movie_scale) set_duration(tkhd, tkhd_size, -1, movie_scale, us);
    uint8_t *mdia = child(trak + 8, trak + trak_size, "mdia", &mdia_size);
    uint8_t *mdhd = mdia ? child(mdia + 8, mdia + mdia_size, "mdhd", &mdhd_size) : NULL;
    if (mdhd) set_duration(mdhd, mdhd_size, 12, 0, us);
}

static int write_packet(void *opaque, uint8_t *buffer, int size) {
    gifx_descriptor_state *state = opaque;
    /* Walk the top-level boxes that start in this write, patching the moov when it lies wholly in it. */
    while (!state->done && state->duration_us > 0 && state->next_box < state->position + size) {
        int64_t at = state->next_box - state->position;
        if (at < 0 || at + 8 > size) { state->done = 1; break; }
        uint32_t box = read32(buffer + at);
        if (box < 8) { state->done = 1; break; }
        if (buffer[at + 4] == 'm' && buffer[at + 5] == 'o' && buffer[at + 6] == 'o' && buffer[at + 7] == 'v') {
            if (at + box <= size) patch_moov(buffer + at, box, state->duration_us);
            state->done = 1;
            break;
        }
        state->next_box += box;
    }
    int written = 0;
    while (written < size) {
        ssize_t n = write(state->fd, buffer + written, (size_t)(size - written));
        if (n < 0) {
            if (errno == EINTR) continue;
            return AVERROR(errno);
        }
        written += (int)n;
    }
    state->position += size;
    return size;
}

int gifx_descriptor_avio_open(AVIOContext **context, int fd, int64_t duration_us) {
    enum { buffer_size = 1 << 16 };
    gifx_descriptor_state *state = calloc(1, sizeof *state);
    unsigned char *buffer = gifx_av_malloc(buffer_size);
    if (!state || !buffer) {
        free(state);
        gifx_av_freep(&buffer);
        return AVERROR(ENOMEM);
    }
    state->fd = fd;
    state->duration_us = duration_us;
    *context = gifx_avio_alloc_context(buffer, buffer_size, 1, state, NULL, write_packet, NULL);
    if (!*context) {
        free(state);
        gifx_av_freep(&buffer);
        return AVERROR(ENOMEM);
    }
    return 0;
}

int gifx_descriptor_avio_close(AVIOContext **context) {
    if (!*context) return 0;
    gifx_avio_flush(*context);
    int error = (*context)->error;
    free((*context)->opaque);
    gifx_av_freep(&(*context)->buffer);
    gifx_avio_context_free(context);
    return error;
}
