/*
 * A program's external engines (a worker rank's), kept across WORKs: one process per engine
 * configuration (extengine_same_config), started on first use, handed to every later
 * WORK that names the same configuration, and stopped when the pool is freed. So a
 * round robin starts each of its engines once per rank, however the engines move
 * between the players of its pairs. Both players of a WORK that name one configuration
 * get a process each (an engine never plays itself through one process).
 *
 * The pool holds at most EXTPOOL_MAX engines: the least recently used one (not the one
 * the other player of the WORK holds) is stopped to make room for a new one. A crash or
 * a hang restarts just that engine, at its next new game or search (extengine.h).
 * The fields are the module's own; callers use the functions.
 */
#ifndef CHUHE_EXTPOOL_H
#define CHUHE_EXTPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extengine.h"

enum { EXTPOOL_MAX = 8 };

typedef struct {
    ExtEngine *engines[EXTPOOL_MAX]; /* the first count are in use */
    uint64_t last_use[EXTPOOL_MAX];  /* the value of uses at the engine's last extpool_get */
    int count;
    uint64_t uses;
    ExtIdleFn idle;
    void *idle_ctx;
    ExtNoteFn note;
    void *note_ctx;
} ExtPool;

/* An empty pool. */
void extpool_init(ExtPool *pool);
/* Stops and frees every engine; the pool is empty again. */
void extpool_free(ExtPool *pool);
/* fn(ctx) runs while any of the pool's engines is waited for (extengine_set_idle). */
void extpool_set_idle(ExtPool *pool, ExtIdleFn fn, void *ctx);
/* fn(ctx, text) takes the lines worth a log of every engine of the pool
 * (extengine_set_note). */
void extpool_set_note(ExtPool *pool, ExtNoteFn fn, void *ctx);

/*
 * The engine for cfg, other than busy (the engine the other player of the WORK already
 * holds, or NULL): the pool's own, running or not, or else a new one, not started. NULL
 * with the reason in err when out of memory.
 */
ExtEngine *extpool_get(ExtPool *pool, const ExtEngineConfig *cfg, const ExtEngine *busy, char *err,
                       size_t size);

/* The engines the pool holds. */
int extpool_count(const ExtPool *pool);

#endif
