#include "extengine.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "notation.h"
#include "score.h"
#include "timeman.h"

enum {
    EXT_LINE_MAX = 8192,
    EXT_ARGS_MAX = 64,
    EXT_QUIT_MS = 500, /* after "quit", wait this long before SIGKILL */
};

struct ExtEngine {
    ExtEngineConfig cfg;
    pid_t pid; /* 0: not running */
    int to_fd, from_fd;
    char buf[EXT_LINE_MAX];
    size_t len; /* bytes in buf not yet returned as lines */
    uint64_t starts;
    char error[256];
};

static const char *const PROTO_NAMES[EXT_PROTO_NB] = {"uci", "uci1", "ucci"};

bool ext_protocol_parse(const char *name, ExtProtocol *out)
{
    if (!strcmp(name, "uci-ranks-1-10")) {
        *out = EXT_PROTO_UCI1;
        return true;
    }
    for (int p = 0; p < EXT_PROTO_NB; p++)
        if (!strcmp(name, PROTO_NAMES[p])) {
            *out = (ExtProtocol)p;
            return true;
        }
    return false;
}

const char *ext_protocol_name(ExtProtocol p)
{
    return (unsigned)p < EXT_PROTO_NB ? PROTO_NAMES[p] : "unknown";
}

static void set_error(ExtEngine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_error(ExtEngine *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->error, sizeof e->error, fmt, ap);
    va_end(ap);
}

ExtEngine *ext_new(const ExtEngineConfig *cfg)
{
    ExtEngine *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->cfg = *cfg;
    e->to_fd = e->from_fd = -1;
    return e;
}

bool ext_same_config(const ExtEngine *e, const ExtEngineConfig *cfg)
{
    return e->cfg.proto == cfg->proto && !strcmp(e->cfg.command, cfg->command) &&
           !strcmp(e->cfg.dir, cfg->dir) && !strcmp(e->cfg.options, cfg->options);
}

uint64_t ext_starts(const ExtEngine *e)
{
    return e->starts;
}

