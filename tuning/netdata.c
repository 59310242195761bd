#include "netdata.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "evaluate.h"
#include "rng.h"
#include "synth.h"
#include "weights.h"

static void netdata_trim(NetSet *d);

void netdata_init(NetSet *d)
{
    memset(d, 0, sizeof *d);
}

void netdata_free(NetSet *d)
{
    if (d->borrowed) {
        netdata_init(d);
        return;
    }
    free(d->piece);
    free(d->info);
    free(d->score);
    free(d->result);
    free(d->uid);
    netdata_init(d);
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

static bool resize_all(NetSet *d, uint64_t cap)
{
    if (!resize((void **)&d->piece, sizeof *d->piece, cap) ||
        !resize((void **)&d->info, sizeof *d->info, cap) ||
        !resize((void **)&d->score, sizeof *d->score, cap) ||
        !resize((void **)&d->result, sizeof *d->result, cap) ||
        !resize((void **)&d->uid, sizeof *d->uid, cap))
        return false;
    d->cap = cap;
    return true;
}

int netdata_pieces(const Position *pos, uint16_t *out)
{
    int k = 0;
    for (Square s = 0; s < SQUARE_NB && k < NETDATA_SLOTS; s++) {
        Piece pc = pos_piece_on(pos, s);
        if (pc != NO_PIECE)
            out[k++] = (uint16_t)(pc << 7 | s);
    }
    return k;
}

/* Appends pos with its score and result from the side to move's view; false when out of
 * memory (d is unchanged then). */
static bool netdata_add(NetSet *d, const Position *pos, int score, int result, uint32_t uid)
{
    if (d->n == d->cap && !resize_all(d, d->cap < 1024 ? 1024 : d->cap + d->cap / 2))
        return false;
    uint64_t i = d->n;
    int k = netdata_pieces(pos, d->piece[i]);
    for (int j = k; j < NETDATA_SLOTS; j++)
        d->piece[i][j] = NETDATA_NONE;
    d->info[i] = (uint8_t)(pos->side << 7 | k);
    d->score[i] = (int16_t)(score > INT16_MAX    ? INT16_MAX
                            : score < -INT16_MAX ? -INT16_MAX
                                                 : score);
    d->result[i] = (int8_t)result;
    d->uid[i] = uid;
    d->n++;
    return true;
}

void netdata_filter(NetSet *d, const uint8_t *keep)
{
    uint64_t out = 0;
    for (uint64_t i = 0; i < d->n; i++) {
        if (!keep[i])
            continue;
        if (out != i) {
            memcpy(d->piece[out], d->piece[i], sizeof d->piece[i]);
            d->info[out] = d->info[i];
            d->score[out] = d->score[i];
            d->result[out] = d->result[i];
            d->uid[out] = d->uid[i];
        }
        out++;
    }
    d->n = out;
    netdata_trim(d);
}

/* The arrays trimmed to the positions held. */
static void netdata_trim(NetSet *d)
{
    /* shrinking never fails in practice; if it does, the larger arrays stay valid */
    if (d->cap > d->n)
        resize_all(d, d->n);
}

size_t netdata_bytes(const NetSet *d)
{
    return (size_t)d->cap * (sizeof *d->piece + sizeof *d->info + sizeof *d->score +
                             sizeof *d->result + sizeof *d->uid);
}

uint64_t netdata_hash(const NetSet *d)
{
    uint64_t h = 0;
    for (uint64_t i = 0; i < d->n; i++) {
        uint64_t x = (uint64_t)d->uid[i] | (uint64_t)(uint16_t)d->score[i] << 32 |
                     (uint64_t)(uint8_t)d->result[i] << 48 | (uint64_t)d->info[i] << 56;
        for (int k = 0; k < NETDATA_SLOTS; k += 4) {
            uint64_t w;
            memcpy(&w, &d->piece[i][k], sizeof w);
            x = rng_mix(x ^ w);
        }
        h += rng_mix(x);
    }
    return h;
}

typedef struct {
    NetSet *d;
    uint64_t want, rng;
} SynthCtx;

/* A synthetic position: its static evaluation as the score and a random result. */
static bool synth_take(void *ctx, const Position *pos)
{
    SynthCtx *s = ctx;
    uint64_t r = rng_next(&s->rng);
    int score = evaluate(pos, weights_default());
    return netdata_add(s->d, pos, score, (int)(r % 3) - 1, (uint32_t)(r >> 32)) &&
           s->d->n < s->want;
}

bool netdata_synth(NetSet *d, uint64_t n, uint64_t seed)
{
    SynthCtx s = {d, d->n + n, rng_mix(seed ^ 0x73796e7468ULL)};
    Position *pos = malloc(sizeof *pos);
    while (pos && d->n < s.want)
        if (synth_game(pos, &s.rng, 200, synth_take, &s) == 0)
            break;
    free(pos);
    netdata_trim(d);
    return d->n == s.want;
}

static bool sink_add(void *ctx, int set, const Position *pos, int score, int result, uint32_t uid,
                     LoadError *err)
{
    NetSink *ns = ctx;
    /* the loader gives Red's view; the network sees the side to move's */
    int sign = pos->side == RED ? 1 : -1;
    if (!netdata_add(ns->set[set], pos, sign * score, sign * result, uid))
        return ERROR_SET(err, "out of memory");
    if (ns->nsample < ns->sample_max)
        record_pack(pos, &ns->sample[ns->nsample++]);
    return true;
}

static void sink_filter(void *ctx, int set, const uint8_t *keep)
{
    NetSink *ns = ctx;
    netdata_filter(ns->set[set], keep);
}

static void sink_finish(void *ctx, LoadStats *st)
{
    NetSink *ns = ctx;
    netdata_trim(ns->set[0]);
    netdata_trim(ns->set[1]);
    st->entries = 0;
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < ns->set[s]->n; i++)
            st->entries += (uint64_t)netdata_count(ns->set[s], i);
}

LoadSink netdata_sink(NetSink *ns)
{
    return (LoadSink){ns, sink_add, sink_filter, sink_finish};
}
