#include "extuci.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "record.h"
#include "timeman.h"

/* "position fen F moves m1 ... mN" with room for the two moves of a ponder position. */
enum { UCI_POSITION_MAX = 32 + RECORD_FEN_MAX + (RECORD_MAX_PLIES + 2) * 8 };

/*
 * Pondering, as cutechess does it, for an engine whose options hold Ponder=true: after
 * a bestmove with a ponder move the engine thinks on the position after that move ("go
 * ponder" with the clocks as they then are). The next search sends "ponderhit" when the
 * opponent played that move; otherwise "stop", whose bestmove is dropped, and a fresh
 * position and go. The game loop's clock runs on the engine's own turn only (from the
 * ponderhit), so the pondering costs it no time, as in cutechess.
 */
typedef struct {
    bool ponder;                        /* the options ask for it */
    bool pondering;                     /* a "go ponder" runs */
    int64_t go_ms;                      /* when the last search started */
    SearchLimits limits;                /* of the last search */
    Color us;                           /* side to move in the last search */
    char line[UCI_POSITION_MAX];        /* the last position line of a search */
    char ponder_line[UCI_POSITION_MAX]; /* the position pondered on */
} UciState;

static bool is_ucci(const ExtEngine *e)
{
    return e->cfg.proto == PROTO_EXT_UCCI;
}

static bool uci_option(ExtEngine *e, const char *name, const char *value)
{
    if (is_ucci(e))
        return extproc_send(&e->proc, "setoption %s %s", name, value);
    return extproc_send(&e->proc, "setoption name %s value %s", name, value);
}

static bool uci_ready(ExtEngine *e)
{
    return extproc_send(&e->proc, "isready") &&
           extdialog_expect(e, "readyok", time_now_ms() + extdialog_ready_ms(e), NULL);
}

/* An option sent at the handshake; Ponder=true turns pondering on. */
static bool uci_handshake_option(ExtEngine *e, const char *name, const char *value)
{
    if (!strcasecmp(name, "Ponder"))
        ((UciState *)e->state)->ponder = !strcasecmp(value, "true");
    return uci_option(e, name, value);
}

/* A line before uciok (ucciok): an option the engine announces is noted. */
static void uci_announced(ExtEngine *e, const char *line)
{
    ExtOption o;
    if (exttrans_parse_option(e->cfg.proto, line, &o))
        extdialog_add_option(e, &o);
}

static bool uci_handshake(ExtEngine *e)
{
    bool ucci = is_ucci(e);
    bool ok = extproc_send(&e->proc, ucci ? "ucci" : "uci") &&
              extdialog_expect(e, ucci ? "ucciok" : "uciok",
                               time_now_ms() + extdialog_startup_ms(e), uci_announced);
    if (ok && e->cfg.proto == PROTO_EXT_UCI1)
        ok = uci_option(e, "UCI_Variant", "xiangqi");
    return ok && extdialog_each_option(e, uci_handshake_option) && uci_ready(e);
}

/* Ends a ponder search: "stop", and its bestmove (UCCI: or nobestmove) dropped. False,
 * with the engine stopped, when it does not answer in time. */
static bool uci_stop_pondering(ExtEngine *e)
{
    UciState *st = e->state;
    if (!st->pondering)
        return true;
    st->pondering = false;
    if (!extproc_send(&e->proc, "stop"))
        return false;
    int64_t deadline = time_now_ms() + extdialog_ready_ms(e);
    char line[EXTPROC_LINE_MAX];
    for (;;) {
        ExtProcRead r = extproc_read_line(&e->proc, deadline, line, sizeof line);
        if (r == EXTPROC_TIMEOUT)
            extproc_fail(&e->proc, "no bestmove in time after stopping its pondering");
        if (r != EXTPROC_LINE) {
            extdialog_stop(e, false);
            return false;
        }
        if (extdialog_starts_with(line, "bestmove") || !strcmp(line, "nobestmove"))
            return true;
    }
}

static void uci_new_game(ExtEngine *e)
{
    if (!uci_stop_pondering(e))
        return;
    if (is_ucci(e) || extproc_send(&e->proc, "ucinewgame"))
        uci_ready(e);
}

static void uci_quiet(ExtEngine *e)
{
    uci_stop_pondering(e);
}

