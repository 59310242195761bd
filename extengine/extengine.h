/*
 * An external engine as a subprocess (extproc.h), driven through its protocol: UCI as
 * Pikafish speaks it (ranks 0-9), UCI with ranks 1-10 (Fairy-Stockfish), UCCI, or
 * XBoard/CECP protocol 2 (as Sjaak II). extengine_search is a GameSearchFn: the game loop
 * drives an external engine as it drives the built-in one.
 *
 * This module is the one interface to every protocol: it keeps the process's life
 * (started on first use, stopped and started again after a failure) and the search's
 * read loop, and hands the protocol's text to its dialogue through a table of functions
 * (extdialog.h): extuci.c for uci, uci1 and ucci, extxboard.c for xboard. The texts are
 * translated by exttrans.h.
 *
 * An engine that dies, hangs past its deadline or breaks the protocol is killed; the
 * next search or new game starts it again, so a run goes on. An XBoard engine's
 * "resign" loses it the game. XBoard has no exact node limit: a nodes limit is not
 * sent to an XBoard engine (the coordinator and the worker refuse one). A UCI or UCCI
 * engine with Ponder=true among its options ponders between its moves, as in cutechess.
 */
#ifndef CHUHE_EXTENGINE_H
#define CHUHE_EXTENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extproc.h"
#include "exttrans.h"
#include "game.h"

enum { EXT_TEXT_MAX = 1024, EXT_OPTIONS_MAX = 256 };

typedef struct {
    ProtoExtProtocol proto;
    char command[EXT_TEXT_MAX]; /* program and arguments, split on blanks (no shell) */
    char dir[EXT_TEXT_MAX];     /* working directory; "" to stay */
    /* "Name=Value;Name=Value": UCI/UCCI setoption; XBoard "option Name=Value", except
     * memory and cores, which become the commands "memory N" and "cores N" */
    char options[EXT_TEXT_MAX];
    int startup_ms; /* for uciok, ucciok or XBoard's feature done=1; 0: 10000 */
    int ready_ms;   /* for readyok or pong; 0: 10000 */
} ExtEngineConfig;

/* The options an engine announced at its handshake (exttrans.h parses each): UCI and
 * UCCI "option" lines before uciok or ucciok, XBoard "feature option=" values. */
typedef struct {
    ExtOption opt[EXT_OPTIONS_MAX];
    int n;
    bool cut; /* more were announced than opt holds */
} ExtOptions;

typedef struct ExtEngine ExtEngine;

/* A line worth a log that the engine sent (an XBoard engine's result claim or error
 * message), as text naming the engine: the library prints nothing itself. */
typedef void (*ExtNoteFn)(void *ctx, const char *text);

/* A stopped engine with cfg; NULL when out of memory. */
ExtEngine *extengine_new(const ExtEngineConfig *cfg);
/* Stops (quit, then kill) and frees; *e becomes NULL. */
void extengine_free(ExtEngine **e);
/* Starts the process and completes the handshake, unless it is running. */
bool extengine_start(ExtEngine *e, char *err, size_t size);
/* True when cfg is what e runs (so every WORK naming the same engine gets this process). */
bool extengine_same_config(const ExtEngine *e, const ExtEngineConfig *cfg);
/* fn(ctx) is called at least every EXTPROC_IDLE_MS while e is waited for. */
void extengine_set_idle(ExtEngine *e, ExtIdleFn fn, void *ctx);
/* fn(ctx, text) is called with each line worth a log (fn NULL: none). */
void extengine_set_note(ExtEngine *e, ExtNoteFn fn, void *ctx);

/* GameSearchFn and the new-game hook of GamePlayer; ctx is the ExtEngine. */
GameSearchStatus extengine_search(void *ctx, const char *start_fen, const char *const *moves,
                                  int nmoves, const SearchLimits *limits, int64_t deadline_ms,
                                  SearchResult *out);
void extengine_new_game(void *ctx);
/* Stops a running engine's pondering (UCI and UCCI with Ponder=true among the options:
 * extuci.c), so that an engine the pool keeps idle takes no CPU. */
void extengine_quiet(ExtEngine *e);

/* The options the engine announced at its last start (none before the first). */
const ExtOptions *extengine_options(const ExtEngine *e);

/* How often the process was (re)started, and what killed earlier ones. */
uint64_t extengine_starts(const ExtEngine *e);
/* The move text of the last search's answer as the engine sent it ("" if none), for
 * logs of an illegal move. */
const char *extengine_last_move(const ExtEngine *e);
/* The last failure, for logs ("" if none). */
const char *extengine_last_error(const ExtEngine *e);

#endif
