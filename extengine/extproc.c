/* close_range(), where the C library has it */
#define _GNU_SOURCE
#include "extproc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "error.h"
#include "timeman.h"

enum {
    ARGS_MAX = 64,
    FDS_MAX = 65536, /* descriptors closed one by one where close_range is missing */
    QUIT_MS = 500,   /* after the quit line, wait this long before SIGKILL */
    TEXT_MAX = 1024,
};

void extproc_init(ExtProc *p)
{
    memset(p, 0, sizeof *p);
    p->to_fd = p->from_fd = -1;
}

void extproc_set_idle(ExtProc *p, ExtIdleFn fn, void *ctx)
{
    p->idle = fn;
    p->idle_ctx = ctx;
}

bool extproc_running(const ExtProc *p)
{
    return p->pid > 0;
}

bool extproc_fail(ExtProc *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_setv(p->error, sizeof p->error, fmt, ap);
    va_end(ap);
    return false;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Whether the engine has exited, without reaping it: while it is a zombie its pid, and
 * so its process group's id, cannot be taken by another process. */
static bool exited(pid_t pid)
{
    siginfo_t info;
    memset(&info, 0, sizeof info);
    for (;;) {
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0)
            return info.si_pid == pid;
        if (errno != EINTR)
            return true; /* not our child any more: nothing to wait for */
    }
}

void extproc_stop(ExtProc *p, bool polite, const char *quit_line)
{
    if (p->pid > 0) {
        if (polite && p->to_fd >= 0 && quit_line) {
            char line[64];
            int n = snprintf(line, sizeof line, "%s\n", quit_line);
            if (n > 0 && (size_t)n < sizeof line && write(p->to_fd, line, (size_t)n) < 0) {
                /* already gone: the kill below finds no one */
            }
        }
        bool gone = false;
        for (int waited = 0; polite && waited < QUIT_MS && !(gone = exited(p->pid)); waited += 10)
            sleep_ms(10);
        /* the group, whether its leader quit or not: what the engine started goes too */
        if (kill(-p->pid, SIGKILL) != 0 && errno != ESRCH)
            extproc_fail(p, "kill %ld: %s", (long)p->pid, strerror(errno));
        if (!gone && kill(p->pid, SIGKILL) != 0 && errno != ESRCH)
            extproc_fail(p, "kill %ld: %s", (long)p->pid, strerror(errno));
        int status;
        while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    if (p->to_fd >= 0)
        close(p->to_fd);
    if (p->from_fd >= 0)
        close(p->from_fd);
    p->to_fd = p->from_fd = -1;
    p->pid = 0;
    p->len = 0;
}

bool extproc_send(ExtProc *p, const char *fmt, ...)
{
    char line[EXTPROC_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line - 1)
        return extproc_fail(p, "command line too long");
    if (p->to_fd < 0)
        return extproc_fail(p, "engine not running");
    line[n++] = '\n';
    size_t off = 0;
    while (off < (size_t)n) {
        ssize_t w = write(p->to_fd, line + off, (size_t)n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return extproc_fail(p, "write to engine: %s", w < 0 ? strerror(errno) : "closed");
        off += (size_t)w;
    }
    return true;
}

/* Calls the idle hook when one is due; returns the ms until the next is. */
static int64_t idle_due(ExtProc *p)
{
    if (!p->idle)
        return 1000000;
    int64_t now = time_now_ms();
    if (now - p->idle_at >= EXTPROC_IDLE_MS) {
        p->idle(p->idle_ctx);
        p->idle_at = now = time_now_ms();
    }
    return p->idle_at + EXTPROC_IDLE_MS - now;
}

ExtProcRead extproc_read_line(ExtProc *p, int64_t deadline, char *line, size_t size)
{
    for (;;) {
        /* A chatty engine never leaves the poll below idle: call the hook here too. */
        int64_t idle_in = idle_due(p);
        char *nl = memchr(p->buf, '\n', p->len);
        if (!nl && p->len == sizeof p->buf) {
            extproc_fail(p, "the engine sent a line longer than %d bytes", EXTPROC_LINE_MAX - 1);
            return EXTPROC_EOF;
        }
        if (nl) {
            size_t n = (size_t)(nl - p->buf);
            size_t copy = n < size - 1 ? n : size - 1;
            memcpy(line, p->buf, copy);
            line[copy] = '\0';
            if (copy && line[copy - 1] == '\r')
                line[copy - 1] = '\0';
            size_t used = n + 1;
            memmove(p->buf, p->buf + used, p->len - used);
            p->len -= used;
            return EXTPROC_LINE;
        }
        if (p->from_fd < 0) {
            extproc_fail(p, "engine not running");
            return EXTPROC_EOF;
        }
        int64_t left = deadline - time_now_ms();
        if (left <= 0)
            return EXTPROC_TIMEOUT;
        int64_t wait = left < idle_in ? left : idle_in;
        struct pollfd pfd = {p->from_fd, POLLIN, 0};
        int r = poll(&pfd, 1, wait < 1 ? 1 : (int)wait);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            extproc_fail(p, "poll: %s", strerror(errno));
            return EXTPROC_EOF;
        }
        if (r == 0)
            continue;
        ssize_t got = read(p->from_fd, p->buf + p->len, sizeof p->buf - p->len);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0) {
            extproc_fail(p, "engine closed its output%s", got < 0 ? " (read error)" : "");
            return EXTPROC_EOF;
        }
        p->len += (size_t)got;
    }
}

