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

/* Function-like macros Swift cannot import. */
static inline int gifx_averror_eof(void) { return AVERROR_EOF; }
static inline int gifx_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int gifx_averror(int posix_errno) { return AVERROR(posix_errno); }
static inline unsigned int gifx_mktag(char a, char b, char c, char d) { return MKTAG(a, b, c, d); }
static inline int64_t gifx_av_nopts_value(void) { return AV_NOPTS_VALUE; }

#endif
