#include "coord_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int tty = -1;       /* -1: not decided yet */
static bool shown = false; /* a progress line is on the terminal */

/* Whether stderr is a terminal (decided once, at the first call). */
static bool coord_log_tty(void)
{
    if (tty < 0)
        tty = isatty(STDERR_FILENO) ? 1 : 0;
    return tty == 1;
}

static void clear_progress(void)
{
    if (shown) {
        fputs("\r\033[K", stderr);
        shown = false;
    }
}

static void vlog(const char *prefix, const char *fmt, va_list ap)
{
    char stamp[32] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm))
        strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
    coord_log_tty();
    clear_progress();
    fprintf(stderr, "%s %s", stamp, prefix);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
}

void coord_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog("", fmt, ap);
    va_end(ap);
}

void coord_log_progress(const char *text)
{
    if (coord_log_tty()) {
        fprintf(stderr, "\r\033[K%s", text);
        shown = true;
    } else {
        fprintf(stderr, "%s\n", text);
    }
    fflush(stderr);
}

void coord_log_progress_end(void)
{
    if (shown) {
        fputc('\n', stderr);
        fflush(stderr);
        shown = false;
    }
}

void coord_fatal_at(const char *file, int line, const char *fmt, ...)
{
    char prefix[256];
    snprintf(prefix, sizeof prefix, "fatal: %s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    vlog(prefix, fmt, ap);
    va_end(ap);
    exit(2);
}

bool coord_log_gate(CoordLogGate *g, double now, uint64_t *held_back)
{
    if (!g->ready) {
        coord_rate_init(&g->bucket, 1, 10, now);
        g->ready = true;
    }
    if (!coord_rate_take(&g->bucket, now)) {
        g->held_back++;
        return false;
    }
    *held_back = g->held_back;
    g->held_back = 0;
    return true;
}

bool coord_log_gate_flush(CoordLogGate *g, double now, uint64_t *held_back)
{
    if (!g->ready || !g->held_back || !coord_rate_take(&g->bucket, now))
        return false;
    *held_back = g->held_back;
    g->held_back = 0;
    return true;
}
