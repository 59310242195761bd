/*
 * Match statistics: the public regression vectors of fishtest's and fastchess's test
 * suites reproduced to their printed precision (and, tighter, to values computed
 * independently from the same formulas), the degenerate results (no games, all draws,
 * all wins or losses, a single pair) without NaN or a crash, the SPRT's decisions at
 * its bounds, the report text, and the `stats` arguments with every kind of mistake.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "contracts/stats.h"
#include "coordinator/coord_statscmd.h"

/* "%.<prec>f" of x, in a static buffer (one use per assertion). */
static const char *fmt(double x, int prec)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "%.*f", prec, x);
    return buf;
}

static void assert_printed(double x, int prec, const char *want)
{
    const char *got = fmt(x, prec);
    if (strcmp(got, want) != 0)
        fail_msg("printed %s, want %s (value %.12g)", got, want, x);
}

static void assert_near(double x, double want, double tol)
{
    if (!(fabs(x - want) <= tol))
        fail_msg("got %.15g, want %.15g +- %g", x, want, tol);
}

static StatsCounts penta6(uint64_t ll, uint64_t ld, uint64_t wl, uint64_t dd, uint64_t wd,
                          uint64_t ww)
{
    char text[160];
    StatsCounts c;
    StatsError err;
    snprintf(text, sizeof text, "%llu,%llu,%llu,%llu,%llu,%llu", (unsigned long long)ll,
             (unsigned long long)ld, (unsigned long long)wl, (unsigned long long)dd,
             (unsigned long long)wd, (unsigned long long)ww);
    if (!coord_statscmd_parse_penta(text, &c, &err))
        fail_msg("%s: %s", text, err.msg);
    return c;
}

static SprtParams sprt(double elo0, double elo1, SprtModel model)
{
    SprtParams p;
    sprt_params_default(&p);
    p.elo0 = elo0;
    p.elo1 = elo1;
    p.model = model;
    return p;
}

static void assert_no_nan(const StatsEstimate *e)
{
    const double v[] = {e->n,         e->games, e->mu,         e->var, e->se,        e->elo,
                        e->elo_error, e->nelo,  e->nelo_error, e->los, e->draw_ratio};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (isnan(v[i]))
            fail_msg("estimate field %zu is NaN", i);
}

/* ------------------------------------------------------------- regression vectors */

/* Reference values below 2 decimals: the formulas evaluated independently (a separate
 * transcription with a plain bisection), to guard against drift the printed digits
 * would hide. */

/* The LLR of c under p, as printed to prec decimals and within 1e-6 of the reference. */
static double expect_llr(SprtParams p, const StatsCounts *c, StatsKind kind, int prec,
                         const char *printed, double reference)
{
    double llr = sprt_llr(&p, c, kind);
    assert_printed(llr, prec, printed);
    assert_near(llr, reference, 1e-6);
    return llr;
}

static void test_vector_penta_normalized(void **state)
{
    (void)state;
    StatsCounts c = penta6(365, 16618, 36029, 200, 16974, 390);
    expect_llr(sprt(0, 2, SPRT_NORMALIZED), &c, STATS_PENTANOMIAL, 2, "2.25", 2.250367703551081);
}

static void test_vector_penta_normalized_negative(void **state)
{
    (void)state;
    StatsCounts c = penta6(127, 4883, 10311, 401, 5150, 104);
    expect_llr(sprt(-1.75, 0.25, SPRT_NORMALIZED), &c, STATS_PENTANOMIAL, 2, "3.01",
               3.0101541966056997);
}

static void test_vector_trinomial_normalized(void **state)
{
    (void)state;
    StatsCounts c;
    StatsError err;
    assert_true(coord_statscmd_parse_wdl("36433,68692,36027", &c, &err));
    SprtParams p = sprt(0, 2, SPRT_NORMALIZED);
    double llr = expect_llr(p, &c, STATS_TRINOMIAL, 2, "0.92", 0.9232934509459172);
    /* The same through the raw-bin entry point (L, D, W). */
    const uint64_t bins[3] = {36027, 68692, 36433};
    assert_near(sprt_llr_bins(&p, bins, 3), llr, 1e-12);
}

static void test_vector_elo_nelo(void **state)
{
    (void)state;
    StatsCounts c = penta6(34, 54, 31, 32, 64, 75);
    StatsEstimate e;
    stats_estimate(&c, STATS_PENTANOMIAL, &e);
    assert_printed(e.elo, 2, "55.58");
    assert_printed(e.elo_error, 2, "27.65");
    assert_printed(e.nelo, 2, "57.94");
    assert_printed(e.nelo_error, 2, "28.28");
    assert_near(e.elo, 55.57978042044588, 1e-8);
    assert_near(e.elo_error, 27.65342950639345, 1e-8);
    assert_near(e.nelo, 57.93559993812431, 1e-8);
    /* fastchess's nElo error is z K / sqrt(games), games = 2 pairs: not sqrt(pairs). */
    assert_near(e.nelo_error, 1.959963984540054 * 800 / log(10) / sqrt(580), 1e-9);
    assert_near(e.games, 580, 0);
    assert_near(e.draw_ratio, 63.0 / 290, 1e-12);
    assert_near(e.los, 0.9999703930084313, 1e-9);
}

