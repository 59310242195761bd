#include "coord_crosstable.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void coord_crosstable_init(Crosstable *t, int n)
{
    memset(t, 0, sizeof *t);
    t->n = n < 2 ? 2 : n > XT_MAX ? XT_MAX : n;
    for (int i = 0; i < XT_MAX; i++)
        for (int j = 0; j < XT_MAX; j++)
            stats_counts_init(&t->pairs[i][j]);
}

void coord_crosstable_set_name(Crosstable *t, int e, const char *name)
{
    if (e >= 0 && e < XT_MAX)
        snprintf(t->names[e], sizeof t->names[e], "%s", name);
}

const char *coord_crosstable_name(const Crosstable *t, int e, char buf[XT_NAME_SIZE])
{
    if (e >= 0 && e < XT_MAX && t->names[e][0])
        return t->names[e];
    snprintf(buf, XT_NAME_SIZE, "engine %d", e);
    return buf;
}

static bool valid_two(const Crosstable *t, int a, int b)
{
    return a >= 0 && b >= 0 && a < t->n && b < t->n && a != b;
}

StatsScore coord_crosstable_score(Outcome o, bool red)
{
    return stats_game_score(o == OUTCOME_RED_WIN ? 1 : o == OUTCOME_BLACK_WIN ? -1 : 0, red);
}

static StatsScore flip(StatsScore s)
{
    return (StatsScore)(STATS_WIN - s);
}

/* wdl index of a score: 0 win, 1 draw, 2 loss */
static int wdl_index(StatsScore s)
{
    return s == STATS_WIN ? 0 : s == STATS_DRAW ? 1 : 2;
}

void coord_crosstable_add_game(Crosstable *t, int red, int black, Outcome o)
{
    if (!valid_two(t, red, black) || o == OUTCOME_NONE)
        return;
    StatsScore s = coord_crosstable_score(o, true);
    t->wdl[red][black][wdl_index(s)]++;
    t->wdl[black][red][wdl_index(flip(s))]++;
}

void coord_crosstable_add_pair(Crosstable *t, int first, int second, Outcome o0, Outcome o1)
{
    if (!valid_two(t, first, second) || o0 == OUTCOME_NONE || o1 == OUTCOME_NONE)
        return;
    StatsScore s0 = coord_crosstable_score(o0, true), s1 = coord_crosstable_score(o1, false);
    stats_add_pair(&t->pairs[first][second], s0, s1);
    stats_add_pair(&t->pairs[second][first], flip(s0), flip(s1));
}

static void counts_add(StatsCounts *sum, const StatsCounts *c)
{
    for (int k = 0; k < STATS_PENTA_NB; k++)
        sum->penta[k] += c->penta[k];
    for (int k = 0; k < STATS_SCORE_NB; k++)
        sum->tri[k] += c->tri[k];
    sum->wl += c->wl;
    sum->dd += c->dd;
}

static int row_cmp(const void *pa, const void *pb)
{
    const CrosstableRow *a = pa, *b = pb;
    if ((a->games > 0) != (b->games > 0))
        return a->games > 0 ? -1 : 1;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    if (a->points != b->points)
        return a->points > b->points ? -1 : 1;
    return a->engine - b->engine;
}

int coord_crosstable_ranking(const Crosstable *t, CrosstableRow rows[XT_MAX])
{
    for (int i = 0; i < t->n; i++) {
        CrosstableRow *r = &rows[i];
        memset(r, 0, sizeof *r);
        r->engine = i;
        stats_counts_init(&r->field);
        for (int j = 0; j < t->n; j++) {
            if (j == i)
                continue;
            r->wins += t->wdl[i][j][0];
            r->draws += t->wdl[i][j][1];
            r->losses += t->wdl[i][j][2];
            counts_add(&r->field, &t->pairs[i][j]);
        }
        r->games = r->wins + r->draws + r->losses;
        r->points = (double)r->wins + 0.5 * (double)r->draws;
        r->score = r->games ? r->points / (double)r->games : 0.5;
        stats_estimate(&r->field, STATS_PENTANOMIAL, &r->est);
    }
    qsort(rows, (size_t)t->n, sizeof rows[0], row_cmp);
    return t->n;
}

