/*
 * Evaluation terms on hand-made positions: each term is given its own distinct weights
 * (every other weight zero), so the breakdown tells exactly how often, at which index
 * and for which side the term was counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "attacks.h"
#include "evaluate.h"
#include "position.h"
#include "weights.h"

static Position g_pos;
static EvalParams g_params;
static EvalBreakdown g_bd;

static void eval_fen(const char *fen)
{
    PosError err = {{0}};
    if (!pos_set_fen(&g_pos, fen, &err))
        fail_msg("bad FEN %s: %s", fen, err.msg);
    eval_breakdown(&g_pos, &g_params, &g_bd);
}

/* A term's sum for one side: n uses of the weights (mg, eg). */
static void assert_sum(EvalSum got, int n, Score w)
{
    if (got.mg != n * score_mg(w) || got.eg != n * score_eg(w))
        fail_msg("sum (%d, %d), expected %d x (%d, %d)", got.mg, got.eg, n, score_mg(w),
                 score_eg(w));
}

static int setup(void **state)
{
    (void)state;
    attacks_init();
    memset(&g_params, 0, sizeof g_params);
    g_params.soldier_connected[0] = S(7, 3);
    for (int i = 0; i < 11; i++)
        g_params.guards_vs_attack[i] = S(100 + i, -(100 + i));
    for (int i = 0; i < 4; i++)
        g_params.palace_attack_kinds[i] = S(1000 * (i + 1), 0);
    return 0;
}

/* Crossed soldiers side by side count once a pair (before the river a soldier cannot
 * step sideways, so only crossed ones can stand side by side). */
static void test_soldier_connected(void **state)
{
    (void)state;
    /* Red: a5 b5 c5 crossed (two pairs), g3 i3 at home; Black: d4 e4 crossed (one pair) */
    eval_fen("5k3/9/9/9/PPP6/3pp4/6P1P/9/9/3K5 w - - 0 1");
    assert_sum(g_bd.term[EVAL_TERM_soldier_connected][RED], 2, S(7, 3));
    assert_sum(g_bd.term[EVAL_TERM_soldier_connected][BLACK], 1, S(7, 3));
    /* a soldier on the i-file has no right-hand neighbour: none connected */
    eval_fen("5k3/9/9/9/P7P/9/9/9/9/3K5 w - - 0 1");
    assert_sum(g_bd.term[EVAL_TERM_soldier_connected][RED], 0, S(0, 0));
}

/* Each guard is valued by the enemy's attacking force: 2 a chariot, 1 a horse, cannon or
 * crossed soldier. */
static void test_guards_vs_attack(void **state)
{
    (void)state;
    /* Red: advisors d0 e1, elephant e2 (3 guards); Black: chariot a8, horse b7, soldier e3
     * across the river: force 2 + 1 + 1 = 4. Black has no guards. */
    eval_fen("4k4/r8/1n7/9/9/9/4p4/4B4/4A4/3AK4 w - - 0 1");
    assert_sum(g_bd.term[EVAL_TERM_guards_vs_attack][RED], 3, S(104, -104));
    assert_sum(g_bd.term[EVAL_TERM_guards_vs_attack][BLACK], 0, S(0, 0));
    /* the same soldier at home (e6, not crossed) is no attacker: force 3 */
    eval_fen("4k4/r8/1n7/4p4/9/9/9/4B4/4A4/3AK4 w - - 0 1");
    assert_sum(g_bd.term[EVAL_TERM_guards_vs_attack][RED], 3, S(103, -103));
}

/* The kinds of piece aiming at the enemy palace, counted for the attacker. */
static void test_palace_attack_kinds(void **state)
{
    (void)state;
    /* Red chariot d2 up the open d-file and horse e6 (reaching d8, f8) into Black's
     * palace: two kinds */
    eval_fen("4k4/9/9/4N4/9/9/9/3R5/9/5K3 w - - 0 1");
    assert_sum(g_bd.term[EVAL_TERM_palace_attack_kinds][RED], 1, S(3000, 0));
    assert_sum(g_bd.term[EVAL_TERM_palace_attack_kinds][BLACK], 0, S(0, 0));
    /* the chariot on the a-file misses the palace: one kind */
    eval_fen("4k4/9/9/4N4/9/9/9/R8/9/5K3 w - - 0 1");
    assert_sum(g_bd.term[EVAL_TERM_palace_attack_kinds][RED], 1, S(2000, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_soldier_connected),
        cmocka_unit_test(test_guards_vs_attack),
        cmocka_unit_test(test_palace_attack_kinds),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