static void test_vector_elo_los(void **state)
{
    (void)state;
    StatsCounts c = penta6(332, 433, 457, 41, 333, 334);
    StatsEstimate e;
    stats_estimate(&c, STATS_PENTANOMIAL, &e);
    assert_printed(e.elo, 2, "-8.64");
    assert_printed(e.elo_error, 2, "10.33");
    assert_printed(100 * e.los, 2, "5.05");
    assert_near(e.elo, -8.64266726796901, 1e-8);
    assert_near(e.elo_error, 10.334194424393056, 1e-8);
    assert_near(e.los, 0.05047006698252937, 1e-10);
}

static void test_vector_penta_logistic(void **state)
{
    (void)state;
    StatsCounts c;
    StatsError err;
    assert_true(coord_statscmd_parse_penta("10789, 19328, 33806, 19402, 10543", &c, &err));
    expect_llr(sprt(-3, 1, SPRT_LOGISTIC), &c, STATS_PENTANOMIAL, 4, "2.1311", 2.131067811785043);
}

/* Empty bins count as 1e-3 before the fit (the vectors above have none). */
static void test_llr_zero_bins(void **state)
{
    (void)state;
    const uint64_t penta[5] = {0, 30, 50, 40, 12}, tri[3] = {0, 70, 65}, sparse[3] = {3, 0, 9};
    SprtParams n = sprt(0, 5, SPRT_NORMALIZED), l = sprt(0, 5, SPRT_LOGISTIC);
    assert_near(sprt_llr_bins(&n, penta, 5), 0.753542065988179, 1e-6);
    assert_near(sprt_llr_bins(&l, penta, 5), 1.17164667759344, 1e-6);
    assert_near(sprt_llr_bins(&n, tri, 3), 1.3358911003666236, 1e-6);
    l.elo0 = -5;
    assert_near(sprt_llr_bins(&l, sparse, 3), 0.17270827238611325, 1e-6);
}

/* ---------------------------------------------------------------- counting, edges */

static void test_counting(void **state)
{
    (void)state;
    StatsCounts c;
    stats_counts_init(&c);
    assert_int_equal(stats_default_kind(&c), STATS_TRINOMIAL);
    assert_true(stats_add_pair(&c, STATS_LOSS, STATS_LOSS));
    assert_true(stats_add_pair(&c, STATS_DRAW, STATS_LOSS));
    assert_true(stats_add_pair(&c, STATS_WIN, STATS_LOSS));
    assert_true(stats_add_pair(&c, STATS_LOSS, STATS_WIN));
    assert_true(stats_add_pair(&c, STATS_DRAW, STATS_DRAW));
    assert_true(stats_add_pair(&c, STATS_WIN, STATS_DRAW));
    assert_true(stats_add_pair(&c, STATS_WIN, STATS_WIN));
    assert_true(stats_add_game(&c, STATS_DRAW));
    const uint64_t want_penta[5] = {1, 1, 3, 1, 1};
    for (int i = 0; i < 5; i++)
        assert_int_equal(c.penta[i], want_penta[i]);
    assert_int_equal(c.wl, 2);
    assert_int_equal(c.dd, 1);
    assert_int_equal(c.tri[STATS_LOSS], 5);
    assert_int_equal(c.tri[STATS_DRAW], 5);
    assert_int_equal(c.tri[STATS_WIN], 5);
    assert_int_equal(stats_pairs(&c), 7);
    assert_int_equal(stats_games(&c), 15);
    assert_true(stats_wdl_known(&c));
    assert_int_equal(stats_default_kind(&c), STATS_PENTANOMIAL);

    /* Out-of-range scores are refused and count nothing. */
    StatsCounts before = c;
    assert_false(stats_add_game(&c, STATS_SCORE_NB));
    assert_false(stats_add_game(&c, (StatsScore)-1));
    assert_false(stats_add_pair(&c, STATS_WIN, (StatsScore)7));
    assert_false(stats_add_pair(&c, (StatsScore)3, STATS_WIN));
    assert_memory_equal(&c, &before, sizeof c);
}

static void test_zero_games(void **state)
{
    (void)state;
    StatsCounts c;
    stats_counts_init(&c);
    for (int kind = STATS_PENTANOMIAL; kind <= STATS_TRINOMIAL; kind++) {
        StatsEstimate e;
        stats_estimate(&c, (StatsKind)kind, &e);
        assert_no_nan(&e);
        assert_near(e.n, 0, 0);
        assert_near(e.elo, 0, 0);
        assert_true(isinf(e.elo_error));
        assert_near(e.los, 0.5, 0);
        for (int m = 0; m < SPRT_MODEL_NB; m++) {
            SprtParams p = sprt(0, 2, (SprtModel)m);
            double llr = sprt_llr(&p, &c, (StatsKind)kind);
            assert_near(llr, 0, 0);
            assert_int_equal(sprt_state(&p, llr), SPRT_CONTINUE);
        }
    }
    char buf[256];
    SprtParams p = sprt(0, 2, SPRT_NORMALIZED);
    stats_format(buf, sizeof buf, &c, stats_default_kind(&c), &p, STATS_REPORT_LINE);
    assert_string_equal(buf, "no results, Games 0, LLR 0.00 (-2.94, 2.94) [0.00, 2.00] normalized");
}