/* Points as people write them: "3", "2.5". */
static const char *points_text(char out[32], double p)
{
    snprintf(out, 32, "%g", p);
    return out;
}

static const char *signed_text(char out[32], double x)
{
    char b[32];
    const char *s = stats_num_text(b, x);
    snprintf(out, 32, "%s%s", x > 0 && strcmp(s, "0.00") ? "+" : "", s);
    return out;
}

void coord_crosstable_format(const Crosstable *t, const char *indent, StrBuf *out)
{
    CrosstableRow rows[XT_MAX];
    int n = coord_crosstable_ranking(t, rows);
    char nb[XT_NAME_SIZE];
    int w = 4;
    for (int i = 0; i < n; i++) {
        int l = (int)strlen(coord_crosstable_name(t, i, nb));
        w = l > w ? l : w;
    }
    strbuf_printf(out, "%sranking (Elo against the field, from each engine's complete pairs)\n",
                  indent);
    strbuf_printf(out, "%s%4s  %-*s %7s %7s %9s %9s %8s %9s\n", indent, "rank", w, "name", "games",
                  "points", "score", "Elo", "+/-", "LOS");
    for (int r = 0; r < n; r++) {
        const CrosstableRow *row = &rows[r];
        char b[5][32];
        strbuf_printf(out, "%s%4d  %-*s %7" PRIu64 " %7s %7s %% %9s %8s %7s %%\n", indent, r + 1, w,
                      coord_crosstable_name(t, row->engine, nb), row->games,
                      points_text(b[0], row->points), stats_num_text(b[1], 100 * row->score),
                      signed_text(b[2], row->est.elo), stats_num_text(b[3], row->est.elo_error),
                      stats_percent_text(b[4], row->est.los));
    }

    /* the table: cells "points/games" of the row engine against the column engine */
    char cell[XT_MAX][XT_MAX][48];
    int cw = 5;
    for (int a = 0; a < n; a++)
        for (int c = 0; c < n; c++) {
            int i = rows[a].engine, j = rows[c].engine;
            const uint64_t *x = t->wdl[i][j];
            uint64_t games = x[0] + x[1] + x[2];
            char pb[32];
            if (i == j)
                snprintf(cell[a][c], sizeof cell[a][c], "-");
            else
                snprintf(cell[a][c], sizeof cell[a][c], "%s/%" PRIu64,
                         points_text(pb, (double)x[0] + 0.5 * (double)x[1]), games);
            int l = (int)strlen(cell[a][c]);
            cw = l > cw ? l : cw;
        }
    strbuf_printf(out, "%scrosstable (points/games of the row engine; columns in rank order)\n",
                  indent);
    strbuf_printf(out, "%s%4s  %-*s", indent, "", w, "");
    for (int c = 0; c < n; c++)
        strbuf_printf(out, " %*d", cw, c + 1);
    strbuf_printf(out, "\n");
    for (int a = 0; a < n; a++) {
        strbuf_printf(out, "%s%4d  %-*s", indent, a + 1, w,
                      coord_crosstable_name(t, rows[a].engine, nb));
        for (int c = 0; c < n; c++)
            strbuf_printf(out, " %*s", cw, cell[a][c]);
        strbuf_printf(out, "\n");
    }

    strbuf_printf(out, "%spairings (first engine's view)\n", indent);
    for (int i = 0; i < t->n; i++)
        for (int j = i + 1; j < t->n; j++) {
            char nb2[XT_NAME_SIZE], text[512];
            const StatsCounts *c = &t->pairs[i][j];
            if (stats_pairs(c) > 0)
                stats_format(text, sizeof text, c, STATS_PENTANOMIAL, NULL, STATS_REPORT_LINE);
            else
                snprintf(text, sizeof text, "no complete pair");
            strbuf_printf(out, "%s%s vs %s: %s\n", indent, coord_crosstable_name(t, i, nb),
                          coord_crosstable_name(t, j, nb2), text);
        }
}

