/*
 * Move generation against two references: the perft counts in tests/data/ (computed
 * by Fairy-Stockfish), and the slow mailbox generator of tests/support/refgen.c,
 * written from the rules alone. The second is compared with every entry point
 * (gen_legal, gen_captures, gen_quiets, gen_evasions, gen_count, move_is_legal,
 * move_keeps_king_safe) in every node of tree walks, random games and random
 * positions, together with make/unmake, pos_gives_check and the null move.
 *
 * Effort: CHUHE_TEST_QUICK=1 shrinks the work; it is the default in debug and
 * sanitizer builds, where CHUHE_TEST_QUICK=0 asks for the full run.
 * CHUHE_PERFT_NODES=N runs every perft count of at most N leaves (0: every count in
 * the files, which takes minutes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "movegen.h"
#include "notation.h"
#include "perft.h"
#include "position.h"
#include "tests/support/searchtest.h"
#include "tests/support/epd.h"
#include "tests/support/refgen.h"

typedef struct {
    uint64_t perft_nodes; /* the largest perft count run per position */
    int walk_depth;       /* plies of the exhaustive walk below each suite position */
    int sweep_depth;      /* plies of that walk where all 16-bit moves are tried */
    int games;            /* random games from the start position */
    int game_plies;       /* their length */
    int sweep_every;      /* in those games, all 16-bit moves are tried every n plies */
    int random_positions; /* random placements checked */
} Effort;

static const Effort FULL_EFFORT = {20000000, 2, 1, 80, 200, 4, 4000};
static const Effort QUICK_EFFORT = {2000000, 2, 0, 30, 160, 8, 800};
static Effort effort;

/* Positions are large (the history array), so the tests share static ones. */
static Position g_pos;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void set_fen(Position *pos, const char *fen)
{
    PosError err = {{0}};
    if (!pos_set_fen(pos, fen, &err))
        fail_msg("bad FEN %s: %s", fen, err.msg);
}

/* The FEN of pos, for failure messages. */
static const char *fen_of(const Position *pos)
{
    static char buf[160];
    pos_get_fen(pos, buf, sizeof buf);
    return buf;
}

static const char *move_text(Move m)
{
    static char buf[4][8];
    static int next;
    char *b = buf[next++ & 3];
    if (move_from(m) >= SQUARE_NB || move_to(m) >= SQUARE_NB)
        snprintf(b, 8, "#%04x", m);
    else
        move_to_text(m, b);
    return b;
}

/* ---------------------------------------------------------------------------------
 * Move-set helpers.
 */

static int cmp_move(const void *a, const void *b)
{
    return (int)*(const Move *)a - (int)*(const Move *)b;
}

static void sort_moves(Move *m, int n)
{
    qsort(m, (size_t)n, sizeof *m, cmp_move);
}

/* Fails unless a and b hold the same moves, each once; sorts both. */
static void expect_same_moves(const Position *pos, const char *what, Move *a, int na, Move *b,
                              int nb)
{
    sort_moves(a, na);
    sort_moves(b, nb);
    for (int i = 1; i < na; i++)
        if (a[i] == a[i - 1])
            fail_msg("%s: %s twice in %s", what, move_text(a[i]), fen_of(pos));
    for (int i = 1; i < nb; i++)
        if (b[i] == b[i - 1])
            fail_msg("%s: %s twice in %s", what, move_text(b[i]), fen_of(pos));
    int i = 0, j = 0;
    while (i < na || j < nb) {
        if (i < na && j < nb && a[i] == b[j]) {
            i++, j++;
        } else if (j >= nb || (i < na && a[i] < b[j])) {
            fail_msg("%s: %s only in the first list, in %s", what, move_text(a[i]), fen_of(pos));
        } else {
            fail_msg("%s: %s only in the second list, in %s", what, move_text(b[j]), fen_of(pos));
        }
    }
}

