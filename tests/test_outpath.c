/* engine/outpath: which output paths a command may write, checked before work starts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "contracts/outpath.h"

typedef struct {
    char dir[64];
    char h5[128], pgn[128], txt[128], bin[128], input[128], fresh[128], link[128];
} Scratch;

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    Scratch *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    snprintf(s->dir, sizeof s->dir, "/tmp/chuhe-outpath-XXXXXX");
    if (!mkdtemp(s->dir))
        return -1;
    snprintf(s->h5, sizeof s->h5, "%s/run.h5", s->dir);
    snprintf(s->pgn, sizeof s->pgn, "%s/games.pgn", s->dir);
    snprintf(s->txt, sizeof s->txt, "%s/log.txt", s->dir);
    snprintf(s->bin, sizeof s->bin, "%s/blob.bin", s->dir);
    snprintf(s->input, sizeof s->input, "%s/in.weights", s->dir);
    snprintf(s->fresh, sizeof s->fresh, "%s/new.txt", s->dir);
    snprintf(s->link, sizeof s->link, "%s/dangling", s->dir);
    static const unsigned char h5sig[] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n', 0, 0};
    write_bytes(s->h5, h5sig, sizeof h5sig);
    write_bytes(s->pgn, "[Event \"x\"]\n", 12);
    write_bytes(s->txt, "{\"a\":1}\n", 8);
    write_bytes(s->bin, "\0\1\2", 3);
    write_bytes(s->input, "# chuhe weights 1\n", 18);
    char target[160];
    snprintf(target, sizeof target, "%s/missing", s->dir);
    if (symlink(target, s->link) != 0)
        return -1;
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    Scratch *s = *state;
    const char *files[] = {s->h5, s->pgn, s->txt, s->bin, s->input, s->fresh, s->link};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        unlink(files[i]);
    rmdir(s->dir);
    free(s);
    return 0;
}

/* check() refuses path, and its message names the option, the path and want. */
static void refused(const char *path, OutpathMode mode, bool force, const char *input,
                    const char *want)
{
    char msg[512] = "";
    const char *inputs[] = {input};
    assert_false(outpath_check("-o", path, mode, force, inputs, 1, msg, sizeof msg));
    if (!strstr(msg, want) || strncmp(msg, "-o", 2) != 0)
        fail_msg("message '%s' lacks '%s'", msg, want);
}

static void allowed(const char *path, OutpathMode mode, bool force, const char *input)
{
    char msg[512] = "";
    const char *inputs[] = {input};
    if (!outpath_check("-o", path, mode, force, inputs, 1, msg, sizeof msg))
        fail_msg("%s refused: %s", path, msg);
}

static void test_run_file_never_written(void **state)
{
    Scratch *s = *state;
    for (int mode = OUTPATH_REPLACE; mode <= OUTPATH_APPEND_LOG; mode++) {
        refused(s->h5, (OutpathMode)mode, false, NULL, "HDF5 run file");
        refused(s->h5, (OutpathMode)mode, true, NULL, "HDF5 run file");
    }
    assert_true(outpath_is_hdf5(s->h5));
    assert_false(outpath_is_hdf5(s->pgn));
}

static void test_input_never_written(void **state)
{
    Scratch *s = *state;
    refused(s->input, OUTPATH_REPLACE, true, s->input, "also an input");
    char other[192];
    snprintf(other, sizeof other, "%s/../%s/in.weights", s->dir, strrchr(s->dir, '/') + 1);
    refused(other, OUTPATH_REPLACE, true, s->input, "also an input");
    /* an output that does not exist yet against an input of the same name */
    refused(s->fresh, OUTPATH_REPLACE, false, s->fresh, "also an input");
}

static void test_existing_needs_force(void **state)
{
    Scratch *s = *state;
    refused(s->txt, OUTPATH_REPLACE, false, NULL, "--force");
    allowed(s->txt, OUTPATH_REPLACE, true, NULL);
    allowed(s->fresh, OUTPATH_REPLACE, false, NULL);
    allowed("/dev/null", OUTPATH_REPLACE, false, NULL);
}

static void test_append_only_to_matching_text(void **state)
{
    Scratch *s = *state;
    allowed(s->pgn, OUTPATH_APPEND_PGN, false, NULL);
    refused(s->txt, OUTPATH_APPEND_PGN, false, NULL, "not PGN");
    refused(s->bin, OUTPATH_APPEND_PGN, false, NULL, "not PGN");
    allowed(s->txt, OUTPATH_APPEND_LOG, false, NULL);
    refused(s->bin, OUTPATH_APPEND_LOG, false, NULL, "not text");
}

static void test_bad_places(void **state)
{
    Scratch *s = *state;
    char missing[192];
    snprintf(missing, sizeof missing, "%s/no/such/folder/x.txt", s->dir);
    refused(missing, OUTPATH_REPLACE, true, NULL, "folder does not exist");
    refused(s->dir, OUTPATH_REPLACE, true, NULL, "is a folder");
    refused(s->link, OUTPATH_REPLACE, true, NULL, "link to a file that does not exist");
    refused("", OUTPATH_REPLACE, true, NULL, "empty path");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_file_never_written),
        cmocka_unit_test(test_input_never_written),
        cmocka_unit_test(test_existing_needs_force),
        cmocka_unit_test(test_append_only_to_matching_text),
        cmocka_unit_test(test_bad_places),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
