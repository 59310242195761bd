/*
 * Game records: the packed position layout byte for byte, pack/unpack round trips over
 * random games, corrupt packed data, the validator on real games from game_play and on
 * records broken in each way the coordinator must catch, and PGN export read back
 * through WXF to the same final position.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "game.h"
#include "movegen.h"
#include "notation.h"
#include "opening.h"
#include "pgn.h"
#include "record.h"
#include "rng.h"
#include "rules.h"
#include "wxf.h"

/* Positions and records are large: the tests share static ones. */
static Position g_pos, g_pos2;
static GameRecord g_rec, g_rec2;
static Engine *g_engine;

static void set_fen(Position *pos, const char *fen)
{
    PosError err = {{0}};
    if (!pos_set_fen(pos, fen, &err))
        fail_msg("bad FEN %s: %s", fen, err.msg);
}

/* ---- packed positions ------------------------------------------------------------ */

static void test_pack_layout_start(void **state)
{
    (void)state;
    PackedPos pp;
    set_fen(&g_pos, START_FEN);
    record_pack(&g_pos, &pp);
    assert_int_equal(sizeof pp, PACKED_POS_SIZE);
    assert_int_equal(pp.b[0], (R_HORSE << 4) | R_CHARIOT);    /* a0 R, b0 N */
    assert_int_equal(pp.b[1], (R_ADVISOR << 4) | R_ELEPHANT); /* c0 B, d0 A */
    assert_int_equal(pp.b[2], (R_ADVISOR << 4) | R_KING);     /* e0 K, f0 A */
    assert_int_equal(pp.b[4], R_CHARIOT);                     /* i0 R, a1 empty */
    assert_int_equal(pp.b[42], (B_KING << 4) | B_ADVISOR);    /* d9 a, e9 k */
    assert_int_equal(pp.b[44], (B_CHARIOT << 4) | B_HORSE);   /* h9 n, i9 r */
    for (int i = 18; i <= 26; i++) /* ranks 4 and 5 (points 36..53) are empty */
        assert_int_equal(pp.b[i], 0);
    assert_int_equal(pp.b[45], 0);
    assert_int_equal(pp.b[46], 0);
    assert_int_equal(pp.b[47], 0);

    set_fen(&g_pos, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 37 12");
    record_pack(&g_pos, &pp);
    assert_int_equal(pp.b[45], 1);
    assert_int_equal(pp.b[46], 37);
    assert_int_equal(pp.b[47], 0);
}

static void expect_same_position(const Position *a, const Position *b)
{
    assert_memory_equal(a->board, b->board, sizeof a->board);
    assert_int_equal(a->side, b->side);
    assert_int_equal(pos_state(a)->rule60, pos_state(b)->rule60);
    assert_true(pos_key(a) == pos_key(b));
    assert_true(pos_checkers(a) == pos_checkers(b));
}

/* Random games from the start: every position packs, unpacks to the same board, side,
 * counter and key, and packs again to the same bytes. */
static void test_pack_round_trip(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    int positions = 0;
    for (int game = 0; game < 40; game++) {
        set_fen(&g_pos, START_FEN);
        for (int ply = 0; ply < 200; ply++) {
            PackedPos pp, again;
            PosError err = {{0}};
            record_pack(&g_pos, &pp);
            if (pos_state(&g_pos)->rule60 <= 119) {
                if (!record_unpack(&pp, &g_pos2, &err))
                    fail_msg("game %d ply %d: %s", game, ply, err.msg);
                expect_same_position(&g_pos, &g_pos2);
                record_pack(&g_pos2, &again);
                assert_memory_equal(pp.b, again.b, PACKED_POS_SIZE);
                positions++;
            }
            MoveList list;
            if (gen_legal(&g_pos, &list) == 0 || pos_history_full(&g_pos))
                break;
            pos_do_move(&g_pos, list.moves[rng_next(&seed) % (uint64_t)list.count]);
        }
    }
    print_message("# pack round trip: %d positions\n", positions);
    assert_true(positions > 2000);
}

static void expect_unpack_error(const PackedPos *pp, const char *what)
{
    PosError err = {{0}};
    set_fen(&g_pos2, START_FEN);
    Key before = pos_key(&g_pos2);
    if (record_unpack(pp, &g_pos2, &err))
        fail_msg("corrupt packed position accepted (%s)", what);
    assert_true(err.msg[0] != '\0');
    assert_true(pos_key(&g_pos2) == before); /* left untouched */
}

static void set_nibble(PackedPos *pp, Square s, int code)
{
    int shift = s & 1 ? 4 : 0;
    pp->b[s / 2] = (uint8_t)((pp->b[s / 2] & ~(15 << shift)) | (code << shift));
}

static void test_unpack_rejects_corrupt(void **state)
{
    (void)state;
    PackedPos good, pp;
    set_fen(&g_pos, START_FEN);
    record_pack(&g_pos, &good);

    pp = good;
    set_nibble(&pp, sq_make(4, 1), R_KING); /* a second red general on e1 */
    expect_unpack_error(&pp, "two red generals");

    pp = good;
    set_nibble(&pp, sq_make(4, 4), 8); /* code 8 is no piece */
    expect_unpack_error(&pp, "nibble 8");
    PosError err = {{0}};
    assert_false(record_unpack(&pp, &g_pos2, &err));
    assert_non_null(strstr(err.msg, "e4"));

    pp = good;
    pp.b[45] = 2;
    expect_unpack_error(&pp, "side byte 2");

    pp = good;
    pp.b[47] = 1;
    expect_unpack_error(&pp, "reserved byte");

    pp = good;
    pp.b[46] = 120;
    expect_unpack_error(&pp, "rule60 120");

    pp = good;
    set_nibble(&pp, sq_make(4, 0), 0);
    set_nibble(&pp, sq_make(0, 4), R_KING); /* general outside its palace */
    expect_unpack_error(&pp, "general outside the palace");

    pp = good;
    set_nibble(&pp, sq_make(4, 9), 0);
    expect_unpack_error(&pp, "no black general");

    pp = good;
    set_nibble(&pp, sq_make(4, 3), 0); /* e3 soldier gone: the generals face, Black to move */
    set_nibble(&pp, sq_make(4, 6), 0);
    pp.b[45] = 1;
    expect_unpack_error(&pp, "flying general with Black to move");
}

/* ---- outcome helpers ------------------------------------------------------------- */

static void test_outcome_helpers(void **state)
{
    (void)state;
    assert_int_equal(record_outcome_from(RED, RESULT_WIN), OUTCOME_RED_WIN);
    assert_int_equal(record_outcome_from(RED, RESULT_LOSS), OUTCOME_BLACK_WIN);
    assert_int_equal(record_outcome_from(BLACK, RESULT_WIN), OUTCOME_BLACK_WIN);
    assert_int_equal(record_outcome_from(BLACK, RESULT_LOSS), OUTCOME_RED_WIN);
    assert_int_equal(record_outcome_from(BLACK, RESULT_DRAW), OUTCOME_DRAW);
    assert_int_equal(record_outcome_from(RED, RESULT_NONE), OUTCOME_NONE);
    for (Color c = RED; c < COLOR_NB; c++)
        for (Result res = RESULT_WIN; res <= RESULT_LOSS; res++)
            assert_int_equal(record_result_for(record_outcome_from(c, res), c), res);
    assert_int_equal(record_result_for(OUTCOME_NONE, RED), RESULT_NONE);
    assert_string_equal(record_outcome_pgn(OUTCOME_RED_WIN), "1-0");
    assert_string_equal(record_outcome_pgn(OUTCOME_DRAW), "1/2-1/2");
    assert_string_equal(record_outcome_pgn(OUTCOME_BLACK_WIN), "0-1");
    assert_string_equal(record_outcome_pgn(OUTCOME_NONE), "*");

    GameRecord *r = &g_rec;
    record_init(r, 7, NULL);
    assert_string_equal(r->start_fen, START_FEN);
    assert_true(r->game_id == 7);
    RecordPly ply = {0};
    for (int i = 0; i < RECORD_MAX_PLIES; i++)
        assert_true(record_push(r, &ply));
    assert_false(record_push(r, &ply));
    assert_int_equal(r->nplies, RECORD_MAX_PLIES);
}

/* ---- the validator --------------------------------------------------------------- */

/* A record of coordinate moves from fen, with the flags the moves have. */
static void make_record(GameRecord *r, const char *fen, const char *moves, Outcome o, Reason reason)
{
    record_init(r, 1, fen);
    set_fen(&g_pos, fen);
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", moves);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        Move m = move_parse_legal(&g_pos, tok);
        if (m == MOVE_NONE)
            fail_msg("%s: move %s is illegal", fen, tok);
        RecordPly ply = {0};
        ply.move = ply.best = m;
        ply.flags = record_move_flags(&g_pos, m);
        ply.depth = 1;
        assert_true(record_push(r, &ply));
        pos_do_move(&g_pos, m);
    }
    r->outcome = o;
    r->reason = reason;
}