static void test_all_draws(void **state)
{
    (void)state;
    StatsCounts c;
    stats_counts_init(&c);
    for (int i = 0; i < 50; i++)
        stats_add_pair(&c, STATS_DRAW, STATS_DRAW);
    for (int kind = STATS_PENTANOMIAL; kind <= STATS_TRINOMIAL; kind++) {
        StatsEstimate e;
        stats_estimate(&c, (StatsKind)kind, &e);
        assert_no_nan(&e);
        assert_near(e.elo, 0, 1e-12);
        assert_near(e.elo_error, 0, 1e-12);
        assert_near(e.nelo, 0, 0);
        assert_near(e.los, 0.5, 0);
        assert_near(e.draw_ratio, 1, 0);
        for (int m = 0; m < SPRT_MODEL_NB; m++) {
            SprtParams p = sprt(0, 2, (SprtModel)m);
            double llr = sprt_llr(&p, &c, (StatsKind)kind);
            /* Draws alone favour the hypothesis nearer 0 Elo. */
            assert_true(isfinite(llr));
            assert_true(llr < 0);
        }
    }
    char buf[256];
    stats_format(buf, sizeof buf, &c, STATS_PENTANOMIAL, NULL, STATS_REPORT_LINE);
    assert_string_equal(buf, "Elo 0.00 +/- 0.00, nElo 0.00 +/- 68.10, LOS 50.00 %, "
                             "DrawRatio 100.00 %, Penta [0, 0, 0+50, 0, 0], Games 100: 0-100-0");
}

static void test_all_wins_and_losses(void **state)
{
    (void)state;
    StatsCounts win, loss;
    stats_counts_init(&win);
    stats_counts_init(&loss);
    for (int i = 0; i < 20; i++) {
        stats_add_pair(&win, STATS_WIN, STATS_WIN);
        stats_add_pair(&loss, STATS_LOSS, STATS_LOSS);
    }
    for (int kind = STATS_PENTANOMIAL; kind <= STATS_TRINOMIAL; kind++) {
        StatsEstimate e;
        stats_estimate(&win, (StatsKind)kind, &e);
        assert_no_nan(&e);
        assert_true(isinf(e.elo) && e.elo > 0);
        assert_true(isinf(e.elo_error));
        assert_true(isinf(e.nelo) && e.nelo > 0);
        assert_near(e.los, 1, 0);
        stats_estimate(&loss, (StatsKind)kind, &e);
        assert_no_nan(&e);
        assert_true(isinf(e.elo) && e.elo < 0);
        assert_true(isinf(e.nelo) && e.nelo < 0);
        assert_near(e.los, 0, 0);
        for (int m = 0; m < SPRT_MODEL_NB; m++) {
            SprtParams p = sprt(0, 2, (SprtModel)m);
            double lw = sprt_llr(&p, &win, (StatsKind)kind);
            double ll = sprt_llr(&p, &loss, (StatsKind)kind);
            assert_true(isfinite(lw) && lw > 0);
            assert_true(isfinite(ll) && ll < 0);
        }
    }
    char buf[256];
    SprtParams p = sprt(0, 2, SPRT_NORMALIZED);
    stats_format(buf, sizeof buf, &win, STATS_PENTANOMIAL, NULL, STATS_REPORT_LINE);
    assert_string_equal(buf, "Elo inf +/- inf, nElo inf +/- 107.67, LOS 100.00 %, "
                             "DrawRatio 0.00 %, Penta [0, 0, 0, 0, 20], Games 40: 40-0-0");
    stats_format(buf, sizeof buf, &loss, STATS_TRINOMIAL, &p, STATS_REPORT_LINE);
    assert_non_null(strstr(buf, "Elo -inf +/- inf, nElo -inf +/- 107.67, LOS 0.00 %"));
    assert_null(strstr(buf, "nan"));
}

