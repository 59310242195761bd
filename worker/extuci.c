#include "extuci.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "timeman.h"

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
           extdialog_expect(e, "readyok", time_now_ms() + extdialog_ready_ms(e));
}

static bool uci_handshake(ExtEngine *e)
{
    bool ucci = is_ucci(e);
    bool ok =
        extproc_send(&e->proc, ucci ? "ucci" : "uci") &&
        extdialog_expect(e, ucci ? "ucciok" : "uciok", time_now_ms() + extdialog_startup_ms(e));
    if (ok && e->cfg.proto == PROTO_EXT_UCI1)
        ok = uci_option(e, "UCI_Variant", "xiangqi");
    return ok && extdialog_each_option(e, uci_option) && uci_ready(e);
}

static void uci_new_game(ExtEngine *e)
{
    if (is_ucci(e) || extproc_send(&e->proc, "ucinewgame"))
        uci_ready(e);
}

static bool uci_send_go(ExtEngine *e, const SearchLimits *l, Color us)
{
    char go[512];
    size_t n = 0;
    n += (size_t)snprintf(go + n, sizeof go - n, "go");
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

/* "position fen F moves m1 m2 ...": the engine sees every repetition. */
static bool uci_position(ExtEngine *e, const char *start_fen, const char *const *moves, int nmoves)
{
    char *line = malloc(EXTPROC_LINE_MAX + (size_t)nmoves * 8);
    if (!line)
        return extproc_fail(&e->proc, "out of memory");
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

static bool uci_go(ExtEngine *e, const char *start_fen, const char *const *moves, int nmoves,
                   const SearchLimits *limits, Color us)
{
    return uci_position(e, start_fen, moves, nmoves) && uci_send_go(e, limits, us);
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
        char mv[5];
        extdialog_take_move(e, extdialog_first_word(line + 8), out, mv);
        return true;
    }
    return !strcmp(line, "nobestmove");
}

const ExtDialog extuci_dialog = {
    .state_size = 0,
    .handshake = uci_handshake,
    .fresh_process = NULL,
    .new_game = uci_new_game,
    .go = uci_go,
    .answer = uci_answer,
};
