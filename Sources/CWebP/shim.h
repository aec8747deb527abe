// libwebp's encoder and its animation encoder (WebPAnimEncoder, in libwebpmux).
#include <webp/encode.h>
#include <webp/mux.h>
// The verifier reads animated WebP back with libwebp's demuxer and animation decoder (libwebpdemux).
#include <webp/decode.h>
#include <webp/demux.h>