static void test_single_pair(void **state)
{
    (void)state;
    static const StatsScore games[][2] = {
        {STATS_WIN, STATS_LOSS},  {STATS_WIN, STATS_DRAW}, {STATS_LOSS, STATS_DRAW},
        {STATS_DRAW, STATS_DRAW}, {STATS_WIN, STATS_WIN},
    };
    for (size_t g = 0; g < sizeof games / sizeof games[0]; g++) {
        StatsCounts c;
        stats_counts_init(&c);
        stats_add_pair(&c, games[g][0], games[g][1]);
        StatsEstimate e;
        stats_estimate(&c, STATS_PENTANOMIAL, &e);
        assert_no_nan(&e);
        assert_near(e.n, 1, 0);
        assert_near(e.games, 2, 0);
        assert_near(e.mu, (games[g][0] + games[g][1]) / 4.0, 0);
        for (int m = 0; m < SPRT_MODEL_NB; m++) {
            SprtParams p = sprt(0, 2, (SprtModel)m);
            double llr = sprt_llr(&p, &c, STATS_PENTANOMIAL);
            assert_true(isfinite(llr));
            assert_int_equal(sprt_state(&p, llr), SPRT_CONTINUE);
        }
    }
    /* One pair 1.5-0.5: Elo E(3/4), no spread, so no error. */
    StatsCounts c;
    stats_counts_init(&c);
    stats_add_pair(&c, STATS_WIN, STATS_DRAW);
    StatsEstimate e;
    stats_estimate(&c, STATS_PENTANOMIAL, &e);
    assert_near(e.elo, -400 * log10(1 / 0.75 - 1), 1e-9);
    assert_near(e.elo_error, 0, 0);

    /* 1.5 and 2 points: a finite Elo whose 95 % interval reaches a 100 % score. */
    stats_add_pair(&c, STATS_WIN, STATS_WIN);
    stats_estimate(&c, STATS_PENTANOMIAL, &e);
    assert_no_nan(&e);
    assert_true(isfinite(e.elo) && e.elo > 0);
    assert_true(e.mu + 1.959963984540054 * e.se > 1);
    assert_true(isinf(e.elo_error));
}

/* ----------------------------------------------------------------------------- SPRT */

static void test_sprt_bounds_and_text(void **state)
{
    (void)state;
    SprtParams p;
    sprt_params_default(&p);
    assert_near(sprt_lower_bound(&p), log(0.05 / 0.95), 1e-15);
    assert_near(sprt_upper_bound(&p), log(0.95 / 0.05), 1e-15);
    p.alpha = 0.1;
    p.beta = 0.2;
    assert_near(sprt_lower_bound(&p), log(0.2 / 0.9), 1e-15);
    assert_near(sprt_upper_bound(&p), log(0.8 / 0.1), 1e-15);

    char buf[128];
    p = sprt(0, 2, SPRT_NORMALIZED);
    size_t n = sprt_format(buf, sizeof buf, &p, 2.250367703551081);
    assert_string_equal(buf, "LLR 2.25 (-2.94, 2.94) [0.00, 2.00] normalized");
    assert_int_equal(n, strlen(buf));
    p = sprt(-3, 1, SPRT_LOGISTIC);
    sprt_format(buf, sizeof buf, &p, -0.5);
    assert_string_equal(buf, "LLR -0.50 (-2.94, 2.94) [-3.00, 1.00] logistic");
    assert_string_equal(sprt_model_name((SprtModel)9), "unknown");
    assert_string_equal(sprt_state_name(SPRT_ACCEPT_H1), "H1 accepted");
}

static void test_sprt_state_at_bounds(void **state)
{
    (void)state;
    SprtParams p = sprt(0, 2, SPRT_NORMALIZED);
    double lo = sprt_lower_bound(&p), hi = sprt_upper_bound(&p);
    assert_int_equal(sprt_state(&p, 0), SPRT_CONTINUE);
    assert_int_equal(sprt_state(&p, nextafter(hi, 0)), SPRT_CONTINUE);
    assert_int_equal(sprt_state(&p, hi), SPRT_ACCEPT_H1);
    assert_int_equal(sprt_state(&p, INFINITY), SPRT_ACCEPT_H1);
    assert_int_equal(sprt_state(&p, nextafter(lo, 0)), SPRT_CONTINUE);
    assert_int_equal(sprt_state(&p, lo), SPRT_ACCEPT_H0);
    assert_int_equal(sprt_state(&p, -INFINITY), SPRT_ACCEPT_H0);
}

/* Adds pairs of one kind until the test stops: the state must change exactly when the
 * LLR, which moves one way, crosses the bound, and no sooner. */
static void run_until_decided(SprtModel model, StatsScore g, SprtState want, int max_pairs)
{
    SprtParams p = sprt(0, 5, model);
    StatsCounts c;
    stats_counts_init(&c);
    /* A balanced start, so the first pairs are far from either bound. */
    for (int i = 0; i < 200; i++)
        stats_add_pair(&c, i % 2 ? STATS_WIN : STATS_DRAW, i % 2 ? STATS_LOSS : STATS_DRAW);
    double prev = sprt_llr(&p, &c, STATS_PENTANOMIAL);
    assert_int_equal(sprt_state(&p, prev), SPRT_CONTINUE);
    for (int i = 0; i < max_pairs; i++) {
        stats_add_pair(&c, g, g);
        double llr = sprt_llr(&p, &c, STATS_PENTANOMIAL);
        if (want == SPRT_ACCEPT_H1)
            assert_true(llr > prev);
        else
            assert_true(llr < prev);
        SprtState s = sprt_state(&p, llr);
        if (s != SPRT_CONTINUE) {
            assert_int_equal(s, want);
            if (want == SPRT_ACCEPT_H1)
                assert_true(llr >= sprt_upper_bound(&p) && prev < sprt_upper_bound(&p));
            else
                assert_true(llr <= sprt_lower_bound(&p) && prev > sprt_lower_bound(&p));
            char buf[512];
            stats_format(buf, sizeof buf, &c, STATS_PENTANOMIAL, &p, STATS_REPORT_FULL);
            assert_non_null(strstr(buf, sprt_state_name(want)));
            return;
        }
        prev = llr;
    }
    fail_msg("no decision after %d pairs", max_pairs);
}

