#include "extengine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "notation.h"
#include "record.h"
#include "diag.h"
#include "timeman.h"

enum {
    EXT_DEFAULT_MS = 10000,    /* startup and ready timeouts when the config gives none */
    XB_FEATURE_WAIT_MS = 2000, /* protocol 2: features come within 2 s unless done=0 */
    XB_OPTIONS_MAX = 4096,
};

/* What an XBoard engine announced in its features. */
typedef struct {
    bool ping, setboard, usermove, time, reuse, memory, smp, xiangqi;
    char myname[128];
    char options[XB_OPTIONS_MAX]; /* announced option names, each followed by '\n' */
    bool options_cut;             /* more were announced than options holds */
} XbFeatures;

/* The game an XBoard engine's board holds: after "new", fen set by setboard and the
 * moves played since (in force mode, or its own answers to "go"). */
typedef struct {
    bool in_game;    /* "new" and "variant xiangqi" sent */
    bool level_sent; /* the game's clock sent with "level" */
    char fen[RECORD_FEN_MAX];
    int nmoves;
    char moves[RECORD_MAX_PLIES][5];
    int ping_id;
} XbBoard;

struct ExtEngine {
    ExtEngineConfig cfg;
    ExtProc proc;
    XbFeatures xb;
    XbBoard board;
};

ExtEngine *ext_new(const ExtEngineConfig *cfg)
{
    ExtEngine *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->cfg = *cfg;
    extproc_init(&e->proc);
    return e;
}

bool ext_same_config(const ExtEngine *e, const ExtEngineConfig *cfg)
{
    return e->cfg.proto == cfg->proto && !strcmp(e->cfg.command, cfg->command) &&
           !strcmp(e->cfg.dir, cfg->dir) && !strcmp(e->cfg.options, cfg->options);
}

void ext_set_idle(ExtEngine *e, ExtIdleFn fn, void *ctx)
{
    extproc_set_idle(&e->proc, fn, ctx);
}

uint64_t ext_starts(const ExtEngine *e)
{
    return e->proc.starts;
}

const char *ext_last_error(const ExtEngine *e)
{
    return e->proc.error;
}

static void ext_kill(ExtEngine *e, bool polite)
{
    extproc_stop(&e->proc, polite, "quit");
    memset(&e->board, 0, sizeof e->board);
}

void ext_free(ExtEngine **e)
{
    if (!*e)
        return;
    ext_kill(*e, true);
    free(*e);
    *e = NULL;
}

static int startup_ms(const ExtEngine *e)
{
    return e->cfg.startup_ms > 0 ? e->cfg.startup_ms : EXT_DEFAULT_MS;
}

static int ready_ms(const ExtEngine *e)
{
    return e->cfg.ready_ms > 0 ? e->cfg.ready_ms : EXT_DEFAULT_MS;
}

static bool starts_with_word(const char *line, const char *word)
{
    size_t n = strlen(word);
    return !strncmp(line, word, n) && (line[n] == '\0' || line[n] == ' ');
}

/* Reads lines until one starts with the words want; false (engine killed) otherwise. */
static bool expect(ExtEngine *e, const char *want, int64_t deadline)
{
    char line[EXTPROC_LINE_MAX];
    for (;;) {
        ExtProcRead st = extproc_read_line(&e->proc, deadline, line, sizeof line);
        if (st == EXTPROC_TIMEOUT)
            extproc_fail(&e->proc, "no '%s' in time", want);
        if (st != EXTPROC_LINE) {
            ext_kill(e, false);
            return false;
        }
        if (starts_with_word(line, want))
            return true;
    }
}

/* Calls fn(e, name, value) for every Name=Value of the configured options. */
static bool each_option(ExtEngine *e, bool (*fn)(ExtEngine *, const char *, const char *))
{
    char opts[EXT_TEXT_MAX];
    snprintf(opts, sizeof opts, "%s", e->cfg.options);
    for (char *save = NULL, *tok = strtok_r(opts, ";", &save); tok;
         tok = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            extproc_fail(&e->proc, "option '%s' is not Name=Value", tok);
            return false;
        }
        *eq = '\0';
        if (!fn(e, tok, eq + 1))
            return false;
    }
    return true;
}

