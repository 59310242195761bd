/*
 * WXF move text: exact strings for known moves, the tandem forms of the WXF notation
 * page, whole published game records, and round trips over every legal move of many
 * positions (text -> move -> the same text, and no two moves sharing a text).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "movegen.h"
#include "notation.h"
#include "position.h"
#include "wxf.h"

/* Positions are large (the history array), so the tests share static ones. */
static Position g_pos;

static void set_fen(Position *pos, const char *fen)
{
    PosError err = {{0}};
    if (!pos_set_fen(pos, fen, &err))
        fail_msg("bad FEN %s: %s", fen, err.msg);
}

/* The WXF text of a coordinate move, which must be legal. */
static void expect_wxf(const Position *pos, const char *coord, const char *wxf)
{
    Move m = move_parse_legal(pos, coord);
    if (m == MOVE_NONE)
        fail_msg("%s is not legal here", coord);
    char buf[WXF_TEXT_SIZE];
    assert_true(wxf_from_move(pos, m, buf, sizeof buf));
    if (strcmp(buf, wxf) != 0)
        fail_msg("%s: expected %s, got %s", coord, wxf, buf);
    WxfError err = {{0}};
    Move back = wxf_to_move(pos, wxf, &err);
    if (back != m)
        fail_msg("%s does not parse back to %s: %s", wxf, coord, err.msg);
}

/* Parses text, which must name the coordinate move. */
static void expect_parse(const Position *pos, const char *text, const char *coord)
{
    WxfError err = {{0}};
    Move m = wxf_to_move(pos, text, &err);
    if (m == MOVE_NONE)
        fail_msg("'%s' refused: %s", text, err.msg);
    char buf[5];
    move_to_text(m, buf);
    if (strcmp(buf, coord) != 0)
        fail_msg("'%s': expected %s, got %s", text, coord, buf);
}

/* Text that must be refused, with a reason. */
static void expect_reject(const Position *pos, const char *text)
{
    WxfError err = {{0}};
    Move m = wxf_to_move(pos, text, &err);
    if (m != MOVE_NONE) {
        char buf[5];
        move_to_text(m, buf);
        fail_msg("'%s' accepted as %s", text ? text : "(null)", buf);
    }
    assert_true(err.msg[0] != '\0');
    assert_int_equal(wxf_to_move(pos, text, NULL), MOVE_NONE);
}

/* Every legal move has a text, it parses back to the move, and no two texts clash.
 * Returns the number of legal moves. */
static int check_round_trips(const Position *pos)
{
    MoveList list;
    int n = gen_legal(pos, &list);
    char texts[MOVELIST_MAX][WXF_TEXT_SIZE];
    for (int i = 0; i < n; i++) {
        Move m = list.moves[i];
        char coord[5];
        move_to_text(m, coord);
        if (!wxf_from_move(pos, m, texts[i], sizeof texts[i])) {
            char fen[128];
            pos_get_fen(pos, fen, sizeof fen);
            fail_msg("no WXF text for %s in %s", coord, fen);
        }
        WxfError err = {{0}};
        Move back = wxf_to_move(pos, texts[i], &err);
        if (back != m) {
            char fen[128];
            pos_get_fen(pos, fen, sizeof fen);
            fail_msg("%s -> %s -> %#x (%s) in %s", coord, texts[i], back, err.msg, fen);
        }
        for (int j = 0; j < i; j++)
            if (!strcmp(texts[i], texts[j]))
                fail_msg("two moves written %s", texts[i]);
    }
    return n;
}

/* A fixed generator, so the walks are the same on every libc. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Walks random legal moves from fen, checking every position on the way; returns the
 * number of positions checked. */
static int walk(const char *fen, uint64_t seed, int plies)
{
    set_fen(&g_pos, fen);
    int checked = 0;
    for (int ply = 0; ply <= plies; ply++) {
        MoveList list;
        int n = gen_legal(&g_pos, &list);
        assert_int_equal(check_round_trips(&g_pos), n);
        checked++;
        if (n == 0 || pos_history_full(&g_pos))
            break;
        pos_do_move(&g_pos, list.moves[rng_next(&seed) % (uint64_t)n]);
    }
    return checked;
}

