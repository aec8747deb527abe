// dav1d prints its errors to stderr by default ("Error parsing OBU data"), and libavif 0.11 sets no logger of its
// own (libavif 1.4 does), so a damaged AVIF's one-line refusal would come with dav1d's line before it. libavif
// calls dav1d_default_settings() before every dav1d_open(): this definition, in the executable, is the one the
// dynamic linker binds libavif's call to; it calls dav1d's own (the next definition) and leaves the logger unset,
// which dav1d reads as "no logging". Anyone who sets a logger after it (libavcodec's libdav1d wrapper) keeps theirs.
#define _GNU_SOURCE
#include <dav1d/dav1d.h>
#include <dlfcn.h>
#include <stddef.h>

DAV1D_API void dav1d_default_settings(Dav1dSettings *s) {
    static void (*next)(Dav1dSettings *) = NULL;
    if (next == NULL) next = (void (*)(Dav1dSettings *))dlsym(RTLD_NEXT, "dav1d_default_settings");
    if (next != NULL) next(s);
    s->logger.cookie = NULL;
    s->logger.callback = NULL;
}
