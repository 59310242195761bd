/*
 * Crash safety. HDF5 1.10 has no atomic commit: a kill inside H5Fflush can leave the
 * superblock's end of allocation (EOA) past the file's end ("truncated file") or, when
 * the space of a rewritten chunk is handed out again, old metadata pointing at new bytes
 * (a checksum error that takes a whole chunk of stored games with it). Killed at random
 * moments of back-to-back flushes, 28% of the files were lost. The measures:
 *   - the file space strategy NONE (runfile_create): freed space is never reused by a
 *     free-space manager;
 *   - before writing, the EOA is moved a step past the last allocation, so that a chunk
 *     freed at the end of the file cannot shrink the EOA and be reallocated in place;
 *   - the file is extended far enough that no EOA written during the batch can lie past
 *     its end, and after H5Fflush it is cut back to its EOA and fsync'ed;
 *   - HDF5 writes the superblock last, so a kill can still leave chunk-index nodes
 *     pointing past the stored EOA ("addr overflow") at data written before them: the
 *     bytes left past the EOA show it, and opening for append (runload.c) moves the EOA
 *     over them with runfence_recover_eoa.
 * With these, 4000 kills lost no file and no flushed game (one file had to be opened for
 * append before it could be read). The price: a rewritten chunk's old copy stays in the
 * file as dead space; flush in batches (see runfile_flush), or compact with h5repack.
 *
 * A full disk. The extension is allocated (posix_fallocate), not left sparse, and
 * before HDF5's state is touched: a full file system, a quota or a file size limit
 * (RLIMIT_FSIZE) then fails the batch before anything is written, the file stays as the
 * last flush left it and the rows stay buffered for the next try. On a file system that
 * cannot allocate ahead (glibc then writes zeros; a copy-on-write one may still fail
 * later), a write can fail inside the batch: the file is then broken (runfile_broken).
 */
#include "runfence.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "runcols.h"

/* The EOA step that fences a batch from the chunks freed by the one before. */
enum { FENCE_BYTES = 8 };

static bool file_descriptor(hid_t file, int *fd, const char *path, RunError *err)
{
    void *handle = NULL;
    if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || !handle)
        return runcols_hdf5_error(err, path, "cannot get the file descriptor");
    *fd = *(int *)handle;
    return true;
}

bool runfence_begin(hid_t file, uint64_t bytes, bool *untouched, const char *path, RunError *err)
{
    haddr_t eoa = 0;
    struct stat st;
    int fd = -1;
    bool ignored;
    if (!untouched)
        untouched = &ignored;
    *untouched = true;
    if (!file_descriptor(file, &fd, path, err))
        return false;
    if (H5Fget_eoa(file, &eoa) < 0)
        return runcols_hdf5_error(err, path, "cannot read the end of allocation");
    /* Compressed rows take at most their raw size; rewritten last chunks and metadata
     * come on top. */
    uint64_t margin = 2 * bytes + (1u << 20);
    for (int t = 0; t < RUNCOLS_NB; t++)
        margin += 2 * RUNCOLS_TABLES[t].chunk * RUNCOLS_TABLES[t].mem_size;
    uint64_t want = eoa + FENCE_BYTES + margin;
    if (fstat(fd, &st) < 0)
        return ERROR_SET(err, "%s: fstat: %s", path, strerror(errno));
    if ((uint64_t)st.st_size < want) {
        int e = posix_fallocate(fd, st.st_size, (off_t)(want - (uint64_t)st.st_size));
        if (e) {
            /* a partial allocation is given back: the file stays as the last flush left it */
            if (ftruncate(fd, st.st_size) < 0) {
                /* bytes past the EOA are trimmed by the next flush or dropped at opening */
            }
            return ERROR_SET(err, "%s: cannot reserve %.1f MB for the next %.1f MB of games: %s",
                             path, (double)(want - (uint64_t)st.st_size) / 1e6, (double)bytes / 1e6,
                             strerror(e));
        }
    }
    *untouched = false;
    if (H5Fincrement_filesize(file, FENCE_BYTES) < 0)
        return runcols_hdf5_error(err, path, "cannot move the end of allocation");
    return true;
}

bool runfence_end(hid_t file, const char *path, RunError *err)
{
    haddr_t eoa = 0;
    int fd = -1;
    if (!file_descriptor(file, &fd, path, err))
        return false;
    if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
        return runcols_hdf5_error(err, path, "cannot flush");
    if (H5Fget_eoa(file, &eoa) < 0)
        return runcols_hdf5_error(err, path, "cannot read the end of allocation");
    if (ftruncate(fd, (off_t)eoa) < 0)
        return ERROR_SET(err, "%s: cannot trim the file: %s", path, strerror(errno));
    if (fsync(fd) < 0)
        return ERROR_SET(err, "%s: fsync: %s", path, strerror(errno));
    return true;
}

bool runfence_recover_eoa(const char *path, RunError *err)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0)
        return runcols_hdf5_error(err, path, "cannot open for writing");
    bool ok =
        H5Fincrement_filesize(f, 0) >= 0 || runcols_hdf5_error(err, path, "cannot move the EOA");
    if (H5Fclose(f) < 0 && ok)
        ok = runcols_hdf5_error(err, path, "cannot close");
    return ok;
}
