/*
 * Turning a WORK message into games: the two in-process engines of a rank (one per
 * player, kept across pairs; weights and hash size changed only when a WORK asks for
 * others), its external engines (a pool, kept across pairs: extpool.h), the opening and
 * the game settings.
 */
#ifndef CHUHE_WORKER_PLAY_H
#define CHUHE_WORKER_PLAY_H

#include <stdbool.h>
#include <stddef.h>

#include "extengine/extpool.h"
#include "game.h"
#include "contracts/protocol.h"

/*
 * Twins: both players of a WORK are the built-in engine with the same weights, hash and
 * limits, and the limit is a node count. Such a search is a function of the position,
 * so the second game of the pair would repeat the first move for move (the colours swap
 * between two equal players). Twins therefore search a node count drawn afresh for
 * every move, uniform within +-PLAY_JITTER_PERCENT of the limit (the mean is the
 * limit), from a stream seeded by the pair, the game and the attempt: the games differ,
 * and replaying one with the same seed gives the same game. The worker plays a game
 * again with the next attempt's stream when it still repeats the pair's first one.
 */
enum { PLAY_JITTER_PERCENT = 25, PLAY_TWIN_ATTEMPTS = 8 };

typedef struct {
    Engine *engine;
    uint64_t seed; /* of the game's node counts */
} PlayTwin;

/* Per player of a WORK: the in-process engine, kept across pairs, or the external
 * engine that the pool lends it for the WORK. */
typedef struct {
    Engine *engine[2];
    char weights[2][PROTO_WEIGHTS_MAX + 1]; /* what engine[p] has loaded; "" built-in */
    ExtPool pool;
    ExtEngine *ext[2]; /* the pool's, for the last WORK prepared; NULL: not external */
    bool twins;        /* the players of the last WORK prepared are twins */
    PlayTwin twin[2];
    int first_plies; /* the pair's first game, for play_repeats */
    Move first[RECORD_MAX_PLIES];
} PlayEngines;

void play_engines_init(PlayEngines *pe);
/* fn(ctx) runs at least every EXTPROC_IDLE_MS while an external engine thinks, starts or
 * gets ready, so the caller can keep its coordinator link alive. */
void play_engines_set_idle(PlayEngines *pe, ExtIdleFn fn, void *ctx);
void play_engines_free(PlayEngines *pe);

/*
 * Readies both players of a WORK: engines with the requested hash size and weights,
 * and their search limits. players[0] plays Red in game 0. False with the reason in
 * err (a weights file that does not load here, an engine that does not start, a node
 * limit for an XBoard engine, out of memory).
 */
bool play_prepare(PlayEngines *pe, const ProtoWork *w, GamePlayer players[2], char *err,
                  size_t size);

/* Twins only: seeds the node counts of the next game (game 0 or 1 of pair_id, the
 * attempt-th try); the first game of a pair is remembered for play_repeats. */
void play_twin_game(PlayEngines *pe, uint64_t pair_id, int game, int attempt);
void play_remember_first(PlayEngines *pe, const GameRecord *rec);
/* Whether rec plays the same moves as the pair's first game. */
bool play_repeats(const PlayEngines *pe, const GameRecord *rec);

/* What the external engine of player p in the last WORK prepared answered last, for a
 * log line: "'TEXT'" or "no move" (an in-process engine: "no legal move"). */
void play_last_move(const PlayEngines *pe, int p, char *buf, size_t size);

/* The WORK's opening and adjudication settings in the game loop's terms. */
void play_opening(const ProtoWork *w, Opening *op);
void play_settings(const ProtoWork *w, GameSettings *s);

#endif
