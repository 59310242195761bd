/*
 * The tuner: the traced linear form reproduces the engine's evaluation and the check
 * catches a wrong coefficient; the gradient equals finite differences of the loss; K is
 * recovered from results drawn with a known K; labels and rounding; loading run files
 * follows the selection rules (--max-score 0: no limit), is deterministic for a seed,
 * removes duplicates across files, and rejects garbage, truncated and schema-mismatched
 * files with the file named; quiescence resolution ends quiet; a match run is counted
 * by pairs from one player's view. (Training and checkpoints: test_tune_train.c; the
 * command line: test_tune_cli.c.)
 *
 * `test_tune --write-runfile PATH GAMES SEED` writes a small run file of real games and
 * exits: tests/tune_mpi.sh uses it to make its data.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <hdf5.h>

#include "contracts/runfile.h"
#include "engine.h"
#include "game.h"
#include "movegen.h"
#include "opening.h"
#include "tests/support/tune_fixture.h"
#include "tuning/comm.h"
#include "tuning/dataset.h"
#include "tuning/loader.h"
#include "tuning/match.h"
#include "tuning/model.h"
#include "tuning/qresolve.h"
#include "rng.h"
#include "tuning/synth.h"
#include "tuning/trace.h"

static char g_dir[64];
static char g_run[128]; /* a run file of real games, written once */
static Dataset g_synth; /* traced positions of random games, built once */

enum { SYNTH_N = 3000, RUN_GAMES = 12 };

/* ---- a run file of real games ------------------------------------------------------------ */

/* Plays games pairs of node-limited self-play from seeded random openings and stores them;
 * the two engines search different node counts so that the games of a pair differ, or,
 * with twins, the same: then the second game of a pair repeats the first. */
static bool write_runfile(const char *path, int games, uint64_t seed, bool twins, char *why,
                          size_t size)
{
    Engine *e[2] = {engine_new(), engine_new()};
    GameRecord *rec = malloc(2 * sizeof *rec);
    RunError re;
    RunFile *rf = NULL;
    bool ok = e[0] && e[1] && rec;
    if (ok && !(rf = runfile_create(path, "{\"test\":\"tune\"}", "test", &re))) {
        snprintf(why, size, "%s", re.msg);
        ok = false;
    }
    uint16_t id[2];
    ok = ok && runfile_add_player(rf, "fast", "builtin", "", 0, &id[0], &re) &&
         runfile_add_player(rf, "slow", "builtin", "", 0, &id[1], &re);
    GamePlayer p[2];
    memset(p, 0, sizeof p);
    for (int i = 0; i < 2; i++) {
        p[i].engine = e[i];
        time_limits_clear(&p[i].limits);
        p[i].limits.nodes = i && !twins ? 300 : 150;
    }
    GameSettings gs;
    game_settings_default(&gs);
    gs.max_plies = 160;
    for (int pair = 0; ok && pair < (games + 1) / 2; pair++) {
        Opening op;
        OpeningError oe;
        RandomOpeningSpec spec = {NULL, 6, NULL, 0, 0, 0};
        GameError ge;
        if (!opening_random(&op, &spec, seed * 1000 + (uint64_t)pair, NULL, &oe)) {
            snprintf(why, size, "opening: %s", oe.msg);
            ok = false;
        } else if (game_play_pair(&p[0], &p[1], &op, &gs, 2 * (uint64_t)pair, rec, &ge) !=
                   GAME_OK) {
            snprintf(why, size, "game: %s", ge.msg);
            ok = false;
        }
        for (int g = 0; ok && g < 2; g++)
            if (!runfile_append_game(rf, &rec[g], (uint64_t)pair, (unsigned)g, g ? id[1] : id[0],
                                     g ? id[0] : id[1], 0, NULL, &re)) {
                snprintf(why, size, "%s", re.msg);
                ok = false;
            }
    }
    if (rf && !runfile_close(&rf, &re) && ok) {
        snprintf(why, size, "%s", re.msg);
        ok = false;
    }
    engine_free(&e[0]);
    engine_free(&e[1]);
    free(rec);
    return ok;
}

/* ---- helpers ---------------------------------------------------------------------------- */

static void path_in_dir(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", g_dir, name);
}

static void copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    assert_non_null(a);
    assert_non_null(b);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, a)) > 0)
        assert_int_equal(fwrite(buf, 1, n, b), n);
    fclose(a);
    assert_int_equal(fclose(b), 0);
}

static bool load_one(const char *path, const LoadOptions *o, Dataset *train, Dataset *valid,
                     LoadStats *st, LoadError *err)
{
    const char *paths[1] = {path};
    dataset_init(train);
    dataset_init(valid);
    return load_runfiles(comm_serial(), paths, 1, o, train, valid, st, err);
}

static LoadOptions default_load(void)
{
    LoadOptions o;
    load_options_default(&o);
    o.params = weights_default();
    o.skip_plies = 4;
    return o;
}

/* ---- trace -------------------------------------------------------------------------------- */