/* Red and Black tandems of each kind, built to be legal with either side to move. */
static const char *const TANDEM_FENS[] = {
    /* red chariots on a3/a1, cannons on c3/c1, horses on g3/g1 */
    "3k5/9/9/9/9/9/R1C3H2/9/R1C3H2/4K4 w - - 0 1",
    /* the same for Black on ranks 8 and 6 */
    "4k4/r1c3h2/9/r1c3h2/9/9/9/9/9/3K5 b - - 0 1",
    /* red advisors d2/d0 and elephants c4/c0 */
    "3k5/9/9/9/9/2B6/9/3A5/5K3/2BA5 w - - 0 1",
    /* black advisors f7/f9 and elephants g5/g9 */
    "4kab2/9/5a3/9/6b2/9/9/9/9/3K5 b - - 0 1",
    /* three red pawns on file 5 */
    "5k3/9/4P4/4P4/4P4/9/9/9/9/3K5 w - - 0 1",
    /* three red pawns on file 3 and two on file 7 */
    "3k5/9/6P2/2P3P2/2P3P2/9/9/9/9/4K4 w - - 0 1",
    /* five red pawns on file 3 */
    "3k2P2/6P2/6P2/6P2/6P2/9/9/9/9/4K4 w - - 0 1",
    /* four red pawns on file 3 */
    "3k5/6P2/6P2/6P2/6P2/9/9/9/9/4K4 w - - 0 1",
    /* three black pawns on file 5 and two on file 7 */
    "4k4/9/9/9/9/4p1p2/4p1p2/4p4/9/3K5 b - - 0 1",
    /* full armies with five red pawns on file 3, and five black pawns on file 3 */
    "rnbakabnr/6P2/1c4Pc1/p1p1p1P1p/6P2/6P2/9/1C5C1/9/RNBAKABNR w - - 0 1",
    "rnbakabnr/9/1c5c1/9/2p6/2p6/P1p1P1P1P/1Cp4C1/2p6/RNBAKABNR b - - 0 1",
    /* a middlegame with doubled chariots, cannons and pawns on both sides */
    "2bakab2/4r4/2n1c1n2/p1p1r1p1p/4c4/2P1R1P2/P3C3P/2N1C1N2/4R4/2BAKAB2 w - - 0 1",
};

static void test_start_position(void **state)
{
    (void)state;
    set_fen(&g_pos, START_FEN);
    assert_int_equal(check_round_trips(&g_pos), 44);

    /* Red: the central cannon, both horses, an edge pawn, a chariot, advisor, elephant. */
    expect_wxf(&g_pos, "h2e2", "C2.5");
    expect_wxf(&g_pos, "b2e2", "C8.5");
    expect_wxf(&g_pos, "h0g2", "H2+3");
    expect_wxf(&g_pos, "b0c2", "H8+7");
    expect_wxf(&g_pos, "a3a4", "P9+1");
    expect_wxf(&g_pos, "e3e4", "P5+1");
    expect_wxf(&g_pos, "i0i1", "R1+1");
    expect_wxf(&g_pos, "a0a2", "R9+2");
    expect_wxf(&g_pos, "f0e1", "A4+5");
    expect_wxf(&g_pos, "g0e2", "E3+5");
    expect_wxf(&g_pos, "c0a2", "E7+9");
    expect_wxf(&g_pos, "e0e1", "K5+1");
    expect_wxf(&g_pos, "h2h9", "C2+7");
    expect_wxf(&g_pos, "h2h1", "C2-1");

    /* Black counts files from a: after 1. C2.5 the usual replies. */
    pos_do_move(&g_pos, move_from_text("h2e2"));
    expect_wxf(&g_pos, "h9g7", "H8+7");
    expect_wxf(&g_pos, "b9c7", "H2+3");
    expect_wxf(&g_pos, "b7e7", "C2.5");
    expect_wxf(&g_pos, "h7e7", "C8.5");
    expect_wxf(&g_pos, "g6g5", "P7+1");
    expect_wxf(&g_pos, "a9a8", "R1+1");
    expect_wxf(&g_pos, "f9e8", "A6+5");
    expect_wxf(&g_pos, "c9e7", "E3+5");
    expect_wxf(&g_pos, "b7b0", "C2+7");
}

