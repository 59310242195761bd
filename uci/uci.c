#define _GNU_SOURCE
#include "uci.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "movegen.h"
#include "notation.h"
#include "numparse.h"
#include "contracts/outpath.h"
#include "rules.h"

#ifndef CHUHE_VERSION
#define CHUHE_VERSION "unknown"
#endif

enum { MAX_TOKENS = 4096 };

/* The largest clock, increment, move time or node count "go" takes: 2^40 ms is 35 years. */
static const long long GO_MAX = 1LL << 40;

/* Every line goes out whole, whichever thread writes it. */
static void say(Uci *uci, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(Uci *uci, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&uci->out_lock);
    vfprintf(uci->out, fmt, ap);
    fputc('\n', uci->out);
    fflush(uci->out);
    pthread_mutex_unlock(&uci->out_lock);
    va_end(ap);
}

/* Answers a refused command with its one error line; returns status. */
static UciStatus refuse(Uci *uci, UciStatus status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static UciStatus refuse(Uci *uci, UciStatus status, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    say(uci, "info string error: %s", msg);
    return status;
}

/* Reads text (NULL when the value is missing) as a whole number of lo..hi; false after
 * an error line naming what, the text and the range. */
static bool read_number(Uci *uci, const char *what, const char *text, long long lo, long long hi,
                        long long *out)
{
    char msg[400];
    if (numparse_int(what, text, lo, hi, out, msg, sizeof msg))
        return true;
    refuse(uci, UCI_USAGE, "%s", msg);
    return false;
}

bool uci_init(Uci *uci, FILE *out)
{
    memset(uci, 0, sizeof *uci);
    uci->engine = engine_new();
    uci->out = out;
    uci->dialect = DIALECT_UCI;
    uci->multipv = 1;
    pthread_mutex_init(&uci->out_lock, NULL);
    return uci->engine != NULL;
}

static void search_join(Uci *uci, bool stop)
{
    if (!uci->searching)
        return;
    /* engine_search clears the stop flag when it starts: a stop sent before the new
     * thread got there would be lost, so repeat it until the thread has ended */
    while (stop) {
        engine_stop(uci->engine);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 5000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        if (pthread_timedjoin_np(uci->thread, NULL, &until) != ETIMEDOUT) {
            uci->searching = false;
            return;
        }
    }
    pthread_join(uci->thread, NULL);
    uci->searching = false;
}

void uci_finish(Uci *uci, bool wait)
{
    search_join(uci, !wait);
    engine_free(&uci->engine);
    pthread_mutex_destroy(&uci->out_lock);
}

/* Splits line in place on blanks; returns the number of tokens, -1 if over max. */
static int tokenize(char *line, char **tok, int max)
{
    int n = 0;
    for (char *t = strtok(line, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
        if (n == max)
            return -1;
        tok[n++] = t;
    }
    return n;
}

/* ---- position ------------------------------------------------------------------- */

static UciStatus cmd_position(Uci *uci, char **tok, int n)
{
    char fen[256] = "";
    int i = 1;
    if (i < n && !strcmp(tok[i], "startpos")) {
        i++;
    } else if (i < n && !strcmp(tok[i], "fen")) {
        size_t len = 0;
        for (i++; i < n && strcmp(tok[i], "moves"); i++) {
            size_t tl = strlen(tok[i]);
            if (len + tl + 2 > sizeof fen)
                return refuse(uci, UCI_USAGE, "position: FEN is too long");
            if (len)
                fen[len++] = ' ';
            memcpy(fen + len, tok[i], tl + 1);
            len += tl;
        }
        if (!len)
            return refuse(uci, UCI_USAGE, "position: 'fen' needs a FEN");
    } else {
        return refuse(uci, UCI_USAGE, "position: expected 'startpos' or 'fen', got '%.40s'",
                      i < n ? tok[i] : "");
    }
    int nmoves = 0;
    if (i < n) {
        if (strcmp(tok[i], "moves"))
            return refuse(uci, UCI_USAGE, "position: expected 'moves', got '%.40s'", tok[i]);
        i++;
        nmoves = n - i;
    }
    PosError err;
    if (!engine_set_position(uci->engine, fen[0] ? fen : NULL, (const char *const *)tok + i, nmoves,
                             &err))
        return refuse(uci, UCI_USAGE, "position: %s", err.msg);
    uci->nbanned = 0; /* banmoves hold for the position they were given in */
    return UCI_OK;
}

/* ---- go ------------------------------------------------------------------------- */

static void on_info(void *ctx, const SearchInfo *info)
{
    Uci *uci = ctx;
    char pv[MAX_PLY * 5 + 1], score[32];
    int len = 0;
    for (int i = 0; i < info->pv_len; i++) {
        move_to_text(info->pv[i], pv + len);
        len += 4;
        pv[len++] = ' ';
    }
    pv[len ? len - 1 : 0] = '\0';
    uint64_t nps = info->time_ms > 0 ? info->nodes * 1000 / (uint64_t)info->time_ms : 0;
    if (uci->dialect == DIALECT_UCCI) {
        Value v = info->score;
        if (v >= VALUE_MATE_IN_MAX_PLY || v <= VALUE_MATED_IN_MAX_PLY)
            snprintf(score, sizeof score, "%d",
                     v > 0 ? 30000 - (VALUE_MATE - v) : -30000 + (VALUE_MATE + v));
        else
            snprintf(score, sizeof score, "%d", v);
        if (info->bound == BOUND_EXACT && info->multipv == 1)
            say(uci, "info depth %d score %s time %" PRId64 " nodes %" PRIu64 " pv %s", info->depth,
                score, info->time_ms, info->nodes, pv);
        return;
    }
    search_score_text(info->score, score, sizeof score);
    const char *bound = info->bound == BOUND_LOWER   ? " lowerbound"
                        : info->bound == BOUND_UPPER ? " upperbound"
                                                     : "";
    say(uci,
        "info depth %d seldepth %d multipv %d score %s%s nodes %" PRIu64 " nps %" PRIu64
        " hashfull %d time %" PRId64 "%s%s",
        info->depth, info->seldepth, info->multipv, score, bound, info->nodes, nps, info->hashfull,
        info->time_ms, info->pv_len ? " pv " : "", pv);
}

static void *search_thread(void *arg)
{
    Uci *uci = arg;
    SearchCallbacks cb = {on_info, uci};
    SearchResult r = engine_search(uci->engine, &uci->limits, &cb);
    char best[5], ponder[5];
    move_to_text(r.best, best);
    move_to_text(r.ponder, ponder);
    if (uci->dialect == DIALECT_UCCI) {
        if (r.best == MOVE_NONE)
            say(uci, "nobestmove");
        else if (r.ponder != MOVE_NONE)
            say(uci, "bestmove %s ponder %s", best, ponder);
        else
            say(uci, "bestmove %s", best);
    } else {
        if (r.best == MOVE_NONE)
            say(uci, "bestmove (none)");
        else if (r.ponder != MOVE_NONE)
            say(uci, "bestmove %s ponder %s", best, ponder);
        else
            say(uci, "bestmove %s", best);
    }
    return NULL;
}

typedef struct {
    Uci *uci;
} DivideCtx;

static void divide_line(void *ctx, Move m, uint64_t nodes)
{
    char mv[5];
    move_to_text(m, mv);
    say(((DivideCtx *)ctx)->uci, "%s: %" PRIu64, mv, nodes);
}

static UciStatus go_perft(Uci *uci, char **tok, int n)
{
    long long depth;
    if (n > 3)
        return refuse(uci, UCI_USAGE, "go perft: expected 'go perft <depth>'");
    if (!read_number(uci, "go perft", n == 3 ? tok[2] : NULL, 1, 12, &depth))
        return UCI_USAGE;
    DivideCtx ctx = {uci};
    int64_t t0 = time_now_ms();
    uint64_t total = engine_perft(uci->engine, (int)depth, divide_line, &ctx);
    int64_t dt = time_now_ms() - t0;
    say(uci, "\nNodes searched: %" PRIu64, total);
    say(uci, "info string perft time %.3f s, %.0f nodes/s", (double)dt / 1000,
        dt > 0 ? (double)total * 1000 / (double)dt : 0.0);
    return UCI_OK;
}

/* The time words of "go" in both dialects: UCI's in milliseconds, UCCI's in seconds. */
typedef enum { GO_RED, GO_BLACK, GO_US, GO_THEM, GO_NOBODY } GoSide;
static const struct {
    const char *word;
    bool clock;  /* the time left on a clock; else an increment or the move time */
    GoSide side; /* whose; GO_NOBODY for the move time */
    int unit_ms;
} GO_TIMES[] = {
    {"wtime", true, GO_RED, 1},
    {"btime", true, GO_BLACK, 1},
    {"winc", false, GO_RED, 1},
    {"binc", false, GO_BLACK, 1},
    {"movetime", false, GO_NOBODY, 1},
    {"time", true, GO_US, 1000},
    {"opptime", true, GO_THEM, 1000},
    {"increment", false, GO_US, 1000},
    {"oppincrement", false, GO_THEM, 1000},
};

/* The number after a "go" word into *out: false (after the error line) when it is
 * missing, malformed or out of the word's range. */
static bool go_number(Uci *uci, const char *word, const char *text, long long lo, long long hi,
                      long long *out)
{
    char what[32];
    snprintf(what, sizeof what, "go %s", word);
    return read_number(uci, what, text, lo, hi, out);
}

/* Reads the moves of a list (the words tok[0..n) that are moves, up to the first that
 * is not) as legal moves of the current position into moves[*count] (no repeats);
 * returns how many words it used, or -1 after an error line naming what. */
static int read_move_list(Uci *uci, const char *what, char **tok, int n, Move *moves, int *count)
{
    const Position *pos = engine_position(uci->engine);
    int used = 0;
    *count = 0;
    for (; used < n; used++) {
        Move m = move_from_text(tok[used]);
        if (m == MOVE_NONE)
            break;
        if (!move_is_legal(pos, m)) {
            refuse(uci, UCI_USAGE, "%s: '%.16s' is not a legal move in this position", what,
                   tok[used]);
            return -1;
        }
        int j = 0;
        while (j < *count && moves[j] != m)
            j++;
        if (j == *count) {
            if (*count == SEARCHMOVES_MAX) {
                refuse(uci, UCI_USAGE, "%s: more than %d moves", what, SEARCHMOVES_MAX);
                return -1;
            }
            moves[(*count)++] = m;
        }
    }
    if (*count == 0) {
        refuse(uci, UCI_USAGE, "%s: needs at least one move in a0-i9 form", what);
        return -1;
    }
    return used;
}

/* "go searchmoves m1 m2 ...": the root moves to choose from. */
static int parse_searchmoves(Uci *uci, char **tok, int n, SearchLimits *l)
{
    return read_move_list(uci, "go searchmoves", tok, n, l->searchmoves, &l->nsearchmoves);
}

/* UCCI's banmoves as the legal moves it leaves; all of them banned: no restriction. */
static void unbanned_moves(Uci *uci, SearchLimits *l)
{
    MoveList legal;
    gen_legal(engine_position(uci->engine), &legal);
    l->nsearchmoves = 0;
    for (int i = 0; i < legal.count; i++) {
        int j = 0;
        while (j < uci->nbanned && uci->banned[j] != legal.moves[i])
            j++;
        if (j == uci->nbanned && l->nsearchmoves < SEARCHMOVES_MAX)
            l->searchmoves[l->nsearchmoves++] = legal.moves[i];
    }
}

/* Reads "go" arguments of either dialect into limits; false (with an error line) on
 * a malformed command. */
static bool parse_go(Uci *uci, char **tok, int n, SearchLimits *l)
{
    Color us = engine_position(uci->engine)->side, them = color_flip(us);
    time_limits_clear(l);
    for (int i = 1; i < n; i++) {
        const char *k = tok[i];
        const char *v = i + 1 < n ? tok[i + 1] : NULL;
        long long x;
        if (!strcmp(k, "infinite")) {
            l->infinite = true;
            continue;
        }
        if (!strcmp(k, "ponder")) {
            l->ponder = true;
            continue;
        }
        if (!strcmp(k, "draw")) /* UCCI: the opponent offers a draw; never taken */
            continue;
        if (!strcmp(k, "searchmoves")) {
            int used = parse_searchmoves(uci, tok + i + 1, n - i - 1, l);
            if (used < 0)
                return false;
            i += used;
            continue;
        }
        if (!strcmp(k, "depth") && v && !strcmp(v, "infinite")) {
            l->infinite = true;
            i++;
            continue;
        }
        size_t t = 0;
        while (t < sizeof GO_TIMES / sizeof *GO_TIMES && strcmp(k, GO_TIMES[t].word))
            t++;
        if (t < sizeof GO_TIMES / sizeof *GO_TIMES) {
            /* A clock below zero is read as an empty one: cutechess sends one after a
             * move that overstepped within its timemargin, and for a human opponent
             * whose flag fell. An increment or a move time must be a real one. */
            GoSide side = GO_TIMES[t].side;
            long long lo = GO_TIMES[t].clock ? -GO_MAX : side == GO_NOBODY ? 1 : 0;
            if (!go_number(uci, k, v, lo, GO_MAX, &x))
                return false;
            Color c = side == GO_RED ? RED : side == GO_BLACK ? BLACK : side == GO_US ? us : them;
            int64_t *slot = side == GO_NOBODY   ? &l->movetime
                            : GO_TIMES[t].clock ? &l->time[c]
                                                : &l->inc[c];
            *slot = (x < 0 ? 0 : x) * GO_TIMES[t].unit_ms;
            i++;
            continue;
        }
        if (!strcmp(k, "depth")) {
            if (!go_number(uci, k, v, 1, MAX_PLY - 4, &x))
                return false;
            l->depth = (int)x;
        } else if (!strcmp(k, "nodes")) {
            if (!go_number(uci, k, v, 0, GO_MAX, &x))
                return false;
            l->nodes = (uint64_t)x;
        } else if (!strcmp(k, "movestogo") || !strcmp(k, "oppmovestogo")) {
            if (!go_number(uci, k, v, 0, INT_MAX, &x))
                return false;
            if (!strcmp(k, "movestogo"))
                l->movestogo = (int)x;
        } else if (!strcmp(k, "mate")) {
            if (!go_number(uci, k, v, 1, MAX_PLY / 2, &x))
                return false;
            l->mate = (int)x;
        } else {
            refuse(uci, UCI_USAGE, "go: unknown parameter '%.40s'", k);
            return false;
        }
        i++;
    }
    /* a clock for the side to move only: treat the other as equal */
    if (l->time[us] >= 0 && l->time[them] < 0)
        l->time[them] = l->time[us];
    l->multipv = uci->multipv;
    if (uci->nbanned && !l->nsearchmoves)
        unbanned_moves(uci, l);
    return true;
}

static UciStatus cmd_go(Uci *uci, char **tok, int n)
{
    if (n >= 2 && !strcmp(tok[1], "perft"))
        return go_perft(uci, tok, n);
    SearchLimits limits;
    if (!parse_go(uci, tok, n, &limits))
        return UCI_USAGE;
    uci->limits = limits;
    /* here, before the search thread runs: a ponderhit read next is then not lost */
    if (limits.ponder)
        engine_ponder_begin(uci->engine);
    if (pthread_create(&uci->thread, NULL, search_thread, uci) != 0)
        return refuse(uci, UCI_FAILED, "go: cannot start the search thread");
    uci->searching = true;
    return UCI_OK;
}

/* UCCI: "banmoves m1 m2 ...", the root moves the searches of this position leave out
 * (until the next position); "banmoves" alone lifts the ban. */
static UciStatus cmd_banmoves(Uci *uci, char **tok, int n)
{
    Move moves[SEARCHMOVES_MAX];
    int count = 0;
    if (n > 1) {
        int used = read_move_list(uci, "banmoves", tok + 1, n - 1, moves, &count);
        if (used < 0)
            return UCI_USAGE;
        if (used < n - 1)
            return refuse(uci, UCI_USAGE, "banmoves: '%.40s' is not a move in a0-i9 form",
                          tok[1 + used]);
    }
    memcpy(uci->banned, moves, (size_t)count * sizeof(Move));
    uci->nbanned = count;
    return UCI_OK;
}

/* ---- options -------------------------------------------------------------------- */

/* A check option's value, true or false, into *out (when not NULL); false after an
 * error line naming what. */
static bool read_bool(Uci *uci, const char *what, const char *value, bool *out)
{
    if (!value || (strcasecmp(value, "true") && strcasecmp(value, "false"))) {
        refuse(uci, UCI_USAGE, "%s: '%.60s' is not true or false", what, value ? value : "");
        return false;
    }
    if (out)
        *out = !strcasecmp(value, "true");
    return true;
}

/* The search's tunable constants, one spin option each (spsa_params.h). */
static void print_search_params(Uci *uci)
{
    for (int i = 0; i < SPSA_PARAM_NB; i++) {
        const SpsaParamInfo *p = &SPSA_PARAM_INFO[i];
        if (uci->dialect == DIALECT_UCCI)
            say(uci, "option %s type spin min %d max %d default %d", p->name, p->min, p->max,
                p->value);
        else
            say(uci, "option name %s type spin default %d min %d max %d", p->name, p->value, p->min,
                p->max);
    }
}

static void print_options(Uci *uci)
{
    if (uci->dialect == DIALECT_UCCI) {
        say(uci, "option hashsize type spin min 1 max %d default %d", ENGINE_HASH_MAX_MB,
            ENGINE_HASH_DEFAULT_MB);
        say(uci, "option clearhash type button");
        say(uci, "option evalfile type string default <builtin>");
        say(uci, "option usennue type check default true");
        say(uci, "option threads type spin min 1 max %d default 1", SEARCH_THREADS_MAX);
        say(uci, "option ponder type check default false");
        print_search_params(uci);
        return;
    }
    say(uci, "option name Hash type spin default %d min 1 max %d", ENGINE_HASH_DEFAULT_MB,
        ENGINE_HASH_MAX_MB);
    say(uci, "option name Clear Hash type button");
    say(uci, "option name Threads type spin default 1 min 1 max %d", SEARCH_THREADS_MAX);
    say(uci, "option name MultiPV type spin default 1 min 1 max %d", SEARCH_MULTIPV_MAX);
    say(uci, "option name Ponder type check default false");
    say(uci, "option name Move Overhead type spin default 10 min 0 max 5000");
    say(uci, "option name EvalFile type string default <builtin>");
    say(uci, "option name Use NNUE type check default true");
    say(uci, "option name UCI_Variant type combo default xiangqi var xiangqi");
    print_search_params(uci);
}

/* EvalFile: the network or the weights at path (told apart by the first bytes), or the
 * previous evaluation kept. A folder would open and then fail to read with no better
 * word than "read error", so it is named first. */
static UciStatus load_eval_file(Uci *uci, const char *what, const char *path)
{
    WeightsError err;
    struct stat st;
    if (!path || !*path)
        return refuse(uci, UCI_USAGE, "%s: needs a path", what);
    if (!strcmp(path, "<builtin>")) {
        engine_reset_eval(uci->engine); /* the built-in network and weights */
        return UCI_OK;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return refuse(uci, UCI_FAILED, "%s: %s is a directory; previous evaluation kept", what,
                      path);
    if (!engine_load_eval_file(uci->engine, path, &err))
        return refuse(uci, UCI_FAILED, "%s: %s; previous evaluation kept", what, err.msg);
    return UCI_OK;
}

static UciStatus set_option(Uci *uci, const char *name, const char *value)
{
    long long x;
    char what[160];
    snprintf(what, sizeof what, "setoption %s", name);
    int param = spsa_params_find(name);
    if (param >= 0) {
        const SpsaParamInfo *p = &SPSA_PARAM_INFO[param];
        if (!read_number(uci, what, value, p->min, p->max, &x))
            return UCI_USAGE;
        engine_set_search_param(uci->engine, param, x);
    } else if (!strcasecmp(name, "Hash") || !strcasecmp(name, "hashsize")) {
        if (!read_number(uci, what, value, 1, ENGINE_HASH_MAX_MB, &x))
            return UCI_USAGE;
        if (!engine_set_hash(uci->engine, (size_t)x))
            return refuse(uci, UCI_FAILED, "%s: cannot allocate %lld MB; keeping the %d MB table",
                          what, x, engine_hash_mb(uci->engine));
    } else if (!strcasecmp(name, "Clear Hash") || !strcasecmp(name, "clearhash")) {
        engine_clear_hash(uci->engine);
    } else if (!strcasecmp(name, "Threads") || !strcasecmp(name, "threads")) {
        char msg[200];
        if (!read_number(uci, what, value, 1, SEARCH_THREADS_MAX, &x))
            return UCI_USAGE;
        if (!engine_set_threads(uci->engine, (int)x, msg, sizeof msg))
            return refuse(uci, UCI_FAILED, "%s: %s; searching with 1 thread", what, msg);
    } else if (!strcasecmp(name, "MultiPV")) {
        if (!read_number(uci, what, value, 1, SEARCH_MULTIPV_MAX, &x))
            return UCI_USAGE;
        uci->multipv = (int)x;
    } else if (!strcasecmp(name, "Ponder") || !strcasecmp(name, "ponder")) {
        /* the GUI says whether it will send "go ponder": nothing to change here */
        if (!read_bool(uci, what, value, NULL))
            return UCI_USAGE;
    } else if (!strcasecmp(name, "Move Overhead")) {
        if (!read_number(uci, what, value, 0, 5000, &x))
            return UCI_USAGE;
        engine_set_move_overhead(uci->engine, (int)x);
    } else if (!strcasecmp(name, "EvalFile") || !strcasecmp(name, "evalfile")) {
        return load_eval_file(uci, what, value);
    } else if (!strcasecmp(name, "Use NNUE") || !strcasecmp(name, "usennue")) {
        bool use;
        if (!read_bool(uci, what, value, &use))
            return UCI_USAGE;
        engine_set_use_nnue(uci->engine, use);
    } else if (!strcasecmp(name, "UCI_Variant")) {
        if (!value || strcasecmp(value, "xiangqi"))
            return refuse(uci, UCI_USAGE, "setoption: only the xiangqi variant is played");
    } else {
        return refuse(uci, UCI_USAGE, "setoption: unknown option '%.60s'", name);
    }
    return UCI_OK;
}

/* tok[from..to) joined by single blanks into buf; false when they do not fit. */
static bool join_words(char *buf, size_t size, char **tok, int from, int to)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = from; i < to; i++) {
        int w = snprintf(buf + len, size - len, "%s%s", len ? " " : "", tok[i]);
        if (w < 0 || (size_t)w >= size - len)
            return false;
        len += (size_t)w;
    }
    return true;
}

/* UCI: "setoption name <words> [value <words>]"; UCCI: "setoption <name> [<value>]". */
static UciStatus cmd_setoption(Uci *uci, char **tok, int n)
{
    char name[128], value[1024];
    bool ucci_form = uci->dialect == DIALECT_UCCI && n >= 2 && strcmp(tok[1], "name");
    if (!ucci_form && (n < 3 || strcmp(tok[1], "name")))
        return refuse(uci, UCI_USAGE,
                      "setoption: expected 'setoption name <name> [value <value>]'");
    /* UCCI: one word of name, then the value; UCI: the words up to "value", then it */
    int name_at = ucci_form ? 1 : 2, name_end = 2;
    while (!ucci_form && name_end < n && strcmp(tok[name_end], "value"))
        name_end++;
    bool has_value = name_end < n;
    int value_at = ucci_form ? name_end : name_end + 1;
    if (!join_words(name, sizeof name, tok, name_at, name_end) ||
        !join_words(value, sizeof value, tok, value_at, n))
        return refuse(uci, UCI_USAGE, "setoption: the name or the value is too long");
    return set_option(uci, name, has_value ? value : NULL);
}

/* ---- diagnostics ---------------------------------------------------------------- */

static void cmd_display(Uci *uci)
{
    const Position *pos = engine_position(uci->engine);
    static const char CH[] = ".KABNRCP.kabnrcp";
    char line[64];
    for (int r = RANK_NB - 1; r >= 0; r--) {
        int len = snprintf(line, sizeof line, " %d ", r);
        for (int f = 0; f < FILE_NB; f++)
            len += snprintf(line + len, sizeof line - (size_t)len, " %c",
                            CH[pos_piece_on(pos, sq_make(f, r))]);
        say(uci, "%s", line);
        if (r == 5)
            say(uci, "    ~~~~~~~~~~~~~~~~~");
    }
    say(uci, "    a b c d e f g h i\n");
    char fen[160], checkers[64] = "";
    pos_get_fen(pos, fen, sizeof fen);
    Bitboard c = pos_checkers(pos);
    while (c) {
        char sq[3];
        square_to_text(bb_pop(&c), sq);
        strcat(checkers, " ");
        strcat(checkers, sq);
    }
    say(uci, "Fen: %s", fen);
    say(uci, "Key: %016" PRIX64, pos_key(pos));
    say(uci, "Checkers:%s", checkers);
    Position copy;
    pos_copy(&copy, pos);
    Verdict v = rules_judge_game(&copy);
    if (v.result == RESULT_NONE)
        say(uci, "Verdict: none");
    else
        say(uci, "Verdict: %s %s (for the side to move)", rules_result_name(v.result),
            rules_reason_name(v.reason));
}

/* The network's line (when one is loaded) and which evaluation search uses, then the
 * handcrafted terms; the handcrafted total stays the last line. */
static void cmd_eval(Uci *uci)
{
    const NnueNet *net = engine_net_loaded(uci->engine);
    if (!net) {
        say(uci, "NNUE: no network (a weights file was loaded); search uses the handcrafted "
                 "evaluation");
    } else {
        const Position *pos = engine_position(uci->engine);
        Value nv = nnue_evaluate_full(net, pos);
        say(uci,
            "NNUE: %d (red view), %d (side to move); network %ux2 -> %u buckets (bucket %d), "
            "SCALE %d, '%s'",
            pos->side == RED ? nv : -nv, nv, net->hidden, net->buckets, nnue_bucket(net, pos),
            net->scale, net->description);
        say(uci, "search uses the %s evaluation: %d (side to move)",
            engine_net(uci->engine) ? "NNUE" : "handcrafted (Use NNUE is false)",
            engine_eval(uci->engine));
    }
    EvalBreakdown bd;
    engine_eval_breakdown(uci->engine, &bd);
    say(uci, "%-18s %17s %17s %17s", "term (red view)", "red mg   eg", "black mg   eg",
        "total mg   eg");
    for (int t = 0; t < EVAL_TERM_NB; t++) {
        EvalSum r = bd.term[t][RED], b = bd.term[t][BLACK];
        say(uci, "%-18s %8d %8d %8d %8d %8d %8d", EVAL_TERM_INFO[t].name, r.mg, r.eg, b.mg, b.eg,
            r.mg - b.mg, r.eg - b.eg);
    }
    Value v = engine_eval_handcrafted(uci->engine);
    say(uci, "phase %d of %d; total %d (red view), %d (side to move)", bd.phase, PHASE_MAX,
        bd.total, v);
}

static void bench_line(void *ctx, int index, const char *fen, const SearchResult *r)
{
    char mv[5];
    move_to_text(r->best, mv);
    say(ctx, "position %2d  bestmove %s  nodes %10" PRIu64 "  %s", index + 1, mv, r->nodes, fen);
}

static UciStatus cmd_bench(Uci *uci, char **tok, int n)
{
    long long depth = BENCH_DEPTH_DEFAULT;
    if (n > 2)
        return refuse(uci, UCI_USAGE, "bench: expected 'bench [depth]'");
    if (n == 2 && !read_number(uci, "bench", tok[1], 1, 30, &depth))
        return UCI_USAGE;
    BenchResult br = engine_bench(uci->engine, (int)depth, bench_line, uci);
    say(uci, "\nNodes searched: %" PRIu64, br.nodes);
    say(uci, "Nodes/second: %" PRIu64,
        br.time_ms > 0 ? br.nodes * 1000 / (uint64_t)br.time_ms : br.nodes * 1000);
    say(uci, "Total time (ms): %" PRId64, br.time_ms);
    return UCI_OK;
}

/* The search's constants with their current values, as fishtest's SPSA input. */
static UciStatus cmd_spsa_params(Uci *uci, int n)
{
    if (n != 1)
        return refuse(uci, UCI_USAGE, "spsa-params: takes no arguments");
    for (int i = 0; i < SPSA_PARAM_NB; i++) {
        char line[160];
        spsa_params_line(engine_search_params(uci->engine), i, line, sizeof line);
        say(uci, "%s", line);
    }
    return UCI_OK;
}

static UciStatus cmd_weights(Uci *uci, char **tok, int n)
{
    WeightsError err;
    if (n != 2)
        return refuse(uci, UCI_USAGE,
                      "weights: expected 'weights <path>' to write the current weights");
    /* never over a run file, a folder or a dangling link; a weights file is replaced */
    char msg[600];
    if (!outpath_check("weights", tok[1], OUTPATH_REPLACE, true, NULL, 0, msg, sizeof msg))
        return refuse(uci, UCI_FAILED, "%s", msg);
    if (!engine_save_weights(uci->engine, tok[1], &err))
        return refuse(uci, UCI_FAILED, "weights: %s", err.msg);
    say(uci, "info string weights written to %s", tok[1]);
    return UCI_OK;
}

/* ---- the loop ------------------------------------------------------------------- */

UciStatus uci_command(Uci *uci, char *line)
{
    static char *tok[MAX_TOKENS];
    int n = tokenize(line, tok, MAX_TOKENS);
    if (n < 0)
        return refuse(uci, UCI_USAGE, "command has more than %d words", MAX_TOKENS);
    if (n == 0)
        return UCI_OK;
    const char *cmd = tok[0];

    /* commands answered while a search runs */
    if (!strcmp(cmd, "isready")) {
        say(uci, "readyok");
        return UCI_OK;
    }
    if (!strcmp(cmd, "stop")) {
        if (uci->searching)
            search_join(uci, true);
        return UCI_OK;
    }
    if (!strcmp(cmd, "ponderhit")) {
        /* UCCI: "ponderhit draw", the opponent offering a draw, never taken */
        if (n > 2 || (n == 2 && (uci->dialect != DIALECT_UCCI || strcmp(tok[1], "draw"))))
            return refuse(uci, UCI_USAGE, "ponderhit: unexpected '%.40s'", tok[1]);
        if (uci->searching)
            engine_ponderhit(uci->engine);
        return UCI_OK;
    }
    if (!strcmp(cmd, "quit")) {
        search_join(uci, true);
        if (uci->dialect == DIALECT_UCCI)
            say(uci, "bye");
        uci->quit = true;
        return UCI_OK;
    }
    /* everything else waits for the search: a GUI that sends them mid-search
     * has already stopped caring about it */
    search_join(uci, true);

    if (!strcmp(cmd, "uci") || !strcmp(cmd, "ucci")) {
        uci->dialect = !strcmp(cmd, "ucci") ? DIALECT_UCCI : DIALECT_UCI;
        say(uci, "id name chuhe %s", CHUHE_VERSION);
        say(uci, "id author the chuhe developers");
        print_options(uci);
        say(uci, uci->dialect == DIALECT_UCCI ? "ucciok" : "uciok");
    } else if (!strcmp(cmd, "ucinewgame")) {
        engine_new_game(uci->engine);
        uci->nbanned = 0;
    } else if (!strcmp(cmd, "position")) {
        return cmd_position(uci, tok, n);
    } else if (!strcmp(cmd, "banmoves") && uci->dialect == DIALECT_UCCI) {
        return cmd_banmoves(uci, tok, n);
    } else if (!strcmp(cmd, "go")) {
        return cmd_go(uci, tok, n);
    } else if (!strcmp(cmd, "setoption")) {
        return cmd_setoption(uci, tok, n);
    } else if (!strcmp(cmd, "d")) {
        cmd_display(uci);
    } else if (!strcmp(cmd, "eval")) {
        cmd_eval(uci);
    } else if (!strcmp(cmd, "bench")) {
        return cmd_bench(uci, tok, n);
    } else if (!strcmp(cmd, "weights")) {
        return cmd_weights(uci, tok, n);
    } else if (!strcmp(cmd, "spsa-params")) {
        return cmd_spsa_params(uci, n);
    } else {
        return refuse(uci, UCI_USAGE, "unknown command '%.40s'", cmd);
    }
    return UCI_OK;
}

void uci_loop(Uci *uci, FILE *in)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while (!uci->quit && (len = getline(&line, &cap, in)) >= 0) {
        /* the text after a NUL would go unseen: a line starting with one would
         * vanish without an answer, one holding one would run only its start */
        if (memchr(line, '\0', (size_t)len))
            refuse(uci, UCI_USAGE, "a command line holds a NUL byte; line ignored");
        else
            uci_command(uci, line);
    }
    free(line);
}