static void test_sprt_state_transitions(void **state)
{
    (void)state;
    for (int m = 0; m < SPRT_MODEL_NB; m++) {
        run_until_decided((SprtModel)m, STATS_WIN, SPRT_ACCEPT_H1, 100);
        run_until_decided((SprtModel)m, STATS_LOSS, SPRT_ACCEPT_H0, 100);
    }
}

/* Mirroring the results (A's wins become losses) and the hypotheses (elo -> -elo, H0
 * and H1 swapped) must negate the LLR, in both models and both distributions. */
static void test_llr_mirror_symmetry(void **state)
{
    (void)state;
    const uint64_t penta[5] = {120, 900, 2100, 1100, 80}, tri[3] = {3000, 5000, 3500};
    for (int m = 0; m < SPRT_MODEL_NB; m++) {
        SprtParams p = sprt(-1, 4, (SprtModel)m), q = sprt(-4, 1, (SprtModel)m);
        uint64_t rp[5], rt[3];
        for (int i = 0; i < 5; i++)
            rp[i] = penta[4 - i];
        for (int i = 0; i < 3; i++)
            rt[i] = tri[2 - i];
        double a = sprt_llr_bins(&p, penta, 5), b = sprt_llr_bins(&q, rp, 5);
        assert_true(fabs(a) > 0.1);
        assert_near(b, -a, 1e-7);
        a = sprt_llr_bins(&p, tri, 3);
        b = sprt_llr_bins(&q, rt, 3);
        assert_true(fabs(a) > 0.1);
        assert_near(b, -a, 1e-7);
    }
    SprtParams p = sprt(0, 2, SPRT_NORMALIZED);
    assert_true(isnan(sprt_llr_bins(&p, penta, 4)));
}

/* Any results with any accepted bounds give a finite LLR: the constrained fits always
 * have a root to find. Fixed-seed random counts, zeros included. */
static void test_llr_always_finite(void **state)
{
    (void)state;
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    for (int iter = 0; iter < 3000; iter++) {
        uint64_t bins[5];
        double e[2];
        for (int i = 0; i < 5; i++) {
            rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
            uint64_t r = rng * 0x2545f4914f6cdd1dULL;
            /* Mostly small counts, some zero, some huge. */
            bins[i] = (r & 3) == 0 ? 0 : (r >> 8) % ((r & 4) ? 1000000000ULL : 20);
        }
        for (int i = 0; i < 2; i++) {
            rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
            e[i] =
                ((double)((rng * 0x2545f4914f6cdd1dULL) >> 11) / 0x1p53 * 2 - 1) * SPRT_ELO_LIMIT;
        }
        SprtParams p = sprt(fmin(e[0], e[1]), fmax(e[0], e[1]), (SprtModel)(iter & 1));
        if (!sprt_check(&p, NULL))
            continue;
        int nb = (iter & 2) ? 5 : 3;
        double llr = sprt_llr_bins(&p, bins, nb);
        if (!isfinite(llr))
            fail_msg("LLR %g for [%g, %g] %s, bins %llu %llu %llu %llu %llu", llr, p.elo0, p.elo1,
                     sprt_model_name(p.model), (unsigned long long)bins[0],
                     (unsigned long long)bins[1], (unsigned long long)bins[2],
                     (unsigned long long)bins[3], (unsigned long long)bins[4]);
    }
    /* The limit itself, against the most one-sided results. */
    const uint64_t wins[5] = {0, 0, 0, 0, 1000000}, losses[5] = {1000000, 0, 0, 0, 0};
    for (int m = 0; m < SPRT_MODEL_NB; m++) {
        SprtParams p = sprt(-SPRT_ELO_LIMIT, SPRT_ELO_LIMIT, (SprtModel)m);
        assert_true(isfinite(sprt_llr_bins(&p, wins, 5)));
        assert_true(isfinite(sprt_llr_bins(&p, losses, 5)));
    }
}

/* --------------------------------------------------------------------- report text */

