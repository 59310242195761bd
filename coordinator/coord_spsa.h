/*
 * SPSA as fishtest runs it: one engine plays against itself, theta + c_k delta (engine
 * 0, "plus") against theta - c_k delta (engine 1, "minus"), one pair per iteration, and
 * theta moves by the pair's result.
 *
 * The gains, for N pairs (iterations k = 0 .. N-1), each parameter's c_end and r_end
 * (its perturbation and learning rate at the end), A, alpha and gamma:
 *     a_end = r_end c_end^2,   c = c_end N^gamma,   a = a_end (A + N)^alpha,
 *     c_k = c / (k + 1)^gamma,   a_k = a / (A + k + 1)^alpha,
 *     theta += a_k / c_k * result * delta,   clamped to [min, max],
 * where result is the points of plus minus the points of minus over the pair (-2..2)
 * and delta is +1 or -1 per parameter, drawn from the run seed and the pair id. The
 * values played are theta +- c_k delta clamped to the bounds, rounded for an "int"
 * parameter.
 *
 * Reproducibility with many pairs in flight: pair k is played with theta after the
 * updates of pairs 0 .. k-W-1 (theta_{k-W}; theta_0 for k < W), W the window of the
 * run, and updates are applied strictly in pair-id order whatever order pairs finish
 * in. The coordinator hands out pair k only once those updates are durable in the run
 * file, so the values of every pair follow from the seed, W and the results of earlier
 * pairs, never from timing, and a restart rebuilds everything from the run file.
 */
#ifndef CHUHE_COORD_SPSA_H
#define CHUHE_COORD_SPSA_H

#include <stdbool.h>
#include <stdint.h>

#include "coord_config.h"
#include "contracts/protocol.h"
#include "contracts/runfile.h"

enum {
    SPSA_MAX_PARAMS = RUNFILE_SPSA_MAX,
    SPSA_DEFAULT_WINDOW = 16,
};
_Static_assert((int)SPSA_MAX_PARAMS <= (int)PROTO_TUNED_MAX, "a WORK carries every parameter");

#define SPSA_DEFAULT_ALPHA 0.602
#define SPSA_DEFAULT_GAMMA 0.101

/*
 * The run setting --spsa, "params=FILE [pairs=N] [A=X] [alpha=X] [gamma=X] [window=W]".
 * A new run completes it (pairs from the game target, A as 10 % of the pairs) and stores
 * it whole, so that a restart computes the same gains.
 */
typedef struct {
    char params[COORD_PATH_MAX];
    uint64_t pairs; /* 0: not set yet */
    double A;       /* < 0: not set yet */
    double alpha, gamma;
    uint64_t window;
} SpsaSettings;

bool coord_spsa_settings_parse(const char *text, SpsaSettings *s, CoordError *err);
/* The settings as --spsa text; false if buf is too small. */
bool coord_spsa_settings_text(const SpsaSettings *s, char *buf, size_t size);

/* A new run's --spsa completed (pairs from the game target, or the game target from
 * pairs; A) and rewritten whole. */
bool coord_spsa_finish_config(CoordConfig *c, CoordError *err);
/* The SPSA checks of the run settings (coord_config): two engines, engine 1 the same as
 * engine 0, no SPRT, the game target two games a pair. */
bool coord_spsa_check_config(const CoordConfig *c, CoordError *err);

/* A parameter file: fishtest's SPSA input, one parameter a line,
 *     name, int|float, value, min, max, c_end, r_end      (as `chuhe-engine spsa-params`)
 *     name, value, min, max, c_end, r_end                 (int when value, min and max are)
 * with blank lines and '#' comments. line[i] is the file line of parameter i. */
typedef struct {
    RunSpsaParam param[SPSA_MAX_PARAMS];
    int line[SPSA_MAX_PARAMS];
    int n;
} SpsaFile;

/* Errors name the file and the line. */
bool coord_spsa_file_read(const char *path, SpsaFile *f, CoordError *err);
/* Every parameter is an integer search constant of the built-in engine, within its
 * range (spsa_params.h); names take the engine's spelling. */
bool coord_spsa_file_check_builtin(SpsaFile *f, const char *path, CoordError *err);

/* A run's SPSA state: its parameters and gains, and theta after each applied update. */
typedef struct Spsa {
    SpsaSettings set;
    uint64_t seed;
    int n;
    RunSpsaParam param[SPSA_MAX_PARAMS];
    double c[SPSA_MAX_PARAMS], a[SPSA_MAX_PARAMS];
    double *theta; /* theta[j * n + i]: parameter i after j updates, j = 0 .. applied */
    size_t theta_cap;
    uint64_t applied;     /* updates applied: pairs 0 .. applied - 1 */
    uint16_t plus_player; /* the run file's player id of engine 0 */
} Spsa;

/* theta_0 = the start values. False when out of memory. */
bool coord_spsa_init(Spsa *s, const SpsaSettings *set, uint64_t seed, const RunSpsaParam *params,
                     int n, uint16_t plus_player);
void coord_spsa_free(Spsa *s);

/* theta after j updates (j <= applied). */
const double *coord_spsa_theta(const Spsa *s, uint64_t j);

/* Parameter i's perturbation for a pair: +1 or -1. */
int coord_spsa_delta(const Spsa *s, uint64_t pair, int i);

/* The values the pair's plus and minus players get (pair <= applied + window). */
void coord_spsa_values(const Spsa *s, uint64_t pair, double *plus, double *minus);

/* New pair ids below this may be handed out, durable the updates in the run file. */
uint64_t coord_spsa_issue_below(const Spsa *s, const RunFile *rf);

/* The WORK player of engine 0 (plus) or 1 (minus) of the pair gets its values. */
void coord_spsa_fill_player(const Spsa *s, uint64_t pair, int engine, ProtoPlayer *p);

/* Applies every update whose pair and predecessors are complete in the run file, in
 * pair order, and buffers its /spsa row. False with err when the run file refuses one. */
bool coord_spsa_catch_up(Spsa *s, RunFile *rf, CoordError *err);

/* A restarted run: replays the stored rows, each checked against its recomputation
 * from the seed, the settings and its pair's games, then catches up. */
bool coord_spsa_restore(Spsa *s, RunFile *rf, CoordError *err);

/* A run file's history without the gains, for reports: theta_0 from /spsa_params and
 * theta after each stored row. */
bool coord_spsa_load_history(Spsa *s, RunFile *rf, CoordError *err);

#endif
