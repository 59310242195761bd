/*
 * Hashing and random numbers for the tuner. Every random choice (sampling within a
 * game, the validation split, mini-batch membership) is a hash of the seed and of the
 * position's or game's place in the input files, never of the rank that holds it, so a
 * run gives the same data and the same batches on any number of ranks.
 */
#ifndef CHUHE_RNG_H
#define CHUHE_RNG_H

#include <stdint.h>

/* The splitmix64 finaliser: a bijection that mixes every input bit into every output bit. */
static inline uint64_t rng_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* splitmix64: the next number of the stream whose state is *s. */
static inline uint64_t rng_next(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ULL;
    return rng_mix(*s);
}

/* A uniform double in [0, 1) from 64 random bits. */
static inline double rng_unit(uint64_t r)
{
    return (double)(r >> 11) * 0x1.0p-53;
}

/* A uniform integer in [0, n) (n > 0); the bias is below 2^-32 for n < 2^32. */
static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
    return rng_next(s) % n;
}

/* Places in the input: file index and row (position) or game id. */
static inline uint64_t rng_place(uint64_t file, uint64_t row)
{
    return file << 40 | row;
}

#endif