const char *ext_last_error(const ExtEngine *e)
{
    return e->error;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Ends the process: "quit" (UCCI engines answer "bye"), then SIGKILL if it lingers. */
static void ext_kill(ExtEngine *e, bool polite)
{
    if (e->pid > 0) {
        if (polite && e->to_fd >= 0) {
            static const char quit[] = "quit\n";
            if (write(e->to_fd, quit, sizeof quit - 1) < 0) {
                /* already gone: waitpid below reaps it */
            }
        }
        int status;
        bool reaped = false;
        for (int waited = 0; polite && waited < EXT_QUIT_MS && !reaped; waited += 10) {
            pid_t r = waitpid(e->pid, &status, WNOHANG);
            if (r == e->pid || (r < 0 && errno != EINTR))
                reaped = true;
            else
                sleep_ms(10);
        }
        if (!reaped) {
            if (kill(e->pid, SIGKILL) != 0 && errno != ESRCH)
                set_error(e, "kill %ld: %s", (long)e->pid, strerror(errno));
            while (waitpid(e->pid, &status, 0) < 0 && errno == EINTR) {
            }
        }
    }
    if (e->to_fd >= 0)
        close(e->to_fd);
    if (e->from_fd >= 0)
        close(e->from_fd);
    e->to_fd = e->from_fd = -1;
    e->pid = 0;
    e->len = 0;
}

void ext_free(ExtEngine **e)
{
    if (!*e)
        return;
    ext_kill(*e, true);
    free(*e);
    *e = NULL;
}

static bool send_line(ExtEngine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool send_line(ExtEngine *e, const char *fmt, ...)
{
    char line[EXT_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line - 1) {
        set_error(e, "command line too long");
        return false;
    }
    line[n++] = '\n';
    size_t off = 0;
    while (off < (size_t)n) {
        ssize_t w = write(e->to_fd, line + off, (size_t)n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            set_error(e, "write to engine: %s", w < 0 ? strerror(errno) : "closed");
            return false;
        }
        off += (size_t)w;
    }
    return true;
}

typedef enum { READ_LINE, READ_TIMEOUT, READ_EOF } ReadStatus;

/* The next line (without its newline) before deadline (ms of time_now_ms). */
static ReadStatus read_line(ExtEngine *e, int64_t deadline, char *line, size_t size)
{
    for (;;) {
        char *nl = memchr(e->buf, '\n', e->len);
        if (nl || e->len == sizeof e->buf) {
            size_t n = nl ? (size_t)(nl - e->buf) : e->len;
            size_t copy = n < size - 1 ? n : size - 1;
            memcpy(line, e->buf, copy);
            line[copy] = '\0';
            if (copy && line[copy - 1] == '\r')
                line[copy - 1] = '\0';
            size_t used = nl ? n + 1 : n;
            memmove(e->buf, e->buf + used, e->len - used);
            e->len -= used;
            return READ_LINE;
        }
        int64_t left = deadline - time_now_ms();
        if (left <= 0)
            return READ_TIMEOUT;
        struct pollfd pfd = {e->from_fd, POLLIN, 0};
        int r = poll(&pfd, 1, left > 1000000 ? 1000000 : (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            set_error(e, "poll: %s", strerror(errno));
            return READ_EOF;
        }
        if (r == 0)
            continue;
        ssize_t got = read(e->from_fd, e->buf + e->len, sizeof e->buf - e->len);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0) {
            set_error(e, "engine closed its output%s", got < 0 ? " (read error)" : "");
            return READ_EOF;
        }
        e->len += (size_t)got;
    }
}

/* Reads lines until one starts with the word want; false (engine killed) otherwise. */
static bool expect(ExtEngine *e, const char *want, int64_t deadline)
{
    char line[EXT_LINE_MAX];
    size_t n = strlen(want);
    for (;;) {
        ReadStatus st = read_line(e, deadline, line, sizeof line);
        if (st == READ_TIMEOUT)
            set_error(e, "no '%s' in time", want);
        if (st != READ_LINE) {
            ext_kill(e, false);
            return false;
        }
        if (!strncmp(line, want, n) && (line[n] == '\0' || line[n] == ' '))
            return true;
    }
}

static int split_args(char *text, char **argv)
{
    int n = 0;
    for (char *tok = strtok(text, " \t"); tok && n < EXT_ARGS_MAX; tok = strtok(NULL, " \t"))
        argv[n++] = tok;
    argv[n] = NULL;
    return n;
}

static bool spawn(ExtEngine *e)
{
    char cmd[EXT_TEXT_MAX];
    char *argv[EXT_ARGS_MAX + 1];
    snprintf(cmd, sizeof cmd, "%s", e->cfg.command);
    if (split_args(cmd, argv) == 0) {
        set_error(e, "empty engine command");
        return false;
    }
    int in[2], out[2];
    if (pipe(in) != 0) {
        set_error(e, "pipe: %s", strerror(errno));
        return false;
    }
    if (pipe(out) != 0) {
        set_error(e, "pipe: %s", strerror(errno));
        close(in[0]);
        close(in[1]);
        return false;
    }
    pid_t pid = fork();
    if (pid < 0) {
        set_error(e, "fork: %s", strerror(errno));
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        return false;
    }
    if (pid == 0) {
        /* The child: only async-signal-safe calls until exec. */
        if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
            _exit(127);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        if (e->cfg.dir[0] && chdir(e->cfg.dir) != 0)
            _exit(127);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    if (fcntl(in[1], F_SETFD, FD_CLOEXEC) != 0 || fcntl(out[0], F_SETFD, FD_CLOEXEC) != 0)
        set_error(e, "fcntl: %s", strerror(errno)); /* harmless: a later child inherits it */
    e->pid = pid;
    e->to_fd = in[1];
    e->from_fd = out[0];
    e->len = 0;
    e->starts++;
    return true;
}

static bool send_option(ExtEngine *e, const char *name, const char *value)
{
    if (e->cfg.proto == EXT_PROTO_UCCI)
        return send_line(e, "setoption %s %s", name, value);
    return send_line(e, "setoption name %s value %s", name, value);
}

bool ext_start(ExtEngine *e, char *err, size_t size)
{
    if (e->pid > 0)
        return true;
    /* A dead engine's pipe must not kill the worker. */
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
        snprintf(err, size, "signal: %s", strerror(errno));
        return false;
    }
    e->error[0] = '\0';
    int startup = e->cfg.startup_ms > 0 ? e->cfg.startup_ms : 10000;
    int ready = e->cfg.ready_ms > 0 ? e->cfg.ready_ms : 10000;
    bool ucci = e->cfg.proto == EXT_PROTO_UCCI;
    bool ok = spawn(e) && send_line(e, ucci ? "ucci" : "uci") &&
              expect(e, ucci ? "ucciok" : "uciok", time_now_ms() + startup);
    if (ok && e->cfg.proto == EXT_PROTO_UCI1)
        ok = send_option(e, "UCI_Variant", "xiangqi");
    char opts[EXT_TEXT_MAX];
    snprintf(opts, sizeof opts, "%s", e->cfg.options);
    for (char *save = NULL, *tok = strtok_r(opts, ";", &save); ok && tok;
         tok = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            set_error(e, "option '%s' is not Name=Value", tok);
            ok = false;
            break;
        }
        *eq = '\0';
        ok = send_option(e, tok, eq + 1);
    }
    ok = ok && send_line(e, "isready") && expect(e, "readyok", time_now_ms() + ready);
    if (!ok) {
        snprintf(err, size, "engine '%s' (%s) did not start: %s", e->cfg.command,
                 ext_protocol_name(e->cfg.proto), e->error[0] ? e->error : "no handshake");
        ext_kill(e, false);
        return false;
    }
    return true;
}

void ext_new_game(void *ctx)
{
    ExtEngine *e = ctx;
    char err[512];
    if (!ext_start(e, err, sizeof err))
        return; /* the next search reports the crash */
    int ready = e->cfg.ready_ms > 0 ? e->cfg.ready_ms : 10000;
    if (e->cfg.proto != EXT_PROTO_UCCI && !send_line(e, "ucinewgame"))
        return;
    if (send_line(e, "isready"))
        expect(e, "readyok", time_now_ms() + ready);
}

/* Move text between chuhe (ranks 0-9) and the engine's form. */
static void move_out(const ExtEngine *e, const char *m, char *buf, size_t size)
{
    if (e->cfg.proto != EXT_PROTO_UCI1) {
        snprintf(buf, size, "%s", m);
        return;
    }
    /* ranks 0-9 become 1-10 */
    size_t n = 0;
    for (int half = 0; half < 2 && n + 4 <= size; half++) {
        int rank = m[half * 2 + 1] - '0' + 1;
        buf[n++] = m[half * 2];
        if (rank >= 10)
            buf[n++] = '1';
        buf[n++] = (char)('0' + rank % 10);
    }
    buf[n] = '\0';
}

/* Parses the engine's move text into chuhe's "h2e2" form; false when malformed. */
static bool move_in(const ExtEngine *e, const char *text, char out[5])
{
    const char *p = text;
    int shift = e->cfg.proto == EXT_PROTO_UCI1 ? 1 : 0;
    for (int half = 0; half < 2; half++) {
        if (*p < 'a' || *p > 'i')
            return false;
        out[half * 2] = *p++;
        if (*p < '0' || *p > '9')
            return false;
        int rank = *p++ - '0';
        if (shift && rank == 1 && *p == '0') {
            rank = 10;
            p++;
        }
        rank -= shift;
        if (rank < 0 || rank > 9)
            return false;
        out[half * 2 + 1] = (char)('0' + rank);
    }
    out[4] = '\0';
    return *p == '\0';
}

/* "info ... depth D ... score cp X | score mate N ... nodes N ..." */
static void parse_info(const char *line, SearchResult *out)
{
    char copy[EXT_LINE_MAX];
    snprintf(copy, sizeof copy, "%s", line);
    char *save = NULL;
    char *tok = strtok_r(copy, " ", &save);
    while (tok) {
        char *next = strtok_r(NULL, " ", &save);
        if (!next)
            break;
        if (!strcmp(tok, "depth")) {
            out->depth = atoi(next);
        } else if (!strcmp(tok, "nodes")) {
            out->nodes = strtoull(next, NULL, 10);
        } else if (!strcmp(tok, "score") && (!strcmp(next, "cp") || !strcmp(next, "mate"))) {
            char *v = strtok_r(NULL, " ", &save);
            if (!v)
                break;
            long x = strtol(v, NULL, 10);
            if (!strcmp(next, "cp"))
                out->score = (Value)(x > VALUE_MATE_IN_MAX_PLY - 1    ? VALUE_MATE_IN_MAX_PLY - 1
                                     : x < -VALUE_MATE_IN_MAX_PLY + 1 ? -VALUE_MATE_IN_MAX_PLY + 1
                                                                      : x);
            else
                out->score = x > 0 ? value_mate_in((int)(2 * x - 1)) : value_mated_in((int)(-2 * x));
            next = strtok_r(NULL, " ", &save);
        } else if (!strcmp(tok, "score")) {
            /* UCCI: "score X" in centipawns */
            out->score = (Value)strtol(next, NULL, 10);
        }
        tok = next;
    }
}

static int64_t at_least(int64_t v, int64_t lo)
{
    return v < lo ? lo : v;
}

static bool send_go(ExtEngine *e, const SearchLimits *l, Color us)
{
    char go[512];
    size_t n = 0;
    n += (size_t)snprintf(go + n, sizeof go - n, "go");
    bool ucci = e->cfg.proto == EXT_PROTO_UCCI;
    if (l->time[us] >= 0 && l->time[RED] >= 0 && l->time[BLACK] >= 0) {
        Color them = color_flip(us);
        if (ucci)
            n += (size_t)snprintf(go + n, sizeof go - n,
                                  " time %lld increment %lld opptime %lld oppincrement %lld",
                                  (long long)at_least(l->time[us] / 1000, 1),
                                  (long long)(l->inc[us] / 1000),
                                  (long long)at_least(l->time[them] / 1000, 1),
                                  (long long)(l->inc[them] / 1000));
        else
            n += (size_t)snprintf(go + n, sizeof go - n, " wtime %lld btime %lld winc %lld binc %lld",
                                  (long long)l->time[RED], (long long)l->time[BLACK],
                                  (long long)l->inc[RED], (long long)l->inc[BLACK]);
    } else if (l->movetime > 0) {
        if (ucci)
            n += (size_t)snprintf(go + n, sizeof go - n, " time %lld movestogo 1",
                                  (long long)at_least(l->movetime / 1000, 1));
        else
            n += (size_t)snprintf(go + n, sizeof go - n, " movetime %lld", (long long)l->movetime);
    }
    if (l->nodes && n < sizeof go)
        n += (size_t)snprintf(go + n, sizeof go - n, " nodes %llu", (unsigned long long)l->nodes);
    if (l->depth && n < sizeof go)
        n += (size_t)snprintf(go + n, sizeof go - n, " depth %d", l->depth);
    if (n >= sizeof go)
        return false;
    return send_line(e, "%s", go);
}

GameSearchStatus ext_search(void *ctx, const char *start_fen, const char *const *moves,
                            int nmoves, const SearchLimits *limits, int64_t deadline_ms,
                            SearchResult *out)
{
    ExtEngine *e = ctx;
    memset(out, 0, sizeof *out);
    out->best = MOVE_NONE;
    char err[512];
    if (!ext_start(e, err, sizeof err))
        return GAME_SEARCH_CRASH;
    /* "position fen F moves m1 m2 ...": the engine sees every repetition. */
    char *line = malloc(EXT_LINE_MAX + (size_t)nmoves * 8);
    if (!line) {
        set_error(e, "out of memory");
        return GAME_SEARCH_CRASH;
    }
    size_t n = (size_t)sprintf(line, "position fen %s", start_fen);
    if (nmoves)
        n += (size_t)sprintf(line + n, " moves");
    for (int i = 0; i < nmoves; i++) {
        char m[8];
        move_out(e, moves[i], m, sizeof m);
        n += (size_t)sprintf(line + n, " %s", m);
    }
    /* The side to move: the FEN's, flipped once per move. */
    const char *side = strchr(start_fen, ' ');
    Color us = side && (side[1] == 'b') ? BLACK : RED;
    if (nmoves % 2)
        us = color_flip(us);
    bool sent = send_line(e, "%s", line) && send_go(e, limits, us);
    free(line);
    if (!sent) {
        ext_kill(e, false);
        return GAME_SEARCH_CRASH;
    }
    char text[EXT_LINE_MAX];
    for (;;) {
        ReadStatus st = read_line(e, deadline_ms, text, sizeof text);
        if (st == READ_TIMEOUT) {
            set_error(e, "no bestmove before the deadline");
            ext_kill(e, false);
            return GAME_SEARCH_TIMEOUT;
        }
        if (st == READ_EOF) {
            ext_kill(e, false);
            return GAME_SEARCH_CRASH;
        }
        if (!strncmp(text, "info ", 5)) {
            parse_info(text, out);
        } else if (!strncmp(text, "bestmove", 8) && (text[8] == ' ' || !text[8])) {
            char *m = text + 8;
            while (*m == ' ')
                m++;
            char *end = strchr(m, ' ');
            if (end)
                *end = '\0';
            char mv[5];
            if (move_in(e, m, mv))
                out->best = move_from_text(mv);
            else
                set_error(e, "unparsable move '%.20s'", m);
            return GAME_SEARCH_OK;
        } else if (!strcmp(text, "nobestmove")) {
            return GAME_SEARCH_OK;
        }
    }
}