/* Closes every descriptor from first on, in a child between fork and exec. */
static void close_from(int first)
{
#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
    if (close_range((unsigned)first, ~0U, 0) == 0)
        return;
#endif
    struct rlimit rl;
    int last =
        getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < FDS_MAX ? (int)rl.rlim_cur : FDS_MAX;
    for (int fd = first; fd < last; fd++)
        close(fd);
}

static int split_args(char *text, char **argv)
{
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(text, " \t", &save); tok && n < ARGS_MAX;
         tok = strtok_r(NULL, " \t", &save))
        argv[n++] = tok;
    argv[n] = NULL;
    return n;
}

bool extproc_spawn(ExtProc *p, const char *command, const char *dir)
{
    char cmd[TEXT_MAX];
    char *argv[ARGS_MAX + 1];
    snprintf(cmd, sizeof cmd, "%s", command);
    if (split_args(cmd, argv) == 0)
        return extproc_fail(p, "empty engine command");
    /* A dead engine's pipe must not kill the program. */
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
        return extproc_fail(p, "signal: %s", strerror(errno));
    int in[2], out[2];
    if (pipe(in) != 0)
        return extproc_fail(p, "pipe: %s", strerror(errno));
    if (pipe(out) != 0) {
        extproc_fail(p, "pipe: %s", strerror(errno));
        close(in[0]);
        close(in[1]);
        return false;
    }
    pid_t pid = fork();
    if (pid > 0)
        setpgid(pid, pid); /* also here, so that a stop right away finds the group */
    if (pid < 0) {
        extproc_fail(p, "fork: %s", strerror(errno));
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        return false;
    }
    if (pid == 0) {
        /* The child: only async-signal-safe calls until exec. A group of its own (so
         * that a stop kills what it starts), the pipes as stdin and stdout, stderr
         * kept, and every other descriptor closed. */
        if (setpgid(0, 0) != 0 || dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
            _exit(127);
        close_from(3);
#ifdef __linux__
        /* a program that dies without stopping it takes the engine with it */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
        if (dir[0] && chdir(dir) != 0)
            _exit(127);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    if (fcntl(in[1], F_SETFD, FD_CLOEXEC) != 0 || fcntl(out[0], F_SETFD, FD_CLOEXEC) != 0)
        extproc_fail(p, "fcntl: %s", strerror(errno)); /* harmless: a later child inherits it */
    p->pid = pid;
    p->to_fd = in[1];
    p->from_fd = out[0];
    p->len = 0;
    p->starts++;
    return true;
}
