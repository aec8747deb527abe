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

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

/// The write end of the signal pipe (`gifx_route_signals_to_pipe`), -1 before it is made.
static int gifx_signal_pipe_write = -1;

/// The handler: one byte, the signal's number, into the pipe (write(2) and errno only: async-signal-safe).
static void gifx_signal_to_pipe(int signal_number) {
    int saved = errno;
    unsigned char byte = (unsigned char)signal_number;
    if (gifx_signal_pipe_write >= 0) {
        ssize_t written = write(gifx_signal_pipe_write, &byte, 1);
        (void)written;
    }
    errno = saved;
}

/// Routes `signal_count` signals to a pipe whose read end it returns (-1 with errno on failure): a handler
/// installed with sigaction for each, process-wide, so whichever thread the kernel delivers one to writes its
/// number there at once, whatever the threads' masks (a dispatch signal source on Linux reads a signalfd,
/// which misses a signal the kernel delivers to a thread that does not block it while its disposition is
/// SIG_IGN). The signals are unblocked in the calling thread. Both ends are close-on-exec; the write end does
/// not block (a full pipe drops the byte: a signal already waiting says the same).
static inline int gifx_route_signals_to_pipe(const int *signals, int signal_count) {
    int ends[2];
    if (gifx_signal_pipe_write < 0) {
        if (pipe(ends) != 0) return -1;
        fcntl(ends[0], F_SETFD, FD_CLOEXEC);
        fcntl(ends[1], F_SETFD, FD_CLOEXEC);
        fcntl(ends[1], F_SETFL, O_NONBLOCK);
        gifx_signal_pipe_write = ends[1];
    } else {
        errno = EEXIST;
        return -1;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = gifx_signal_to_pipe;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < signal_count; i++) {
        sigaction(signals[i], &action, NULL);
        sigaddset(&set, signals[i]);
    }
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    return ends[0];
}

#endif
