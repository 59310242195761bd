/*
 * The one seeded random number generator: splitmix64 (Steele, Lea, Flood 2014), the
 * same numbers on every platform.
 *
 * A stream is a 64-bit state stepped by RNG_GOLDEN; each number is the state mixed by
 * rng_mix, a bijection that spreads every input bit over every output bit. Its outputs
 * are good seeds for further streams. The k-th number of the stream seeded with s is
 * rng_at(s, k) without walking the stream: a keyed hash of (s, k), which is how a seed
 * per pair, per game or per parameter is drawn from a run's seed so that it does not
 * depend on the order in which the pairs, games or ranks come.
 *
 * Random choices that are part of stored data or of a run's reproducibility (Zobrist
 * keys, random openings, the schedule's shuffle, SPSA's perturbations, the tuner's
 * sampling and batches) use these functions only.
 *
 * Base layer of the engine library (docs/architecture.md, "The base"): error, array,
 * numparse, rng and textesc are the helpers every program uses; they know nothing of
 * xiangqi and include no module outside the base.
 */
#ifndef CHUHE_RNG_H
#define CHUHE_RNG_H

#include <stdint.h>

/* The stream's step: 2^64 divided by the golden ratio, odd, so the period is 2^64. */
#define RNG_GOLDEN 0x9e3779b97f4a7c15ULL

/* The splitmix64 finaliser. */
static inline uint64_t rng_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* The next number of the stream whose state is *s. */
static inline uint64_t rng_next(uint64_t *s)
{
    *s += RNG_GOLDEN;
    return rng_mix(*s);
}

/* The k-th number (k >= 1) of the stream seeded with seed, as rng_next would give it. */
static inline uint64_t rng_at(uint64_t seed, uint64_t k)
{
    return rng_mix(seed + k * RNG_GOLDEN);
}

/* A uniform double in [0, 1) from 64 random bits. */
static inline double rng_unit(uint64_t r)
{
    return (double)(r >> 11) * 0x1.0p-53;
}

/* A uniform integer in [0, n) (n > 0) by the remainder; the bias is below 2^-32 for
 * n < 2^32. */
static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
    return rng_next(s) % n;
}

/* A uniform integer in [0, n) (n > 0) by the multiply-shift method on the high 32 bits
 * (bias below n / 2^32): the random openings' draw. */
static inline uint32_t rng_below32(uint64_t *s, uint32_t n)
{
    return (uint32_t)(((rng_next(s) >> 32) * (uint64_t)n) >> 32);
}

#endif
