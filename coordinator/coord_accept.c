#include "coord_accept.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static AcceptVerdict reject(char *why, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static AcceptVerdict reject(char *why, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return ACCEPT_REJECT;
}

/* The record plays the pair's opening: its start position, then its moves, flagged. */
static bool plays_opening(const GameRecord *r, const Opening *op, char *why, size_t size)
{
    if (strcmp(r->start_fen, op->fen)) {
        snprintf(why, size, "start position '%s' is not the pair's opening '%s'", r->start_fen,
                 op->fen);
        return false;
    }
    if (r->nplies < op->nmoves) {
        snprintf(why, size, "%d plies, fewer than the opening's %d moves", r->nplies, op->nmoves);
        return false;
    }
    for (int i = 0; i < r->nplies; i++) {
        bool opening = i < op->nmoves;
        if (opening && r->plies[i].move != op->moves[i]) {
            snprintf(why, size, "ply %d is not the opening's move", i + 1);
            return false;
        }
        if (opening != ((r->plies[i].flags & RECORD_FLAG_OPENING) != 0)) {
            snprintf(why, size, "ply %d: the opening flag is %s", i + 1,
                     opening ? "missing" : "set on a searched move");
            return false;
        }
    }
    return true;
}

/* The player (0 or 1) to move at the end of game g: the one a forfeit or crash loses. */
static int player_to_move(const ProtoGame *g)
{
    const char *side = strchr(g->rec.start_fen, ' ');
    int black = side && side[1] == 'b';
    black ^= g->rec.nplies & 1;
    return black ? 1 - g->game_in_pair : g->game_in_pair;
}

/* The ending is one the run's settings allow; mover is the engine to move at the end. */
static bool within_settings(const ProtoGame *g, const CoordConfig *cfg, int mover, char *why,
                            size_t size)
{
    const GameRecord *r = &g->rec;
    if (r->nplies > cfg->max_plies) {
        snprintf(why, size, "%d plies exceed the run's limit of %d", r->nplies, cfg->max_plies);
        return false;
    }
    const char *off = NULL;
    switch (r->reason) {
    case REASON_MOVE_LIMIT:
        if (r->nplies != cfg->max_plies) {
            snprintf(why, size, "move-limit claimed after %d plies; the limit is %d", r->nplies,
                     cfg->max_plies);
            return false;
        }
        break;
    case REASON_ADJUDICATION_RESIGN:
        off = cfg->resign_moves ? NULL : "resign adjudication is off in this run";
        break;
    case REASON_ADJUDICATION_DRAW:
        off = cfg->draw_moves ? NULL : "draw adjudication is off in this run";
        break;
    case REASON_TIME_FORFEIT: {
        /* only a player with a clock or a move time can lose on time */
        CoordLimits lim;
        coord_engine_limits(cfg, mover, &lim);
        if (!lim.tc_base_ms && !lim.movetime)
            off = "time-forfeit of an engine without a clock or move time";
        break;
    }
    case REASON_ENGINE_CRASH:
        if (!cfg->cmd[mover][0])
            off = "the built-in engine cannot crash";
        break;
    case REASON_RESIGN:
        if (!cfg->cmd[player_to_move(g)][0])
            off = "the built-in engine does not resign";
        break;
    default:
        break;
    }
    if (off) {
        snprintf(why, size, "%s", off);
        return false;
    }
    return true;
}

AcceptVerdict coord_accept_game(const CoordConfig *cfg, RunFile *rf, Schedule *sched,
                                const ProtoGame *g, PackedPos *boards, CoordAccepted *out,
                                char *why, size_t size)
{
    if (g->run_id != runfile_run_id(rf))
        return reject(why, size, "run id %016llx is not this run's %016llx",
                      (unsigned long long)g->run_id, (unsigned long long)runfile_run_id(rf));
    if (runfile_find_game(rf, g->pair_id, g->game_in_pair, &out->game_id))
        return ACCEPT_DUPLICATE;
    AcceptVerdict verdict = ACCEPT_STORE;
    Pair *p = coord_sched_pair(sched, g->pair_id);
    if (!p) {
        if (!coord_sched_can_adopt(sched, g->pair_id))
            return reject(why, size, "pair %llu was not handed out in this run",
                          (unsigned long long)g->pair_id);
        verdict = ACCEPT_ADOPT; /* a result from before a coordinator restart */
    } else if (p->state == PAIR_DROPPED) {
        return reject(why, size, "pair %llu was dropped", (unsigned long long)g->pair_id);
    }
    SchedError serr;
    const Opening *op = coord_sched_opening(sched, g->pair_id, &serr);
    if (!op)
        return reject(why, size, "%s", serr.msg);
    int engine[2]; /* the pair's engines; engine[0] has Red in game 0, Black in game 1 */
    coord_sched_pair_engines(sched, g->pair_id, &engine[0], &engine[1]);
    if (!plays_opening(&g->rec, op, why, size) ||
        !within_settings(g, cfg, engine[player_to_move(g)], why, size))
        return ACCEPT_REJECT;
    PosError perr;
    if (!record_validate_boards(&g->rec, boards, &perr))
        return reject(why, size, "replay: %s", perr.msg);
    out->red = engine[g->game_in_pair];
    out->black = engine[1 - g->game_in_pair];
    out->key = runfile_record_key(&g->rec);
    return verdict;
}
