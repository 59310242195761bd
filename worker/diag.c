#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

static char prefix[128] = "chuhe-worker";
static bool be_quiet = false;

void diag_init(int rank, const char *host, bool quiet)
{
    snprintf(prefix, sizeof prefix, "chuhe-worker[%d@%s]", rank, host);
    be_quiet = quiet;
}

static void vline(const char *fmt, va_list ap)
{
    char text[1024];
    vsnprintf(text, sizeof text, fmt, ap);
    /* one write per line, so that ranks sharing a terminal do not interleave mid-line */
    fprintf(stderr, "%s: %s\n", prefix, text);
    fflush(stderr);
}

void diag_info(const char *fmt, ...)
{
    if (be_quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vline(fmt, ap);
    va_end(ap);
}

void diag_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(fmt, ap);
    va_end(ap);
}

void diag_fatal_at(const char *file, int line, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: fatal: %s:%d: %s\n", prefix, file, line, text);
    fflush(stderr);
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

void diag_mpi_check(int rc, const char *what, const char *file, int line)
{
    if (rc == MPI_SUCCESS)
        return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "error %d", rc);
    diag_fatal_at(file, line, "%s: %s", what, msg);
}
