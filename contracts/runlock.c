/*
 * The run file's own lock: the lock file beside it, its fcntl lock, and the judgement of
 * a lock file left behind. runlock.h says why and how.
 */
#define _GNU_SOURCE /* F_OFD_SETLK, program_invocation_short_name */
#include "runlock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "numparse.h"

enum {
    HOST_MAX = 256,
    FIELD_MAX = 64,
    LOCK_TEXT_MAX = 2048, /* bytes of a lock file read */
    EMPTY_WAIT_MS = 1000, /* how long an empty lock file may be one being written */
};

struct RunLock {
    int fd;
    char *path; /* RUN.h5.lock */
};

/* Who a lock file names; empty fields when it does not say. */
typedef struct {
    char host[HOST_MAX];
    char program[FIELD_MAX];
    char since[FIELD_MAX];
    long long pid;
    uint64_t start; /* 0: unknown */
} Holder;

typedef enum { FLOCK_TAKEN, FLOCK_HELD, FLOCK_NONE } FlockResult;

/* fcntl command ofd (an open-file-description lock, Linux 3.15 on) on the whole file as
 * a write lock, or the plain one on older kernels; fl gets the answer. */
static int whole_file(int fd, int ofd, int plain, struct flock *fl)
{
    for (int cmd = ofd;; cmd = plain) {
        memset(fl, 0, sizeof *fl);
        fl->l_type = F_WRLCK;
        fl->l_whence = SEEK_SET;
        int r = fcntl(fd, cmd, fl);
        if (r == 0 || errno != EINVAL || cmd == plain)
            return r;
    }
}

/* Takes the lock: taken, held by another, or not available on this file system. */
static FlockResult flock_take(int fd)
{
    struct flock fl;
    if (whole_file(fd, F_OFD_SETLK, F_SETLK, &fl) == 0)
        return FLOCK_TAKEN;
    return errno == EAGAIN || errno == EACCES ? FLOCK_HELD : FLOCK_NONE;
}

/* Whether another open file description holds an fcntl lock on the file. */
static bool flock_held(int fd)
{
    struct flock fl;
    return whole_file(fd, F_OFD_GETLK, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
}

/* The start time of process pid in clock ticks since boot (field 22 of /proc/PID/stat);
 * 0 when it cannot be read. */
static unsigned long long proc_start(long long pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%lld/stat", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* the command name, field 2, is in parentheses and may hold anything */
    const char *p = strrchr(buf, ')');
    for (int field = 2; p && *p && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (!p)
        return 0;
    char field[32];
    size_t len = strcspn(p + 1, " \n");
    snprintf(field, sizeof field, "%.*s", (int)(len < sizeof field ? len : 0), p + 1);
    uint64_t start = 0;
    return numparse_u64("start", field, 0, UINT64_MAX, &start, NULL, 0) ? start : 0;
}

static void this_host(char host[HOST_MAX])
{
    if (gethostname(host, HOST_MAX) != 0)
        snprintf(host, HOST_MAX, "?");
    host[HOST_MAX - 1] = '\0';
}

/* Whether the holder, a process of this host, still runs: its pid is in use, by the
 * same process when the lock file has its start time and /proc tells it. */
static bool alive(const Holder *h)
{
    if (h->pid <= 0 || (long long)(pid_t)h->pid != h->pid)
        return false;
    if (kill((pid_t)h->pid, 0) != 0 && errno == ESRCH)
        return false;
    unsigned long long start = h->start ? proc_start(h->pid) : 0;
    return !start || start == h->start;
}

/* Copies a value of a lock file as printable ASCII: it is data, shown in messages. */
static void copy_value(char *dst, size_t size, const char *src, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < size; i++)
        dst[k++] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
    dst[k] = '\0';
}

/* Reads the holder from the lock file; false when it names no process (empty, or not
 * a lock file of chuhe's). */
static bool read_holder(int fd, Holder *h)
{
    memset(h, 0, sizeof *h);
    char text[LOCK_TEXT_MAX + 1];
    ssize_t n = pread(fd, text, LOCK_TEXT_MAX, 0);
    if (n <= 0)
        return false;
    text[n] = '\0';
    for (char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        char *eq = memchr(line, '=', len);
        if (eq) {
            size_t klen = (size_t)(eq - line), vlen = len - klen - 1;
            char number[32];
            copy_value(number, sizeof number, eq + 1, vlen);
            if (klen == 4 && !memcmp(line, "host", 4))
                copy_value(h->host, sizeof h->host, eq + 1, vlen);
            else if (klen == 7 && !memcmp(line, "program", 7))
                copy_value(h->program, sizeof h->program, eq + 1, vlen);
            else if (klen == 5 && !memcmp(line, "since", 5))
                copy_value(h->since, sizeof h->since, eq + 1, vlen);
            else if (klen == 3 && !memcmp(line, "pid", 3))
                numparse_int("pid", number, 1, INT32_MAX, &h->pid, NULL, 0);
            else if (klen == 5 && !memcmp(line, "start", 5))
                numparse_u64("start", number, 0, UINT64_MAX, &h->start, NULL, 0);
        }
        line += len + (line[len] == '\n');
    }
    return h->pid > 0 && h->host[0];
}

static void describe(const Holder *h, char *buf, size_t size)
{
    snprintf(buf, size, "%.64s (pid %lld on host %.100s, since %.32s)",
             h->program[0] ? h->program : "?", h->pid, h->host, h->since[0] ? h->since : "?");
}

/* This process as a lock file's text. */
static bool write_holder(int fd)
{
    char host[HOST_MAX], since[32], text[LOCK_TEXT_MAX];
    this_host(host);
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm) || !strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(since, sizeof since, "?");
    int n = snprintf(text, sizeof text,
                     "chuhe run file lock: remove it only when no chuhe program writes the run "
                     "file\nhost=%s\npid=%lld\nprogram=%s\nsince=%s\nstart=%llu\n",
                     host, (long long)getpid(), program_invocation_short_name, since,
                     proc_start(getpid()));
    if (n < 0 || (size_t)n >= sizeof text)
        return false;
    return ftruncate(fd, 0) == 0 && pwrite(fd, text, (size_t)n, 0) == n && fsync(fd) == 0;
}

