/*
 * Opening books: PGN games read in every notation xiangqi programs write (WXF,
 * algebraic with ranks 1-10 or 0-9, coordinates), with FEN tags, comments, variations and
 * move numbers; plies=N; lines longer than an opening holds; chuhe's own PGN export
 * read back; bad games named by file and game number; strict EPD files; and the
 * schedule's sequential and seeded random order with a start offset.
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

#include "coordinator/coord_config.h"
#include "coordinator/coord_sched.h"
#include "game.h"
#include "movegen.h"
#include "notation.h"
#include "opening.h"
#include "pgn.h"
#include "pgn_read.h"
#include "rules.h"

static Position g_pos;
static GameRecord g_rec;
static char g_errors[8][512];
static int g_nerrors;

static void collect(void *ctx, const char *msg)
{
    (void)ctx;
    if (g_nerrors < 8)
        snprintf(g_errors[g_nerrors], sizeof g_errors[0], "%s", msg);
    g_nerrors++;
}

/* Writes text to a new temporary file; path gets its name. */
static void write_file(char path[64], const char *suffix, const char *text)
{
    snprintf(path, 64, "/tmp/chuhe-book-XXXXXX%s", suffix);
    int fd = mkstemps(path, (int)strlen(suffix));
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Writes text to a new .pgn file (path gets its name) and reads it into a new list,
 * keeping the first plies plies of each game (0: all); returns the bad games' count, -1
 * when the file cannot be read. */
static int load_book(OpeningList *list, char path[64], const char *text, int plies,
                     OpeningError *err)
{
    write_file(path, ".pgn", text);
    opening_list_init(list);
    g_nerrors = 0;
    return opening_list_load_pgn(list, path, plies, collect, NULL, err);
}

/* The moves in coordinates, from fen, as the opening must hold them. */
static void expect_moves(const Opening *op, const char *fen, const char *moves)
{
    PosError err;
    char want_fen[RECORD_FEN_MAX];
    if (!pos_set_fen(&g_pos, fen, &err))
        fail_msg("%s: %s", fen, err.msg);
    pos_get_fen(&g_pos, want_fen, sizeof want_fen);
    assert_string_equal(op->fen, want_fen);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", moves);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        assert_true(n < op->nmoves);
        char text[5];
        move_to_text(op->moves[n++], text);
        assert_string_equal(text, t);
    }
    assert_int_equal(op->nmoves, n);
}

static const char *const BOOK =
    "[Event \"book\"]\n"                                                        /* 1 */
    "[Red \"a\"]\n"                                                             /* 2 */
    "[Result \"*\"]\n"                                                          /* 3 */
    "\n"                                                                        /* 4 */
    "1. C2.5 {central cannon} H8+7 (1... C8.5 2. H2+3 {x}) 2. H2+3 $1 R9.8 *\n" /* 5 */
    "\n"                                                                        /* 6 */
    "[Event \"algebraic, Black to move\"]\n"                                    /* 7 */
    "[FEN \"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1\"]\n"
    "[SetUp \"1\"]\n"                                          /* 9 */
    "1... Cbe8 2. Nc3 Nc8 3. e5! 1/2-1/2\n"                    /* 10 */
    "% an escaped line\n"                                      /* 11 */
    "[Event \"coordinates\"]\n"                                /* 12 */
    "1. h2e2 h9g7 2. h0-g2 ; to the end of the line 3. x\n"    /* 13 */
    "i9h9 3.b0c2 1-0\n"                                        /* 14 */
    "[Event \"algebraic with ranks 0-9, as XBoard writes\"]\n" /* 15 */
    "1. Che2 Nc7 2. Nc2 Ra8 *\n";                              /* 16 */

static void test_pgn_notations(void **state)
{
    (void)state;
    char path[64];
    OpeningList list;
    OpeningError err;
    assert_int_equal(load_book(&list, path, BOOK, 0, &err), 0);
    assert_int_equal(list.count, 4);
    expect_moves(&list.items[0], START_FEN, "h2e2 h9g7 h0g2 i9h9");
    expect_moves(&list.items[1],
                 "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1",
                 "b7e7 b0c2 b9c7 e3e4");
    expect_moves(&list.items[2], START_FEN, "h2e2 h9g7 h0g2 i9h9 b0c2");
    expect_moves(&list.items[3], START_FEN, "h2e2 b9c7 b0c2 a9a8");

    /* plies=N keeps the first N plies of each game (as cutechess-cli) */
    opening_list_free(&list);
    assert_int_equal(opening_list_load_pgn(&list, path, 2, collect, NULL, &err), 0);
    assert_int_equal(list.count, 4);
    expect_moves(&list.items[0], START_FEN, "h2e2 h9g7");
    expect_moves(&list.items[2], START_FEN, "h2e2 h9g7");
    opening_list_free(&list);
    unlink(path);
}

