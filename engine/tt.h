/*
 * The transposition table: clusters of three entries in 32 bytes, indexed by the high
 * bits of key * cluster count. Replacement keeps the deeper entry of the current
 * search generation.
 *
 * The threads of a search share one table without locks. An entry is a 64-bit data
 * word and a 16-bit check word, each read and written whole (relaxed atomics):
 *
 *   data:  bits 0-15 move | 16-31 value | 32-47 eval | 48-55 depth + 1 (0: empty)
 *          | 56-63 generation (high 6 bits) and bound (low 2 bits)
 *   check: the key's 16 check bits XOR the data folded to 16 bits
 *
 * A probe that reads the data of one write and the check of another (two threads
 * storing at once) finds a check that does not match its key, and misses, but for one
 * time in 65536; a hash move found that way is still tested for legality, as every
 * hash move is. An empty entry is all zero.
 */
#ifndef CHUHE_TT_H
#define CHUHE_TT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "score.h"
#include "types.h"

typedef enum {
    BOUND_NONE,
    BOUND_UPPER,
    BOUND_LOWER,
    BOUND_EXACT = BOUND_UPPER | BOUND_LOWER
} Bound;

enum { TT_CLUSTER_SIZE = 3 };

typedef struct {
    _Atomic uint64_t data[TT_CLUSTER_SIZE];
    _Atomic uint16_t check[TT_CLUSTER_SIZE];
    char pad[2];
} TTCluster;

/* Where tt_store writes for the key a probe looked for. */
typedef struct {
    TTCluster *cluster;
    int index;
} TTSlot;

typedef struct {
    TTCluster *table;
    size_t clusters;
    uint8_t generation;
} TT;

/* What a probe found, copied out of the table. */
typedef struct {
    bool hit;
    Move move;
    Value value; /* adjusted to the probing ply */
    Value eval;
    int depth;
    Bound bound;
} TTProbe;

/* Allocates a cleared table of mb megabytes (at least 1) in place of the current one;
 * false when out of memory, and then the current table (or none) stays, entries and all. */
bool tt_resize(TT *tt, size_t mb);
void tt_free(TT *tt);
void tt_clear(TT *tt);
void tt_new_search(TT *tt);
/* Finds key; *slot is where tt_store should write for that key afterwards. */
TTProbe tt_probe(const TT *tt, Key key, int ply, TTSlot *slot);
void tt_store(TT *tt, TTSlot slot, Key key, Value value, Bound bound, int depth, Move m, Value eval,
              int ply);
/* Permille of the first thousand clusters used in this search: UCI hashfull. */
int tt_hashfull(const TT *tt);

static inline size_t tt_index(const TT *tt, Key key)
{
    return (size_t)(((unsigned __int128)key * tt->clusters) >> 64);
}

/* The 16 bits an entry keeps to recognise its position. The cluster index comes from
 * the key's high bits, so the check bits must be the low ones: taken from the high end
 * they would repeat the index and tell nothing. */
static inline uint16_t tt_check_bits(Key key)
{
    return (uint16_t)key;
}

static inline void tt_prefetch(const TT *tt, Key key)
{
    __builtin_prefetch(&tt->table[tt_index(tt, key)]);
}

#endif
