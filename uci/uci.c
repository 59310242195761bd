#define _GNU_SOURCE
#include "uci.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "movegen.h"
#include "notation.h"
#include "rules.h"

#ifndef CHUHE_VERSION
#define CHUHE_VERSION "unknown"
#endif

enum { MAX_TOKENS = 4096 };

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

static void error_line(Uci *uci, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void error_line(Uci *uci, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    say(uci, "info string error: %s", msg);
}

bool uci_init(Uci *uci, FILE *out)
{
    memset(uci, 0, sizeof *uci);
    uci->engine = engine_new();
    uci->out = out;
    uci->dialect = DIALECT_UCI;
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

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* ---- position ------------------------------------------------------------------- */

static void cmd_position(Uci *uci, char **tok, int n)
{
    char fen[256] = "";
    int i = 1;
    if (i < n && !strcmp(tok[i], "startpos")) {
        i++;
    } else if (i < n && !strcmp(tok[i], "fen")) {
        size_t len = 0;
        for (i++; i < n && strcmp(tok[i], "moves"); i++) {
            size_t tl = strlen(tok[i]);
            if (len + tl + 2 > sizeof fen) {
                error_line(uci, "position: FEN is too long");
                return;
            }
            if (len)
                fen[len++] = ' ';
            memcpy(fen + len, tok[i], tl + 1);
            len += tl;
        }
        if (!len) {
            error_line(uci, "position: 'fen' needs a FEN");
            return;
        }
    } else {
        error_line(uci, "position: expected 'startpos' or 'fen', got '%.40s'",
                   i < n ? tok[i] : "");
        return;
    }
    int nmoves = 0;
    if (i < n) {
        if (strcmp(tok[i], "moves")) {
            error_line(uci, "position: expected 'moves', got '%.40s'", tok[i]);
            return;
        }
        i++;
        nmoves = n - i;
    }
    PosError err;
    if (!engine_set_position(uci->engine, fen[0] ? fen : NULL, (const char *const *)tok + i,
                             nmoves, &err))
        error_line(uci, "position: %s", err.msg);
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
            snprintf(score, sizeof score, "%d", v > 0 ? 30000 - (VALUE_MATE - v) : -30000 + (VALUE_MATE + v));
        else
            snprintf(score, sizeof score, "%d", v);
        if (info->bound == BOUND_EXACT)
            say(uci, "info depth %d score %s time %" PRId64 " nodes %" PRIu64 " pv %s",
                info->depth, score, info->time_ms, info->nodes, pv);
        return;
    }
    search_score_text(info->score, score, sizeof score);
    const char *bound = info->bound == BOUND_LOWER   ? " lowerbound"
                        : info->bound == BOUND_UPPER ? " upperbound"
                                                     : "";
    say(uci,
        "info depth %d seldepth %d multipv 1 score %s%s nodes %" PRIu64 " nps %" PRIu64
        " hashfull %d time %" PRId64 "%s%s",
        info->depth, info->seldepth, score, bound, info->nodes, nps, info->hashfull,
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

static void go_perft(Uci *uci, char **tok, int n)
{
    long depth;
    if (n != 3 || !parse_long(tok[2], 1, 12, &depth)) {
        error_line(uci, "go perft: expected a depth from 1 to 12");
        return;
    }
    DivideCtx ctx = {uci};
    int64_t t0 = time_now_ms();
    uint64_t total = engine_perft(uci->engine, (int)depth, divide_line, &ctx);
    int64_t dt = time_now_ms() - t0;
    say(uci, "\nNodes searched: %" PRIu64, total);
    say(uci, "info string perft time %.3f s, %.0f nodes/s", (double)dt / 1000,
        dt > 0 ? (double)total * 1000 / (double)dt : 0.0);
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
        long x;
        int64_t *slot = NULL;
        long lo = 0, hi = 1L << 40;
        if (!strcmp(k, "infinite")) {
            l->infinite = true;
            continue;
        }
        if (!strcmp(k, "ponder") || !strcmp(k, "draw")) {
            /* no pondering: a ponder search is an infinite one that "stop" ends */
            if (!strcmp(k, "ponder"))
                l->infinite = true;
            continue;
        }
        if (!strcmp(k, "depth") && v && !strcmp(v, "infinite")) {
            l->infinite = true;
            i++;
            continue;
        }
        if (!strcmp(k, "wtime"))
            slot = &l->time[RED];
        else if (!strcmp(k, "btime"))
            slot = &l->time[BLACK];
        else if (!strcmp(k, "winc"))
            slot = &l->inc[RED];
        else if (!strcmp(k, "binc"))
            slot = &l->inc[BLACK];
        else if (!strcmp(k, "movetime"))
            slot = &l->movetime;
        else if (!strcmp(k, "time"))
            slot = &l->time[us];
        else if (!strcmp(k, "opptime"))
            slot = &l->time[them];
        else if (!strcmp(k, "increment"))
            slot = &l->inc[us];
        else if (!strcmp(k, "oppincrement"))
            slot = &l->inc[them];
        if (slot) {
            /* GUIs send negative clocks when a side is already out of time */
            if (!v || !parse_long(v, -(1L << 40), hi, &x)) {
                error_line(uci, "go: '%s' needs a number", k);
                return false;
            }
            /* UCCI clocks are in seconds, UCI ones in milliseconds */
            bool ucci_clock = slot != &l->movetime && (!strcmp(k, "time") || !strcmp(k, "opptime") ||
                                                       !strcmp(k, "increment") ||
                                                       !strcmp(k, "oppincrement"));
            *slot = (x < 0 ? 0 : x) * (ucci_clock ? 1000 : 1);
            i++;
            continue;
        }
        if (!strcmp(k, "depth") || !strcmp(k, "nodes") || !strcmp(k, "movestogo") ||
            !strcmp(k, "oppmovestogo") || !strcmp(k, "mate")) {
            if (!strcmp(k, "depth")) {
                lo = 1;
                hi = MAX_PLY - 4;
            }
            if (!v || !parse_long(v, lo, hi, &x)) {
                error_line(uci, "go: '%s' needs a number from %ld to %ld", k, lo, hi);
                return false;
            }
            if (!strcmp(k, "depth"))
                l->depth = (int)x;
            else if (!strcmp(k, "nodes"))
                l->nodes = (uint64_t)x;
            else if (!strcmp(k, "movestogo"))
                l->movestogo = (int)x;
            i++;
            continue;
        }
        error_line(uci, "go: unknown parameter '%.40s'", k);
        return false;
    }
    /* a clock for the side to move only: treat the other as equal */
    if (l->time[us] >= 0 && l->time[them] < 0)
        l->time[them] = l->time[us];
    return true;
}

static void cmd_go(Uci *uci, char **tok, int n)
{
    if (n >= 2 && !strcmp(tok[1], "perft")) {
        go_perft(uci, tok, n);
        return;
    }
    SearchLimits limits;
    if (!parse_go(uci, tok, n, &limits))
        return;
    uci->limits = limits;
    if (pthread_create(&uci->thread, NULL, search_thread, uci) != 0) {
        error_line(uci, "go: cannot start the search thread");
        return;
    }
    uci->searching = true;
}

/* ---- options -------------------------------------------------------------------- */

static void print_options(Uci *uci)
{
    if (uci->dialect == DIALECT_UCCI) {
        say(uci, "option hashsize type spin min 1 max %d default %d", ENGINE_HASH_MAX_MB,
            ENGINE_HASH_DEFAULT_MB);
        say(uci, "option clearhash type button");
        say(uci, "option evalfile type string default <builtin>");
        return;
    }
    say(uci, "option name Hash type spin default %d min 1 max %d", ENGINE_HASH_DEFAULT_MB,
        ENGINE_HASH_MAX_MB);
    say(uci, "option name Clear Hash type button");
    say(uci, "option name Threads type spin default 1 min 1 max 1");
    say(uci, "option name Move Overhead type spin default 10 min 0 max 5000");
    say(uci, "option name EvalFile type string default <builtin>");
    say(uci, "option name UCI_Variant type combo default xiangqi var xiangqi");
}

static void set_option(Uci *uci, const char *name, const char *value)
{
    long x;
    if (!strcasecmp(name, "Hash") || !strcasecmp(name, "hashsize")) {
        if (!parse_long(value, 1, ENGINE_HASH_MAX_MB, &x))
            error_line(uci, "setoption: Hash needs a size from 1 to %d MB", ENGINE_HASH_MAX_MB);
        else if (!engine_set_hash(uci->engine, (size_t)x))
            error_line(uci, "setoption: cannot allocate %ld MB of hash; using %d MB", x,
                       engine_hash_mb(uci->engine));
    } else if (!strcasecmp(name, "Clear Hash") || !strcasecmp(name, "clearhash")) {
        engine_clear_hash(uci->engine);
    } else if (!strcasecmp(name, "Threads")) {
        if (!parse_long(value, 1, 1, &x))
            error_line(uci, "setoption: Threads must be 1");
    } else if (!strcasecmp(name, "Move Overhead")) {
        if (!parse_long(value, 0, 5000, &x))
            error_line(uci, "setoption: Move Overhead needs 0 to 5000 ms");
        else
            engine_set_move_overhead(uci->engine, (int)x);
    } else if (!strcasecmp(name, "EvalFile") || !strcasecmp(name, "evalfile")) {
        WeightsError err;
        if (!value || !*value)
            error_line(uci, "setoption: EvalFile needs a path");
        else if (!strcmp(value, "<builtin>"))
            ; /* the default: nothing to load */
        else if (!engine_load_weights(uci->engine, value, &err))
            error_line(uci, "setoption: EvalFile: %s; previous weights kept", err.msg);
    } else if (!strcasecmp(name, "UCI_Variant")) {
        if (!value || strcasecmp(value, "xiangqi"))
            error_line(uci, "setoption: only the xiangqi variant is played");
    } else {
        error_line(uci, "setoption: unknown option '%.60s'", name);
    }
}

/* UCI: "setoption name <words> [value <words>]"; UCCI: "setoption <name> [<value>]". */
static void cmd_setoption(Uci *uci, char **tok, int n)
{
    char name[128] = "", value[1024] = "";
    int i = 1;
    if (uci->dialect == DIALECT_UCCI && n >= 2 && strcmp(tok[1], "name")) {
        snprintf(name, sizeof name, "%s", tok[1]);
        i = 2;
        for (; i < n; i++) {
            size_t l = strlen(value);
            snprintf(value + l, sizeof value - l, "%s%s", l ? " " : "", tok[i]);
        }
        set_option(uci, name, value[0] ? value : NULL);
        return;
    }
    if (n < 3 || strcmp(tok[1], "name")) {
        error_line(uci, "setoption: expected 'setoption name <name> [value <value>]'");
        return;
    }
    for (i = 2; i < n && strcmp(tok[i], "value"); i++) {
        size_t l = strlen(name);
        snprintf(name + l, sizeof name - l, "%s%s", l ? " " : "", tok[i]);
    }
    bool has_value = i < n;
    for (i++; i < n; i++) {
        size_t l = strlen(value);
        snprintf(value + l, sizeof value - l, "%s%s", l ? " " : "", tok[i]);
    }
    set_option(uci, name, has_value ? value : NULL);
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

static void cmd_eval(Uci *uci)
{
    EvalBreakdown bd;
    engine_eval_breakdown(uci->engine, &bd);
    say(uci, "%-18s %17s %17s %17s", "term (red view)", "red mg   eg", "black mg   eg",
        "total mg   eg");
    for (int t = 0; t < EVAL_TERM_NB; t++) {
        Score r = bd.term[t][RED], b = bd.term[t][BLACK];
        say(uci, "%-18s %8d %8d %8d %8d %8d %8d", EVAL_TERM_INFO[t].name, score_mg(r),
            score_eg(r), score_mg(b), score_eg(b), score_mg(r) - score_mg(b),
            score_eg(r) - score_eg(b));
    }
    Value v = engine_eval(uci->engine);
    say(uci, "phase %d of %d; total %d (red view), %d (side to move)", bd.phase, PHASE_MAX,
        bd.total, v);
}

static void bench_line(void *ctx, int index, const char *fen, const SearchResult *r)
{
    char mv[5];
    move_to_text(r->best, mv);
    say(ctx, "position %2d  bestmove %s  nodes %10" PRIu64 "  %s", index + 1, mv, r->nodes,
        fen);
}

static void cmd_bench(Uci *uci, char **tok, int n)
{
    long depth = BENCH_DEPTH_DEFAULT;
    if (n >= 2 && !parse_long(tok[1], 1, 30, &depth)) {
        error_line(uci, "bench: expected a depth from 1 to 30");
        return;
    }
    BenchResult br = engine_bench(uci->engine, (int)depth, bench_line, uci);
    say(uci, "\nNodes searched: %" PRIu64, br.nodes);
    say(uci, "Nodes/second: %" PRIu64,
        br.time_ms > 0 ? br.nodes * 1000 / (uint64_t)br.time_ms : br.nodes * 1000);
    say(uci, "Total time (ms): %" PRId64, br.time_ms);
}

static void cmd_weights(Uci *uci, char **tok, int n)
{
    WeightsError err;
    if (n != 2)
        error_line(uci, "weights: expected 'weights <path>' to write the current weights");
    else if (!engine_save_weights(uci->engine, tok[1], &err))
        error_line(uci, "weights: %s", err.msg);
    else
        say(uci, "info string weights written to %s", tok[1]);
}

/* ---- the loop ------------------------------------------------------------------- */

void uci_command(Uci *uci, char *line)
{
    static char *tok[MAX_TOKENS];
    int n = tokenize(line, tok, MAX_TOKENS);
    if (n < 0) {
        error_line(uci, "command has more than %d words", MAX_TOKENS);
        return;
    }
    if (n == 0)
        return;
    const char *cmd = tok[0];

    /* commands answered while a search runs */
    if (!strcmp(cmd, "isready")) {
        say(uci, "readyok");
        return;
    }
    if (!strcmp(cmd, "stop") || !strcmp(cmd, "ponderhit")) {
        if (uci->searching)
            search_join(uci, true);
        return;
    }
    if (!strcmp(cmd, "quit")) {
        search_join(uci, true);
        if (uci->dialect == DIALECT_UCCI)
            say(uci, "bye");
        uci->quit = true;
        return;
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
    } else if (!strcmp(cmd, "position")) {
        cmd_position(uci, tok, n);
    } else if (!strcmp(cmd, "go")) {
        cmd_go(uci, tok, n);
    } else if (!strcmp(cmd, "setoption")) {
        cmd_setoption(uci, tok, n);
    } else if (!strcmp(cmd, "d")) {
        cmd_display(uci);
    } else if (!strcmp(cmd, "eval")) {
        cmd_eval(uci);
    } else if (!strcmp(cmd, "bench")) {
        cmd_bench(uci, tok, n);
    } else if (!strcmp(cmd, "weights")) {
        cmd_weights(uci, tok, n);
    } else {
        error_line(uci, "unknown command '%.40s'", cmd);
    }
}

void uci_loop(Uci *uci, FILE *in)
{
    char *line = NULL;
    size_t cap = 0;
    while (!uci->quit && getline(&line, &cap, in) >= 0)
        uci_command(uci, line);
    free(line);
}