static void test_parse_move_forms(void **state)
{
    (void)state;
    PosError perr;
    assert_true(pos_set_fen(&g_pos, START_FEN, &perr));
    struct {
        const char *text, *coords;
    } ok[] = {{"h2e2", "h2e2"},  {"h2-e2", "h2e2"}, {"C2.5", "h2e2"},  {"Che3", "h2e2"},
              {"Ch3e3", "h2e2"}, {"Nc3", "b0c2"},   {"Hc3", "b0c2"},   {"H8+7", "b0c2"},
              {"e5", "e3e4"},    {"Pe5", "e3e4"},   {"P5+1", "e3e4"},  {"Ra2", "a0a1"},
              {"Ra3!?", "a0a2"}, {"C8+7", "b2b9"},  {"Cxb10", "b2b9"}, {"Cbxb10+", "b2b9"}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        PgnError err = {{0}};
        Move m = pgn_parse_move(&g_pos, ok[i].text, &err);
        if (m == MOVE_NONE)
            fail_msg("'%s': %s", ok[i].text, err.msg);
        char text[5];
        move_to_text(m, text);
        if (strcmp(text, ok[i].coords))
            fail_msg("'%s' read as %s, not %s", ok[i].text, text, ok[i].coords);
    }
    const char *bad[] = {"Ce3", "h2h8", "C2+8", "Zz9", "e6", "", "Rxa11", "K1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        PgnError err = {{0}};
        if (pgn_parse_move(&g_pos, bad[i], &err) != MOVE_NONE)
            fail_msg("'%s' was read as a move", bad[i]);
        assert_non_null(strstr(err.msg, bad[i]));
    }
    PgnError err;
    assert_int_equal(pgn_parse_move(&g_pos, "Ce3", &err), MOVE_NONE);
    assert_non_null(strstr(err.msg, "ambiguous"));
}

static void test_pgn_bad_games(void **state)
{
    (void)state;
    static const char *const games =
        "1. h2e2 h9g7 *\n"                              /* 1: game 1, good */
        "\n"                                            /* 2 */
        "[FEN \"rnbakabnr/9/9/9 w\"]\n"                 /* 3: game 2, bad FEN */
        "1. h2e2 *\n"                                   /* 4 */
        "[Event \"3\"]\n"                               /* 5: game 3 */
        "1. h2e2 h9g7\n"                                /* 6 */
        "2. C2.9 R9.8 *\n"                              /* 7: illegal ply 3 */
        "[FEN \"3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1\"]\n" /* 8: game 4, already over */
        "*\n"                                           /* 9 */
        "1. b0c2 {unterminated\n";                      /* 10: game 5 */
    char path[64];
    OpeningList list;
    OpeningError err;
    assert_int_equal(load_book(&list, path, games, 0, &err), 4);
    assert_int_equal(list.count, 1);
    char want[4][128];
    snprintf(want[0], sizeof want[0], "%s: game 2 (line 3): FEN tag", path);
    snprintf(want[1], sizeof want[1], "%s: game 3 (line 7): ply 3: 'C2.9'", path);
    snprintf(want[2], sizeof want[2], "%s: game 4 (line 8): ", path);
    snprintf(want[3], sizeof want[3], "%s: game 5 (line 10): unterminated comment", path);
    for (int i = 0; i < 4; i++)
        if (strncmp(g_errors[i], want[i], strlen(want[i])))
            fail_msg("error %d: '%s', expected '%s...'", i, g_errors[i], want[i]);
    assert_non_null(strstr(g_errors[2], "over"));

    /* plies=2 stops before the illegal move: game 3 becomes good */
    opening_list_free(&list);
    g_nerrors = 0;
    assert_int_equal(opening_list_load_pgn(&list, path, 2, collect, NULL, &err), 3);
    assert_int_equal(list.count, 2);
    opening_list_free(&list);
    unlink(path);

    assert_int_equal(opening_list_load_pgn(&list, path, 0, collect, NULL, &err), -1);
    assert_non_null(strstr(err.msg, path));
}

/* A line of random legal plies that never reaches a verdict, in coordinates. */
static void random_line(int plies, char *text, size_t size)
{
    for (uint64_t seed = 1;; seed++) {
        PosError perr;
        assert_true(pos_set_fen(&g_pos, START_FEN, &perr));
        uint64_t x = seed * 0x9e3779b97f4a7c15ULL;
        size_t len = 0;
        int i = 0;
        for (; i < plies; i++) {
            MoveList list;
            int n = gen_legal(&g_pos, &list);
            if (n == 0)
                break;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            Move m = list.moves[x % (uint64_t)n];
            char t[5];
            move_to_text(m, t);
            len += (size_t)snprintf(text + len, size - len, "%s%s",
                                    i % 2 ? " " : (i ? " 1. " : "1. "), t);
            pos_do_move(&g_pos, m);
            if (rules_judge_game(&g_pos).result != RESULT_NONE)
                break;
        }
        if (i == plies) {
            snprintf(text + len, size - len, " *\n");
            return;
        }
    }
}