static PackedPos g_boards[RECORD_MAX_PLIES];

/* The packed position before each ply, from a replay of the moves alone. */
static void expect_boards(const GameRecord *r, const PackedPos *boards)
{
    set_fen(&g_pos2, r->start_fen);
    for (int i = 0; i < r->nplies; i++) {
        PackedPos want;
        record_pack(&g_pos2, &want);
        if (memcmp(&want, &boards[i], sizeof want))
            fail_msg("board %d differs from the replayed position", i);
        if (pos_history_full(&g_pos2))
            pos_trim_history(&g_pos2);
        pos_do_move(&g_pos2, r->plies[i].move);
    }
}

/* Accepted by record_validate, and by record_validate_boards with the boards of the
 * game's positions. */
static void expect_valid(const GameRecord *r)
{
    PosError err = {{0}};
    if (!record_validate(r, &err))
        fail_msg("valid record refused: %s", err.msg);
    memset(g_boards, 0xee, sizeof g_boards);
    if (!record_validate_boards(r, g_boards, &err))
        fail_msg("valid record refused with boards: %s", err.msg);
    expect_boards(r, g_boards);
}

/* Refused, with every fragment in the message; record_validate_boards says the same. */
static void expect_invalid(const GameRecord *r, const char *frag1, const char *frag2)
{
    PosError err = {{0}}, err2 = {{0}};
    if (record_validate(r, &err))
        fail_msg("bad record accepted (expected '%s')", frag1);
    if ((frag1 && !strstr(err.msg, frag1)) || (frag2 && !strstr(err.msg, frag2)))
        fail_msg("message '%s' lacks '%s' / '%s'", err.msg, frag1, frag2 ? frag2 : "");
    if (record_validate_boards(r, g_boards, &err2))
        fail_msg("bad record accepted with boards (expected '%s')", frag1);
    assert_string_equal(err.msg, err2.msg);
}

