/*
 * Before an SPSA run starts: the parameter file checked against the engine it tunes.
 * The built-in engine's parameters are its search constants (spsa_params.h); an external
 * engine is started once (worker/extproc.h) and asked for its options: `uci` (uci,
 * uci1), `ucci`, or XBoard's `protover 2` features, then stopped.
 */
#ifndef CHUHE_COORD_SPSA_PROBE_H
#define CHUHE_COORD_SPSA_PROBE_H

#include <stdbool.h>

#include "coord_config.h"
#include "coord_spsa.h"

enum { SPSA_PROBE_OPTIONS_MAX = 512 };

/* One option an engine announced. A spin (XBoard: spin or slider) has its range. */
typedef struct {
    char name[64];
    char type[16]; /* spin, check, combo, button, string, ...; XBoard's without the dash */
    bool ranged;
    double min, max;
} SpsaOption;

typedef struct {
    SpsaOption opt[SPSA_PROBE_OPTIONS_MAX];
    int n;
} SpsaOptions;

/* The options of engine e of cfg, an external one; false with err when it does not
 * start or answer within 10 seconds. */
bool coord_spsa_probe_options(const CoordConfig *cfg, int e, SpsaOptions *out, CoordError *err);

/* Every parameter of f is a numeric option of the engine (a spin with the parameter's
 * bounds inside its range, or a string), named as the engine names it; errors name
 * the file and the line. */
bool coord_spsa_probe_check(SpsaFile *f, const char *path, const SpsaOptions *o, const char *engine,
                      CoordError *err);

/* The file at cfg's --spsa params= read and checked against engine 0: the built-in
 * engine's constants, or the options an external engine announces. */
bool coord_spsa_probe_file(const CoordConfig *cfg, SpsaFile *f, CoordError *err);

#endif
