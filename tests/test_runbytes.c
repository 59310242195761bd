/*
 * The run file's HDF5 metadata against damaged bytes: every byte of a small real run file
 * that is not inside a chunk of rows (the superblock, object headers, chunk indexes,
 * heaps: what HDF5 itself trusts) is flipped in turn, and the flipped file is opened,
 * read in full, verified and opened for append, each in a child process. A child may
 * refuse the file (with one line naming it) or accept it, but must not crash, hang or
 * print anything of HDF5's own.
 *
 * Runs of zero bytes are thinned (worth_flipping) to keep it within seconds.
 * The file is the seed of the metadata fuzz harness (tests/fuzz/corpus/runmeta), a run
 * of two games written by chuhe-coordinator. Inputs that once crashed are replayed too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <hdf5.h>

#include "contracts/runfile.h"
#include "tests/support/scratch.h"

#define SEED_FILE "tests/fuzz/corpus/runmeta/two-games"

enum { CHILD_SECONDS = 60, SPANS_MAX = 64, BATCH = 512 };

static GameRecord g_rec;

/* The byte ranges of the chunks of rows, [start, end): data, not metadata. */
typedef struct {
    uint64_t start[SPANS_MAX], end[SPANS_MAX];
    int n;
} Spans;

static void chunk_spans(const char *path, Spans *s)
{
    static const char *const TABLES[] = {"/games", "/positions", "/players"};
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    s->n = 0;
    for (size_t t = 0; t < sizeof TABLES / sizeof TABLES[0]; t++) {
        hid_t d = H5Dopen2(f, TABLES[t], H5P_DEFAULT);
        assert_true(d >= 0);
        hid_t sp = H5Dget_space(d);
        hsize_t n = 0;
        assert_true(H5Dget_num_chunks(d, sp, &n) >= 0);
        for (hsize_t i = 0; i < n; i++) {
            hsize_t offset[1];
            unsigned mask = 0;
            haddr_t addr;
            hsize_t size;
            assert_true(H5Dget_chunk_info(d, sp, i, offset, &mask, &addr, &size) >= 0);
            assert_true(s->n < SPANS_MAX);
            s->start[s->n] = addr;
            s->end[s->n++] = addr + size;
        }
        H5Sclose(sp);
        H5Dclose(d);
    }
    H5Fclose(f);
}

static bool in_chunk(const Spans *s, uint64_t at)
{
    for (int i = 0; i < s->n; i++)
        if (at >= s->start[i] && at < s->end[i])
            return true;
    return false;
}

/* Whether to flip the byte at `at`: every byte of metadata, but inside a run of more
 * than 2 * ZERO_EDGE zero bytes (unused B-tree entries and heap space, half the file)
 * only the edges and every ZERO_STRIDE-th byte, to keep the test within seconds. */
/* Under AddressSanitizer every child costs some fifty times more: one byte in SAN_STRIDE
 * keeps the sanitizer build within seconds (the fuzz harness covers the rest there). */
#if defined(__SANITIZE_ADDRESS__)
enum { SAN_STRIDE = 16 };
/* As the metadata fuzz harness runs (tests/fuzz/run): a refused damaged file leaves
 * HDF5's half-open objects behind and the children exit without shutting HDF5 down, so
 * no leak check; a huge allocation fails as malloc does; libhdf5's own over-reads of
 * damaged messages are suppressed (tests/fuzz/runmeta.supp). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=1024:"
           "suppressions=tests/fuzz/runmeta.supp";
}
#else
enum { SAN_STRIDE = 1 };
#endif

static bool worth_flipping(const unsigned char *buf, size_t len, const Spans *s, size_t at)
{
    enum { ZERO_EDGE = 8, ZERO_STRIDE = 64 };
    if (in_chunk(s, at) || at % SAN_STRIDE != 0)
        return false;
    if (buf[at] || at % ZERO_STRIDE == 0)
        return true;
    size_t before = 0, after = 0;
    while (before < ZERO_EDGE && at > before && !buf[at - before - 1])
        before++;
    while (after < ZERO_EDGE && at + after + 1 < len && !buf[at + after + 1])
        after++;
    return before < ZERO_EDGE || after < ZERO_EDGE;
}

/* What a reader does with a file: open, read every game and position, verify; then what
 * a resumed coordinator does: open for append and close. 0, or 3 when an error message
 * does not name the file in one line. */
static int exercise(const char *path)
{
    RunError err = {{0}};
    RunFile *rf = runfile_open_read(path, &err);
    if (rf) {
        for (uint64_t id = 0; id < runfile_game_count(rf); id++)
            runfile_read_game(rf, id, &g_rec, &err);
        uint64_t n = runfile_position_count(rf);
        RunPosition *rows = malloc((size_t)(n ? n : 1) * sizeof *rows);
        if (rows)
            runfile_read_positions(rf, 0, n, rows, &err);
        free(rows);
        runfile_verify(rf, &err);
        runfile_close(&rf, &err);
    } else if (!strstr(err.msg, path) || strchr(err.msg, '\n')) {
        return 3;
    } else if (!strstr(err.msg, "interrupted write")) {
        return 0; /* opening for append reads it the same way before writing anything */
    }
    memset(&err, 0, sizeof err);
    rf = runfile_open_append(path, &err);
    if (!rf && (!strstr(err.msg, path) || strchr(err.msg, '\n')))
        return 3;
    runfile_close(&rf, &err);
    return 0;
}

/* Flips, in a child, each byte of buf[from, to) outside the chunks in turn and
 * exercises the file (with from == to: the file as it is): the child's wait status (a
 * crash, a hang, or the exit status of the first failure). cmocka's signal handlers are
 * not the child's: a crash must end it. */
