/*
 * Alpha-beta search: iterative deepening, principal variation search with aspiration
 * windows, quiescence, transposition table, null move, late move reductions and
 * pruning. All state is in a Search, so several searches can run in one process.
 */
#ifndef CHUHE_SEARCH_H
#define CHUHE_SEARCH_H

#include <stdatomic.h>

#include "eval_terms.h"
#include "nnue.h"
#include "position.h"
#include "score.h"
#include "spsa_params.h"
#include "timeman.h"
#include "tt.h"

typedef struct {
    int multipv; /* which line, from 1 (the best) */
    int depth;
    int seldepth;
    Value score;
    Bound bound; /* BOUND_EXACT, or the side an aspiration window failed to */
    uint64_t nodes;
    int64_t time_ms;
    int hashfull;
    int pv_len;
    Move pv[MAX_PLY];
} SearchInfo;

typedef struct {
    /* called after each completed iteration (and on aspiration failures), once a line
     * with MultiPV, best first */
    void (*on_info)(void *ctx, const SearchInfo *info);
    void *ctx;
} SearchCallbacks;

typedef struct {
    Move best;   /* MOVE_NONE when the side to move has no legal move */
    Move ponder; /* MOVE_NONE if unknown */
    Value score;
    int depth; /* the last completed iteration */
    uint64_t nodes;
    int64_t time_ms;
    /* best comes from the unfinished iteration after depth: a root move that beat the
     * last best move there before time ran out (score and depth stay those of depth) */
    bool partial;
} SearchResult;

/* Quiet-move history indexed by the piece moved and its destination. */
typedef int16_t PieceToHistory[PIECE_NB][SQUARE_NB];

typedef struct {
    Move pv[MAX_PLY + 1];
    int pv_len;
    Move killers[2];
    Move current;
    Move excluded; /* the hash move, left out while a singular extension is tested */
    Value static_eval;
    /* continuation history of the move made at this ply (NULL for none or a null move) */
    PieceToHistory *cont;
} SearchStack;

/* Correction history: how far static evaluations of positions with one arrangement of
 * soldiers (or of kings, advisors and elephants) were off from the searches' results,
 * per side to move, in eighths of a centi-soldier. */
enum { CORR_SIZE = 16384, CORR_LIMIT = 1024 };
typedef int16_t CorrectionHistory[COLOR_NB][CORR_SIZE];

/* What a search learns besides the hash: the tables that order its moves and correct
 * its evaluation. */
typedef struct {
    int16_t history[COLOR_NB][SQUARE_NB][SQUARE_NB];
    Move counter[PIECE_NB][SQUARE_NB];
    PieceToHistory cont_history[PIECE_NB][SQUARE_NB];
    CorrectionHistory corr_soldiers, corr_defenders;
    /* captures: by the piece moved, its destination and the type it takes */
    int16_t capture_history[PIECE_NB][SQUARE_NB][PIECE_TYPE_NB];
} SearchTables;

/* One line of a MultiPV search: its move, score and line at the depth it was searched. */
typedef struct {
    Value score;
    Value prev;  /* the centre of its next aspiration window */
    Bound bound; /* BOUND_LOWER: the line reached the first line's score (see search.c) */
    int depth;
    int pv_len;
    Move pv[MAX_PLY];
} SearchLine;

enum { SEARCH_THREADS_MAX = 256, SEARCH_MULTIPV_MAX = 128 };

