/*
 * The lock of a run file: one writer at a time, whatever the file system.
 *
 * HDF5 locks the files it opens, but clusters often turn its lock off
 * (HDF5_USE_FILE_LOCKING=FALSE, which Lustre and some NFS mounts need), and then two
 * coordinators would both resume one file and both acknowledge games that only one of
 * them stored. So every program that writes a run file first takes chuhe's own lock,
 * RUN.h5.lock beside RUN.h5, and holds it until it closes the file:
 *
 *   - the lock file is created with O_CREAT | O_EXCL and holds who took it, one
 *     key=value a line (host, pid, program, since: ISO 8601 UTC, start: the process's
 *     start time in clock ticks since boot, from /proc, so that a reused pid is not
 *     taken for the holder);
 *   - an open-file-description lock (fcntl F_OFD_SETLK, or F_SETLK on older kernels)
 *     on it, where the file system has locks: a live holder is then seen from any
 *     host that shares them, and a process that dies loses it at once;
 *   - an existing lock file whose fcntl lock is free is judged by its text: written on
 *     this host by a process that no longer runs, it is stale and taken over (with a
 *     note to log); written on another host, chuhe cannot tell whether its writer still
 *     runs, so it refuses, naming the holder, and says to remove the file by hand once
 *     no chuhe program writes the run file there.
 *
 * Where fcntl locks do not work, two programs that take over the same stale lock file
 * in the same instant could both believe they hold it; a fresh lock file cannot be
 * created twice. Released (the lock file removed) by runlock_release, and so on every
 * way a RunFile is closed.
 */
#ifndef CHUHE_RUNLOCK_H
#define CHUHE_RUNLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "runfile.h"

typedef struct RunLock RunLock;

enum { RUNLOCK_TEXT_MAX = 320 }; /* a holder's description, a takeover note */

/*
 * Takes the lock of the run file at run_path (the file need not exist yet). NULL, with
 * one line in err naming the run file and the holder (program, pid, host, since when)
 * when another process holds it (*sys_errno 0), or the system's reason when the lock
 * file cannot be made or read (*sys_errno that errno). note[size] is "" or, when a
 * stale lock file was taken over, a line to log.
 */
RunLock *runlock_take(const char *run_path, char *note, size_t size, int *sys_errno, RunError *err);

/* Removes the lock file (if it is still this lock's) and frees; *lock becomes NULL.
 * NULL is allowed. */
void runlock_release(RunLock **lock);

/*
 * Whether a live process holds the lock of run_path, as far as can be told here: its
 * fcntl lock is held, or its lock file names a process of this host that still runs.
 * Then holder[size] describes it: "chuhe-coordinator (pid 123 on host node1, since
 * 2024-05-01T12:00:00Z)". A lock file of another host whose fcntl lock is free (stale,
 * or a file system without locks) does not count: a reader cannot tell.
 */
bool runlock_holder(const char *run_path, char *holder, size_t size);

#endif
