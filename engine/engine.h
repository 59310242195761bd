/*
 * The engine facade: what the UCI front end, the worker and the tuner call. One
 * Engine holds one game (position and history), a transposition table, weights and
 * search state; several can live in one process.
 */
#ifndef CHUHE_ENGINE_H
#define CHUHE_ENGINE_H

#include "evaluate.h"
#include "nnue.h"
#include "perft.h"
#include "position.h"
#include "search.h"
#include "weights.h"

typedef struct Engine Engine;

enum { ENGINE_HASH_DEFAULT_MB = 16, ENGINE_HASH_MAX_MB = 65536 };

/* Initialises the global tables (idempotent) and returns a new engine at the start
 * position with the built-in weights and a default-size hash, or NULL when out of
 * memory. */
Engine *engine_new(void);
void engine_free(Engine **e);

/* Forgets everything learnt in the previous game: hash and histories. */
void engine_new_game(Engine *e);

/*
 * Sets the position from a FEN (NULL for the start position) and plays the moves
 * (coordinate text). On any error the engine keeps its previous position, err says
 * what and where, and false is returned.
 */
bool engine_set_position(Engine *e, const char *fen, const char *const *moves, int nmoves,
                         PosError *err);
const Position *engine_position(const Engine *e);

/* Searches the current position with every thread (engine_set_threads); blocks until
 * done. engine_stop() from another thread ends it early (a ponder search too: its
 * move is then the one to play).
 * Pondering: the thread that will send ponderhit calls engine_ponder_begin() before the
 * search with limits->ponder starts (so that no ponderhit can come before it), and
 * engine_ponderhit() turns the ponder search into an ordinary one whose clock starts
 * then. A ponder search without engine_ponder_begin, or after the ponderhit, is an
 * ordinary one from its start. */
SearchResult engine_search(Engine *e, const SearchLimits *limits, const SearchCallbacks *cb);
void engine_stop(Engine *e);
void engine_ponder_begin(Engine *e);
void engine_ponderhit(Engine *e);

/* Lazy SMP: threads (1..SEARCH_THREADS_MAX) search together, sharing the hash. False
 * with err filled when out of range or the threads cannot be had (the engine then has
 * one). Never during a search. */
bool engine_set_threads(Engine *e, int threads, char *err, size_t errlen);
int engine_threads(const Engine *e);

/* False when mb is outside 1..ENGINE_HASH_MAX_MB or cannot be allocated: the table in
 * use and its size stay. */
bool engine_set_hash(Engine *e, size_t mb);
void engine_clear_hash(Engine *e);
int engine_hash_mb(const Engine *e);
void engine_set_move_overhead(Engine *e, int ms);

/* A new engine evaluates with the built-in network (engine/default.nnue) and keeps the
 * built-in handcrafted weights for Use NNUE false.
 * Weights: the handcrafted evaluation with the weights of path, the network dropped;
 * all or nothing: on error the previous evaluation stays. */
bool engine_load_weights(Engine *e, const char *path, WeightsError *err);
/* Back to a new engine's evaluation: the built-in network and weights. */
void engine_reset_eval(Engine *e);
/* An evaluation file, told apart by its first bytes: a network file (nnue.h) becomes
 * the network, a text weights file the handcrafted weights and drops the network. All
 * or nothing: on error the evaluation in use stays. */
bool engine_load_eval_file(Engine *e, const char *path, WeightsError *err);
/* Whether search uses the network when one is loaded (the default). */
void engine_set_use_nnue(Engine *e, bool use);
/* The network in use by search, or NULL (none loaded, or switched off). */
const NnueNet *engine_net(const Engine *e);
/* The network loaded, used or not, or NULL. */
const NnueNet *engine_net_loaded(const Engine *e);
bool engine_save_weights(const Engine *e, const char *path, WeightsError *err);
const EvalParams *engine_weights(const Engine *e);

/* The search's tunable constants (spsa_params.h), the defaults in a new engine. Setting
 * one outside its range, or one that does not exist, is false and changes nothing. */
bool engine_set_search_param(Engine *e, int index, long long value);
const SearchParams *engine_search_params(const Engine *e);
void engine_reset_search_params(Engine *e);

/* Static evaluation of the current position, from the side to move's view: the
 * network's when search uses one, else the handcrafted one. */
Value engine_eval(const Engine *e);
/* The handcrafted evaluation of the current position, from the side to move's view. */
Value engine_eval_handcrafted(const Engine *e);
void engine_eval_breakdown(const Engine *e, EvalBreakdown *out);

uint64_t engine_perft(Engine *e, int depth, PerftDivideFn fn, void *ctx);

/* The fixed bench: every bench position searched to depth (0: the default depth)
 * from a cleared hash, one thread whatever engine_set_threads said. Reports each position through
 * cb. */
typedef struct {
    uint64_t nodes;
    int64_t time_ms;
    Move best; /* of the last position */
} BenchResult;
enum { BENCH_DEPTH_DEFAULT = 10 };
/* The FEN of bench position index (from 0), NULL past the last. */
const char *engine_bench_fen(int index);
BenchResult engine_bench(Engine *e, int depth,
                         void (*on_position)(void *ctx, int index, const char *fen,
                                             const SearchResult *r),
                         void *ctx);

#endif