typedef struct Search {
    Position pos;
    TT *tt;
    const EvalParams *params;
    /* the network that evaluates, with the accumulators of this search; NULL: the
     * handcrafted evaluation with params */
    const NnueNet *net;
    NnueStack *nnue;
    const SearchParams *tune; /* the tunable constants to search with; NULL: the defaults */
    atomic_bool *stop;
    /* raised while a ponder search waits for ponderhit (engine_ponderhit lowers it);
     * NULL: never */
    atomic_bool *ponder;
    SearchLimits limits;
    TimePlan plan;
    int64_t start_ms;
    int64_t clock_ms; /* when the clock started: start_ms, or ponderhit */
    bool pondering;   /* ponderhit has not come yet */
    bool stop_on_hit; /* the time was spent while pondering: stop at ponderhit */
    int64_t move_overhead;
    /* nodes searched by this thread: counted with relaxed atomics, because the main
     * thread of a pool reads every thread's count */
    _Atomic uint64_t nodes;
    /* Lazy SMP: this search's place in its pool (0: the main search, which reports
     * and keeps time; the others, helpers, search the same root sharing tt and stop),
     * and the pool's searches all[0..threads). threads 0 or 1: a search alone. */
    int thread_id;
    int threads;
    struct Search *const *all;
    /* what the last search completed: its last whole iteration's depth, score and line
     * (read by the pool's main thread once the helpers are parked) */
    int done_depth;
    Value done_score;
    int done_len;
    Move done_pv[MAX_PLY];
    /* MultiPV: the lines of the search, and which is being searched (the root skips
     * the first moves of lines[0..pv_idx)) */
    const SearchLine *lines;
    int pv_idx;
    int seldepth;
    int root_depth;
    bool aborted;
    bool qsearch_pv; /* quiescence keeps a PV too (search_quiescence) */
    SearchTables tab;
    SearchStack stack[MAX_PLY + 4];
    SearchParams sp; /* *tune, copied when a search starts: what the search reads */
    /* reductions by depth and move number, built for sp's lmr_base and lmr_divisor
     * (lmr_for; a divisor of 0: not built yet) */
    int8_t lmr[MAX_PLY][64];
    int lmr_for[2];
    /* what time management reads at the root: new best moves after the first move in
     * the current iteration, and the nodes of the move that became best last */
    int root_best_changes;
    uint64_t root_best_nodes;
    Value root_best_value; /* the value of the root move that last raised alpha */
} Search;

/* Forgets what earlier searches learnt (histories); the TT is cleared separately. */
void search_clear(Search *s);

/*
 * Searches pos (copied) within limits. stop may be raised from another thread. The
 * search state s must stay alive during the call; tt, params and tune are only read
 * and written through s. Alone (threads 0 or 1) it starts a new TT generation; in a
 * pool the pool does, before any thread starts. A helper (thread_id > 0) reports
 * nothing, keeps no time and skips some depths; it ends at stop or its last depth.
 */
SearchResult search_run(Search *s, const Position *pos, const SearchLimits *limits,
                        const SearchCallbacks *cb);

/* Nodes searched by s, and by every thread of its pool. */
uint64_t search_nodes(const Search *s);
uint64_t search_total_nodes(const Search *s);

/*
 * The move a pool plays, once its helpers are parked: the main search's result main,
 * unless a helper completed an iteration at least as deep with a higher score (as
 * Stockfish 10 chose); with MultiPV always the main search's.
 * A helper's choice is reported through cb as the last line. The nodes are the pool's.
 */
SearchResult search_pick(Search *main_search, SearchResult main, const SearchCallbacks *cb);

/*
 * The quiescence search alone, from pos (copied) with a full window: returns its value
 * for the side to move and fills pv (room for MAX_PLY moves) with its principal
 * variation, *pv_len moves. It searches captures, and every evasion when in check; the
 * line ends where the static evaluation stands, in mate, or in a verdict of the rules.
 * With quiet_checks its first ply also tries the quiet checks, as at the main search's
 * horizon. Without them it is the search that runs below that first ply, and its line
 * ends in a position that the same search leaves where it is: what the tuner's
 * resolution needs. Reads and writes the TT like any search: a caller that wants each
 * position judged alone clears it first.
 */
Value search_quiescence(Search *s, const Position *pos, bool quiet_checks, Move *pv, int *pv_len);

/* Format a score the UCI way: "cp 35" or "mate -3". */
void search_score_text(Value v, char *buf, int size);

#endif
