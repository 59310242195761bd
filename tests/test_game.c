/*
 * The game loop and openings: node-limited games are reproducible and start from a
 * fresh engine state, the move cap and both adjudications end a game exactly where
 * their conditions first hold (checked against an independent reading of the
 * recorded scores), mates end with the right winner, pairs swap colours; opening
 * files report bad lines by number and keep the good ones, random openings follow
 * their seed and respect the score bound. Every finished game passes record_validate.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <time.h>

#include "engine.h"
#include "game.h"
#include "movegen.h"
#include "notation.h"
#include "opening.h"
#include "record.h"
#include "rules.h"

static Engine *g_engine[2];
static GameRecord g_rec[4];
static Position g_pos;

enum { NODES = 800, MATE_NODES = 6400 };

/* A clearly won ending: Red has a chariot more, both sides keep their defenders. */
static const char *const RED_UP_FEN = "2bakab2/9/9/9/9/9/9/9/4A4/2BA1KBR1 w - - 0 1";
/* The same for Black, Black to move. */
static const char *const BLACK_UP_FEN = "2ba1kbr1/4a4/9/9/9/9/9/9/9/2BAKAB2 b - - 0 1";
/* A level ending: horse and pawn each behind full defences. */
static const char *const LEVEL_FEN = "3akab2/9/4b4/9/2n3p2/6P2/2N6/4B4/9/3AKAB2 w - - 0 1";

static void player_init(GamePlayer *p, Engine *e, uint64_t nodes, int depth)
{
    memset(p, 0, sizeof *p);
    p->engine = e;
    time_limits_clear(&p->limits);
    p->limits.nodes = nodes;
    p->limits.depth = depth;
}

static void opening_from(Opening *op, const char *fen, const char *moves)
{
    memset(op, 0, sizeof *op);
    snprintf(op->fen, sizeof op->fen, "%s", fen);
    PosError err = {{0}};
    Position *pos = &g_pos;
    if (!pos_set_fen(pos, fen, &err))
        fail_msg("%s: %s", fen, err.msg);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", moves ? moves : "");
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        Move m = move_parse_legal(pos, tok);
        assert_true(m != MOVE_NONE);
        op->moves[op->nmoves++] = m;
        pos_do_move(pos, m);
    }
}

static void expect_valid(const GameRecord *r)
{
    PosError err = {{0}};
    if (!record_validate(r, &err))
        fail_msg("game %llu refused: %s", (unsigned long long)r->game_id, err.msg);
}

static void play(GamePlayer *red, GamePlayer *black, const Opening *op, const GameSettings *s,
                 GameRecord *r)
{
    GameError err = {{0}};
    GameStatus st = game_play(red, black, op, s, 1, r, &err);
    if (st != GAME_OK)
        fail_msg("game_play: status %d: %s", st, err.msg);
    expect_valid(r);
}

static bool same_game(const GameRecord *a, const GameRecord *b)
{
    return !strcmp(a->start_fen, b->start_fen) && a->nplies == b->nplies &&
           a->outcome == b->outcome && a->reason == b->reason &&
           !memcmp(a->plies, b->plies, (size_t)a->nplies * sizeof a->plies[0]);
}

/* ---- the loop ------------------------------------------------------------------- */

static void test_deterministic(void **state)
{
    (void)state;
    Opening op;
    opening_from(&op, START_FEN, "h2e2 h9g7");
    GamePlayer a, b;
    player_init(&a, g_engine[0], NODES, 0);
    player_init(&b, g_engine[1], NODES + 300, 0);
    GameSettings s;
    game_settings_default(&s);
    s.max_plies = 60;
    play(&a, &b, &op, &s, &g_rec[0]);
    play(&a, &b, &op, &s, &g_rec[1]);
    assert_true(same_game(&g_rec[0], &g_rec[1]));
    /* Swapping which engine object plays changes nothing either: both are fresh. */
    player_init(&a, g_engine[1], NODES, 0);
    player_init(&b, g_engine[0], NODES + 300, 0);
    play(&a, &b, &op, &s, &g_rec[2]);
    assert_true(same_game(&g_rec[0], &g_rec[2]));
    /* The opening moves are flagged and carry no search. */
    for (int i = 0; i < 2; i++) {
        const RecordPly *p = &g_rec[0].plies[i];
        assert_true(p->flags & RECORD_FLAG_OPENING);
        assert_int_equal(p->move, op.moves[i]);
        assert_int_equal(p->best, MOVE_NONE);
        assert_int_equal(p->depth, 0);
        assert_int_equal(p->nodes, 0);
        assert_int_equal(p->score, 0);
    }
    for (int i = 2; i < g_rec[0].nplies; i++) {
        const RecordPly *p = &g_rec[0].plies[i];
        assert_false(p->flags & RECORD_FLAG_OPENING);
        assert_int_equal(p->move, p->best);
        assert_true(p->depth >= 1);
        assert_true(p->nodes >= 1);
        assert_true(p->nodes <= (i % 2 == 0 ? NODES : NODES + 300) + 64);
    }
}