static void game_setup(GamePlayer *p, uint64_t nodes)
{
    memset(p, 0, sizeof *p);
    p->engine = g_engine;
    time_limits_clear(&p->limits);
    p->limits.nodes = nodes;
}

/* Plays a game from a random opening of 6 plies with the given seed. */
static void play_game(GameRecord *r, uint64_t seed, int max_plies)
{
    RandomOpeningSpec spec = {0};
    spec.plies = 6;
    Opening op;
    OpeningError oerr = {{0}};
    if (!opening_random(&op, &spec, seed, NULL, &oerr))
        fail_msg("%s", oerr.msg);
    GamePlayer p;
    game_setup(&p, 600);
    GameSettings s;
    game_settings_default(&s);
    s.max_plies = max_plies;
    GameError gerr = {{0}};
    if (game_play(&p, &p, &op, &s, seed, r, &gerr) != GAME_OK)
        fail_msg("game_play: %s", gerr.msg);
}

static void test_validate_played_games(void **state)
{
    (void)state;
    int reasons[REASON_NB] = {0};
    for (uint64_t seed = 1; seed <= 6; seed++) {
        play_game(&g_rec, seed, 160);
        expect_valid(&g_rec);
        reasons[g_rec.reason]++;
    }
    for (int i = 0; i < REASON_NB; i++)
        if (reasons[i])
            print_message("# %d x %s\n", reasons[i], rules_reason_name((Reason)i));
}