static int run_child(unsigned char *buf, size_t len, const Spans *spans, size_t from, size_t to,
                     const char *path, const char *errpath)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        static const int SIGNALS[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM};
        for (size_t i = 0; i < sizeof SIGNALS / sizeof SIGNALS[0]; i++)
            signal(SIGNALS[i], SIG_DFL);
        int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
            _exit(4);
        alarm(CHILD_SECONDS);
        if (from == to && (!scratch_spit(path, buf, len) || exercise(path) != 0))
            _exit(5);
        for (size_t at = from; at < to; at++) {
            if (!worth_flipping(buf, len, spans, at))
                continue;
            buf[at] ^= 0xff;
            if (!scratch_spit(path, buf, len))
                _exit(4);
            buf[at] ^= 0xff;
            int st = exercise(path);
            if (st)
                _exit(st);
        }
        /* HDF5 has no atexit handler here (H5dont_atexit); _exit also skips the leak
         * check of a sanitizer build (ASAN_OPTIONS may ask for one): a refused damaged
         * file leaves HDF5's half-open objects behind by design */
        fflush(NULL);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

/* Whether the child ended well and wrote nothing to stderr (HDF5 prints its error stack
 * there when a run-file call lets it). */
static bool child_ok(int status, const char *errpath, char *why, size_t size)
{
    FILE *f = fopen(errpath, "r");
    char line[200] = "";
    if (f && !fgets(line, sizeof line, f))
        line[0] = '\0';
    if (f)
        fclose(f);
    /* AddressSanitizer warns on stderr where it refuses a huge request (malloc fails) */
    if (SAN_STRIDE > 1 && strstr(line, "AddressSanitizer failed to allocate"))
        line[0] = '\0';
    if (WIFSIGNALED(status))
        snprintf(why, size, "killed by signal %d%s", WTERMSIG(status),
                 WTERMSIG(status) == SIGALRM ? " (hung)" : "");
    else if (WEXITSTATUS(status) == 3)
        snprintf(why, size, "an error message does not name the file in one line");
    else if (WEXITSTATUS(status) != 0)
        snprintf(why, size, "exit status %d", WEXITSTATUS(status));
    else if (line[0])
        snprintf(why, size, "printed: %s", line);
    else
        return true;
    return false;
}

static void test_metadata_flips(void **state)
{
    (void)state;
    size_t len;
    unsigned char *buf = scratch_slurp(SEED_FILE, &len);
    if (!buf)
        fail_msg("cannot read %s (run the test from the source tree)", SEED_FILE);
    const char *base = scratch_path("base.h5");
    assert_true(scratch_spit(base, buf, len));
    Spans spans;
    chunk_spans(base, &spans);
    assert_true(spans.n >= 3);

    const char *work = scratch_path("flipped.h5");
    const char *errs = scratch_path("stderr.txt");
    int flipped = 0, failed = 0;
    /* a batch of bytes a child; a batch that fails again a byte a child, to name it */
    for (size_t from = 0; from < len; from += BATCH) {
        size_t to = from + BATCH < len ? from + BATCH : len;
        char why[300];
        for (size_t at = from; at < to; at++)
            flipped += worth_flipping(buf, len, &spans, at);
        if (child_ok(run_child(buf, len, &spans, from, to, work, errs), errs, why, sizeof why))
            continue;
        for (size_t at = from; at < to; at++)
            if (worth_flipping(buf, len, &spans, at) &&
                !child_ok(run_child(buf, len, &spans, at, at + 1, work, errs), errs, why,
                          sizeof why) &&
                failed++ < 10)
                print_error("byte %zu flipped: %s\n", at, why);
    }
    print_message("%d metadata bytes flipped, %d failures\n", flipped, failed);
    assert_true(flipped > 3000 / SAN_STRIDE);
    assert_int_equal(failed, 0);
    free(buf);
}

/* The inputs that once crashed the metadata fuzz harness, each in a child. */
static void test_regression_inputs(void **state)
{
    (void)state;
    static const char *const INPUTS[] = {"layout-chunk-dimension-zero",  "layout-no-dimensions",
                                         "attribute-sizes-past-message", "object-header-8gb-malloc",
                                         "huge-metadata-size",           "root-attribute-overread"};
    const char *work = scratch_path("input.h5");
    const char *errs = scratch_path("stderr.txt");
    Spans none = {.n = 0};
    for (size_t i = 0; i < sizeof INPUTS / sizeof INPUTS[0]; i++) {
        char path[256], why[300];
        snprintf(path, sizeof path, "tests/fuzz/regress/runmeta/%s", INPUTS[i]);
        size_t len;
        unsigned char *buf = scratch_slurp(path, &len);
        if (!buf)
            fail_msg("cannot read %s (run the test from the source tree)", path);
        if (!child_ok(run_child(buf, len, &none, 0, 0, work, errs), errs, why, sizeof why))
            fail_msg("%s: %s", path, why);
        free(buf);
    }
}

/* With a file name: exercises that file in this process (to debug a failure). */
int main(int argc, char **argv)
{
    /* Before any HDF5 call: the parent reads the chunk layout and the children it forks
     * inherit the library, which must not shut down at exit (as in every chuhe program). */
    H5dont_atexit();
    position_init();
    if (argc == 2)
        return exercise(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metadata_flips),
        cmocka_unit_test(test_regression_inputs),
    };
    if (scratch_create("runbytes") < 0)
        return 1;
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    scratch_remove();
    return rc;
}