/* An engine that has just played another game plays the next one as a new engine. */
static void test_fresh_state_per_game(void **state)
{
    (void)state;
    Opening first, second;
    opening_from(&first, START_FEN, "b2e2 b9c7 b0c2");
    opening_from(&second, START_FEN, "h0g2 c6c5");
    GamePlayer used, fresh;
    player_init(&used, g_engine[0], NODES, 0);
    GameSettings s;
    game_settings_default(&s);
    s.max_plies = 50;
    play(&used, &used, &first, &s, &g_rec[0]);
    play(&used, &used, &second, &s, &g_rec[1]);
    Engine *e = engine_new();
    assert_non_null(e);
    assert_true(engine_set_hash(e, 1));
    player_init(&fresh, e, NODES, 0);
    play(&fresh, &fresh, &second, &s, &g_rec[2]);
    engine_free(&e);
    assert_true(same_game(&g_rec[1], &g_rec[2]));
}

static void test_move_cap(void **state)
{
    (void)state;
    Opening op;
    opening_from(&op, START_FEN, NULL);
    GamePlayer p;
    player_init(&p, g_engine[0], NODES, 0);
    GameSettings s;
    game_settings_default(&s);
    for (int cap = 1; cap <= 21; cap += 10) {
        s.max_plies = cap;
        play(&p, &p, &op, &s, &g_rec[0]);
        assert_int_equal(g_rec[0].nplies, cap);
        assert_int_equal(g_rec[0].outcome, OUTCOME_DRAW);
        assert_int_equal(g_rec[0].reason, REASON_MOVE_LIMIT);
    }
    /* An opening longer than the cap is refused. */
    opening_from(&op, START_FEN, "h2e2 h9g7 h0g2");
    s.max_plies = 2;
    GameError err = {{0}};
    assert_int_equal(game_play(&p, &p, &op, &s, 1, &g_rec[0], &err), GAME_ERROR);
    assert_non_null(strstr(err.msg, "limit"));
}

/*
 * Independent reading of the adjudication rules over a record: the index of the first
 * ply after which they hold, or -1. Scores of each side are read backwards from ply i.
 */
static bool last_scores_all(const GameRecord *r, int i, Color side, Color first_mover, int n,
                            int lo, int hi, int min_ply)
{
    int seen = 0;
    for (int j = i; j >= 0 && seen < n; j--) {
        Color mover = (j % 2 == 0) ? first_mover : color_flip(first_mover);
        if (mover != side)
            continue;
        const RecordPly *p = &r->plies[j];
        if (p->flags & RECORD_FLAG_OPENING || j < min_ply)
            return false;
        if (p->score < lo || p->score > hi)
            return false;
        seen++;
    }
    return seen == n;
}

static int expected_adjudication(const GameRecord *r, const GameSettings *s, Color first_mover,
                                 Outcome *o)
{
    for (int i = 0; i < r->nplies; i++) {
        for (Color c = RED; s->resign_moves && c < COLOR_NB; c++)
            if (last_scores_all(r, i, c, first_mover, s->resign_moves, -100000, -s->resign_score,
                                0) &&
                last_scores_all(r, i, color_flip(c), first_mover, s->resign_moves, s->resign_score,
                                100000, 0)) {
                *o = c == RED ? OUTCOME_BLACK_WIN : OUTCOME_RED_WIN;
                return i;
            }
        if (s->draw_moves &&
            last_scores_all(r, i, RED, first_mover, s->draw_moves, -s->draw_score, s->draw_score,
                            s->draw_after) &&
            last_scores_all(r, i, BLACK, first_mover, s->draw_moves, -s->draw_score, s->draw_score,
                            s->draw_after)) {
            *o = OUTCOME_DRAW;
            return i;
        }
    }
    return -1;
}

