/*
 * What a GUI asks of the search beyond one line on one thread, through the Engine
 * facade: MultiPV (distinct first moves, best first, on the bench positions), go
 * searchmoves, go mate, several threads (Lazy SMP: a legal move, node limits counting
 * every thread, stop, back to one thread as before) and pondering (no time limit until
 * ponderhit, the clock from then on, stop ends it with a move).
 *
 * Effort: smaller searches in debug and sanitizer builds (CHUHE_TEST_QUICK as in
 * test_search); ThreadSanitizer runs this program in make check-tsan.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "tests/support/searchtest.h"
#include "engine.h"
#include "movegen.h"
#include "notation.h"
#include "timeman.h"

static int multipv_depth = 8;

static Engine *new_engine(int threads)
{
    Engine *e = engine_new();
    if (!e)
        fail_msg("engine_new failed");
    char err[200];
    if (!engine_set_threads(e, threads, err, sizeof err))
        fail_msg("engine_set_threads(%d): %s", threads, err);
    return e;
}

static void set_fen(Engine *e, const char *fen)
{
    PosError err = {{0}};
    if (!engine_set_position(e, fen, NULL, 0, &err))
        fail_msg("cannot set %s: %s", fen ? fen : "startpos", err.msg);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* The last report of each line at the deepest depth (after a depth's aspiration bounds
 * come its lines, exact or, for a later line that reached the first line's score, a
 * lower bound), and every first move the reports named. */
typedef struct {
    SearchInfo line[SEARCH_MULTIPV_MAX + 1]; /* by multipv, 1.. */
    int depth;                               /* of the lines kept */
    int reports;
    Move firsts[512];
    int nfirsts;
} Reports;

static void on_info(void *ctx, const SearchInfo *info)
{
    Reports *r = ctx;
    r->reports++;
    if (info->pv_len > 0 && r->nfirsts < 512)
        r->firsts[r->nfirsts++] = info->pv[0];
    if (info->multipv < 1 || info->multipv > SEARCH_MULTIPV_MAX)
        return;
    if (info->depth > r->depth) {
        memset(r->line, 0, sizeof r->line);
        r->depth = info->depth;
    }
    if (info->depth == r->depth)
        r->line[info->multipv] = *info;
}

static SearchResult search_reports(Engine *e, const SearchLimits *l, Reports *r)
{
    memset(r, 0, sizeof *r);
    SearchCallbacks cb = {on_info, r};
    return engine_search(e, l, &cb);
}

/* ---- MultiPV ------------------------------------------------------------------------- */

/* On every bench position at a fixed depth: MultiPV 3 gives min(3, legal moves) lines
 * at the last depth with distinct first moves in score order, the first exact and the
 * move played; and, one thread searching, that line is MultiPV 1's move and score. */
static void test_multipv_bench(void **state)
{
    (void)state;
    Engine *e = new_engine(1);
    int positions = 0, same = 0, among = 0, warm_same = 0;
    for (int i = 0; engine_bench_fen(i); i++) {
        const char *fen = engine_bench_fen(i);
        SearchLimits l = searchtest_depth(multipv_depth);
        engine_new_game(e);
        set_fen(e, fen);
        SearchResult one = engine_search(e, &l, NULL);

        engine_new_game(e);
        l.multipv = 3;
        Reports r;
        SearchResult three = search_reports(e, &l, &r);
        MoveList legal;
        gen_legal(engine_position(e), &legal);
        int want = legal.count < 3 ? legal.count : 3;
        assert_int_equal(r.depth, multipv_depth);
        for (int k = 1; k <= want; k++) {
            const SearchInfo *a = &r.line[k];
            if (a->multipv != k || a->pv_len == 0)
                fail_msg("%s: line %d of %d missing at depth %d", fen, k, want, r.depth);
            assert_true(move_is_legal(engine_position(e), a->pv[0]));
            for (int j = 1; j < k; j++) {
                if (r.line[j].pv[0] == a->pv[0])
                    fail_msg("%s: lines %d and %d both start with the same move", fen, j, k);
                if (r.line[j].score < a->score)
                    fail_msg("%s: line %d scores %d, above line %d's %d", fen, k, a->score, j,
                             r.line[j].score);
            }
        }
        if (want < 3) /* no line past the legal moves */
            assert_int_equal(r.line[want + 1].multipv, 0);
        assert_int_equal(r.line[1].bound, BOUND_EXACT);
        assert_int_equal(three.best, r.line[1].pv[0]);
        assert_int_equal(three.score, r.line[1].score);
        positions++;
        same += one.best == three.best && one.score == three.score;
        for (int k = 1; k <= want; k++)
            among += r.line[k].pv[0] == one.best;

        /* the measure of what another hash and history do: MultiPV 1 again, after a
         * search one ply shallower */
        engine_new_game(e);
        l = searchtest_depth(multipv_depth - 1);
        engine_search(e, &l, NULL);
        l.depth = multipv_depth;
        warm_same += engine_search(e, &l, NULL).best == one.best;
    }
    print_message("# MultiPV 3's first line is MultiPV 1's move in %d of %d bench positions "
                  "at depth %d, one of its lines in %d; MultiPV 1 after a search one ply "
                  "shallower: %d\n",
                  same, positions, multipv_depth, among, warm_same);
    /* The later lines leave the hash and the histories as the first line left them, and
     * stop at its score (search.c, aspiration): the first line is MultiPV 1's search. */
    assert_int_equal(same, positions);
    assert_int_equal(among, positions);
    engine_free(&e);
}

