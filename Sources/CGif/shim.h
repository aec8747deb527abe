#ifndef GIFX_CGIF_SHIM_H
#define GIFX_CGIF_SHIM_H
#include <gif_lib.h>

/// giflib's NO_TRANSPARENT_COLOR is a macro; Swift imports it only as a literal, keep it named.
static inline int gifx_no_transparent_color(void) { return NO_TRANSPARENT_COLOR; }

#endif
