#include "dataset.h"

#include <stdlib.h>
#include <string.h>

#include "rng.h"

void dataset_init(Dataset *d)
{
    memset(d, 0, sizeof *d);
}

void dataset_free(Dataset *d)
{
    free(d->start);
    free(d->label);
    free(d->uid);
    free(d->score);
    free(d->result);
    free(d->phase);
    free(d->idx);
    free(d->coef);
    dataset_init(d);
}

/* Resizes *p to n elements of size elem (n may be 0); false leaves *p as it was. */
static bool resize(void **p, size_t elem, uint64_t n)
{
    void *q = realloc(*p, n ? (size_t)n * elem : 1);
    if (!q)
        return false;
    *p = q;
    return true;
}

/* Position arrays with capacity cap; start[] has one more. */
static bool resize_positions(Dataset *d, uint64_t cap)
{
    if (!resize((void **)&d->start, sizeof *d->start, cap + 1) ||
        !resize((void **)&d->label, sizeof *d->label, cap) ||
        !resize((void **)&d->uid, sizeof *d->uid, cap) ||
        !resize((void **)&d->score, sizeof *d->score, cap) ||
        !resize((void **)&d->result, sizeof *d->result, cap) ||
        !resize((void **)&d->phase, sizeof *d->phase, cap))
        return false;
    d->cap = cap;
    return true;
}

static bool resize_entries(Dataset *d, uint64_t cap)
{
    if (!resize((void **)&d->idx, sizeof *d->idx, cap) ||
        !resize((void **)&d->coef, sizeof *d->coef, cap))
        return false;
    d->ent_cap = cap;
    return true;
}

bool dataset_add(Dataset *d, const uint16_t *idx, const int8_t *coef, int n, int phase, int score,
                 int result, uint32_t uid)
{
    if (d->n == d->cap && !resize_positions(d, d->cap < 1024 ? 1024 : d->cap + d->cap / 2))
        return false;
    if (d->nent + (uint64_t)n > d->ent_cap) {
        uint64_t want = d->ent_cap < 65536 ? 65536 : d->ent_cap + d->ent_cap / 2;
        if (want < d->nent + (uint64_t)n)
            want = d->nent + (uint64_t)n;
        if (!resize_entries(d, want))
            return false;
    }
    if (d->n == 0)
        d->start[0] = 0;
    memcpy(d->idx + d->nent, idx, (size_t)n * sizeof *idx);
    memcpy(d->coef + d->nent, coef, (size_t)n * sizeof *coef);
    d->nent += (uint64_t)n;
    uint64_t i = d->n++;
    d->start[i + 1] = d->nent;
    d->label[i] = 0.0f;
    d->uid[i] = uid;
    d->score[i] = (int16_t)score;
    d->result[i] = (int8_t)result;
    d->phase[i] = (uint8_t)phase;
    return true;
}

void dataset_filter(Dataset *d, const uint8_t *keep)
{
    uint64_t out = 0, ent = 0;
    for (uint64_t i = 0; i < d->n; i++) {
        if (!keep[i])
            continue;
        uint64_t s = d->start[i], e = d->start[i + 1];
        /* entries only move towards the front, so memmove of each block is safe */
        memmove(d->idx + ent, d->idx + s, (size_t)(e - s) * sizeof *d->idx);
        memmove(d->coef + ent, d->coef + s, (size_t)(e - s) * sizeof *d->coef);
        d->start[out] = ent;
        ent += e - s;
        d->label[out] = d->label[i];
        d->uid[out] = d->uid[i];
        d->score[out] = d->score[i];
        d->result[out] = d->result[i];
        d->phase[out] = d->phase[i];
        out++;
    }
    d->n = out;
    d->nent = ent;
    if (d->start)
        d->start[out] = ent;
    dataset_trim(d);
}

void dataset_trim(Dataset *d)
{
    /* shrinking never fails in practice; if it does, the larger arrays stay valid */
    if (d->cap > d->n)
        resize_positions(d, d->n);
    if (d->ent_cap > d->nent)
        resize_entries(d, d->nent);
    if (d->start && d->n == 0)
        d->start[0] = 0;
}

size_t dataset_bytes(const Dataset *d)
{
    if (!d->start)
        return 0;
    return (size_t)(d->cap + 1) * sizeof *d->start +
           (size_t)d->cap * (sizeof *d->label + sizeof *d->uid + sizeof *d->score +
                             sizeof *d->result + sizeof *d->phase) +
           (size_t)d->ent_cap * (sizeof *d->idx + sizeof *d->coef);
}

uint64_t dataset_hash(const Dataset *d)
{
    uint64_t h = 0;
    for (uint64_t i = 0; i < d->n; i++) {
        uint64_t x = (uint64_t)d->uid[i] | (uint64_t)(uint16_t)d->score[i] << 32 |
                     (uint64_t)(uint8_t)d->result[i] << 48 | (uint64_t)d->phase[i] << 56;
        h += rng_mix(x ^ rng_mix(d->start[i + 1] - d->start[i]));
    }
    return h;
}