typedef struct {
    int seen, checked;
    TracedPos *tp;
    const EvalParams *params;
} TraceCtx;

static bool check_one(void *ctx, const Position *pos)
{
    TraceCtx *c = ctx;
    c->seen++;
    trace_position(pos, c->params, c->tp);
    int8_t coef[EVAL_PARAM_NB];
    for (int i = 0; i < c->tp->n; i++) {
        assert_true(c->tp->coef[i] >= INT8_MIN && c->tp->coef[i] <= INT8_MAX);
        coef[i] = (int8_t)c->tp->coef[i];
    }
    TraceMismatch m;
    /* with integer weights the reconstruction is exact: tolerance 0 */
    if (!trace_check(pos, c->params, c->tp->idx, coef, c->tp->n, c->tp->phase, 0, &m))
        fail_msg("%s: engine %d, reconstruction %d", m.fen, m.engine, m.reconstructed);
    Value e = evaluate(pos, c->params);
    assert_int_equal(c->tp->eval, pos->side == RED ? e : -e);
    c->checked++;
    return true;
}

static void test_trace_reproduces_evaluate(void **state)
{
    (void)state;
    Position *pos = malloc(sizeof *pos);
    TracedPos *tp = malloc(sizeof *tp);
    /* the built-in weights, and weights where every parameter differs (so that a term
     * counted with the wrong sign or index cannot hide behind equal values) */
    EvalParams odd = *weights_default();
    Score *s = (Score *)&odd;
    uint64_t r = 7;
    for (int i = 0; i < EVAL_PARAM_NB; i++)
        s[i] = S(score_mg(s[i]) + (int)(rng_next(&r) % 41) - 20,
                 score_eg(s[i]) + (int)(rng_next(&r) % 41) - 20);
    const EvalParams *sets[2] = {weights_default(), &odd};
    for (int k = 0; k < 2; k++) {
        TraceCtx c = {0, 0, tp, sets[k]};
        uint64_t rng = 11 + (uint64_t)k;
        for (int g = 0; g < 30; g++)
            synth_game(pos, &rng, 160, check_one, &c);
        assert_true(c.checked > 2000);
    }
    free(pos);
    free(tp);
}

static void test_trace_check_catches_wrong_coefficient(void **state)
{
    (void)state;
    Position pos;
    PosError pe;
    /* Red is a chariot up */
    assert_true(pos_set_fen(
        &pos, "rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1", &pe));
    TracedPos tp;
    trace_position(&pos, weights_default(), &tp);
    int8_t coef[EVAL_PARAM_NB];
    for (int i = 0; i < tp.n; i++)
        coef[i] = (int8_t)tp.coef[i];
    assert_true(trace_check(&pos, weights_default(), tp.idx, coef, tp.n, tp.phase, 1, NULL));
    /* the chariot count off by one */
    int chariot = (int)(offsetof(EvalParams, material) / sizeof(Score)) + CHARIOT - ADVISOR;
    int at = -1;
    for (int i = 0; i < tp.n; i++)
        if (tp.idx[i] == chariot)
            at = i;
    assert_true(at >= 0);
    assert_int_equal(coef[at], 1);
    coef[at] = 2;
    TraceMismatch m;
    assert_false(trace_check(&pos, weights_default(), tp.idx, coef, tp.n, tp.phase, 1, &m));
    assert_true(m.reconstructed - m.engine > 500);
    assert_non_null(strstr(m.fen, "rnbakabn1/"));
    /* the tempo sign of the other side to move */
    coef[at] = 1;
    pos.side = BLACK;
    assert_false(trace_check(&pos, weights_default(), tp.idx, coef, tp.n, tp.phase, 0, NULL));
    /* a wrong phase */
    pos.side = RED;
    assert_false(trace_check(&pos, weights_default(), tp.idx, coef, tp.n, tp.phase - 6, 1, NULL));
}

/* Weights at the file's bounds: the linear form and the engine agree exactly (no sum
 * wraps in either), a chariot up at 30000 is a win for Red, and the evaluation stays
 * below the mate scores. */
static void test_trace_check_heavy_weights(void **state)
{
    (void)state;
    Position pos;
    PosError pe;
    /* Red has both chariots, Black none */
    assert_true(pos_set_fen(
        &pos, "1nbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1", &pe));
    EvalParams heavy = *weights_default();
    heavy.material[CHARIOT - ADVISOR] = S(30000, 30000);
    EvalParams all;
    Score *s = (Score *)&all;
    for (int i = 0; i < EVAL_PARAM_NB; i++)
        s[i] = S(30000, -30000);
    const EvalParams *sets[2] = {&heavy, &all};
    for (int k = 0; k < 2; k++) {
        TracedPos tp;
        trace_position(&pos, sets[k], &tp);
        int8_t coef[EVAL_PARAM_NB];
        for (int i = 0; i < tp.n; i++)
            coef[i] = (int8_t)tp.coef[i];
        TraceMismatch m;
        if (!trace_check(&pos, sets[k], tp.idx, coef, tp.n, tp.phase, 0, &m))
            fail_msg("set %d: %s: engine %d, reconstruction %d", k, m.fen, m.engine,
                     m.reconstructed);
        assert_true(tp.eval > -VALUE_MATE_IN_MAX_PLY && tp.eval < VALUE_MATE_IN_MAX_PLY);
    }
    Value v = evaluate(&pos, &heavy);
    if (v <= 30000)
        fail_msg("two chariots up at 30000 each evaluate to %d", v);
}

