#include "coord_pgnout.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coord_log.h"
#include "error.h"
#include "coord_export.h"

struct CoordPgnOut {
    int fd;
    char path[COORD_PATH_MAX];
    uint64_t games;  /* this run's games in the file */
    bool ends_blank; /* the file is empty or ends with a blank line */
    bool failing;    /* the last write failed (logged) */
};

/* Whether line is the Event tag of this run. */
static bool our_event(const char *line, const char *event)
{
    size_t n = strlen(event);
    return !strncmp(line, "[Event \"", 8) && !strncmp(line + 8, event, n) &&
           !strcmp(line + 8 + n, "\"]\n");
}

/* Whether the last line that is not blank ends a game (its result, as pgn.h writes it). */
static bool ends_game(const char *line)
{
    static const char *const results[] = {"1-0", "0-1", "1/2-1/2", "*"};
    size_t n = strlen(line);
    for (size_t k = 0; k < sizeof results / sizeof results[0]; k++) {
        size_t r = strlen(results[k]);
        if (n >= r && !strcmp(line + n - r, results[k]) && (n == r || line[n - r - 1] == ' '))
            return true;
    }
    return false;
}

/* Counts the run's games in the open file; a last game of the run that does not end
 * with its result and a blank line is cut off. */
static bool scan(CoordPgnOut *p, const char *event, CoordError *err)
{
    FILE *f = fopen(p->path, "r");
    if (!f)
        return ERROR_SET(err, "-pgnout %s: %s", p->path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    off_t at = 0, last_ours = -1, last_event = -1;
    char prev[2] = "\n\n"; /* the last two characters read */
    char tail[16] = "";    /* the end of the last line that is not blank */
    while ((n = getline(&line, &cap, f)) > 0) {
        if (!strncmp(line, "[Event ", 7)) {
            last_event = at;
            if (our_event(line, event)) {
                last_ours = at;
                p->games++;
            }
        }
        at += n;
        prev[0] = n > 1 ? line[n - 2] : prev[1];
        prev[1] = line[n - 1];
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        if (n > 0)
            snprintf(tail, sizeof tail, "%s", line + (n >= (ssize_t)sizeof tail ? n - 15 : 0));
    }
    bool read_ok = !ferror(f);
    free(line);
    fclose(f);
    if (!read_ok)
        return ERROR_SET(err, "-pgnout %s: read error", p->path);
    p->ends_blank = at == 0 || (prev[0] == '\n' && prev[1] == '\n');
    if ((!p->ends_blank || !ends_game(tail)) && last_ours >= 0 && last_ours == last_event) {
        if (ftruncate(p->fd, last_ours) != 0)
            return ERROR_SET(err, "-pgnout %s: cutting off an incomplete game: %s", p->path,
                             strerror(errno));
        p->games--;
        p->ends_blank = true;
        coord_log("-pgnout %s: an incomplete last game (a write cut short) was cut off", p->path);
    }
    return true;
}

CoordPgnOut *coord_pgnout_open(const char *path, RunFile *rf, CoordError *err)
{
    CoordPgnOut *p = calloc(1, sizeof *p);
    if (!p)
        COORD_FATAL("out of memory");
    snprintf(p->path, sizeof p->path, "%s", path);
    p->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    char event[64];
    coord_export_pgn_event(rf, event, sizeof event);
    if (p->fd < 0) {
        ERROR_SET(err, "-pgnout %s: %s", path, strerror(errno));
    } else if (scan(p, event, err)) {
        uint64_t stored = runfile_flushed_game_count(rf);
        if (p->games > stored)
            coord_log("-pgnout %s: holds %" PRIu64 " games of this run, the run file %" PRIu64
                      "; appending from game %" PRIu64,
                      path, p->games, stored, p->games);
        else if (p->games < stored)
            coord_log("-pgnout %s: holds %" PRIu64 " of the run's %" PRIu64
                      " games; appending the other %" PRIu64,
                      path, p->games, stored, stored - p->games);
        return p;
    }
    coord_pgnout_close(&p);
    return NULL;
}

/* Writes all of text, or nothing: a short write is cut off again. */
static bool write_all(CoordPgnOut *p, const char *text, size_t len, char *why, size_t size)
{
    struct stat st;
    if (fstat(p->fd, &st) != 0)
        return error_set(why, size, "%s", strerror(errno));
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(p->fd, text + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            error_set(why, size, "%s", w < 0 ? strerror(errno) : "nothing written");
            if (ftruncate(p->fd, st.st_size) != 0) {
                /* the next scan of a restart cuts off the incomplete game */
            }
            return false;
        }
        off += (size_t)w;
    }
    if (fsync(p->fd) != 0 && errno != EINVAL && errno != EROFS)
        return error_set(why, size, "fsync: %s", strerror(errno));
    return true;
}

bool coord_pgnout_sync(CoordPgnOut *p, RunFile *rf)
{
    uint64_t stored = runfile_flushed_game_count(rf);
    if (p->games >= stored)
        return true;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        COORD_FATAL("out of memory");
    ExportStats st;
    RunError err;
    err.msg[0] = '\0';
    bool ok = (p->ends_blank || fputc('\n', mem) != EOF) &&
              coord_export_pgn(rf, p->games, stored - p->games, true, mem, &st, &err);
    if (fclose(mem) != 0)
        ok = false;
    char why[sizeof err.msg];
    snprintf(why, sizeof why, "%s", err.msg[0] ? err.msg : "out of memory");
    ok = ok && write_all(p, text, len, why, sizeof why);
    free(text);
    if (ok) {
        p->games += st.games;
        p->ends_blank = true;
        if (p->failing)
            coord_log("-pgnout %s: written again, %" PRIu64 " games", p->path, p->games);
        p->failing = false;
    } else if (!p->failing) {
        coord_log("-pgnout %s: cannot append games: %s (tried again after each flush)", p->path,
                  why);
        p->failing = true;
    }
    return ok;
}

uint64_t coord_pgnout_games(const CoordPgnOut *p)
{
    return p->games;
}

void coord_pgnout_close(CoordPgnOut **p)
{
    if (!*p)
        return;
    if ((*p)->fd >= 0)
        close((*p)->fd);
    free(*p);
    *p = NULL;
}
