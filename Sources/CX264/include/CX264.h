#ifndef GIFX_CX264_H
#define GIFX_CX264_H
/* libx264, driven directly for H.264 with repeat pictures (docs/repeats.md, "B-frames with repeats"): only x264's own
   API can make a held picture a B reference (X264_TYPE_BREF), which libavcodec's wrapper cannot ask for.

   libx264 is opened with dlopen on first use, as libav is (Sources/CAV): a gifx that never encodes H.264 this way never
   loads it. Swift calls only the gifx_x264_* forwarders below; calling one before gifx_x264_load succeeded aborts. */
#include <stddef.h>
#include <stdint.h>
#include <x264.h>

/* Loads libx264 of the build these headers describe (X264_BUILD: its soname and the versioned x264_encoder_open).
   0 on success; else -1 with the reason in `error`. Thread-safe; later calls return the first result. */
int gifx_x264_load(char *error, size_t error_size);

void gifx_x264_param_default(x264_param_t *param);
int gifx_x264_param_default_preset(x264_param_t *param, const char *preset, const char *tune);
int gifx_x264_param_parse(x264_param_t *param, const char *name, const char *value);
void gifx_x264_picture_init(x264_picture_t *picture);
x264_t *gifx_x264_encoder_open(x264_param_t *param);
int gifx_x264_encoder_headers(x264_t *encoder, x264_nal_t **nals, int *count);
int gifx_x264_encoder_encode(x264_t *encoder, x264_nal_t **nals, int *count, x264_picture_t *in, x264_picture_t *out);
int gifx_x264_encoder_delayed_frames(x264_t *encoder);
void gifx_x264_encoder_close(x264_t *encoder);
/* The settings the encoder runs with, after its own validation (which may turn B-frames off: lossless). */
void gifx_x264_encoder_parameters(x264_t *encoder, x264_param_t *param);

/* x264's frame types, as Swift sees them. */
static inline int gifx_x264_type_auto(void) { return X264_TYPE_AUTO; }
static inline int gifx_x264_type_idr(void) { return X264_TYPE_IDR; }
static inline int gifx_x264_type_bref(void) { return X264_TYPE_BREF; }
static inline int gifx_x264_csp_i420(void) { return X264_CSP_I420; }
static inline int gifx_x264_log_none(void) { return X264_LOG_NONE; }
static inline int gifx_x264_pyramid_normal(void) { return X264_B_PYRAMID_NORMAL; }
static inline int gifx_x264_direct_spatial(void) { return X264_DIRECT_PRED_SPATIAL; }
#endif
