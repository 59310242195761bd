/*
 * Output paths, checked before any work starts (a contract of every program: none
 * writes over a run file). It prints nothing: errors come back as text.
 *
 * Every chuhe program that writes a file asks outpath_check first, with the files it
 * reads in the same command, so that a mistyped option costs nothing: no program writes
 * over an HDF5 run file or over one of its own inputs, whatever option names it, and an
 * existing file is replaced only when the user said --force (a PGN is appended to, as
 * cutechess-cli does, and a log is appended to, but only if it is a PGN or a text file).
 */
#ifndef CHUHE_OUTPATH_H
#define CHUHE_OUTPATH_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    OUTPATH_REPLACE,    /* written whole (weights, TSV, PNG): an existing file needs force */
    OUTPATH_APPEND_PGN, /* games appended: an existing file must be PGN text (or empty) */
    OUTPATH_APPEND_LOG, /* lines appended: an existing file must be text (or empty) */
} OutpathMode;

/*
 * Whether path may be written. False, with one line in msg[size] that starts with
 * option (e.g. "-o") and says what is wrong and what is allowed, when path is empty,
 * names a folder, lies in a folder that does not exist or cannot be written, is a
 * dangling link, is an existing HDF5 file, is the same file as one of inputs[0..n-1]
 * (NULL or empty entries are skipped; a path that does not exist yet is compared by its
 * resolved folder and name), or exists and may not be written in this mode.
 */
bool outpath_check(const char *option, const char *path, OutpathMode mode, bool force,
                   const char *const *inputs, int ninputs, char *msg, size_t size);

/* Whether a and b name the same file (an existing one by device and inode, otherwise by
 * resolved folder and name). */
bool outpath_same(const char *a, const char *b);

/* Whether the file at path begins with the HDF5 signature (a run file). */
bool outpath_is_hdf5(const char *path);

/* A program's exit status once its standard output is flushed and closed: status, or 1
 * when writing it failed (a full disk, a closed pipe), with "writing the standard output
 * failed: REASON" in msg[size] ("" when it did not fail), which the program says on
 * stderr in its own way. Called last, by every program. */
int outpath_finish_stdout(int status, char *msg, size_t size);

#endif