static void json_estimate(StrBuf *out, const StatsEstimate *e)
{
    const struct {
        const char *key;
        double value;
    } members[] = {
        {"elo", e->elo}, {"elo_error", e->elo_error}, {"nelo", e->nelo}, {"los", e->los}};
    for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
        strbuf_printf(out, ",\"%s\":", members[i].key);
        strbuf_json_number(out, members[i].value);
    }
}

void coord_crosstable_json(const Crosstable *t, StrBuf *out)
{
    CrosstableRow rows[XT_MAX];
    int n = coord_crosstable_ranking(t, rows);
    char nb[XT_NAME_SIZE];
    strbuf_printf(out, "\"ranking\":[");
    for (int r = 0; r < n; r++) {
        const CrosstableRow *row = &rows[r];
        strbuf_printf(out, "%s{\"rank\":%d,\"engine\":%d,\"name\":", r ? "," : "", r + 1,
                      row->engine);
        strbuf_json_string(out, coord_crosstable_name(t, row->engine, nb));
        strbuf_printf(out,
                      ",\"games\":%" PRIu64 ",\"wins\":%" PRIu64 ",\"draws\":%" PRIu64
                      ",\"losses\":%" PRIu64 ",\"points\":%.1f,\"score\":%.4f,\"pairs\":%" PRIu64,
                      row->games, row->wins, row->draws, row->losses, row->points, row->score,
                      stats_pairs(&row->field));
        json_estimate(out, &row->est);
        strbuf_printf(out, "}");
    }
    /* by engine index: points[i][j] and games[i][j] of i against j */
    strbuf_printf(out, "],\"crosstable\":{\"points\":[");
    for (int i = 0; i < t->n; i++) {
        strbuf_printf(out, "%s[", i ? "," : "");
        for (int j = 0; j < t->n; j++)
            if (i == j)
                strbuf_printf(out, "%snull", j ? "," : "");
            else
                strbuf_printf(out, "%s%.1f", j ? "," : "",
                              (double)t->wdl[i][j][0] + 0.5 * (double)t->wdl[i][j][1]);
        strbuf_printf(out, "]");
    }
    strbuf_printf(out, "],\"games\":[");
    for (int i = 0; i < t->n; i++) {
        strbuf_printf(out, "%s[", i ? "," : "");
        for (int j = 0; j < t->n; j++)
            strbuf_printf(out, "%s%" PRIu64, j ? "," : "",
                          t->wdl[i][j][0] + t->wdl[i][j][1] + t->wdl[i][j][2]);
        strbuf_printf(out, "]");
    }
    strbuf_printf(out, "]},\"pairings\":[");
    bool first = true;
    for (int i = 0; i < t->n; i++)
        for (int j = i + 1; j < t->n; j++) {
            const StatsCounts *c = &t->pairs[i][j];
            const uint64_t *x = t->wdl[i][j];
            StatsEstimate e;
            stats_estimate(c, STATS_PENTANOMIAL, &e);
            strbuf_printf(out,
                          "%s{\"engines\":[%d,%d],\"wins\":%" PRIu64 ",\"draws\":%" PRIu64
                          ",\"losses\":%" PRIu64 ",\"pairs\":%" PRIu64 ",\"penta\":[",
                          first ? "" : ",", i, j, x[0], x[1], x[2], stats_pairs(c));
            for (int k = 0; k < STATS_PENTA_NB; k++)
                strbuf_printf(out, "%s%" PRIu64, k ? "," : "", c->penta[k]);
            strbuf_printf(out, "]");
            json_estimate(out, &e);
            strbuf_printf(out, "}");
            first = false;
        }
    strbuf_printf(out, "]");
}
