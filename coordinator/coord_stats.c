#include "coord_stats.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rules.h"

void coord_stats_init(CoordStats *st, double now)
{
    memset(st, 0, sizeof *st);
    st->start = now;
    stats_counts_init(&st->match);
    sprt_params_default(&st->sprt);
}

static StatsScore p0_score(Outcome o, int p0_red)
{
    if (o == OUTCOME_DRAW)
        return STATS_DRAW;
    bool red_won = o == OUTCOME_RED_WIN;
    return red_won == (p0_red != 0) ? STATS_WIN : STATS_LOSS;
}

void coord_stats_add_pair(CoordStats *st, Outcome o0, Outcome o1)
{
    stats_add_pair(&st->match, p0_score(o0, 1), p0_score(o1, 0));
}

SprtState coord_stats_sprt(const CoordStats *st, double *llr)
{
    *llr = 0;
    if (!st->has_sprt)
        return SPRT_CONTINUE;
    *llr = sprt_llr(&st->sprt, &st->match, STATS_PENTANOMIAL);
    return sprt_state(&st->sprt, *llr);
}

void coord_stats_add(CoordStats *st, Outcome o, Reason reason, int plies, int red_player,
                     uint64_t nodes, bool session)
{
    st->games++;
    st->positions += (uint64_t)plies;
    if ((unsigned)reason < REASON_NB)
        st->reasons[reason]++;
    int black_player = 1 - red_player;
    if (o == OUTCOME_RED_WIN || o == OUTCOME_BLACK_WIN) {
        int loser = o == OUTCOME_RED_WIN ? black_player : red_player;
        st->time_losses[loser] += reason == REASON_TIME_FORFEIT;
        st->crashes[loser] += reason == REASON_ENGINE_CRASH;
        st->illegal[loser] += reason == REASON_ILLEGAL_MOVE;
    }
    if (o == OUTCOME_RED_WIN) {
        st->red_wins++;
        st->player[red_player][0]++;
        st->player[black_player][2]++;
    } else if (o == OUTCOME_BLACK_WIN) {
        st->black_wins++;
        st->player[black_player][0]++;
        st->player[red_player][2]++;
    } else {
        st->draws++;
        st->player[0][1]++;
        st->player[1][1]++;
    }
    if (session) {
        st->session_games++;
        st->session_positions += (uint64_t)plies;
        st->session_nodes += nodes;
    }
}

static double elapsed(const CoordStats *st, const CoordStatsContext *cx)
{
    double t = cx->now - st->start;
    return t > 1e-3 ? t : 1e-3;
}

/* Seconds to the target at this session's pair rate; negative when unknown. */
static double eta(const CoordStats *st, const CoordStatsContext *cx)
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

void coord_stats_progress_text(const CoordStats *st, const CoordStatsContext *cx, char *buf,
                               size_t size)
{
    double t = elapsed(st, cx);
    char eta_text[32];
    duration_text(eta(st, cx), eta_text, sizeof eta_text);
    snprintf(buf, size,
             "pairs %" PRIu64 "/%" PRIu64 "  games %" PRIu64 " (%.2f/s)  positions %" PRIu64
             " (%.0f/s)  red-draw-black %" PRIu64 "-%" PRIu64 "-%" PRIu64 "  p0 +%" PRIu64
             "=%" PRIu64 "-%" PRIu64 "  workers %d  ETA %s",
             cx->pairs_done, cx->pairs_target, st->games, (double)st->session_games / t,
             st->positions, (double)st->session_positions / t, st->red_wins, st->draws,
             st->black_wins, st->player[0][0], st->player[0][1], st->player[0][2], cx->workers,
             eta_text);
    size_t n = strlen(buf);
    if (n + 4 < size && stats_pairs(&st->match) > 0) {
        memcpy(buf + n, "  | ", 4);
        stats_format(buf + n + 4, size - n - 4, &st->match, STATS_PENTANOMIAL,
                     st->has_sprt ? &st->sprt : NULL, STATS_REPORT_LINE);
    }
}

/* Infinities are not JSON numbers. */
static void put_num(void *o, double v);

typedef struct {
    char *buf;
    size_t size, len;
} Out;

