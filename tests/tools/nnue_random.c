/*
 * A network of random weights, for the shell tests and speed measurements that need a
 * network file before any network is trained.
 *
 *   nnue_random PATH [HIDDEN [BUCKETS [SEED]]]     (defaults 256, 1, 1)
 *
 * The weights are spread as in tests/test_nnue.c (accumulators cross both ends of the
 * clamp), with SCALE 40 so that evaluations stay within a few hundred. Written with the
 * engine's own writer. Exit status 0, or 2 with one error line.
 */
#include <stdio.h>
#include <stdlib.h>

#include "nnue.h"
#include "numparse.h"

static int range(uint64_t *s, int lo, int hi)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return lo + (int)(*s % (uint64_t)(hi - lo + 1));
}

int main(int argc, char **argv)
{
    char err[300];
    long long hidden = 256, buckets = 1;
    uint64_t seed = 1;
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: nnue_random PATH [HIDDEN [BUCKETS [SEED]]]\n");
        return 2;
    }
    if ((argc > 2 && !numparse_int("HIDDEN", argv[2], 1, 1 << 20, &hidden, err, sizeof err)) ||
        (argc > 3 && !numparse_int("BUCKETS", argv[3], 1, 1 << 20, &buckets, err, sizeof err)) ||
        (argc > 4 && !numparse_u64("SEED", argv[4], 0, UINT64_MAX, &seed, err, sizeof err))) {
        fprintf(stderr, "nnue_random: %s\n", err);
        return 2;
    }
    NnueNet net;
    if (!nnue_net_alloc(&net, (uint32_t)hidden, (uint32_t)buckets, err, sizeof err)) {
        fprintf(stderr, "nnue_random: %s\n", err);
        return 2;
    }
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (size_t i = 0; i < (size_t)NNUE_INPUTS * net.hidden; i++)
        net.w1[i] = (int16_t)range(&s, -60, 60);
    for (uint32_t i = 0; i < net.hidden; i++)
        net.b1[i] = (int16_t)range(&s, -100, 200);
    for (uint32_t i = 0; i < 2 * net.hidden * net.buckets; i++)
        net.w2[i] = (int16_t)range(&s, -NNUE_W2_MAX, NNUE_W2_MAX);
    for (uint32_t i = 0; i < net.buckets; i++)
        net.b2[i] = range(&s, -200000, 200000);
    net.scale = 40; /* evaluations of a few hundred, as a trained network gives */
    snprintf(net.description, sizeof net.description, "random %ux%u seed %llu", net.hidden,
             net.buckets, (unsigned long long)seed);
    bool ok = nnue_net_write(&net, argv[1], err, sizeof err);
    nnue_net_free(&net);
    if (!ok) {
        fprintf(stderr, "nnue_random: %s\n", err);
        return 2;
    }
    return 0;
}
