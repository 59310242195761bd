/*
 * Watching a run (docs/watch.md): the live page's snapshot (coord_live) before and after
 * a publication, the hook for extra status members, the history kept within its bound
 * and evenly spaced over a long run; and the report's K, fitted back from results made
 * with a known one.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coordinator/coord_live.h"
#include "coordinator/coord_runreport.h"

typedef struct {
    double t;
    uint64_t games;
} Point;

/* The (t, games) of every history point; returns how many (at most max). */
static int history_points(CoordLive *live, Point *out, int max)
{
    size_t len;
    char *json = coord_live_history(live, &len);
    assert_non_null(json);
    assert_int_equal(strlen(json), len);
    const char *p = strstr(json, "\"points\":[");
    assert_non_null(p);
    p += strlen("\"points\":[");
    int n = 0;
    while (*p == '[' || *p == ',') {
        p += *p == ',' ? 1 : 0;
        assert_true(n < max);
        assert_int_equal(sscanf(p, "[%lf,%" SCNu64 ",", &out[n].t, &out[n].games), 2);
        n++;
        p = strchr(p, ']');
        assert_non_null(p);
        p++;
    }
    assert_string_equal(p, "]}");
    free(json);
    return n;
}

static void test_before_publish(void **state)
{
    (void)state;
    CoordLive *live = coord_live_new();
    size_t len;
    char *status = coord_live_status(live, &len);
    assert_string_equal(status, "{}");
    free(status);
    Point pts[4];
    assert_int_equal(history_points(live, pts, 4), 0);
    coord_live_free(&live);
    assert_null(live);
}

static void test_publish(void **state)
{
    (void)state;
    CoordLive *live = coord_live_new();
    RunStats st;
    coord_runstats_init(&st, 100);
    st.has_sprt = true;
    coord_runstats_add(&st, OUTCOME_RED_WIN, REASON_CHECKMATE, 50, 0, 1, 1000, true);
    coord_runstats_add(&st, OUTCOME_DRAW, REASON_REPETITION, 70, 1, 0, 1000, true);
    coord_runstats_add_pair(&st, 0, 1, OUTCOME_RED_WIN, OUTCOME_DRAW);
    RunStatsContext cx = {.pairs_done = 1, .pairs_target = 10, .workers = 2, .now = 104};
    coord_live_set_run(live, 0xab, "/runs/a \"b\".h5");
    coord_live_publish(live, &st, &cx, "\"spsa\":{\"params\":[]}");
    size_t len;
    char *status = coord_live_status(live, &len);
    assert_int_equal(strlen(status), len);
    const char *head = "{\"event\":\"progress\",\"run_id\":\"00000000000000ab\","
                       "\"out\":\"/runs/a \\\"b\\\".h5\",\"spsa\":{\"params\":[]},";
    assert_memory_equal(status, head, strlen(head));
    assert_non_null(strstr(status, "\"games\":2,"));
    assert_non_null(strstr(status, "\"sprt\":{"));
    assert_non_null(strstr(status, "\"endings\":{\"checkmate\":1,\"repetition\":1}"));
    assert_non_null(strstr(status, "\"ranking\":["));
    assert_non_null(strstr(status, "\"crosstable\":{"));
    assert_string_equal(status + len - 1, "}");
    free(status);
    size_t hlen;
    char *history = coord_live_history(live, &hlen);
    /* one complete pair: an Elo, its error and an LLR */
    assert_non_null(strstr(history, "\"points\":[[4.00,2,"));
    assert_null(strstr(history, "null"));
    free(history);
    coord_runstats_free(&st);
    coord_live_free(&live);
}

static void test_history_bounded(void **state)
{
    (void)state;
    enum { N = 9999 };
    CoordLive *live = coord_live_new();
    RunStats st;
    coord_runstats_init(&st, 0);
    RunStatsContext cx = {.pairs_target = N};
    Point *pts = malloc((COORD_LIVE_HISTORY_MAX + 1) * sizeof *pts);
    assert_non_null(pts);
    for (int i = 0; i < N; i++) {
        st.games = (uint64_t)i;
        cx.now = i;
        coord_live_publish(live, &st, &cx, NULL);
        if (i == 1500) /* below the bound, every publication is a point */
            assert_int_equal(history_points(live, pts, COORD_LIVE_HISTORY_MAX + 1), 1501);
    }
    int n = history_points(live, pts, COORD_LIVE_HISTORY_MAX + 1);
    assert_true(n > COORD_LIVE_HISTORY_MAX / 2 && n <= COORD_LIVE_HISTORY_MAX + 1);
    assert_int_equal(pts[0].games, 0);
    assert_int_equal(pts[n - 1].games, N - 1); /* the latest is always shown */
    /* evenly spaced, but for the latest */
    uint64_t step = pts[1].games - pts[0].games;
    assert_true(step >= 4);
    for (int i = 1; i < n - 1; i++)
        assert_int_equal(pts[i].games - pts[i - 1].games, step);
    free(pts);
    coord_runstats_free(&st);
    coord_live_free(&live);
}

static void test_fit_k(void **state)
{
    (void)state;
    RunReport *rep = calloc(1, sizeof *rep);
    assert_non_null(rep);
    assert_true(coord_runreport_fit_k(rep) == 0);
    const double k = 0.0042;
    for (int b = 0; b < RUNREPORT_SCORE_BINS; b++) {
        double s = (b + 0.5) * RUNREPORT_SCORE_BIN - RUNREPORT_SCORE_CLIP;
        uint64_t n = 10000, wins = (uint64_t)llround((double)n / (1 + exp(-k * s)));
        rep->scored[b] = n;
        rep->score_sum[b] = s * (double)n;
        rep->wdl[b][0] = wins;
        rep->wdl[b][2] = n - wins;
    }
    double fitted = coord_runreport_fit_k(rep);
    if (fabs(fitted - k) > 1e-3 * k)
        fail_msg("fitted K %.6g, made with %.6g", fitted, k);
    free(rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_before_publish),
        cmocka_unit_test(test_publish),
        cmocka_unit_test(test_history_bounded),
        cmocka_unit_test(test_fit_k),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
