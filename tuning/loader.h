/*
 * From run files to the training and validation sets.
 *
 * Sharding: the positions of all files, one after the other, are split into as many
 * equal row ranges as there are ranks, and a game belongs to the rank whose range holds
 * its first position. Each rank reads only its games' rows, with hyperslab reads, and a
 * game is never split between ranks.
 *
 * Selection, in this order, with every random choice a hash of the seed and the
 * position's place in the files (loader.c: place_of), so it is the same on any number of ranks:
 *   1. drop positions before ply skip_plies, forced opening moves (their score is not a
 *      search score), positions in check (unless keep_in_check), |score| > max_score
 *      (0: no limit, as in the coordinator's export), and, without qresolve or
 *      keep_captures, positions whose played or best move captures;
 *   2. keep at most per_game of what is left of each game (a seeded sample);
 *   3. with qresolve, play the quiescence PV (qresolve.h) and use the quiet end position;
 *   4. hand each position to the store (LoadSink): the tuner's traces it into its
 *      coefficients;
 *   5. drop repeated positions (same Zobrist key) over all files and ranks, keeping the
 *      first in file order;
 *   6. whole openings go to the validation set with probability valid_frac: every game
 *      from the position of its first searched move (or, without opening moves, every
 *      game of its pair) is on the same side, so the games of an opening, whose early
 *      positions are shared, never feed both sides, and a position repeated within the
 *      games of one opening is removed from that opening's side.
 * Sampling happens before de-duplication so that memory follows what is kept, not what
 * is read: a game can therefore give fewer than per_game positions.
 *
 * Every row is checked against its game (game id, ply, result, move squares) and every
 * board is validated as it is unpacked: a damaged file stops the load with its name and
 * row. The first `check` positions (spread over the ranks) are evaluated by the engine
 * and compared with their stored coefficients (trace_check); any disagreement stops the
 * load before optimisation starts.
 */
#ifndef CHUHE_LOADER_H
#define CHUHE_LOADER_H

#include <stdbool.h>
#include <stdint.h>

#include "comm.h"
#include "dataset.h"
#include "eval_terms.h"
#include "position.h"

typedef struct {
    int skip_plies;
    int max_score; /* 0: no limit */
    int per_game;  /* 0: every selected position */
    bool qresolve;
    bool dedup;
    double valid_frac;
    uint64_t seed;
    uint64_t check; /* positions compared with evaluate(), over all ranks */
    const EvalParams *params;
    bool keep_in_check, keep_captures; /* step 1 keeps these */
} LoadOptions;

void load_options_default(LoadOptions *o);

/* Counts over all ranks. */
typedef struct {
    uint64_t files, games, rows;
    uint64_t early, opening, in_check, capture, big_score;
    uint64_t eligible, sampled, duplicates;
    uint64_t valid_duplicates;         /* of the duplicates, those the validation set lost */
    uint64_t resolved, resolved_plies; /* positions qresolve moved, and the plies played */
    uint64_t checked;
    uint64_t train, valid, entries;
} LoadStats;

enum { LOAD_STATS_NB = sizeof(LoadStats) / sizeof(uint64_t) };

typedef struct {
    char msg[640];
} LoadError;

/*
 * Loads this rank's shard of the files into train and valid (empty on entry), traced into
 * coefficients (params) and checked against evaluate() (check). A collective: every rank
 * calls it with the same files and options. On failure every rank returns false with the
 * first failing rank's message in err.
 */
bool load_runfiles(Comm *comm, const char *const *paths, int npaths, const LoadOptions *opt,
                   Dataset *train, Dataset *valid, LoadStats *stats, LoadError *err);

/*
 * Where the selected positions go. add stores pos (after qresolve) in set 0 (training)
 * or 1 (validation), with the search score and the result (-1, 0, 1) from Red's view and
 * its uid (a hash of its place in the files); false with the reason in err->msg (the
 * loader adds the file and row). filter keeps a set's positions whose keep[i] is
 * nonzero, in the order added, and gives back unused memory; finish (may be NULL) adds
 * the store's own counts (checked, entries) to st before the counts of all ranks are
 * summed.
 */
typedef struct {
    void *ctx;
    bool (*add)(void *ctx, int set, const Position *pos, int score, int result, uint32_t uid,
                LoadError *err);
    void (*filter)(void *ctx, int set, const uint8_t *keep);
    void (*finish)(void *ctx, LoadStats *st);
} LoadSink;

/* load_runfiles into any store: the same selection, shards and de-duplication. */
bool load_runfiles_into(Comm *comm, const char *const *paths, int npaths, const LoadOptions *opt,
                        const LoadSink *sink, LoadStats *stats, LoadError *err);

/*
 * Step 5 on its own: keeps, of the positions with equal keys over all ranks, the one
 * with the smallest place; keep[i] gets 1 or 0 for each of this rank's n positions.
 */
bool load_dedup(Comm *comm, const uint64_t *keys, const uint64_t *places, uint64_t n,
                uint8_t *keep);

#endif