/* Plays from fen and checks that the game ended by adjudication exactly where the
 * scores first allowed it, or not by adjudication when they never did. */
static int play_adjudicated(const char *fen, const GameSettings *s, GameRecord *r)
{
    Opening op;
    opening_from(&op, fen, NULL);
    GamePlayer p;
    player_init(&p, g_engine[0], NODES, 0);
    play(&p, &p, &op, s, r);
    Position *pos = &g_pos;
    PosError err;
    assert_true(pos_set_fen(pos, fen, &err));
    Outcome o = OUTCOME_NONE;
    int at = expected_adjudication(r, s, pos->side, &o);
    /* Adjudications may share their reason with the move limit (record.h). */
    bool adjudged =
        (r->reason == REASON_ADJUDICATION_RESIGN || r->reason == REASON_ADJUDICATION_DRAW) &&
        !(r->reason == REASON_MOVE_LIMIT && r->nplies == s->max_plies);
    if (at < 0) {
        if (adjudged)
            fail_msg("adjudicated after %d plies, but the scores never allowed it", r->nplies);
        return -1;
    }
    if (!adjudged)
        fail_msg("the scores allowed adjudication after ply %d; the game ended by %s after %d",
                 at + 1, rules_reason_name(r->reason), r->nplies);
    assert_int_equal(r->nplies, at + 1);
    assert_int_equal(r->outcome, o);
    assert_int_equal(r->reason,
                     o == OUTCOME_DRAW ? REASON_ADJUDICATION_DRAW : REASON_ADJUDICATION_RESIGN);
    return at;
}

static void test_resign_adjudication(void **state)
{
    (void)state;
    GameSettings s;
    game_settings_default(&s);
    s.max_plies = 40;
    s.resign_moves = 3;
    s.resign_score = 500;
    assert_true(play_adjudicated(RED_UP_FEN, &s, &g_rec[0]) >= 0);
    assert_int_equal(g_rec[0].outcome, OUTCOME_RED_WIN);
    assert_true(play_adjudicated(BLACK_UP_FEN, &s, &g_rec[0]) >= 0);
    assert_int_equal(g_rec[0].outcome, OUTCOME_BLACK_WIN);
    /* More moves needed: later, still exactly where the scores allow it. */
    s.resign_moves = 6;
    assert_true(play_adjudicated(RED_UP_FEN, &s, &g_rec[0]) >= 5);
    /* A threshold the scores never reach: no adjudication. */
    s.resign_moves = 3;
    s.resign_score = 5000;
    assert_int_equal(play_adjudicated(RED_UP_FEN, &s, &g_rec[0]), -1);
    assert_int_equal(g_rec[0].reason, REASON_MOVE_LIMIT);
    /* A level game is never resigned. */
    s.resign_score = 300;
    assert_int_equal(play_adjudicated(LEVEL_FEN, &s, &g_rec[0]), -1);
}

static void test_draw_adjudication(void **state)
{
    (void)state;
    GameSettings s = {.max_plies = 40, .draw_moves = 4, .draw_score = 30, .draw_after = 6};
    int at = play_adjudicated(LEVEL_FEN, &s, &g_rec[0]);
    assert_true(at >= s.draw_after + 2 * s.draw_moves - 1);
    assert_int_equal(g_rec[0].outcome, OUTCOME_DRAW);
    /* Not before ply draw_after. */
    s.draw_after = 16;
    at = play_adjudicated(LEVEL_FEN, &s, &g_rec[0]);
    assert_true(at < 0 || at >= 16 + 2 * 4 - 1);
    /* A won game is not drawn. */
    s.draw_after = 0;
    assert_int_equal(play_adjudicated(RED_UP_FEN, &s, &g_rec[0]), -1);
    /* A bound the scores never meet. */
    s.draw_score = -1;
    assert_int_equal(play_adjudicated(LEVEL_FEN, &s, &g_rec[0]), -1);
}

/* A game to the end from fen: the side left without a move loses. Returns whether an
 * adjudication setting was found that would have ended the game on the same ply. */
