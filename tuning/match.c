#include "match.h"

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

bool match_count(const char *path, const char *player, StatsCounts *out, int *player_id,
                 MatchError *err)
{
    RunError re;
    RunFile *rf = runfile_open_read(path, &re);
    if (!rf)
        return ERROR_SET(err, "%s", re.msg);
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
        runfile_close(&rf, &re);
        return player ? ERROR_SET(err,
                                  "%s: no player named '%s' (its players: %s; or give a "
                                  "player's weights file)",
                                  path, player, names)
                      : ERROR_SET(err, "%s: the run has no players", path);
    }
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

int match_report(const char *path, const char *player, const SprtParams *sprt, FILE *out, FILE *err)
{
    StatsCounts c;
    int me;
    MatchError me_err;
    if (!match_count(path, player, &c, &me, &me_err)) {
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
    return 0;
}