static void put(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(Out *o, const char *fmt, ...)
{
    if (o->len >= o->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len = o->len + (size_t)n < o->size ? o->len + (size_t)n : o->size;
}

static void put_num(void *out, double v)
{
    Out *o = out;
    if (v != v || v > 1e300 || v < -1e300)
        put(o, "null");
    else
        put(o, "%.4f", v);
}

void coord_stats_json(const CoordStats *st, const CoordStatsContext *cx, const char *event,
                      const char *extra, bool final, char *buf, size_t size)
{
    Out o = {buf, size, 0};
    double t = elapsed(st, cx);
    put(&o, "{\"event\":\"%s\",", event);
    if (extra && extra[0])
        put(&o, "%s,", extra);
    put(&o,
        "\"elapsed_s\":%.3f,\"pairs_done\":%" PRIu64 ",\"pairs_target\":%" PRIu64
        ",\"pairs_out\":%" PRIu64 ",\"games\":%" PRIu64 ",\"positions\":%" PRIu64
        ",\"games_per_s\":%.4f,\"positions_per_s\":%.2f,\"nodes_per_s\":%.0f,\"red_wins\":%" PRIu64
        ",\"draws\":%" PRIu64 ",\"black_wins\":%" PRIu64 ",\"players\":[",
        t, cx->pairs_done, cx->pairs_target, cx->pairs_out, st->games, st->positions,
        (double)st->session_games / t, (double)st->session_positions / t,
        (double)st->session_nodes / t, st->red_wins, st->draws, st->black_wins);
    for (int p = 0; p < 2; p++)
        put(&o, "%s{\"wins\":%" PRIu64 ",\"draws\":%" PRIu64 ",\"losses\":%" PRIu64 "}",
            p ? "," : "", st->player[p][0], st->player[p][1], st->player[p][2]);
    put(&o, "],\"penta\":[");
    for (int i = 0; i < STATS_PENTA_NB; i++)
        put(&o, "%s%" PRIu64, i ? "," : "", st->match.penta[i]);
    StatsEstimate est;
    stats_estimate(&st->match, STATS_PENTANOMIAL, &est);
    put(&o, "],\"elo\":");
    put_num(&o, est.elo);
    put(&o, ",\"elo_error\":");
    put_num(&o, est.elo_error);
    put(&o, ",\"nelo\":");
    put_num(&o, est.nelo);
    put(&o, ",\"nelo_error\":");
    put_num(&o, est.nelo_error);
    put(&o, ",\"los\":");
    put_num(&o, est.los);
    if (st->has_sprt) {
        double llr;
        SprtState ss = coord_stats_sprt(st, &llr);
        put(&o, ",\"sprt\":{\"model\":\"%s\",\"elo0\":%g,\"elo1\":%g,\"alpha\":%g,\"beta\":%g,"
                "\"lower\":%.4f,\"upper\":%.4f,\"llr\":",
            sprt_model_name(st->sprt.model), st->sprt.elo0, st->sprt.elo1, st->sprt.alpha,
            st->sprt.beta, sprt_lower_bound(&st->sprt), sprt_upper_bound(&st->sprt));
        put_num(&o, llr);
        put(&o, ",\"state\":\"%s\"}", sprt_state_name(ss));
    }
    put(&o,
        ",\"time_losses\":[%" PRIu64 ",%" PRIu64 "],\"crashes\":[%" PRIu64 ",%" PRIu64
        "],\"illegal_moves\":[%" PRIu64 ",%" PRIu64 "]",
        st->time_losses[0], st->time_losses[1], st->crashes[0], st->crashes[1], st->illegal[0],
        st->illegal[1]);
    double e = eta(st, cx);
    if (e >= 0)
        put(&o, ",\"eta_s\":%.1f", e);
    else
        put(&o, ",\"eta_s\":null");
    put(&o,
        ",\"workers\":%d,\"rejected\":%" PRIu64 ",\"duplicates\":%" PRIu64 ",\"requeued\":%" PRIu64
        ",\"dropped\":%" PRIu64,
        cx->workers, st->rejected, st->duplicates, cx->requeued, cx->dropped);
    if (final) {
        put(&o,
            ",\"session_games\":%" PRIu64 ",\"session_positions\":%" PRIu64
            ",\"session_nodes\":%" PRIu64 ",\"endings\":{",
            st->session_games, st->session_positions, st->session_nodes);
        bool first = true;
        for (int r = 0; r < REASON_NB; r++)
            if (st->reasons[r]) {
                put(&o, "%s\"%s\":%" PRIu64, first ? "" : ",", rules_reason_name((Reason)r),
                    st->reasons[r]);
                first = false;
            }
        put(&o, "}");
    }
    put(&o, "}");
}

void coord_stats_summary_text(const CoordStats *st, const CoordStatsContext *cx, char *buf,
                              size_t size)
{
    Out o = {buf, size, 0};
    double t = elapsed(st, cx);
    put(&o,
        "  games      %" PRIu64 " (%" PRIu64 " of %" PRIu64 " pairs complete), %" PRIu64
        " positions\n",
        st->games, cx->pairs_done, cx->pairs_target, st->positions);
    put(&o,
        "  session    %" PRIu64 " games, %" PRIu64 " positions in %.1f s: %.2f games/s, %.0f "
        "positions/s, %.0f engine nodes/s\n",
        st->session_games, st->session_positions, t, (double)st->session_games / t,
        (double)st->session_positions / t, (double)st->session_nodes / t);
    put(&o,
        "  results    red wins %" PRIu64 ", draws %" PRIu64 ", black wins %" PRIu64
        "; player 0 +%" PRIu64 " =%" PRIu64 " -%" PRIu64 ", player 1 +%" PRIu64 " =%" PRIu64
        " -%" PRIu64 "\n",
        st->red_wins, st->draws, st->black_wins, st->player[0][0], st->player[0][1],
        st->player[0][2], st->player[1][0], st->player[1][1], st->player[1][2]);
    put(&o, "  endings   ");
    for (int r = 0; r < REASON_NB; r++)
        if (st->reasons[r])
            put(&o, " %s %" PRIu64, rules_reason_name((Reason)r), st->reasons[r]);
    put(&o, "\n");
    put(&o,
        "  problems   %" PRIu64 " games rejected, %" PRIu64 " duplicates, %" PRIu64
        " pairs re-queued, %" PRIu64 " dropped\n",
        st->rejected, st->duplicates, cx->requeued, cx->dropped);
    put(&o,
        "  losses     player 0: %" PRIu64 " on time, %" PRIu64 " crashes, %" PRIu64
        " illegal moves; player 1: %" PRIu64 " on time, %" PRIu64 " crashes, %" PRIu64
        " illegal moves\n",
        st->time_losses[0], st->crashes[0], st->illegal[0], st->time_losses[1], st->crashes[1],
        st->illegal[1]);
    if (stats_pairs(&st->match) > 0) {
        char text[1024];
        stats_format(text, sizeof text, &st->match, STATS_PENTANOMIAL,
                     st->has_sprt ? &st->sprt : NULL, STATS_REPORT_FULL);
        put(&o, "  match      player 0 against player 1, %" PRIu64 " complete pairs:\n",
            stats_pairs(&st->match));
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
            put(&o, "             %s\n", line);
    }
}
