#ifndef GIFX_CAV_SHIM_H
#define GIFX_CAV_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/opt.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <errno.h>
#include <stddef.h>
#include "gifx_av_functions.h"

/* libav is opened with dlopen on first use (loader.c), not linked: `gifx timeline` and `to-sprite` never
   pay for libavcodec's ~100 dependent libraries (about 25 MB of RSS and 30 ms of start-up per process).
   loader.c defines, for every libav function gifx calls (gifx_av_functions.h), a forwarder to the loaded
   library named gifx_<function>; Swift calls only those. Calling one before its group is loaded aborts
   with the function's name. */

/* Which libraries to open: swscale alone (sprite scaling) or the whole encoder set. */
typedef enum {
    GIFX_AV_SCALER = 1,  /* libavutil, libswscale */
    GIFX_AV_ENCODER = 2  /* libavutil, libswscale, libavcodec, libavformat */
} gifx_av_group;

/* Opens the libraries of `group` once (thread-safe; later calls return the first result).
   Returns 0 on success, or -1 with a one-line reason (soname and dlerror text) in `error`. */
int gifx_av_load(gifx_av_group group, char *error, size_t error_size);

/* Whether `group` is loaded, without trying to load it. */
int gifx_av_is_loaded(gifx_av_group group);

/* The file a loaded library was opened from (for `gifx --version`): 0 libavutil, 1 libswscale, 2 libavcodec,
   3 libavformat; NULL when that library is not loaded. */
const char *gifx_av_library_path(int library);

/* The forwarders: gifx_av_frame_alloc, gifx_sws_scale, gifx_avcodec_open2, ... */
#define GIFX_DECLARE_FORWARDER(lib, ret, name, params, args) ret gifx_##name params;
#define GIFX_DECLARE_VOID_FORWARDER(lib, name, params, args) void gifx_##name params;
GIFX_AV_FUNCTIONS(GIFX_DECLARE_FORWARDER, GIFX_DECLARE_VOID_FORWARDER)

/* An AVIOContext writing to the open descriptor `fd` (standard output, or a caller's pipe or socket: it never
   seeks, and never closes `fd`). `duration_us` > 0 is filled into the mvhd, tkhd and mdhd durations of a
   fragmented MP4's moov as it passes (they are written as 0, the end not being known to libavformat yet).
   Returns 0 or an AVERROR; close with gifx_descriptor_avio_close, which flushes and returns the context's
   write error (AVERROR(EPIPE) when the reader went away). */
int gifx_descriptor_avio_open(AVIOContext **context, int fd, int64_t duration_us);
int gifx_descriptor_avio_close(AVIOContext **context);
#undef GIFX_DECLARE_FORWARDER
#undef GIFX_DECLARE_VOID_FORWARDER

/* Function-like macros Swift cannot import. */
#ifdef __linux__
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/// Takes CAP_SYS_NICE out of this process's *effective* capabilities (it stays permitted, so a host that
/// needs it may raise it again). SVT-AV1 creates its threads with SCHED_FIFO priority 99 whenever the
/// process may (root): 70 real-time threads for one AVIF, and any thread they start inherits it; on a
/// 2-core machine two of them spinning leave every other process 5 % of the CPU (SVT-AV1 1.4, the version
/// measured: docs/reliability.md, "Fixes made"). Without CAP_SYS_NICE the
/// request fails and SVT-AV1 runs its threads at normal priority (its warning is below the SVT_LOG level
/// gifx sets). Returns 0, or -1 with errno (not Linux: ENOSYS).
static inline int gifx_drop_realtime_scheduling(void) {
#ifdef __linux__
    struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &header, data) != 0) return -1;
    if ((data[0].effective & (1u << CAP_SYS_NICE)) == 0) return 0;
    data[0].effective &= ~(1u << CAP_SYS_NICE);
    return (int)syscall(SYS_capset, &header, data);
#else
    errno = ENOSYS;
    return -1;
#endif
}

static inline int gifx_averror_eof(void) { return AVERROR_EOF; }
static inline int gifx_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int gifx_averror(int posix_errno) { return AVERROR(posix_errno); }
static inline unsigned int gifx_mktag(char a, char b, char c, char d) { return MKTAG(a, b, c, d); }
static inline int64_t gifx_av_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline int gifx_av_time_base(void) { return AV_TIME_BASE; }

/* AVFrame's data/linesize are fixed C arrays (tuples in Swift): plain accessors keep the Swift side simple. */
static inline uint8_t *gifx_frame_plane(const AVFrame *frame, int plane) { return frame->data[plane]; }
static inline int gifx_frame_linesize(const AVFrame *frame, int plane) { return frame->linesize[plane]; }

/* Scales one horizontal slice (rows sliceY ..< sliceY + sliceHeight) of a packed single-plane source into
   `dst`; slices must arrive top to bottom, so the caller needs only a slice-sized source buffer. */