static void test_sideways_and_back(void **state)
{
    (void)state;
    /* After 1. C2.5 H8+7 2. H2+3 R9.8 3. R1.2: chariots and the king moving sideways
     * and back. */
    set_fen(&g_pos, START_FEN);
    static const char *const line[] = {"h2e2", "h9g7", "h0g2", "i9h9", "i0h0"};
    for (size_t i = 0; i < sizeof line / sizeof line[0]; i++)
        pos_do_move(&g_pos, move_parse_legal(&g_pos, line[i]));
    expect_wxf(&g_pos, "h9i9", "R8.9");
    expect_wxf(&g_pos, "h9h8", "R8+1");

    set_fen(&g_pos, "3k5/9/9/9/9/3p5/9/9/4K4/3A1R3 w - - 0 1");
    expect_wxf(&g_pos, "e1d1", "K5.6");
    expect_wxf(&g_pos, "e1f1", "K5.4");
    expect_wxf(&g_pos, "e1e0", "K5-1");
    expect_wxf(&g_pos, "f0f9", "R4+9");
    set_fen(&g_pos, "5k3/9/9/9/9/9/9/9/4R4/3K5 w - - 0 1");
    expect_wxf(&g_pos, "d0e0", "K6.5");
    expect_wxf(&g_pos, "e1e0", "R5-1");
    expect_wxf(&g_pos, "e1e9", "R5+8");
    expect_wxf(&g_pos, "d0d1", "K6+1");
    set_fen(&g_pos, "5k3/9/9/9/9/9/9/9/9/3K1R3 b - - 0 1");
    expect_wxf(&g_pos, "f9e9", "K6.5");
    expect_reject(&g_pos, "K6+1");
    set_fen(&g_pos, "4k4/9/9/9/9/9/9/9/9/3K5 b - - 0 1");
    expect_wxf(&g_pos, "e9e8", "K5+1");
    expect_wxf(&g_pos, "e9f9", "K5.6");
    expect_reject(&g_pos, "K5.4");
}

static void test_tandem_pieces(void **state)
{
    (void)state;
    /* Two like pieces on a file: the marker replaces the file digit, after the letter
     * (WXF page: R+.3, C--1). */
    set_fen(&g_pos, TANDEM_FENS[0]);
    expect_wxf(&g_pos, "a3b3", "R+.8");
    expect_wxf(&g_pos, "a3a9", "R++6");
    expect_wxf(&g_pos, "a1a2", "R-+1");
    expect_wxf(&g_pos, "a1a0", "R--1");
    expect_wxf(&g_pos, "a1b1", "R-.8");
    expect_wxf(&g_pos, "c1c0", "C--1");
    expect_wxf(&g_pos, "c3e3", "C+.5");
    expect_wxf(&g_pos, "g1h3", "H-+2");
    expect_wxf(&g_pos, "g3f5", "H++4");
    expect_wxf(&g_pos, "g3h1", "H+-2");
    /* The marker may also come first, and the plain file is then ambiguous. */
    expect_parse(&g_pos, "+R.8", "a3b3");
    expect_parse(&g_pos, "-c-1", "c1c0");
    expect_parse(&g_pos, "r-=8", "a1b1");
    expect_reject(&g_pos, "R9.8");
    expect_reject(&g_pos, "C7-1");
    expect_reject(&g_pos, "P+.4");
    expect_reject(&g_pos, "K+.4");
    expect_reject(&g_pos, "++.4");

    /* Black's front piece is the one lower on the board. */
    set_fen(&g_pos, TANDEM_FENS[1]);
    expect_wxf(&g_pos, "a6b6", "R+.2");
    expect_wxf(&g_pos, "a8a9", "R--1");
    expect_wxf(&g_pos, "c6c0", "C++6");
    expect_wxf(&g_pos, "g8h6", "H-+8");

    /* Advisors and elephants too. */
    set_fen(&g_pos, TANDEM_FENS[2]);
    expect_wxf(&g_pos, "d2e1", "A+-5");
    expect_wxf(&g_pos, "d0e1", "A-+5");
    expect_wxf(&g_pos, "c4e2", "E+-5");
    expect_wxf(&g_pos, "c4a2", "E+-9");
    expect_wxf(&g_pos, "c0e2", "E-+5");
    expect_wxf(&g_pos, "c0a2", "E-+9");
    expect_reject(&g_pos, "A6+5");
    set_fen(&g_pos, TANDEM_FENS[3]);
    expect_wxf(&g_pos, "f7e8", "A+-5");
    expect_wxf(&g_pos, "f9e8", "A-+5");
    expect_wxf(&g_pos, "g5e7", "E+-5");
    expect_wxf(&g_pos, "g9i7", "E-+9");
}

