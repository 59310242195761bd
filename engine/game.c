#include "game.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "movegen.h"
#include "notation.h"
#include "rules.h"

/* Working state of one game; on the heap, being too large for a thread's stack. */
typedef struct {
    Position pos;
    char text[RECORD_MAX_PLIES][5];
    const char *moves[RECORD_MAX_PLIES];
    /* consecutive searched moves of each side that meet each adjudication test */
    int losing[COLOR_NB];
    int winning[COLOR_NB];
    int level[COLOR_NB];
    int64_t clock[COLOR_NB]; /* ms left; meaningful for players with a clock */
} GameState;

void game_settings_default(GameSettings *s)
{
    memset(s, 0, sizeof *s);
    s->max_plies = RECORD_MAX_PLIES;
}

/* Mate scores stay exact: VALUE_MATE fits an int16; only out-of-range values (an
 * aborted first iteration) are cut. */
static int16_t clamp_score(Value v)
{
    return (int16_t)(v > VALUE_MATE ? VALUE_MATE : v < -VALUE_MATE ? -VALUE_MATE : v);
}

/* Plays ply->move on the game position and appends it to the record and the move list. */
static bool play_move(GameState *g, GameRecord *r, RecordPly *ply)
{
    ply->flags |= record_move_flags(&g->pos, ply->move);
    if (!record_push(r, ply))
        return false;
    int i = r->nplies - 1;
    move_to_text(ply->move, g->text[i]);
    g->moves[i] = g->text[i];
    /* History before the last capture can never repeat, so trimming loses nothing. */
    if (pos_history_full(&g->pos))
        pos_trim_history(&g->pos);
    pos_do_move(&g->pos, ply->move);
    return true;
}

/* The mover's player searches the game position; the caller checks the move. Sets
 * *lost to a reason when the player loses before its move is judged (crash, time). */
static GameStatus search_move(GameState *g, GamePlayer *p, GamePlayer *opp, Color mover,
                              const GameRecord *r, RecordPly *ply, Reason *lost, GameError *err)
{
    SearchLimits limits = p->limits;
    Color them = color_flip(mover);
    bool clocked = p->clock_base_ms > 0;
    if (clocked) {
        limits.time[mover] = g->clock[mover] > 1 ? g->clock[mover] : 1;
        limits.inc[mover] = p->clock_inc_ms;
        limits.time[them] =
            opp->clock_base_ms > 0 ? (g->clock[them] > 1 ? g->clock[them] : 1) : limits.time[mover];
        limits.inc[them] = opp->clock_base_ms > 0 ? opp->clock_inc_ms : p->clock_inc_ms;
    }
    int64_t allowed = clocked           ? g->clock[mover] + p->margin_ms
                      : limits.movetime ? limits.movetime + p->margin_ms
                                        : -1;
    int64_t t0 = time_now_ms();
    SearchResult res;
    *lost = REASON_NONE;
    if (p->search) {
        int64_t deadline = allowed >= 0 ? t0 + (allowed > 0 ? allowed : 1)
                                        : t0 + (p->hang_ms > 0 ? p->hang_ms : 60000);
        memset(&res, 0, sizeof res);
        GameSearchStatus st =
            p->search(p->search_ctx, r->start_fen, g->moves, r->nplies, &limits, deadline, &res);
        if (st == GAME_SEARCH_CRASH || (st == GAME_SEARCH_TIMEOUT && allowed < 0)) {
            *lost = REASON_ENGINE_CRASH;
            return GAME_OK;
        }
        if (st == GAME_SEARCH_TIMEOUT) {
            *lost = REASON_TIME_FORFEIT;
            return GAME_OK;
        }
        if (st == GAME_SEARCH_RESIGN) {
            *lost = REASON_RESIGN;
            return GAME_OK;
        }
    } else {
        PosError perr;
        if (!engine_set_position(p->engine, r->start_fen, g->moves, r->nplies, &perr)) {
            ERROR_SET(err, "engine refused the game position: %s", perr.msg);
            return GAME_ERROR;
        }
        res = engine_search(p->engine, &limits, NULL);
    }
    int64_t elapsed = time_now_ms() - t0;
    if (allowed >= 0 && elapsed > allowed) {
        *lost = REASON_TIME_FORFEIT;
        return GAME_OK;
    }
    if (clocked)
        g->clock[mover] += p->clock_inc_ms - elapsed;
    memset(ply, 0, sizeof *ply);
    ply->move = res.best;
    ply->best = res.best;
    ply->score = clamp_score(res.score);
    ply->depth = (uint8_t)(res.depth < 0 ? 0 : res.depth > 255 ? 255 : res.depth);
    ply->nodes = (uint32_t)(res.nodes > UINT32_MAX ? UINT32_MAX : res.nodes);
    return GAME_OK;
}

/* Updates the adjudication counters with the mover's score; returns the outcome the
 * settings adjudicate, or OUTCOME_NONE. */
static Outcome adjudicate(GameState *g, const GameSettings *s, Color mover, int ply_index,
                          int score, Reason *reason)
{
    Color them = color_flip(mover);
    if (s->resign_moves > 0) {
        g->losing[mover] = score <= -s->resign_score ? g->losing[mover] + 1 : 0;
        g->winning[mover] = score >= s->resign_score ? g->winning[mover] + 1 : 0;
        for (Color c = RED; c < COLOR_NB; c++)
            if (g->losing[c] >= s->resign_moves && g->winning[color_flip(c)] >= s->resign_moves) {
                *reason = REASON_ADJUDICATION_RESIGN;
                return c == RED ? OUTCOME_BLACK_WIN : OUTCOME_RED_WIN;
            }
    }
    if (s->draw_moves > 0) {
        bool counts = ply_index >= s->draw_after;
        bool in_bound = score <= s->draw_score && score >= -s->draw_score;
        g->level[mover] = counts && in_bound ? g->level[mover] + 1 : 0;
        if (g->level[mover] >= s->draw_moves && g->level[them] >= s->draw_moves) {
            *reason = REASON_ADJUDICATION_DRAW;
            return OUTCOME_DRAW;
        }
    }
    return OUTCOME_NONE;
}