static void test_validate_rejects_illegal_move(void **state)
{
    (void)state;
    play_game(&g_rec, 11, 40);
    expect_valid(&g_rec);
    assert_true(g_rec.nplies >= 22);
    /* Ply 10 replaced by a move of the wrong side: ply 9's move played again. */
    g_rec2 = g_rec;
    g_rec2.plies[9].move = g_rec.plies[8].move;
    expect_invalid(&g_rec2, "ply 10", "illegal");
    /* A move off the board. */
    g_rec2 = g_rec;
    g_rec2.plies[0].move = 0xffff;
    expect_invalid(&g_rec2, "ply 1:", "illegal");
    /* An illegal best move. */
    g_rec2 = g_rec;
    g_rec2.plies[20].best = g_rec.plies[21].move;
    expect_invalid(&g_rec2, "ply 21", "best move");
    /* Flags that do not match the move. */
    g_rec2 = g_rec;
    g_rec2.plies[12].flags ^= RECORD_FLAG_CAPTURE;
    expect_invalid(&g_rec2, "ply 13", "flags");
    g_rec2 = g_rec;
    g_rec2.plies[12].flags |= 0x80;
    expect_invalid(&g_rec2, "ply 13", "flags 0x8");
}

static void test_validate_rejects_malformed(void **state)
{
    (void)state;
    play_game(&g_rec, 12, 20);
    expect_valid(&g_rec);
    /* (a ply count, outcome or reason out of range, or an unterminated FEN, are the
     * decoder's to refuse: test_protocol) */
    g_rec2 = g_rec;
    snprintf(g_rec2.start_fen, sizeof g_rec2.start_fen, "rnbakabnr/9/9 w");
    expect_invalid(&g_rec2, "start FEN", NULL);
    /* An unfinished game is not a record to store. */
    g_rec2 = g_rec;
    g_rec2.outcome = OUTCOME_NONE;
    g_rec2.reason = REASON_NONE;
    expect_invalid(&g_rec2, "unfinished", NULL);
}

/* Red mates with i0i9 (rules.md scenario 8 without the counter). */
static const char *const MATE_FEN = "3k5/R8/9/9/9/9/9/9/9/4K3R w - - 0 1";

static void test_validate_checkmate(void **state)
{
    (void)state;
    make_record(&g_rec, MATE_FEN, "i0i9", OUTCOME_RED_WIN, REASON_CHECKMATE);
    expect_valid(&g_rec);
    /* wrong outcome, wrong reason */
    make_record(&g_rec, MATE_FEN, "i0i9", OUTCOME_BLACK_WIN, REASON_CHECKMATE);
    expect_invalid(&g_rec, "the rules say red wins (checkmate)", "black wins");
    make_record(&g_rec, MATE_FEN, "i0i9", OUTCOME_RED_WIN, REASON_STALEMATE);
    expect_invalid(&g_rec, "checkmate", "stalemate");
    /* an adjudication or a runner ending cannot replace the verdict */
    make_record(&g_rec, MATE_FEN, "i0i9", OUTCOME_RED_WIN, REASON_ADJUDICATION_RESIGN);
    expect_invalid(&g_rec, "checkmate", rules_reason_name(REASON_ADJUDICATION_RESIGN));
    make_record(&g_rec, MATE_FEN, "i0i9", OUTCOME_DRAW, REASON_MOVE_LIMIT);
    expect_invalid(&g_rec, "checkmate", "move-limit");
    /* the game goes on after the mate */
    make_record(&g_rec, MATE_FEN, "i0i9", OUTCOME_RED_WIN, REASON_CHECKMATE);
    RecordPly extra = {0};
    extra.move = move_from_text("d9d8");
    assert_true(record_push(&g_rec, &extra));
    expect_invalid(&g_rec, "ply 2 (d9d8): the game was already over", "checkmate");
    /* a stalemate (rules.md 10) is a loss */
    make_record(&g_rec, "3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1", "", OUTCOME_RED_WIN,
                REASON_STALEMATE);
    expect_valid(&g_rec);
    g_rec.outcome = OUTCOME_DRAW;
    expect_invalid(&g_rec, "stalemate", NULL);
}