/* ---- model -------------------------------------------------------------------------------- */

static double full_loss(const Dataset *d, const double *w, double K)
{
    return model_pass(d, NULL, 0, w, K, NULL);
}

static void test_gradient_matches_finite_differences(void **state)
{
    (void)state;
    Dataset *d = &g_synth;
    model_set_labels(d, 1 / 170.0, 0.5);
    double *w = malloc(MODEL_NW * sizeof *w), *g = calloc(MODEL_NW, sizeof *g);
    model_from_params(weights_default(), w);
    uint64_t r = 3;
    for (int j = 0; j < MODEL_NW; j++)
        w[j] += (double)(rng_next(&r) % 2001) / 100.0 - 10.0;
    const double K = 1 / 170.0;
    model_pass(d, NULL, 0, w, K, g);
    /* every parameter some position uses, and some no position uses (gradient 0) */
    int tested = 0, zero = 0;
    for (int j = 0; j < MODEL_NW; j++) {
        /* central differences at h and h/2, Richardson-extrapolated: error O(h^4) */
        const double h = 0.2;
        double keep = w[j], diff[2];
        for (int k = 0; k < 2; k++) {
            double step = k ? h / 2 : h;
            w[j] = keep + step;
            double up = full_loss(d, w, K);
            w[j] = keep - step;
            double down = full_loss(d, w, K);
            diff[k] = (up - down) / (2 * step);
        }
        w[j] = keep;
        double fd = (4 * diff[1] - diff[0]) / 3;
        double scale = fabs(fd) > fabs(g[j]) ? fabs(fd) : fabs(g[j]);
        if (g[j] == 0) {
            assert_true(fabs(fd) < 1e-12);
            zero++;
            continue;
        }
        if (fabs(g[j] - fd) > 1e-6 * scale + 1e-12)
            fail_msg("weight %d: analytic %.12g, finite difference %.12g", j, g[j], fd);
        tested++;
    }
    assert_true(tested > 400);
    assert_true(zero > 0);
    /* a pass over an explicit subset equals the pass over the whole set */
    uint32_t *all = malloc(d->n * sizeof *all);
    for (uint64_t i = 0; i < d->n; i++)
        all[i] = (uint32_t)i;
    double *g2 = calloc(MODEL_NW, sizeof *g2);
    assert_true(fabs(model_pass(d, all, d->n, w, K, g2) - full_loss(d, w, K)) < 1e-9);
    for (int j = 0; j < MODEL_NW; j++)
        assert_true(fabs(g2[j] - g[j]) <= 1e-12 * (fabs(g[j]) + 1e-300) + 1e-18);
    /* the model's evaluation under integer weights is the engine's, up to the taper's
     * integer division */
    double w0[MODEL_NW];
    model_from_params(weights_default(), w0);
    for (uint64_t i = 0; i < d->n; i += 7) {
        Value rec = trace_reconstruct(weights_default(), d->idx + d->start[i],
                                      d->coef + d->start[i], dataset_count(d, i), d->phase[i]);
        assert_true(fabs(model_eval(d, i, w0) - rec) < 1.0);
    }
    free(all);
    free(g2);
    free(w);
    free(g);
}

/* Positions with one coefficient c in -127..127 of a 10-point parameter (eval 10 c, pure
 * midgame) and results drawn with expected score sigmoid(K0 * eval). */
static void test_k_recovered(void **state)
{
    (void)state;
    const double K0 = 1 / 160.0;
    Dataset d;
    dataset_init(&d);
    uint64_t r = 99;
    uint16_t idx[1] = {0};
    for (int i = 0; i < 200000; i++) {
        int8_t c = (int8_t)((int)(rng_next(&r) % 255) - 127);
        double p = model_sigmoid(K0 * 10 * c), u = rng_unit(rng_next(&r));
        double draw = 0.4 * (p < 1 - p ? p : 1 - p);
        int result = u < p - draw / 2 ? 1 : u < p + draw / 2 ? 0 : -1;
        assert_true(dataset_add(&d, idx, &c, 1, PHASE_MAX, 0, result, (uint32_t)i));
    }
    double w[MODEL_NW] = {0};
    w[0] = 10;
    const Dataset *sets[1] = {&d};
    double K = model_fit_k(comm_serial(), sets, 1, w);
    if (fabs(K / K0 - 1) > 0.03)
        fail_msg("K %.6g, expected %.6g", K, K0);
    /* and from real positions, whose results follow sigmoid(k * eval) by construction */
    const Dataset *real[1] = {&g_synth};
    double w0[MODEL_NW];
    model_from_params(weights_default(), w0);
    double Kr = model_fit_k(comm_serial(), real, 1, w0);
    if (fabs(Kr * 170 - 1) > 0.25)
        fail_msg("K %.6g from traced positions, expected about %.6g", Kr, 1 / 170.0);
    dataset_free(&d);
}

