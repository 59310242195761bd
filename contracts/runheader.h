/*
 * A check of an object header (the root group's, a table's) in the file's own bytes,
 * before HDF5 reads it: libhdf5 1.10 divides by the chunk dimensions of a chunked layout
 * message while it opens a dataset (H5D__chunk_set_info), so a damaged dimension of 0
 * stops the process with SIGFPE inside H5Dopen; and it decodes an attribute's name, type
 * and dataspace with the sizes the attribute message gives, past the message (SIGSEGV in
 * H5Aexists). Both come before any check of the run file can see them.
 *
 * Version 1 object headers (those HDF5 writes by default, and so the run file) are read
 * message by message, their continuation blocks too: in each layout message (versions 1
 * to 4) of a chunked dataset the chunk dimensions must be within the message, one more
 * than the dataset's rank (the last one is the size of an element) and all above 0; each
 * attribute
 * message (versions 1 to 3) must hold the parts it announces. A header that does not
 * parse (another version, a size past the end of the file) is left to HDF5 and to the
 * checks after opening, which refuse damage that does not crash the library.
 */
#ifndef CHUHE_RUNHEADER_H
#define CHUHE_RUNHEADER_H

#include <stdbool.h>

#include <hdf5.h>

#include "runfile.h"

/* Whether the object header of name (an absolute path) in file, read from the file at
 * path, shows none of that damage; false with err set ("PATH: NAME: ... (damaged)") when
 * it does. */
bool runheader_check(hid_t file, const char *name, const char *path, RunError *err);

#endif