static void test_validate_draw_verdicts(void **state)
{
    (void)state;
    /* Bare generals: drawn before any move, so no move may be played. */
    const char *bare = "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1";
    make_record(&g_rec, bare, "", OUTCOME_DRAW, REASON_MATERIAL);
    expect_valid(&g_rec);
    make_record(&g_rec, bare, "e0e1", OUTCOME_DRAW, REASON_MATERIAL);
    expect_invalid(&g_rec, "ply 1 (e0e1): the game was already over", "insufficient-material");
    make_record(&g_rec, bare, "", OUTCOME_DRAW, REASON_ADJUDICATION_DRAW);
    expect_invalid(&g_rec, "insufficient-material", rules_reason_name(REASON_ADJUDICATION_DRAW));
    /* The 60-move rule (rules.md 7). */
    const char *sixty = "3k5/9/9/9/9/9/9/9/9/4K3R w - - 119 1";
    make_record(&g_rec, sixty, "i0h0", OUTCOME_DRAW, REASON_RULE60);
    expect_valid(&g_rec);
    make_record(&g_rec, sixty, "i0h0 d9d8", OUTCOME_DRAW, REASON_RULE60);
    expect_invalid(&g_rec, "ply 2", "already over");
}

/* rules.md scenario 1: Red checks on every move and loses on the third occurrence. */
static const char *const PERPETUAL_FEN = "3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1";
static const char *const PERPETUAL_LINE = "i0i9 d9d8 i9i8 d8d9 i8i9 d9d8 i9i8 d8d9 i8i9";
/* Neither side checks or attacks anything: a drawn repetition after 8 plies. */
static const char *const SHUFFLE_LINE = "i0h0 d9d8 h0i0 d8d9 i0h0 d9d8 h0i0 d8d9";

static void test_validate_repetition(void **state)
{
    (void)state;
    make_record(&g_rec, PERPETUAL_FEN, PERPETUAL_LINE, OUTCOME_BLACK_WIN, REASON_PERPETUAL_CHECK);
    expect_valid(&g_rec);
    g_rec.outcome = OUTCOME_DRAW;
    g_rec.reason = REASON_REPETITION;
    expect_invalid(&g_rec, "perpetual-check", "repetition");

    make_record(&g_rec, PERPETUAL_FEN, SHUFFLE_LINE, OUTCOME_DRAW, REASON_REPETITION);
    expect_valid(&g_rec);
    /* The same claim one ply early (a second occurrence only) and after a line that never
     * repeats three times. */
    g_rec.nplies = 7;
    expect_invalid(&g_rec, "no verdict", "repetition");
    g_rec.nplies = 4;
    expect_invalid(&g_rec, "no verdict", "repetition");
    /* Playing on after the repetition. */
    make_record(&g_rec, PERPETUAL_FEN, SHUFFLE_LINE, OUTCOME_DRAW, REASON_REPETITION);
    RecordPly extra = {0};
    extra.move = move_from_text("i0h0");
    assert_true(record_push(&g_rec, &extra));
    expect_invalid(&g_rec, "ply 9 (i0h0): the game was already over", "repetition");
}

