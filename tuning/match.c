#include "match.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/runfile.h"
#include "error.h"

/* Player p's score in game g. */
static StatsScore score_of(const RunGame *g, uint16_t p)
{
    return stats_game_score(g->outcome, g->red == p);
}

static bool plays(const RunGame *g, uint16_t p)
{
    return (g->red == p) != (g->black == p);
}

/* The player named player (or whose weights file it is; NULL: player 0) in rf. */
static bool find_player(RunFile *rf, const char *path, const char *player, uint16_t *id,
                        MatchError *err)
{
    uint16_t np = runfile_player_count(rf), me = np;
    /* a weights file is stored by its absolute path: a relative one names it too */
    char *real = player ? realpath(player, NULL) : NULL;
    for (uint16_t i = 0; i < np && me == np; i++) {
        const RunPlayer *p = runfile_player(rf, i);
        if (!player || !strcmp(p->name, player) || !strcmp(p->weights, player) ||
            (real && !strcmp(p->weights, real)))
            me = i;
    }
    free(real);
    if (me == np) {
        char names[256] = "";
        size_t len = 0;
        for (uint16_t i = 0; i < np && len < sizeof names; i++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s'%s'", i ? ", " : "",
                                    runfile_player(rf, i)->name);
        return player ? ERROR_SET(err,
                                  "%s: no player named '%s' (its players: %s; or give a "
                                  "player's weights file)",
                                  path, player, names)
                      : ERROR_SET(err, "%s: the run has no players", path);
    }
    *id = me;
    return true;
}

/* The run at path, open for reading, and the player in it; NULL after an error on err. */
static RunFile *open_with_player(const char *path, const char *player, uint16_t *id,
                                 MatchError *err)
{
    RunError re;
    RunFile *rf = runfile_open_read(path, &re);
    if (!rf) {
        ERROR_SET(err, "%s", re.msg);
        return NULL;
    }
    if (!find_player(rf, path, player, id, err))
        runfile_close(&rf, &re);
    return rf;
}

bool match_count(const char *path, const char *player, StatsCounts *out, int *player_id,
                 MatchError *err)
{
    RunError re;
    uint16_t me;
    RunFile *rf = open_with_player(path, player, &me, err);
    if (!rf)
        return false;
    stats_counts_init(out);
    uint64_t ng = runfile_game_count(rf);
    for (uint64_t id = 0; id < ng; id++) {
        const RunGame *g = runfile_game(rf, id);
        if (!plays(g, me))
            continue;
        /* a pair is counted at its second game; a game without its partner alone */
        uint64_t other;
        bool paired = runfile_find_game(rf, g->pair_id, 1 - g->game_in_pair, &other) &&
                      plays(runfile_game(rf, other), me);
        if (!paired)
            stats_add_game(out, score_of(g, me));
        else if (g->game_in_pair == 1)
            stats_add_pair(out, score_of(runfile_game(rf, other), me), score_of(g, me));
    }
    *player_id = me;
    runfile_close(&rf, &re);
    return true;
}

/* One opening's pair of games of the player: the opening's key and the pair's points. */
typedef struct {
    uint64_t key;    /* the opening: its start FEN and its opening moves */
    uint64_t order;  /* the pair's id: openings stored several times pair in this order */
    int half_points; /* 0..4 */
} PairScore;

