/*
 * An engine subprocess and its line-based text: fork/exec with a pipe each way (no
 * shell), lines written whole, lines read with poll() before a deadline.
 *
 * The engine runs in a process group of its own and inherits no descriptor but its
 * stdin, stdout and stderr (not the program's sockets or files); stopping it kills the
 * whole group, so that the processes an engine starts do not outlive it (and hold no
 * pipe of the program's, such as mpirun's stderr, open). A line longer than
 * EXTPROC_LINE_MAX bytes is a protocol failure of the engine: the read fails with an
 * error that says so.
 *
 * While it waits for a line, a reader calls an idle hook at least every EXTPROC_IDLE_MS
 * (a worker keeps its coordinator link alive there), however long the engine thinks.
 * The fields are the module's own; callers use the functions.
 */
#ifndef CHUHE_EXTPROC_H
#define CHUHE_EXTPROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum {
    EXTPROC_LINE_MAX = 16384, /* with its newline; a longer line fails the read */
    EXTPROC_IDLE_MS = 100,
};

typedef enum { EXTPROC_LINE, EXTPROC_TIMEOUT, EXTPROC_EOF } ExtProcRead;

typedef void (*ExtIdleFn)(void *ctx);

typedef struct {
    pid_t pid; /* 0: not running */
    int to_fd, from_fd;
    char buf[EXTPROC_LINE_MAX];
    size_t len; /* bytes in buf not yet returned as lines */
    uint64_t starts;
    ExtIdleFn idle;
    void *idle_ctx;
    int64_t idle_at; /* time_now_ms() of the last idle call */
    char error[256]; /* the last failure; "" none */
} ExtProc;

/* A stopped process. */
void extproc_init(ExtProc *p);

/* Calls fn(ctx) while reads wait (fn NULL: none). */
void extproc_set_idle(ExtProc *p, ExtIdleFn fn, void *ctx);

/* Starts command (split on blanks) in dir ("" to stay); false with the error set. */
bool extproc_spawn(ExtProc *p, const char *command, const char *dir);

bool extproc_running(const ExtProc *p);

/* Ends the process: with polite, quit_line and up to half a second to exit, then
 * SIGKILL. Closes the pipes; a later spawn starts afresh. */
void extproc_stop(ExtProc *p, bool polite, const char *quit_line);

/* Writes one line (a newline is added); false with the error set. */
bool extproc_send(ExtProc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The next line (without its newline or carriage return) before deadline (ms of
 * time_now_ms()). EXTPROC_EOF with the error set when the engine closed its output or
 * sent a line longer than EXTPROC_LINE_MAX. */
ExtProcRead extproc_read_line(ExtProc *p, int64_t deadline, char *line, size_t size);

/* Sets the error text; returns false, so that a failing call can end with it. */
bool extproc_fail(ExtProc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