/* The general of c, found by scanning, and whether the generals face on an open file. */
static bool generals_face(const Position *pos)
{
    Square a = pos->king_sq[RED], z = pos->king_sq[BLACK];
    if (pos_piece_on(pos, a) != R_KING || pos_piece_on(pos, z) != B_KING)
        fail_msg("general squares are wrong in %s", fen_of(pos));
    if (sq_file(a) != sq_file(z))
        return false;
    for (int r = sq_rank(a) + 1; r < sq_rank(z); r++)
        if (pos_piece_on(pos, sq_make(sq_file(a), r)) != NO_PIECE)
            return false;
    return true;
}

static void expect_ok(const Position *pos, const char *when)
{
    const char *why = NULL;
    if (!pos_is_ok(pos, &why))
        fail_msg("pos_is_ok fails %s: %s, in %s", when, why ? why : "?", fen_of(pos));
}

/* The part of a position make/unmake must restore exactly: everything before the
 * history, and the current history entry. */
typedef struct {
    uint8_t head[offsetof(Position, hist)];
    StateInfo top;
    int hist_len;
} Snapshot;

static void snapshot_take(const Position *pos, Snapshot *s)
{
    memcpy(s->head, pos, sizeof s->head);
    s->top = *pos_state(pos);
    s->hist_len = pos->hist_len;
}

static void snapshot_expect(const Position *pos, const Snapshot *s, const char *what, Move m)
{
    if (pos->hist_len != s->hist_len || memcmp(s->head, pos, sizeof s->head) ||
        memcmp(&s->top, pos_state(pos), sizeof s->top))
        fail_msg("%s %s does not restore the position %s", what, move_text(m), fen_of(pos));
}

/* ---------------------------------------------------------------------------------
 * One node: every generator against the reference and against each other.
 */

typedef struct {
    uint64_t nodes, moves, sweeps;
} WalkStats;

/* move_is_legal on every 14-bit value, and on each with garbage in bits 14-15. */
static void sweep_move_is_legal(const Position *pos, const MoveList *legal)
{
    static bool in_legal[1 << 14];
    memset(in_legal, 0, sizeof in_legal);
    for (int i = 0; i < legal->count; i++)
        in_legal[legal->moves[i]] = true;
    for (unsigned v = 0; v < (1u << 14); v++) {
        if (move_is_legal(pos, (Move)v) != in_legal[v])
            fail_msg("move_is_legal(%s = %#x) is %d, gen_legal says %d, in %s", move_text((Move)v),
                     v, !in_legal[v], in_legal[v], fen_of(pos));
        for (unsigned hi = 1; hi <= 3; hi++)
            if (move_is_legal(pos, (Move)(v | hi << 14)))
                fail_msg("move_is_legal accepts %#x (high bits set), in %s", v | hi << 14,
                         fen_of(pos));
    }
}

static void check_null_move(Position *pos)
{
    Snapshot before;
    snapshot_take(pos, &before);
    Key key = pos_key(pos);
    Color us = pos->side;
    pos_do_null(pos);
    if (pos->side == us || pos_key(pos) != (key ^ zobrist_side) || pos_in_check(pos) ||
        pos_state(pos)->move != MOVE_NULL)
        fail_msg("null move: wrong side, key or checkers after it, in %s", fen_of(pos));
    expect_ok(pos, "after a null move");
    /* the other side moves from here as from the same board with its turn */
    MoveList l;
    gen_legal(pos, &l);
    if (gen_count(pos) != l.count)
        fail_msg("null move: gen_count differs from gen_legal in %s", fen_of(pos));
    pos_undo_null(pos);
    expect_ok(pos, "after undoing a null move");
    snapshot_expect(pos, &before, "null move", MOVE_NULL);
}