static bool expect_mate(const char *fen, Outcome winner)
{
    Opening op;
    opening_from(&op, fen, NULL);
    GamePlayer p;
    /* chariot against two advisors takes technique: at NODES a move the search, which
     * prunes no check, may chase the general for more than 60 plies */
    player_init(&p, g_engine[1], MATE_NODES, 0);
    GameSettings s;
    game_settings_default(&s);
    s.max_plies = 60;
    play(&p, &p, &op, &s, &g_rec[0]);
    const GameRecord *r = &g_rec[0];
    /* No legal move loses, in check or not. */
    if (r->reason != REASON_CHECKMATE && r->reason != REASON_STALEMATE)
        fail_msg("%s: ended by %s after %d plies", fen, rules_reason_name(r->reason), r->nplies);
    assert_int_equal(r->outcome, winner);
    /* The winner made the last move, and its score announced the mate. */
    Position *pos = &g_pos;
    PosError err;
    assert_true(pos_set_fen(pos, fen, &err));
    Color last = r->nplies % 2 ? pos->side : color_flip(pos->side);
    assert_int_equal(last == RED ? OUTCOME_RED_WIN : OUTCOME_BLACK_WIN, winner);
    const RecordPly *p_last = &r->plies[r->nplies - 1];
    assert_true(p_last->score >= VALUE_MATE_IN_MAX_PLY && p_last->score <= VALUE_MATE);
    assert_int_equal(!!(p_last->flags & RECORD_FLAG_GIVES_CHECK), r->reason == REASON_CHECKMATE);
    for (int i = 0; i < r->nplies; i++)
        assert_true(r->plies[i].score >= -VALUE_MATE && r->plies[i].score <= VALUE_MATE);

    /* When the mating move also completes the resign condition, the rules' verdict is
     * the one recorded. Find a resign setting that first holds on the last ply. */
    for (int k = 1; k <= 4 && k <= r->nplies; k++) {
        int score = r->plies[r->nplies - k].score;
        s.resign_score = score < 0 ? -score : score;
        for (s.resign_moves = 1; s.resign_moves <= 4; s.resign_moves++) {
            Outcome o;
            if (expected_adjudication(r, &s, pos->side, &o) != r->nplies - 1)
                continue;
            play(&p, &p, &op, &s, &g_rec[1]);
            assert_int_equal(g_rec[1].nplies, r->nplies);
            assert_int_equal(g_rec[1].reason, r->reason);
            return true;
        }
    }
    return false;
}

static void test_checkmate_games(void **state)
{
    (void)state;
    int coincide = 0;
    coincide += expect_mate("3k5/9/9/9/9/9/9/9/R8/R3K4 w - - 0 1", OUTCOME_RED_WIN);
    coincide += expect_mate("r3k4/r8/9/9/9/9/9/9/9/3K5 b - - 0 1", OUTCOME_BLACK_WIN);
    coincide += expect_mate("3k5/9/9/9/9/9/9/9/R8/R3K4 b - - 0 1", OUTCOME_RED_WIN);
    coincide += expect_mate("3ak4/4a4/9/9/9/9/9/9/9/R2K5 w - - 0 1", OUTCOME_RED_WIN);
    assert_true(coincide >= 1);
}

static void test_pair(void **state)
{
    (void)state;
    Opening op;
    opening_from(&op, START_FEN, "c3c4 c6c5");
    GamePlayer first, second;
    player_init(&first, g_engine[0], 0, 1); /* depth 1 */
    player_init(&second, g_engine[1], NODES, 0);
    GameSettings s;
    game_settings_default(&s);
    s.max_plies = 30;
    GameError err = {{0}};
    assert_int_equal(game_play_pair(&first, &second, &op, &s, 100, g_rec, &err), GAME_OK);
    for (int g = 0; g < 2; g++) {
        const GameRecord *r = &g_rec[g];
        expect_valid(r);
        assert_true(r->game_id == 100 + (uint64_t)g);
        assert_string_equal(r->start_fen, g_rec[0].start_fen);
        assert_int_equal(r->plies[0].move, op.moves[0]);
        assert_int_equal(r->plies[1].move, op.moves[1]);
        /* In game 0 the depth-1 player is Red (even plies), in game 1 Black. */
        int deeper = 0;
        for (int i = op.nmoves; i < r->nplies; i++) {
            bool first_moves = (i % 2 == 0) == (g == 0);
            if (first_moves)
                assert_int_equal(r->plies[i].depth, 1);
            else
                deeper += r->plies[i].depth > 1;
        }
        assert_true(deeper > 0);
    }
}

