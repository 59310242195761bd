/*
 * An external engine as a subprocess: fork/exec with a pipe each way, line-based
 * reads with poll() and deadlines. Speaks UCI as Pikafish does (ranks 0-9), UCI with
 * ranks 1-10 (Fairy-Stockfish, which is also told UCI_Variant xiangqi), or UCCI
 * (clocks in seconds). ext_search is a GameSearchFn: the game loop drives an external
 * engine as it drives the built-in one.
 *
 * An engine that dies, hangs past its deadline or breaks the protocol is killed; the
 * next search or new game starts it again, so a run goes on.
 */
#ifndef CHUHE_WORKER_EXTENGINE_H
#define CHUHE_WORKER_EXTENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"

typedef enum { EXT_PROTO_UCI, EXT_PROTO_UCI1, EXT_PROTO_UCCI, EXT_PROTO_NB } ExtProtocol;

enum { EXT_TEXT_MAX = 1024 };

typedef struct {
    ExtProtocol proto;
    char command[EXT_TEXT_MAX]; /* program and arguments, split on blanks (no shell) */
    char dir[EXT_TEXT_MAX];     /* working directory; "" to stay */
    char options[EXT_TEXT_MAX]; /* "Name=Value;Name=Value" sent as setoption */
    int startup_ms;             /* for uciok; 0: 10000 */
    int ready_ms;               /* for readyok; 0: 10000 */
} ExtEngineConfig;

typedef struct ExtEngine ExtEngine;

/* Parses "uci", "uci1" (also "uci-ranks-1-10") or "ucci"; false if unknown. */
bool ext_protocol_parse(const char *name, ExtProtocol *out);
const char *ext_protocol_name(ExtProtocol p);

/* A stopped engine with cfg; NULL when out of memory. */
ExtEngine *ext_new(const ExtEngineConfig *cfg);
/* Stops (quit, then kill) and frees; *e becomes NULL. */
void ext_free(ExtEngine **e);
/* Starts the process and completes the handshake, unless it is running. */
bool ext_start(ExtEngine *e, char *err, size_t size);
/* True when cfg is what e runs (so a WORK with the same engine keeps the process). */
bool ext_same_config(const ExtEngine *e, const ExtEngineConfig *cfg);

/* GameSearchFn and the new-game hook of GamePlayer; ctx is the ExtEngine. */
GameSearchStatus ext_search(void *ctx, const char *start_fen, const char *const *moves,
                            int nmoves, const SearchLimits *limits, int64_t deadline_ms,
                            SearchResult *out);
void ext_new_game(void *ctx);

/* How often the process was (re)started, and what killed earlier ones. */
uint64_t ext_starts(const ExtEngine *e);
/* The last failure, for logs ("" if none). */
const char *ext_last_error(const ExtEngine *e);

#endif