static void check_node(Position *pos, bool sweep, WalkStats *st)
{
    Color us = pos->side, them = color_flip(us);
    MoveList legal, caps, quiets, evasions;
    Move a[MOVELIST_MAX * 2], b[MOVELIST_MAX * 2];

    int n = gen_legal(pos, &legal);
    if (n != legal.count || gen_count(pos) != n)
        fail_msg("gen_legal returned %d for %d moves, gen_count %d, in %s", n, legal.count,
                 gen_count(pos), fen_of(pos));
    gen_captures(pos, &caps);
    gen_quiets(pos, &quiets);
    for (int i = 0; i < caps.count; i++) {
        Piece t = pos_piece_on(pos, move_to(caps.moves[i]));
        if (t == NO_PIECE || piece_color(t) != them)
            fail_msg("gen_captures gives %s, not a capture, in %s", move_text(caps.moves[i]),
                     fen_of(pos));
    }
    for (int i = 0; i < quiets.count; i++)
        if (pos_piece_on(pos, move_to(quiets.moves[i])) != NO_PIECE)
            fail_msg("gen_quiets gives %s, a capture, in %s", move_text(quiets.moves[i]),
                     fen_of(pos));
    /* captures + quiets, as a multiset, is exactly gen_legal */
    memcpy(a, caps.moves, (size_t)caps.count * sizeof(Move));
    memcpy(a + caps.count, quiets.moves, (size_t)quiets.count * sizeof(Move));
    memcpy(b, legal.moves, (size_t)n * sizeof(Move));
    expect_same_moves(pos, "captures + quiets vs gen_legal", a, caps.count + quiets.count, b, n);
    if (pos_in_check(pos)) {
        gen_evasions(pos, &evasions);
        memcpy(a, evasions.moves, (size_t)evasions.count * sizeof(Move));
        memcpy(b, legal.moves, (size_t)n * sizeof(Move));
        expect_same_moves(pos, "gen_evasions vs gen_legal", a, evasions.count, b, n);
    }

    /* The reference: every pseudo-legal move, made on a copy of the board. Those it
     * rejects must be missing from gen_legal and rejected by the engine's tests too. */
    Move pseudo[MOVELIST_MAX];
    int np = ref_pseudo_moves(pos->board, pos->side, pseudo), nr = 0;
    for (int i = 0; i < np; i++) {
        Move m = pseudo[i];
        bool ok = ref_is_legal(pos->board, m);
        if (move_keeps_king_safe(pos, m) != ok)
            fail_msg("move_keeps_king_safe(%s) is %d, the reference says %d, in %s", move_text(m),
                     !ok, ok, fen_of(pos));
        if (move_is_legal(pos, m) != ok)
            fail_msg("move_is_legal(%s) is %d, the reference says %d, in %s", move_text(m), !ok, ok,
                     fen_of(pos));
        if (ok)
            a[nr++] = m;
    }
    memcpy(b, legal.moves, (size_t)n * sizeof(Move));
    expect_same_moves(pos, "reference vs gen_legal", a, nr, b, n);

    /* Each legal move made: the mover's general safe, the generals apart, the check
     * flag as announced, and unmake restoring everything. */
    Snapshot before;
    snapshot_take(pos, &before);
    for (int i = 0; i < n; i++) {
        Move m = legal.moves[i];
        bool gives = pos_gives_check(pos, m);
        if (memcmp(before.head, pos, sizeof before.head))
            fail_msg("pos_gives_check(%s) changed the position %s", move_text(m), fen_of(pos));
        pos_do_move(pos, m);
        expect_ok(pos, "after a move");
        if (pos_attackers(pos, pos->king_sq[us], them))
            fail_msg("%s leaves the general attacked: %s", move_text(m), fen_of(pos));
        if (generals_face(pos))
            fail_msg("%s leaves the generals facing: %s", move_text(m), fen_of(pos));
        if (pos_in_check(pos) != gives)
            fail_msg("pos_gives_check(%s) is %d, but after it in_check is %d: %s", move_text(m),
                     gives, pos_in_check(pos), fen_of(pos));
        if (pos_checkers(pos) != pos_attackers(pos, pos->king_sq[them], us))
            fail_msg("checkers after %s differ from pos_attackers: %s", move_text(m), fen_of(pos));
        if (pos_state(pos)->move != m || pos_key(pos) == before.top.key)
            fail_msg("history entry or key wrong after %s: %s", move_text(m), fen_of(pos));
        pos_undo_move(pos);
        expect_ok(pos, "after undoing a move");
        snapshot_expect(pos, &before, "undoing", m);
    }
    if (!pos_in_check(pos))
        check_null_move(pos);
    if (sweep) {
        sweep_move_is_legal(pos, &legal);
        st->sweeps++;
    }
    st->nodes++;
    st->moves += (uint64_t)n;
}

