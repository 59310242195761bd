#include "engine.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "movegen.h"
#include "notation.h"
#include "smp.h"

struct Engine {
    Position pos;
    Position scratch; /* where a new position is built before it replaces pos */
    TT tt;
    int hash_mb;
    EvalParams params;
    /* the network read from a file (hidden 0: none); the network chosen: that one, the
     * built-in one (nnue_default) or none (weights loaded); whether search uses it; and
     * the accumulators of the search, sized for it */
    NnueNet net;
    const NnueNet *chosen;
    bool use_nnue;
    NnueStack nnue;
    SearchParams tune;
    Search search;
    SmpPool pool; /* the helper threads (Threads) */
    atomic_bool stop;
    atomic_bool ponder; /* raised by a ponder search until ponderhit */
};

Engine *engine_new(void)
{
    position_init();
    (void)weights_default(); /* built here, before any search thread can race for it */
    Engine *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    PosError err;
    if (!pos_set_fen(&e->pos, START_FEN, &err) || !engine_set_hash(e, ENGINE_HASH_DEFAULT_MB)) {
        free(e);
        return NULL;
    }
    e->params = *weights_default();
    e->search.tt = &e->tt;
    e->search.params = &e->params;
    e->tune = SPSA_PARAMS_DEFAULT;
    e->search.tune = &e->tune;
    e->search.stop = &e->stop;
    e->search.ponder = &e->ponder;
    e->search.move_overhead = 10;
    e->search.nnue = &e->nnue;
    e->use_nnue = true;
    atomic_init(&e->stop, false);
    atomic_init(&e->ponder, false);
    search_clear(&e->search);
    smp_init(&e->pool);
    engine_reset_eval(e);
    return e;
}

void engine_free(Engine **e)
{
    if (!e || !*e)
        return;
    smp_free(&(*e)->pool);
    tt_free(&(*e)->tt);
    nnue_net_free(&(*e)->net);
    nnue_stack_free(&(*e)->nnue);
    free(*e);
    *e = NULL;
}

void engine_new_game(Engine *e)
{
    tt_clear(&e->tt);
    search_clear(&e->search);
    smp_clear(&e->pool);
}

bool engine_set_position(Engine *e, const char *fen, const char *const *moves, int nmoves,
                         PosError *err)
{
    Position *p = &e->scratch;
    if (!pos_set_fen(p, fen ? fen : START_FEN, err))
        return false;
    for (int i = 0; i < nmoves; i++) {
        Move m = move_from_text(moves[i]);
        if (m == MOVE_NONE)
            return ERROR_SET(err, "move %d '%.16s' is not a move in a0-i9 form", i + 1, moves[i]);
        if (!move_is_legal(p, m))
            return ERROR_SET(err, "move %d '%.16s' is illegal in this position", i + 1, moves[i]);
        if (pos_history_full(p))
            pos_trim_history(p);
        pos_do_move(p, m);
    }
    pos_copy(&e->pos, p);
    return true;
}

const Position *engine_position(const Engine *e)
{
    return &e->pos;
}

SearchResult engine_search(Engine *e, const SearchLimits *limits, const SearchCallbacks *cb)
{
    atomic_store(&e->stop, false);
    return smp_search(&e->pool, &e->search, &e->pos, limits, cb);
}

void engine_stop(Engine *e)
{
    atomic_store(&e->stop, true);
}

void engine_ponder_begin(Engine *e)
{
    atomic_store(&e->ponder, true);
}

void engine_ponderhit(Engine *e)
{
    atomic_store(&e->ponder, false);
}

bool engine_set_threads(Engine *e, int threads, char *err, size_t errlen)
{
    if (threads < 1 || threads > SEARCH_THREADS_MAX)
        return error_set(err, errlen, "%d threads: the range is 1-%d", threads, SEARCH_THREADS_MAX);
    return smp_resize(&e->pool, threads, err, errlen);
}

int engine_threads(const Engine *e)
{
    return e->pool.threads;
}

bool engine_set_hash(Engine *e, size_t mb)
{
    if (mb < 1 || mb > ENGINE_HASH_MAX_MB)
        return false;
    /* tt_resize keeps the current table when the new one cannot be had */
    if (!tt_resize(&e->tt, mb))
        return false;
    e->hash_mb = (int)mb;
    return true;
}

void engine_clear_hash(Engine *e)
{
    tt_clear(&e->tt);
}
int engine_hash_mb(const Engine *e)
{
    return e->hash_mb;
}
void engine_set_move_overhead(Engine *e, int ms)
{
    e->search.move_overhead = ms;
}

/* Points search at the evaluation chosen; a change of evaluation clears the hash, whose
 * stored static evaluations are the other one's. */
static void choose_eval(Engine *e)
{
    const NnueNet *net = e->use_nnue ? e->chosen : NULL;
    if (net != e->search.net)
        tt_clear(&e->tt);
    e->search.net = net;
}

/* The accumulator stack sized for a network of hidden units. */
static bool size_stack(Engine *e, uint32_t hidden, char *err, size_t errlen)
{
    if (e->nnue.hidden == hidden)
        return true;
    NnueStack st;
    if (!nnue_stack_alloc(&st, hidden, err, errlen))
        return false;
    nnue_stack_free(&e->nnue);
    e->nnue = st;
    return true;
}

