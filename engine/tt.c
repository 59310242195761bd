#include "tt.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(TTCluster) == 32, "TT cluster must stay 32 bytes");

/* An entry's fields, unpacked from its data word (the layout is drawn in tt.h). */
typedef struct {
    uint16_t move;
    int16_t value, eval;
    uint8_t depth, genbound;
} TTFields;

static inline TTFields tt_unpack(uint64_t d)
{
    return (TTFields){(uint16_t)d, (int16_t)(uint16_t)(d >> 16), (int16_t)(uint16_t)(d >> 32),
                      (uint8_t)(d >> 48), (uint8_t)(d >> 56)};
}

static inline uint64_t tt_pack(TTFields f)
{
    return (uint64_t)f.move | (uint64_t)(uint16_t)f.value << 16 | (uint64_t)(uint16_t)f.eval << 32 |
           (uint64_t)f.depth << 48 | (uint64_t)f.genbound << 56;
}

static inline uint16_t tt_fold(uint64_t d)
{
    return (uint16_t)(d ^ d >> 16 ^ d >> 32 ^ d >> 48);
}

static inline uint64_t tt_load_data(const TTCluster *c, int i)
{
    return atomic_load_explicit(&c->data[i], memory_order_relaxed);
}

/* The check bits of the key the entry holds (0 for an empty entry). */
static inline uint16_t tt_load_key(const TTCluster *c, int i, uint64_t data)
{
    return (uint16_t)(atomic_load_explicit(&c->check[i], memory_order_relaxed) ^ tt_fold(data));
}

static inline void tt_write(TTCluster *c, int i, uint16_t k16, uint64_t data)
{
    atomic_store_explicit(&c->data[i], data, memory_order_relaxed);
    atomic_store_explicit(&c->check[i], (uint16_t)(k16 ^ tt_fold(data)), memory_order_relaxed);
}

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

TTProbe tt_probe(const TT *tt, Key key, int ply, TTSlot *slot)
{
    TTProbe r = {false, MOVE_NONE, VALUE_NONE, VALUE_NONE, 0, BOUND_NONE};
    TTCluster *c = &tt->table[tt_index(tt, key)];
    uint16_t k16 = tt_check_bits(key);
    int replace = 0;
    TTFields rf = {0, 0, 0, 0, 0};
    for (int i = 0; i < TT_CLUSTER_SIZE; i++) {
        uint64_t d = tt_load_data(c, i);
        TTFields e = tt_unpack(d);
        if (tt_load_key(c, i, d) == k16 && e.depth) {
            /* refresh the generation so the entry survives this search */
            e.genbound = (uint8_t)((tt->generation & 0xfc) | (e.genbound & 3));
            tt_write(c, i, k16, tt_pack(e));
            r.hit = true;
            r.move = e.move;
            r.value = e.value == VALUE_NONE ? VALUE_NONE : value_from_tt(e.value, ply);
            r.eval = e.eval;
            r.depth = e.depth - 1;
            r.bound = (Bound)(e.genbound & 3);
            *slot = (TTSlot){c, i};
            return r;
        }
        if (i == 0) {
            rf = e;
            continue;
        }
        /* replace the entry that is shallowest, counting age as lost depth */
        int age_e = ((tt->generation - (e.genbound & 0xfc)) & 0xfc) * 2;
        int age_r = ((tt->generation - (rf.genbound & 0xfc)) & 0xfc) * 2;
        if (e.depth - age_e < rf.depth - age_r) {
            replace = i;
            rf = e;
        }
    }
    *slot = (TTSlot){c, replace};
    return r;
}

void tt_store(TT *tt, TTSlot slot, Key key, Value value, Bound bound, int depth, Move m, Value eval,
              int ply)
{
    uint16_t k16 = tt_check_bits(key);
    uint64_t old = tt_load_data(slot.cluster, slot.index);
    bool same = tt_load_key(slot.cluster, slot.index, old) == k16;
    TTFields e = tt_unpack(old);
    if (m != MOVE_NONE || !same)
        e.move = m;
    /* keep a deeper entry of the same position unless the new one is exact */
    if (bound == BOUND_EXACT || !same || depth + 4 > e.depth - 1) {
        e.value = (int16_t)(value == VALUE_NONE ? VALUE_NONE : value_to_tt(value, ply));
        e.eval = (int16_t)eval;
        e.depth = (uint8_t)(depth < 0 ? 1 : depth + 1 > 255 ? 255 : depth + 1);
        e.genbound = (uint8_t)((tt->generation & 0xfc) | bound);
    }
    uint64_t d = tt_pack(e);
    if (d != old || !same)
        tt_write(slot.cluster, slot.index, k16, d);
}

int tt_hashfull(const TT *tt)
{
    int used = 0, n = tt->clusters < 1000 ? (int)tt->clusters : 1000;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < TT_CLUSTER_SIZE; j++) {
            TTFields e = tt_unpack(tt_load_data(&tt->table[i], j));
            used += e.depth && (e.genbound & 0xfc) == (tt->generation & 0xfc);
        }
    return n ? used * 1000 / (n * TT_CLUSTER_SIZE) : 0;
}
