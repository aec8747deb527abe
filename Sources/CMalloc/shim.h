#ifndef GIFX_CMALLOC_SHIM_H
#define GIFX_CMALLOC_SHIM_H
#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif

/// Serves every allocation of `bytes` or more with its own mmap, returned to the kernel when freed, for the
/// rest of the process: `mallopt(M_MMAP_THRESHOLD)`, which also turns off glibc's dynamic threshold. That
/// threshold otherwise rises to the size of each large block freed (up to 32 MiB), after which blocks of
/// frame size come from the heap of whichever thread asked and stay there, free but resident, one arena per
/// thread (docs/memory.md, "The heap"). Returns 1 on success, 0 where glibc refused or is not there.
static inline int gifx_fix_mmap_threshold(int bytes) {
#if defined(__GLIBC__)
    return mallopt(M_MMAP_THRESHOLD, bytes);
#else
    (void)bytes;
    return 0;
#endif
}

/// Whether glibc served `block` (from malloc) with a mapping of its own: bit 1 (IS_MMAPPED) of the size
/// word just before it. For tests of the policy above; -1 where the C library is not glibc.
static inline int gifx_block_is_mapped(const void *block) {
#if defined(__GLIBC__)
    return (int)((((const size_t *)block)[-1] >> 1) & 1);
#else
    (void)block;
    return -1;
#endif
}

#endif
