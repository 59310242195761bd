#include "coord_runstats.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "coord_log.h"
#include "rules.h"

void coord_runstats_init(RunStats *st, double now)
{
    memset(st, 0, sizeof *st);
    st->start = now;
    stats_counts_init(&st->match);
    sprt_params_default(&st->sprt);
    coord_runstats_set_engines(st, 2);
}

void coord_runstats_free(RunStats *st)
{
    free(st->workers);
    st->workers = NULL;
    st->nworkers = st->workers_cap = 0;
    free(st->keys);
    st->keys = NULL;
    st->nkeys = st->keys_cap = 0;
}

/* Adds a move-list key to the set; false when it was there already. */
static bool key_insert(RunStats *st, uint64_t key)
{
    key = key ? key : 1; /* 0 marks a free slot */
    if (2 * (st->nkeys + 1) > st->keys_cap) {
        size_t cap = st->keys_cap ? 2 * st->keys_cap : 1024;
        uint64_t *old = st->keys, *keys = calloc(cap, sizeof *keys);
        if (!keys)
            COORD_FATAL("out of memory for %zu game keys", st->nkeys + 1);
        for (size_t i = 0; i < st->keys_cap; i++) {
            if (!old[i])
                continue;
            size_t j = old[i] & (cap - 1);
            while (keys[j])
                j = (j + 1) & (cap - 1);
            keys[j] = old[i];
        }
        free(old);
        st->keys = keys;
        st->keys_cap = cap;
    }
    size_t j = key & (st->keys_cap - 1);
    while (st->keys[j]) {
        if (st->keys[j] == key)
            return false;
        j = (j + 1) & (st->keys_cap - 1);
    }
    st->keys[j] = key;
    st->nkeys++;
    return true;
}

void coord_runstats_set_engines(RunStats *st, int engines)
{
    coord_crosstable_init(&st->table, engines);
    st->engines = st->table.n;
}

static bool valid_engine(const RunStats *st, int e)
{
    return e >= 0 && e < st->engines;
}

void coord_runstats_add_pair(RunStats *st, int first, int second, Outcome o0, Outcome o1)
{
    coord_crosstable_add_pair(&st->table, first, second, o0, o1);
    if (first + second == 1 && first * second == 0) /* engines 0 and 1: the match */
        stats_add_pair(&st->match, coord_crosstable_score(o0, first == 0),
                       coord_crosstable_score(o1, first != 0));
}

SprtState coord_runstats_sprt(const RunStats *st, double *llr)
{
    *llr = 0;
    if (!st->has_sprt)
        return SPRT_CONTINUE;
    *llr = sprt_llr(&st->sprt, &st->match, STATS_PENTANOMIAL);
    return sprt_state(&st->sprt, *llr);
}

void coord_runstats_add(RunStats *st, Outcome o, Reason reason, int plies, int red, int black,
                        uint64_t nodes, bool session)
{
    if (!valid_engine(st, red) || !valid_engine(st, black))
        return;
    st->games++;
    st->positions += (uint64_t)plies;
    if ((unsigned)reason < REASON_NB)
        st->reasons[reason]++;
    if (o == OUTCOME_RED_WIN || o == OUTCOME_BLACK_WIN) {
        int loser = o == OUTCOME_RED_WIN ? black : red;
        st->time_losses[loser] += reason == REASON_TIME_FORFEIT;
        st->crashes[loser] += reason == REASON_ENGINE_CRASH;
        st->illegal[loser] += reason == REASON_ILLEGAL_MOVE;
    }
    if (o == OUTCOME_RED_WIN) {
        st->red_wins++;
        st->player[red][0]++;
        st->player[black][2]++;
    } else if (o == OUTCOME_BLACK_WIN) {
        st->black_wins++;
        st->player[black][0]++;
        st->player[red][2]++;
    } else {
        st->draws++;
        st->player[red][1]++;
        st->player[black][1]++;
    }
    coord_crosstable_add_game(&st->table, red, black, o);
    if (session) {
        st->session_games++;
        st->session_positions += (uint64_t)plies;
        st->session_nodes += nodes;
    }
}

static Outcome stored_outcome(const RunGame *g)
{
    return g->outcome > 0 ? OUTCOME_RED_WIN : g->outcome < 0 ? OUTCOME_BLACK_WIN : OUTCOME_DRAW;
}