static void test_labels_and_rounding(void **state)
{
    (void)state;
    Dataset d;
    dataset_init(&d);
    uint16_t idx[1] = {0};
    int8_t c[1] = {1};
    assert_true(dataset_add(&d, idx, c, 1, 10, 200, 1, 1));
    assert_true(dataset_add(&d, idx, c, 1, 10, -300, -1, 2));
    assert_true(dataset_add(&d, idx, c, 1, 10, 0, 0, 3));
    model_set_labels(&d, 0.01, 0);
    assert_true(fabs(d.label[0] - 1) < 1e-7 && fabs(d.label[1]) < 1e-7 &&
                fabs(d.label[2] - 0.5) < 1e-7);
    model_set_labels(&d, 0.01, 1);
    assert_true(fabs(d.label[0] - model_sigmoid(2)) < 1e-6);
    assert_true(fabs(d.label[1] - model_sigmoid(-3)) < 1e-6);
    model_set_labels(&d, 0.01, 0.25);
    assert_true(fabs(d.label[0] - (0.25 * model_sigmoid(2) + 0.75)) < 1e-6);
    dataset_free(&d);

    double w[MODEL_NW] = {0};
    w[0] = 2.5, w[1] = -2.5, w[2] = 2.4999, w[3] = -0.5, w[4] = 40000, w[5] = -1e9;
    EvalParams p;
    model_to_params(w, &p);
    const Score *s = (const Score *)&p;
    assert_int_equal(score_mg(s[0]), 3);
    assert_int_equal(score_eg(s[0]), -3);
    assert_int_equal(score_mg(s[1]), 2);
    assert_int_equal(score_eg(s[1]), -1);
    assert_int_equal(score_mg(s[2]), 30000);
    assert_int_equal(score_eg(s[2]), -30000);
    double back[MODEL_NW];
    model_from_params(weights_default(), back);
    model_to_params(back, &p);
    assert_memory_equal(&p, weights_default(), sizeof p);
}

static void test_dataset_memory_and_filter(void **state)
{
    (void)state;
    double per = (double)dataset_bytes(&g_synth) / (double)g_synth.n;
    assert_true(per < 200);
    Dataset d;
    dataset_init(&d);
    for (uint64_t i = 0; i < g_synth.n; i++)
        assert_true(dataset_add(&d, g_synth.idx + g_synth.start[i], g_synth.coef + g_synth.start[i],
                                dataset_count(&g_synth, i), g_synth.phase[i], g_synth.score[i],
                                g_synth.result[i], g_synth.uid[i]));
    uint8_t *keep = malloc(d.n);
    for (uint64_t i = 0; i < d.n; i++)
        keep[i] = i % 3 == 1;
    dataset_filter(&d, keep);
    assert_int_equal(d.n, g_synth.n / 3 + (g_synth.n % 3 == 2));
    for (uint64_t i = 0; i < d.n; i++) {
        uint64_t j = 3 * i + 1;
        assert_int_equal(dataset_count(&d, i), dataset_count(&g_synth, j));
        assert_memory_equal(d.idx + d.start[i], g_synth.idx + g_synth.start[j],
                            (size_t)dataset_count(&d, i) * sizeof *d.idx);
        assert_memory_equal(d.coef + d.start[i], g_synth.coef + g_synth.start[j],
                            (size_t)dataset_count(&d, i));
        assert_int_equal(d.uid[i], g_synth.uid[j]);
        assert_int_equal(d.phase[i], g_synth.phase[j]);
    }
    assert_int_equal(dataset_bytes(&d), (d.n + 1) * 8 + d.n * 12 + d.nent * 3);
    free(keep);
    dataset_free(&d);
}

/* ---- loading run files -------------------------------------------------------------------- */

