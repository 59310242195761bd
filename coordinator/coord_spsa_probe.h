/*
 * Before an SPSA run starts: the parameter file checked against the engine it tunes.
 * The built-in engine's parameters are its search constants (spsa_params.h); an external
 * engine is started once through extengine/ and its handshake's options are read (UCI
 * and UCCI `option` lines, XBoard's `feature option=`), then it is stopped.
 */
#ifndef CHUHE_COORD_SPSA_PROBE_H
#define CHUHE_COORD_SPSA_PROBE_H

#include <stdbool.h>

#include "coord_config.h"
#include "coord_spsa.h"
#include "extengine/extengine.h"

/* The options of engine e of cfg, an external one; false with err when it does not
 * start or complete its handshake within 10 seconds. */
bool coord_spsa_probe_options(const CoordConfig *cfg, int e, ExtOptions *out, CoordError *err);

/* Every parameter of f is a numeric option of the engine (a spin with the parameter's
 * bounds inside its range, or a string), named as the engine names it; errors name
 * the file and the line. */
bool coord_spsa_probe_check(SpsaFile *f, const char *path, const ExtOptions *o, const char *engine,
                            CoordError *err);

/* The file at cfg's --spsa params= read and checked against engine 0: the built-in
 * engine's constants, or the options an external engine announces. */
bool coord_spsa_probe_file(const CoordConfig *cfg, SpsaFile *f, CoordError *err);

#endif