static void test_tandem_pawns(void **state)
{
    (void)state;
    /* The WXF page's own examples: pawns on file 3 traversing to file 4. */
    set_fen(&g_pos, TANDEM_FENS[4]);
    expect_wxf(&g_pos, "e7f7", "P+.4");
    expect_wxf(&g_pos, "e6f6", "P5.4");
    expect_wxf(&g_pos, "e5f5", "P-.4");
    expect_wxf(&g_pos, "e7e8", "P++1");
    /* The file-first form is only needed with two tandem files, but is understood. */
    expect_parse(&g_pos, "5+.4", "e7f7");
    expect_parse(&g_pos, "55.4", "e6f6");

    /* 3 on file 3 and 2 on file 7: the file digit replaces the letter. */
    set_fen(&g_pos, TANDEM_FENS[5]);
    expect_wxf(&g_pos, "g7f7", "3+.4");
    expect_wxf(&g_pos, "g6f6", "33.4");
    expect_wxf(&g_pos, "g5f5", "3-.4");
    expect_wxf(&g_pos, "c6d6", "7+.6");
    expect_wxf(&g_pos, "c5d5", "7-.6");
    expect_parse(&g_pos, "P3.4", "g6f6");
    expect_reject(&g_pos, "P+.4");
    expect_reject(&g_pos, "P7.6");
    expect_reject(&g_pos, "77.6");

    /* 5 on a file: ++, P+, the middle by its file, P-, --. */
    set_fen(&g_pos, TANDEM_FENS[6]);
    expect_wxf(&g_pos, "g9f9", "++.4");
    expect_wxf(&g_pos, "g8f8", "P+.4");
    expect_wxf(&g_pos, "g7f7", "P3.4");
    expect_wxf(&g_pos, "g6f6", "P-.4");
    expect_wxf(&g_pos, "g5f5", "--.4");
    expect_wxf(&g_pos, "g5h5", "--.2");
    expect_reject(&g_pos, "3+.4");

    /* 4 on a file: no middle. */
    set_fen(&g_pos, TANDEM_FENS[7]);
    expect_wxf(&g_pos, "g8f8", "++.4");
    expect_wxf(&g_pos, "g8g9", "+++1");
    expect_wxf(&g_pos, "g7f7", "P+.4");
    expect_wxf(&g_pos, "g6f6", "P-.4");
    expect_wxf(&g_pos, "g5f5", "--.4");
    expect_reject(&g_pos, "P3.4");

    /* Black: 3 on file 5 and 2 on file 7, front nearest Red. */
    set_fen(&g_pos, TANDEM_FENS[8]);
    expect_wxf(&g_pos, "e2d2", "5+.4");
    expect_wxf(&g_pos, "e3d3", "55.4");
    expect_wxf(&g_pos, "e4d4", "5-.4");
    expect_wxf(&g_pos, "g3h3", "7+.8");
    expect_wxf(&g_pos, "g4f4", "7-.6");
    expect_wxf(&g_pos, "e2e1", "5++1");
}

