#include "coord_acklog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coord_config.h"
#include "coord_json.h"

struct AckLog {
    FILE *f;
    bool created; /* the file did not exist before coord_acklog_open */
    char path[COORD_PATH_MAX];
};

static const char *const STATUS_NAMES[PROTO_ACK_STATUS_NB] = {
    [PROTO_ACK_STORED] = "stored",
    [PROTO_ACK_DUPLICATE] = "duplicate",
    [PROTO_ACK_REJECTED] = "rejected",
};

/* Writes one line and hands it to the operating system. */
static bool put_line(AckLog *l, const char *line, char *err, size_t size)
{
    if (fputs(line, l->f) == EOF || fputc('\n', l->f) == EOF || fflush(l->f) != 0) {
        snprintf(err, size, "--ack-log %s: %s", l->path, strerror(errno));
        clearerr(l->f);
        return false;
    }
    return true;
}

AckLog *coord_acklog_open(const char *path, char *err, size_t size)
{
    AckLog *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, size, "--ack-log %s: out of memory", path);
        return NULL;
    }
    snprintf(l->path, sizeof l->path, "%s", path);
    l->created = access(path, F_OK) != 0;
    l->f = fopen(path, "a");
    if (!l->f) {
        snprintf(err, size, "--ack-log %s: %s", path, strerror(errno));
        free(l);
        return NULL;
    }
    return l;
}

bool coord_acklog_begin(AckLog *l, uint64_t run_id, uint64_t games, char *err, size_t size)
{
    char line[160];
    snprintf(line, sizeof line,
             "{\"event\":\"open\",\"pid\":%ld,\"run_id\":\"%016" PRIx64 "\",\"games\":%" PRIu64 "}",
             (long)getpid(), run_id, games);
    return put_line(l, line, err, size);
}

void coord_acklog_discard(AckLog **lp)
{
    AckLog *l = *lp;
    if (!l)
        return;
    fclose(l->f);
    if (l->created)
        unlink(l->path);
    free(l);
    *lp = NULL;
}

bool coord_acklog_ack(AckLog *l, const ProtoAck *a, const char *worker, char *err, size_t size)
{
    char line[640];
    size_t n =
        (size_t)snprintf(line, sizeof line,
                         "{\"event\":\"ack\",\"game_id\":%" PRIu64 ",\"pair_id\":%" PRIu64
                         ",\"game_in_pair\":%u,\"status\":\"%s\",\"worker\":",
                         a->game_id, a->pair_id, a->game_in_pair,
                         a->status < PROTO_ACK_STATUS_NB ? STATUS_NAMES[a->status] : "unknown");
    if (!coord_json_string(line, sizeof line - 1, &n, worker) || n + 1 >= sizeof line) {
        snprintf(err, size, "--ack-log %s: worker name too long", l->path);
        return false;
    }
    line[n++] = '}';
    line[n] = '\0';
    return put_line(l, line, err, size);
}

bool coord_acklog_close(AckLog **lp, bool clean, uint64_t games, char *err, size_t size)
{
    AckLog *l = *lp;
    if (!l)
        return true;
    char line[96];
    snprintf(line, sizeof line, "{\"event\":\"close\",\"games\":%" PRIu64 "}", games);
    bool ok = !clean || put_line(l, line, err, size);
    if (fclose(l->f) != 0 && ok) {
        snprintf(err, size, "--ack-log %s: %s", l->path, strerror(errno));
        ok = false;
    }
    free(l);
    *lp = NULL;
    return ok;
}