static void test_report_text(void **state)
{
    (void)state;
    StatsCounts c = penta6(34, 54, 31, 32, 64, 75);
    SprtParams p = sprt(0, 2, SPRT_NORMALIZED);
    char buf[512];
    size_t n = stats_format(buf, sizeof buf, &c, STATS_PENTANOMIAL, NULL, STATS_REPORT_LINE);
    /* LOS 99.997 % must not print as 100.00 %. */
    assert_string_equal(buf, "Elo 55.58 +/- 27.65, nElo 57.94 +/- 28.28, LOS 99.99 %, "
                             "DrawRatio 21.72 %, Penta [34, 54, 31+32, 64, 75], "
                             "Games 580: 245-182-153");
    assert_int_equal(n, strlen(buf));

    double llr = sprt_llr(&p, &c, STATS_PENTANOMIAL);
    char want[512];
    snprintf(want, sizeof want,
             "Elo 55.58 +/- 27.65, nElo 57.94 +/- 28.28\n"
             "LOS 99.99 %%, DrawRatio 21.72 %%\n"
             "Penta [34, 54, 31+32, 64, 75]\n"
             "Games 580: 245-182-153, Points 336.0 (57.93 %%)\n"
             "LLR %.2f (-2.94, 2.94) [0.00, 2.00] normalized: %s\n",
             llr, sprt_state_name(sprt_state(&p, llr)));
    stats_format(buf, sizeof buf, &c, STATS_PENTANOMIAL, &p, STATS_REPORT_FULL);
    assert_string_equal(buf, want);

    /* Mirrored, LOS 0.003 % must not print as 0.00 %. */
    StatsCounts m = penta6(75, 64, 32, 31, 54, 34);
    stats_format(buf, sizeof buf, &m, STATS_PENTANOMIAL, NULL, STATS_REPORT_LINE);
    assert_non_null(strstr(buf, "Elo -55.58 +/- 27.65, nElo -57.94 +/- 28.28, LOS 0.01 %, "));

    /* Trinomial: no Penta, draw ratio of games. */
    StatsCounts t;
    StatsError err;
    assert_true(coord_statscmd_parse_wdl("36433,68692,36027", &t, &err));
    stats_format(buf, sizeof buf, &t, STATS_TRINOMIAL, &p, STATS_REPORT_LINE);
    assert_non_null(strstr(buf, ", DrawRatio 48.67 %, Games 141152: 36433-68692-36027, "
                                "LLR 0.92 (-2.94, 2.94) [0.00, 2.00] normalized"));
    assert_null(strstr(buf, "Penta"));

    /* Five numbers without the split: bin 2 as one number, the W-D-L unknown. */
    assert_true(coord_statscmd_parse_penta("34,54,63,64,75", &c, &err));
    stats_format(buf, sizeof buf, &c, STATS_PENTANOMIAL, NULL, STATS_REPORT_LINE);
    assert_non_null(strstr(buf, "Elo 55.58 +/- 27.65, nElo 57.94 +/- 28.28"));
    assert_non_null(strstr(buf, ", Penta [34, 54, 63, 64, 75], Games 580"));
    assert_null(strstr(buf, "580:"));
}

static void test_report_truncation(void **state)
{
    (void)state;
    StatsCounts c = penta6(34, 54, 31, 32, 64, 75);
    SprtParams p = sprt(0, 2, SPRT_LOGISTIC);
    char full[512], small[16];
    size_t n = stats_format(full, sizeof full, &c, STATS_PENTANOMIAL, &p, STATS_REPORT_FULL);
    assert_int_equal(n, strlen(full));
    memset(small, 'x', sizeof small);
    assert_int_equal(
        stats_format(small, sizeof small, &c, STATS_PENTANOMIAL, &p, STATS_REPORT_FULL), n);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, full, sizeof small - 1);
    assert_int_equal(stats_format(NULL, 0, &c, STATS_PENTANOMIAL, &p, STATS_REPORT_FULL), n);
    assert_int_equal(sprt_format(NULL, 0, &p, 1.0),
                     strlen("LLR 1.00 (-2.94, 2.94) [0.00, 2.00] logistic"));
}

/* ---------------------------------------------------------------------- arguments */

static void test_parse_penta(void **state)
{
    (void)state;
    StatsCounts c;
    StatsError err;
    assert_true(coord_statscmd_parse_penta("1,2,3,4,5,6", &c, &err));
    assert_int_equal(c.penta[0], 1);
    assert_int_equal(c.penta[1], 2);
    assert_int_equal(c.penta[2], 7);
    assert_int_equal(c.penta[3], 5);
    assert_int_equal(c.penta[4], 6);
    assert_int_equal(c.wl, 3);
    assert_int_equal(c.dd, 4);
    /* W = WL + WD + 2 WW, D = LD + 2 DD + WD, L = 2 LL + LD + WL. */
    assert_int_equal(c.tri[STATS_WIN], 3 + 5 + 12);
    assert_int_equal(c.tri[STATS_DRAW], 2 + 8 + 5);
    assert_int_equal(c.tri[STATS_LOSS], 2 + 2 + 3);

    StatsCounts d;
    assert_true(coord_statscmd_parse_penta(" 1, 2 ,3+4, 5,6 ", &d, &err));
    assert_memory_equal(&c, &d, sizeof c);

    assert_true(coord_statscmd_parse_penta("1,2,7,5,6", &c, &err));
    assert_int_equal(c.penta[2], 7);
    assert_int_equal(c.wl + c.dd, 0);
    assert_false(stats_wdl_known(&c));
    assert_int_equal(stats_games(&c), 42);

    /* Bin 2 empty: the split is trivially known. */
    assert_true(coord_statscmd_parse_penta("1,0,0,0,1", &c, &err));
    assert_true(stats_wdl_known(&c));
    assert_int_equal(c.tri[STATS_WIN], 2);
    assert_int_equal(c.tri[STATS_LOSS], 2);
}