static void walk(Position *pos, int depth, int ply, WalkStats *st)
{
    check_node(pos, ply <= effort.sweep_depth, st);
    if (depth == 0)
        return;
    MoveList l;
    gen_legal(pos, &l);
    for (int i = 0; i < l.count; i++) {
        pos_do_move(pos, l.moves[i]);
        walk(pos, depth - 1, ply + 1, st);
        pos_undo_move(pos);
    }
}

static EpdSuite load_suite(const char *path)
{
    EpdSuite suite;
    char err[512];
    if (!epd_load(path, &suite, err, sizeof err))
        fail_msg("%s", err);
    return suite;
}

/* ---------------------------------------------------------------------------------
 * Perft.
 */

static void run_perft_suite(const char *path)
{
    EpdSuite suite = load_suite(path);
    double t0 = now_seconds();
    uint64_t leaves = 0;
    int counts = 0;
    for (int i = 0; i < suite.count; i++) {
        const EpdEntry *e = &suite.entries[i];
        set_fen(&g_pos, e->fen);
        Key key = pos_key(&g_pos);
        for (int d = 1; d <= e->depths; d++) {
            if (d > 1 && effort.perft_nodes && e->nodes[d] > effort.perft_nodes)
                break;
            uint64_t got = perft(&g_pos, d);
            if (got != e->nodes[d]) {
                char msg[512];
                snprintf(msg, sizeof msg, "%s:%d: perft(%d) is %llu, expected %llu, for %s", path,
                         e->line, d, (unsigned long long)got, (unsigned long long)e->nodes[d],
                         e->fen);
                epd_free(&suite);
                fail_msg("%s", msg);
            }
            if (pos_key(&g_pos) != key || g_pos.hist_len != 1)
                fail_msg("perft changed the position %s", e->fen);
            leaves += got;
            counts++;
        }
    }
    print_message("# %s: %d positions, %d counts, %llu leaves, %.2f s\n", path, suite.count, counts,
                  (unsigned long long)leaves, now_seconds() - t0);
    epd_free(&suite);
}

static void test_perft_public(void **state)
{
    (void)state;
    run_perft_suite(EPD_PUBLIC_PATH);
}

static void test_perft_extra(void **state)
{
    (void)state;
    run_perft_suite(EPD_EXTRA_PATH);
}

typedef struct {
    Move moves[MOVELIST_MAX];
    int count;
    uint64_t sum;
} DivideLog;

static void divide_cb(void *ctx, Move m, uint64_t nodes)
{
    DivideLog *log = ctx;
    if (log->count < MOVELIST_MAX)
        log->moves[log->count] = m;
    log->count++;
    log->sum += nodes;
}

/* perft_divide: one callback per legal root move, summing to the total and to perft. */
static void test_perft_divide(void **state)
{
    (void)state;
    static const char *const paths[] = {EPD_PUBLIC_PATH, EPD_EXTRA_PATH};
    for (int p = 0; p < 2; p++) {
        EpdSuite suite = load_suite(paths[p]);
        for (int i = 0; i < suite.count; i++) {
            const EpdEntry *e = &suite.entries[i];
            int d = e->depths < 2 ? e->depths : 2;
            set_fen(&g_pos, e->fen);
            DivideLog log = {{0}, 0, 0};
            uint64_t total = perft_divide(&g_pos, d, divide_cb, &log);
            MoveList l;
            gen_legal(&g_pos, &l);
            assert_int_equal(total, e->nodes[d]);
            assert_int_equal(log.sum, total);
            assert_int_equal(log.count, l.count);
            expect_same_moves(&g_pos, "perft_divide moves vs gen_legal", log.moves, log.count,
                              l.moves, l.count);
        }
        epd_free(&suite);
    }
    set_fen(&g_pos, START_FEN);
    assert_int_equal(perft(&g_pos, 0), 1);
    assert_int_equal(perft_divide(&g_pos, 0, NULL, NULL), 1);
}