static int pair_cmp(const void *a, const void *b)
{
    const PairScore *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The player's complete pairs in the run at path, sorted by opening. */
static bool collect_pairs(const char *path, const char *player, PairScore **out, size_t *n,
                          int *player_id, MatchError *err)
{
    RunError re;
    uint16_t me;
    RunFile *rf = open_with_player(path, player, &me, err);
    if (!rf)
        return false;
    uint64_t ng = runfile_game_count(rf);
    PairScore *ps = calloc(ng / 2 + 1, sizeof *ps);
    GameRecord *rec = malloc(sizeof *rec);
    size_t count = 0;
    bool ok = ps && rec;
    if (!ok)
        ERROR_SET(err, "%s: out of memory", path);
    for (uint64_t id = 0; ok && id < ng; id++) {
        const RunGame *g = runfile_game(rf, id);
        uint64_t other;
        if (g->game_in_pair != 0 || !plays(g, me) ||
            !runfile_find_game(rf, g->pair_id, 1, &other) || !plays(runfile_game(rf, other), me))
            continue;
        int points = (int)score_of(g, me) + (int)score_of(runfile_game(rf, other), me);
        uint64_t pair_id = g->pair_id;
        if (!runfile_read_game(rf, id, rec, &re)) {
            ok = ERROR_SET(err, "%s", re.msg);
            break;
        }
        PairScore *p = &ps[count++];
        p->key = runfile_record_opening_key(rec);
        p->order = pair_id;
        p->half_points = points;
    }
    free(rec);
    if (!runfile_close(&rf, &re) && ok)
        ok = ERROR_SET(err, "%s", re.msg);
    if (!ok) {
        free(ps);
        return false;
    }
    qsort(ps, count, sizeof *ps, pair_cmp);
    *out = ps;
    *n = count;
    *player_id = me;
    return true;
}

bool match_compare(const char *path, const char *player, const char *base_path,
                   const char *base_player, MatchComparison *out, MatchError *err)
{
    PairScore *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    memset(out, 0, sizeof *out);
    if (!collect_pairs(path, player, &a, &na, &out->player, err))
        return false;
    if (!collect_pairs(base_path, base_player ? base_player : player, &b, &nb, &out->base_player,
                       err)) {
        free(a);
        return false;
    }
    /* merge: equal openings pair off in their stored order */
    double here = 0, base = 0, sum2 = 0; /* per game */
    uint64_t n = 0;
    for (size_t i = 0, j = 0; i < na && j < nb;) {
        if (a[i].key < b[j].key) {
            i++;
        } else if (a[i].key > b[j].key) {
            j++;
        } else {
            double d = (a[i].half_points - b[j].half_points) / 4.0;
            here += a[i].half_points / 4.0;
            base += b[j].half_points / 4.0;
            sum2 += d * d;
            n++;
            i++;
            j++;
        }
    }
    free(a);
    free(b);
    if (n == 0)
        return ERROR_SET(err,
                         "%s and %s: no opening has both its games stored in both runs "
                         "(compare runs played on the same openings: same book, order and "
                         "seed)",
                         path, base_path);
    out->pairs = n;
    out->here = here / (double)n;
    out->base = base / (double)n;
    if (n > 1) {
        double sum = here - base;
        double var = (sum2 - sum * sum / (double)n) / (double)(n - 1);
        out->diff_margin = 1.959964 * sqrt(var > 0 ? var : 0) / sqrt((double)n);
    }
    return true;
}

static void print_comparison(const MatchComparison *m, const char *base_path, FILE *out)
{
    double diff = m->here - m->base, elo_base = stats_logistic_elo(m->base);
    fprintf(out, "baseline: %s, player %d: %llu openings with both games in both runs\n", base_path,
            m->base_player, (unsigned long long)m->pairs);
    fprintf(out, "score here %.1f %% (Elo %+.1f), in the baseline %.1f %% (Elo %+.1f)\n",
            100 * m->here, stats_logistic_elo(m->here), 100 * m->base, elo_base);
    fprintf(out, "difference %+.1f", 100 * diff);
    if (m->pairs > 1)
        fprintf(out, " +/- %.1f points per 100 games (95 %%), Elo %+.1f [%+.1f, %+.1f]\n",
                100 * m->diff_margin, stats_logistic_elo(m->here) - elo_base,
                stats_logistic_elo(m->base + diff - m->diff_margin) - elo_base,
                stats_logistic_elo(m->base + diff + m->diff_margin) - elo_base);
    else
        fprintf(out, " points per 100 games, Elo %+.1f (one opening: no interval)\n",
                stats_logistic_elo(m->here) - elo_base);
}

int match_report(const char *path, const char *player, const SprtParams *sprt,
                 const char *base_path, const char *base_player, FILE *out, FILE *err)
{
    StatsCounts c;
    int me;
    MatchError me_err;
    MatchComparison m;
    if (!match_count(path, player, &c, &me, &me_err) ||
        (base_path && !match_compare(path, player, base_path, base_player, &m, &me_err))) {
        fprintf(err, "chuhe-tune: %s\n", me_err.msg);
        return 1;
    }
    fprintf(out, "match report: %s, player %d%s%s%s\n", path, me, player ? " (" : "",
            player ? player : "", player ? ")" : "");
    if (stats_games(&c) == 0) {
        fprintf(out, "no games of this player\n");
        return 0;
    }
    size_t need = stats_format(NULL, 0, &c, stats_default_kind(&c), sprt, STATS_REPORT_FULL);
    char *text = malloc(need + 1);
    if (!text) {
        fprintf(err, "chuhe-tune: out of memory\n");
        return 1;
    }
    stats_format(text, need + 1, &c, stats_default_kind(&c), sprt, STATS_REPORT_FULL);
    fputs(text, out);
    if (need == 0 || text[need - 1] != '\n')
        fputc('\n', out);
    free(text);
    if (base_path)
        print_comparison(&m, base_path, out);
    return 0;
}
