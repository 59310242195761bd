/*
 * The worker's messages: one line on stderr per event, prefixed with the program, the
 * rank and the host, and the fatal path that names file and line and aborts the MPI
 * job (the other ranks could not finish the collective summary without this one).
 */
#ifndef CHUHE_DIAG_H
#define CHUHE_DIAG_H

#include <stdbool.h>

/* Sets the prefix of every line ("chuhe-worker[3@node7]") and whether to be quiet. */
void diag_init(int rank, const char *host, bool quiet);

/* An informational line (suppressed by quiet). */
void diag_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A warning or error line (always shown). */
void diag_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reports "file:line: message" and calls MPI_Abort. */
#define WORKER_FATAL(...) diag_fatal_at(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void diag_fatal_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Checks the result of an MPI call; a failure is fatal with the call's text. */
#define WORKER_MPI(call) diag_mpi_check((call), #call, __FILE__, __LINE__)
void diag_mpi_check(int rc, const char *what, const char *file, int line);

#endif
