/*
 * NNUE: the feature index, the output bucket, the reference evaluation worked out by
 * hand and checked against colour symmetry, the file format (write/read round trip and
 * every kind of rejection, with the file named and the network untouched), the
 * incremental accumulators against the reference on every position of random games and
 * of games the engine plays with a random network (with probes, captures, undo, null
 * moves and lazy gaps), and the portable and AVX2 kernels against each other.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "movegen.h"
#include "nnue.h"
#include "nnue_kernel.h"
#include "notation.h"
#include "position.h"
#include "support/scratch.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int rng_range(uint64_t *s, int lo, int hi)
{
    return lo + (int)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

/* Random weights of the sizes given, spread so that the accumulators cross both ends
 * of the clamp; W2 uses its whole range. */
static void random_net(NnueNet *net, uint32_t hidden, uint32_t buckets, uint64_t seed)
{
    char err[200];
    assert_true(nnue_net_alloc(net, hidden, buckets, err, sizeof err));
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (size_t i = 0; i < (size_t)NNUE_INPUTS * hidden; i++)
        net->w1[i] = (int16_t)rng_range(&s, -60, 60);
    for (uint32_t i = 0; i < hidden; i++)
        net->b1[i] = (int16_t)rng_range(&s, -100, 200);
    for (uint32_t i = 0; i < 2 * hidden * buckets; i++)
        net->w2[i] = (int16_t)rng_range(&s, -NNUE_W2_MAX, NNUE_W2_MAX);
    for (uint32_t i = 0; i < buckets; i++)
        net->b2[i] = rng_range(&s, -200000, 200000);
    net->scale = 400;
    snprintf(net->description, sizeof net->description, "random seed %llu",
             (unsigned long long)seed);
}

static void set_fen(Position *pos, const char *fen)
{
    PosError err;
    if (!pos_set_fen(pos, fen, &err))
        fail_msg("%s: %s", fen, err.msg);
}

static bool nets_equal(const NnueNet *a, const NnueNet *b)
{
    return a->hidden == b->hidden && a->buckets == b->buckets && a->scale == b->scale &&
           !strcmp(a->description, b->description) &&
           !memcmp(a->w1, b->w1, (size_t)NNUE_INPUTS * a->hidden * 2) &&
           !memcmp(a->b1, b->b1, a->hidden * 2) &&
           !memcmp(a->w2, b->w2, (size_t)a->buckets * 2 * a->hidden * 2) &&
           !memcmp(a->b2, b->b2, a->buckets * 4);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    uint8_t *buf = scratch_slurp(path, len);
    if (!buf)
        fail_msg("cannot read %s", path);
    return buf;
}