static void expect_parse_error(bool (*parse)(const char *, StatsCounts *, StatsError *),
                               const char *text, const char *words)
{
    StatsCounts c, before;
    StatsError err = {""};
    stats_counts_init(&c);
    c.penta[0] = 99;
    before = c;
    if (parse(text, &c, &err))
        fail_msg("'%s' was accepted", text ? text : "(null)");
    if (!strstr(err.msg, words))
        fail_msg("'%s': message \"%s\" lacks \"%s\"", text ? text : "(null)", err.msg, words);
    assert_memory_equal(&c, &before, sizeof c);
}

static void test_parse_count_errors(void **state)
{
    (void)state;
    static const struct {
        bool (*parse)(const char *, StatsCounts *, StatsError *);
        const char *text, *words;
    } bad[] = {
        {coord_statscmd_parse_penta, "1,2,3,4", "not 4"},
        {coord_statscmd_parse_penta, "1,2,3,4,5,6,7", "too many"},
        {coord_statscmd_parse_penta, "1,-2,3,4,5", "negative"},
        {coord_statscmd_parse_penta, "1,x,3,4,5", "not a whole number"},
        {coord_statscmd_parse_penta, "1,2.5,3,4,5", "not a whole number"},
        {coord_statscmd_parse_penta, "1,,3,4,5", "missing"},
        {coord_statscmd_parse_penta, "1,2,3,4,5,", "missing"},
        {coord_statscmd_parse_penta, "", "no numbers"},
        {coord_statscmd_parse_penta, NULL, "no numbers"},
        {coord_statscmd_parse_penta, "1,2,3,4,99999999999999999999", "too large"},
        {coord_statscmd_parse_penta, "1+1,2,3,4,5", "WL+DD"},
        {coord_statscmd_parse_penta, "1,2,3+1,4,5,6", "five-number"},
        {coord_statscmd_parse_penta, "1,2,3+,4,5", "missing"},
        {coord_statscmd_parse_wdl, "1,2", "not 2"},
        {coord_statscmd_parse_wdl, "1,2,3,4", "too many"},
        {coord_statscmd_parse_wdl, "1,2,-3", "negative"},
        {coord_statscmd_parse_wdl, "a,b,c", "not a whole number"},
        {coord_statscmd_parse_wdl, "1,2+1,3", "WL+DD"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_parse_error(bad[i].parse, bad[i].text, bad[i].words);
}

static void expect_sprt_error(const char *arg, const char *words)
{
    SprtParams p, before;
    StatsError err = {""};
    sprt_params_default(&p);
    before = p;
    if (sprt_parse_option(arg, &p, &err))
        fail_msg("'%s' was accepted", arg);
    if (!strstr(err.msg, words))
        fail_msg("'%s': message \"%s\" lacks \"%s\"", arg, err.msg, words);
    assert_memory_equal(&p, &before, sizeof p);
}

static void test_parse_sprt_option(void **state)
{
    (void)state;
    SprtParams p;
    StatsError err;
    sprt_params_default(&p);
    assert_true(sprt_parse_option("elo0=-1.75", &p, &err));
    assert_true(sprt_parse_option("elo1=0.25", &p, &err));
    assert_true(sprt_parse_option("alpha=0.1", &p, &err));
    assert_true(sprt_parse_option("beta=0.2", &p, &err));
    assert_true(sprt_parse_option("model=logistic", &p, &err));
    assert_near(p.elo0, -1.75, 0);
    assert_near(p.elo1, 0.25, 0);
    assert_near(p.alpha, 0.1, 0);
    assert_near(p.beta, 0.2, 0);
    assert_int_equal(p.model, SPRT_LOGISTIC);
    assert_true(sprt_check(&p, &err));

    expect_sprt_error("alpha=0", "strictly between 0 and 1");
    expect_sprt_error("alpha=1", "strictly between 0 and 1");
    expect_sprt_error("alpha=1.5", "strictly between 0 and 1");
    expect_sprt_error("beta=-0.1", "strictly between 0 and 1");
    expect_sprt_error("alpha=x", "must be a number");
    expect_sprt_error("alpha=", "must be a number");
    expect_sprt_error("alpha=0.05x", "must be a number");
    expect_sprt_error("elo0=nan", "must be a number");
    expect_sprt_error("elo1=inf", "must be a number");
    expect_sprt_error("elo1=250", "within");
    expect_sprt_error("model=bayes", "normalized or logistic");
    expect_sprt_error("elo2=1", "unknown key");
    expect_sprt_error("elo0", "key=value");
    expect_sprt_error("=3", "key=value");

    /* Consistency across options. */
    p = sprt(2, 2, SPRT_NORMALIZED);
    assert_false(sprt_check(&p, &err));
    assert_non_null(strstr(err.msg, "elo0 must be below elo1"));
    p = sprt(3, 1, SPRT_NORMALIZED);
    assert_false(sprt_check(&p, &err));
    p = sprt(0, 2, SPRT_NORMALIZED);
    p.alpha = 0.5;
    p.beta = 0.5;
    assert_false(sprt_check(&p, &err));
    assert_non_null(strstr(err.msg, "alpha + beta"));
    p = sprt(0, 2, (SprtModel)SPRT_MODEL_NB);
    assert_false(sprt_check(&p, &err));
}

static bool parse_args(const char *line, StatsCmdArgs *a, StatsError *err)
{
    static char copy[512];
    char *argv[32];
    int argc = 0;
    snprintf(copy, sizeof copy, "%s", line);
    for (char *w = strtok(copy, " "); w && argc < 32; w = strtok(NULL, " "))
        argv[argc++] = w;
    return coord_statscmd_parse_args(argc, argv, a, err);
}

static void expect_args_error(const char *line, const char *words)
{
    StatsCmdArgs a;
    StatsError err = {""};
    if (parse_args(line, &a, &err))
        fail_msg("'%s' was accepted", line);
    if (!strstr(err.msg, words))
        fail_msg("'%s': message \"%s\" lacks \"%s\"", line, err.msg, words);
}

static void test_parse_args(void **state)
{
    (void)state;
    StatsCmdArgs a;
    StatsError err;
    assert_true(parse_args("--penta 365,16618,36029,200,16974,390 -sprt elo0=0 elo1=2 "
                           "alpha=0.05 beta=0.05 model=normalized",
                           &a, &err));
    assert_int_equal(a.kind, STATS_PENTANOMIAL);
    assert_true(a.has_sprt);
    char buf[512];
    stats_format(buf, sizeof buf, &a.counts, a.kind, &a.sprt, STATS_REPORT_LINE);
    assert_non_null(strstr(buf, "LLR 2.25 (-2.94, 2.94) [0.00, 2.00] normalized"));

    /* Options in any order; -sprt defaults: alpha = beta = 0.05, normalized. */
    assert_true(parse_args("--sprt elo1=1 elo0=-3 model=logistic --penta "
                           "10789,19328,33806,19402,10543",
                           &a, &err));
    assert_int_equal(a.sprt.model, SPRT_LOGISTIC);
    assert_near(a.sprt.alpha, 0.05, 0);
    assert_printed(sprt_llr(&a.sprt, &a.counts, a.kind), 4, "2.1311");

    assert_true(parse_args("--wdl 36433,68692,36027", &a, &err));
    assert_int_equal(a.kind, STATS_TRINOMIAL);
    assert_false(a.has_sprt);

    expect_args_error("", "give the results");
    expect_args_error("-sprt elo0=0 elo1=2", "give the results");
    expect_args_error("--penta", "--penta: needs a value");
    expect_args_error("--penta 1,2,3,4", "not 4");
    expect_args_error("--penta 1,2,3,4,5 --wdl 1,2,3", "one of --penta and --wdl");
    expect_args_error("--penta 1,2,3,4,5 --penta 1,2,3,4,5", "one of --penta and --wdl");
    expect_args_error("--wdl 1,2,3 --elo", "unknown option '--elo'");
    expect_args_error("--wdl 1,2,3 -sprt", "needs elo0=X and elo1=Y");
    expect_args_error("--wdl 1,2,3 -sprt elo0=0", "needs elo0=X and elo1=Y");
    expect_args_error("--wdl 1,2,3 -sprt elo0=2 elo1=0", "elo0 must be below elo1");
    expect_args_error("--wdl 1,2,3 -sprt elo0=0 elo1=2 alpha=1", "strictly between");
    expect_args_error("--wdl 1,2,3 -sprt elo0=0 elo1=2 elo0=1", "elo0 given twice");
    expect_args_error("--wdl 1,2,3 -sprt elo0=0 elo1=2 -sprt elo0=0 elo1=2", "twice");
    expect_args_error("--wdl 1,2,3 -sprt elo0=0 elo1=2 beta=0.6 alpha=0.5", "alpha + beta");
    expect_args_error("--wdl 1,2,3 -sprt elo0=0 elo1=2 stray", "got 'stray'");
    assert_non_null(strstr(coord_statscmd_usage(), "--penta"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector_penta_normalized),
        cmocka_unit_test(test_vector_penta_normalized_negative),
        cmocka_unit_test(test_vector_trinomial_normalized),
        cmocka_unit_test(test_vector_elo_nelo),
        cmocka_unit_test(test_vector_elo_los),
        cmocka_unit_test(test_vector_penta_logistic),
        cmocka_unit_test(test_llr_zero_bins),
        cmocka_unit_test(test_counting),
        cmocka_unit_test(test_zero_games),
        cmocka_unit_test(test_all_draws),
        cmocka_unit_test(test_all_wins_and_losses),
        cmocka_unit_test(test_single_pair),
        cmocka_unit_test(test_sprt_bounds_and_text),
        cmocka_unit_test(test_sprt_state_at_bounds),
        cmocka_unit_test(test_sprt_state_transitions),
        cmocka_unit_test(test_llr_mirror_symmetry),
        cmocka_unit_test(test_llr_always_finite),
        cmocka_unit_test(test_report_text),
        cmocka_unit_test(test_report_truncation),
        cmocka_unit_test(test_parse_penta),
        cmocka_unit_test(test_parse_count_errors),
        cmocka_unit_test(test_parse_sprt_option),
        cmocka_unit_test(test_parse_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