/* MultiPV 1 is the search without MultiPV: same move, same nodes. */
static void test_multipv_one_is_plain(void **state)
{
    (void)state;
    Engine *e = new_engine(1);
    SearchLimits l = searchtest_depth(multipv_depth);
    set_fen(e, engine_bench_fen(3));
    SearchResult a = engine_search(e, &l, NULL);
    engine_new_game(e);
    l.multipv = 1;
    SearchResult b = engine_search(e, &l, NULL);
    assert_int_equal(a.best, b.best);
    assert_int_equal(a.nodes, b.nodes);
    assert_int_equal(a.score, b.score);
    engine_free(&e);
}

/* ---- searchmoves and mate ------------------------------------------------------------ */

static bool in_list(Move m, const Move *list, int n)
{
    for (int i = 0; i < n; i++)
        if (list[i] == m)
            return true;
    return false;
}

static void test_searchmoves(void **state)
{
    (void)state;
    Engine *e = new_engine(1);
    set_fen(e, NULL);
    /* two moves no search of the start position plays: a chariot and an edge soldier */
    Move allowed[2] = {move_from_text("a0a1"), move_from_text("i3i4")};
    SearchLimits l = searchtest_depth(7);
    l.nsearchmoves = 2;
    memcpy(l.searchmoves, allowed, sizeof allowed);
    Reports r;
    SearchResult res = search_reports(e, &l, &r);
    assert_true(in_list(res.best, allowed, 2));
    assert_true(r.nfirsts > 0);
    for (int i = 0; i < r.nfirsts; i++)
        if (!in_list(r.firsts[i], allowed, 2))
            fail_msg("a report's line starts outside searchmoves");

    /* one move: that move; MultiPV 3 over two moves: two lines */
    l.nsearchmoves = 1;
    engine_new_game(e);
    assert_int_equal(engine_search(e, &l, NULL).best, allowed[0]);
    l.nsearchmoves = 2;
    l.multipv = 3;
    engine_new_game(e);
    search_reports(e, &l, &r);
    assert_int_equal(r.line[1].multipv, 1);
    assert_int_equal(r.line[2].multipv, 2);
    assert_int_equal(r.line[3].multipv, 0);
    assert_true(in_list(r.line[1].pv[0], allowed, 2) && in_list(r.line[2].pv[0], allowed, 2));

    /* with two threads the helpers keep to the list too */
    Engine *t = new_engine(2);
    set_fen(t, NULL);
    l.multipv = 1;
    for (int i = 0; i < 3; i++)
        assert_true(in_list(engine_search(t, &l, NULL).best, allowed, 2));
    engine_free(&t);
    engine_free(&e);
}

/* go mate 2 on a mate in two stops once it has it; go mate 1 there does not stop. */
static void test_mate_limit(void **state)
{
    (void)state;
    Engine *e = new_engine(1);
    const char *fen = "3akab2/9/4b4/9/9/9/5R3/9/5R3/4K4 w - - 0 1"; /* mate in 2 */
    set_fen(e, fen);
    SearchLimits l;
    time_limits_clear(&l);
    l.mate = 2;
    SearchResult r = engine_search(e, &l, NULL);
    assert_int_equal(r.score, value_mate_in(3));
    assert_true(r.depth < 10);

    engine_new_game(e);
    l.mate = 1;
    l.depth = 12;
    r = engine_search(e, &l, NULL);
    assert_int_equal(r.score, value_mate_in(3));
    assert_int_equal(r.depth, 12);
    engine_free(&e);
}

/* ---- threads ------------------------------------------------------------------------- */

static void test_threads_search(void **state)
{
    (void)state;
    Engine *e = new_engine(3);
    assert_int_equal(engine_threads(e), 3);
    for (int i = 0; engine_bench_fen(i); i += 5) {
        set_fen(e, engine_bench_fen(i));
        SearchLimits l = searchtest_depth(multipv_depth);
        SearchResult r = engine_search(e, &l, NULL);
        assert_true(move_is_legal(engine_position(e), r.best));
        assert_true(r.depth >= multipv_depth);
    }
    /* a node limit counts every thread's nodes: checked each 1024 nodes of a thread */
    set_fen(e, NULL);
    SearchLimits l;
    time_limits_clear(&l);
    l.nodes = 60000;
    SearchResult r = engine_search(e, &l, NULL);
    if (r.nodes < l.nodes || r.nodes > l.nodes + 3 * 1024 + 300)
        fail_msg("go nodes %llu with 3 threads searched %llu nodes", (unsigned long long)l.nodes,
                 (unsigned long long)r.nodes);
    engine_free(&e);
}