static void test_rejects(void **state)
{
    (void)state;
    set_fen(&g_pos, START_FEN);
    static const char *const bad[] = {
        "Z2.5",  "C2.",  "C0.5", "C2.0", "C2*5", "",     "   ",  "C2.5x", "C2..5", "C25",
        "C2+5+", "R1+5", "H2+4", "K5.4", "C2.2", "E3.5", "H2+5", "P2+1",  "P5.4",  "R+.3",
        "A4-5",  "P9-1", "R1+0", "2+.4", "+-.4", "++.4", "1+.2", "X+.3",  "+X.3",  "R1.0",
        "E3+4",  "C2-3", "P1+2", "K5-1", "A6+4", "H2-3", "0C.5", "C2+9",  "R9+9",  "E3+5 5",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_reject(&g_pos, bad[i]);
    expect_reject(&g_pos, NULL);

    /* Well formed and geometrically possible, but it would expose the general: the
     * pinned cannon may move along the file only. */
    set_fen(&g_pos, "3k5/4r4/9/9/9/9/9/4C4/9/4K4 w - - 0 1");
    expect_reject(&g_pos, "C5.4");
    expect_wxf(&g_pos, "e2e7", "C5+5");
    expect_wxf(&g_pos, "e2e1", "C5-1");

    /* Output refuses illegal moves and short buffers. */
    set_fen(&g_pos, START_FEN);
    char buf[WXF_TEXT_SIZE] = "junk";
    assert_false(wxf_from_move(&g_pos, MOVE_NONE, buf, sizeof buf));
    assert_string_equal(buf, "");
    assert_false(wxf_from_move(&g_pos, MOVE_NULL, buf, sizeof buf));
    assert_false(wxf_from_move(&g_pos, move_from_text("h9g7"), buf, sizeof buf));
    assert_false(wxf_from_move(&g_pos, move_from_text("a0a5"), buf, sizeof buf));
    assert_false(wxf_from_move(&g_pos, move_from_text("h2e2"), buf, 4));
    assert_true(wxf_from_move(&g_pos, move_from_text("h2e2"), buf, sizeof buf));
    assert_string_equal(buf, "C2.5");
}

static void test_input_variants(void **state)
{
    (void)state;
    set_fen(&g_pos, START_FEN);
    expect_parse(&g_pos, "C2=5", "h2e2");
    expect_parse(&g_pos, "c2.5", "h2e2");
    expect_parse(&g_pos, "  C2.5\n", "h2e2");
    expect_parse(&g_pos, "N8+7", "b0c2");
    expect_parse(&g_pos, "n2+3", "h0g2");
    expect_parse(&g_pos, "B3+5", "g0e2");
    expect_parse(&g_pos, "b7+5", "c0e2");
    expect_parse(&g_pos, "e7+9", "c0a2");
    expect_parse(&g_pos, "k5+1", "e0e1");
}

/*
 * Published games in WXF notation ('=' for sideways), replayed from the start: each
 * move must parse, be legal, and be written back the same way. The first plies are
 * also pinned to coordinates worked out by hand from the file numbering.
 */
typedef struct {
    const char *name;
    const char *moves;
} GameRecord;

static const GameRecord GAMES[] = {
    /* 14th World Xiangqi Championship 2015, round 1, Cao Yanlei - Petri Haikola */
    {"Cao-Haikola 2015",
     "P3+1 C8=7 C8=5 E7+5 A4+5 R1+1 C2=4 H8+9 H8+7 R9=8 H2+3 R1=6 R9=8 R8+6 R8+4 R8=7 "
     "R1=2 R7-1 R8=3 C7+3 R2+4 C7+1 R2=8 R6=2 C5+4 A4+5 C4+6"},
    /* Same-direction cannons with double ranked chariots, the main line to move 7 */
    {"same-direction cannons", "C2=5 C8=5 H2+3 H8+7 R1=2 R9+1 P3+1 R9=4 H8+7 H2+3 P7+1 R1+1 C8=9"},
    /* Same-direction cannons, Black R9=8 trading chariots */
    {"chariot trade", "C2=5 C8=5 H2+3 H8+7 R1=2 R9=8 R2+9 H7-8"},
    /* Pawn opening answered by the cannon on file 3 */
    {"pawn opening",
     "P7+1 C2=3 C2=5 E3+5 H2+3 P3+1 R1=2 P3+1 H8+9 R9+1 R9=8 R9=4 C5+4 A4+5 C5=1 H2+1 "
     "C1+3 H8+9 C8=5 H1+3 P3+1 R4+4 R8+6 H3+2 A6+5 C8+2 C5+5 K5=4 E3+5 C3+7 E5-7 C8=5 "
     "E7+5 H2+1 R8-4 R1+2 R8=9 R1=5 R9=8 P3=2 R8=7"},
    /* Junior game, Seremban 2016, Fan Renchen - Loo Weihao, first nine moves */
    {"Fan-Loo 2016",
     "C2=5 H8+7 H2+3 P7+1 R1=2 R9=8 R2+6 H2+3 P7+1 C2+4 P5+1 C8=9 R2+3 H7-8 H3+5 C9+4 "
     "H8+7"},
};

static void test_game_records(void **state)
{
    (void)state;
    for (size_t g = 0; g < sizeof GAMES / sizeof GAMES[0]; g++) {
        set_fen(&g_pos, START_FEN);
        char moves[512];
        snprintf(moves, sizeof moves, "%s", GAMES[g].moves);
        int ply = 0;
        for (char *tok = strtok(moves, " "); tok; tok = strtok(NULL, " "), ply++) {
            WxfError err = {{0}};
            Move m = wxf_to_move(&g_pos, tok, &err);
            if (m == MOVE_NONE)
                fail_msg("%s, ply %d: %s refused: %s", GAMES[g].name, ply + 1, tok, err.msg);
            char back[WXF_TEXT_SIZE], expect[WXF_TEXT_SIZE];
            snprintf(expect, sizeof expect, "%s", tok);
            if (expect[2] == '=')
                expect[2] = '.';
            assert_true(wxf_from_move(&g_pos, m, back, sizeof back));
            if (strcmp(back, expect) != 0)
                fail_msg("%s, ply %d: %s written back as %s", GAMES[g].name, ply + 1, tok, back);
            check_round_trips(&g_pos);
            pos_do_move(&g_pos, m);
        }
    }

    set_fen(&g_pos, START_FEN);
    static const char *const first[][2] = {
        {"P3+1", "g3g4"}, {"C8=7", "h7g7"}, {"C8=5", "b2e2"},
        {"E7+5", "g9e7"}, {"A4+5", "f0e1"}, {"R1+1", "a9a8"},
    };
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) {
        expect_parse(&g_pos, first[i][0], first[i][1]);
        pos_do_move(&g_pos, move_from_text(first[i][1]));
    }
}

static void test_random_walks(void **state)
{
    (void)state;
    int positions = 0;
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 8; i++)
        positions += walk(START_FEN, seed + (uint64_t)i, 60);
    for (size_t i = 0; i < sizeof TANDEM_FENS / sizeof TANDEM_FENS[0]; i++)
        for (int k = 0; k < 3; k++)
            positions += walk(TANDEM_FENS[i], seed ^ (i * 31 + (uint64_t)k + 1), 40);
    assert_true(positions >= 300);
}

int main(void)
{
    position_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_position), cmocka_unit_test(test_sideways_and_back),
        cmocka_unit_test(test_tandem_pieces),  cmocka_unit_test(test_tandem_pawns),
        cmocka_unit_test(test_rejects),        cmocka_unit_test(test_input_variants),
        cmocka_unit_test(test_game_records),   cmocka_unit_test(test_random_walks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
