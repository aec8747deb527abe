#ifndef GIFX_CPROCESS_SHIM_H
#define GIFX_CPROCESS_SHIM_H
#include <signal.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/// prctl(2) is variadic, which Swift cannot call: asks the kernel to send `signal` to this process when
/// the thread that started it ends (a batch child then dies with its batch, even one killed by SIGKILL).
/// Returns 0, or -1 with errno set; -1 with ENOSYS where there is no such request (not Linux).
static inline int gifx_set_parent_death_signal(int signal) {
#ifdef __linux__
    return prctl(PR_SET_PDEATHSIG, signal);
#else
    (void)signal;
    return -1;
#endif
}

#endif
