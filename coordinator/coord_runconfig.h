/*
 * The run settings as the run file stores them (its run_config attribute): one flat
 * JSON object, the format name first, then every run setting of the option table
 * (coord_options) under its JSON key, integers as numbers and text as strings:
 *
 *   {"format":"chuhe-coordinator run config 1","games":1000,"nodes":10000,...}
 *
 * Engines beyond the run's count are left out. A restarted coordinator reads the object
 * back and holds the command line against it: a run setting given again must have its
 * stored value, except --games, which may change. Unknown keys are an error, so that a
 * file from a newer coordinator is not silently resumed with settings missing.
 */
#ifndef CHUHE_COORD_RUNCONFIG_H
#define CHUHE_COORD_RUNCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "coord_config.h"

/* The run settings of c as the JSON object; false if buf is too small. */
bool coord_runconfig_write(const CoordConfig *c, char *buf, size_t size);

/* Sets the run settings in c from the JSON object text (the others are left alone). */
bool coord_runconfig_read(CoordConfig *c, const char *text, CoordError *err);

/* Holds the command line's run settings (cmd, given) against the stored ones (stored,
 * which takes the resumable ones of cmd); on success c gets the run settings of stored
 * and keeps its session settings. */
bool coord_runconfig_merge(CoordConfig *c, const CoordGiven *given, const CoordConfig *cmd,
                           CoordConfig *stored, CoordError *err);

#endif
