// libwebp's encoder and its animation encoder (WebPAnimEncoder, in libwebpmux).
#include <webp/encode.h>
#include <webp/mux.h>
