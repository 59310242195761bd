#include "extengine.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "extdialog.h"
#include "extuci.h"
#include "extxboard.h"

/* The one place where a protocol picks its dialogue. */
static const ExtDialog *dialog_for(ProtoExtProtocol proto)
{
    return proto == PROTO_EXT_XBOARD ? &extxboard_dialog : &extuci_dialog;
}

ExtEngine *extengine_new(const ExtEngineConfig *cfg)
{
    ExtEngine *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->cfg = *cfg;
    e->dialog = dialog_for(cfg->proto);
    if (e->dialog->state_size && !(e->state = calloc(1, e->dialog->state_size))) {
        free(e);
        return NULL;
    }
    extproc_init(&e->proc);
    return e;
}

void extengine_free(ExtEngine **e)
{
    if (!*e)
        return;
    extdialog_stop(*e, true);
    free((*e)->state);
    free(*e);
    *e = NULL;
}

bool extengine_same_config(const ExtEngine *e, const ExtEngineConfig *cfg)
{
    return e->cfg.proto == cfg->proto && !strcmp(e->cfg.command, cfg->command) &&
           !strcmp(e->cfg.dir, cfg->dir) && !strcmp(e->cfg.options, cfg->options);
}

void extengine_set_idle(ExtEngine *e, ExtIdleFn fn, void *ctx)
{
    extproc_set_idle(&e->proc, fn, ctx);
}

void extengine_set_note(ExtEngine *e, ExtNoteFn fn, void *ctx)
{
    e->note = fn;
    e->note_ctx = ctx;
}

const ExtOptions *extengine_options(const ExtEngine *e)
{
    return &e->options;
}

uint64_t extengine_starts(const ExtEngine *e)
{
    return e->proc.starts;
}

const char *extengine_last_move(const ExtEngine *e)
{
    return e->last_move;
}

const char *extengine_last_error(const ExtEngine *e)
{
    return e->proc.error;
}

bool extengine_start(ExtEngine *e, char *err, size_t size)
{
    if (extproc_running(&e->proc))
        return true;
    e->proc.error[0] = '\0';
    e->options.n = 0;
    e->options.cut = false;
    if (extproc_spawn(&e->proc, e->cfg.command, e->cfg.dir) && e->dialog->handshake(e))
        return true;
    error_set(err, size, "engine '%.200s' (%s) did not start: %.250s", e->cfg.command,
              proto_ext_protocol_name(e->cfg.proto),
              e->proc.error[0] ? e->proc.error : "no handshake");
    extdialog_stop(e, false);
    return false;
}

void extengine_new_game(void *ctx)
{
    ExtEngine *e = ctx;
    char err[512];
    if (e->dialog->fresh_process && e->dialog->fresh_process(e))
        extdialog_stop(e, true);
    if (extengine_start(e, err, sizeof err))
        e->dialog->new_game(e); /* a failure shows at the next search */
}

void extengine_quiet(ExtEngine *e)
{
    if (e->dialog->quiet && extproc_running(&e->proc))
        e->dialog->quiet(e);
}

GameSearchStatus extengine_search(void *ctx, const char *start_fen, const char *const *moves,
                                  int nmoves, const SearchLimits *limits, int64_t deadline_ms,
                                  SearchResult *out)
{
    ExtEngine *e = ctx;
    memset(out, 0, sizeof *out);
    out->best = MOVE_NONE;
    e->last_move[0] = '\0';
    char err[512];
    if (!extengine_start(e, err, sizeof err))
        return GAME_SEARCH_CRASH;
    /* The side to move: the FEN's, flipped once per move. */
    const char *side = strchr(start_fen, ' ');
    Color us = side && (side[1] == 'b') ? BLACK : RED;
    if (nmoves % 2)
        us = color_flip(us);
    if (!e->dialog->go(e, start_fen, moves, nmoves, limits, us)) {
        extdialog_stop(e, false);
        return GAME_SEARCH_CRASH;
    }
    char line[EXTPROC_LINE_MAX];
    GameSearchStatus st = GAME_SEARCH_OK;
    for (;;) {
        ExtProcRead r = extproc_read_line(&e->proc, deadline_ms, line, sizeof line);
        if (r != EXTPROC_LINE) {
            if (r == EXTPROC_TIMEOUT)
                extproc_fail(&e->proc, "no move before the deadline");
            extdialog_stop(e, false);
            return r == EXTPROC_TIMEOUT ? GAME_SEARCH_TIMEOUT : GAME_SEARCH_CRASH;
        }
        if (e->dialog->answer(e, line, out, &st))
            return st;
    }
}