bool coord_runstats_add_stored(RunStats *st, RunFile *rf, uint64_t game_id, uint64_t nodes,
                               bool session, const uint64_t *key)
{
    const RunGame *g = runfile_game(rf, game_id);
    if (!g)
        return false;
    Outcome o = stored_outcome(g);
    coord_runstats_add(st, o, (Reason)g->reason, g->plies, g->red, g->black, nodes, session);
    uint64_t read_key;
    RunError err;
    if (!key && runfile_game_key(rf, game_id, &read_key, &err))
        key = &read_key;
    else if (!key)
        coord_log("game %llu not checked for repeated moves: %s", (unsigned long long)game_id,
                  err.msg);
    if (key && !key_insert(st, *key))
        st->repeated++;
    uint64_t other;
    if (!runfile_find_game(rf, g->pair_id, 1u - g->game_in_pair, &other) || other >= game_id)
        return false;
    g = runfile_game(rf, game_id); /* the pointer of the first lookup may be gone */
    const RunGame *partner = runfile_game(rf, other);
    if (!g || !partner)
        return false;
    const RunGame *g0 = g->game_in_pair ? partner : g, *g1 = g->game_in_pair ? g : partner;
    coord_runstats_add_pair(st, g0->red, g0->black, stored_outcome(g0), stored_outcome(g1));
    return true;
}

void coord_runstats_worker_game(RunStats *st, const char *host, uint32_t rank, Reason reason)
{
    /* kept in (host, rank) order, the order of the report */
    int i = 0, c = 1;
    while (i < st->nworkers) {
        c = strcmp(st->workers[i].host, host);
        if (c > 0 || (c == 0 && st->workers[i].rank >= rank))
            break;
        i++;
    }
    if (i == st->nworkers || c != 0 || st->workers[i].rank != rank) {
        if (!array_reserve((void **)&st->workers, &st->workers_cap, (size_t)st->nworkers + 1,
                           sizeof *st->workers, 16))
            COORD_FATAL("out of memory for %d worker counts", st->nworkers + 1);
        memmove(&st->workers[i + 1], &st->workers[i],
                (size_t)(st->nworkers - i) * sizeof st->workers[0]);
        st->nworkers++;
        memset(&st->workers[i], 0, sizeof st->workers[i]);
        snprintf(st->workers[i].host, sizeof st->workers[i].host, "%s", host);
        st->workers[i].rank = rank;
    }
    CoordWorkerCount *w = &st->workers[i];
    w->games++;
    w->crashes += reason == REASON_ENGINE_CRASH;
    w->time_losses += reason == REASON_TIME_FORFEIT;
    w->illegal_moves += reason == REASON_ILLEGAL_MOVE;
}

static double elapsed(const RunStats *st, const RunStatsContext *cx)
{
    double t = cx->now - st->start;
    return t > 1e-3 ? t : 1e-3;
}

/* Seconds to the target at this session's pair rate; negative when unknown. */
static double eta(const RunStats *st, const RunStatsContext *cx)
{
    if (cx->pairs_done >= cx->pairs_target)
        return 0;
    double pairs_per_s = (double)st->session_games / 2 / elapsed(st, cx);
    if (pairs_per_s <= 0)
        return -1;
    return (double)(cx->pairs_target - cx->pairs_done) / pairs_per_s;
}

static void duration_text(double s, char *buf, size_t size)
{
    if (s < 0) {
        snprintf(buf, size, "?");
        return;
    }
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, size, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(buf, size, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, size, "%lds", t);
}

/* "leader NAME 62.50 % (5/8)": the first of the ranking, once a game is stored. */
static void leader_text(const RunStats *st, char *buf, size_t size)
{
    CrosstableRow rows[XT_MAX];
    coord_crosstable_ranking(&st->table, rows);
    char nb[XT_NAME_SIZE], pc[32];
    if (rows[0].games == 0)
        snprintf(buf, size, "no games yet");
    else
        snprintf(buf, size, "leader %s %s %% (%g/%" PRIu64 ")",
                 coord_crosstable_name(&st->table, rows[0].engine, nb),
                 stats_num_text(pc, 100 * rows[0].score), rows[0].points, rows[0].games);
}

