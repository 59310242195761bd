#include "extxboard.h"

#include <stdio.h>
#include <string.h>

#include "record.h"
#include "timeman.h"

enum {
    XB_FEATURE_WAIT_MS = 2000, /* protocol 2: features come within 2 s unless done=0 */
};

/* What an XBoard engine announced in its features. */
typedef struct {
    bool ping, setboard, usermove, time, reuse, memory, smp, xiangqi;
    char myname[128];
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

/* The dialogue's state in the ExtEngine (zero while no process runs). */
typedef struct {
    XbFeatures features;
    XbBoard board;
} XbState;

static XbFeatures *xb_features_of(const ExtEngine *e)
{
    return &((XbState *)e->state)->features;
}

static XbBoard *xb_board_of(const ExtEngine *e)
{
    return &((XbState *)e->state)->board;
}

/* The boolean features the dialogue acts on, by name. */
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

/* Notes a feature; false when the dialogue does not take it (answered "rejected"). */
static bool xb_feature(ExtEngine *e, const char *name, const char *value)
{
    static const char *const KNOWN[] = {"done",   "playother", "draw",    "sigterm",  "analyze",
                                        "colors", "ics",       "name",    "pause",    "nps",
                                        "debug",  "egt",       "exclude", "setscore", "highlight"};
    XbFeatures *f = xb_features_of(e);
    bool on = !strcmp(value, "1");
    bool *flag = xb_flag(f, name);
    if (flag) {
        *flag = on;
    } else if (!strcmp(name, "myname")) {
        snprintf(f->myname, sizeof f->myname, "%.127s", value);
    } else if (!strcmp(name, "variants")) {
        f->xiangqi = exttrans_has_variant(value, "xiangqi");
    } else if (!strcmp(name, "san") || !strcmp(name, "sigint")) {
        return !on; /* coordinate moves only; SIGINT is never sent */
    } else if (!strcmp(name, "option")) {
        ExtOption o;
        if (!exttrans_xboard_option(value, &o))
            return false;
        extdialog_add_option(e, &o);
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
    XbFeatures *f = xb_features_of(e);
    memset(f, 0, sizeof *f);
    f->reuse = f->time = true; /* the protocol's defaults */
    int startup = extdialog_startup_ms(e);
    int64_t start = time_now_ms();
    int64_t deadline = start + (startup < XB_FEATURE_WAIT_MS ? startup : XB_FEATURE_WAIT_MS);
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
        if (!extdialog_starts_with(line, "feature"))
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
                    deadline = start + startup;
            }
        }
        if (*cur)
            return extproc_fail(&e->proc, "malformed feature '%.40s'", cur);
        if (done)
            return true;
    }
}

static bool xb_has_option(const ExtEngine *e, const char *name)
{
    const ExtOptions *o = &e->options;
    if (o->cut || !o->n)
        return true; /* nothing (complete) to check against */
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->opt[i].name, name))
            return true;
    return false;
}

static bool xb_option(ExtEngine *e, const char *name, const char *value)
{
    if (!strcmp(name, "memory") || !strcmp(name, "cores")) {
        bool memory = name[0] == 'm';
        const XbFeatures *f = xb_features_of(e);
        if (!(memory ? f->memory : f->smp))
            return extproc_fail(&e->proc, "the engine did not announce feature %s=1",
                                memory ? "memory" : "smp");
        return extproc_send(&e->proc, "%s %s", name, value);
    }
    if (!xb_has_option(e, name))
        return extproc_fail(&e->proc, "the engine has no option '%.60s'", name);
    return extproc_send(&e->proc, "option %s=%s", name, value);
}

/* ping N, then pong N before the ready timeout (nothing to wait for without ping). */
static bool xb_ready(ExtEngine *e)
{
    if (!xb_features_of(e)->ping)
        return true;
    int id = ++xb_board_of(e)->ping_id;
    char want[32];
    snprintf(want, sizeof want, "pong %d", id);
    return extproc_send(&e->proc, "ping %d", id) &&
           extdialog_expect(e, want, time_now_ms() + extdialog_ready_ms(e), NULL);
}

static bool xb_handshake(ExtEngine *e)
{
    if (!extproc_send(&e->proc, "xboard") || !extproc_send(&e->proc, "protover 2") ||
        !xb_features(e))
        return false;
    if (!xb_features_of(e)->xiangqi)
        return extproc_fail(&e->proc, "no xiangqi in the engine's feature variants");
    if (!xb_features_of(e)->setboard)
        return extproc_fail(&e->proc, "the engine did not announce feature setboard=1");
    return extdialog_each_option(e, xb_option) && xb_ready(e);
}

/* "new" for a fresh game: force mode, thinking output on, no pondering. */
static bool xb_new(ExtEngine *e)
{
    XbBoard *b = xb_board_of(e);
    int ping_id = b->ping_id;
    memset(b, 0, sizeof *b);
    b->ping_id = ping_id;
    b->in_game = extproc_send(&e->proc, "new") && extproc_send(&e->proc, "variant xiangqi") &&
                 extproc_send(&e->proc, "force") && extproc_send(&e->proc, "post") &&
                 extproc_send(&e->proc, "easy");
    return b->in_game;
}