static bool uci_send_go(ExtEngine *e, const SearchLimits *l, Color us, bool ponder)
{
    char go[512];
    size_t n = 0;
    n += (size_t)snprintf(go + n, sizeof go - n, ponder ? "go ponder" : "go");
    bool ucci = is_ucci(e);
    if (extdialog_clocked(l)) {
        Color them = color_flip(us);
        if (ucci)
            n += (size_t)snprintf(
                go + n, sizeof go - n, " time %lld increment %lld opptime %lld oppincrement %lld",
                (long long)extdialog_seconds(l->time[us]), (long long)(l->inc[us] / 1000),
                (long long)extdialog_seconds(l->time[them]), (long long)(l->inc[them] / 1000));
        else
            n += (size_t)snprintf(go + n, sizeof go - n,
                                  " wtime %lld btime %lld winc %lld binc %lld",
                                  (long long)l->time[RED], (long long)l->time[BLACK],
                                  (long long)l->inc[RED], (long long)l->inc[BLACK]);
    } else if (l->movetime > 0) {
        if (ucci)
            n += (size_t)snprintf(go + n, sizeof go - n, " time %lld movestogo 1",
                                  (long long)extdialog_seconds(l->movetime));
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

/* "position fen F moves m1 m2 ..." into the state's line: the engine sees every
 * repetition. */
static bool uci_position(ExtEngine *e, const char *start_fen, const char *const *moves, int nmoves)
{
    UciState *st = e->state;
    if (nmoves > RECORD_MAX_PLIES)
        return extproc_fail(&e->proc, "%d moves exceed %d", nmoves, RECORD_MAX_PLIES);
    char *line = st->line;
    size_t n = (size_t)sprintf(line, "position fen %.*s", RECORD_FEN_MAX, start_fen);
    if (nmoves)
        n += (size_t)sprintf(line + n, " moves");
    for (int i = 0; i < nmoves; i++) {
        char m[8];
        if (!exttrans_move_out(e->cfg.proto, moves[i], m, sizeof m))
            return extproc_fail(&e->proc, "move %d '%.8s' is not a move", i + 1, moves[i]);
        n += (size_t)sprintf(line + n, " %s", m);
    }
    return true;
}

static bool uci_go(ExtEngine *e, const char *start_fen, const char *const *moves, int nmoves,
                   const SearchLimits *limits, Color us)
{
    UciState *st = e->state;
    if (!uci_position(e, start_fen, moves, nmoves))
        return false;
    st->go_ms = time_now_ms();
    st->limits = *limits;
    st->us = us;
    if (st->pondering && !strcmp(st->line, st->ponder_line)) {
        st->pondering = false;
        return extproc_send(&e->proc, "ponderhit");
    }
    bool was_pondering = st->pondering;
    if (!uci_stop_pondering(e))
        return false;
    /* the wait for the stopped ponder search ran on our clock */
    if (was_pondering && extdialog_clocked(&st->limits)) {
        int64_t now = time_now_ms(), left = st->limits.time[us] - (now - st->go_ms);
        st->limits.time[us] = left > 1 ? left : 1;
        st->go_ms = now;
    }
    return extproc_send(&e->proc, "%s", st->line) && uci_send_go(e, &st->limits, us, false);
}

/* After the engine's move best, with ponder its expected reply: "go ponder" on the
 * position after both, our clock less the time the move took plus the increment. A
 * failure to send shows at the next search. */
static void uci_start_pondering(ExtEngine *e, const char *best, const char *ponder)
{
    UciState *st = e->state;
    int n = snprintf(st->ponder_line, sizeof st->ponder_line, "%s%s %s %s", st->line,
                     strstr(st->line, " moves") ? "" : " moves", best, ponder);
    if (n < 0 || (size_t)n >= sizeof st->ponder_line)
        return;
    SearchLimits l = st->limits;
    if (extdialog_clocked(&l)) {
        int64_t left = l.time[st->us] - (time_now_ms() - st->go_ms);
        l.time[st->us] = (left > 1 ? left : 1) + l.inc[st->us];
    }
    st->pondering =
        extproc_send(&e->proc, "%s", st->ponder_line) && uci_send_go(e, &l, st->us, true);
}

/* info lines until bestmove (or UCCI's nobestmove). */
static bool uci_answer(ExtEngine *e, char *line, SearchResult *out, GameSearchStatus *st)
{
    *st = GAME_SEARCH_OK;
    if (extdialog_starts_with(line, "info")) {
        exttrans_parse_info(line, out);
        return false;
    }
    if (extdialog_starts_with(line, "bestmove")) {
        char mv[5], ponder[16] = "";
        const char *p = strstr(line + 8, " ponder ");
        if (p)
            sscanf(p + 8, "%15s", ponder);
        char *best = extdialog_first_word(line + 8);
        if (extdialog_take_move(e, best, out, mv) && ponder[0] && ((UciState *)e->state)->ponder)
            uci_start_pondering(e, best, ponder);
        return true;
    }
    return !strcmp(line, "nobestmove");
}

const ExtDialog extuci_dialog = {
    .state_size = sizeof(UciState),
    .handshake = uci_handshake,
    .fresh_process = NULL,
    .new_game = uci_new_game,
    .quiet = uci_quiet,
    .go = uci_go,
    .answer = uci_answer,
};