static bool stop_after_five(void *ctx, const GameRecord *r)
{
    int *calls = ctx;
    (*calls)++;
    assert_int_equal(r->outcome, OUTCOME_NONE);
    return r->nplies < 5;
}

static void test_stop_and_errors(void **state)
{
    (void)state;
    Opening op;
    opening_from(&op, START_FEN, "h2e2");
    GamePlayer p;
    player_init(&p, g_engine[0], NODES, 0);
    GameSettings s;
    game_settings_default(&s);
    int calls = 0;
    s.on_ply = stop_after_five;
    s.ctx = &calls;
    GameError err = {{0}};
    assert_int_equal(game_play(&p, &p, &op, &s, 1, &g_rec[0], &err), GAME_STOPPED);
    assert_int_equal(g_rec[0].nplies, 5);
    assert_int_equal(calls, 5);
    assert_int_equal(g_rec[0].outcome, OUTCOME_NONE);

    game_settings_default(&s);
    op.moves[op.nmoves++] = move_from_text("h2e2"); /* the same move again: illegal */
    memset(&err, 0, sizeof err);
    assert_int_equal(game_play(&p, &p, &op, &s, 1, &g_rec[0], &err), GAME_ERROR);
    assert_non_null(strstr(err.msg, "illegal"));

    opening_from(&op, "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1", NULL); /* already drawn */
    memset(&err, 0, sizeof err);
    assert_int_equal(game_play(&p, &p, &op, &s, 1, &g_rec[0], &err), GAME_ERROR);
    assert_non_null(strstr(err.msg, "over"));

    memset(&err, 0, sizeof err);
    assert_int_equal(game_play(&p, &p, &op, NULL, 1, &g_rec[0], &err), GAME_ERROR);
    GamePlayer none = {0};
    opening_from(&op, START_FEN, NULL);
    assert_int_equal(game_play(&p, &none, &op, NULL, 1, &g_rec[0], &err), GAME_ERROR);
}

/* ---- openings -------------------------------------------------------------------- */

static char g_errors[8][512];
static int g_nerrors;

static void collect_error(void *ctx, const char *msg)
{
    (void)ctx;
    if (g_nerrors < 8)
        snprintf(g_errors[g_nerrors], sizeof g_errors[0], "%s", msg);
    g_nerrors++;
}

static void test_opening_file(void **state)
{
    (void)state;
    char path[] = "/tmp/chuhe-openings-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("# openings for the test\n"                                               /* 1 */
          "\n"                                                                      /* 2 */
          "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\n" /* 3 */
          "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - "
          "hmvc 3; fmvn 7; id \"a; b\";\n"                         /* 4 */
          "   # an indented comment\n"                             /* 5 */
          "this is not a position\n"                               /* 6 */
          "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1\n"                    /* 7 */
          "3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1\n"                   /* 8 */
          "3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1;D1 10;D2 34\n"       /* 9 */
          "3k5/9/9/9/9/9/9/9/9/4K3R b - -\n"                       /* 10 */
          "3k5/9/9/9/9/9/9/9/9/4K3R w - - c0 \"no semicolon\"\r\n" /* 11 */
          "3k5/9/9/9/9/9/9/9/9/4K3R w - - 120 1\n"                 /* 12 */
          "3k5/9/9/9/9/9/9/9/9/4K3R w - - hmvc x;\n"               /* 13 */
          "3k5/9/9/9/9/9/9/9/9/4K3R w\n",                          /* 14 */
          f);
    fclose(f);

    OpeningList list;
    opening_list_init(&list);
    OpeningError err = {{0}};
    g_nerrors = 0;
    int bad = opening_list_load(&list, path, collect_error, NULL, &err);
    assert_int_equal(bad, 5);
    assert_int_equal(g_nerrors, 5);
    assert_int_equal(list.count, 6);
    const int bad_lines[] = {6, 7, 8, 12, 13};
    for (int i = 0; i < 5; i++) {
        char where[64];
        snprintf(where, sizeof where, "%s:%d: ", path, bad_lines[i]);
        if (strncmp(g_errors[i], where, strlen(where)) != 0)
            fail_msg("error %d '%s' does not start with '%s'", i, g_errors[i], where);
    }
    assert_non_null(strstr(g_errors[1], "over"));
    assert_non_null(strstr(g_errors[2], "over"));
    assert_string_equal(list.items[0].fen, START_FEN);
    assert_string_equal(list.items[1].fen,
                        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 3 7");
    assert_string_equal(list.items[2].fen, "3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1");
    assert_string_equal(list.items[3].fen, "3k5/9/9/9/9/9/9/9/9/4K3R b - - 0 1");
    assert_string_equal(list.items[5].fen, "3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1");
    for (int i = 0; i < list.count; i++)
        assert_int_equal(list.items[i].nmoves, 0);

    /* Loading again appends; no callback is needed. */
    assert_int_equal(opening_list_load(&list, path, NULL, NULL, &err), 5);
    assert_int_equal(list.count, 12);
    opening_list_free(&list);
    assert_int_equal(list.count, 0);
    unlink(path);

    assert_int_equal(opening_list_load(&list, path, NULL, NULL, &err), -1);
    assert_non_null(strstr(err.msg, path));
}

