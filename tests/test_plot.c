/*
 * The one gnuplot driver (contracts/plot.h), against stand-in gnuplot programs put first
 * on PATH: the script arrives on standard input after the terminal and the quoted
 * output; gnuplot's own error comes back as one line; a gnuplot that hangs is stopped
 * at the time limit; one that reads nothing does not end the caller by SIGPIPE; a
 * missing gnuplot and a path with a control character are refused in one line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/stat.h>

#include "contracts/plot.h"
#include "tests/support/scratch.h"
#include "timeman.h"

static char g_path[8192], g_err[600];

static int setup(void **state)
{
    (void)state;
    const char *path = getenv("PATH");
    snprintf(g_path, sizeof g_path, "%s", path ? path : "");
    return scratch_create("plot");
}

static int teardown(void **state)
{
    (void)state;
    setenv("PATH", g_path, 1);
    return scratch_remove();
}

/* A gnuplot on PATH that runs body (sh), found before any other. */
static void fake_gnuplot(const char *body)
{
    char text[1024];
    snprintf(text, sizeof text, "#!/bin/sh\n%s\n", body);
    const char *exe = scratch_path("gnuplot");
    assert_true(scratch_spit(exe, (const unsigned char *)text, strlen(text)));
    assert_int_equal(chmod(exe, 0755), 0);
    char path[sizeof g_path + 256];
    snprintf(path, sizeof path, "%s:%s", scratch_dir(), g_path);
    setenv("PATH", path, 1);
}

static void caller_script(FILE *g, const void *ctx)
{
    fprintf(g, "plot %s\n", (const char *)ctx);
}

/* size bytes of script: lines of 'x' */
static void large_script(FILE *g, const void *ctx)
{
    size_t size = *(const size_t *)ctx;
    for (size_t n = 0; n < size; n += 64)
        fprintf(g, "%.63s\n", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
}

static void test_script_on_stdin(void **state)
{
    (void)state;
    char body[512];
    snprintf(body, sizeof body, "cat > '%s'", scratch_path("got.gp"));
    fake_gnuplot(body);
    PlotPicture p = {.png = "out dir/it's.png", .width = 900, .height = 520, .font = ",10"};
    if (!plot_draw(&p, caller_script, "sin(x)", g_err, sizeof g_err))
        fail_msg("%s", g_err);
    size_t len;
    char *got = (char *)scratch_slurp(scratch_path("got.gp"), &len);
    assert_non_null(got);
    assert_string_equal(got, "set terminal png size 900,520 font ',10'\n"
                             "set output 'out dir/it''s.png'\n"
                             "plot sin(x)\n");
    free(got);
}

static void test_error_in_one_line(void **state)
{
    (void)state;
    fake_gnuplot("cat >/dev/null\n"
                 "printf '\\nplot foo\\n     ^\\n\"-\" line 3: undefined variable: foo\\n\\n' >&2\n"
                 "exit 1");
    PlotPicture p = {.png = "a.png", .width = 10, .height = 10};
    assert_false(plot_draw(&p, caller_script, "foo", g_err, sizeof g_err));
    assert_string_equal(g_err,
                        "gnuplot failed to draw a.png: \"-\" line 3: undefined variable: foo");

    fake_gnuplot("exit 3");
    assert_false(plot_draw(&p, caller_script, "x", g_err, sizeof g_err));
    assert_string_equal(g_err, "gnuplot failed to draw a.png: exit status 3");
}

static void test_time_limit(void **state)
{
    (void)state;
    fake_gnuplot("exec sleep 30");
    PlotPicture p = {.png = "slow.png", .width = 10, .height = 10, .seconds = 1};
    int64_t t0 = time_now_ms();
    assert_false(plot_draw(&p, caller_script, "x", g_err, sizeof g_err));
    assert_true(time_now_ms() - t0 < 10000);
    assert_string_equal(g_err, "gnuplot did not finish slow.png within 1 s: stopped");
}

static void test_reads_nothing(void **state)
{
    (void)state;
    fake_gnuplot("exit 1");
    PlotPicture p = {.png = "b.png", .width = 10, .height = 10};
    size_t size = 4u << 20; /* far more than a pipe or socket holds */
    assert_false(plot_draw(&p, large_script, &size, g_err, sizeof g_err));
    assert_string_equal(g_err, "gnuplot failed to draw b.png: exit status 1");
}

static void test_refusals(void **state)
{
    (void)state;
    setenv("PATH", scratch_path("none"), 1);
    assert_false(plot_available());
    PlotPicture p = {.png = "c.png", .width = 10, .height = 10};
    assert_false(plot_draw(&p, caller_script, "x", g_err, sizeof g_err));
    assert_string_equal(g_err,
                        "gnuplot is not installed (scripts/install-deps installs gnuplot-nox)");
    fake_gnuplot("exit 0");
    assert_true(plot_available());
    p.png = "c\n!touch x.png";
    assert_false(plot_draw(&p, caller_script, "x", g_err, sizeof g_err));
    assert_string_equal(
        g_err, "c\\x0a!touch x.png: a path with a control character is not given to gnuplot");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_script_on_stdin), cmocka_unit_test(test_error_in_one_line),
        cmocka_unit_test(test_time_limit),      cmocka_unit_test(test_reads_nothing),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
