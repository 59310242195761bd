/*
 * Crash-safe batches of the run file: every flush writes its rows inside a fence that a
 * kill at any moment cannot turn into a lost file or a lost flushed game, and a file
 * whose last batch was cut short gets its end of allocation back. runfence.c says how.
 */
#ifndef CHUHE_RUNFENCE_H
#define CHUHE_RUNFENCE_H

#include <stdbool.h>
#include <stdint.h>

#include <hdf5.h>

#include "runfile.h"

/* Opens a write section able to take `bytes` of new rows in the open file. On failure
 * *untouched (may be NULL) says whether the file is still as the last batch left it. */
bool runfence_begin(hid_t file, uint64_t bytes, bool *untouched, const char *path, RunError *err);
/* Flushes HDF5, cuts the file back to its end of allocation and syncs it: the batch is
 * durable. Also closes the creation of a new file. */
bool runfence_end(hid_t file, const char *path, RunError *err);
/* Moves the end of allocation of a closed file to its end, as `h5clear --increment=0`
 * does: over the data of an interrupted section (see runfence.c). */
bool runfence_recover_eoa(const char *path, RunError *err);

#endif