static bool same_opening(const Opening *a, const Opening *b)
{
    return !strcmp(a->fen, b->fen) && a->nmoves == b->nmoves &&
           !memcmp(a->moves, b->moves, (size_t)a->nmoves * sizeof a->moves[0]);
}

static void test_random_openings(void **state)
{
    (void)state;
    enum { SEEDS = 12 };
    static Opening ops[SEEDS];
    RandomOpeningSpec spec = {0};
    spec.plies = 8;
    OpeningError err = {{0}};
    for (int i = 0; i < SEEDS; i++) {
        RandomOpeningInfo info;
        if (!opening_random(&ops[i], &spec, 1000 + (uint64_t)i, &info, &err))
            fail_msg("seed %d: %s", i, err.msg);
        assert_int_equal(ops[i].nmoves, 8);
        assert_string_equal(ops[i].fen, START_FEN);
        Opening again, copy = ops[i];
        PosError perr;
        assert_true(opening_check(&copy, &perr));
        assert_true(opening_random(&again, &spec, 1000 + (uint64_t)i, NULL, &err));
        assert_true(same_opening(&ops[i], &again));
        for (int j = 0; j < i; j++)
            assert_false(same_opening(&ops[i], &ops[j]));
    }
    /* From another position, Black to move; zero plies is the position itself. */
    spec.fen = "3k5/9/9/9/9/9/9/9/9/4K3R b - - 7 20";
    spec.plies = 5;
    Opening op;
    assert_true(opening_random(&op, &spec, 5, NULL, &err));
    assert_string_equal(op.fen, spec.fen);
    assert_int_equal(op.nmoves, 5);
    spec.plies = 0;
    assert_true(opening_random(&op, &spec, 5, NULL, &err));
    assert_int_equal(op.nmoves, 0);
    /* A start that is already over, and bad parameters. */
    spec.fen = "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1";
    assert_false(opening_random(&op, &spec, 5, NULL, &err));
    assert_non_null(strstr(err.msg, "over"));
    spec.fen = NULL;
    spec.plies = OPENING_MAX_MOVES + 1;
    assert_false(opening_random(&op, &spec, 5, NULL, &err));
}