static void test_pgn_long_line_and_own_export(void **state)
{
    (void)state;
    static char text[8192];
    random_line(140, text, sizeof text);
    char path[64];
    OpeningList list;
    OpeningError err;
    if (load_book(&list, path, text, 0, &err) != 0)
        fail_msg("%s", g_nerrors ? g_errors[0] : err.msg);
    assert_int_equal(list.count, 1);
    /* 140 plies: the opening starts 12 plies in and keeps the last 128 */
    const Opening *op = &list.items[0];
    assert_int_equal(op->nmoves, OPENING_MAX_MOVES);
    PosError perr;
    assert_true(pos_set_fen(&g_pos, START_FEN, &perr));
    char *save = NULL, *tok;
    int ply = 0;
    for (tok = strtok_r(text, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
        if (strchr(tok, '.') || !strcmp(tok, "*"))
            continue;
        Move m = move_parse_legal(&g_pos, tok);
        assert_true(m != MOVE_NONE);
        if (ply == 12) {
            char fen[RECORD_FEN_MAX];
            pos_get_fen(&g_pos, fen, sizeof fen);
            assert_string_equal(op->fen, fen);
        }
        if (ply >= 12)
            assert_int_equal(op->moves[ply - 12], m);
        pos_do_move(&g_pos, m);
        ply++;
    }
    assert_int_equal(ply, 140);
    opening_list_free(&list);
    unlink(path);

    /* chuhe's own PGN export (WXF, FEN tag, comments) reads back move for move */
    Engine *e = engine_new();
    assert_non_null(e);
    GamePlayer p;
    memset(&p, 0, sizeof p);
    p.engine = e;
    time_limits_clear(&p.limits);
    p.limits.nodes = 300;
    Opening start;
    memset(&start, 0, sizeof start);
    snprintf(start.fen, sizeof start.fen, "3akab2/9/4b4/9/2n3p2/6P2/2N6/4B4/9/3AKAB2 w - - 0 1");
    GameSettings s;
    game_settings_default(&s);
    s.max_plies = 40;
    GameError gerr;
    assert_int_equal(game_play(&p, &p, &start, &s, 1, &g_rec, &gerr), GAME_OK);
    engine_free(&e);
    PgnTags tags = {.event = "export", .red = "a", .black = "b", .comments = true};
    static char pgn[65536];
    PgnError pe;
    assert_true(pgn_write(&g_rec, &tags, pgn, sizeof pgn, &pe) > 0);
    int keep = g_rec.nplies < 20 ? g_rec.nplies : 20; /* a game that ended on the board is over */
    assert_int_equal(load_book(&list, path, pgn, keep, &err), 0);
    assert_int_equal(list.count, 1);
    assert_string_equal(list.items[0].fen, g_rec.start_fen);
    assert_int_equal(list.items[0].nmoves, keep);
    for (int i = 0; i < keep; i++)
        assert_int_equal(list.items[0].moves[i], g_rec.plies[i].move);
    opening_list_free(&list);
    unlink(path);
}

/* ---- files in the schedule ----------------------------------------------------------- */

static CoordConfig g_cfg;

/* A schedule of the openings file path with extra options. */
static bool sched_for(Schedule *s, const char *path, int argc, const char **argv, SchedError *err)
{
    CoordGiven g;
    CoordError cerr;
    const char *args[16] = {"--openings", path};
    for (int i = 0; i < argc; i++)
        args[2 + i] = argv[i];
    coord_config_defaults(&g_cfg);
    if (!coord_config_parse(&g_cfg, &g, argc + 2, (char **)args, &cerr) ||
        !coord_config_finish_new(&g_cfg, &g, &cerr))
        fail_msg("%s", cerr.msg);
    g_cfg.games = 40;
    return coord_sched_init(s, &g_cfg, err);
}

/* The first move of each of pair 0..n-1's openings, as text. */
static void first_moves(Schedule *s, int n, char out[][5])
{
    SchedError err;
    for (int i = 0; i < n; i++) {
        const Opening *op = coord_sched_opening(s, (uint64_t)i, &err);
        if (!op)
            fail_msg("%s", err.msg);
        move_to_text(op->moves[0], out[i]);
    }
}

static void test_schedule_order_and_strict_files(void **state)
{
    (void)state;
    static const char *const first[10] = {"h2e2", "b2e2", "h0g2", "b0c2", "a3a4",
                                          "c3c4", "e3e4", "g3g4", "i3i4", "h2h6"};
    char text[512] = "", path[64];
    for (int i = 0; i < 10; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "[Round \"%d\"]\n1. %s *\n\n",
                 i + 1, first[i]);
    write_file(path, ".pgn", text);
    Schedule s;
    SchedError err;
    char seq[20][5], r1[20][5], r2[20][5], r3[20][5], st[20][5];

    assert_true(sched_for(&s, path, 0, NULL, &err));
    first_moves(&s, 20, seq);
    coord_sched_free(&s);
    for (int i = 0; i < 20; i++)
        assert_string_equal(seq[i], first[i % 10]);

    const char *rnd5[] = {"--opening-order", "random", "--seed", "5"};
    const char *rnd6[] = {"--opening-order", "random", "--seed", "6"};
    const char *start[] = {"--opening-order", "random", "--seed", "5", "--opening-start", "3"};
    assert_true(sched_for(&s, path, 4, rnd5, &err));
    first_moves(&s, 20, r1);
    coord_sched_free(&s);
    assert_true(sched_for(&s, path, 4, rnd5, &err)); /* a restart: the same order */
    first_moves(&s, 20, r2);
    coord_sched_free(&s);
    assert_true(sched_for(&s, path, 4, rnd6, &err));
    first_moves(&s, 20, r3);
    coord_sched_free(&s);
    assert_true(sched_for(&s, path, 6, start, &err));
    first_moves(&s, 20, st);
    coord_sched_free(&s);
    int differs = 0, in_file_order = 1;
    for (int i = 0; i < 10; i++) {
        assert_string_equal(r1[i], r2[i]);
        assert_string_equal(r1[i], r1[i + 10]); /* cycles through the shuffled order */
        assert_string_equal(st[i], r1[(i + 2) % 10]);
        differs += strcmp(r1[i], r3[i]) != 0;
        in_file_order &= !strcmp(r1[i], first[i]);
        int seen = 0; /* a permutation: every opening once */
        for (int j = 0; j < 10; j++)
            seen += !strcmp(r1[j], first[i]);
        assert_int_equal(seen, 1);
    }
    assert_true(differs > 0);
    assert_false(in_file_order);

    /* the round policy: both pairings of a gauntlet round (3 engines) play its opening,
     * the next round the next one; the pair policy gives each pair its own */
    const char *round[] = {"--engines",        "3",    "--tournament", "gauntlet",
                           "--opening-policy", "round"};
    const char *pair[] = {"--engines", "3", "--tournament", "gauntlet", "--opening-policy", "pair"};
    char rd[20][5], pr[20][5];
    assert_true(sched_for(&s, path, 6, round, &err));
    first_moves(&s, 20, rd);
    coord_sched_free(&s);
    assert_true(sched_for(&s, path, 6, pair, &err));
    first_moves(&s, 20, pr);
    coord_sched_free(&s);
    for (int i = 0; i < 20; i++) {
        assert_string_equal(rd[i], first[(i / 2) % 10]);
        assert_string_equal(pr[i], seq[i]);
    }

    const char *past[] = {"--opening-start", "11"};
    assert_false(sched_for(&s, path, 2, past, &err));
    assert_non_null(strstr(err.msg, "10 openings"));
    unlink(path);

    /* any bad line or game stops the run, naming it */
    write_file(path, ".epd",
               "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\n"
               "# a comment\n"
               "not a position\n"
               "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1\n");
    assert_false(sched_for(&s, path, 0, NULL, &err));
    char want[128];
    snprintf(want, sizeof want, "openings: %s:3: ", path);
    assert_non_null(strstr(err.msg, want));
    assert_non_null(strstr(err.msg, "and more"));
    assert_null(strchr(err.msg, '\n'));
    const char *as_pgn[] = {"--opening-format", "pgn"};
    assert_false(sched_for(&s, path, 2, as_pgn, &err)); /* an EPD file read as PGN */
    snprintf(want, sizeof want, "openings: %s: game 1 (line 1)", path);
    assert_non_null(strstr(err.msg, want));
    unlink(path);
    write_file(path, ".epd", "# nothing\n");
    assert_false(sched_for(&s, path, 0, NULL, &err));
    assert_non_null(strstr(err.msg, "no opening"));
    unlink(path);
}

int main(void)
{
    position_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pgn_notations),
        cmocka_unit_test(test_parse_move_forms),
        cmocka_unit_test(test_pgn_bad_games),
        cmocka_unit_test(test_pgn_long_line_and_own_export),
        cmocka_unit_test(test_schedule_order_and_strict_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