static void test_load_selection(void **state)
{
    (void)state;
    LoadOptions o = default_load();
    o.dedup = false;
    o.valid_frac = 0;
    Dataset train, valid;
    LoadStats st;
    LoadError err;
    if (!load_one(g_run, &o, &train, &valid, &st, &err))
        fail_msg("%s", err.msg);
    RunError re;
    RunFile *rf = runfile_open_read(g_run, &re);
    assert_non_null(rf);
    uint64_t rows = runfile_position_count(rf), games = runfile_game_count(rf);
    RunPosition *all = malloc(rows * sizeof *all);
    assert_true(runfile_read_positions(rf, 0, rows, all, &re));
    runfile_close(&rf, &re);
    assert_int_equal(st.rows, rows);
    assert_int_equal(st.games, games);
    /* the counts of an independent reading of the rows */
    uint64_t early = 0, check = 0, capt = 0, big = 0, open = 0, ok = 0;
    uint64_t big_quiet = 0; /* of big, those kept without a score limit */
    for (uint64_t i = 0; i < rows; i++) {
        const RunPosition *r = &all[i];
        int to = r->best != MOVE_NONE ? move_to(r->best) : -1;
        bool best_capt = to >= 0 && ((r->board.b[to / 2] >> (to & 1 ? 4 : 0)) & 15);
        big_quiet += r->ply >= o.skip_plies &&
                     !(r->flags & (RECORD_FLAG_OPENING | RECORD_FLAG_IN_CHECK)) &&
                     abs(r->score) > o.max_score && !(r->flags & RECORD_FLAG_CAPTURE) && !best_capt;
        if (r->ply < o.skip_plies)
            early++;
        else if (r->flags & RECORD_FLAG_OPENING)
            open++;
        else if (r->flags & RECORD_FLAG_IN_CHECK)
            check++;
        else if (abs(r->score) > o.max_score)
            big++;
        else if ((r->flags & RECORD_FLAG_CAPTURE) || best_capt)
            capt++;
        else
            ok++;
    }
    assert_int_equal(st.early, early);
    assert_int_equal(st.opening, open);
    assert_int_equal(st.in_check, check);
    assert_int_equal(st.big_score, big);
    assert_int_equal(st.capture, capt);
    assert_int_equal(st.eligible, ok);
    assert_int_equal(st.train, ok);
    assert_int_equal(st.valid, 0);
    assert_true(ok > 200);
    assert_true(st.checked >= ok);
    free(all);

    /* scores and results are stored from Red's view; the labels follow */
    int decided = 0;
    for (uint64_t i = 0; i < train.n; i++) {
        assert_true(train.result[i] >= -1 && train.result[i] <= 1);
        decided += train.result[i] != 0;
    }
    assert_true(decided > 0);
    dataset_free(&train);
    dataset_free(&valid);

    /* --max-score 0 is no limit, as in the coordinator's export */
    o.max_score = 0;
    Dataset t0, v0;
    LoadStats s0;
    assert_true(load_one(g_run, &o, &t0, &v0, &s0, &err));
    assert_int_equal(s0.big_score, 0);
    assert_int_equal(s0.eligible, ok + big_quiet);
    assert_true(big_quiet > 0);
    dataset_free(&t0);
    dataset_free(&v0);
    o.max_score = default_load().max_score;

    /* at most k per game; the same seed gives the same sample, another seed another */
    o.per_game = 3;
    o.valid_frac = 0.3;
    Dataset t2, v2, t3, v3;
    LoadStats s2, s3;
    assert_true(load_one(g_run, &o, &t2, &v2, &s2, &err));
    assert_true(s2.sampled <= 3 * games);
    assert_int_equal(s2.train + s2.valid, s2.sampled);
    assert_true(s2.valid > 0 && s2.train > 0);
    assert_true(load_one(g_run, &o, &t3, &v3, &s3, &err));
    assert_int_equal(dataset_hash(&t2), dataset_hash(&t3));
    assert_int_equal(dataset_hash(&v2), dataset_hash(&v3));
    dataset_free(&t3);
    dataset_free(&v3);
    o.seed = 2;
    assert_true(load_one(g_run, &o, &t3, &v3, &s3, &err));
    assert_true(dataset_hash(&t2) != dataset_hash(&t3));
    dataset_free(&t2);
    dataset_free(&v2);
    dataset_free(&t3);
    dataset_free(&v3);

    /* qresolve keeps positions with captures and moves some of them */
    o = default_load();
    o.qresolve = true;
    o.dedup = false;
    assert_true(load_one(g_run, &o, &t2, &v2, &s2, &err));
    assert_int_equal(s2.capture, 0);
    assert_int_equal(s2.eligible, ok + capt);
    assert_true(s2.resolved > 0);
    dataset_free(&t2);
    dataset_free(&v2);
}

