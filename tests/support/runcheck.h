/*
 * What a reader does with a run file, for the harnesses that feed the reader damaged
 * files (tests/fuzz/runfile.c, tests/fuzz/runmeta.c): every player, game and position of
 * a file it accepted read and held against the file's own index, each game replayed, the
 * file verified; a refusal on the way must be one line that names the file.
 */
#ifndef CHUHE_TESTS_RUNCHECK_H
#define CHUHE_TESTS_RUNCHECK_H

#include <stdbool.h>

#include "contracts/runfile.h"

/* Whether err is one line that starts with path. */
bool runcheck_message(const RunError *err, const char *path);

/* Reads everything of rf (opened from path); NULL when every read held, else what went
 * wrong. *verified: whether runfile_verify accepted the file. scratch: a record to read
 * games into (large: not on the stack). */
const char *runcheck_read_all(RunFile *rf, const char *path, GameRecord *scratch, bool *verified);

#endif
