/*
 * The loaded positions, compactly: each position is its sparse coefficient list
 * (trace.h) in two contiguous arenas shared by all positions, plus a few bytes of
 * per-position fields. No allocation per position; the arrays grow by half and are
 * trimmed to size when loading ends.
 *
 *   position i:  entries start[i] .. start[i+1]-1 of idx[] (uint16 parameter index)
 *                and coef[] (int8, Red's uses minus Black's)
 *                phase[i] (0..PHASE_MAX), score[i] (search score, Red's view),
 *                result[i] (-1, 0, 1: Red lost, drew, won), label[i] (the target),
 *                uid[i] (a hash of the position's place in the input files: mini-batch
 *                membership follows it, so it does not depend on the rank count)
 *
 * Bytes per position: 8 + 4 + 4 + 2 + 1 + 1 + 3 per coefficient.
 */
#ifndef CHUHE_DATASET_H
#define CHUHE_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The per-position arrays (n of them, start n + 1) and the coefficient arenas (nent):
 * the fields drawn above. */
typedef struct {
    uint64_t n, cap, nent, ent_cap;
    uint64_t *start;
    float *label;
    uint32_t *uid;
    int16_t *score;
    int8_t *result;
    uint8_t *phase;
    uint16_t *idx; /* the arenas */
    int8_t *coef;
} Dataset;

void dataset_init(Dataset *d);
void dataset_free(Dataset *d);

/* Appends a position; false when out of memory (d is unchanged then). */
bool dataset_add(Dataset *d, const uint16_t *idx, const int8_t *coef, int n, int phase, int score,
                 int result, uint32_t uid);

/* Keeps the positions whose keep[i] is nonzero, in order, and trims the arrays. */
void dataset_filter(Dataset *d, const uint8_t *keep);
/* Gives back the unused capacity. */
void dataset_trim(Dataset *d);

/* A fingerprint of the positions that does not depend on their order (so the sums of
 * every rank's part agree whatever the rank count). */
uint64_t dataset_hash(const Dataset *d);

/* Bytes the arrays hold (capacity, not use). */
size_t dataset_bytes(const Dataset *d);

static inline int dataset_count(const Dataset *d, uint64_t i)
{
    return (int)(d->start[i + 1] - d->start[i]);
}

#endif