/* Back to one thread, a node-limited search is the one of an engine that never had
 * more; new games and resizes between searches leave no helper behind. */
static void test_threads_back_to_one(void **state)
{
    (void)state;
    Engine *a = new_engine(1), *b = new_engine(4);
    char err[200];
    SearchLimits l;
    time_limits_clear(&l);
    l.nodes = 30000;
    set_fen(b, NULL);
    engine_search(b, &l, NULL);
    assert_true(engine_set_threads(b, 2, err, sizeof err));
    engine_search(b, &l, NULL);
    assert_true(engine_set_threads(b, 1, err, sizeof err));
    assert_false(engine_set_threads(b, SEARCH_THREADS_MAX + 1, err, sizeof err));
    assert_int_equal(engine_threads(b), 1);
    engine_new_game(b);
    set_fen(a, engine_bench_fen(5));
    set_fen(b, engine_bench_fen(5));
    SearchResult x = engine_search(a, &l, NULL), y = engine_search(b, &l, NULL);
    assert_int_equal(x.best, y.best);
    assert_int_equal(x.nodes, y.nodes);
    engine_free(&a);
    engine_free(&b);
}

static int64_t wait_done(SearchJob *j, int limit_ms)
{
    int64_t t0 = time_now_ms();
    while (!atomic_load(&j->done) && time_now_ms() - t0 < limit_ms)
        sleep_ms(1);
    return time_now_ms() - t0;
}

/* stop ends an infinite search of every thread count promptly, with a legal move. */
static void test_threads_stop(void **state)
{
    (void)state;
    for (int threads = 1; threads <= 3; threads++) {
        SearchJob j = {new_engine(threads), {0}, {0}, false};
        set_fen(j.e, engine_bench_fen(4));
        time_limits_clear(&j.limits);
        j.limits.infinite = true;
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, searchtest_job_run, &j), 0);
        sleep_ms(100);
        assert_false(atomic_load(&j.done));
        engine_stop(j.e);
        int64_t waited = wait_done(&j, 5000);
        pthread_join(th, NULL);
        if (waited > 1000)
            fail_msg("%d threads: stop took %lld ms", threads, (long long)waited);
        assert_true(move_is_legal(engine_position(j.e), j.result.best));
        engine_free(&j.e);
    }
}

/* ---- pondering ----------------------------------------------------------------------- */

/* A ponder search keeps searching past its time until ponderhit, then stops within
 * the time from ponderhit; stop during a ponder search returns a move. */
static void test_ponder(void **state)
{
    (void)state;
    for (int threads = 1; threads <= 2; threads++) {
        SearchJob j = {new_engine(threads), {0}, {0}, false};
        set_fen(j.e, NULL);
        time_limits_clear(&j.limits);
        j.limits.movetime = 100;
        j.limits.ponder = true;
        engine_ponder_begin(j.e);
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, searchtest_job_run, &j), 0);
        sleep_ms(300);
        assert_false(atomic_load(&j.done)); /* three times its move time, still pondering */
        engine_ponderhit(j.e);
        int64_t waited = wait_done(&j, 5000);
        pthread_join(th, NULL);
        if (waited < 50 || waited > 1000)
            fail_msg("%d threads: the search ended %lld ms after ponderhit, movetime 100", threads,
                     (long long)waited);
        assert_true(move_is_legal(engine_position(j.e), j.result.best));

        /* stop while pondering: a move at once */
        atomic_store(&j.done, false);
        engine_ponder_begin(j.e);
        assert_int_equal(pthread_create(&th, NULL, searchtest_job_run, &j), 0);
        sleep_ms(200);
        assert_false(atomic_load(&j.done));
        engine_stop(j.e);
        waited = wait_done(&j, 5000);
        pthread_join(th, NULL);
        if (waited > 1000)
            fail_msg("%d threads: stop while pondering took %lld ms", threads, (long long)waited);
        assert_true(move_is_legal(engine_position(j.e), j.result.best));
        engine_free(&j.e);
    }
}

int main(void)
{
    if (searchtest_quick())
        multipv_depth = 5;
    /* another depth for a measurement by hand */
    const char *d = getenv("CHUHE_MULTIPV_DEPTH");
    if (d && atoi(d) > 0)
        multipv_depth = atoi(d);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multipv_bench),  cmocka_unit_test(test_multipv_one_is_plain),
        cmocka_unit_test(test_searchmoves),    cmocka_unit_test(test_mate_limit),
        cmocka_unit_test(test_threads_search), cmocka_unit_test(test_threads_back_to_one),
        cmocka_unit_test(test_threads_stop),   cmocka_unit_test(test_ponder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
