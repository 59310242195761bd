#include "qresolve.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "search.h"

/* 16 KB of hash: a quiescence tree fits, and clearing it for every position costs
 * little (the engine's smallest table, 1 MB, would cost more than the search). */
enum { QRESOLVE_TT_CLUSTERS = 512 };

struct QResolve {
    Search search;
    TT tt;
    TTCluster table[QRESOLVE_TT_CLUSTERS];
    atomic_bool stop; /* never raised */
};

QResolve *qresolve_new(const EvalParams *params)
{
    /* zeroed: empty histories, and quiescence never adds to them */
    QResolve *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->tt.table = q->table;
    q->tt.clusters = QRESOLVE_TT_CLUSTERS;
    atomic_init(&q->stop, false);
    q->search.tt = &q->tt;
    q->search.params = params;
    q->search.stop = &q->stop;
    return q;
}

void qresolve_free(QResolve **q)
{
    if (!q)
        return;
    free(*q);
    *q = NULL;
}

int qresolve_run(QResolve *q, Position *pos)
{
    if (pos_in_check(pos))
        return 0;
    tt_clear(&q->tt);
    Move pv[MAX_PLY];
    int len;
    Value v = search_quiescence(&q->search, pos, false, pv, &len);
    if (len > QRESOLVE_MAX_PLIES || v >= VALUE_MATE_IN_MAX_PLY || v <= VALUE_MATED_IN_MAX_PLY)
        return 0;
    if (pos->hist_len + QRESOLVE_MAX_PLIES >= POS_HISTORY_MAX)
        pos_trim_history(pos);
    for (int k = 0; k < len; k++)
        pos_do_move(pos, pv[k]);
    return len;
}

int qresolve(Position *pos, const EvalParams *params)
{
    QResolve *q = qresolve_new(params);
    if (!q)
        return -1;
    int plies = qresolve_run(q, pos);
    qresolve_free(&q);
    return plies;
}
