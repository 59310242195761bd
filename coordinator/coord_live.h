/*
 * The live snapshot of a serving coordinator, what its web page shows (coord_http.h):
 * the latest status JSON and a bounded history of chart points.
 *
 * The server loop publishes after each progress update; libmicrohttpd's thread reads.
 * One mutex guards both, held only to swap or copy memory: the JSON text is built before
 * the lock is taken, and a reader copies the points and formats them after releasing
 * it, so neither side ever waits on the other's work, and the HTTP side never sees the
 * run file or the statistics themselves.
 *
 * The history keeps at most COORD_LIVE_HISTORY_MAX points, evenly spaced: when it is
 * full every second point is dropped and from then on only every second publication
 * becomes a point (the latest one is always shown, as a last point of its own).
 */
#ifndef CHUHE_COORD_LIVE_H
#define CHUHE_COORD_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "coord_runstats.h"

enum { COORD_LIVE_HISTORY_MAX = 2000 };

typedef struct CoordLive CoordLive;

/* A snapshot with status "{}" and no points; exits (COORD_FATAL) when out of memory. */
CoordLive *coord_live_new(void);
void coord_live_free(CoordLive **live);

/* The run shown: its id and run file, added to every status. */
void coord_live_set_run(CoordLive *live, uint64_t run_id, const char *path);

/*
 * Publishes the run's state: the object of the --json progress line (coord_runstats_json,
 * with the summary's endings, ranking, crosstable and pairings added) and one chart
 * point (games, Elo and its error, LLR). extra holds more JSON members for the status
 * (NULL: none): the hook through which other state reaches the page, such as a tuner's
 * parameters ("\"spsa\":{...}", which the page shows when present).
 */
void coord_live_publish(CoordLive *live, const RunStats *st, const RunStatsContext *cx,
                        const char *extra);

/* A copy of the latest status JSON, malloc'ed for the caller to free; NULL when out of
 * memory. *len gets its length. */
char *coord_live_status(CoordLive *live, size_t *len);

/* The history as JSON, malloc'ed likewise (NULL, or an exit through StrBuf, when out of
 * memory):
 *   {"fields":["t","games","elo","elo_error","llr"],"points":[[t,games,elo,err,llr],...]}
 * t in seconds since the session began; elo, elo_error and llr null when unknown. */
char *coord_live_history(CoordLive *live, size_t *len);

#endif
