/*
 * The set-up the tuner's tests share: a scratch folder and the traced positions of
 * random games (synth_positions, seed 17, the built-in weights, K = 1/170). Header-only:
 * the support sources are linked into every test, and only the tuner's tests link the
 * tuner's library.
 */
#ifndef CHUHE_TUNE_FIXTURE_H
#define CHUHE_TUNE_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "position.h"
#include "tuning/dataset.h"
#include "tuning/synth.h"
#include "weights.h"

/* Makes the folder /tmp/chuhe-NAME-XXXXXX in dir[size] and n positions in *synth. */
static inline bool tune_fixture_setup(char *dir, size_t size, const char *name, Dataset *synth,
                                      int n)
{
    snprintf(dir, size, "/tmp/chuhe-%s-XXXXXX", name);
    if (!mkdtemp(dir))
        return false;
    position_init();
    dataset_init(synth);
    if (!synth_positions(synth, n, 17, weights_default(), 1 / 170.0))
        return false;
    dataset_trim(synth);
    return true;
}

/* Frees *synth and removes the folder and what the tests wrote in it. */
static inline bool tune_fixture_teardown(const char *dir, Dataset *synth)
{
    dataset_free(synth);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0;
}

#endif
