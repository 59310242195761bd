#include "coord_signal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "coord_log.h"

static int signal_pipe[2] = {-1, -1};

static void on_signal(int signo)
{
    int saved = errno;
    unsigned char b = (unsigned char)signo;
    if (write(signal_pipe[1], &b, 1) < 0) {
        /* the pipe is full: a signal is already pending */
    }
    errno = saved;
}

int coord_signals_install(void)
{
    if (pipe(signal_pipe) != 0)
        COORD_FATAL("pipe: %s", strerror(errno));
    for (int i = 0; i < 2; i++) {
        int fl = fcntl(signal_pipe[i], F_GETFL);
        if (fl < 0 || fcntl(signal_pipe[i], F_SETFL, fl | O_NONBLOCK) < 0 ||
            fcntl(signal_pipe[i], F_SETFD, FD_CLOEXEC) < 0)
            COORD_FATAL("fcntl: %s", strerror(errno));
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART; /* file writes go on; the poll wakes up on the pipe anyway */
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0 ||
        sigaction(SIGHUP, &sa, NULL) != 0)
        COORD_FATAL("sigaction: %s", strerror(errno));
    signal(SIGPIPE, SIG_IGN);
    /* past a file size limit a write fails with EFBIG, which the run file handles as a full
     * disk, instead of killing the process */
    signal(SIGXFSZ, SIG_IGN);
    return signal_pipe[0];
}

int coord_signal_pending(void)
{
    unsigned char sig;
    return signal_pipe[0] >= 0 && read(signal_pipe[0], &sig, 1) == 1 ? sig : 0;
}

void coord_signals_remove(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    for (int i = 0; i < 2; i++)
        if (signal_pipe[i] >= 0) {
            close(signal_pipe[i]);
            signal_pipe[i] = -1;
        }
}