static void test_validate_runner_endings(void **state)
{
    (void)state;
    /* After 3 plies of the shuffle Black is to move and the rules let play go on. */
    const char *line = "i0h0 d9d8 h0i0";
    static const struct {
        Outcome o;
        Reason reason;
        bool ok;
    } cases[] = {
        {OUTCOME_DRAW, REASON_MOVE_LIMIT, true},
        {OUTCOME_RED_WIN, REASON_MOVE_LIMIT, false},
        {OUTCOME_DRAW, REASON_ADJUDICATION_DRAW, true},
        {OUTCOME_BLACK_WIN, REASON_ADJUDICATION_DRAW, false},
        {OUTCOME_RED_WIN, REASON_ADJUDICATION_RESIGN, true},
        {OUTCOME_BLACK_WIN, REASON_ADJUDICATION_RESIGN, true},
        {OUTCOME_DRAW, REASON_ADJUDICATION_RESIGN, false},
        {OUTCOME_RED_WIN, REASON_ILLEGAL_MOVE, true}, /* Black, to move, played one */
        {OUTCOME_BLACK_WIN, REASON_ILLEGAL_MOVE, false},
        {OUTCOME_RED_WIN, REASON_TIME_FORFEIT, true},
        {OUTCOME_DRAW, REASON_TIME_FORFEIT, true},
        {OUTCOME_BLACK_WIN, REASON_TIME_FORFEIT, false},
        {OUTCOME_RED_WIN, REASON_CHECKMATE, false},
        {OUTCOME_DRAW, REASON_REPETITION, false},
        {OUTCOME_DRAW, REASON_RULE60, false},
        {OUTCOME_DRAW, REASON_MATERIAL, false},
        {OUTCOME_DRAW, REASON_NONE, false},
    };
    /* While adjudications are recorded as move-limit endings (record.h), a move-limit
     * ending may carry any outcome. */
    bool shared = (int)REASON_ADJUDICATION_RESIGN == (int)REASON_MOVE_LIMIT;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        make_record(&g_rec, PERPETUAL_FEN, line, cases[i].o, cases[i].reason);
        PosError err = {{0}};
        bool ok = record_validate(&g_rec, &err);
        bool expect = cases[i].ok || (shared && cases[i].reason == REASON_MOVE_LIMIT);
        if (ok != expect)
            fail_msg("%s with %s: expected %s (%s)", rules_reason_name(cases[i].reason),
                     record_outcome_pgn(cases[i].o), expect ? "valid" : "invalid", err.msg);
    }
}

/* ---- PGN ------------------------------------------------------------------------- */

/* The value of tag `name` in text, or "" when absent. */
static const char *tag_value(const char *text, const char *name, char *buf, size_t size)
{
    char key[64];
    snprintf(key, sizeof key, "\n[%s \"", name);
    const char *p = strncmp(text, key + 1, strlen(key + 1)) == 0 ? text : strstr(text, key);
    buf[0] = '\0';
    if (!p)
        return buf;
    p = strchr(p, '"') + 1;
    size_t n = 0;
    while (*p && *p != '"' && n + 1 < size) {
        if (*p == '\\')
            p++;
        buf[n++] = *p++;
    }
    buf[n] = '\0';
    return buf;
}

/*
 * Reads the movetext back: move numbers ("12." and "12..."), comments and the result
 * are skipped, every other token must be a WXF move legal in turn. Leaves the final
 * position in g_pos2 and returns the number of moves.
 */