/* ---- UCI and UCCI ---- */

static bool uci_option(ExtEngine *e, const char *name, const char *value)
{
    if (e->cfg.proto == PROTO_EXT_UCCI)
        return extproc_send(&e->proc, "setoption %s %s", name, value);
    return extproc_send(&e->proc, "setoption name %s value %s", name, value);
}

static bool uci_start(ExtEngine *e)
{
    bool ucci = e->cfg.proto == PROTO_EXT_UCCI;
    bool ok = extproc_send(&e->proc, ucci ? "ucci" : "uci") &&
              expect(e, ucci ? "ucciok" : "uciok", time_now_ms() + startup_ms(e));
    if (ok && e->cfg.proto == PROTO_EXT_UCI1)
        ok = uci_option(e, "UCI_Variant", "xiangqi");
    return ok && each_option(e, uci_option) && extproc_send(&e->proc, "isready") &&
           expect(e, "readyok", time_now_ms() + ready_ms(e));
}

static int64_t at_least(int64_t v, int64_t lo)
{
    return v < lo ? lo : v;
}

static bool clocked(const SearchLimits *l)
{
    return l->time[RED] >= 0 && l->time[BLACK] >= 0;
}

static bool uci_go(ExtEngine *e, const SearchLimits *l, Color us)
{
    char go[512];
    size_t n = 0;
    n += (size_t)snprintf(go + n, sizeof go - n, "go");
    bool ucci = e->cfg.proto == PROTO_EXT_UCCI;
    if (clocked(l)) {
        Color them = color_flip(us);
        if (ucci)
            n += (size_t)snprintf(
                go + n, sizeof go - n, " time %lld increment %lld opptime %lld oppincrement %lld",
                (long long)at_least(l->time[us] / 1000, 1), (long long)(l->inc[us] / 1000),
                (long long)at_least(l->time[them] / 1000, 1), (long long)(l->inc[them] / 1000));
        else
            n += (size_t)snprintf(go + n, sizeof go - n,
                                  " wtime %lld btime %lld winc %lld binc %lld",
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
    return extproc_send(&e->proc, "%s", go);
}

/* "position fen F moves m1 m2 ...": the engine sees every repetition. */
static bool uci_position(ExtEngine *e, const char *start_fen, const char *const *moves, int nmoves)
{
    char *line = malloc(EXTPROC_LINE_MAX + (size_t)nmoves * 8);
    if (!line) {
        extproc_fail(&e->proc, "out of memory");
        return false;
    }
    size_t n = (size_t)sprintf(line, "position fen %.*s", RECORD_FEN_MAX, start_fen);
    if (nmoves)
        n += (size_t)sprintf(line + n, " moves");
    bool ok = true;
    for (int i = 0; i < nmoves && ok; i++) {
        char m[8];
        ok = exttrans_move_out(e->cfg.proto, moves[i], m, sizeof m);
        if (!ok)
            extproc_fail(&e->proc, "move %d '%.8s' is not a move", i + 1, moves[i]);
        n += (size_t)sprintf(line + n, " %s", m);
    }
    ok = ok && extproc_send(&e->proc, "%s", line);
    free(line);
    return ok;
}

/* The next line of a search; false with *st set (and the engine killed) when the
 * deadline passed or the engine died first. */
static bool search_line(ExtEngine *e, int64_t deadline, char *text, size_t size,
                        GameSearchStatus *st)
{
    ExtProcRead r = extproc_read_line(&e->proc, deadline, text, size);
    if (r == EXTPROC_LINE)
        return true;
    if (r == EXTPROC_TIMEOUT)
        extproc_fail(&e->proc, "no move before the deadline");
    ext_kill(e, false);
    *st = r == EXTPROC_TIMEOUT ? GAME_SEARCH_TIMEOUT : GAME_SEARCH_CRASH;
    return false;
}

/* The first word at p: blanks skipped, cut at the next blank. */
static char *first_word(char *p)
{
    while (*p == ' ')
        p++;
    char *end = strchr(p, ' ');
    if (end)
        *end = '\0';
    return p;
}

/* The engine's move text m as out->best (chuhe's text in mv); false when m is not a
 * move, which leaves MOVE_NONE: the game loop then scores an illegal move. */
static bool take_move(ExtEngine *e, const char *m, SearchResult *out, char mv[5])
{
    if (exttrans_move_in(e->cfg.proto, m, mv)) {
        out->best = move_from_text(mv);
        return true;
    }
    extproc_fail(&e->proc, "unparsable move '%.20s'", m);
    return false;
}

/* Waits for bestmove, reading info lines into out. */
static GameSearchStatus uci_wait(ExtEngine *e, int64_t deadline, SearchResult *out)
{
    char text[EXTPROC_LINE_MAX];
    GameSearchStatus st;
    for (;;) {
        if (!search_line(e, deadline, text, sizeof text, &st))
            return st;
        if (starts_with_word(text, "info")) {
            exttrans_parse_info(text, out);
        } else if (starts_with_word(text, "bestmove")) {
            char mv[5];
            take_move(e, first_word(text + 8), out, mv);
            return GAME_SEARCH_OK;
        } else if (!strcmp(text, "nobestmove")) {
            return GAME_SEARCH_OK;
        }
    }
}

/* ---- XBoard (CECP protocol 2) ---- */

/* The boolean features the worker acts on, by name. */
static bool *xb_flag(XbFeatures *f, const char *name)
{
    const struct {
        const char *name;
        bool *flag;
    } FLAGS[] = {{"ping", &f->ping}, {"setboard", &f->setboard}, {"usermove", &f->usermove},
                 {"time", &f->time}, {"reuse", &f->reuse},       {"memory", &f->memory},
                 {"smp", &f->smp}};
    for (size_t i = 0; i < sizeof FLAGS / sizeof FLAGS[0]; i++)
        if (!strcmp(name, FLAGS[i].name))
            return FLAGS[i].flag;
    return NULL;
}

/* Notes a feature; false when the worker does not take it (answered "rejected"). */
static bool xb_feature(ExtEngine *e, const char *name, const char *value)
{
    static const char *const KNOWN[] = {"done",   "playother", "draw",    "sigterm",  "analyze",
                                        "colors", "ics",       "name",    "pause",    "nps",
                                        "debug",  "egt",       "exclude", "setscore", "highlight"};
    XbFeatures *f = &e->xb;
    bool on = !strcmp(value, "1");
    bool *flag = xb_flag(f, name);
    if (flag) {
        *flag = on;
    } else if (!strcmp(name, "myname")) {
        snprintf(f->myname, sizeof f->myname, "%.127s", value);
    } else if (!strcmp(name, "variants")) {
        f->xiangqi = exttrans_has_variant(value, "xiangqi");
    } else if (!strcmp(name, "san") || !strcmp(name, "sigint")) {
        return !on; /* coordinate moves only; the worker never sends SIGINT */
    } else if (!strcmp(name, "option")) {
        char opt[256];
        size_t used = strlen(f->options);
        if (!exttrans_option_name(value, opt, sizeof opt))
            return false;
        if (used + strlen(opt) + 2 > sizeof f->options)
            f->options_cut = true;
        else
            snprintf(f->options + used, sizeof f->options - used, "%s\n", opt);
    } else {
        for (size_t i = 0; i < sizeof KNOWN / sizeof KNOWN[0]; i++)
            if (!strcmp(name, KNOWN[i]))
                return true;
        return false;
    }
    return true;
}

/* Reads the features after "protover 2", answering each, until done=1 (or, without
 * done=0, two seconds of silence as the protocol allows). */
static bool xb_features(ExtEngine *e)
{
    memset(&e->xb, 0, sizeof e->xb);
    e->xb.reuse = e->xb.time = true; /* the protocol's defaults */
    int64_t start = time_now_ms();
    int64_t deadline =
        start + (startup_ms(e) < XB_FEATURE_WAIT_MS ? startup_ms(e) : XB_FEATURE_WAIT_MS);
    bool waiting_done = false;
    char line[EXTPROC_LINE_MAX];
    for (;;) {
        ExtProcRead st = extproc_read_line(&e->proc, deadline, line, sizeof line);
        if (st == EXTPROC_TIMEOUT && !waiting_done)
            return true;
        if (st == EXTPROC_TIMEOUT)
            extproc_fail(&e->proc, "no 'feature done=1' in time");
        if (st != EXTPROC_LINE)
            return false;
        if (!starts_with_word(line, "feature"))
            continue;
        const char *cur = line + 7;
        char name[64], value[EXTPROC_LINE_MAX];
        bool done = false;
        while (exttrans_next_feature(&cur, name, sizeof name, value, sizeof value)) {
            bool taken = xb_feature(e, name, value);
            if (!extproc_send(&e->proc, "%s %s", taken ? "accepted" : "rejected", name))
                return false;
            if (!strcmp(name, "done")) {
                done = !strcmp(value, "1");
                waiting_done = !done;
                if (waiting_done)
                    deadline = start + startup_ms(e);
            }
        }
        if (*cur) {
            extproc_fail(&e->proc, "malformed feature '%.40s'", cur);
            return false;
        }
        if (done)
            return true;
    }
}

static bool xb_has_option(const ExtEngine *e, const char *name)
{
    if (e->xb.options_cut || !e->xb.options[0])
        return true; /* nothing (complete) to check against */
    size_t n = strlen(name);
    for (const char *s = e->xb.options; *s;) {
        const char *nl = strchr(s, '\n');
        if ((size_t)(nl - s) == n && !strncmp(s, name, n))
            return true;
        s = nl + 1;
    }
    return false;
}

static bool xb_option(ExtEngine *e, const char *name, const char *value)
{
    if (!strcmp(name, "memory") || !strcmp(name, "cores")) {
        bool memory = name[0] == 'm';
        if (!(memory ? e->xb.memory : e->xb.smp)) {
            extproc_fail(&e->proc, "the engine did not announce feature %s=1",
                         memory ? "memory" : "smp");
            return false;
        }
        return extproc_send(&e->proc, "%s %s", name, value);
    }
    if (!xb_has_option(e, name)) {
        extproc_fail(&e->proc, "the engine has no option '%.60s'", name);
        return false;
    }
    return extproc_send(&e->proc, "option %s=%s", name, value);
}

/* ping N, then pong N before the ready timeout (nothing to wait for without ping). */
static bool xb_ready(ExtEngine *e)
{
    if (!e->xb.ping)
        return true;
    int id = ++e->board.ping_id;
    char want[32];
    snprintf(want, sizeof want, "pong %d", id);
    return extproc_send(&e->proc, "ping %d", id) && expect(e, want, time_now_ms() + ready_ms(e));
}

static bool xb_start(ExtEngine *e)
{
    if (!extproc_send(&e->proc, "xboard") || !extproc_send(&e->proc, "protover 2") ||
        !xb_features(e))
        return false;
    if (!e->xb.xiangqi) {
        extproc_fail(&e->proc, "no xiangqi in the engine's feature variants");
        return false;
    }
    if (!e->xb.setboard) {
        extproc_fail(&e->proc, "the engine did not announce feature setboard=1");
        return false;
    }
    return each_option(e, xb_option) && xb_ready(e);
}

/* "new" for a fresh game: force mode, thinking output on, no pondering. */
static bool xb_new(ExtEngine *e)
{
    int ping_id = e->board.ping_id;
    memset(&e->board, 0, sizeof e->board);
    e->board.ping_id = ping_id;
    e->board.in_game = extproc_send(&e->proc, "new") && extproc_send(&e->proc, "variant xiangqi") &&
                       extproc_send(&e->proc, "force") && extproc_send(&e->proc, "post") &&
                       extproc_send(&e->proc, "easy");
    return e->board.in_game;
}

static bool xb_send_move(ExtEngine *e, const char *m)
{
    char text[8];
    if (!exttrans_move_out(PROTO_EXT_XBOARD, m, text, sizeof text)) {
        extproc_fail(&e->proc, "'%.8s' is not a move", m);
        return false;
    }
    if (e->board.nmoves >= RECORD_MAX_PLIES) {
        extproc_fail(&e->proc, "more than %d moves", RECORD_MAX_PLIES);
        return false;
    }
    memcpy(e->board.moves[e->board.nmoves++], m, 5);
    return extproc_send(&e->proc, "%s%s", e->xb.usermove ? "usermove " : "", text);
}

/* Brings the engine's board, in force mode, to start_fen + moves: only the new moves
 * when it holds a beginning of this game, else a new game and setboard. */
static bool xb_sync(ExtEngine *e, const char *start_fen, const char *const *moves, int nmoves)
{
    XbBoard *b = &e->board;
    bool prefix = b->in_game && b->fen[0] && !strcmp(b->fen, start_fen) && b->nmoves <= nmoves;
    for (int i = 0; prefix && i < b->nmoves; i++)
        prefix = !strcmp(b->moves[i], moves[i]);
    if (!extproc_send(&e->proc, "force"))
        return false;
    if (!prefix) {
        char fen[RECORD_FEN_MAX];
        if (strlen(start_fen) >= sizeof b->fen ||
            !exttrans_fen_out(PROTO_EXT_XBOARD, start_fen, fen, sizeof fen)) {
            extproc_fail(&e->proc, "start FEN too long");
            return false;
        }
        if ((!b->in_game || b->fen[0]) && !xb_new(e)) /* "new" unless just sent */
            return false;
        if (!extproc_send(&e->proc, "setboard %s", fen))
            return false;
        snprintf(b->fen, sizeof b->fen, "%s", start_fen);
    }
    for (int i = b->nmoves; i < nmoves; i++)
        if (!xb_send_move(e, moves[i]))
            return false;
    return true;
}

/* Milliseconds as XBoard seconds: "2", "0.05". */
static void xb_seconds(int64_t ms, char *buf, size_t size)
{
    if (ms % 1000 == 0)
        snprintf(buf, size, "%lld", (long long)(ms / 1000));
    else {
        snprintf(buf, size, "%lld.%03lld", (long long)(ms / 1000), (long long)(ms % 1000));
        for (size_t n = strlen(buf); buf[n - 1] == '0'; n--)
            buf[n - 1] = '\0';
    }
}

static bool xb_go(ExtEngine *e, const SearchLimits *l, Color us)
{
    XbBoard *b = &e->board;
    char inc[32];
    if (l->depth && !extproc_send(&e->proc, "sd %d", l->depth))
        return false;
    if (clocked(l)) {
        /* the clock of the game, once: this side's first search sees it whole */
        if (!b->level_sent) {
            int64_t base_s = at_least(l->time[us] / 1000, 1);
            xb_seconds(l->inc[us], inc, sizeof inc);
            if (!extproc_send(&e->proc, "level 0 %lld:%02lld %s", (long long)(base_s / 60),
                              (long long)(base_s % 60), inc))
                return false;
            b->level_sent = true;
        }
        if (e->xb.time &&
            (!extproc_send(&e->proc, "time %lld", (long long)(l->time[us] / 10)) ||
             !extproc_send(&e->proc, "otim %lld", (long long)(l->time[color_flip(us)] / 10))))
            return false;
    } else if (l->movetime > 0) {
        char st[32];
        xb_seconds(l->movetime, st, sizeof st);
        if (!extproc_send(&e->proc, "st %s", st))
            return false;
    }
    return extproc_send(&e->proc, "go");
}

/* The move of "move X" or "My move is: X", or NULL. */
static const char *xb_move_text(char *line)
{
    if (starts_with_word(line, "move"))
        return first_word(line + 4);
    if (!strncmp(line, "My move is", 10) && strchr(line, ':'))
        return first_word(strchr(line, ':') + 1);
    return NULL;
}

static bool is_claim(const char *line)
{
    return starts_with_word(line, "1-0") || starts_with_word(line, "0-1") ||
           starts_with_word(line, "1/2-1/2");
}

/* Waits for the engine's move, reading its thinking output into out. */
static GameSearchStatus xb_wait(ExtEngine *e, int64_t deadline, SearchResult *out)
{
    char text[EXTPROC_LINE_MAX];
    GameSearchStatus st;
    for (;;) {
        if (!search_line(e, deadline, text, sizeof text, &st))
            return st;
        const char *m = xb_move_text(text);
        if (m) {
            /* the engine played it on its board */
            char mv[5];
            if (take_move(e, m, out, mv) && e->board.nmoves < RECORD_MAX_PLIES)
                memcpy(e->board.moves[e->board.nmoves++], mv, 5);
            return GAME_SEARCH_OK;
        }
        if (starts_with_word(text, "resign")) {
            extproc_fail(&e->proc, "resigned");
            return GAME_SEARCH_RESIGN;
        }
        if (is_claim(text)) {
            diag_info("engine '%s' claims %.200s (the referee decides)", e->cfg.command, text);
        } else if (!strncmp(text, "Illegal move", 12)) {
            /* it refused a move of the game: its board is not the game's */
            extproc_fail(&e->proc, "engine refused a move: %.200s", text);
            ext_kill(e, false);
            return GAME_SEARCH_CRASH;
        } else if (!strncmp(text, "Error", 5) || starts_with_word(text, "tellusererror")) {
            diag_info("engine '%s': %.200s", e->cfg.command, text);
        } else {
            exttrans_parse_thinking(text, out);
        }
    }
}

/* ---- both ---- */

bool ext_start(ExtEngine *e, char *err, size_t size)
{
    if (extproc_running(&e->proc))
        return true;
    e->proc.error[0] = '\0';
    memset(&e->board, 0, sizeof e->board);
    bool ok = extproc_spawn(&e->proc, e->cfg.command, e->cfg.dir) &&
              (e->cfg.proto == PROTO_EXT_XBOARD ? xb_start(e) : uci_start(e));
    if (!ok) {
        snprintf(err, size, "engine '%.200s' (%s) did not start: %.250s", e->cfg.command,
                 proto_ext_protocol_name(e->cfg.proto),
                 e->proc.error[0] ? e->proc.error : "no handshake");
        ext_kill(e, false);
        return false;
    }
    return true;
}

void ext_new_game(void *ctx)
{
    ExtEngine *e = ctx;
    char err[512];
    /* an XBoard engine without reuse=1 plays each game in a new process */
    if (e->cfg.proto == PROTO_EXT_XBOARD && !e->xb.reuse && e->board.in_game)
        ext_kill(e, true);
    if (!ext_start(e, err, sizeof err))
        return; /* the next search reports the crash */
    if (e->cfg.proto == PROTO_EXT_XBOARD) {
        if (xb_new(e))
            xb_ready(e);
        return;
    }
    if (e->cfg.proto != PROTO_EXT_UCCI && !extproc_send(&e->proc, "ucinewgame"))
        return;
    if (extproc_send(&e->proc, "isready"))
        expect(e, "readyok", time_now_ms() + ready_ms(e));
}

GameSearchStatus ext_search(void *ctx, const char *start_fen, const char *const *moves, int nmoves,
                            const SearchLimits *limits, int64_t deadline_ms, SearchResult *out)
{
    ExtEngine *e = ctx;
    memset(out, 0, sizeof *out);
    out->best = MOVE_NONE;
    char err[512];
    if (!ext_start(e, err, sizeof err))
        return GAME_SEARCH_CRASH;
    /* The side to move: the FEN's, flipped once per move. */
    const char *side = strchr(start_fen, ' ');
    Color us = side && (side[1] == 'b') ? BLACK : RED;
    if (nmoves % 2)
        us = color_flip(us);
    bool xboard = e->cfg.proto == PROTO_EXT_XBOARD;
    bool sent = xboard ? xb_sync(e, start_fen, moves, nmoves) && xb_go(e, limits, us)
                       : uci_position(e, start_fen, moves, nmoves) && uci_go(e, limits, us);
    if (!sent) {
        ext_kill(e, false);
        return GAME_SEARCH_CRASH;
    }
    return xboard ? xb_wait(e, deadline_ms, out) : uci_wait(e, deadline_ms, out);
}
