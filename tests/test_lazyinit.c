/*
 * A process that only reads positions, with no engine ever created (a worker whose two
 * players are both external engines): the tables the FEN reader and the opening check
 * need are built on first use. Nothing here calls position_init().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "movegen.h"
#include "opening.h"
#include "position.h"

static void test_opening_without_init(void **state)
{
    (void)state;
    Opening op;
    PosError err;
    /* black elephants on c9 and g9, a black horse on a7: valid only with the tables */
    if (!opening_parse_line(&op,
                            "r1bakab1r/9/nc2c1n2/p1p1p1p1p/9/9/P1P1P1P1P/4B1CC1/4A4/"
                            "RN1AK1BNR w - - 6 4 ; moves b2g2",
                            &err))
        fail_msg("opening refused: %s", err.msg);
    Position pos;
    assert_true(pos_set_fen(&pos, START_FEN, &err));
    MoveList list;
    assert_int_equal(gen_legal(&pos, &list), 44);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opening_without_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
