/*
 * The run file's own lock (contracts/runlock.h): a second writer is refused naming the
 * first (program, pid, host), and so is a reader; the lock file goes with the writer; a
 * lock file left by a process of this host that no longer runs is taken over with a
 * note; one from another host is refused with the way to remove it; a lock file that
 * names nobody is refused; and a refusal by HDF5's own file lock names no errno but
 * says that another process has the file open.
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
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "contracts/runfile.h"
#include "tests/support/scratch.h"

static int setup(void **state)
{
    (void)state;
    return scratch_create("runlock");
}

static int teardown(void **state)
{
    (void)state;
    return scratch_remove();
}

/* A new, empty run file at the scratch path of name, closed; its path. */
static const char *new_run(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s", scratch_path(name));
    RunError err = {{0}};
    RunFile *rf = runfile_create(path, "{}", "test", &err);
    if (!rf)
        fail_msg("%s", err.msg);
    assert_true(runfile_close(&rf, &err));
    return path;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Writes a lock file beside run naming host and pid. */
static void write_lock(const char *run, const char *host, long long pid)
{
    char path[4200];
    snprintf(path, sizeof path, "%s.lock", run);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "host=%s\npid=%lld\nprogram=old-coordinator\nsince=2020-01-02T03:04:05Z\n", host,
            pid);
    assert_int_equal(fclose(f), 0);
}

/* A pid that no process has: a child that has exited and been waited for. */
static pid_t dead_pid(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    return pid;
}

static void test_second_writer_refused(void **state)
{
    (void)state;
    const char *path = new_run("two.h5");
    char lock[4200], want[128];
    snprintf(lock, sizeof lock, "%s.lock", path);
    RunError err = {{0}};
    RunFile *first = runfile_open_append(path, &err);
    if (!first)
        fail_msg("%s", err.msg);
    assert_true(exists(lock));
    assert_string_equal(runfile_lock_note(first), "");

    snprintf(want, sizeof want, "in use by test_runlock (pid %lld on host ", (long long)getpid());
    assert_null(runfile_open_append(path, &err));
    if (!strstr(err.msg, want) || !strstr(err.msg, "one program writes a run file at a time"))
        fail_msg("second writer: %s", err.msg);
    assert_null(runfile_create(path, "{}", "test", &err));
    if (!strstr(err.msg, want))
        fail_msg("creating over a locked file: %s", err.msg);
    snprintf(want, sizeof want, "being written by test_runlock (pid %lld on host ",
             (long long)getpid());
    assert_null(runfile_open_read(path, &err));
    if (!strstr(err.msg, want))
        fail_msg("reader: %s", err.msg);
    assert_true(exists(lock)); /* the refused ones leave the holder's lock alone */

    assert_true(runfile_close(&first, &err));
    assert_false(exists(lock));
    RunFile *again = runfile_open_append(path, &err);
    if (!again)
        fail_msg("after the first closed: %s", err.msg);
    assert_true(runfile_close(&again, &err));
}

static void test_stale_lock_taken_over(void **state)
{
    (void)state;
    const char *path = new_run("stale.h5");
    char host[256], want[400];
    assert_int_equal(gethostname(host, sizeof host), 0);
    pid_t pid = dead_pid();
    write_lock(path, host, pid);
    RunError err = {{0}};
    RunFile *rf = runfile_open_read(path, &err); /* a dead writer holds readers off no more */
    if (!rf)
        fail_msg("reader: %s", err.msg);
    assert_true(runfile_close(&rf, &err));
    rf = runfile_open_append(path, &err);
    if (!rf)
        fail_msg("%s", err.msg);
    snprintf(want, sizeof want,
             "took over the lock of old-coordinator (pid %lld on host %s, since "
             "2020-01-02T03:04:05Z), which no longer runs",
             (long long)pid, host);
    if (!strstr(runfile_lock_note(rf), want))
        fail_msg("note: '%s'", runfile_lock_note(rf));
    assert_true(runfile_close(&rf, &err));
}

static void test_other_host_refused(void **state)
{
    (void)state;
    const char *path = new_run("remote.h5");
    char lock[4200];
    snprintf(lock, sizeof lock, "%s.lock", path);
    write_lock(path, "node-elsewhere", 4242);
    RunError err = {{0}};
    assert_null(runfile_open_append(path, &err));
    if (!strstr(err.msg, "locked by old-coordinator (pid 4242 on host node-elsewhere, since "
                         "2020-01-02T03:04:05Z), another host") ||
        !strstr(err.msg, "remove") || !strstr(err.msg, lock))
        fail_msg("%s", err.msg);
    assert_true(exists(lock));
    /* a reader cannot tell either, and reads: HDF5's lock still guards it where it works */
    RunFile *rf = runfile_open_read(path, &err);
    if (!rf)
        fail_msg("reader: %s", err.msg);
    assert_true(runfile_close(&rf, &err));
    unlink(lock);
}

static void test_unnamed_lock_refused(void **state)
{
    (void)state;
    const char *path = new_run("empty.h5");
    char lock[4200];
    snprintf(lock, sizeof lock, "%s.lock", path);
    FILE *f = fopen(lock, "w");
    assert_non_null(f);
    assert_int_equal(fclose(f), 0);
    RunError err = {{0}};
    assert_null(runfile_open_append(path, &err));
    if (!strstr(err.msg, "names no process") || !strstr(err.msg, "remove the lock file"))
        fail_msg("%s", err.msg);
    unlink(lock);
}

/* HDF5's own lock, taken as HDF5 takes it (flock) by another process: the refusal says
 * that another process has the file open, not "unable to lock file, errno = 11". */
static void test_hdf5_lock_in_words(void **state)
{
    (void)state;
    const char *path = new_run("hdf5lock.h5");
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        int fd = open(path, O_RDONLY);
        if (fd < 0 || flock(fd, LOCK_EX) != 0)
            _exit(1);
        (void)!write(ready[1], "x", 1);
        pause();
        _exit(0);
    }
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    RunError err = {{0}};
    RunFile *rf = runfile_open_append(path, &err);
    RunError rerr = {{0}};
    RunFile *reader = runfile_open_read(path, &rerr);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    close(ready[0]);
    close(ready[1]);
    assert_null(rf);
    assert_null(reader);
    if (!strstr(err.msg, "another process has the file open") || strstr(err.msg, "errno"))
        fail_msg("writer: %s", err.msg);
    if (!strstr(rerr.msg, "another process is writing the file") || strstr(rerr.msg, "errno"))
        fail_msg("reader: %s", rerr.msg);
    char lock[4200];
    snprintf(lock, sizeof lock, "%s.lock", path);
    assert_false(exists(lock)); /* the refused writer released its own lock */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_writer_refused), cmocka_unit_test(test_stale_lock_taken_over),
        cmocka_unit_test(test_other_host_refused),    cmocka_unit_test(test_unnamed_lock_refused),
        cmocka_unit_test(test_hdf5_lock_in_words),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