void coord_runstats_progress_text(const RunStats *st, const RunStatsContext *cx, char *buf,
                                  size_t size)
{
    double t = elapsed(st, cx);
    char eta_text[32], p0[96] = "";
    duration_text(eta(st, cx), eta_text, sizeof eta_text);
    if (st->engines == 2)
        snprintf(p0, sizeof p0, "  p0 +%" PRIu64 "=%" PRIu64 "-%" PRIu64, st->player[0][0],
                 st->player[0][1], st->player[0][2]);
    snprintf(buf, size,
             "pairs %" PRIu64 "/%" PRIu64 "  games %" PRIu64 " (%.2f/s)  positions %" PRIu64
             " (%.0f/s)  red-draw-black %" PRIu64 "-%" PRIu64 "-%" PRIu64 "%s  workers %d  ETA %s",
             cx->pairs_done, cx->pairs_target, st->games, (double)st->session_games / t,
             st->positions, (double)st->session_positions / t, st->red_wins, st->draws,
             st->black_wins, p0, cx->workers, eta_text);
    size_t n = strlen(buf);
    if (n + 4 >= size)
        return;
    if (st->engines > 2) {
        memcpy(buf + n, "  | ", 4);
        leader_text(st, buf + n + 4, size - n - 4);
    } else if (stats_pairs(&st->match) > 0) {
        memcpy(buf + n, "  | ", 4);
        stats_format(buf + n + 4, size - n - 4, &st->match, STATS_PENTANOMIAL,
                     st->has_sprt ? &st->sprt : NULL, STATS_REPORT_LINE);
    }
}

void coord_runstats_rating_text(const RunStats *st, char *buf, size_t size)
{
    if (st->engines == 2) {
        stats_format(buf, size, &st->match, STATS_PENTANOMIAL, st->has_sprt ? &st->sprt : NULL,
                     STATS_REPORT_LINE);
        return;
    }
    CrosstableRow rows[XT_MAX];
    int n = coord_crosstable_ranking(&st->table, rows);
    size_t len = 0;
    buf[0] = '\0';
    for (int r = 0; r < n && len + 1 < size; r++) {
        char nb[XT_NAME_SIZE], pc[32];
        int k = snprintf(buf + len, size - len, "%s%d. %s %s %%", r ? ", " : "", r + 1,
                         coord_crosstable_name(&st->table, rows[r].engine, nb),
                         stats_num_text(pc, 100 * rows[r].score));
        if (k < 0)
            break;
        len += (size_t)k;
    }
}

static void json_u64s(StrBuf *o, const char *key, const uint64_t *v, int n)
{
    strbuf_printf(o, ",\"%s\":[", key);
    for (int i = 0; i < n; i++)
        strbuf_printf(o, "%s%" PRIu64, i ? "," : "", v[i]);
    strbuf_printf(o, "]");
}

static void json_match(const RunStats *st, StrBuf *o)
{
    json_u64s(o, "penta", st->match.penta, STATS_PENTA_NB);
    StatsEstimate est;
    stats_estimate(&st->match, STATS_PENTANOMIAL, &est);
    strbuf_printf(o, ",\"elo\":");
    strbuf_json_number(o, est.elo);
    strbuf_printf(o, ",\"elo_error\":");
    strbuf_json_number(o, est.elo_error);
    strbuf_printf(o, ",\"nelo\":");
    strbuf_json_number(o, est.nelo);
    strbuf_printf(o, ",\"nelo_error\":");
    strbuf_json_number(o, est.nelo_error);
    strbuf_printf(o, ",\"los\":");
    strbuf_json_number(o, est.los);
    if (st->has_sprt) {
        double llr;
        SprtState ss = coord_runstats_sprt(st, &llr);
        strbuf_printf(
            o,
            ",\"sprt\":{\"model\":\"%s\",\"elo0\":%g,\"elo1\":%g,\"alpha\":%g,\"beta\":%g,"
            "\"lower\":%.4f,\"upper\":%.4f,\"llr\":",
            sprt_model_name(st->sprt.model), st->sprt.elo0, st->sprt.elo1, st->sprt.alpha,
            st->sprt.beta, sprt_lower_bound(&st->sprt), sprt_upper_bound(&st->sprt));
        strbuf_json_number(o, llr);
        strbuf_printf(o, ",\"state\":\"%s\"}", sprt_state_name(ss));
    }
}

