/*
 * Fuzz harness for the run-file reader (contracts/runload.c, runread.c, runcols.c) over
 * the raw bytes of real run files: HDF5's own metadata (superblock, object headers with
 * the row types, layouts and filters, chunk indexes, heaps) as well as the rows.
 *
 * The input is a whole file. The corpus (tests/fuzz/corpus/runmeta) holds small run
 * files written by chuhe-coordinator, so libFuzzer's byte flips, inserts and
 * cross-overs land in real metadata. The input is written to a temporary file, which
 * the reader must refuse with one line naming it, or accept and then read every game
 * and position of and verify; then, as a resumed coordinator does, the file is opened
 * for append (when it was accepted, or refused for an interrupted write that appending
 * recovers) and closed. libhdf5 crashes on some damaged metadata: the run file checks
 * types, layouts, filters and sizes before its first read, and this harness holds it
 * to that. tests/test_runbytes.c flips every metadata byte of the seed file in turn.
 *
 * All inputs of a process share one libhdf5, which keeps state from the damaged files
 * opened before (a chuhe program opens one run file per process); tests/fuzz/run runs
 * this harness in fork mode and an input that crashed there counts only if it crashes
 * again alone, in a fresh process.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "contracts/runfile.h"
#include "tests/support/runcheck.h"

static char g_dir[256], g_work[300];
static GameRecord g_read;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz-runmeta: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

static void cleanup(void)
{
    unlink(g_work);
    rmdir(g_dir);
}

/* libhdf5 leaks memory on some of its error paths over damaged metadata (an object
 * header or B-tree node read half-way); those blocks are allocated inside libhdf5 and no
 * longer reachable from anything of the run file's. The run file's own leaks still show. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libhdf5_serial.so\n";
}

/* A damaged size in the metadata makes libhdf5 ask for gigabytes (8 GB for an object
 * header read by H5Aexists); malloc says no, and the run file refuses the file. Under
 * AddressSanitizer too, instead of stopping: a block over 1 GB is refused before
 * libFuzzer's malloc limit (the -rss_limit_mb, 2 GB) would report it as out of memory. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1:max_allocation_size_mb=1024";
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    position_init();
    H5set_free_list_limits(-1, -1, -1, -1, -1, -1);
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/chuhe-fuzz-runmeta-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir))
        die("cannot make a temporary directory", g_dir);
    snprintf(g_work, sizeof g_work, "%s/work.h5", g_dir);
    atexit(cleanup);
    return 0;
}

/* A refusal is one line that names the file. */
static void expect_message(const RunError *err, const char *what)
{
    if (!runcheck_message(err, g_work))
        die(what, "the error message is not one line naming the file");
}

/* Reads every game and position of an accepted file and verifies it. */
static void read_all(RunFile *rf)
{
    bool verified;
    const char *bad = runcheck_read_all(rf, g_work, &g_read, &verified);
    if (bad)
        die(bad, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = open(g_work, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd) < 0)
        die("cannot write the input file", g_work);
    RunError err = {{0}};
    RunFile *rf = runfile_open_read(g_work, &err);
    if (rf) {
        read_all(rf);
        if (!runfile_close(&rf, &err))
            die("closing a file opened for reading failed", err.msg);
    } else {
        expect_message(&err, "open_read refused");
        if (!strstr(err.msg, "interrupted write"))
            return 0; /* opening for append reads the file the same way first */
    }
    memset(&err, 0, sizeof err);
    rf = runfile_open_append(g_work, &err);
    if (!rf) {
        expect_message(&err, "open_append refused");
        return 0;
    }
    read_all(rf);
    runfile_close(&rf, &err);
    return 0;
}