static void finish(GameRecord *r, Outcome o, Reason reason)
{
    r->outcome = o;
    r->reason = reason;
}

static GameStatus play_on(GameState *g, GamePlayer *red, GamePlayer *black, const Opening *op,
                          const GameSettings *s, uint64_t game_id, GameRecord *r, GameError *err)
{
    int max_plies =
        s->max_plies > 0 && s->max_plies < RECORD_MAX_PLIES ? s->max_plies : RECORD_MAX_PLIES;
    Opening start = *op;
    PosError perr;
    if (!opening_check(&start, &perr)) {
        ERROR_SET(err, "opening: %s", perr.msg);
        return GAME_ERROR;
    }
    if (start.nmoves > max_plies) {
        ERROR_SET(err, "opening has %d moves, more than the %d-ply limit", start.nmoves, max_plies);
        return GAME_ERROR;
    }
    record_init(r, game_id, start.fen);
    if (!pos_set_fen(&g->pos, start.fen, &perr)) {
        ERROR_SET(err, "opening: %s", perr.msg);
        return GAME_ERROR;
    }
    memset(g->losing, 0, sizeof g->losing);
    memset(g->winning, 0, sizeof g->winning);
    memset(g->level, 0, sizeof g->level);
    if (red->engine && !red->search)
        engine_new_game(red->engine);
    if (black->engine && !black->search && black->engine != red->engine)
        engine_new_game(black->engine);
    if (red->search && red->new_game)
        red->new_game(red->search_ctx);
    if (black->search && black->new_game && black->search_ctx != red->search_ctx)
        black->new_game(black->search_ctx);
    g->clock[RED] = red->clock_base_ms;
    g->clock[BLACK] = black->clock_base_ms;

    /* An adjudication is decided after a move and applied at the top of the loop, once
     * the rules have had their say on the position it led to. */
    Outcome adjudged = OUTCOME_NONE;
    Reason adjudged_reason = REASON_NONE;
    for (;;) {
        Verdict v = rules_judge_game(&g->pos);
        if (v.result != RESULT_NONE) {
            finish(r, record_outcome_from(g->pos.side, v.result), v.reason);
            return GAME_OK;
        }
        if (adjudged != OUTCOME_NONE) {
            finish(r, adjudged, adjudged_reason);
            return GAME_OK;
        }
        if (r->nplies >= max_plies) {
            finish(r, OUTCOME_DRAW, REASON_MOVE_LIMIT);
            return GAME_OK;
        }
        Color mover = g->pos.side;
        int index = r->nplies;
        RecordPly ply;
        if (index < start.nmoves) {
            memset(&ply, 0, sizeof ply);
            ply.move = start.moves[index];
            ply.best = MOVE_NONE;
            ply.flags = RECORD_FLAG_OPENING;
        } else {
            Reason lost;
            GameStatus st = search_move(g, mover == RED ? red : black, mover == RED ? black : red,
                                        mover, r, &ply, &lost, err);
            if (st != GAME_OK)
                return st;
            if (lost != REASON_NONE) {
                finish(r, mover == RED ? OUTCOME_BLACK_WIN : OUTCOME_RED_WIN, lost);
                return GAME_OK;
            }
            if (ply.move == MOVE_NONE || !move_is_legal(&g->pos, ply.move)) {
                finish(r, mover == RED ? OUTCOME_BLACK_WIN : OUTCOME_RED_WIN, REASON_ILLEGAL_MOVE);
                return GAME_OK;
            }
        }
        if (!play_move(g, r, &ply)) {
            ERROR_SET(err, "record full after %d plies", r->nplies);
            return GAME_ERROR;
        }
        if (!(ply.flags & RECORD_FLAG_OPENING))
            adjudged = adjudicate(g, s, mover, index, ply.score, &adjudged_reason);
        if (s->on_ply && !s->on_ply(s->ctx, r))
            return GAME_STOPPED;
    }
}

GameStatus game_play(GamePlayer *red, GamePlayer *black, const Opening *op,
                     const GameSettings *settings, uint64_t game_id, GameRecord *out,
                     GameError *err)
{
    GameSettings defaults;
    if (!settings) {
        game_settings_default(&defaults);
        settings = &defaults;
    }
    if (!red || !black || (!red->engine && !red->search) || (!black->engine && !black->search) ||
        !op) {
        ERROR_SET(err, "game_play needs two players with engines and an opening");
        return GAME_ERROR;
    }
    GameState *g = malloc(sizeof *g);
    if (!g) {
        ERROR_SET(err, "out of memory");
        return GAME_ERROR;
    }
    GameStatus st = play_on(g, red, black, op, settings, game_id, out, err);
    free(g);
    return st;
}

GameStatus game_play_pair(GamePlayer *first, GamePlayer *second, const Opening *op,
                          const GameSettings *settings, uint64_t first_id, GameRecord out[2],
                          GameError *err)
{
    GameStatus st = game_play(first, second, op, settings, first_id, &out[0], err);
    if (st != GAME_OK)
        return st;
    return game_play(second, first, op, settings, first_id + 1, &out[1], err);
}