static void test_random_openings_bounded(void **state)
{
    (void)state;
    RandomOpeningSpec spec = {0};
    spec.plies = 10;
    spec.engine = g_engine[0];
    spec.nodes = 1000;
    spec.max_score = 60;
    OpeningError err = {{0}};
    int attempts = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        Opening op, again;
        RandomOpeningInfo info, info2;
        if (!opening_random(&op, &spec, seed, &info, &err))
            fail_msg("seed %llu: %s", (unsigned long long)seed, err.msg);
        assert_true(info.score >= -spec.max_score && info.score <= spec.max_score);
        attempts += info.attempts;
        assert_true(opening_random(&again, &spec, seed, &info2, &err));
        assert_true(same_opening(&op, &again));
        assert_int_equal(info.attempts, info2.attempts);
        assert_int_equal(info.score, info2.score);
        /* The score is the engine's on the final position, searched from scratch. */
        char text[OPENING_MAX_MOVES][5];
        const char *moves[OPENING_MAX_MOVES];
        for (int i = 0; i < op.nmoves; i++) {
            move_to_text(op.moves[i], text[i]);
            moves[i] = text[i];
        }
        PosError perr;
        engine_new_game(g_engine[1]);
        assert_true(engine_set_position(g_engine[1], op.fen, moves, op.nmoves, &perr));
        SearchLimits limits;
        time_limits_clear(&limits);
        limits.nodes = spec.nodes;
        assert_int_equal(engine_search(g_engine[1], &limits, NULL).score, info.score);
        /* Without the bound the first attempt is taken: the bound did the filtering. */
        RandomOpeningSpec plain = spec;
        plain.engine = NULL;
        Opening first;
        assert_true(opening_random(&first, &plain, seed, NULL, &err));
        if (info.attempts == 1)
            assert_true(same_opening(&first, &op));
    }
    print_message("# bounded random openings: %d attempts for 4\n", attempts);
    /* An impossible bound fails after the attempt cap, and says so. */
    spec.max_score = -1;
    spec.max_attempts = 3;
    Opening op;
    RandomOpeningInfo info;
    assert_false(opening_random(&op, &spec, 9, &info, &err));
    assert_int_equal(info.attempts, 3);
    assert_non_null(strstr(err.msg, "3 attempts"));
}

static int group_setup(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++) {
        g_engine[i] = engine_new();
        if (!g_engine[i] || !engine_set_hash(g_engine[i], 1))
            return -1;
    }
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++)
        engine_free(&g_engine[i]);
    return 0;
}

/* ---- search callbacks (external engines) and clocks ------------------------------ */

typedef struct {
    GameSearchStatus status;
    const char *move; /* reply; NULL: the first legal move */
    int sleep_ms;     /* before answering */
    int calls, new_games;
    int64_t last_time; /* limits.time of the mover at the last call */
    int last_nmoves;
} FakeEngine;

static GameSearchStatus fake_search(void *ctx, const char *start_fen, const char *const *moves,
                                    int nmoves, const SearchLimits *limits, int64_t deadline_ms,
                                    SearchResult *out)
{
    FakeEngine *f = ctx;
    (void)deadline_ms;
    f->calls++;
    f->last_nmoves = nmoves;
    Position pos;
    PosError err;
    assert_true(pos_set_fen(&pos, start_fen, &err));
    for (int i = 0; i < nmoves; i++)
        pos_do_move(&pos, move_parse_legal(&pos, moves[i]));
    f->last_time = limits->time[pos.side];
    if (f->sleep_ms)
        nanosleep(&(struct timespec){0, f->sleep_ms * 1000000L}, NULL);
    memset(out, 0, sizeof *out);
    if (f->move) {
        out->best = move_from_text(f->move);
    } else {
        MoveList list;
        gen_legal(&pos, &list);
        out->best = list.count ? list.moves[0] : MOVE_NONE;
    }
    return f->status;
}

static void fake_new_game(void *ctx)
{
    ((FakeEngine *)ctx)->new_games++;
}

static void fake_player(GamePlayer *p, FakeEngine *f)
{
    memset(p, 0, sizeof *p);
    time_limits_clear(&p->limits);
    p->limits.nodes = 100;
    p->search = fake_search;
    p->new_game = fake_new_game;
    p->search_ctx = f;
}