static inline int gifx_sws_scale_packed_slice(struct SwsContext *context, const uint8_t *source, int sourceStride,
                                              int sliceY, int sliceHeight, AVFrame *dst) {
    const uint8_t *const planes[4] = { source, NULL, NULL, NULL };
    const int strides[4] = { sourceStride, 0, 0, 0 };
    return gifx_sws_scale(context, planes, strides, sliceY, sliceHeight, dst->data, dst->linesize);
}

/* RGB→YUV with the BT.709 matrix: full-range RGB in, limited ("MPEG") range YUV out. */
static inline int gifx_sws_use_bt709(struct SwsContext *context) {
    const int *coefficients = gifx_sws_getCoefficients(SWS_CS_ITU709);
    return gifx_sws_setColorspaceDetails(context, coefficients, 1, coefficients, 0, 0, 1 << 16, 1 << 16);
}

/* RGB→YUV as JFIF (JPEG) has it: the BT.601 matrix, full range in and out (yuvj420p). */
static inline int gifx_sws_use_jpeg(struct SwsContext *context) {
    const int *coefficients = gifx_sws_getCoefficients(SWS_CS_ITU601);
    return gifx_sws_setColorspaceDetails(context, coefficients, 1, coefficients, 1, 0, 1 << 16, 1 << 16);
}

/* The verifier's reader (Sources/Encoders/Verify): accessors for what Swift imports awkwardly. */
static inline AVStream *gifx_format_stream(const AVFormatContext *format, unsigned int index) {
    return index < format->nb_streams ? format->streams[index] : NULL;
}
/* YUV (or RGB) to RGBA as a player shows it: the stream's own matrix (`colorspace`, an AVColorSpace; BT.601 when
   unspecified, as libswscale assumes) and range in, full-range RGB out. */
static inline int gifx_sws_to_rgb(struct SwsContext *context, int colorspace, int fullRangeIn) {
    int sws = SWS_CS_DEFAULT;
    switch (colorspace) {
    case AVCOL_SPC_BT709: sws = SWS_CS_ITU709; break;
    case AVCOL_SPC_FCC: sws = SWS_CS_FCC; break;
    case AVCOL_SPC_SMPTE240M: sws = SWS_CS_SMPTE240M; break;
    case AVCOL_SPC_BT2020_NCL: case AVCOL_SPC_BT2020_CL: sws = SWS_CS_BT2020; break;
    default: sws = SWS_CS_ITU601; break;
    }
    const int *coefficients = gifx_sws_getCoefficients(sws);
    return gifx_sws_setColorspaceDetails(context, coefficients, fullRangeIn, coefficients, 1, 0, 1 << 16, 1 << 16);
}
/* RGBA to YUV with the matrix of `colorspace` (as gifx_sws_to_rgb chooses it) and the range given: a reference frame
   taken through the output's own chroma subsampling and quantisation. */
static inline int gifx_sws_from_rgb(struct SwsContext *context, int colorspace, int fullRangeOut) {
    int sws = SWS_CS_ITU601;
    switch (colorspace) {
    case AVCOL_SPC_BT709: sws = SWS_CS_ITU709; break;
    case AVCOL_SPC_FCC: sws = SWS_CS_FCC; break;
    case AVCOL_SPC_SMPTE240M: sws = SWS_CS_SMPTE240M; break;
    case AVCOL_SPC_BT2020_NCL: case AVCOL_SPC_BT2020_CL: sws = SWS_CS_BT2020; break;
    default: break;
    }
    const int *coefficients = gifx_sws_getCoefficients(sws);
    return gifx_sws_setColorspaceDetails(context, coefficients, 1, coefficients, fullRangeOut, 0, 1 << 16, 1 << 16);
}
static inline int gifx_frame_full_range(const AVFrame *frame) {
    return frame->color_range == AVCOL_RANGE_JPEG || frame->format == AV_PIX_FMT_YUVJ420P
        || frame->format == AV_PIX_FMT_YUVJ422P || frame->format == AV_PIX_FMT_YUVJ444P;
}
/* Scales/converts a whole decoded frame into one packed RGBA buffer. */
static inline int gifx_sws_scale_to_packed(struct SwsContext *context, const AVFrame *src, uint8_t *dst, int dstStride) {
    uint8_t *const planes[4] = { dst, NULL, NULL, NULL };
    const int strides[4] = { dstStride, 0, 0, 0 };
    return gifx_sws_scale(context, (const uint8_t *const *)src->data, src->linesize, 0, src->height, planes, strides);
}
/* Scales one packed RGBA image into another (reference canvases at the output's size). */
static inline int gifx_sws_scale_packed_to_packed(struct SwsContext *context, const uint8_t *src, int srcStride, int srcHeight,
                                                  uint8_t *dst, int dstStride) {
    const uint8_t *const in[4] = { src, NULL, NULL, NULL };
    const int inStrides[4] = { srcStride, 0, 0, 0 };
    uint8_t *const out[4] = { dst, NULL, NULL, NULL };
    const int outStrides[4] = { dstStride, 0, 0, 0 };
    return gifx_sws_scale(context, in, inStrides, 0, srcHeight, out, outStrides);
}

#endif
