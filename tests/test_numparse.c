/*
 * The strict number reader: tables of texts that must be read (with their value) and
 * texts that must be refused (with the message they get), for whole numbers (signed and
 * unsigned 64-bit) and real numbers, and the promise that a refused text leaves the output
 * alone.
 */
#include <float.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine/numparse.h"

/* A row of a parser's table: the text, the bounds given, the value read (when read) and
 * the message (NULL when the text is read), in the parser's type T. */
#define CASE_OF(T)         \
    struct {               \
        const char *text;  \
        T min, max, value; \
        const char *msg;   \
    }

typedef CASE_OF(long long) IntCase;
typedef CASE_OF(uint64_t) U64Case;
typedef CASE_OF(double) DoubleCase;

static const IntCase INT_CASES[] = {
    {"0", 0, 30000, 0, NULL},
    {"30000", 0, 30000, 30000, NULL},
    {"-5", -10, 10, -5, NULL},
    {"+7", 0, 10, 7, NULL},
    {"007", 0, 10, 7, NULL},
    {"-0", 0, 10, 0, NULL},
    {"9223372036854775807", LLONG_MIN, LLONG_MAX, LLONG_MAX, NULL},
    {"-9223372036854775808", LLONG_MIN, LLONG_MAX, LLONG_MIN, NULL},
    {"abc", 0, 30000, 0, "--max-score: 'abc' is not a whole number (allowed: 0..30000)"},
    {"", 0, 30000, 0, "--max-score: '' is not a whole number (allowed: 0..30000)"},
    {"100abc", 0, 30000, 0, "--max-score: '100abc' is not a whole number (allowed: 0..30000)"},
    {"1e3", 0, 30000, 0, "--max-score: '1e3' is not a whole number (allowed: 0..30000)"},
    {"12.0", 0, 30000, 0, "--max-score: '12.0' is not a whole number (allowed: 0..30000)"},
    {"0x10", 0, 30000, 0, "--max-score: '0x10' is not a whole number (allowed: 0..30000)"},
    {" 5", 0, 30000, 0, "--max-score: ' 5' is not a whole number (allowed: 0..30000)"},
    {"5 ", 0, 30000, 0, "--max-score: '5 ' is not a whole number (allowed: 0..30000)"},
    {"-", 0, 30000, 0, "--max-score: '-' is not a whole number (allowed: 0..30000)"},
    {"+-1", -5, 5, 0, "--max-score: '+-1' is not a whole number (allowed: -5..5)"},
    {"5\n", 0, 30000, 0, "--max-score: '5?' is not a whole number (allowed: 0..30000)"},
    {"-5", 0, 30000, 0, "--max-score: '-5' is out of range (allowed: 0..30000)"},
    {"30001", 0, 30000, 0, "--max-score: '30001' is out of range (allowed: 0..30000)"},
    {"99999999999999999999", 0, 30000, 0,
     "--max-score: '99999999999999999999' is out of range (allowed: 0..30000)"},
    {"99999999999999999999", LLONG_MIN, LLONG_MAX, 0,
     "--max-score: '99999999999999999999' is out of range (allowed: "
     "-9223372036854775808..9223372036854775807)"},
    {"-99999999999999999999", LLONG_MIN, LLONG_MAX, 0,
     "--max-score: '-99999999999999999999' is out of range (allowed: "
     "-9223372036854775808..9223372036854775807)"},
    {"12345678901234567890123456789012345678901234567890", 0, 9, 0,
     "--max-score: '1234567890123456789012345678901234567890...' is out of range (allowed: "
     "0..9)"},
};

static const U64Case U64_CASES[] = {
    {"0", 0, UINT64_MAX, 0, NULL},
    {"18446744073709551615", 0, UINT64_MAX, UINT64_MAX, NULL},
    {"+7", 0, 10, 7, NULL},
    {"-0", 0, 10, 0, NULL},
    {"18446744073709551616", 0, UINT64_MAX, 0,
     "--seed: '18446744073709551616' is out of range (allowed: 0..18446744073709551615)"},
    {"-1", 0, UINT64_MAX, 0, "--seed: '-1' is out of range (allowed: 0..18446744073709551615)"},
    {"0", 1, 5, 0, "--seed: '0' is out of range (allowed: 1..5)"},
    {" 1", 0, 5, 0, "--seed: ' 1' is not a whole number (allowed: 0..5)"},
    {"1e3", 0, 5000, 0, "--seed: '1e3' is not a whole number (allowed: 0..5000)"},
    {"", 0, 5, 0, "--seed: '' is not a whole number (allowed: 0..5)"},
};

