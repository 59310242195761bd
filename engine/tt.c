#include "tt.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(TTEntry) == 10, "TT entry must stay 10 bytes");
_Static_assert(sizeof(TTCluster) == 32, "TT cluster must stay 32 bytes");

bool tt_resize(TT *tt, size_t mb)
{
    if (mb < 1)
        mb = 1;
    size_t clusters = mb * 1024 * 1024 / sizeof(TTCluster);
    /* the new table first: when it cannot be had, the old one stays in use */
    void *mem = NULL;
    if (posix_memalign(&mem, 64, clusters * sizeof(TTCluster)) != 0)
        return false;
    free(tt->table);
    tt->table = mem;
    tt->clusters = clusters;
    tt_clear(tt);
    return true;
}

void tt_free(TT *tt)
{
    free(tt->table);
    tt->table = NULL;
    tt->clusters = 0;
}

void tt_clear(TT *tt)
{
    if (tt->table)
        memset(tt->table, 0, tt->clusters * sizeof(TTCluster));
    tt->generation = 0;
}

void tt_new_search(TT *tt)
{
    tt->generation = (uint8_t)(tt->generation + 4);
}

/* Mate scores are stored relative to the node, not the root. */
static inline Value value_to_tt(Value v, int ply)
{
    return v >= VALUE_MATE_IN_MAX_PLY ? v + ply : v <= VALUE_MATED_IN_MAX_PLY ? v - ply : v;
}

static inline Value value_from_tt(Value v, int ply)
{
    return v >= VALUE_MATE_IN_MAX_PLY ? v - ply : v <= VALUE_MATED_IN_MAX_PLY ? v + ply : v;
}

TTProbe tt_probe(const TT *tt, Key key, int ply, TTEntry **slot)
{
    TTProbe r = {false, MOVE_NONE, VALUE_NONE, VALUE_NONE, 0, BOUND_NONE};
    TTCluster *c = &tt->table[tt_index(tt, key)];
    uint16_t k16 = tt_check_bits(key);
    TTEntry *replace = &c->entry[0];
    for (int i = 0; i < TT_CLUSTER_SIZE; i++) {
        TTEntry *e = &c->entry[i];
        if (e->key16 == k16 && e->depth) {
            /* refresh the generation so the entry survives this search */
            e->genbound = (uint8_t)((tt->generation & 0xfc) | (e->genbound & 3));
            r.hit = true;
            r.move = e->move;
            r.value = e->value == VALUE_NONE ? VALUE_NONE : value_from_tt(e->value, ply);
            r.eval = e->eval;
            r.depth = e->depth - 1;
            r.bound = (Bound)(e->genbound & 3);
            *slot = e;
            return r;
        }
        /* replace the entry that is shallowest, counting age as lost depth */
        int age_e = ((tt->generation - (e->genbound & 0xfc)) & 0xfc) * 2;
        int age_r = ((tt->generation - (replace->genbound & 0xfc)) & 0xfc) * 2;
        if (e->depth - age_e < replace->depth - age_r)
            replace = e;
    }
    *slot = replace;
    return r;
}

void tt_store(TT *tt, TTEntry *e, Key key, Value value, Bound bound, int depth, Move m, Value eval,
              int ply)
{
    uint16_t k16 = tt_check_bits(key);
    if (m != MOVE_NONE || e->key16 != k16)
        e->move = m;
    /* keep a deeper entry of the same position unless the new one is exact */
    if (bound == BOUND_EXACT || e->key16 != k16 || depth + 4 > e->depth - 1) {
        e->key16 = k16;
        e->value = (int16_t)(value == VALUE_NONE ? VALUE_NONE : value_to_tt(value, ply));
        e->eval = (int16_t)eval;
        e->depth = (uint8_t)(depth < 0 ? 1 : depth + 1 > 255 ? 255 : depth + 1);
        e->genbound = (uint8_t)((tt->generation & 0xfc) | bound);
    }
}

int tt_hashfull(const TT *tt)
{
    int used = 0, n = tt->clusters < 1000 ? (int)tt->clusters : 1000;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < TT_CLUSTER_SIZE; j++) {
            const TTEntry *e = &tt->table[i].entry[j];
            used += e->depth && (e->genbound & 0xfc) == (tt->generation & 0xfc);
        }
    return n ? used * 1000 / (n * TT_CLUSTER_SIZE) : 0;
}