/* ---------------------------------------------------------------------------------
 * Walks: below each suite position, and random games.
 */

static void walk_suite(const char *path, WalkStats *st)
{
    EpdSuite suite = load_suite(path);
    for (int i = 0; i < suite.count; i++) {
        set_fen(&g_pos, suite.entries[i].fen);
        walk(&g_pos, effort.walk_depth, 0, st);
    }
    epd_free(&suite);
}

static void test_walk_against_reference(void **state)
{
    (void)state;
    double t0 = now_seconds();
    WalkStats st = {0, 0, 0};
    set_fen(&g_pos, START_FEN);
    walk(&g_pos, effort.walk_depth, 0, &st);
    walk_suite(EPD_PUBLIC_PATH, &st);
    walk_suite(EPD_EXTRA_PATH, &st);
    print_message("# walk: %llu nodes, %llu moves, %llu full sweeps, %.2f s\n",
                  (unsigned long long)st.nodes, (unsigned long long)st.moves,
                  (unsigned long long)st.sweeps, now_seconds() - t0);
}

/* Random games (captures preferred half the time, so that the material thins out
 * and endings come up), checked at every ply. */
static void test_random_games(void **state)
{
    (void)state;
    double t0 = now_seconds();
    WalkStats st = {0, 0, 0};
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    int ended = 0, checks = 0;
    for (int g = 0; g < effort.games; g++) {
        set_fen(&g_pos, START_FEN);
        for (int ply = 0; ply < effort.game_plies && !pos_history_full(&g_pos); ply++) {
            check_node(&g_pos, ply % effort.sweep_every == 0, &st);
            checks += pos_in_check(&g_pos);
            MoveList l, caps;
            gen_legal(&g_pos, &l);
            if (l.count == 0) {
                ended++;
                break;
            }
            gen_captures(&g_pos, &caps);
            uint64_t r = ref_rng_next(&rng);
            Move m = caps.count && (r & 1) ? caps.moves[(r >> 1) % (unsigned)caps.count]
                                           : l.moves[(r >> 1) % (unsigned)l.count];
            pos_do_move(&g_pos, m);
        }
    }
    print_message("# random games: %d games (%d ended without moves), %llu nodes (%d in check), "
                  "%llu full sweeps, %.2f s\n",
                  effort.games, ended, (unsigned long long)st.nodes, checks,
                  (unsigned long long)st.sweeps, now_seconds() - t0);
}

/* Positions no game may reach in a test run: random material on random lawful points
 * (the FEN rules), so odd corners come up: generals off centre, elephants on every
 * point, soldiers on the last rank, many sliders on one line. Those the parser
 * rejects (the side not to move in check) are skipped. */
static void test_random_positions(void **state)
{
    (void)state;
    double t0 = now_seconds();
    WalkStats st = {0, 0, 0};
    uint64_t rng = 0x2545f4914f6cdd1dULL;
    int made = 0, rejected = 0, checks = 0, mates = 0;
    while (made < effort.random_positions) {
        char fen[160];
        ref_random_fen(&rng, fen, sizeof fen);
        PosError err;
        if (!pos_set_fen(&g_pos, fen, &err)) {
            if (!strstr(err.msg, "is in check"))
                fail_msg("random position %s rejected: %s", fen, err.msg);
            rejected++;
            continue;
        }
        checks += pos_in_check(&g_pos);
        mates += gen_count(&g_pos) == 0;
        check_node(&g_pos, made % 2 == 0, &st);
        if (made < effort.random_positions / 8) {
            MoveList l;
            gen_legal(&g_pos, &l);
            for (int i = 0; i < l.count; i++) {
                pos_do_move(&g_pos, l.moves[i]);
                check_node(&g_pos, false, &st);
                pos_undo_move(&g_pos);
            }
        }
        made++;
    }
    print_message("# random positions: %d (%d in check, %d without moves; %d rejected), "
                  "%llu nodes, %.2f s\n",
                  made, checks, mates, rejected, (unsigned long long)st.nodes, now_seconds() - t0);
}