/* Whether fd is still the file at path (not removed or replaced since it was opened). */
static bool still_there(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* Reads the holder of an existing lock file that no fcntl lock guards, giving one being
 * written a moment to get its text. */
static bool read_holder_settled(int fd, Holder *h)
{
    for (int waited = 0; waited < EMPTY_WAIT_MS; waited += 50) {
        if (read_holder(fd, h))
            return true;
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
    }
    return read_holder(fd, h);
}

static RunLock *made(int fd, const char *path, RunError *err)
{
    RunLock *lock = malloc(sizeof *lock);
    if (!lock || !(lock->path = strdup(path))) {
        free(lock);
        close(fd);
        ERROR_SET(err, "%s: out of memory", path);
        return NULL;
    }
    lock->fd = fd;
    return lock;
}

/* The judgement of an existing lock file whose fcntl lock this process could take, or
 * that has none: take it over (true) when it is stale, else refuse (false, err set). */
static bool may_take_over(int fd, const char *run_path, const char *path, char *note, size_t size,
                          RunError *err)
{
    Holder h;
    char who[RUNLOCK_TEXT_MAX], host[HOST_MAX];
    if (!read_holder_settled(fd, &h))
        return ERROR_SET(err,
                         "%s: its lock file %s names no process: if no chuhe program writes "
                         "the run file, remove the lock file and start again",
                         run_path, path);
    describe(&h, who, sizeof who);
    this_host(host);
    if (strcmp(h.host, host))
        return ERROR_SET(err,
                         "%s: locked by %s, another host, whose process this host cannot see: "
                         "if no chuhe program writes the run file there any more, remove %s and "
                         "start again",
                         run_path, who, path);
    if (alive(&h))
        return ERROR_SET(err,
                         "%s: in use by %s: one program writes a run file at a time (lock "
                         "file %s)",
                         run_path, who, path);
    snprintf(note, size, "%s: took over the lock of %s, which no longer runs", path, who);
    return true;
}

RunLock *runlock_take(const char *run_path, char *note, size_t size, int *sys_errno, RunError *err)
{
    *sys_errno = 0;
    char path[4096];
    if (snprintf(path, sizeof path, "%s.lock", run_path) >= (int)sizeof path) {
        ERROR_SET(err, "%s: the path is too long", run_path);
        return NULL;
    }
    if (size)
        note[0] = '\0';
    /* a lock file that vanishes or is replaced between the steps: look again */
    for (int attempt = 0; attempt < 8; attempt++) {
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            if (flock_take(fd) == FLOCK_HELD || !write_holder(fd)) {
                int e = errno;
                unlink(path);
                close(fd);
                if (e == EAGAIN || e == EACCES)
                    continue;
                *sys_errno = e;
                ERROR_SET(err, "%s: cannot write its lock file %s: %s", run_path, path,
                          strerror(e));
                return NULL;
            }
            return made(fd, path, err);
        }
        if (errno != EEXIST) {
            *sys_errno = errno;
            ERROR_SET(err,
                      "%s: cannot create its lock file %s: %s (the folder of a run file "
                      "must take new files)",
                      run_path, path, strerror(errno));
            return NULL;
        }
        if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0) {
            if (errno == ENOENT)
                continue;
            *sys_errno = errno;
            ERROR_SET(err, "%s: cannot open its lock file %s: %s", run_path, path, strerror(errno));
            return NULL;
        }
        FlockResult got = flock_take(fd);
        if (got == FLOCK_HELD) {
            Holder h;
            char who[RUNLOCK_TEXT_MAX] = "another process";
            if (read_holder_settled(fd, &h))
                describe(&h, who, sizeof who);
            close(fd);
            ERROR_SET(err,
                      "%s: in use by %s: one program writes a run file at a time (lock file %s)",
                      run_path, who, path);
            return NULL;
        }
        if (!still_there(fd, path)) {
            close(fd);
            continue;
        }
        if (!may_take_over(fd, run_path, path, note, size, err)) {
            close(fd);
            return NULL;
        }
        /* without fcntl locks, a last look that the stale file is still the one judged */
        if (!still_there(fd, path) || !write_holder(fd)) {
            close(fd);
            if (size)
                note[0] = '\0';
            continue;
        }
        return made(fd, path, err);
    }
    ERROR_SET(err, "%s: its lock file %s keeps changing: another program is taking it", run_path,
              path);
    return NULL;
}

void runlock_release(RunLock **lockp)
{
    RunLock *lock = lockp ? *lockp : NULL;
    if (!lock)
        return;
    /* removed while still held, so that nobody takes the file being removed */
    if (still_there(lock->fd, lock->path))
        unlink(lock->path);
    close(lock->fd);
    free(lock->path);
    free(lock);
    *lockp = NULL;
}

bool runlock_holder(const char *run_path, char *holder, size_t size)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s.lock", run_path) >= (int)sizeof path)
        return false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    Holder h;
    bool named = read_holder(fd, &h);
    char host[HOST_MAX];
    this_host(host);
    bool live = flock_held(fd) || (named && !strcmp(h.host, host) && alive(&h));
    close(fd);
    if (live && named)
        describe(&h, holder, size);
    else if (live)
        snprintf(holder, size, "another process (lock file %s)", path);
    return live;
}
