/*
 * The search's tunable constants (engine/spsa_params.h) and the engine calls that set
 * them: every default inside its range and printed as fishtest's SPSA input, values
 * outside a range refused, a node-limited search reproducible at any values, and two
 * engines with different values searching at once, each as it does alone.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "spsa_params.h"

static const char *const MIDGAME_FEN =
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1";

enum { NODES = 20000 };

static Engine *new_engine(void)
{
    Engine *e = engine_new();
    if (!e)
        fail_msg("engine_new failed");
    PosError err;
    if (!engine_set_position(e, MIDGAME_FEN, NULL, 0, &err))
        fail_msg("bad FEN: %s", err.msg);
    return e;
}

static SearchResult search_by_nodes(Engine *e)
{
    SearchLimits l;
    time_limits_clear(&l);
    l.nodes = NODES;
    engine_new_game(e);
    return engine_search(e, &l, NULL);
}

/* A search to a fixed depth: its node count tells two searches apart (a node-limited
 * one stops at the limit, or a node after it, whatever it searched). */
static SearchResult search_depth(Engine *e)
{
    SearchLimits l;
    time_limits_clear(&l);
    l.depth = 7;
    engine_new_game(e);
    return engine_search(e, &l, NULL);
}

/* Every parameter near the top of its range: a search unlike the default one. */
static void detune(Engine *e)
{
    for (int i = 0; i < SPSA_PARAM_NB; i++) {
        const SpsaParamInfo *p = &SPSA_PARAM_INFO[i];
        assert_true(engine_set_search_param(e, i, p->value + (p->max - p->value) / 2));
    }
}

static void test_table(void **state)
{
    (void)state;
    const SearchParams *def = &SPSA_PARAMS_DEFAULT;
    for (int i = 0; i < SPSA_PARAM_NB; i++) {
        const SpsaParamInfo *p = &SPSA_PARAM_INFO[i];
        assert_int_equal(spsa_params_find(p->name), i);
        assert_int_equal(spsa_params_get(def, i), p->value);
        assert_true(p->min <= p->value && p->value <= p->max && p->min < p->max);
        assert_true(p->c_end > 0 && p->r_end > 0);
        char line[160], want[160];
        spsa_params_line(def, i, line, sizeof line);
        snprintf(want, sizeof want, "%s, int, %d, %d, %d, ", p->name, p->value, p->min, p->max);
        assert_memory_equal(line, want, strlen(want));
    }
    assert_int_equal(spsa_params_find("LMR_BASE"), SPSA_PARAM_lmr_base);
    assert_int_equal(spsa_params_find("no_such_param"), -1);
    char line[160];
    spsa_params_line(def, SPSA_PARAM_lmr_base, line, sizeof line);
    assert_string_equal(line, "lmr_base, int, 80, 0, 200, 10, 0.002");
}

static void test_set_in_range(void **state)
{
    (void)state;
    Engine *e = new_engine();
    const SpsaParamInfo *p = &SPSA_PARAM_INFO[SPSA_PARAM_rfp_margin];
    assert_false(engine_set_search_param(e, SPSA_PARAM_rfp_margin, p->max + 1));
    assert_false(engine_set_search_param(e, SPSA_PARAM_rfp_margin, p->min - 1));
    assert_false(engine_set_search_param(e, -1, 0));
    assert_false(engine_set_search_param(e, SPSA_PARAM_NB, 0));
    assert_int_equal(engine_search_params(e)->rfp_margin, p->value);
    assert_true(engine_set_search_param(e, SPSA_PARAM_rfp_margin, p->max));
    assert_int_equal(engine_search_params(e)->rfp_margin, p->max);
    engine_reset_search_params(e);
    assert_memory_equal(engine_search_params(e), &SPSA_PARAMS_DEFAULT, sizeof(SearchParams));
    engine_free(&e);
}

static void test_reproducible_at_any_values(void **state)
{
    (void)state;
    Engine *a = new_engine(), *b = new_engine();
    SearchResult plain = search_by_nodes(a), plain_depth = search_depth(a);
    detune(a);
    detune(b);
    SearchResult x = search_by_nodes(a), y = search_by_nodes(b), z = search_by_nodes(a);
    assert_true(search_depth(a).nodes != plain_depth.nodes);
    assert_int_equal(x.nodes, y.nodes);
    assert_int_equal(x.nodes, z.nodes);
    assert_int_equal(x.best, y.best);
    engine_reset_search_params(a);
    SearchResult back = search_by_nodes(a);
    assert_int_equal(back.nodes, plain.nodes);
    assert_int_equal(back.best, plain.best);
    engine_free(&a);
    engine_free(&b);
}

typedef struct {
    Engine *e;
    SearchResult result;
} Job;

static void *run_job(void *arg)
{
    Job *j = arg;
    j->result = search_by_nodes(j->e);
    return NULL;
}

/* The values live in each engine: one tuned and one default engine side by side. */
static void test_two_engines_two_values(void **state)
{
    (void)state;
    Job jobs[2] = {{new_engine(), {0}}, {new_engine(), {0}}};
    detune(jobs[0].e);
    SearchResult alone[2] = {search_by_nodes(jobs[0].e), search_by_nodes(jobs[1].e)};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, run_job, &jobs[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(jobs[i].result.nodes, alone[i].nodes);
        assert_int_equal(jobs[i].result.best, alone[i].best);
        engine_free(&jobs[i].e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_set_in_range),
        cmocka_unit_test(test_reproducible_at_any_values),
        cmocka_unit_test(test_two_engines_two_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
