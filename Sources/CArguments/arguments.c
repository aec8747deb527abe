#include "gifx_arguments.h"
#include <stddef.h>

static int captured_count = -1;
static char **captured_vector = NULL;

/// glibc calls .init_array functions with (argc, argv, envp), in static executables too (csu/libc-start.c):
/// the vector is the process's own, alive for its whole life, so only the pointer is kept.
__attribute__((constructor, used))
static void gifx_capture_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc < 0 || argv == NULL) return;
    int count = 0;
    while (count < argc && argv[count] != NULL) count++;
    captured_vector = argv;
    captured_count = count;
}

int gifx_captured_argument_count(void) { return captured_count; }

const char *gifx_captured_argument(int index) {
    if (index < 0 || index >= captured_count) return NULL;
    return captured_vector[index];
}

#if defined(__linux__)
#include <sys/auxv.h>
const char *gifx_executed_path(void) { return (const char *)getauxval(AT_EXECFN); }
#else
const char *gifx_executed_path(void) { return NULL; }
#endif