/* An engine without reuse=1 plays each game in a new process. */
static bool xb_fresh_process(const ExtEngine *e)
{
    return !xb_features_of(e)->reuse && xb_board_of(e)->in_game;
}

static void xb_new_game(ExtEngine *e)
{
    if (xb_new(e))
        xb_ready(e);
}

/* Plays chuhe's move text m on the engine's board record. */
static bool xb_record(ExtEngine *e, const char m[5])
{
    XbBoard *b = xb_board_of(e);
    if (b->nmoves >= RECORD_MAX_PLIES)
        return extproc_fail(&e->proc, "more than %d moves", RECORD_MAX_PLIES);
    memcpy(b->moves[b->nmoves++], m, 5);
    return true;
}

static bool xb_send_move(ExtEngine *e, const char *m)
{
    char text[8];
    if (!exttrans_move_out(PROTO_EXT_XBOARD, m, text, sizeof text))
        return extproc_fail(&e->proc, "'%.8s' is not a move", m);
    return xb_record(e, m) &&
           extproc_send(&e->proc, "%s%s", xb_features_of(e)->usermove ? "usermove " : "", text);
}

/* Brings the engine's board, in force mode, to start_fen + moves: only the new moves
 * when it holds a beginning of this game, else a new game and setboard. */
static bool xb_sync(ExtEngine *e, const char *start_fen, const char *const *moves, int nmoves)
{
    XbBoard *b = xb_board_of(e);
    bool prefix = b->in_game && b->fen[0] && !strcmp(b->fen, start_fen) && b->nmoves <= nmoves;
    for (int i = 0; prefix && i < b->nmoves; i++)
        prefix = !strcmp(b->moves[i], moves[i]);
    if (!extproc_send(&e->proc, "force"))
        return false;
    if (!prefix) {
        char fen[RECORD_FEN_MAX];
        if (strlen(start_fen) >= sizeof b->fen ||
            !exttrans_fen_out(PROTO_EXT_XBOARD, start_fen, fen, sizeof fen))
            return extproc_fail(&e->proc, "start FEN too long");
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

static bool xb_send_go(ExtEngine *e, const SearchLimits *l, Color us)
{
    XbBoard *b = xb_board_of(e);
    char inc[32];
    if (l->depth && !extproc_send(&e->proc, "sd %d", l->depth))
        return false;
    if (extdialog_clocked(l)) {
        /* the clock of the game, once: this side's first search sees it whole */
        if (!b->level_sent) {
            int64_t base_s = extdialog_seconds(l->time[us]);
            xb_seconds(l->inc[us], inc, sizeof inc);
            if (!extproc_send(&e->proc, "level 0 %lld:%02lld %s", (long long)(base_s / 60),
                              (long long)(base_s % 60), inc))
                return false;
            b->level_sent = true;
        }
        if (xb_features_of(e)->time &&
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

static bool xb_go(ExtEngine *e, const char *start_fen, const char *const *moves, int nmoves,
                  const SearchLimits *limits, Color us)
{
    return xb_sync(e, start_fen, moves, nmoves) && xb_send_go(e, limits, us);
}

/* The move of "move X" or "My move is: X", or NULL. */
static const char *xb_move_text(char *line)
{
    if (extdialog_starts_with(line, "move"))
        return extdialog_first_word(line + 4);
    if (!strncmp(line, "My move is", 10) && strchr(line, ':'))
        return extdialog_first_word(strchr(line, ':') + 1);
    return NULL;
}

static bool is_claim(const char *line)
{
    return extdialog_starts_with(line, "1-0") || extdialog_starts_with(line, "0-1") ||
           extdialog_starts_with(line, "1/2-1/2");
}

/* Thinking output until the engine's move (or its resignation). */
static bool xb_answer(ExtEngine *e, char *text, SearchResult *out, GameSearchStatus *st)
{
    *st = GAME_SEARCH_OK;
    const char *m = xb_move_text(text);
    if (m) {
        /* the engine played it on its board */
        char mv[5];
        if (extdialog_take_move(e, m, out, mv) && xb_board_of(e)->nmoves < RECORD_MAX_PLIES)
            xb_record(e, mv);
        return true;
    }
    if (extdialog_starts_with(text, "resign")) {
        extproc_fail(&e->proc, "resigned");
        *st = GAME_SEARCH_RESIGN;
        return true;
    }
    if (is_claim(text)) {
        extdialog_note(e, "engine '%s' claims %.200s (the referee decides)", e->cfg.command, text);
    } else if (!strncmp(text, "Illegal move", 12)) {
        /* it refused a move of the game: its board is not the game's */
        extproc_fail(&e->proc, "engine refused a move: %.200s", text);
        extdialog_stop(e, false);
        *st = GAME_SEARCH_CRASH;
        return true;
    } else if (!strncmp(text, "Error", 5) || extdialog_starts_with(text, "tellusererror")) {
        extdialog_note(e, "engine '%s': %.200s", e->cfg.command, text);
    } else {
        exttrans_parse_thinking(text, out);
    }
    return false;
}

const ExtDialog extxboard_dialog = {
    .state_size = sizeof(XbState),
    .handshake = xb_handshake,
    .fresh_process = xb_fresh_process,
    .new_game = xb_new_game,
    .quiet = NULL,
    .go = xb_go,
    .answer = xb_answer,
};