static int replay_movetext(const char *text, const char *fen, char *result, size_t rsize)
{
    set_fen(&g_pos2, fen);
    const char *p = strstr(text, "\n\n");
    assert_non_null(p);
    int moves = 0;
    result[0] = '\0';
    while (*p) {
        while (*p == ' ' || *p == '\n')
            p++;
        if (!*p)
            break;
        if (*p == '{') {
            const char *end = strchr(p, '}');
            assert_non_null(end);
            p = end + 1;
            continue;
        }
        char tok[64];
        size_t n = strcspn(p, " \n");
        assert_true(n < sizeof tok);
        memcpy(tok, p, n);
        tok[n] = '\0';
        p += n;
        size_t digits = strspn(tok, "0123456789");
        if (digits > 0 && tok[digits] == '.' && strspn(tok + digits, ".") == n - digits)
            continue;
        if (!strcmp(tok, "1-0") || !strcmp(tok, "0-1") || !strcmp(tok, "1/2-1/2") ||
            !strcmp(tok, "*")) {
            snprintf(result, rsize, "%.8s", tok);
            continue;
        }
        assert_true(result[0] == '\0'); /* nothing after the result */
        WxfError err = {{0}};
        Move m = wxf_to_move(&g_pos2, tok, &err);
        if (m == MOVE_NONE)
            fail_msg("move %d '%s' does not parse: %s", moves + 1, tok, err.msg);
        pos_do_move(&g_pos2, m);
        moves++;
    }
    return moves;
}

/* Movetext lines are within the limit; every line ends with '\n'. */
static void expect_line_lengths(const char *text)
{
    const char *p = strstr(text, "\n\n") + 2;
    while (*p) {
        size_t n = strcspn(p, "\n");
        if (n > PGN_LINE_MAX)
            fail_msg("movetext line of %zu characters: %.*s", n, (int)n, p);
        p += n;
        if (*p)
            p++;
    }
}

static void replay_final(const GameRecord *r, Position *pos)
{
    set_fen(pos, r->start_fen);
    for (int i = 0; i < r->nplies; i++)
        pos_do_move(pos, r->plies[i].move);
}

static void expect_pgn_round_trip(const GameRecord *r, bool comments)
{
    static char text[65536];
    PgnTags tags = {"chuhe \"test\"", "here",         "2024.05.06", "3",
                    "red\\engine",    "black engine", comments};
    PgnError err = {{0}};
    long len = pgn_write(r, &tags, text, sizeof text, &err);
    if (len < 0)
        fail_msg("pgn_write: %s", err.msg);
    assert_true((size_t)len < sizeof text);
    assert_int_equal(strlen(text), (size_t)len);

    char v[256];
    assert_string_equal(tag_value(text, "Event", v, sizeof v), "chuhe \"test\"");
    assert_string_equal(tag_value(text, "Site", v, sizeof v), "here");
    assert_string_equal(tag_value(text, "Date", v, sizeof v), "2024.05.06");
    assert_string_equal(tag_value(text, "Round", v, sizeof v), "3");
    assert_string_equal(tag_value(text, "Red", v, sizeof v), "red\\engine");
    assert_string_equal(tag_value(text, "White", v, sizeof v), "red\\engine");
    assert_string_equal(tag_value(text, "Black", v, sizeof v), "black engine");
    assert_string_equal(tag_value(text, "Result", v, sizeof v), record_outcome_pgn(r->outcome));
    assert_string_equal(tag_value(text, "Variant", v, sizeof v), "xiangqi");
    assert_string_equal(tag_value(text, "Format", v, sizeof v), "WXF");
    assert_string_equal(tag_value(text, "Termination", v, sizeof v), rules_reason_name(r->reason));
    assert_int_equal(atoi(tag_value(text, "PlyCount", v, sizeof v)), r->nplies);
    const char *fen = START_FEN;
    char fen_buf[RECORD_FEN_MAX];
    set_fen(&g_pos, r->start_fen);
    pos_get_fen(&g_pos, fen_buf, sizeof fen_buf);
    if (strcmp(fen_buf, START_FEN) != 0) {
        assert_string_equal(tag_value(text, "SetUp", v, sizeof v), "1");
        assert_string_equal(tag_value(text, "FEN", v, sizeof v), fen_buf);
        fen = fen_buf;
    } else {
        assert_null(strstr(text, "[FEN "));
        assert_null(strstr(text, "[SetUp "));
    }
    expect_line_lengths(text);
    assert_int_equal(strstr(text, "\n\n") != NULL, 1);

    char result[16];
    int moves = replay_movetext(text, fen, result, sizeof result);
    assert_int_equal(moves, r->nplies);
    assert_string_equal(result, record_outcome_pgn(r->outcome));
    replay_final(r, &g_pos);
    assert_memory_equal(g_pos.board, g_pos2.board, sizeof g_pos.board);
    assert_int_equal(g_pos.side, g_pos2.side);
    assert_true(pos_key(&g_pos) == pos_key(&g_pos2));
    if (comments)
        assert_non_null(strstr(text, "{"));
    else
        assert_null(strstr(text, "{"));

    /* snprintf semantics: a short buffer gets a cut, terminated text and the full length. */
    char small[40];
    assert_int_equal(pgn_write(r, &tags, small, sizeof small, &err), len);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, text, sizeof small - 1);
    assert_int_equal(pgn_write(r, &tags, NULL, 0, &err), len);

    FILE *f = tmpfile();
    assert_non_null(f);
    assert_true(pgn_write_file(f, r, &tags, &err));
    assert_int_equal(ftell(f), len);
    fclose(f);
}

