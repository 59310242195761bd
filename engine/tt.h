/*
 * The transposition table: clusters of three 10-byte entries in 32 bytes, indexed by
 * the high bits of key * cluster count. Replacement keeps the deeper entry of the
 * current search generation.
 */
#ifndef CHUHE_TT_H
#define CHUHE_TT_H

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

typedef struct {
    uint16_t key16;
    uint16_t move;
    int16_t value;
    int16_t eval;
    uint8_t depth;    /* depth + 1; 0 marks an empty entry */
    uint8_t genbound; /* generation (high 6 bits) | bound (low 2 bits) */
} TTEntry;

enum { TT_CLUSTER_SIZE = 3 };

typedef struct {
    TTEntry entry[TT_CLUSTER_SIZE];
    char pad[2];
} TTCluster;

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
TTProbe tt_probe(const TT *tt, Key key, int ply, TTEntry **slot);
void tt_store(TT *tt, TTEntry *slot, Key key, Value value, Bound bound, int depth, Move m,
              Value eval, int ply);
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