/* The network chosen becomes net (NULL: the handcrafted evaluation). */
static void choose_net(Engine *e, const NnueNet *net)
{
    if (net != &e->net)
        nnue_net_free(&e->net);
    e->chosen = net;
    if (net == &e->net)
        e->search.net = NULL; /* a new file's network at the same address: clear the hash */
    choose_eval(e);
}

bool engine_load_weights(Engine *e, const char *path, WeightsError *err)
{
    if (!weights_load(path, &e->params, err))
        return false;
    choose_net(e, NULL);
    return true;
}

void engine_reset_eval(Engine *e)
{
    e->params = *weights_default();
    const NnueNet *net = nnue_default();
    char msg[200];
    if (net && !size_stack(e, net->hidden, msg, sizeof msg))
        net = NULL; /* no memory for the accumulators: the handcrafted evaluation */
    choose_net(e, net);
}

bool engine_save_weights(const Engine *e, const char *path, WeightsError *err)
{
    return weights_save(path, &e->params, err);
}

const EvalParams *engine_weights(const Engine *e)
{
    return &e->params;
}

bool engine_load_eval_file(Engine *e, const char *path, WeightsError *err)
{
    if (!nnue_file_is_net(path))
        return engine_load_weights(e, path, err);
    NnueNet net;
    if (!nnue_net_read(&net, path, err->msg, sizeof err->msg))
        return false;
    if (!size_stack(e, net.hidden, err->msg, sizeof err->msg)) {
        nnue_net_free(&net);
        return false;
    }
    nnue_net_free(&e->net);
    e->net = net;
    choose_net(e, &e->net);
    return true;
}

void engine_set_use_nnue(Engine *e, bool use)
{
    e->use_nnue = use;
    choose_eval(e);
}

const NnueNet *engine_net(const Engine *e)
{
    return e->search.net;
}

const NnueNet *engine_net_loaded(const Engine *e)
{
    return e->chosen;
}

bool engine_set_search_param(Engine *e, int index, long long value)
{
    return index >= 0 && index < SPSA_PARAM_NB && spsa_params_set(&e->tune, index, value);
}

const SearchParams *engine_search_params(const Engine *e)
{
    return &e->tune;
}
void engine_reset_search_params(Engine *e)
{
    e->tune = SPSA_PARAMS_DEFAULT;
}

Value engine_eval(const Engine *e)
{
    return e->search.net ? nnue_evaluate_full(e->search.net, &e->pos)
                         : evaluate(&e->pos, &e->params);
}

Value engine_eval_handcrafted(const Engine *e)
{
    return evaluate(&e->pos, &e->params);
}

void engine_eval_breakdown(const Engine *e, EvalBreakdown *out)
{
    eval_breakdown(&e->pos, &e->params, out);
}

uint64_t engine_perft(Engine *e, int depth, PerftDivideFn fn, void *ctx)
{
    pos_copy(&e->scratch, &e->pos);
    return perft_divide(&e->scratch, depth, fn, ctx);
}

/* Opening, middlegame and endgame positions, fixed forever: the node count of the
 * bench is the signature of the search. */
static const char *const BENCH_FENS[] = {
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2",
    "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - 4 3",
    "r2akab1r/9/1cn1b1nc1/p1p1p1p1p/9/2P6/P3P1P1P/1C2C1N2/9/RNBAKAB1R w - - 1 5",
    "2bakab1r/r8/2n1c1nc1/p1p1p3p/6p2/2P6/P3P1P1P/1CN1C1N2/R8/2BAKAB1R w - - 0 8",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1",
    "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w - - 0 1",
    "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 0 1",
    "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w - - 0 1",
    "4ka3/4a4/9/9/4N4/p8/9/4C3c/7n1/2BK5 w - - 0 1",
    "2b1ka3/9/b3N4/4n4/9/9/9/4C4/2p6/2BK5 w - - 0 1",
    "3k5/9/9/9/9/4p4/9/9/4A4/3AK4 w - - 0 1",
    "3ak4/4a4/9/9/9/9/9/4R4/9/4K4 w - - 0 1",
    "4k4/9/4b4/9/2p6/6P2/9/4B4/9/3K5 b - - 0 1",
    "2bak4/4a4/4b4/9/9/9/9/9/4C4/3AK4 w - - 0 1",
};

const char *engine_bench_fen(int index)
{
    int n = (int)(sizeof BENCH_FENS / sizeof BENCH_FENS[0]);
    return index >= 0 && index < n ? BENCH_FENS[index] : NULL;
}

BenchResult engine_bench(Engine *e, int depth,
                         void (*on_position)(void *ctx, int index, const char *fen,
                                             const SearchResult *r),
                         void *ctx)
{
    BenchResult br = {0, 0, MOVE_NONE};
    SearchLimits limits;
    time_limits_clear(&limits);
    limits.depth = depth > 0 ? depth : BENCH_DEPTH_DEFAULT;
    int n = (int)(sizeof BENCH_FENS / sizeof BENCH_FENS[0]);
    for (int i = 0; i < n; i++) {
        PosError err;
        engine_new_game(e);
        if (!engine_set_position(e, BENCH_FENS[i], NULL, 0, &err))
            continue; /* the list is fixed and tested: cannot happen */
        atomic_store(&e->stop, false);
        e->search.thread_id = 0;
        e->search.threads = 1;
        SearchResult r = search_run(&e->search, &e->pos, &limits, NULL);
        br.nodes += r.nodes;
        br.time_ms += r.time_ms;
        br.best = r.best;
        if (on_position)
            on_position(ctx, i, BENCH_FENS[i], &r);
    }
    return br;
}
