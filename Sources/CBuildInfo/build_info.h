#ifndef GIFX_BUILD_INFO_H
#define GIFX_BUILD_INFO_H
/* The commit a binary was built from, for `gifx --version`. `make dist` (and so `make install`) passes it as
   -Xcc -DGIFX_BUILD_COMMIT="..." (git rev-parse, "-dirty" when the tree had changes); other builds say
   "unknown". A C macro because Swift has no -D with a value. */
#ifndef GIFX_BUILD_COMMIT
#define GIFX_BUILD_COMMIT "unknown"
#endif
static inline const char *gifx_build_commit(void) { return GIFX_BUILD_COMMIT; }
#endif
