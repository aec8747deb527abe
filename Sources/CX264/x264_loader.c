#include "CX264.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define GIFX_X264_STRINGIFY2(x) #x
#define GIFX_X264_STRINGIFY(x) GIFX_X264_STRINGIFY2(x)

/* x264.h renames x264_encoder_open to x264_encoder_open_<X264_BUILD>: the symbol name is the macro's expansion. */
#define GIFX_X264_FUNCTIONS(F)                                                                                \
    F(void, x264_param_default, (x264_param_t * param), (param), "x264_param_default")                       \
    F(int, x264_param_default_preset, (x264_param_t * param, const char *preset, const char *tune),         \
      (param, preset, tune), "x264_param_default_preset")                                                    \
    F(int, x264_param_parse, (x264_param_t * param, const char *name, const char *value), (param, name, value), \
      "x264_param_parse")                                                                                     \
    F(void, x264_picture_init, (x264_picture_t * picture), (picture), "x264_picture_init")                 \
    F(x264_t *, x264_encoder_open, (x264_param_t * param), (param), GIFX_X264_STRINGIFY(x264_encoder_open)) \
    F(int, x264_encoder_headers, (x264_t * encoder, x264_nal_t * *nals, int *count), (encoder, nals, count),  \
      "x264_encoder_headers")                                                                                 \
    F(int, x264_encoder_encode,                                                                               \
      (x264_t * encoder, x264_nal_t * *nals, int *count, x264_picture_t *in, x264_picture_t *out),            \
      (encoder, nals, count, in, out), "x264_encoder_encode")                                                \
    F(int, x264_encoder_delayed_frames, (x264_t * encoder), (encoder), "x264_encoder_delayed_frames")       \
    F(void, x264_encoder_close, (x264_t * encoder), (encoder), "x264_encoder_close")                        \
    F(void, x264_encoder_parameters, (x264_t * encoder, x264_param_t * param), (encoder, param),           \
      "x264_encoder_parameters")

#define DECLARE(ret, name, params, args, symbol) static ret(*pointer_##name) params;
GIFX_X264_FUNCTIONS(DECLARE)

static void not_loaded(const char *name) {
    fprintf(stderr, "gifx: internal error: %s called before libx264 was loaded\n", name);
    abort();
}

#define FORWARD(ret, name, params, args, symbol)                                                              \
    __attribute__((visibility("hidden"))) ret gifx_##name params {                                            \
        if (!pointer_##name) not_loaded(symbol);                                                              \
        return pointer_##name args;                                                                           \
    }
GIFX_X264_FUNCTIONS(FORWARD)

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int state; /* 0 not tried, 1 loaded, -1 failed */
static char failure[512];

static int load(void) {
    const char *soname = "libx264.so." GIFX_X264_STRINGIFY(X264_BUILD);
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "cannot load %s: %s (Debian: apt-get install libx264-%d)", soname,
                 why ? why : "dlopen failed", X264_BUILD);
        return -1;
    }
#define RESOLVE(ret, name, params, args, symbol)                                                              \
    pointer_##name = (ret(*) params)dlsym(handle, symbol);                                                    \
    if (!pointer_##name) {                                                                                    \
        snprintf(failure, sizeof failure, "%s has no %s", soname, symbol);                                    \
        return -1;                                                                                            \
    }
    GIFX_X264_FUNCTIONS(RESOLVE)
    return 0;
}

int gifx_x264_load(char *error, size_t error_size) {
    pthread_mutex_lock(&load_lock);
    if (state == 0) state = load() == 0 ? 1 : -1;
    int loaded = state > 0;
    if (!loaded && error && error_size > 0) snprintf(error, error_size, "%s", failure);
    pthread_mutex_unlock(&load_lock);
    return loaded ? 0 : -1;
}
