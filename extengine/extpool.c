#include "extpool.h"

#include <string.h>

#include "error.h"

void extpool_init(ExtPool *pool)
{
    memset(pool, 0, sizeof *pool);
}

void extpool_free(ExtPool *pool)
{
    for (int i = 0; i < pool->count; i++)
        extengine_free(&pool->engines[i]);
    pool->count = 0;
}

void extpool_set_idle(ExtPool *pool, ExtIdleFn fn, void *ctx)
{
    pool->idle = fn;
    pool->idle_ctx = ctx;
    for (int i = 0; i < pool->count; i++)
        extengine_set_idle(pool->engines[i], fn, ctx);
}

void extpool_set_note(ExtPool *pool, ExtNoteFn fn, void *ctx)
{
    pool->note = fn;
    pool->note_ctx = ctx;
    for (int i = 0; i < pool->count; i++)
        extengine_set_note(pool->engines[i], fn, ctx);
}

int extpool_count(const ExtPool *pool)
{
    return pool->count;
}

/* Stops and drops the least recently used engine other than busy. */
static void evict(ExtPool *pool, const ExtEngine *busy)
{
    int lru = -1;
    for (int i = 0; i < pool->count; i++)
        if (pool->engines[i] != busy && (lru < 0 || pool->last_use[i] < pool->last_use[lru]))
            lru = i;
    extengine_free(&pool->engines[lru]);
    pool->count--;
    pool->engines[lru] = pool->engines[pool->count];
    pool->last_use[lru] = pool->last_use[pool->count];
}

ExtEngine *extpool_get(ExtPool *pool, const ExtEngineConfig *cfg, const ExtEngine *busy, char *err,
                       size_t size)
{
    pool->uses++;
    for (int i = 0; i < pool->count; i++) {
        if (pool->engines[i] != busy && extengine_same_config(pool->engines[i], cfg)) {
            pool->last_use[i] = pool->uses;
            return pool->engines[i];
        }
    }
    ExtEngine *e = extengine_new(cfg);
    if (!e) {
        error_set(err, size, "out of memory for an engine");
        return NULL;
    }
    extengine_set_idle(e, pool->idle, pool->idle_ctx);
    extengine_set_note(e, pool->note, pool->note_ctx);
    if (pool->count == EXTPOOL_MAX)
        evict(pool, busy);
    pool->engines[pool->count] = e;
    pool->last_use[pool->count] = pool->uses;
    pool->count++;
    return e;
}