/* ---------------------------------------------------------------------------------
 * The rules, one position each: the legal destinations of one piece.
 */

static int cmp_text(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Fails unless the legal destinations of the piece on `from` are exactly `want`
 * (square names in alphabetical order, separated by single spaces). */
static void expect_dests(const char *fen, const char *from, const char *want)
{
    set_fen(&g_pos, fen);
    MoveList l;
    gen_legal(&g_pos, &l);
    char names[MOVELIST_MAX][3];
    int n = 0;
    Square s = square_from_text(from);
    for (int i = 0; i < l.count; i++)
        if (move_from(l.moves[i]) == s)
            square_to_text(move_to(l.moves[i]), names[n++]);
    qsort(names, (size_t)n, sizeof names[0], cmp_text);
    char got[MOVELIST_MAX * 3 + 1] = "";
    for (int i = 0; i < n; i++) {
        if (i)
            strcat(got, " ");
        strcat(got, names[i]);
    }
    if (strcmp(got, want))
        fail_msg("%s in %s: expected [%s], got [%s]", from, fen, want, got);
}

static void test_rule_flying_general_pin(void **state)
{
    (void)state;
    /* alone between the generals: along the file only */
    expect_dests("1n2k3r/9/9/9/4C4/9/9/9/9/R3K4 w - - 0 1", "e5", "e1 e2 e3 e4 e6 e7 e8");
    expect_dests("9/3k5/7c1/p1P6/3n5/9/9/9/3K5/1N6R b - - 0 1", "d5", "");
    /* the general may not step onto the other general's open file */
    expect_dests("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1", "e0", "e1 f0");
}

static void test_rule_horse_legs(void **state)
{
    (void)state;
    /* e4: own soldier on the leg e5, black soldier on the leg f4 */
    expect_dests("5k3/4a4/6nc1/6P2/4P4/4Np3/9/9/9/3K5 w - - 0 1", "e4", "c3 c5 d2 f2");
    /* g7: red soldier on the leg g6, own cannon on the leg h7; e8 and f9 are its own */
    expect_dests("5k3/4a4/6nc1/6P2/4P4/4Np3/9/9/9/3K5 b - - 0 1", "g7", "e6 h9");
    /* a horse in the corner */
    expect_dests("3k5/9/9/9/9/9/9/9/9/N3K4 w - - 0 1", "a0", "b2 c1");
}

static void test_rule_elephant_eyes_and_river(void **state)
{
    (void)state;
    /* e2: own horse on the eye d1, black soldier on the eye f3 */
    expect_dests("2bk5/3n5/4b4/5P3/9/9/5p3/4B4/3N5/4K1B2 w - - 0 1", "e2", "c4");
    expect_dests("2bk5/3n5/4b4/5P3/9/9/5p3/4B4/3N5/4K1B2 w - - 0 1", "g0", "i2");
    /* at the river: never across */
    expect_dests("4k3r/4a4/9/9/2b3b2/2B3B2/9/9/4A4/R2K5 w - - 0 1", "c4", "a2 e2");
    expect_dests("4k3r/4a4/9/9/2b3b2/2B3B2/9/9/4A4/R2K5 b - - 0 1", "g5", "e7 i7");
}

static void test_rule_soldiers(void **state)
{
    (void)state;
    const char *fen = "5k2P/9/9/p5P2/2p1P4/2P1p4/P8/6p2/9/3K4p w - - 0 1";
    expect_dests(fen, "a3", "a4");
    expect_dests(fen, "c4", "c5"); /* before the river: forward only, here a capture */
    expect_dests(fen, "e5", "d5 e6 f5");
    expect_dests(fen, "g6", "f6 g7 h6");
    expect_dests(fen, "i9", "h9"); /* the last rank: sideways only */
    const char *fen_b = "5k2P/9/9/p5P2/2p1P4/2P1p4/P8/6p2/9/3K4p b - - 0 1";
    expect_dests(fen_b, "a6", "a5");
    expect_dests(fen_b, "c5", "c4");
    expect_dests(fen_b, "e4", "d4 e3 f4");
    expect_dests(fen_b, "i0", "h0");
}

static void test_rule_cannon_screens(void **state)
{
    (void)state;
    /* no screen yet: nothing but the general may step onto e1..e5 */
    const char *zero = "5k3/9/8r/4c4/9/6B2/R8/2N6/9/3AK4 w - - 0 1";
    expect_dests(zero, "a3", "a0 a1 a2 a4 a5 a6 a7 a8 a9 b3 c3 d3 f3 g3 h3 i3");
    expect_dests(zero, "d0", "");
    expect_dests(zero, "c2", "a1 b0 b4 d4");
    expect_dests(zero, "e0", "e1"); /* f0 would face the black general */
    /* two screens: each may only move along the line */
    const char *two = "3k5/9/4c4/9/8r/4R4/9/4N4/9/4K4 w - - 0 1";
    expect_dests(two, "e2", "");
    expect_dests(two, "e4", "e3 e5 e6 e7");
    /* check over an enemy screen: capturing it makes a new screen */
    const char *enemy = "r2k5/4c4/9/9/9/1R2n4/9/7C1/4K4/6N2 w - - 0 1";
    expect_dests(enemy, "b4", "");
    expect_dests(enemy, "h2", "e2");
    expect_dests(enemy, "e1", "f1");
}

static void test_rule_double_checks(void **state)
{
    (void)state;
    /* chariot + horse: only the general moves, and not onto the d-file */
    expect_dests("3k5/9/4r4/R8/9/9/9/6n2/4K4/2N6 w - - 0 1", "a6", "");
    expect_dests("3k5/9/4r4/R8/9/9/9/6n2/4K4/2N6 w - - 0 1", "e1", "f1");
    /* a cannon screened by the checking chariot: taking the chariot does not help */
    const char *screened = "5k3/4c4/9/9/9/R3r4/9/3N5/9/4K4 w - - 0 1";
    expect_dests(screened, "d2", "");
    expect_dests(screened, "a4", "");
    expect_dests(screened, "e0", "d0");
    /* two horses on one leg: the cannon blocks both on d1 */
    const char *horses = "3k5/8R/9/9/9/9/9/3n5/2n4C1/4K4 w - - 0 1";
    expect_dests(horses, "h1", "d1");
    expect_dests(horses, "e0", "d0 e1 f0");
    expect_dests(horses, "i8", "");
}

static void test_rule_horse_leg_pins(void **state)
{
    (void)state;
    const char *fen = "3k5/9/9/9/R8/9/9/9/2nC1Nn2/4K4 w - - 0 1";
    expect_dests(fen, "d1", "");
    expect_dests(fen, "f1", "");
}

static void test_mate_and_stalemate(void **state)
{
    (void)state;
    static const char *const none[] = {
        "3nkn3/4R4/4P4/9/9/9/9/9/9/3K5 b - - 0 1", /* mate by chariot */
        "3k5/9/4c4/4c4/9/9/9/9/9/3AKA3 w - - 0 1", /* mate by two cannons */
        "3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1",      /* stalemate */
        "4k4/5r3/9/9/9/4N4/9/9/3p5/4K4 w - - 0 1", /* stalemate with a pinned horse */
    };
    static const bool in_check[] = {true, true, false, false};
    for (int i = 0; i < 4; i++) {
        set_fen(&g_pos, none[i]);
        MoveList l;
        assert_int_equal(gen_legal(&g_pos, &l), 0);
        assert_int_equal(gen_count(&g_pos), 0);
        assert_int_equal(pos_in_check(&g_pos), in_check[i]);
        assert_int_equal(perft(&g_pos, 1), 0);
        assert_int_equal(perft(&g_pos, 3), 0);
        for (unsigned v = 0; v < (1u << 14); v++)
            assert_false(move_is_legal(&g_pos, (Move)v));
    }
}

static void test_move_is_legal_edges(void **state)
{
    (void)state;
    set_fen(&g_pos, START_FEN);
    assert_false(move_is_legal(&g_pos, MOVE_NONE));
    assert_false(move_is_legal(&g_pos, MOVE_NULL));
    Move m = move_from_text("h2e2");
    assert_true(move_is_legal(&g_pos, m));
    assert_false(move_is_legal(&g_pos, (Move)(m | 1u << 14)));
    assert_false(move_is_legal(&g_pos, (Move)(m | 1u << 15)));
    assert_false(move_is_legal(&g_pos, move_make(sq_make(7, 2), sq_make(7, 2))));
    assert_false(move_is_legal(&g_pos, move_from_text("h7e7"))); /* the other side's */
    assert_false(move_is_legal(&g_pos, move_from_text("a0a3"))); /* onto its own soldier */
    assert_false(move_is_legal(&g_pos, move_from_text("e4e5"))); /* from an empty point */
    assert_false(move_is_legal(&g_pos, move_make(95, 3)));       /* off the board */
    assert_false(move_is_legal(&g_pos, move_make(3, 100)));
}

static void test_null_move(void **state)
{
    (void)state;
    set_fen(&g_pos, START_FEN);
    Key key = pos_key(&g_pos);
    pos_do_null(&g_pos);
    assert_int_equal(g_pos.side, BLACK);
    assert_true(pos_key(&g_pos) == (key ^ zobrist_side));
    assert_int_equal(gen_count(&g_pos), 44);
    assert_int_equal(perft(&g_pos, 2), 1920);
    expect_ok(&g_pos, "after a null move");
    pos_undo_null(&g_pos);
    assert_int_equal(g_pos.side, RED);
    assert_true(pos_key(&g_pos) == key);
    assert_int_equal(g_pos.hist_len, 1);
    /* a null move between real ones */
    pos_do_move(&g_pos, move_from_text("h2e2"));
    Key k1 = pos_key(&g_pos);
    pos_do_null(&g_pos);
    pos_do_move(&g_pos, move_from_text("e2e6"));
    expect_ok(&g_pos, "after a capture following a null move");
    pos_undo_move(&g_pos);
    pos_undo_null(&g_pos);
    assert_true(pos_key(&g_pos) == k1);
    pos_undo_move(&g_pos);
    assert_true(pos_key(&g_pos) == key);
}

static void pick_effort(void)
{
    effort = searchtest_quick() ? QUICK_EFFORT : FULL_EFFORT;
    const char *nodes = getenv("CHUHE_PERFT_NODES");
    if (nodes && *nodes)
        effort.perft_nodes = strtoull(nodes, NULL, 10);
}

int main(void)
{
    position_init();
    pick_effort();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perft_public),
        cmocka_unit_test(test_perft_extra),
        cmocka_unit_test(test_perft_divide),
        cmocka_unit_test(test_rule_flying_general_pin),
        cmocka_unit_test(test_rule_horse_legs),
        cmocka_unit_test(test_rule_elephant_eyes_and_river),
        cmocka_unit_test(test_rule_soldiers),
        cmocka_unit_test(test_rule_cannon_screens),
        cmocka_unit_test(test_rule_double_checks),
        cmocka_unit_test(test_rule_horse_leg_pins),
        cmocka_unit_test(test_mate_and_stalemate),
        cmocka_unit_test(test_move_is_legal_edges),
        cmocka_unit_test(test_null_move),
        cmocka_unit_test(test_walk_against_reference),
        cmocka_unit_test(test_random_games),
        cmocka_unit_test(test_random_positions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
