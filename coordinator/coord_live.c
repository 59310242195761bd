#include "coord_live.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coord_log.h"
#include "strbuf.h"

/* One chart point; NAN where a number is unknown. */
typedef struct {
    double t; /* seconds since the session began */
    uint64_t games;
    double elo, elo_error, llr;
} LivePoint;

struct CoordLive {
    pthread_mutex_t lock;
    /* under the lock */
    char *status;
    size_t status_len;
    LivePoint points[COORD_LIVE_HISTORY_MAX];
    int npoints;
    LivePoint tail; /* the latest publication when it fell between two points */
    bool has_tail;
    /* the server loop's alone */
    uint64_t published, stride; /* every stride-th publication becomes a point */
    char *run;                  /* the "run_id" and "out" members, set once; NULL before */
};

CoordLive *coord_live_new(void)
{
    CoordLive *live = calloc(1, sizeof *live);
    if (!live || pthread_mutex_init(&live->lock, NULL) != 0)
        COORD_FATAL("out of memory for the live page");
    live->status = strdup("{}");
    if (!live->status)
        COORD_FATAL("out of memory for the live page");
    live->status_len = 2;
    live->stride = 1;
    return live;
}

void coord_live_free(CoordLive **live)
{
    if (!*live)
        return;
    pthread_mutex_destroy(&(*live)->lock);
    free((*live)->status);
    free((*live)->run);
    free(*live);
    *live = NULL;
}

void coord_live_set_run(CoordLive *live, uint64_t run_id, const char *path)
{
    StrBuf b;
    strbuf_init(&b);
    strbuf_printf(&b, "\"run_id\":\"%016" PRIx64 "\",\"out\":", run_id);
    strbuf_json_string(&b, path);
    free(live->run);
    live->run = b.text; /* taken over */
}

static LivePoint point_of(const RunStats *st, const RunStatsContext *cx)
{
    LivePoint p = {cx->now - st->start, st->games, NAN, NAN, NAN};
    if (st->engines == 2 && stats_pairs(&st->match) > 0) {
        StatsEstimate est;
        stats_estimate(&st->match, STATS_PENTANOMIAL, &est);
        p.elo = est.elo;
        p.elo_error = est.elo_error;
    }
    if (st->has_sprt)
        coord_runstats_sprt(st, &p.llr);
    return p;
}

/* Adds p under the lock: a point every stride-th publication, else the tail. */
static void add_point(CoordLive *live, const LivePoint *p)
{
    if (live->published % live->stride == 0 && live->npoints == COORD_LIVE_HISTORY_MAX) {
        for (int i = 0; 2 * i < live->npoints; i++)
            live->points[i] = live->points[2 * i];
        live->npoints = (live->npoints + 1) / 2;
        live->stride *= 2;
    }
    if (live->published % live->stride == 0) {
        live->points[live->npoints++] = *p;
        live->has_tail = false;
    } else {
        live->tail = *p;
        live->has_tail = true;
    }
    live->published++;
}

void coord_live_publish(CoordLive *live, const RunStats *st, const RunStatsContext *cx,
                        const char *extra)
{
    StrBuf members, json;
    strbuf_init(&members);
    strbuf_init(&json);
    const char *run = live->run ? live->run : "";
    strbuf_printf(&members, "%s%s%s", run, run[0] && extra && extra[0] ? "," : "",
                  extra ? extra : "");
    coord_runstats_json(st, cx, "progress", strbuf_text(&members), true, &json);
    LivePoint p = point_of(st, cx);
    char *old;
    pthread_mutex_lock(&live->lock);
    old = live->status;
    live->status = json.text; /* taken over, freed with the next one */
    live->status_len = json.len;
    add_point(live, &p);
    pthread_mutex_unlock(&live->lock);
    free(old);
    strbuf_free(&members);
}

char *coord_live_status(CoordLive *live, size_t *len)
{
    pthread_mutex_lock(&live->lock);
    char *copy = strndup(live->status, live->status_len);
    *len = live->status_len;
    pthread_mutex_unlock(&live->lock);
    return copy;
}

char *coord_live_history(CoordLive *live, size_t *len)
{
    LivePoint *pts = malloc((COORD_LIVE_HISTORY_MAX + 1) * sizeof *pts);
    if (!pts)
        return NULL;
    pthread_mutex_lock(&live->lock);
    int n = live->npoints;
    memcpy(pts, live->points, (size_t)n * sizeof *pts);
    if (live->has_tail)
        pts[n++] = live->tail;
    pthread_mutex_unlock(&live->lock);
    StrBuf b;
    strbuf_init(&b);
    strbuf_printf(&b, "{\"fields\":[\"t\",\"games\",\"elo\",\"elo_error\",\"llr\"],\"points\":[");
    for (int i = 0; i < n; i++) {
        strbuf_printf(&b, "%s[%.2f,%" PRIu64 ",", i ? "," : "", pts[i].t, pts[i].games);
        strbuf_json_number(&b, pts[i].elo);
        strbuf_printf(&b, ",");
        strbuf_json_number(&b, pts[i].elo_error);
        strbuf_printf(&b, ",");
        strbuf_json_number(&b, pts[i].llr);
        strbuf_printf(&b, "]");
    }
    strbuf_printf(&b, "]}");
    free(pts);
    *len = b.len;
    return b.text; /* the caller frees it */
}