static void test_external_player_losses(void **state)
{
    (void)state;
    GamePlayer builtin, ext;
    player_init(&builtin, g_engine[0], NODES, 0);
    Opening op;
    opening_from(&op, START_FEN, "h2e2");
    /* a crash loses for the mover, before any move of its own is recorded */
    FakeEngine f = {.status = GAME_SEARCH_CRASH};
    fake_player(&ext, &f);
    play(&builtin, &ext, &op, NULL, &g_rec[0]);
    assert_int_equal(g_rec[0].reason, REASON_ENGINE_CRASH);
    assert_int_equal(g_rec[0].outcome, OUTCOME_RED_WIN);
    assert_int_equal(g_rec[0].nplies, 1);
    assert_int_equal(f.new_games, 1);
    /* an impossible move and a well-formed illegal one */
    const char *bad[] = {"a0a0", "a0a5"};
    for (int i = 0; i < 2; i++) {
        FakeEngine g = {.status = GAME_SEARCH_OK, .move = bad[i]};
        fake_player(&ext, &g);
        play(&ext, &builtin, &op, NULL, &g_rec[0]);
        assert_int_equal(g_rec[0].reason, REASON_ILLEGAL_MOVE);
        /* the opening move was Red's, so ext (Red) moves second and loses */
        assert_int_equal(g_rec[0].outcome, OUTCOME_BLACK_WIN);
    }
    /* no answer by the deadline: a time forfeit with a clock, a crash without */
    FakeEngine h = {.status = GAME_SEARCH_TIMEOUT};
    fake_player(&ext, &h);
    play(&builtin, &ext, &op, NULL, &g_rec[0]);
    assert_int_equal(g_rec[0].reason, REASON_ENGINE_CRASH);
    ext.clock_base_ms = 1000;
    play(&builtin, &ext, &op, NULL, &g_rec[0]);
    assert_int_equal(g_rec[0].reason, REASON_TIME_FORFEIT);
    assert_int_equal(g_rec[0].outcome, OUTCOME_RED_WIN);
    /* a resignation loses for the engine that resigned, whichever side it plays */
    FakeEngine r = {.status = GAME_SEARCH_RESIGN};
    fake_player(&ext, &r);
    play(&builtin, &ext, &op, NULL, &g_rec[0]);
    assert_int_equal(g_rec[0].reason, REASON_RESIGN);
    assert_int_equal(g_rec[0].outcome, OUTCOME_RED_WIN);
    play(&ext, &builtin, &op, NULL, &g_rec[0]);
    assert_int_equal(g_rec[0].reason, REASON_RESIGN);
    assert_int_equal(g_rec[0].outcome, OUTCOME_BLACK_WIN);
    assert_int_equal(g_rec[0].nplies, 2);
}

static void test_clocks(void **state)
{
    (void)state;
    Opening op;
    opening_from(&op, START_FEN, NULL);
    /* a 150 ms clock and 60 ms per move: out of time at the third move, before these
     * first-legal-move engines can repeat */
    FakeEngine slow = {.status = GAME_SEARCH_OK, .sleep_ms = 60};
    FakeEngine fast = {.status = GAME_SEARCH_OK};
    GamePlayer a, b;
    fake_player(&a, &slow);
    fake_player(&b, &fast);
    a.clock_base_ms = b.clock_base_ms = 150;
    a.margin_ms = b.margin_ms = 0;
    play(&a, &b, &op, NULL, &g_rec[0]);
    assert_int_equal(g_rec[0].reason, REASON_TIME_FORFEIT);
    assert_int_equal(g_rec[0].outcome, OUTCOME_BLACK_WIN);
    assert_true(slow.calls >= 1 && slow.calls <= 3);
    assert_true(slow.last_time > 0 && slow.last_time < 150);
    /* the increment keeps it alive; the opponent's limits show its own clock */
    slow.calls = 0;
    a.clock_inc_ms = 200;
    GameSettings s;
    game_settings_default(&s);
    s.max_plies = 30;
    play(&a, &b, &op, &s, &g_rec[0]);
    /* (first-legal-move engines soon repeat: the game ends by the rules, not the clock) */
    assert_int_not_equal(g_rec[0].reason, REASON_TIME_FORFEIT);
    assert_true(slow.calls > 3);
    /* a fixed move time: a move slower than it plus the margin forfeits */
    FakeEngine late = {.status = GAME_SEARCH_OK, .sleep_ms = 60};
    fake_player(&a, &late);
    a.limits.movetime = 20;
    a.margin_ms = 10;
    play(&a, &b, &op, NULL, &g_rec[0]);
    assert_int_equal(g_rec[0].reason, REASON_TIME_FORFEIT);
    assert_int_equal(g_rec[0].nplies, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_fresh_state_per_game),
        cmocka_unit_test(test_move_cap),
        cmocka_unit_test(test_resign_adjudication),
        cmocka_unit_test(test_draw_adjudication),
        cmocka_unit_test(test_checkmate_games),
        cmocka_unit_test(test_pair),
        cmocka_unit_test(test_stop_and_errors),
        cmocka_unit_test(test_opening_file),
        cmocka_unit_test(test_random_openings),
        cmocka_unit_test(test_random_openings_bounded),
        cmocka_unit_test(test_external_player_losses),
        cmocka_unit_test(test_clocks),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
