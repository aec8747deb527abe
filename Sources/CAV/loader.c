#define _GNU_SOURCE /* dlinfo */
#include "CAV.h"

#include <dlfcn.h>
#include <link.h>
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

/* One pointer per function, filled by dlsym when its library's group is loaded. */
#define DECLARE_POINTER(lib, ret, name, params, args) static __typeof__(&name) pointer_##name;
#define DECLARE_VOID_POINTER(lib, name, params, args) static __typeof__(&name) pointer_##name;
GIFX_AV_FUNCTIONS(DECLARE_POINTER, DECLARE_VOID_POINTER)

static void not_loaded(const char *name) {
    fprintf(stderr, "gifx: internal error: %s called before libav was loaded\n", name);
    abort();
}

/* The forwarders, gifx_<name>: each must have exactly the type of libav's own prototype. */
#define DEFINE_FORWARDER(lib, ret, name, params, args)                                                        \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&gifx_##name), __typeof__(&name)),                \
                   "gifx_" #name " does not match libav's prototype");                                       \
    __attribute__((visibility("hidden"))) ret gifx_##name params {                                            \
        if (!pointer_##name) not_loaded(#name);                                                               \
        return pointer_##name args;                                                                           \
    }
#define DEFINE_VOID_FORWARDER(lib, name, params, args)                                                        \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&gifx_##name), __typeof__(&name)),                \
                   "gifx_" #name " does not match libav's prototype");                                       \
    __attribute__((visibility("hidden"))) void gifx_##name params {                                           \
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

const char *gifx_av_library_path(int library) {
    if (library < 0 || library >= LIB_COUNT) return NULL;
    pthread_mutex_lock(&load_lock);
    void *handle = handles[library];
    pthread_mutex_unlock(&load_lock);
    struct link_map *map = NULL;
    if (!handle || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map) return NULL;
    return map->l_name;
}
