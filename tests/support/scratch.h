/*
 * A scratch directory for a group of tests: /tmp/chuhe-NAME-XXXXXX, made by the group
 * setup, file paths inside it, and removed with its files by the group teardown.
 */
#ifndef CHUHE_TESTS_SCRATCH_H
#define CHUHE_TESTS_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>

/* Makes the directory; 0, or -1 (a cmocka setup's result). */
int scratch_create(const char *name);

/* The directory. */
const char *scratch_dir(void);

/* The path of a file in it; the text stays valid for the next three calls. */
const char *scratch_path(const char *file);

/* The whole of a file (any file, in the directory or not) in a new buffer with a NUL
 * after it, its length in *len; NULL when it cannot be read. */
unsigned char *scratch_slurp(const char *path, size_t *len);

/* Writes len bytes to path, replacing it; false on failure. */
bool scratch_spit(const char *path, const unsigned char *buf, size_t len);

/* Removes the files in it and the directory; 0, or -1. */
int scratch_remove(void);

#endif