static int cmp_u64_pair_test(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

static void test_load_dedup_across_files(void **state)
{
    (void)state;
    char copy[128];
    path_in_dir(copy, sizeof copy, "copy.h5");
    copy_file(g_run, copy);
    LoadOptions o = default_load();
    Dataset t1, v1, t2, v2;
    LoadStats s1, s2;
    LoadError err;
    if (!load_one(g_run, &o, &t1, &v1, &s1, &err))
        fail_msg("%s", err.msg);
    const char *paths[2] = {g_run, copy};
    dataset_init(&t2);
    dataset_init(&v2);
    if (!load_runfiles(comm_serial(), paths, 2, &o, &t2, &v2, &s2, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(s2.rows, 2 * s1.rows);
    assert_int_equal(s2.train + s2.valid, s1.train + s1.valid);
    /* duplicates: those of each file, and every kept position of the first file again */
    assert_int_equal(s2.duplicates, 2 * s1.duplicates + s1.train + s1.valid);
    /* the first file's copy of each position is the one kept */
    assert_int_equal(dataset_hash(&t1), dataset_hash(&t2));
    dataset_free(&t1);
    dataset_free(&v1);
    dataset_free(&t2);
    dataset_free(&v2);

    uint64_t keys[6] = {5, 7, 5, 9, 7, 5}, places[6] = {10, 11, 3, 4, 20, 12};
    uint8_t keep[6];
    assert_true(load_dedup(comm_serial(), keys, places, 6, keep));
    const uint8_t want[6] = {0, 1, 1, 1, 0, 0};
    assert_memory_equal(keep, want, 6);
}

/* Many keys, every round of the de-duplication busy: of each key the one with the
 * smallest place is kept, as a sort of all pairs says. */
static void test_load_dedup_many(void **state)
{
    (void)state;
    enum { N = 20000, VALUES = 5000 };
    uint64_t *keys = malloc(N * sizeof *keys), *places = malloc(N * sizeof *places);
    uint64_t *pairs = malloc(2 * N * sizeof *pairs);
    uint8_t *keep = malloc(N);
    assert_non_null(keys && places && pairs && keep);
    for (uint64_t i = 0; i < N; i++) {
        keys[i] = rng_mix(rng_mix(i + 1) % VALUES + 1);
        places[i] = rng_mix(i ^ 0x5eed) >> 8; /* distinct with near certainty */
        pairs[2 * i] = keys[i];
        pairs[2 * i + 1] = places[i];
    }
    assert_true(load_dedup(comm_serial(), keys, places, N, keep));
    qsort(pairs, N, 2 * sizeof *pairs, cmp_u64_pair_test);
    uint64_t kept = 0;
    for (uint64_t i = 0; i < N; i++) {
        kept += keep[i];
        /* the kept one of each key: the first of its run in the sorted pairs */
        uint64_t lo = 0, hi = N;
        while (hi - lo > 1) {
            uint64_t mid = (lo + hi) / 2;
            if (pairs[2 * mid] < keys[i] ||
                (pairs[2 * mid] == keys[i] && pairs[2 * mid + 1] <= places[i]))
                lo = mid;
            else
                hi = mid;
        }
        bool first = pairs[2 * lo + 1] == places[i] && (lo == 0 || pairs[2 * (lo - 1)] != keys[i]);
        assert_int_equal(keep[i], first);
    }
    uint64_t distinct = 0;
    for (uint64_t i = 0; i < N; i++)
        distinct += i == 0 || pairs[2 * i] != pairs[2 * (i - 1)];
    assert_int_equal(kept, distinct);
    free(keys);
    free(places);
    free(pairs);
    free(keep);
}

/* A position's fingerprint: its coefficients, phase, score and result. */
static uint64_t position_print(const Dataset *d, uint64_t i)
{
    uint64_t h = rng_mix((uint64_t)d->phase[i] << 32 ^ (uint64_t)(uint16_t)d->score[i] << 8 ^
                         (uint64_t)(uint8_t)d->result[i]);
    for (uint64_t k = d->start[i]; k < d->start[i + 1]; k++)
        h = rng_mix(h ^ (uint64_t)d->idx[k] << 8 ^ (uint8_t)d->coef[k]);
    return h;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether every fingerprint of d is in the sorted list (n entries) of the other set. */
static uint64_t found_in(const Dataset *d, const uint64_t *sorted, uint64_t n)
{
    uint64_t found = 0;
    for (uint64_t i = 0; i < d->n; i++) {
        uint64_t p = position_print(d, i);
        found += bsearch(&p, sorted, n, sizeof p, cmp_u64) != NULL;
    }
    return found;
}

static void test_load_split_by_opening(void **state)
{
    (void)state;
    /* pairs of twin games: the second game of each pair repeats the first */
    char twins[128], why[256];
    path_in_dir(twins, sizeof twins, "twins.h5");
    if (!write_runfile(twins, 16, 5, true, why, sizeof why))
        fail_msg("%s", why);
    LoadOptions o = default_load();
    o.dedup = false;
    o.valid_frac = 0.5;
    Dataset t, v;
    LoadStats st;
    LoadError err;
    if (!load_one(twins, &o, &t, &v, &st, &err))
        fail_msg("%s", err.msg);
    assert_true(t.n > 0 && v.n > 0);
    /* both games of an opening on one side: no validation position is a training one */
    uint64_t *prints = malloc(t.n * sizeof *prints);
    assert_non_null(prints);
    for (uint64_t i = 0; i < t.n; i++)
        prints[i] = position_print(&t, i);
    qsort(prints, t.n, sizeof *prints, cmp_u64);
    assert_int_equal(found_in(&v, prints, t.n), 0);
    free(prints);

    /* de-duplicated, each side loses only its own repeats, and the report says how many */
    o.dedup = true;
    Dataset t2, v2;
    LoadStats s2;
    assert_true(load_one(twins, &o, &t2, &v2, &s2, &err));
    assert_int_equal(s2.valid_duplicates, v.n - v2.n);
    assert_int_equal(s2.duplicates - s2.valid_duplicates, t.n - t2.n);
    assert_true(2 * v2.n <= v.n && 2 * t2.n <= t.n);
    dataset_free(&t);
    dataset_free(&v);
    dataset_free(&t2);
    dataset_free(&v2);
}

static void expect_refused(const char *path, const char *needle)
{
    LoadOptions o = default_load();
    Dataset t, v;
    LoadStats st;
    LoadError err;
    assert_false(load_one(path, &o, &t, &v, &st, &err));
    if (!strstr(err.msg, path) || (needle && !strstr(err.msg, needle)))
        fail_msg("message '%s' should name %s and say '%s'", err.msg, path, needle ? needle : "");
    dataset_free(&t);
    dataset_free(&v);
}

static void test_bad_files_rejected(void **state)
{
    (void)state;
    char path[128];
    /* not HDF5 at all */
    path_in_dir(path, sizeof path, "garbage.h5");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (int i = 0; i < 5000; i++)
        fputc((i * 131) & 255, f);
    fclose(f);
    expect_refused(path, NULL);
    /* missing */
    path_in_dir(path, sizeof path, "missing.h5");
    expect_refused(path, NULL);
    /* truncated to half */
    path_in_dir(path, sizeof path, "half.h5");
    copy_file(g_run, path);
    long size;
    f = fopen(g_run, "rb");
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fclose(f);
    assert_int_equal(truncate(path, size / 2), 0);
    expect_refused(path, NULL);
    /* another schema version */
    path_in_dir(path, sizeof path, "schema.h5");
    copy_file(g_run, path);
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(file >= 0);
    hid_t a = H5Aopen(file, "schema_version", H5P_DEFAULT);
    assert_true(a >= 0);
    uint32_t v = 99;
    assert_true(H5Awrite(a, H5T_NATIVE_UINT32, &v) >= 0);
    H5Aclose(a);
    H5Fclose(file);
    expect_refused(path, "schema version");
    /* position rows overwritten in the middle of the file: a checksum or a row check */
    path_in_dir(path, sizeof path, "damaged.h5");
    copy_file(g_run, path);
    f = fopen(path, "r+b");
    fseek(f, size / 2, SEEK_SET);
    for (int i = 0; i < 4096; i++)
        fputc(0x5a, f);
    fclose(f);
    expect_refused(path, NULL);
}

/* ---- quiescence --------------------------------------------------------------------------- */

static bool resolve_one(void *ctx, const Position *pos)
{
    int *count = ctx;
    Position p;
    pos_copy(&p, pos);
    int plies = qresolve(&p, weights_default());
    if (plies) {
        (*count)++;
        Position again;
        pos_copy(&again, &p);
        assert_int_equal(qresolve(&again, weights_default()), 0);
    }
    assert_true(plies <= QRESOLVE_MAX_PLIES);
    return true;
}

static void test_qresolve(void **state)
{
    (void)state;
    Position pos;
    PosError pe;
    /* Black's chariot on e5 hangs to Red's chariot on e0 */
    assert_true(pos_set_fen(&pos, "5k3/9/9/9/4r4/9/9/9/9/3KR4 w - - 0 1", &pe));
    assert_int_equal(qresolve(&pos, weights_default()), 1);
    assert_int_equal(pos_piece_on(&pos, sq_make(4, 5)), R_CHARIOT);
    /* nothing to take: unchanged */
    assert_true(pos_set_fen(&pos, START_FEN, &pe));
    assert_int_equal(qresolve(&pos, weights_default()), 0);
    /* a resolved position resolves to itself */
    Position *scratch = malloc(sizeof *scratch);
    uint64_t rng = 5;
    int count = 0;
    for (int g = 0; g < 6; g++)
        synth_game(scratch, &rng, 120, resolve_one, &count);
    assert_true(count > 10);
    free(scratch);
}

/* ---- match statistics -------------------------------------------------------------------- */

static void test_match_report(void **state)
{
    (void)state;
    /* the test run: 6 pairs, the same two players in every game */
    StatsCounts c;
    int me;
    MatchError err;
    assert_true(match_count(g_run, "slow", &c, &me, &err));
    assert_int_equal(me, 1);
    assert_int_equal(stats_pairs(&c), 6);
    assert_int_equal(stats_games(&c), 12);
    StatsCounts fast;
    assert_true(match_count(g_run, NULL, &fast, &me, &err));
    assert_int_equal(me, 0);
    /* one player's wins are the other's losses, pair by pair */
    for (int i = 0; i < STATS_PENTA_NB; i++)
        assert_int_equal(c.penta[i], fast.penta[STATS_PENTA_NB - 1 - i]);
    assert_int_equal(c.tri[STATS_WIN], fast.tri[STATS_LOSS]);
    assert_int_equal(c.tri[STATS_DRAW], fast.tri[STATS_DRAW]);

    char out[4096];
    SprtParams sp;
    sprt_params_default(&sp);
    FILE *f = fmemopen(out, sizeof out, "w");
    assert_int_equal(match_report(g_run, "slow", &sp, NULL, NULL, f, stderr), 0);
    fclose(f);
    assert_non_null(strstr(out, "player 1 (slow)"));
    assert_non_null(strstr(out, "Elo "));
    assert_non_null(strstr(out, "LLR "));
    f = fmemopen(out, sizeof out, "w");
    assert_int_equal(match_report(g_run, "nobody", NULL, NULL, NULL, stdout, f), 1);
    fclose(f);
    assert_non_null(strstr(out, "no player named 'nobody'"));
    assert_non_null(strstr(out, "its players: 'fast', 'slow'"));
}

static double points_per_game(const StatsCounts *c)
{
    return (c->tri[STATS_WIN] + 0.5 * c->tri[STATS_DRAW]) / (double)stats_games(c);
}

static void test_match_compare(void **state)
{
    (void)state;
    MatchComparison m;
    MatchError err;
    /* a run against itself: every opening pairs with itself, no difference */
    assert_true(match_compare(g_run, "slow", g_run, NULL, &m, &err));
    assert_int_equal(m.pairs, RUN_GAMES / 2);
    assert_int_equal(m.player, 1);
    assert_int_equal(m.base_player, 1);
    assert_true(m.here == m.base && m.diff_margin == 0);

    /* the same openings with equal players: the comparison's scores are the runs' own */
    char same[160], other[160], why[600];
    path_in_dir(same, sizeof same, "compare-same.h5");
    path_in_dir(other, sizeof other, "compare-other.h5");
    if (!write_runfile(same, RUN_GAMES, 1, true, why, sizeof why))
        fail_msg("%s", why);
    StatsCounts a, b;
    int id;
    assert_true(match_count(g_run, "slow", &a, &id, &err));
    assert_true(match_count(same, "fast", &b, &id, &err));
    assert_true(match_compare(g_run, "slow", same, "fast", &m, &err));
    assert_int_equal(m.pairs, RUN_GAMES / 2);
    assert_int_equal(m.base_player, 0);
    assert_true(fabs(m.here - points_per_game(&a)) < 1e-9);
    assert_true(fabs(m.base - points_per_game(&b)) < 1e-9);
    assert_true(m.diff_margin >= 0 && m.diff_margin <= 1);

    /* the report prints both, with the difference */
    char out[4096];
    FILE *f = fmemopen(out, sizeof out, "w");
    assert_int_equal(match_report(g_run, "slow", NULL, same, "fast", f, stderr), 0);
    fclose(f);
    assert_non_null(strstr(out, "6 openings with both games in both runs"));
    char want[64];
    snprintf(want, sizeof want, "difference %+.1f +/- ", 100 * (m.here - m.base));
    assert_non_null(strstr(out, want));

    /* other openings: nothing to compare, said so; a missing baseline player named */
    if (!write_runfile(other, 4, 2, false, why, sizeof why))
        fail_msg("%s", why);
    assert_false(match_compare(g_run, "slow", other, NULL, &m, &err));
    assert_non_null(strstr(err.msg, "no opening has both its games stored in both runs"));
    f = fmemopen(out, sizeof out, "w");
    assert_int_equal(match_report(g_run, "slow", NULL, same, "nobody", stdout, f), 1);
    fclose(f);
    assert_non_null(strstr(out, "no player named 'nobody'"));
    remove(same);
    remove(other);
}

/* ---- set-up ------------------------------------------------------------------------------ */

static int setup(void **state)
{
    (void)state;
    if (!tune_fixture_setup(g_dir, sizeof g_dir, "tune-test", &g_synth, SYNTH_N))
        return -1;
    path_in_dir(g_run, sizeof g_run, "run.h5");
    char why[600];
    if (!write_runfile(g_run, RUN_GAMES, 1, false, why, sizeof why)) {
        fprintf(stderr, "test_tune: cannot write %s: %s\n", g_run, why);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return tune_fixture_teardown(g_dir, &g_synth) ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "--write-runfile")) {
        position_init();
        char why[600];
        if (!write_runfile(argv[2], atoi(argv[3]), strtoull(argv[4], NULL, 10), false, why,
                           sizeof why)) {
            fprintf(stderr, "test_tune: %s: %s\n", argv[2], why);
            return 1;
        }
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_reproduces_evaluate),
        cmocka_unit_test(test_trace_check_catches_wrong_coefficient),
        cmocka_unit_test(test_trace_check_heavy_weights),
        cmocka_unit_test(test_gradient_matches_finite_differences),
        cmocka_unit_test(test_k_recovered),
        cmocka_unit_test(test_labels_and_rounding),
        cmocka_unit_test(test_dataset_memory_and_filter),
        cmocka_unit_test(test_load_selection),
        cmocka_unit_test(test_load_dedup_across_files),
        cmocka_unit_test(test_load_dedup_many),
        cmocka_unit_test(test_load_split_by_opening),
        cmocka_unit_test(test_bad_files_rejected),
        cmocka_unit_test(test_qresolve),
        cmocka_unit_test(test_match_report),
        cmocka_unit_test(test_match_compare),
    };
    return cmocka_run_group_tests_name("tune", tests, setup, teardown);
}
