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

/* The file at cfg's --spsa params= read and checked against engine 0: the built-in
 * engine's constants, or the options an external engine announces. Every parameter
 * must be a numeric option of the engine (a spin with the parameter's bounds inside its
 * range, or a string), and takes the engine's spelling of its name; errors name the
 * file and the line, or the engine that did not start or complete its handshake within
 * 10 seconds. */
bool coord_spsa_probe_file(const CoordConfig *cfg, SpsaFile *f, CoordError *err);

#endif
