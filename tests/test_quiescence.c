/*
 * search_quiescence, the engine's quiescence search on its own: the line of captures and
 * its value on hand-made positions, the quiet checks of the first ply only when asked
 * for, and over the perft suite and the positions one move below it a legal line whose
 * end the same search leaves where it is (what the tuner's resolution relies on).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "evaluate.h"
#include "movegen.h"
#include "notation.h"
#include "search.h"
#include "tests/support/epd.h"
#include "weights.h"

/* A search state of its own, with a 1 MB table cleared before every search. */
typedef struct {
    Search *s;
    TT tt;
    atomic_bool stop;
    Position *pos;
    Move pv[MAX_PLY];
    int len;
} Rig;

static void rig_init(Rig *q)
{
    memset(q, 0, sizeof *q);
    q->s = calloc(1, sizeof *q->s);
    q->pos = malloc(sizeof *q->pos);
    assert_non_null(q->s);
    assert_non_null(q->pos);
    assert_true(tt_resize(&q->tt, 1));
    atomic_init(&q->stop, false);
    q->s->tt = &q->tt;
    q->s->params = weights_default();
    q->s->stop = &q->stop;
}

static void rig_free(Rig *q)
{
    tt_free(&q->tt);
    free(q->s);
    free(q->pos);
}

static void rig_set(Rig *q, const char *fen)
{
    PosError err = {{0}};
    if (!pos_set_fen(q->pos, fen, &err))
        fail_msg("bad FEN %s: %s", fen, err.msg);
}

static Value rig_search(Rig *q, bool quiet_checks)
{
    tt_clear(&q->tt);
    return search_quiescence(q->s, q->pos, quiet_checks, q->pv, &q->len);
}

static Value eval_here(const Rig *q)
{
    return evaluate(q->pos, weights_default());
}

/* The position is quiet for the search without quiet checks: no line, the static
 * evaluation. */
static void expect_stands_pat(Rig *q)
{
    Value v = rig_search(q, false);
    assert_int_equal(q->len, 0);
    assert_int_equal(v, eval_here(q));
}

static void test_hanging_chariot(void **state)
{
    (void)state;
    Rig q;
    rig_init(&q);
    /* Black's chariot on e5 hangs to Red's chariot on e0; nothing recaptures */
    rig_set(&q, "5k3/9/9/9/4r4/9/9/9/9/3KR4 w - - 0 1");
    Value v = rig_search(&q, false);
    assert_int_equal(q.len, 1);
    assert_int_equal(q.pv[0], move_from_text("e0e5"));
    pos_do_move(q.pos, q.pv[0]);
    assert_int_equal(v, -eval_here(&q));
    expect_stands_pat(&q);
    rig_free(&q);
}

static void test_quiet_check_mate(void **state)
{
    (void)state;
    Rig q;
    rig_init(&q);
    /* mate in one by a quiet check: found only when the first ply tries quiet checks */
    rig_set(&q, "3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1");
    expect_stands_pat(&q);
    Value v = rig_search(&q, true);
    assert_int_equal(v, value_mate_in(1));
    assert_int_equal(q.len, 1);
    assert_true(move_is_legal(q.pos, q.pv[0]));
    pos_do_move(q.pos, q.pv[0]);
    assert_true(pos_in_check(q.pos));
    assert_int_equal(gen_count(q.pos), 0);
    rig_free(&q);
}

/* Plays the line of the last search; false at its first illegal move. */
static bool play_line(Rig *q)
{
    for (int k = 0; k < q->len; k++) {
        if (!move_is_legal(q->pos, q->pv[k]))
            return false;
        pos_do_move(q->pos, q->pv[k]);
    }
    return true;
}

/* Every line is legal; without quiet checks, the end of a line that does not end in
 * check resolves to itself. */
static int check_suite_position(Rig *q, const char *fen)
{
    int lines = 0;
    for (int quiet = 0; quiet < 2; quiet++) {
        rig_set(q, fen);
        if (pos_in_check(q->pos))
            continue;
        Value v = rig_search(q, quiet);
        if (q->len < 0 || q->len > MAX_PLY || !play_line(q))
            fail_msg("%s: quiescence line of %d moves is not legal", fen, q->len);
        lines += q->len > 0;
        if (quiet || pos_in_check(q->pos) || v >= VALUE_MATE_IN_MAX_PLY ||
            v <= VALUE_MATED_IN_MAX_PLY)
            continue;
        char end[128];
        pos_get_fen(q->pos, end, sizeof end);
        rig_search(q, false);
        if (q->len != 0)
            fail_msg("%s: the line ends in %s, which resolves %d moves further", fen, end, q->len);
    }
    return lines;
}

static void test_suite_lines(void **state)
{
    (void)state;
    EpdSuite suite;
    char err[256];
    if (!epd_load(EPD_PUBLIC_PATH, &suite, err, sizeof err))
        fail_msg("%s", err);
    Rig q;
    rig_init(&q);
    int lines = 0, positions = 0;
    for (int i = 0; i < suite.count; i++) {
        /* the suite position and every position one move below it */
        const char *fen = suite.entries[i].fen;
        lines += check_suite_position(&q, fen);
        positions++;
        rig_set(&q, fen);
        MoveList list;
        gen_legal(q.pos, &list);
        for (int j = 0; j < list.count; j++) {
            char child[128];
            rig_set(&q, fen);
            pos_do_move(q.pos, list.moves[j]);
            pos_get_fen(q.pos, child, sizeof child);
            lines += check_suite_position(&q, child);
            positions++;
        }
    }
    rig_free(&q);
    epd_free(&suite);
    assert_true(positions > 200);
    assert_true(lines > positions / 10);
}

int main(void)
{
    position_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hanging_chariot),
        cmocka_unit_test(test_quiet_check_mate),
        cmocka_unit_test(test_suite_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
