#include "smp.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

struct SmpHelper {
    SmpPool *pool;
    pthread_t thread;
    Search *search;
    NnueStack nnue; /* sized for the network of the search it last ran */
    bool active;    /* searches this time (false: no accumulators could be had) */
    /* the pool's generation when the thread was made: it runs every later search */
    unsigned long generation;
};

void smp_init(SmpPool *p)
{
    memset(p, 0, sizeof *p);
    p->threads = 1;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->parked, NULL);
}

/* A helper's life: wait for a search (or quit), run it, park, again. */
static void *helper_main(void *arg)
{
    SmpHelper *h = arg;
    SmpPool *p = h->pool;
    pthread_mutex_lock(&p->lock);
    unsigned long seen = h->generation;
    for (;;) {
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->quit)
            break;
        seen = p->generation;
        const Position *root = p->root;
        const SearchLimits *limits = p->limits;
        bool active = h->active;
        pthread_mutex_unlock(&p->lock);
        if (active)
            search_run(h->search, root, limits, NULL);
        pthread_mutex_lock(&p->lock);
        if (--p->running == 0)
            pthread_cond_signal(&p->parked);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Joins and frees the helpers; the pool is left with one thread. */
static void helpers_stop(SmpPool *p)
{
    int n = p->threads - 1;
    pthread_mutex_lock(&p->lock);
    p->quit = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < n; i++) {
        SmpHelper *h = &p->helpers[i];
        if (h->search) /* started */
            pthread_join(h->thread, NULL);
        nnue_stack_free(&h->nnue);
        free(h->search);
    }
    free(p->helpers);
    free(p->all);
    p->helpers = NULL;
    p->all = NULL;
    p->threads = 1;
    p->quit = false;
}

void smp_free(SmpPool *p)
{
    helpers_stop(p);
    pthread_cond_destroy(&p->parked);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
}

bool smp_resize(SmpPool *p, int threads, char *err, size_t errlen)
{
    helpers_stop(p);
    if (threads <= 1)
        return true;
    int n = threads - 1;
    p->helpers = calloc((size_t)n, sizeof *p->helpers);
    p->all = calloc((size_t)threads, sizeof *p->all);
    if (!p->helpers || !p->all) {
        free(p->helpers);
        free(p->all);
        p->helpers = NULL;
        p->all = NULL;
        return error_set(err, errlen, "out of memory for %d threads", threads);
    }
    p->threads = threads;
    for (int i = 0; i < n; i++) {
        SmpHelper *h = &p->helpers[i];
        h->pool = p;
        h->search = calloc(1, sizeof *h->search);
        if (!h->search) {
            helpers_stop(p);
            return error_set(err, errlen, "out of memory for the search of thread %d", i + 2);
        }
        h->search->thread_id = i + 1;
        h->search->nnue = &h->nnue;
        search_clear(h->search);
        h->generation = p->generation;
        if (pthread_create(&h->thread, NULL, helper_main, h) != 0) {
            free(h->search);
            h->search = NULL;
            helpers_stop(p);
            return error_set(err, errlen, "cannot start thread %d of %d", i + 2, threads);
        }
        p->all[i + 1] = h->search;
    }
    return true;
}

void smp_clear(SmpPool *p)
{
    for (int i = 0; i < p->threads - 1; i++)
        search_clear(p->helpers[i].search);
}

/* A helper made ready for the main search's settings: false when it must sit this
 * search out (no accumulators for the network). */
static bool helper_prepare(SmpHelper *h, const Search *main, Search *const *all, int threads)
{
    Search *s = h->search;
    s->tt = main->tt;
    s->params = main->params;
    s->net = main->net;
    s->tune = main->tune;
    s->stop = main->stop;
    s->ponder = NULL;
    s->move_overhead = main->move_overhead;
    s->threads = threads;
    s->all = all;
    /* a thread that sits out counts no nodes and offers no move */
    atomic_store_explicit(&s->nodes, 0, memory_order_relaxed);
    s->done_depth = 0;
    s->done_len = 0;
    if (s->net && h->nnue.hidden != s->net->hidden) {
        nnue_stack_free(&h->nnue);
        char msg[160];
        if (!nnue_stack_alloc(&h->nnue, s->net->hidden, msg, sizeof msg))
            return false;
    }
    return true;
}

SearchResult smp_search(SmpPool *p, Search *main, const Position *root, const SearchLimits *limits,
                        const SearchCallbacks *cb)
{
    main->thread_id = 0;
    if (p->threads <= 1) {
        main->threads = 1;
        main->all = NULL;
        return search_run(main, root, limits, cb);
    }
    p->all[0] = main;
    main->threads = p->threads;
    main->all = p->all;
    tt_new_search(main->tt);
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->threads - 1; i++)
        p->helpers[i].active = helper_prepare(&p->helpers[i], main, p->all, p->threads);
    p->root = root;
    p->limits = limits;
    p->running = p->threads - 1;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);

    SearchResult r = search_run(main, root, limits, cb);

    atomic_store(main->stop, true);
    pthread_mutex_lock(&p->lock);
    while (p->running > 0)
        pthread_cond_wait(&p->parked, &p->lock);
    pthread_mutex_unlock(&p->lock);
    return search_pick(main, r, cb);
}