static void spill(const char *path, const uint8_t *buf, size_t len)
{
    if (!scratch_spit(path, buf, len))
        fail_msg("cannot write %s", path);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The colour-flipped FEN: ranks reversed, cases swapped, the other side to move. */
static void mirror_fen(const char *fen, char *out)
{
    char board[128], side;
    assert_int_equal(sscanf(fen, "%127s %c", board, &side), 2);
    char *ranks[10];
    int n = 0;
    for (char *t = strtok(board, "/"); t; t = strtok(NULL, "/"))
        ranks[n++] = t;
    assert_int_equal(n, 10);
    out[0] = '\0';
    for (int r = 9; r >= 0; r--) {
        for (char *c = ranks[r]; *c; c++)
            *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
        strcat(out, ranks[r]);
        if (r)
            strcat(out, "/");
    }
    strcat(out, side == 'w' ? " b - - 0 1" : " w - - 0 1");
}

/* ---- feature index, bucket, reference evaluation ------------------------------------------ */

static void test_feature_index(void **state)
{
    (void)state;
    assert_int_equal(nnue_feature_index(RED, R_KING, 4), 4);
    assert_int_equal(nnue_feature_index(BLACK, R_KING, 4), 630 + 85);
    assert_int_equal(nnue_feature_index(BLACK, B_SOLDIER, 54), 6 * 90 + 27);
    assert_int_equal(nnue_feature_index(RED, B_CANNON, 89), 630 + 5 * 90 + 89);
    /* each perspective numbers the 14 pieces on 90 points 0..1259, each index once */
    for (Color p = RED; p < COLOR_NB; p++) {
        int seen[NNUE_INPUTS] = {0};
        for (Color c = RED; c < COLOR_NB; c++)
            for (PieceType t = KING; t <= SOLDIER; t++)
                for (Square s = 0; s < SQUARE_NB; s++) {
                    int f = nnue_feature_index(p, piece_make(c, t), s);
                    assert_in_range(f, 0, NNUE_INPUTS - 1);
                    seen[f]++;
                    /* the other perspective sees the mirrored piece the same way */
                    Square m = (RANK_NB - 1 - sq_rank(s)) * FILE_NB + sq_file(s);
                    assert_int_equal(
                        f, nnue_feature_index(color_flip(p), piece_make(color_flip(c), t), m));
                }
        for (int f = 0; f < NNUE_INPUTS; f++)
            assert_int_equal(seen[f], 1);
    }
}

static void test_bucket(void **state)
{
    (void)state;
    NnueNet net;
    char err[200];
    Position pos;
    assert_true(nnue_net_alloc(&net, 32, 8, err, sizeof err));
    set_fen(&pos, START_FEN);
    assert_int_equal(nnue_bucket(&net, &pos), 7); /* 32 pieces: (30 * 8) / 31 */
    set_fen(&pos, "4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1");
    assert_int_equal(nnue_bucket(&net, &pos), 0);
    set_fen(&pos, "3ak4/4a4/9/9/9/9/9/4R4/9/4K4 w - - 0 1"); /* 5 pieces: 3 * 8 / 31 */
    assert_int_equal(nnue_bucket(&net, &pos), 0);
    set_fen(&pos, "2bakab2/9/9/9/9/9/9/9/4A4/2BAK1B2 w - - 0 1"); /* 10: 8 * 8 / 31 */
    assert_int_equal(nnue_bucket(&net, &pos), 2);
    nnue_net_free(&net);
    assert_true(nnue_net_alloc(&net, 32, 1, err, sizeof err));
    set_fen(&pos, START_FEN);
    assert_int_equal(nnue_bucket(&net, &pos), 0);
    nnue_net_free(&net);
}

/* Two units, worked out by hand from the integer rules of nnue.h. Start position
 * without Red's a0 chariot; feature 360 is "own chariot on the own a-corner". */
static void test_evaluate_by_hand(void **state)
{
    (void)state;
    NnueNet net;
    char err[200];
    Position pos;
    assert_true(nnue_net_alloc(&net, 32, 1, err, sizeof err));
    net.b1[0] = 100;
    net.w1[360 * 32 + 0] = 50;
    net.w2[0] = 64; /* the side to move's unit 0 */
    net.b1[1] = 250;
    net.w1[(630 + 360) * 32 + 1] = 40; /* an enemy chariot on the own a-corner */
    net.w2[32 + 1] = -10;              /* the other side's unit 1 */
    set_fen(&pos, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABNR w - - 0 1");
    /* Red: 100*64*100 = 640000; Black's unit 1 = 250: 250*-10*250 = -625000;
     * 15000 / 255 = 58; 58 * 400 / 16320 = 1 */
    assert_int_equal(nnue_evaluate_full(&net, &pos), 1);
    /* Black (its chariot on a9 is feature 360): 150*64*150 = 1440000, Red's unit 1 =
     * 250: -625000; 815000 / 255 = 3196; 3196 * 400 / 16320 = 78 */
    set_fen(&pos, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABNR b - - 0 1");
    assert_int_equal(nnue_evaluate_full(&net, &pos), 78);
    /* b2 is in QA*QB units: (3196 + 163200) * 400 / 16320 = 4078 */
    net.b2[0] = 16320 * 10;
    assert_int_equal(nnue_evaluate_full(&net, &pos), 4078);
    /* the result is clamped below the mate scores */
    net.b2[0] = 2000000000;
    assert_int_equal(nnue_evaluate_full(&net, &pos), VALUE_MATE_IN_MAX_PLY - 1);
    net.b2[0] = -2000000000;
    assert_int_equal(nnue_evaluate_full(&net, &pos), -(VALUE_MATE_IN_MAX_PLY - 1));
    /* divisions truncate towards zero: -1440000 - 625000 = -2065000; / 255 = -8098;
     * -8098 * 400 / 16320 = -198 (-198.5) */
    net.b2[0] = 0;
    net.w2[0] = -64;
    assert_int_equal(nnue_evaluate_full(&net, &pos), -198);
    /* a unit clamps at QA: Red's unit 1 at 300 counts as 255, -255*10*255 = -650250;
     * -2090250 / 255 = -8197; -8197 * 400 / 16320 = -200 */
    net.b1[1] = 300;
    assert_int_equal(nnue_evaluate_full(&net, &pos), -200);
    nnue_net_free(&net);
}

/* A position and its colour mirror, the other side to move, evaluate the same. */
static void test_evaluate_colour_symmetry(void **state)
{
    (void)state;
    static const char *const FENS[] = {
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
        "2bakab1r/r8/2n1c1nc1/p1p1p3p/6p2/2P6/P3P1P1P/1CN1C1N2/R8/2BAKAB1R w - - 0 8",
        "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w - - 0 1",
        "4k4/9/4b4/9/2p6/6P2/9/4B4/9/3K5 b - - 0 1",
    };
    NnueNet net;
    random_net(&net, 64, 8, 5);
    for (size_t i = 0; i < sizeof FENS / sizeof FENS[0]; i++) {
        Position a, b;
        char m[160];
        set_fen(&a, FENS[i]);
        mirror_fen(FENS[i], m);
        set_fen(&b, m);
        assert_int_equal(nnue_evaluate_full(&net, &a), nnue_evaluate_full(&net, &b));
    }
    nnue_net_free(&net);
}

/* ---- incremental accumulators ----------------------------------------------------------- */

/* Walks one game through the stack: at each ply a few probes (a child, sometimes a
 * grandchild or a null move, evaluated or not, then undone), then the game's move.
 * Every evaluation is compared with the reference; every few plies one is skipped so
 * that the next one catches up over several moves, and past ply 100 the stack starts
 * again from the current position. moves: the game (NULL: random moves, captures
 * preferred half of the time). Returns the positions compared. */
static int walk_game(const NnueNet *net, NnueStack *st, const char *fen, const Move *moves,
                     int nmoves, uint64_t seed)
{
    Position pos;
    set_fen(&pos, fen);
    nnue_stack_reset(st);
    uint64_t rng = seed * 2654435761u + 7;
    int compared = 0, ply = 0;
    for (int i = 0; moves ? i <= nmoves : i < 300; i++) {
        if (rng_range(&rng, 0, 3)) {
            assert_int_equal(nnue_evaluate(st, net, &pos, ply), nnue_evaluate_full(net, &pos));
            compared++;
        }
        MoveList list;
        if (gen_legal(&pos, &list) == 0 || (moves && i == nmoves))
            break;
        for (int probe = rng_range(&rng, 0, 3); probe > 0; probe--) {
            Move m = list.moves[rng_range(&rng, 0, list.count - 1)];
            nnue_stack_push(st, &pos, ply, m);
            pos_do_move(&pos, m);
            MoveList sub;
            if (rng_range(&rng, 0, 1) && gen_legal(&pos, &sub) > 0) {
                Move m2 = sub.moves[rng_range(&rng, 0, sub.count - 1)];
                nnue_stack_push(st, &pos, ply + 1, m2);
                pos_do_move(&pos, m2);
                assert_int_equal(nnue_evaluate(st, net, &pos, ply + 2),
                                 nnue_evaluate_full(net, &pos));
                pos_undo_move(&pos);
            } else if (!pos_in_check(&pos) && rng_range(&rng, 0, 1)) {
                nnue_stack_push_null(st, ply + 1);
                pos_do_null(&pos);
                assert_int_equal(nnue_evaluate(st, net, &pos, ply + 2),
                                 nnue_evaluate_full(net, &pos));
                pos_undo_null(&pos);
            }
            if (rng_range(&rng, 0, 1))
                assert_int_equal(nnue_evaluate(st, net, &pos, ply + 1),
                                 nnue_evaluate_full(net, &pos));
            pos_undo_move(&pos);
            compared++;
        }
        Move m;
        if (moves) {
            m = moves[i];
        } else {
            MoveList caps;
            bool take = gen_captures(&pos, &caps) > 0 && rng_range(&rng, 0, 1);
            m = take ? caps.moves[rng_range(&rng, 0, caps.count - 1)]
                     : list.moves[rng_range(&rng, 0, list.count - 1)];
        }
        if (pos_history_full(&pos))
            pos_trim_history(&pos);
        nnue_stack_push(st, &pos, ply, m);
        pos_do_move(&pos, m);
        if (++ply > 100) {
            nnue_stack_reset(st);
            ply = 0;
        }
    }
    return compared;
}

static void test_incremental_random_games(void **state)
{
    (void)state;
    static const uint32_t SIZES[][2] = {{256, 1}, {128, 8}, {32, 31}};
    char err[200];
    for (size_t k = 0; k < sizeof SIZES / sizeof SIZES[0]; k++) {
        NnueNet net;
        NnueStack st;
        random_net(&net, SIZES[k][0], SIZES[k][1], 10 + k);
        assert_true(nnue_stack_alloc(&st, net.hidden, err, sizeof err));
        int compared = 0;
        for (int g = 0; g < 6; g++)
            compared += walk_game(&net, &st, START_FEN, NULL, 0, 100 * k + (size_t)g);
        assert_true(compared > 500);
        nnue_stack_free(&st);
        nnue_net_free(&net);
    }
}

/* Games the engine plays against itself with a random network at a few hundred nodes
 * a move; their positions are walked through a fresh stack. (Debug builds also check
 * one evaluation in 8 inside those searches against the reference.) */
static void test_incremental_engine_games(void **state)
{
    (void)state;
    NnueNet net;
    NnueStack st;
    char err[200];
    WeightsError werr;
    const char *path = scratch_path("games.nnue");
    random_net(&net, 128, 8, 77);
    assert_true(nnue_net_write(&net, path, err, sizeof err));
    assert_true(nnue_stack_alloc(&st, net.hidden, err, sizeof err));
    Engine *e = engine_new();
    assert_non_null(e);
    assert_true(engine_load_eval_file(e, path, &werr));
    assert_non_null(engine_net(e));
    static const char *const OPENINGS[] = {
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    };
    for (size_t g = 0; g < sizeof OPENINGS / sizeof OPENINGS[0]; g++) {
        enum { PLIES = 60 };
        Move moves[PLIES];
        char text[PLIES][6];
        const char *played[PLIES];
        int n = 0;
        PosError perr;
        engine_new_game(e);
        SearchLimits limits;
        time_limits_clear(&limits);
        limits.nodes = 400;
        for (; n < PLIES; n++) {
            assert_true(engine_set_position(e, OPENINGS[g], played, n, &perr));
            SearchResult r = engine_search(e, &limits, NULL);
            if (r.best == MOVE_NONE)
                break;
            moves[n] = r.best;
            move_to_text(r.best, text[n]);
            played[n] = text[n];
        }
        assert_true(walk_game(&net, &st, OPENINGS[g], moves, n, g) > n / 2);
    }
    engine_free(&e);
    nnue_stack_free(&st);
    nnue_net_free(&net);
}

/* ---- kernels ---------------------------------------------------------------------------- */

/* The kernels built again portable and AVX2 by the Makefile for this test. */
extern const char *const nnue_kernel_name_portable;
void nnue_kernel_update_portable(int16_t *dst, const int16_t *src, const int16_t *const *add,
                                 int nadd, const int16_t *const *sub, int nsub, uint32_t n);
int64_t nnue_kernel_output_portable(const int16_t *us, const int16_t *them, const int16_t *w,
                                    uint32_t n);
#ifdef __x86_64__
extern const char *const nnue_kernel_name_avx2;
void nnue_kernel_update_avx2(int16_t *dst, const int16_t *src, const int16_t *const *add, int nadd,
                             const int16_t *const *sub, int nsub, uint32_t n);
int64_t nnue_kernel_output_avx2(const int16_t *us, const int16_t *them, const int16_t *w,
                                uint32_t n);
#endif

typedef void (*UpdateFn)(int16_t *, const int16_t *, const int16_t *const *, int,
                         const int16_t *const *, int, uint32_t);
typedef int64_t (*OutputFn)(const int16_t *, const int16_t *, const int16_t *, uint32_t);

static void test_kernels_agree(void **state)
{
    (void)state;
    enum { N = NNUE_HIDDEN_MAX, ROWS = 33 };
    UpdateFn update[3] = {nnue_kernel_update, nnue_kernel_update_portable, NULL};
    OutputFn output[3] = {nnue_kernel_output, nnue_kernel_output_portable, NULL};
    assert_string_equal(nnue_kernel_name_portable, "portable");
#ifdef __x86_64__
    /* every x86-64 build has SSE2 at least */
    assert_string_not_equal(nnue_kernel_name, "portable");
#endif
#ifdef __x86_64__
    assert_string_equal(nnue_kernel_name_avx2, "avx2");
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
        update[2] = nnue_kernel_update_avx2;
        output[2] = nnue_kernel_output_avx2;
    } else {
        print_message("this CPU has no AVX2: only the portable kernels are compared\n");
    }
#endif
    int16_t *rows = aligned_alloc(64, ROWS * N * sizeof(int16_t));
    int16_t *src = aligned_alloc(64, N * sizeof(int16_t));
    int16_t *them = aligned_alloc(64, N * sizeof(int16_t));
    int16_t *w = aligned_alloc(64, 2 * N * sizeof(int16_t));
    int16_t *dst[3];
    for (int k = 0; k < 3; k++)
        dst[k] = aligned_alloc(64, N * sizeof(int16_t));
    uint64_t rng = 99;
    for (int trial = 0; trial < 40; trial++) {
        uint32_t n = (uint32_t)rng_range(&rng, 1, N / 32) * 32;
        for (uint32_t i = 0; i < ROWS * n; i++)
            rows[i] = (int16_t)rng_range(&rng, -NNUE_W1_MAX, NNUE_W1_MAX);
        for (uint32_t i = 0; i < n; i++) {
            src[i] = (int16_t)rng_range(&rng, -300, 600);
            them[i] = (int16_t)rng_range(&rng, -300, 600);
        }
        for (uint32_t i = 0; i < 2 * n; i++)
            w[i] = (int16_t)(trial % 4 == 0 ? NNUE_W2_MAX
                                            : rng_range(&rng, -NNUE_W2_MAX, NNUE_W2_MAX));
        const int16_t *add[ROWS], *sub[ROWS];
        int nadd = rng_range(&rng, 0, 20), nsub = rng_range(&rng, 0, ROWS - 1 - nadd);
        for (int a = 0; a < nadd; a++)
            add[a] = rows + (size_t)a * n;
        for (int b = 0; b < nsub; b++)
            sub[b] = rows + (size_t)(nadd + b) * n;
        /* the exact values, in plain int64 */
        int64_t want = 0;
        for (uint32_t i = 0; i < 2 * n; i++) {
            int64_t v = i < n ? src[i] : them[i - n];
            v = v < 0 ? 0 : v > NNUE_QA ? NNUE_QA : v;
            want += v * w[i] * v;
        }
        for (int k = 0; k < 3; k++) {
            if (!update[k])
                continue;
            update[k](dst[k], src, add, nadd, sub, nsub, n);
            for (uint32_t i = 0; i < n; i++) {
                int v = src[i];
                for (int a = 0; a < nadd; a++)
                    v += add[a][i];
                for (int b = 0; b < nsub; b++)
                    v -= sub[b][i];
                if (dst[k][i] != (int16_t)v)
                    fail_msg("kernel %d, n %u, lane %u: %d, not %d", k, n, i, dst[k][i], v);
            }
            assert_true(output[k](src, them, w, n) == want);
        }
    }
    free(rows);
    free(src);
    free(them);
    free(w);
    for (int k = 0; k < 3; k++)
        free(dst[k]);
}

/* ---- the file --------------------------------------------------------------------------- */

static void test_alloc_refuses_sizes(void **state)
{
    (void)state;
    NnueNet net;
    char err[200];
    assert_false(nnue_net_alloc(&net, 48, 1, err, sizeof err));
    assert_non_null(strstr(err, "hidden size 48"));
    assert_false(nnue_net_alloc(&net, 2048, 1, err, sizeof err));
    assert_false(nnue_net_alloc(&net, 256, 0, err, sizeof err));
    assert_non_null(strstr(err, "0 output buckets"));
    assert_false(nnue_net_alloc(&net, 256, 32, err, sizeof err));
    nnue_net_free(&net); /* safe on the emptied network */
}

static void test_round_trip(void **state)
{
    (void)state;
    NnueNet a, b;
    char err[200];
    const char *path = scratch_path("round.nnue");
    random_net(&a, 64, 8, 1);
    assert_true(nnue_net_write(&a, path, err, sizeof err));
    assert_true(nnue_file_is_net(path));
    size_t len;
    free(slurp(path, &len));
    assert_int_equal(len, NNUE_HEADER_BYTES + nnue_payload_bytes(64, 8));
    assert_true(nnue_net_read(&b, path, err, sizeof err));
    assert_true(nets_equal(&a, &b));
    assert_int_equal((uintptr_t)b.w1 % 64, 0);
    Position pos;
    set_fen(&pos, START_FEN);
    assert_int_equal(nnue_evaluate_full(&a, &pos), nnue_evaluate_full(&b, &pos));
    nnue_net_free(&a);
    nnue_net_free(&b);
}

static void test_write_refuses(void **state)
{
    (void)state;
    NnueNet net;
    char err[200];
    const char *path = scratch_path("refused.nnue");
    random_net(&net, 32, 1, 2);
    net.w2[5] = NNUE_W2_MAX + 1;
    assert_false(nnue_net_write(&net, path, err, sizeof err));
    assert_non_null(strstr(err, "W2[0][5] = 128 is outside -127..127"));
    net.w2[5] = 0;
    net.w1[32 * 7 + 3] = -NNUE_W1_MAX - 1;
    assert_false(nnue_net_write(&net, path, err, sizeof err));
    assert_non_null(strstr(err, "W1[7][3] = -506"));
    net.w1[32 * 7 + 3] = 0;
    net.scale = 0;
    assert_false(nnue_net_write(&net, path, err, sizeof err));
    assert_non_null(strstr(err, "SCALE 0"));
    net.scale = 400;
    net.description[3] = '\t';
    assert_false(nnue_net_write(&net, path, err, sizeof err));
    assert_non_null(strstr(err, "description byte 3 is 0x09"));
    nnue_net_free(&net);
}

/* One corruption of a good file and the words of its error. */
typedef struct {
    const char *what;
    size_t cut;          /* keep only this many bytes (0: all) */
    size_t at;           /* byte to set (0: none) */
    uint32_t value;      /* the u32 written at `at` */
    bool byte;           /* write one byte instead of a u32 */
    size_t append;       /* bytes added at the end */
    bool fix_checksum;   /* recompute the checksum after the change */
    const char *message; /* expected in the error */
} Corruption;

static void test_read_refuses(void **state)
{
    (void)state;
    enum { H = 32, B = 2 };
    const size_t payload = nnue_payload_bytes(H, B), w2_at = 112 + (NNUE_INPUTS + 1) * H * 2;
    const Corruption CASES[] = {
        {"empty", .cut = 0, .at = 0, .append = 0, .message = "truncated: 0 bytes"},
        {"short magic", .cut = 5, .message = "truncated: 5 bytes"},
        {"short header", .cut = 60, .message = "truncated: the header has 60 of 112 bytes"},
        {"short payload", .cut = 112 + 100, .message = "truncated: the payload has 100 of"},
        {"foreign magic", .at = 7, .value = 'X', .byte = true, .message = "not a chuhe network"},
        {"version", .at = 8, .value = 2,
         .message = "format version 2, this engine reads version 1"},
        {"feature set", .at = 12, .value = 3, .message = "unknown feature set 3"},
        {"hidden", .at = 16, .value = 48, .message = "hidden size 48 is not a multiple of 32"},
        {"hidden big", .at = 16, .value = 2048, .message = "hidden size 2048"},
        {"buckets", .at = 20, .value = 0, .message = "0 output buckets, allowed 1 to 31"},
        {"buckets big", .at = 20, .value = 32, .message = "32 output buckets"},
        {"activation", .at = 24, .value = 2, .message = "unknown activation 2"},
        {"QA", .at = 28, .value = 127, .message = "quantisation QA=127 QB=64"},
        {"QB", .at = 32, .value = 128, .message = "quantisation QA=255 QB=128"},
        {"scale", .at = 36, .value = 0, .message = "SCALE 0 is outside 1..10000"},
        {"payload size", .at = 40, .value = 1000, .message = "payload size 1000 bytes"},
        {"checksum", .at = 112 + 10, .value = 0x7fff, .message = "payload checksum"},
        {"trailing", .append = 3, .message = "3 bytes follow the payload"},
        {"description", .at = 48 + 2, .value = 0x07, .byte = true,
         .message = "description byte 2 is 0x07"},
        {"description tail", .at = 48 + 40, .value = 'x', .byte = true,
         .message = "description byte 40 follows its end"},
        {"W2 bound", .at = w2_at + 6, .value = 200, .fix_checksum = true,
         .message = "W2[0][3] = 200 is outside -127..127"},
    };
    NnueNet good, kept;
    char err[300];
    const char *src = scratch_path("good.nnue"), *bad = scratch_path("bad.nnue");
    random_net(&good, H, B, 3);
    assert_true(nnue_net_write(&good, src, err, sizeof err));
    random_net(&kept, H, B, 4);
    NnueNet before = kept;
    size_t len;
    uint8_t *orig = slurp(src, &len);
    assert_int_equal(len, 112 + payload);
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const Corruption *c = &CASES[i];
        uint8_t *buf = malloc(len + 16);
        memcpy(buf, orig, len);
        size_t n = len;
        if (c->cut || !strcmp(c->what, "empty"))
            n = c->cut;
        if (c->at && c->byte)
            buf[c->at] = (uint8_t)c->value;
        else if (c->at)
            put32(buf + c->at, c->value);
        if (c->fix_checksum)
            put32(buf + 44, nnue_checksum(buf + 112, payload));
        memset(buf + n, 0, c->append);
        n += c->append;
        spill(bad, buf, n);
        err[0] = '\0';
        if (nnue_net_read(&kept, bad, err, sizeof err))
            fail_msg("%s: the corrupted file was read", c->what);
        if (!strstr(err, c->message) || !strstr(err, bad) || strchr(err, '\n'))
            fail_msg("%s: error '%s' lacks '%s' or the path", c->what, err, c->message);
        /* the network passed in is untouched */
        assert_memory_equal(&kept, &before, sizeof kept);
        /* the same bytes in memory: the same fault, under the name given */
        err[0] = '\0';
        if (nnue_net_read_memory(&kept, buf, n, "in-memory.nnue", err, sizeof err))
            fail_msg("%s: the corrupted bytes were read from memory", c->what);
        if (!strstr(err, c->message) || !strstr(err, "in-memory.nnue") || strchr(err, '\n'))
            fail_msg("%s: in memory, error '%s' lacks '%s' or the name", c->what, err, c->message);
        assert_memory_equal(&kept, &before, sizeof kept);
        free(buf);
    }
    /* the good bytes in memory: the network the file gives */
    NnueNet mem;
    assert_true(nnue_net_read_memory(&mem, orig, len, "in-memory.nnue", err, sizeof err));
    assert_int_equal(mem.hidden, H);
    assert_memory_equal(mem.w1, good.w1, (size_t)NNUE_INPUTS * H * sizeof *mem.w1);
    assert_memory_equal(mem.w2, good.w2, (size_t)B * 2 * H * sizeof *mem.w2);
    nnue_net_free(&mem);
    assert_false(nnue_net_read(&kept, scratch_path("missing.nnue"), err, sizeof err));
    assert_non_null(strstr(err, "missing.nnue: cannot open"));
    free(orig);
    nnue_net_free(&good);
    nnue_net_free(&kept);
}

static void test_is_net(void **state)
{
    (void)state;
    const char *text = scratch_path("text.weights"), *cut = scratch_path("cut.nnue");
    spill(text, (const uint8_t *)"# chuhe weights 1\n", 18);
    assert_false(nnue_file_is_net(text));
    spill(cut, (const uint8_t *)"CHUH", 4);
    assert_true(nnue_file_is_net(cut));
    assert_false(nnue_file_is_net(scratch_path("missing")));
}

/* ---- the built-in network -------------------------------------------------------------- */

/* nnue_default() is engine/default.nnue, the file read from disk, weight for weight; its
 * incremental evaluations equal the reference on every position of random games. */
static void test_default_net(void **state)
{
    (void)state;
    const NnueNet *d = nnue_default();
    assert_non_null(d);
    assert_ptr_equal(d, nnue_default());
    NnueNet file;
    char err[300];
    if (!nnue_net_read(&file, "engine/default.nnue", err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(d->hidden, file.hidden);
    assert_int_equal(d->buckets, file.buckets);
    assert_int_equal(d->scale, file.scale);
    assert_string_equal(d->description, file.description);
    assert_memory_equal(d->w1, file.w1, (size_t)NNUE_INPUTS * file.hidden * sizeof *d->w1);
    assert_memory_equal(d->b1, file.b1, file.hidden * sizeof *d->b1);
    assert_memory_equal(d->w2, file.w2, (size_t)file.buckets * 2 * file.hidden * sizeof *d->w2);
    assert_memory_equal(d->b2, file.b2, file.buckets * sizeof *d->b2);
    nnue_net_free(&file);
    NnueStack st;
    assert_true(nnue_stack_alloc(&st, d->hidden, err, sizeof err));
    int compared = 0;
    for (int g = 0; g < 4; g++)
        compared += walk_game(d, &st, START_FEN, NULL, 0, 900 + (size_t)g);
    assert_true(compared > 300);
    nnue_stack_free(&st);
}

/* A new engine searches with the built-in network; a weights file gives the handcrafted
 * evaluation with those weights; Use NNUE false the handcrafted one with the network
 * kept; a network file replaces the network; engine_reset_eval brings all back. */
static void test_engine_eval_choice(void **state)
{
    (void)state;
    Engine *e = engine_new();
    assert_non_null(e);
    assert_ptr_equal(engine_net(e), nnue_default());
    assert_ptr_equal(engine_net_loaded(e), nnue_default());
    assert_int_equal(engine_eval(e), nnue_evaluate_full(nnue_default(), engine_position(e)));
    engine_set_use_nnue(e, false);
    assert_null(engine_net(e));
    assert_ptr_equal(engine_net_loaded(e), nnue_default());
    assert_int_equal(engine_eval(e), engine_eval_handcrafted(e));
    engine_set_use_nnue(e, true);
    assert_ptr_equal(engine_net(e), nnue_default());

    WeightsError werr;
    if (!engine_load_weights(e, "engine/default.weights", &werr))
        fail_msg("%s", werr.msg);
    assert_null(engine_net(e));
    assert_null(engine_net_loaded(e));
    engine_reset_eval(e);
    assert_ptr_equal(engine_net(e), nnue_default());
    if (!engine_load_eval_file(e, "engine/default.weights", &werr))
        fail_msg("%s", werr.msg);
    assert_null(engine_net(e));

    /* a failed load keeps the handcrafted evaluation in use */
    const char *bad = scratch_path("cut.nnue");
    spill(bad, (const uint8_t *)"CHUHENNU", 8);
    assert_false(engine_load_eval_file(e, bad, &werr));
    assert_null(engine_net(e));

    NnueNet net;
    char err[200];
    const char *path = scratch_path("choice.nnue");
    random_net(&net, 64, 2, 9);
    assert_true(nnue_net_write(&net, path, err, sizeof err));
    assert_true(engine_load_eval_file(e, path, &werr));
    const NnueNet *own = engine_net(e);
    assert_non_null(own);
    assert_ptr_not_equal(own, nnue_default());
    assert_int_equal(own->hidden, 64);
    assert_int_equal(engine_eval(e), nnue_evaluate_full(&net, engine_position(e)));
    /* a search with it runs (its accumulators sized for 64) */
    SearchLimits limits;
    time_limits_clear(&limits);
    limits.nodes = 2000;
    assert_true(engine_search(e, &limits, NULL).best != MOVE_NONE);
    engine_reset_eval(e);
    assert_ptr_equal(engine_net(e), nnue_default());
    assert_true(engine_search(e, &limits, NULL).best != MOVE_NONE);
    nnue_net_free(&net);
    engine_free(&e);
}

static int group_setup(void **state)
{
    (void)state;
    return scratch_create("nnue");
}

static int group_teardown(void **state)
{
    (void)state;
    return scratch_remove();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_feature_index),
        cmocka_unit_test(test_bucket),
        cmocka_unit_test(test_evaluate_by_hand),
        cmocka_unit_test(test_evaluate_colour_symmetry),
        cmocka_unit_test(test_incremental_random_games),
        cmocka_unit_test(test_incremental_engine_games),
        cmocka_unit_test(test_kernels_agree),
        cmocka_unit_test(test_alloc_refuses_sizes),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_write_refuses),
        cmocka_unit_test(test_read_refuses),
        cmocka_unit_test(test_is_net),
        cmocka_unit_test(test_default_net),
        cmocka_unit_test(test_engine_eval_choice),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
