#include "contracts/outpath.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

/* The first 8 bytes of every HDF5 file that starts at offset 0, as chuhe's do. */
static const unsigned char HDF5_SIGNATURE[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

bool outpath_is_hdf5(const char *path)
{
    unsigned char head[sizeof HDF5_SIGNATURE];
    /* only a regular file is read: opening /dev/stdout or a pipe to read would wait */
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return n == sizeof head && memcmp(head, HDF5_SIGNATURE, sizeof head) == 0;
}

/* path with its folder resolved ("a/b/../c.txt" -> "/abs/a/c.txt"); false when the
 * folder does not exist. */
static bool resolve(const char *path, char out[PATH_MAX])
{
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (!realpath(dir, real))
        return false;
    return snprintf(out, PATH_MAX, "%s/%s", real, base) < PATH_MAX;
}

bool outpath_same(const char *a, const char *b)
{
    struct stat sa, sb;
    bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea != eb)
        return false;
    char ra[PATH_MAX], rb[PATH_MAX];
    return resolve(a, ra) && resolve(b, rb) && strcmp(ra, rb) == 0;
}

/* Whether the first bytes of path look like text: no NUL, and for a PGN the first
 * non-blank character opens a tag pair or a move list. */
static bool looks_like(const char *path, bool pgn)
{
    unsigned char buf[512];
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return true; /* a terminal or a pipe: nothing to read, lines go to it */
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (memchr(buf, 0, n))
        return false;
    if (!pgn)
        return true;
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')
            continue;
        return buf[i] == '[' || buf[i] == '1';
    }
    return true; /* empty or blank */
}

bool outpath_check(const char *option, const char *path, OutpathMode mode, bool force,
                   const char *const *inputs, int ninputs, char *msg, size_t size)
{
    if (!path || !path[0])
        return error_set(msg, size, "%s: empty path (give a file name)", option);
    char resolved[PATH_MAX];
    if (!resolve(path, resolved))
        return error_set(msg, size, "%s %s: the folder does not exist (create it first)", option,
                         path);
    struct stat st, lst;
    bool exists = stat(path, &st) == 0;
    if (!exists && lstat(path, &lst) == 0)
        return error_set(msg, size, "%s %s: a link to a file that does not exist", option, path);
    if (exists && S_ISDIR(st.st_mode))
        return error_set(msg, size, "%s %s: is a folder (give a file name)", option, path);
    for (int i = 0; i < ninputs; i++) {
        if (inputs[i] && inputs[i][0] && outpath_same(path, inputs[i]))
            return error_set(msg, size,
                             "%s %s: is also an input of this command (%s); give another file",
                             option, path, inputs[i]);
    }
    if (exists && outpath_is_hdf5(path))
        return error_set(msg, size,
                         "%s %s: is an HDF5 run file; chuhe never writes over one (give "
                         "another file)",
                         option, path);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", resolved);
    *strrchr(dir, '/') = '\0';
    if (access(exists ? path : (dir[0] ? dir : "/"), W_OK) != 0)
        return error_set(msg, size, "%s %s: %s", option, path,
                         exists ? "the file is not writable" : "the folder is not writable");
    /* a device or a pipe (/dev/null, /dev/stdout, a FIFO) is written as a stream */
    if (exists && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
        return error_set(msg, size, "%s %s: not a file, a device or a pipe", option, path);
    if (!exists || !S_ISREG(st.st_mode))
        return true;
    switch (mode) {
    case OUTPATH_REPLACE:
        if (!force)
            return error_set(msg, size,
                             "%s %s: the file exists (give --force to replace it, or another "
                             "file)",
                             option, path);
        return true;
    case OUTPATH_APPEND_PGN:
        if (!looks_like(path, true))
            return error_set(msg, size,
                             "%s %s: the file exists and is not PGN; games are appended only "
                             "to a PGN file",
                             option, path);
        return true;
    case OUTPATH_APPEND_LOG:
        if (!looks_like(path, false))
            return error_set(msg, size,
                             "%s %s: the file exists and is not text; lines are appended only "
                             "to a text file",
                             option, path);
        return true;
    }
    return true;
}

int outpath_finish_stdout(int status, char *msg, size_t size)
{
    bool ok = fflush(stdout) == 0 && !ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (size)
        msg[0] = '\0';
    if (ok)
        return status;
    error_set(msg, size, "writing the standard output failed: %s", strerror(e));
    return status ? status : 1;
}