static const DoubleCase DOUBLE_CASES[] = {
    {"1", 0.001, 1000, 1, NULL},
    {"0.001", 0.001, 1000, 0.001, NULL},
    {"1000", 0.001, 1000, 1000, NULL},
    {"2.5", 0.001, 1000, 2.5, NULL},
    {".5", 0.001, 1000, 0.5, NULL},
    {"5.", 0.001, 1000, 5, NULL},
    {"1e2", 0.001, 1000, 100, NULL},
    {"1E-2", 0.001, 1000, 0.01, NULL},
    {"+3", 0.001, 1000, 3, NULL},
    {"-2.5e+1", -100, 100, -25, NULL},
    {"1e-400", 0, 1, 0, NULL},
    {"0", 0.001, 1000, 0, "--lr: '0' is out of range (allowed: 0.001..1000)"},
    {"1000.5", 0.001, 1000, 0, "--lr: '1000.5' is out of range (allowed: 0.001..1000)"},
    {"1e999", 0.001, 1000, 0, "--lr: '1e999' is out of range (allowed: 0.001..1000)"},
    {"1e999", -DBL_MAX, DBL_MAX, 0,
     "--lr: '1e999' is out of range (allowed: -1.79769e+308..1.79769e+308)"},
    {"abc", 0.001, 1000, 0, "--lr: 'abc' is not a number (allowed: 0.001..1000)"},
    {"", 0.001, 1000, 0, "--lr: '' is not a number (allowed: 0.001..1000)"},
    {"1.5x", 0.001, 1000, 0, "--lr: '1.5x' is not a number (allowed: 0.001..1000)"},
    {".", 0.001, 1000, 0, "--lr: '.' is not a number (allowed: 0.001..1000)"},
    {"1e", 0.001, 1000, 0, "--lr: '1e' is not a number (allowed: 0.001..1000)"},
    {"1e+", 0.001, 1000, 0, "--lr: '1e+' is not a number (allowed: 0.001..1000)"},
    {"e5", 0.001, 1000, 0, "--lr: 'e5' is not a number (allowed: 0.001..1000)"},
    {"inf", -DBL_MAX, DBL_MAX, 0,
     "--lr: 'inf' is not a number (allowed: -1.79769e+308..1.79769e+308)"},
    {"nan", -DBL_MAX, DBL_MAX, 0,
     "--lr: 'nan' is not a number (allowed: -1.79769e+308..1.79769e+308)"},
    {"0x1p3", 0.001, 1000, 0, "--lr: '0x1p3' is not a number (allowed: 0.001..1000)"},
    {" 1", 0.001, 1000, 0, "--lr: ' 1' is not a number (allowed: 0.001..1000)"},
    {"1,5", 0.001, 1000, 0, "--lr: '1,5' is not a number (allowed: 0.001..1000)"},
};

/* One row's verdict: read with the wanted value, or refused with the wanted message and
 * the output left alone. */
static void check_row(const char *text, bool ok, bool value_right, bool untouched, const char *msg,
                      const char *want_msg)
{
    if (!want_msg) {
        if (!ok || !value_right)
            fail_msg("'%s': not read as wanted (%s)", text, ok ? "wrong value" : msg);
        return;
    }
    if (ok || !untouched)
        fail_msg("'%s': read or output changed, want refused", text);
    if (strcmp(msg, want_msg) != 0)
        fail_msg("'%s': message\n  %s\nwant\n  %s", text, msg, want_msg);
}

/* The test of a parser's table: every row read by PARSE for OPTION into an output of
 * type T that starts at 12345. */
#define TABLE_TEST(NAME, CASES, T, PARSE, OPTION)                                              \
    static void NAME(void **state)                                                             \
    {                                                                                          \
        (void)state;                                                                           \
        for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {                            \
            T v = 12345;                                                                       \
            char msg[200] = "";                                                                \
            bool ok =                                                                          \
                PARSE(OPTION, CASES[i].text, CASES[i].min, CASES[i].max, &v, msg, sizeof msg); \
            check_row(CASES[i].text, ok, v == CASES[i].value, v == 12345, msg, CASES[i].msg);  \
        }                                                                                      \
    }

TABLE_TEST(test_int_table, INT_CASES, long long, numparse_int, "--max-score")
TABLE_TEST(test_u64_table, U64_CASES, uint64_t, numparse_u64, "--seed")
TABLE_TEST(test_double_table, DOUBLE_CASES, double, numparse_double, "--lr")

static void test_missing_value(void **state)
{
    (void)state;
    long long i = 3;
    uint64_t u = 3;
    double d = 3;
    char msg[200];
    assert_false(numparse_int("go nodes", NULL, 0, 10, &i, msg, sizeof msg));
    assert_string_equal(msg, "go nodes: needs a whole number (allowed: 0..10)");
    assert_false(numparse_u64("--seed", NULL, 0, 10, &u, msg, sizeof msg));
    assert_string_equal(msg, "--seed: needs a whole number (allowed: 0..10)");
    assert_false(numparse_double("--lr", NULL, 0.5, 2, &d, msg, sizeof msg));
    assert_string_equal(msg, "--lr: needs a number (allowed: 0.5..2)");
    assert_true(i == 3 && u == 3 && d == 3);
}

/* No message buffer, or a short one: the answer is the same and nothing overflows. */
static void test_message_buffer(void **state)
{
    (void)state;
    long long v = 0;
    assert_false(numparse_int("--x", "abc", 0, 1, &v, NULL, 0));
    assert_true(numparse_int("--x", "1", 0, 1, &v, NULL, 0));
    assert_true(v == 1);
    char msg[8];
    assert_false(numparse_int("--max-score", "abc", 0, 1, &v, msg, sizeof msg));
    assert_string_equal(msg, "--max-s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_table),      cmocka_unit_test(test_u64_table),
        cmocka_unit_test(test_double_table),   cmocka_unit_test(test_missing_value),
        cmocka_unit_test(test_message_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