static void json_workers(const RunStats *st, StrBuf *o)
{
    strbuf_printf(o, ",\"ranks\":[");
    for (int i = 0; i < st->nworkers; i++) {
        const CoordWorkerCount *w = &st->workers[i];
        strbuf_printf(o, "%s{\"rank\":%" PRIu32 ",\"host\":", i ? "," : "", w->rank);
        strbuf_json_string(o, w->host);
        strbuf_printf(o,
                      ",\"games\":%" PRIu64 ",\"crashes\":%" PRIu64 ",\"time_losses\":%" PRIu64
                      ",\"illegal_moves\":%" PRIu64 "}",
                      w->games, w->crashes, w->time_losses, w->illegal_moves);
    }
    strbuf_printf(o, "]");
}

void coord_runstats_json(const RunStats *st, const RunStatsContext *cx, const char *event,
                         const char *extra, bool final, StrBuf *o)
{
    double t = elapsed(st, cx);
    strbuf_printf(o, "{\"event\":\"%s\",", event);
    if (extra && extra[0])
        strbuf_printf(o, "%s,", extra);
    strbuf_printf(o,
                  "\"elapsed_s\":%.3f,\"pairs_done\":%" PRIu64 ",\"pairs_target\":%" PRIu64
                  ",\"pairs_out\":%" PRIu64 ",\"games\":%" PRIu64 ",\"positions\":%" PRIu64
                  ",\"games_per_s\":%.4f,\"positions_per_s\":%.2f,\"nodes_per_s\":%.0f,"
                  "\"red_wins\":%" PRIu64 ",\"draws\":%" PRIu64 ",\"black_wins\":%" PRIu64
                  ",\"engines\":[",
                  t, cx->pairs_done, cx->pairs_target, cx->pairs_out, st->games, st->positions,
                  (double)st->session_games / t, (double)st->session_positions / t,
                  (double)st->session_nodes / t, st->red_wins, st->draws, st->black_wins);
    for (int e = 0; e < st->engines; e++) {
        char nb[XT_NAME_SIZE];
        strbuf_printf(o, "%s", e ? "," : "");
        strbuf_json_string(o, coord_crosstable_name(&st->table, e, nb));
    }
    strbuf_printf(o, "],\"players\":[");
    for (int p = 0; p < st->engines; p++)
        strbuf_printf(o, "%s{\"wins\":%" PRIu64 ",\"draws\":%" PRIu64 ",\"losses\":%" PRIu64 "}",
                      p ? "," : "", st->player[p][0], st->player[p][1], st->player[p][2]);
    strbuf_printf(o, "]");
    if (st->engines == 2) {
        json_match(st, o);
    } else {
        CrosstableRow rows[XT_MAX];
        coord_crosstable_ranking(&st->table, rows);
        char nb[XT_NAME_SIZE];
        strbuf_printf(o, ",\"leader\":{\"engine\":%d,\"name\":", rows[0].engine);
        strbuf_json_string(o, coord_crosstable_name(&st->table, rows[0].engine, nb));
        strbuf_printf(o, ",\"games\":%" PRIu64 ",\"points\":%.1f,\"score\":%.4f}", rows[0].games,
                      rows[0].points, rows[0].score);
    }
    json_u64s(o, "time_losses", st->time_losses, st->engines);
    json_u64s(o, "crashes", st->crashes, st->engines);
    json_u64s(o, "illegal_moves", st->illegal, st->engines);
    double e = eta(st, cx);
    if (e >= 0)
        strbuf_printf(o, ",\"eta_s\":%.1f", e);
    else
        strbuf_printf(o, ",\"eta_s\":null");
    strbuf_printf(o,
                  ",\"workers\":%d,\"rejected\":%" PRIu64 ",\"duplicates\":%" PRIu64
                  ",\"repeated\":%" PRIu64 ",\"requeued\":%" PRIu64 ",\"dropped\":%" PRIu64,
                  cx->workers, st->rejected, st->duplicates, st->repeated, cx->requeued,
                  cx->dropped);
    json_workers(st, o);
    if (final) {
        strbuf_printf(o,
                      ",\"session_games\":%" PRIu64 ",\"session_positions\":%" PRIu64
                      ",\"session_nodes\":%" PRIu64 ",\"endings\":{",
                      st->session_games, st->session_positions, st->session_nodes);
        bool first = true;
        for (int r = 0; r < REASON_NB; r++)
            if (st->reasons[r]) {
                strbuf_printf(o, "%s\"%s\":%" PRIu64, first ? "" : ",",
                              rules_reason_name((Reason)r), st->reasons[r]);
                first = false;
            }
        strbuf_printf(o, "},");
        coord_crosstable_json(&st->table, o);
    }
    strbuf_printf(o, "}");
}

