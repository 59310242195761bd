/*
 * Lazy SMP: the helper threads of one engine. The main search runs on the caller's
 * thread; each helper has its own Search (position, stack, histories) and network
 * accumulators and shares the engine's transposition table, stop flag, weights and
 * network. Helpers are started once (smp_resize) and parked on a condition variable
 * between searches.
 *
 * One search: smp_search starts a new TT generation, wakes the helpers on the same
 * root and limits, runs the main search, then raises stop, waits until every helper
 * is parked again, and returns search_pick's result (search.h). No helper touches
 * anything of the engine outside a search, so the engine may change its position,
 * hash, weights or network between searches without locks.
 */
#ifndef CHUHE_SMP_H
#define CHUHE_SMP_H

#include <pthread.h>
#include <stdbool.h>

#include "search.h"

typedef struct SmpHelper SmpHelper;

typedef struct {
    int threads;        /* the main search and threads - 1 helpers */
    SmpHelper *helpers; /* [threads - 1] */
    Search **all;       /* [threads]: the main search, then the helpers' */
    pthread_mutex_t lock;
    pthread_cond_t wake;      /* a search to start, or quit */
    pthread_cond_t parked;    /* running fell to 0 */
    unsigned long generation; /* searches started: a helper runs each once */
    int running;              /* helpers not yet parked after the current search */
    bool quit;
    /* the search the helpers run, set under lock before the generation moves */
    const Position *root;
    const SearchLimits *limits;
} SmpPool;

/* An empty pool: one thread, the main search alone. */
void smp_init(SmpPool *p);
/* Stops and joins every helper and frees them. */
void smp_free(SmpPool *p);
/* threads in 1..SEARCH_THREADS_MAX: threads - 1 helpers, started and parked, whose
 * histories are empty. False when memory or a thread cannot be had: the pool is then
 * back to one thread. Never during a search. */
bool smp_resize(SmpPool *p, int threads, char *err, size_t errlen);
/* Empties every helper's histories (a new game). */
void smp_clear(SmpPool *p);
/* Searches root with main and the helpers: see above. With one thread, search_run
 * alone. */
SearchResult smp_search(SmpPool *p, Search *main, const Position *root, const SearchLimits *limits,
                        const SearchCallbacks *cb);

#endif
