#include "CAV.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIFX_STRINGIFY2(x) #x
#define GIFX_STRINGIFY(x) GIFX_STRINGIFY2(x)

/* The sonames these headers were built against: a runtime library of another major version is refused. */
enum { LIB_AVUTIL, LIB_SWSCALE, LIB_AVCODEC, LIB_AVFORMAT, LIB_COUNT };
static const char *const sonames[LIB_COUNT] = {
    "libavutil.so." GIFX_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    "libswscale.so." GIFX_STRINGIFY(LIBSWSCALE_VERSION_MAJOR),
    "libavcodec.so." GIFX_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libavformat.so." GIFX_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
};

/* Every libav function gifx calls: X(library, return type, name, parameters, arguments). The forwarders
   below must match the headers' prototypes, so the compiler checks each line against libav itself. */
#define GIFX_AV_FUNCTIONS(X, XV)                                                                              \
    XV(LIB_AVUTIL, av_dict_free, (AVDictionary **m), (m))                                                     \
    X(LIB_AVUTIL, int, av_dict_set, (AVDictionary **pm, const char *key, const char *value, int flags),        \
      (pm, key, value, flags))                                                                                \
    X(LIB_AVUTIL, AVFrame *, av_frame_alloc, (void), ())                                                      \
    XV(LIB_AVUTIL, av_frame_free, (AVFrame **frame), (frame))                                                 \
    X(LIB_AVUTIL, int, av_frame_get_buffer, (AVFrame *frame, int align), (frame, align))                      \
    X(LIB_AVUTIL, int, av_frame_make_writable, (AVFrame *frame), (frame))                                     \
    XV(LIB_AVUTIL, av_log_set_level, (int level), (level))                                                    \
    X(LIB_AVUTIL, int, av_opt_set, (void *obj, const char *name, const char *val, int search_flags),          \
      (obj, name, val, search_flags))                                                                         \
    X(LIB_AVUTIL, int, av_opt_set_double, (void *obj, const char *name, double val, int search_flags),        \
      (obj, name, val, search_flags))                                                                         \
    X(LIB_AVUTIL, int, av_strerror, (int errnum, char *errbuf, size_t errbuf_size), (errnum, errbuf, errbuf_size)) \
    XV(LIB_SWSCALE, sws_freeContext, (struct SwsContext *swsContext), (swsContext))                           \
    X(LIB_SWSCALE, const int *, sws_getCoefficients, (int colorspace), (colorspace))                          \
    X(LIB_SWSCALE, struct SwsContext *, sws_getContext,                                                       \
      (int srcW, int srcH, enum AVPixelFormat srcFormat, int dstW, int dstH, enum AVPixelFormat dstFormat,    \
       int flags, SwsFilter *srcFilter, SwsFilter *dstFilter, const double *param),                           \
      (srcW, srcH, srcFormat, dstW, dstH, dstFormat, flags, srcFilter, dstFilter, param))                    \
    X(LIB_SWSCALE, int, sws_scale,                                                                            \
      (struct SwsContext *c, const uint8_t *const srcSlice[], const int srcStride[], int srcSliceY,           \
       int srcSliceH, uint8_t *const dst[], const int dstStride[]),                                           \
      (c, srcSlice, srcStride, srcSliceY, srcSliceH, dst, dstStride))                                         \
    X(LIB_SWSCALE, int, sws_setColorspaceDetails,                                                             \
      (struct SwsContext *c, const int inv_table[4], int srcRange, const int table[4], int dstRange,          \
       int brightness, int contrast, int saturation),                                                         \
      (c, inv_table, srcRange, table, dstRange, brightness, contrast, saturation))                            \
    X(LIB_AVCODEC, AVPacket *, av_packet_alloc, (void), ())                                                   \
    XV(LIB_AVCODEC, av_packet_free, (AVPacket **pkt), (pkt))                                                  \
    XV(LIB_AVCODEC, av_packet_rescale_ts, (AVPacket *pkt, AVRational tb_src, AVRational tb_dst),              \
       (pkt, tb_src, tb_dst))                                                                                 \
    XV(LIB_AVCODEC, av_packet_unref, (AVPacket *pkt), (pkt))                                                  \
    X(LIB_AVCODEC, AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec))                 \
    X(LIB_AVCODEC, const AVCodec *, avcodec_find_encoder_by_name, (const char *name), (name))                 \
    XV(LIB_AVCODEC, avcodec_free_context, (AVCodecContext **avctx), (avctx))                                  \
    X(LIB_AVCODEC, int, avcodec_open2, (AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options), \
      (avctx, codec, options))                                                                                \
    X(LIB_AVCODEC, int, avcodec_parameters_from_context, (AVCodecParameters *par, const AVCodecContext *codec), \
      (par, codec))                                                                                           \
    X(LIB_AVCODEC, int, avcodec_receive_packet, (AVCodecContext *avctx, AVPacket *avpkt), (avctx, avpkt))     \
    X(LIB_AVCODEC, int, avcodec_send_frame, (AVCodecContext *avctx, const AVFrame *frame), (avctx, frame))    \
    X(LIB_AVFORMAT, int, av_write_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt))                       \
    X(LIB_AVFORMAT, int, av_write_trailer, (AVFormatContext *s), (s))                                         \
    X(LIB_AVFORMAT, int, avformat_alloc_output_context2,                                                      \
      (AVFormatContext **ctx, const AVOutputFormat *oformat, const char *format_name, const char *filename),  \
      (ctx, oformat, format_name, filename))                                                                  \
    XV(LIB_AVFORMAT, avformat_free_context, (AVFormatContext *s), (s))                                        \
    X(LIB_AVFORMAT, AVStream *, avformat_new_stream, (AVFormatContext *s, const AVCodec *c), (s, c))          \
    X(LIB_AVFORMAT, int, avformat_write_header, (AVFormatContext *s, AVDictionary **options), (s, options))   \
    X(LIB_AVFORMAT, int, avio_closep, (AVIOContext **s), (s))                                                 \
    X(LIB_AVFORMAT, int, avio_open, (AVIOContext **s, const char *url, int flags), (s, url, flags))

