/*
 * The schedule: which game pairs exist, which are done, which are out with a worker,
 * and the opening of each.
 *
 * A pair is one opening played twice with colours swapped; its id also picks its
 * engines (coord_tournament.h) and its opening (opening id of the openings file in the
 * file's or a seeded shuffled order, cycling, or random plies from a seed derived from
 * the run seed and the id), so neither has to be stored to be known again after a
 * restart. Pairs are handed out in id order, except that pairs put back
 * (a silent worker, a half-stored pair found on restart) go first. The target counts
 * complete pairs: new ids are handed out while complete + outstanding pairs fall short
 * of it.
 *
 *   UNISSUED --assign--> ASSIGNED --both games stored--> DONE
 *                          |   ^
 *                  release |   | assign
 *                          v   |
 *                         QUEUED      (DROPPED: given up after repeated rejections)
 */
#ifndef CHUHE_COORD_SCHED_H
#define CHUHE_COORD_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord_config.h"
#include "engine.h"
#include "opening.h"
#include "coord_tournament.h"

typedef enum { PAIR_UNISSUED, PAIR_QUEUED, PAIR_ASSIGNED, PAIR_DONE, PAIR_DROPPED } PairState;

enum {
    SCHED_MAX_REJECTS = 3,        /* rejected games before a pair is dropped */
    SCHED_ADOPT_WINDOW = 1 << 16, /* how far past the issued ids a game may adopt a pair */
};

typedef struct {
    uint8_t state;     /* PairState */
    uint8_t stored;    /* bit g: game g of the pair is in the run file */
    uint8_t rejects;   /* games of this pair refused so far */
    int32_t worker;    /* the assignee while PAIR_ASSIGNED, else -1 */
    uint32_t received; /* GAMEs the assignee sent for it since it was assigned */
    double assigned_at;
    Opening *opening; /* cached while the pair is not done */
} Pair;

typedef struct {
    Pair *pairs; /* indexed by pair id, cap entries */
    size_t cap;
    uint64_t next_new; /* no id at or above it was handed out, except adopted ones */
    uint64_t target;   /* complete pairs wanted */
    uint64_t complete;
    uint64_t outstanding; /* queued + assigned */
    uint64_t requeued;    /* releases of unfinished pairs */
    uint64_t dropped;
    bool stopped;         /* an early stop (SPRT): no pair is handed out any more */
    uint64_t issue_below; /* no new id at or above it is handed out (SPSA's window) */
    uint64_t *queue;      /* ring of QUEUED ids, possibly stale */
    size_t qhead, qlen, qcap;
    /* engines */
    int engines;
    TourKind kind;
    /* openings */
    OpeningList list; /* from --openings; empty for random openings */
    uint32_t *order;  /* list order for order=random (a seeded shuffle); NULL: file order */
    uint64_t first;   /* the opening (in that order) of pair 0 */
    bool per_round;   /* --opening-policy round: the opening of pair id is id / pairings */
    RandomOpeningSpec spec;
    Engine *engine; /* for the random openings' score bound; NULL without one */
    uint64_t seed;
} Schedule;

typedef struct {
    char msg[COORD_PATH_MAX + 256];
} SchedError;

/* Loads the openings and sets the engines and the target from cfg. A bad opening file
 * (unreadable, or any line or game that is not a playable opening) is an error: err
 * names the first bad line ("path:line: reason") or game ("path: game N ..."). */
bool coord_sched_init(Schedule *s, const CoordConfig *cfg, SchedError *err);
void coord_sched_free(Schedule *s);

/* Pairs wanted for a number of games: whole pairs, rounded up. */
uint64_t coord_sched_pairs_for_games(uint64_t games);

/* Restoring from the run file: mark each stored game, then coord_sched_restore_end with the
 * file's next pair id queues every lower pair that is not complete. */
void coord_sched_restore_game(Schedule *s, uint64_t pair_id, unsigned game_in_pair);
void coord_sched_restore_end(Schedule *s, uint64_t next_pair_id);

/* The engines of pair id: first has Red in game 0 and Black in game 1. */
void coord_sched_pair_engines(const Schedule *s, uint64_t id, int *first, int *second);

/* Pairings in one cycle (rounds of the tournament). */
uint64_t coord_sched_pairings(const Schedule *s);

/* The pair for id; NULL if it was never handed out. */
Pair *coord_sched_pair(Schedule *s, uint64_t id);

/* Hands the next pair to worker; false when none is available now. */
bool coord_sched_assign_next(Schedule *s, int worker, double now, uint64_t *id);

/* Re-hands an assigned pair to the same worker (a repeated request). */
void coord_sched_reassign(Schedule *s, uint64_t id, int worker, double now);

/* Whether a game for a never-issued pair id may be taken (a worker's result from before
 * a coordinator restart), and taking it: the pair becomes assigned to worker. */
bool coord_sched_can_adopt(const Schedule *s, uint64_t id);
void coord_sched_adopt(Schedule *s, uint64_t id, int worker, double now);

/* Puts an unfinished assigned pair back in the queue, in front. */
void coord_sched_release(Schedule *s, uint64_t id);

/* Releases every pair assigned to worker (a scan of all pairs: for a dead worker, which
 * may hold an adopted pair besides its current one); returns how many. */
int coord_sched_release_worker(Schedule *s, int worker);

/* A game of the pair is stored; true when that completes the pair. */
bool coord_sched_game_stored(Schedule *s, uint64_t id, unsigned game_in_pair);

/* A game counted by coord_sched_game_stored was not written after all (the run file could not
 * take it): the pair is no longer complete, and goes back in the queue if it was. */
void coord_sched_game_lost(Schedule *s, uint64_t id, unsigned game_in_pair);

/* A game of the pair was refused; true when the pair is dropped for good. */
bool coord_sched_game_rejected(Schedule *s, uint64_t id);

/* The pair's opening (generated when not cached); NULL with err set if none could be
 * made, in which case the caller drops the pair with coord_sched_drop. */
const Opening *coord_sched_opening(Schedule *s, uint64_t id, SchedError *err);
void coord_sched_drop(Schedule *s, uint64_t id);

bool coord_sched_finished(const Schedule *s);

/* Stops the run early (an SPRT decision): no new or queued pair is handed out; the run
 * is finished once no pair is assigned, so every worker finishes its current games. */
void coord_sched_stop(Schedule *s);

#endif
