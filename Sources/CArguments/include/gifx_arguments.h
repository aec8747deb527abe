#ifndef GIFX_CARGUMENTS_H
#define GIFX_CARGUMENTS_H

/// The command line as the C runtime handed it over (docs/packaging.md, "What `make dist-check` verifies"). The Swift runtime
/// linked statically reads its arguments from /proc/self/cmdline, which a chroot or a sandbox may lack;
/// glibc passes argc, argv and envp to every .init_array function, in static and dynamic executables, so a
/// constructor here keeps them before any Swift code runs.

/// The number of arguments captured (argv[0] included), or -1 when the constructor never ran (a C runtime
/// that passes nothing to constructors).
int gifx_captured_argument_count(void);

/// Argument `index` (0 ..< count), as the C runtime passed it; NULL out of range.
const char *gifx_captured_argument(int index);

/// The path the kernel executed (the auxiliary vector's AT_EXECFN, as given to execve: maybe relative), read
/// without /proc; NULL where there is none.
const char *gifx_executed_path(void);

#endif
