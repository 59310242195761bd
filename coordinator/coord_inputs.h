/*
 * The inputs of a run and their hashes, so that a resumed run goes on with what it began
 * with: every built-in engine's weights file and the openings file (FNV-1a 64 of their
 * bytes), and each engine's settings as configured (its command, protocol, options,
 * directory, name, weights path and limits, hashed as text). The run file stores them
 * as text (runfile_inputs_set), one input a line:
 *
 *   KEY HASH WHAT      e.g. "--openings 3f2a...e1 /data/book.epd"
 *
 * KEY names the input as the user gives it (--openings, --weights-red, --weights-2,
 * engine-red, engine-2), HASH is 16 hex digits, WHAT the path or "settings".
 * On a resume a changed input is refused with one line naming it and both hashes,
 * unless the command line says --accept-changed-inputs.
 */
#ifndef CHUHE_COORD_INPUTS_H
#define CHUHE_COORD_INPUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "contracts/runfile.h"
#include "coord_config.h"
#include "strbuf.h"

/* FNV-1a 64 of a file's bytes (0 for path ""); false, with errno, when it cannot be read. */
bool coord_inputs_file_hash(const char *path, uint64_t *hash);

/* The inputs of the run c describes, as the text above, into out (initialised); only
 * the weights files with weights_only. */
bool coord_inputs_text(const CoordConfig *c, bool weights_only, StrBuf *out, CoordError *err);

/* Stores the inputs of the run c describes in rf (runfile_inputs_set). */
bool coord_inputs_store(const CoordConfig *c, RunFile *rf, CoordError *err);

/*
 * Holds the inputs of the resumed run rf, as c describes them now, against the stored
 * ones. True when they agree. True too, with note[size] set to a line to log, when one
 * changed and c->accept_changed_inputs is set (the new inputs are stored), or when the
 * file is from before inputs were stored (its weights files are then held against
 * /players' weights_hash, and the inputs are stored now). Else false, with one line
 * naming the first input that changed and its hashes then and now.
 */
bool coord_inputs_check(const CoordConfig *c, RunFile *rf, char *note, size_t size,
                        CoordError *err);

#endif
