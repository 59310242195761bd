/*
 * The network trainer's positions, compactly: a struct of arrays, no allocation per
 * position, grown by half as it fills and trimmed when loading ends.
 *
 *   piece[i][0 .. NETDATA_SLOTS): the pieces of position i, one uint16 each
 *       (piece << 7 | square, square order), unused slots NETDATA_NONE; the features of
 *       both perspectives are derived from them (netmodel.h)
 *   info[i]: side to move << 7 | number of pieces
 *   score[i]: search score, result[i]: -1, 0, 1 (lost, drew, won), both from the side to
 *       move's view
 *   uid[i]: a hash of the position's place in the input files: mini-batch membership
 *       follows it, so it does not depend on the rank count
 *
 * Bytes per position: 64 + 1 + 2 + 1 + 4 = 72.
 */
#ifndef CHUHE_NETDATA_H
#define CHUHE_NETDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loader.h"
#include "position.h"
#include "record.h"

enum { NETDATA_SLOTS = 32, NETDATA_NONE = 0xffff };

typedef struct {
    uint64_t n, cap;
    uint16_t (*piece)[NETDATA_SLOTS];
    uint8_t *info;
    int16_t *score;
    int8_t *result;
    uint32_t *uid;
    bool borrowed; /* the arrays are another's (netshare.h): netdata_free leaves them */
} NetSet;

void netdata_init(NetSet *d);
void netdata_free(NetSet *d);

/* The pieces of pos as stored (piece << 7 | square, square order) into out[32];
 * returns how many. */
int netdata_pieces(const Position *pos, uint16_t *out);

/* Keeps the positions whose keep[i] is nonzero, in order, and trims the arrays. */
void netdata_filter(NetSet *d, const uint8_t *keep);

/* Bytes the arrays hold (capacity, not use). */
size_t netdata_bytes(const NetSet *d);

/* A fingerprint of the positions that does not depend on their order. */
uint64_t netdata_hash(const NetSet *d);

static inline int netdata_side(const NetSet *d, uint64_t i)
{
    return d->info[i] >> 7;
}
static inline int netdata_count(const NetSet *d, uint64_t i)
{
    return d->info[i] & 127;
}

/* Adds n positions of seeded random games (synth.h) without a run file, for the
 * benchmark and the tests: the score is the static evaluation, the result random. False
 * when out of memory. */
bool netdata_synth(NetSet *d, uint64_t n, uint64_t seed);

/*
 * The loader's store for the trainer (load_runfiles_into): the two sets, and the first
 * sample_max positions this rank selects, packed, for the check of the exported net
 * against the engine (netexport.h), which needs whole positions.
 */
typedef struct {
    NetSet *set[2];
    PackedPos *sample;
    int nsample, sample_max;
} NetSink;

/* A LoadSink over ns (which must outlive it). */
LoadSink netdata_sink(NetSink *ns);

#endif
