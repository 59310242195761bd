/*
 * Opening an existing run file: it is validated read-only (attributes, member types and
 * shapes, reason names, every player and game row, the last position) and its players
 * and game index are loaded before it is reopened for writing, so nothing is written to
 * a file that is refused. The rows of an interrupted flush are ignored when reading and
 * dropped when appending; runfile_recovery_note() then says so.
 *
 * A file that fails validation while holding bytes past its end of allocation ends in
 * an interrupted write section whose metadata got to the disk before the superblock's
 * new EOA did (HDF5 writes the superblock last): opening for append moves the EOA to
 * the end of the file, over data that the fence wrote before any metadata
 * (runfence.c), and validates again.
 */
#ifndef CHUHE_RUNLOAD_H
#define CHUHE_RUNLOAD_H

#include <stdbool.h>

#include "runfile.h"

/* runfile_open_read (writable false) and runfile_open_append (true). */
RunFile *runload_open(const char *path, bool writable, RunError *err);

#endif
