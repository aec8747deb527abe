#ifndef GIFX_AV_FUNCTIONS_H
#define GIFX_AV_FUNCTIONS_H
/* Every libav function gifx calls: X(library, return type, name, parameters, arguments). Each is called
   through a forwarder named gifx_<name> (CAV.h declares them, loader.c defines them); loader.c asserts
   that every forwarder's type is the libav prototype's, so the compiler checks each line against libav. */
#define GIFX_AV_FUNCTIONS(X, XV)                                                                              \
    X(LIB_AVUTIL, unsigned, avutil_version, (void), ())                                                       \
    X(LIB_AVUTIL, const char *, av_version_info, (void), ())                                                  \
    X(LIB_SWSCALE, unsigned, swscale_version, (void), ())                                                     \
    X(LIB_AVCODEC, unsigned, avcodec_version, (void), ())                                                     \
    X(LIB_AVFORMAT, unsigned, avformat_version, (void), ())                                                   \
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
    X(LIB_AVUTIL, int, av_get_bits_per_pixel, (const AVPixFmtDescriptor *pixdesc), (pixdesc))                 \
    X(LIB_AVUTIL, const AVPixFmtDescriptor *, av_pix_fmt_desc_get, (enum AVPixelFormat pix_fmt), (pix_fmt))   \
    X(LIB_AVUTIL, const char *, av_get_pix_fmt_name, (enum AVPixelFormat pix_fmt), (pix_fmt))                 \
    X(LIB_AVUTIL, const char *, av_color_space_name, (enum AVColorSpace space), (space))                      \
    X(LIB_AVUTIL, const char *, av_color_range_name, (enum AVColorRange range), (range))                      \
    X(LIB_AVUTIL, const char *, av_color_primaries_name, (enum AVColorPrimaries primaries), (primaries))      \
    X(LIB_AVUTIL, const char *, av_color_transfer_name, (enum AVColorTransferCharacteristic transfer),        \
      (transfer))                                                                                             \
    XV(LIB_AVUTIL, av_frame_unref, (AVFrame *frame), (frame))                                                 \
    X(LIB_AVUTIL, AVDictionaryEntry *, av_dict_get,                                                           \
      (const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags), (m, key, prev, flags)) \
    X(LIB_AVCODEC, const AVCodec *, avcodec_find_decoder, (enum AVCodecID id), (id))                          \
    X(LIB_AVCODEC, const AVCodec *, avcodec_find_decoder_by_name, (const char *name), (name))                 \
    X(LIB_AVCODEC, const char *, avcodec_get_name, (enum AVCodecID id), (id))                                 \
    X(LIB_AVCODEC, AVCodecParameters *, avcodec_parameters_alloc, (void), ())                                 \
    XV(LIB_AVCODEC, avcodec_parameters_free, (AVCodecParameters **par), (par))                                \
    X(LIB_AVCODEC, int, avcodec_parameters_to_context, (AVCodecContext *codec, const AVCodecParameters *par), \
      (codec, par))                                                                                           \
    X(LIB_AVCODEC, int, avcodec_send_packet, (AVCodecContext *avctx, const AVPacket *avpkt), (avctx, avpkt))  \
    X(LIB_AVCODEC, int, avcodec_receive_frame, (AVCodecContext *avctx, AVFrame *frame), (avctx, frame))       \
    X(LIB_AVFORMAT, int, av_read_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt))                        \
    X(LIB_AVFORMAT, int, avformat_open_input,                                                                 \
      (AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options),              \
      (ps, url, fmt, options))                                                                                \
    X(LIB_AVFORMAT, int, avformat_find_stream_info, (AVFormatContext *ic, AVDictionary **options), (ic, options)) \
    XV(LIB_AVFORMAT, avformat_close_input, (AVFormatContext **s), (s))                                        \
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
    XV(LIB_AVCODEC, av_packet_move_ref, (AVPacket *dst, AVPacket *src), (dst, src))                           \
    X(LIB_AVCODEC, int, av_packet_make_writable, (AVPacket *pkt), (pkt))                                      \
    XV(LIB_AVCODEC, av_shrink_packet, (AVPacket *pkt, int size), (pkt, size))                                 \
    X(LIB_AVCODEC, int, av_new_packet, (AVPacket *pkt, int size), (pkt, size))                                 \
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
    X(LIB_AVFORMAT, int, avio_open, (AVIOContext **s, const char *url, int flags), (s, url, flags))           \
    X(LIB_AVFORMAT, AVIOContext *, avio_alloc_context,                                                        \
      (unsigned char *buffer, int buffer_size, int write_flag, void *opaque,                                   \
       int (*read_packet)(void *opaque, uint8_t *buf, int buf_size),                                          \
       int (*write_packet)(void *opaque, uint8_t *buf, int buf_size),                                         \
       int64_t (*seek)(void *opaque, int64_t offset, int whence)),                                            \
      (buffer, buffer_size, write_flag, opaque, read_packet, write_packet, seek))                              \
    XV(LIB_AVFORMAT, avio_context_free, (AVIOContext **s), (s))                                               \
    XV(LIB_AVFORMAT, avio_flush, (AVIOContext *s), (s))                                                       \
    X(LIB_AVUTIL, void *, av_malloc, (size_t size), (size))                                                   \
    XV(LIB_AVUTIL, av_freep, (void *ptr), (ptr))

#endif
