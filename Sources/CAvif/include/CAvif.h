// libavif (libavif-dev, 0.11.1 on Debian 12): the AVIF input reader (Sources/Frames/AVIF), decoding with dav1d.
#include <avif/avif.h>