static void test_pgn_played_games(void **state)
{
    (void)state;
    play_game(&g_rec, 21, 120);
    expect_pgn_round_trip(&g_rec, true);
    expect_pgn_round_trip(&g_rec, false);
    play_game(&g_rec, 22, 60);
    expect_pgn_round_trip(&g_rec, true);
}

static void test_pgn_setup_and_black_start(void **state)
{
    (void)state;
    make_record(&g_rec, "3k5/9/9/9/9/9/9/9/9/4K3R b - - 5 30", "d9d8 i0i8 d8d9", OUTCOME_DRAW,
                REASON_MOVE_LIMIT);
    g_rec.plies[0].flags |= RECORD_FLAG_OPENING;
    g_rec.plies[1].score = VALUE_MATE - 5;
    g_rec.plies[2].score = -123;
    expect_valid(&g_rec);
    expect_pgn_round_trip(&g_rec, true);
    static char text[8192];
    PgnError err = {{0}};
    assert_true(pgn_write(&g_rec, NULL, text, sizeof text, &err) > 0);
    assert_non_null(strstr(text, "[SetUp \"1\"]"));
    assert_non_null(strstr(text, "[Event \"?\"]"));
    assert_non_null(strstr(text, "[Date \"????.??.??\"]"));
    assert_non_null(strstr(text, "[PlyCount \"3\"]"));
    assert_non_null(strstr(text, "[Termination \"move-limit\"]"));
    assert_non_null(strstr(text, "\n\n30... K4+1 31. R1+8 K4-1 1/2-1/2\n"));
    PgnTags tags = {0};
    tags.comments = true;
    assert_true(pgn_write(&g_rec, &tags, text, sizeof text, &err) > 0);
    assert_non_null(strstr(text, "30... K4+1 {book} 31. R1+8 {+M3} 31... K4-1 {-1.23/1}"));

    /* A record that does not replay is refused. */
    g_rec.plies[1].move = move_from_text("a0a1");
    assert_int_equal(pgn_write(&g_rec, NULL, text, sizeof text, &err), -1);
    assert_non_null(strstr(err.msg, "ply 2"));
}

static int group_setup(void **state)
{
    (void)state;
    position_init();
    g_engine = engine_new();
    if (!g_engine || !engine_set_hash(g_engine, 1))
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    engine_free(&g_engine);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack_layout_start),
        cmocka_unit_test(test_pack_round_trip),
        cmocka_unit_test(test_unpack_rejects_corrupt),
        cmocka_unit_test(test_outcome_helpers),
        cmocka_unit_test(test_validate_played_games),
        cmocka_unit_test(test_validate_rejects_illegal_move),
        cmocka_unit_test(test_validate_rejects_malformed),
        cmocka_unit_test(test_validate_checkmate),
        cmocka_unit_test(test_validate_draw_verdicts),
        cmocka_unit_test(test_validate_repetition),
        cmocka_unit_test(test_validate_runner_endings),
        cmocka_unit_test(test_pgn_played_games),
        cmocka_unit_test(test_pgn_setup_and_black_start),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