void coord_runstats_summary_text(const RunStats *st, const RunStatsContext *cx, StrBuf *o)
{
    static const char *const INDENT = "             ";
    double t = elapsed(st, cx);
    strbuf_printf(o,
                  "  games      %" PRIu64 " (%" PRIu64 " of %" PRIu64 " pairs complete), %" PRIu64
                  " positions\n",
                  st->games, cx->pairs_done, cx->pairs_target, st->positions);
    strbuf_printf(o,
                  "  session    %" PRIu64 " games, %" PRIu64
                  " positions in %.1f s: %.2f games/s, %.0f positions/s, %.0f engine nodes/s\n",
                  st->session_games, st->session_positions, t, (double)st->session_games / t,
                  (double)st->session_positions / t, (double)st->session_nodes / t);
    strbuf_printf(o, "  results    red wins %" PRIu64 ", draws %" PRIu64 ", black wins %" PRIu64,
                  st->red_wins, st->draws, st->black_wins);
    if (st->engines == 2)
        strbuf_printf(o,
                      "; player 0 +%" PRIu64 " =%" PRIu64 " -%" PRIu64 ", player 1 +%" PRIu64
                      " =%" PRIu64 " -%" PRIu64,
                      st->player[0][0], st->player[0][1], st->player[0][2], st->player[1][0],
                      st->player[1][1], st->player[1][2]);
    strbuf_printf(o, "\n  endings   ");
    for (int r = 0; r < REASON_NB; r++)
        if (st->reasons[r])
            strbuf_printf(o, " %s %" PRIu64, rules_reason_name((Reason)r), st->reasons[r]);
    strbuf_printf(o, "\n");
    strbuf_printf(o,
                  "  problems   %" PRIu64 " games rejected, %" PRIu64 " duplicates, %" PRIu64
                  " repeated games, %" PRIu64 " pairs re-queued, %" PRIu64 " dropped\n",
                  st->rejected, st->duplicates, st->repeated, cx->requeued, cx->dropped);
    for (int e = 0; e < st->engines; e++) {
        char nb[XT_NAME_SIZE];
        strbuf_printf(o,
                      "%s player %d (%s): %" PRIu64 " on time, %" PRIu64 " crashes, %" PRIu64
                      " illegal moves\n",
                      e ? INDENT + 1 : "  losses    ", e, coord_crosstable_name(&st->table, e, nb),
                      st->time_losses[e], st->crashes[e], st->illegal[e]);
    }
    for (int i = 0; i < st->nworkers; i++) {
        const CoordWorkerCount *w = &st->workers[i];
        strbuf_printf(o,
                      "%s rank %" PRIu32 " on %s: %" PRIu64 " games, %" PRIu64 " crashes, %" PRIu64
                      " time losses, %" PRIu64 " illegal moves\n",
                      i ? INDENT + 1 : "  workers   ", w->rank, w->host[0] ? w->host : "?",
                      w->games, w->crashes, w->time_losses, w->illegal_moves);
    }
    if (st->engines > 2) {
        strbuf_printf(o, "  tournament %d engines, %" PRIu64 " games\n", st->engines, st->games);
        coord_crosstable_format(&st->table, INDENT, o);
    } else if (stats_pairs(&st->match) > 0) {
        char text[1024];
        stats_format(text, sizeof text, &st->match, STATS_PENTANOMIAL,
                     st->has_sprt ? &st->sprt : NULL, STATS_REPORT_FULL);
        strbuf_printf(o, "  match      player 0 against player 1, %" PRIu64 " complete pairs:\n",
                      stats_pairs(&st->match));
        for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save))
            strbuf_printf(o, "%s%s\n", INDENT, line);
    }
}