/* One pointer per function, filled by dlsym when its library's group is loaded. */
#define DECLARE_POINTER(lib, ret, name, params, args) static __typeof__(&name) pointer_##name;
#define DECLARE_VOID_POINTER(lib, name, params, args) static __typeof__(&name) pointer_##name;
GIFX_AV_FUNCTIONS(DECLARE_POINTER, DECLARE_VOID_POINTER)

static void not_loaded(const char *name) {
    fprintf(stderr, "gifx: internal error: %s called before libav was loaded\n", name);
    abort();
}

/* The forwarders: hidden, so the libav libraries themselves never bind to them. */
#define DEFINE_FORWARDER(lib, ret, name, params, args)                                                        \
    __attribute__((visibility("hidden"))) ret name params {                                                   \
        if (!pointer_##name) not_loaded(#name);                                                               \
        return pointer_##name args;                                                                           \
    }
#define DEFINE_VOID_FORWARDER(lib, name, params, args)                                                        \
    __attribute__((visibility("hidden"))) void name params {                                                  \
        if (!pointer_##name) not_loaded(#name);                                                               \
        pointer_##name args;                                                                                  \
    }
GIFX_AV_FUNCTIONS(DEFINE_FORWARDER, DEFINE_VOID_FORWARDER)

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static void *handles[LIB_COUNT];
/* Per group: 0 not tried, 1 loaded, -1 failed (with the reason kept in failures). */
static int group_state[3];
static char failures[3][512];

static int last_library(gifx_av_group group) { return group == GIFX_AV_SCALER ? LIB_SWSCALE : LIB_AVFORMAT; }

static int resolve(void *handle, const char *name, void **slot, char *reason, size_t size) {
    dlerror();
    void *symbol = dlsym(handle, name);
    if (!symbol) {
        const char *why = dlerror();
        snprintf(reason, size, "%s", why ? why : name);
        return -1;
    }
    *slot = symbol;
    return 0;
}

static int load_group(gifx_av_group group, char *reason, size_t size) {
    int last = last_library(group);
    for (int lib = 0; lib <= last; lib++) {
        if (handles[lib]) continue;
        handles[lib] = dlopen(sonames[lib], RTLD_NOW | RTLD_LOCAL);
        if (!handles[lib]) {
            const char *why = dlerror();
            snprintf(reason, size, "cannot load %s: %s (ffmpeg's libraries are needed; Debian: apt-get install ffmpeg)",
                     sonames[lib], why ? why : "dlopen failed");
            return -1;
        }
    }
    /* On a failure the group is marked failed (gifx_av_load), so no forwarder of it is ever reached. */
#define RESOLVE(lib, ret, name, params, args)                                                                 \
    if (lib <= last && !pointer_##name) {                                                                     \
        void *symbol = NULL;                                                                                  \
        if (resolve(handles[lib], #name, &symbol, reason, size) != 0) return -1;                              \
        pointer_##name = (__typeof__(&name))symbol;                                                           \
    }
#define RESOLVE_VOID(lib, name, params, args) RESOLVE(lib, void, name, params, args)
    GIFX_AV_FUNCTIONS(RESOLVE, RESOLVE_VOID)
#undef RESOLVE
#undef RESOLVE_VOID
    return 0;
}

int gifx_av_load(gifx_av_group group, char *error, size_t error_size) {
    if (group != GIFX_AV_SCALER && group != GIFX_AV_ENCODER) group = GIFX_AV_ENCODER;
    pthread_mutex_lock(&load_lock);
    if (group_state[group] == 0) {
        group_state[group] = load_group(group, failures[group], sizeof failures[group]) == 0 ? 1 : -1;
    }
    int state = group_state[group];
    if (state < 0 && error && error_size > 0) snprintf(error, error_size, "%s", failures[group]);
    pthread_mutex_unlock(&load_lock);
    return state > 0 ? 0 : -1;
}

int gifx_av_is_loaded(gifx_av_group group) {
    if (group != GIFX_AV_SCALER && group != GIFX_AV_ENCODER) return 0;
    pthread_mutex_lock(&load_lock);
    int loaded = group_state[group] > 0;
    pthread_mutex_unlock(&load_lock);
    return loaded;
}
