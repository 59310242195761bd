/*
 * Run statistics: games, positions and results of the whole run (rebuilt from the run
 * file on a restart) and of this session (for the rates), per engine and per pairing
 * (the crosstable), per worker rank, and their text and JSON forms for the progress
 * line and the final summary.
 */
#ifndef CHUHE_COORD_RUNSTATS_H
#define CHUHE_COORD_RUNSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord_crosstable.h"
#include "contracts/protocol.h"
#include "record.h"
#include "contracts/runfile.h"
#include "contracts/stats.h"
#include "strbuf.h"

/* What the games of one worker rank (as its HELLO names it) came to in this session. */
typedef struct {
    char host[PROTO_HOST_MAX + 1];
    uint32_t rank;
    uint64_t games;
    uint64_t crashes, time_losses, illegal_moves; /* games ending so, whoever lost */
} CoordWorkerCount;

typedef struct {
    int engines; /* 2 for a match */
    uint64_t games, positions;
    uint64_t red_wins, draws, black_wins;
    uint64_t player[XT_MAX][3]; /* per engine: wins, draws, losses */
    uint64_t reasons[REASON_NB];
    /* this session */
    double start; /* monotonic seconds when the session began */
    uint64_t session_games, session_positions, session_nodes;
    uint64_t rejected, duplicates;
    /* games whose move list repeats an earlier game's (runfile_record_key), over the run */
    uint64_t repeated;
    uint64_t *keys; /* open addressing, 0 free; a power of two of slots, at most half full */
    size_t nkeys, keys_cap;
    /* engines 0 and 1 (a two-engine run's match; engine 0 is engine A): pairs counted
     * once both games are stored */
    StatsCounts match;
    Crosstable table; /* every pairing */
    bool has_sprt;
    SprtParams sprt;
    uint64_t time_losses[XT_MAX], crashes[XT_MAX], illegal[XT_MAX]; /* per engine */
    CoordWorkerCount *workers; /* this session's ranks, by host, then rank */
    int nworkers;
    size_t workers_cap;
} RunStats;

/* What the stats do not hold: the schedule and the workers. */
typedef struct {
    uint64_t pairs_done, pairs_target, pairs_out;
    uint64_t requeued, dropped;
    int workers; /* live workers */
    double now;
} RunStatsContext;

/* Two engines named "" (coord_runstats_set_engines and coord_crosstable_set_name on table name
 * them). */
void coord_runstats_init(RunStats *st, double now);
void coord_runstats_free(RunStats *st);
void coord_runstats_set_engines(RunStats *st, int engines);

/* Counts one stored game: red and black are the engines (0..engines-1), nodes the
 * engine nodes its moves took, session whether it was stored in this session. */
void coord_runstats_add(RunStats *st, Outcome o, Reason reason, int plies, int red, int black,
                        uint64_t nodes, bool session);

/* Counts a pair whose two games are stored: first had Red in game 0 (outcome o0) and
 * Black in game 1 (o1). */
void coord_runstats_add_pair(RunStats *st, int first, int second, Outcome o0, Outcome o1);

/* Counts the run file's game game_id (its players are the engines: player id e is
 * engine e), whether its moves repeat an earlier game's, and, when its partner is
 * stored with a lower id, their pair; true when a pair was counted. For a restart
 * (every game in id order) and for each new game once it is durable. key: the game's
 * runfile_record_key when the caller has its record (a new game: nothing is read back
 * from the file); NULL: its moves are read from the file (runfile_game_key). */
bool coord_runstats_add_stored(RunStats *st, RunFile *rf, uint64_t game_id, uint64_t nodes,
                               bool session, const uint64_t *key);

/* Counts a game of this session for the worker rank that sent it. */
void coord_runstats_worker_game(RunStats *st, const char *host, uint32_t rank, Reason reason);

/* The SPRT's log-likelihood ratio and verdict on the pairs so far (pentanomial);
 * SPRT_CONTINUE without an SPRT. */
SprtState coord_runstats_sprt(const RunStats *st, double *llr);

/* The one-line progress text: the match statistics for two engines, the leader for
 * more. */
void coord_runstats_progress_text(const RunStats *st, const RunStatsContext *cx, char *buf,
                                  size_t size);

/* One rating line for the log: the match statistics, or the ranking in short. */
void coord_runstats_rating_text(const RunStats *st, char *buf, size_t size);

/* A JSON object (one line, no newline) with "event": event, the members in extra (JSON
 * text such as "\"status\":\"complete\"", may be NULL) and the same numbers, appended
 * to out. With final set, the endings by reason and the crosstable are added. */
void coord_runstats_json(const RunStats *st, const RunStatsContext *cx, const char *event,
                         const char *extra, bool final, StrBuf *out);

/* The final summary, several lines, each ending in '\n', appended to out. */
void coord_runstats_summary_text(const RunStats *st, const RunStatsContext *cx, StrBuf *out);

#endif
