#include "tests/support/epd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"

/* Parses one "FEN;D1 n;..." line into e; false with a reason in why. */
static bool parse_line(char *line, EpdEntry *e, const char **why)
{
    char *semi = strchr(line, ';');
    if (semi)
        *semi = '\0';
    size_t len = strlen(line);
    while (len && line[len - 1] == ' ')
        line[--len] = '\0';
    if (!len || len >= EPD_FEN_SIZE) {
        *why = len ? "FEN too long" : "empty FEN";
        return false;
    }
    memcpy(e->fen, line, len + 1);
    e->depths = 0;
    for (char *f = semi ? semi + 1 : NULL; f && *f;) {
        char *next = strchr(f, ';');
        if (next)
            *next++ = '\0';
        unsigned depth;
        uint64_t nodes;
        int used = 0;
        if (sscanf(f, " D%u %" SCNu64 " %n", &depth, &nodes, &used) != 2 || f[used] != '\0') {
            *why = "a count is not of the form 'Dn N'";
            return false;
        }
        if ((int)depth != e->depths + 1 || depth > EPD_MAX_DEPTH) {
            *why = "depths must run 1, 2, 3, ... without gaps (at most 12)";
            return false;
        }
        e->nodes[++e->depths] = nodes;
        f = next;
    }
    if (!e->depths) {
        *why = "no perft counts";
        return false;
    }
    return true;
}

bool epd_load(const char *path, EpdSuite *suite, char *err, size_t errsize)
{
    suite->entries = NULL;
    suite->count = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return error_set(err, errsize, "cannot open %s: %s (tests run from the repository root)",
                         path, strerror(errno));
    char line[1024];
    int lineno = 0;
    size_t cap = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            ok = error_set(err, errsize, "%s:%d: line too long", path, lineno);
            break;
        }
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#')
            continue;
        if (!array_reserve((void **)&suite->entries, &cap, (size_t)suite->count + 1,
                           sizeof *suite->entries, 32)) {
            ok = error_set(err, errsize, "%s: out of memory", path);
            break;
        }
        EpdEntry *e = &suite->entries[suite->count];
        const char *why = NULL;
        if (!parse_line(line, e, &why)) {
            ok = error_set(err, errsize, "%s:%d: %s", path, lineno, why);
            break;
        }
        e->line = lineno;
        suite->count++;
    }
    if (ok && ferror(f))
        ok = error_set(err, errsize, "%s: read error", path);
    if (ok && suite->count == 0)
        ok = error_set(err, errsize, "%s: no positions", path);
    fclose(f);
    if (!ok)
        epd_free(suite);
    return ok;
}

void epd_free(EpdSuite *suite)
{
    free(suite->entries);
    *suite = (EpdSuite){NULL, 0};
}
