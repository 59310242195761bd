/*
 * The coordinator's log: timestamped lines on stderr, the gate that keeps repeated lines
 * (refused connections, dropped messages) from flooding it, and the live progress line
 * that log lines must not tear. On a terminal the progress line is redrawn in place; log
 * lines clear it first and it comes back at the next redraw.
 */
#ifndef CHUHE_COORD_LOG_H
#define CHUHE_COORD_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "coord_rate.h"

/* One line "YYYY-MM-DD HH:MM:SS message" on stderr. */
void coord_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Shows the progress text: redrawn in place on a terminal, else one line. */
void coord_log_progress(const char *text);

/* Ends a progress line left on a terminal, so that what follows starts a new line. */
void coord_log_progress_end(void);

/* Logs "file:line: message" and exits with status 2. For failures the coordinator
 * cannot carry on from (the ZeroMQ socket, out of memory). */
#define COORD_FATAL(...) coord_fatal_at(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void coord_fatal_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Log lines of one kind: at most 10 at once, then one a second, with a count of the lines
 * held back. */
typedef struct {
    CoordRate bucket;
    bool ready;
    uint64_t held_back;
} CoordLogGate;

/* Whether to write a line now; *held_back gets the lines held back since the last one
 * written (to be mentioned in this one). */
bool coord_log_gate(CoordLogGate *g, double now, uint64_t *held_back);

/* True, with their count, when lines were held back and one line may say so now. */
bool coord_log_gate_flush(CoordLogGate *g, double now, uint64_t *held_back);

#endif
