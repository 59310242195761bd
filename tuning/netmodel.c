#include "netmodel.h"

#include <stdlib.h>
#include <string.h>

#include "rng.h"

/* The feature of a stored piece (piece << 7 | square) from each perspective. */
static uint16_t g_feat[COLOR_NB][PIECE_NB << 7];

void netmodel_init(void)
{
    for (int p = 0; p < COLOR_NB; p++)
        for (int c = 0; c < COLOR_NB; c++)
            for (int t = KING; t < PIECE_TYPE_NB; t++)
                for (Square s = 0; s < SQUARE_NB; s++) {
                    Piece pc = piece_make((Color)c, (PieceType)t);
                    g_feat[p][pc << 7 | s] = (uint16_t)nnue_feature_index((Color)p, pc, s);
                }
}

bool netmodel_shape(NetShape *s, int hidden, int buckets, int scale)
{
    if (hidden < NNUE_HIDDEN_MIN || hidden > NNUE_HIDDEN_MAX || hidden % NNUE_HIDDEN_STEP ||
        buckets < 1 || buckets > NNUE_BUCKETS_MAX || scale < NNUE_SCALE_MIN ||
        scale > NNUE_SCALE_MAX)
        return false;
    size_t H = (size_t)hidden;
    s->hidden = hidden;
    s->buckets = buckets;
    s->scale = scale;
    s->o_b1 = NNUE_INPUTS * H;
    s->o_w2 = s->o_b1 + H;
    s->o_b2 = s->o_w2 + 2 * H * (size_t)buckets;
    /* b2 padded so that every vector is a whole number of SIMD rows */
    s->nw = s->o_b2 + (((size_t)buckets + 15) & ~(size_t)15);
    return true;
}

float *netmodel_alloc(size_t n)
{
    size_t bytes = (n * sizeof(float) + NETMODEL_ALIGN - 1) & ~(size_t)(NETMODEL_ALIGN - 1);
    float *p = aligned_alloc(NETMODEL_ALIGN, bytes ? bytes : NETMODEL_ALIGN);
    if (p)
        memset(p, 0, bytes);
    return p;
}

static float uniform(uint64_t *rng, float a)
{
    return (float)((2 * rng_unit(rng_next(rng)) - 1) * a);
}

void netmodel_init_weights(const NetShape *s, float *w, uint64_t seed)
{
    uint64_t rng = rng_mix(seed ^ 0x6e6574696e6974ULL);
    memset(w, 0, s->nw * sizeof *w);
    for (size_t i = 0; i < s->o_b1; i++)
        w[i] = uniform(&rng, 0.1f);
    for (size_t i = s->o_b1; i < s->o_w2; i++)
        w[i] = 0.5f;
    float a = 1.0f / sqrtf(2.0f * (float)s->hidden);
    for (size_t i = s->o_w2; i < s->o_b2; i++)
        w[i] = uniform(&rng, a);
}

void netmodel_clip(const NetShape *s, float *w)
{
    for (size_t i = 0; i < s->o_b2; i++)
        w[i] = netmodel_clip_weight(w[i]);
}

/* Positions whose W1 gradients are added feature by feature (see scatter_block); how
 * many positions ahead a pass asks for a position's data. */
enum { BLOCK = 128, PREFETCH = 16 };

struct NetScratch {
    float *acc; /* [2H]: the side to move's accumulator, then the other's */
    /* the weights a pass reads, on the engine's grid (netmodel_round): */
    int16_t *w1i;  /* [o_w2]: W1 and b1 in units of 1 / QA, as the engine has them */
    float *tail;   /* [nw - o_w2]: W2 rounded to 1 / QB, and b2 */
    int16_t *acci; /* [2H]: the accumulators in those units */
    /* a block of BLOCK positions' accumulator gradients, and which of them each feature
     * receives (scatter_block) */
    float *dblock;                            /* [BLOCK][2H] */
    uint16_t feat[BLOCK * 2 * NETDATA_SLOTS]; /* per (position, perspective, slot) */
    uint16_t nfeat[BLOCK];
    uint32_t start[NNUE_INPUTS + 1];
    uint16_t pairs[BLOCK * 2 * NETDATA_SLOTS]; /* 2 x position + perspective, by feature */
};

NetScratch *netmodel_scratch_new(const NetShape *s)
{
    NetScratch *sc = calloc(1, sizeof *sc);
    if (!sc)
        return NULL;
    sc->acc = netmodel_alloc(2 * (size_t)s->hidden);
    sc->tail = netmodel_alloc(s->nw - s->o_w2);
    sc->w1i = aligned_alloc(NETMODEL_ALIGN, (s->o_w2 * sizeof(int16_t) + NETMODEL_ALIGN - 1) /
                                                NETMODEL_ALIGN * NETMODEL_ALIGN);
    sc->acci = aligned_alloc(NETMODEL_ALIGN, 2 * (size_t)s->hidden * sizeof(int16_t));
    sc->dblock = netmodel_alloc((size_t)BLOCK * 2 * (size_t)s->hidden);
    if (!sc->acc || !sc->tail || !sc->w1i || !sc->acci || !sc->dblock)
        netmodel_scratch_free(&sc);
    return sc;
}

void netmodel_scratch_free(NetScratch **sc)
{
    if (*sc) {
        free((*sc)->acc);
        free((*sc)->tail);
        free((*sc)->w1i);
        free((*sc)->acci);
        free((*sc)->dblock);
        free(*sc);
        *sc = NULL;
    }
}

/* Eight floats, added as one vector where the target has them (rows are
 * NETMODEL_ALIGN-aligned and H is a multiple of 32). */
typedef float Vec8 __attribute__((vector_size(32)));
typedef int32_t Vec8i __attribute__((vector_size(32)));

/* Eight accumulators clamped to [0, 1] (comparisons give lane masks, and the masks
 * pick); a macro, since a function returning a 32-byte vector has no SSE ABI. */
#define CLAMP01(v)                                              \
    ({                                                          \
        const Vec8 zero_ = {0}, one_ = zero_ + 1;               \
        Vec8 a_ = (Vec8)((Vec8i)(v) & ~((v) < zero_));          \
        Vec8i above_ = a_ > one_;                               \
        (Vec8)(((Vec8i)a_ & ~above_) | ((Vec8i)one_ & above_)); \
    })

/* The features of both perspectives of n stored pieces. */
static inline void features(const uint16_t *pieces, int n, int side, uint16_t *restrict fs,
                            uint16_t *restrict fo)
{
    for (int k = 0; k < n; k++) {
        fs[k] = g_feat[side][pieces[k]];
        fo[k] = g_feat[side ^ 1][pieces[k]];
    }
}

/*
 * The weights as the engine will hold them: W1 and b1 rounded to multiples of 1 / QA,
 * W2 to multiples of 1 / QB (b2's grid, 1 / (QA QB), is fine enough to leave). The
 * rounding of W2 alone moves an evaluation by some 10 engine units on average (2H terms
 * of up to 1 / (2 QB) each), and that of W1 as much again once W2 has grown, so the
 * model trains with the rounding in place (its gradient passes through the rounding
 * unchanged: the float weights take the small steps and the rounded ones follow) and the
 * engine's integer evaluation equals the trained one up to the engine's truncations.
 * W1 and b1 are kept as the engine keeps them, int16 counts of 1 / QA (w1i), the rest
 * as floats (tail, from o_w2 on).
 */
NETMODEL_CLONES void netmodel_round(const NetShape *s, NetScratch *sc, const float *restrict w,
                                    size_t lo, size_t hi)
{
    int16_t *restrict w1i = sc->w1i;
    float *restrict tail = sc->tail; /* tail[i - o_w2] is weight i */
    size_t end1 = hi < s->o_w2 ? hi : s->o_w2;
    for (size_t i = lo; i < end1; i++)
        w1i[i] = netmodel_round_w1(w[i]);
    for (size_t i = lo > s->o_w2 ? lo : s->o_w2; i < hi; i++)
        tail[i - s->o_w2] = i < s->o_b2 ? nearbyintf(w[i] * NNUE_QB) * (1.0f / NNUE_QB) : w[i];
}

int16_t *netmodel_rounded_w1(NetScratch *sc)
{
    return sc->w1i;
}

/* The pass's hot loops are inlined into each of its clones (below), so that each is
 * compiled for the clone's instruction set. */
#define NETMODEL_HOT static inline __attribute__((always_inline))

/* Both accumulators into acc, and y. The accumulators are added in int16 counts of
 * 1 / QA, as the engine adds them: exact (the clip keeps them in range), and half the
 * bytes a float row would read. */
NETMODEL_HOT float forward(const NetShape *s, const float *restrict tail,
                           const int16_t *restrict w1i, const uint16_t *fs, const uint16_t *fo,
                           int n, int b, int16_t *restrict acci, float *restrict acc)
{
    const int H = s->hidden;
    int16_t *restrict as = acci, *restrict ao = acci + H;
    memcpy(as, w1i + s->o_b1, (size_t)H * sizeof *as);
    memcpy(ao, w1i + s->o_b1, (size_t)H * sizeof *ao);
    for (int k = 0; k < n; k++) {
        const int16_t *restrict rs = w1i + (size_t)fs[k] * (size_t)H;
        const int16_t *restrict ro = w1i + (size_t)fo[k] * (size_t)H;
        for (int i = 0; i < H; i++) {
            as[i] = (int16_t)(as[i] + rs[i]);
            ao[i] = (int16_t)(ao[i] + ro[i]);
        }
    }
    for (int i = 0; i < 2 * H; i++)
        acc[i] = (float)acci[i] * (1.0f / NNUE_QA);
    const float *restrict w2 = tail + (size_t)b * 2 * (size_t)H;
    Vec8 lo = {0}, hi = {0}; /* lanes 0-7 and 8-15 of the partial sums */
    for (int i = 0; i < 2 * H; i += 16) {
        Vec8 a = *(const Vec8 *)(acc + i), a8 = *(const Vec8 *)(acc + i + 8);
        Vec8 c = CLAMP01(a), d = CLAMP01(a8);
        lo += c * c * *(const Vec8 *)(w2 + i);
        hi += d * d * *(const Vec8 *)(w2 + i + 8);
    }
    float y = tail[s->o_b2 - s->o_w2 + (size_t)b];
    for (int j = 0; j < 8; j++)
        y += lo[j];
    for (int j = 0; j < 8; j++)
        y += hi[j];
    return y;
}

/* Adds g times the gradient of y (accumulators in acc) to grad. */
NETMODEL_HOT void backward(const NetShape *s, const float *restrict tail, int b,
                           const float *restrict acc, float g, float *restrict dacc,
                           float *restrict grad)
{
    const int H = s->hidden;
    const float *restrict w2 = tail + (size_t)b * 2 * (size_t)H;
    float *restrict gw2 = grad + s->o_w2 + (size_t)b * 2 * (size_t)H;
    grad[s->o_b2 + (size_t)b] += g;
    const Vec8 one = (Vec8){0} + 1;
    for (int i = 0; i < 2 * H; i += 8) {
        Vec8 a = *(const Vec8 *)(acc + i), c = CLAMP01(a);
        *(Vec8 *)(gw2 + i) += g * c * c;
        /* d screlu / d a = 2 clamp(a) inside (0, 1), 0 outside (c is 0 below) */
        *(Vec8 *)(dacc + i) = (Vec8)((Vec8i)(2 * g * c * *(const Vec8 *)(w2 + i)) & (a < one));
    }
    float *restrict gb1 = grad + s->o_b1;
    const float *restrict ds = dacc, *restrict dother = dacc + H;
    for (int i = 0; i < H; i++)
        gb1[i] += ds[i] + dother[i];
}

/* The W1 gradient of a block of nb positions: each feature's row of grad is read and
 * written once, with the accumulator gradients of every position (and perspective) that
 * has the feature added to it in order. Row by position would read and write a 4H-byte
 * row of grad for each of some 56 features a position has, and the rows of 1260
 * features do not stay in a core's cache: the pass would wait on memory, and two ranks
 * on one machine would wait on each other's. */
NETMODEL_HOT void scatter_block(const NetShape *s, NetScratch *sc, int nb, float *restrict grad)
{
    const int H = s->hidden;
    uint32_t *start = sc->start;
    memset(start, 0, sizeof sc->start);
    for (int j = 0; j < nb; j++)
        for (int q = 0; q < 2; q++) {
            const uint16_t *f = sc->feat + (j * 2 + q) * NETDATA_SLOTS;
            for (int k = 0; k < sc->nfeat[j]; k++)
                start[f[k] + 1]++;
        }
    for (int f = 0; f < NNUE_INPUTS; f++)
        start[f + 1] += start[f];
    for (int j = 0; j < nb; j++)
        for (int q = 0; q < 2; q++) {
            const uint16_t *f = sc->feat + (j * 2 + q) * NETDATA_SLOTS;
            for (int k = 0; k < sc->nfeat[j]; k++)
                sc->pairs[start[f[k]]++] = (uint16_t)(j * 2 + q);
        }
    /* start[f] is now the end of f's pairs, and the start of f + 1's */
    uint32_t from = 0;
    for (int f = 0; f < NNUE_INPUTS; f++) {
        uint32_t to = start[f];
        if (to == from)
            continue;
        float *restrict row = grad + (size_t)f * (size_t)H;
        for (uint32_t p = from; p < to; p++) {
            const float *restrict d = sc->dblock + (size_t)sc->pairs[p] * (size_t)H;
            for (int i = 0; i < H; i += 8)
                *(Vec8 *)(row + i) += *(const Vec8 *)(d + i);
        }
        from = to;
    }
}

/* The pass is where training spends its time: compiled twice (NETMODEL_CLONES). */

NETMODEL_CLONES
NetLoss netmodel_pass_rounded(const NetShape *s, NetScratch *sc, const NetSet *d,
                              const uint32_t *subset, uint64_t nsub, double k, double lambda,
                              float *grad)
{
    NetLoss L = {0, 0};
    uint64_t count = subset ? nsub : d->n;
    double ks = k * s->scale;
    uint16_t fs_own[NETDATA_SLOTS], fo_own[NETDATA_SLOTS], *fs = fs_own, *fo = fo_own;
    int nb = 0; /* positions in the block */
    for (uint64_t j = 0; j < count; j++) {
        uint64_t i = subset ? subset[j] : j;
        if (subset && j + PREFETCH < count) { /* a batch's positions lie anywhere in d */
            uint64_t ahead = subset[j + PREFETCH];
            __builtin_prefetch(d->piece[ahead]);
            __builtin_prefetch(d->info + ahead);
            __builtin_prefetch(d->score + ahead);
            __builtin_prefetch(d->result + ahead);
        }
        int n = netdata_count(d, i), b = netmodel_bucket(s->buckets, n);
        if (grad) { /* the features are kept for scatter_block */
            fs = sc->feat + nb * 2 * NETDATA_SLOTS;
            fo = fs + NETDATA_SLOTS;
            sc->nfeat[nb] = (uint16_t)n;
        }
        features(d->piece[i], n, netdata_side(d, i), fs, fo);
        float y = forward(s, sc->tail, sc->w1i, fs, fo, n, b, sc->acci, sc->acc);
        double p = 1.0 / (1.0 + exp(-ks * y));
        double t = netmodel_target(d->score[i], d->result[i], k, lambda);
        double r = (d->result[i] + 1) / 2.0;
        L.loss += (p - t) * (p - t);
        L.result_loss += (p - r) * (p - r);
        if (grad) {
            float g = (float)(2 * (p - t) * p * (1 - p) * ks);
            backward(s, sc->tail, b, sc->acc, g, sc->dblock + (size_t)nb * 2 * (size_t)s->hidden,
                     grad);
            if (++nb == BLOCK || j + 1 == count) {
                scatter_block(s, sc, nb, grad);
                nb = 0;
            }
        }
    }
    return L;
}

NetLoss netmodel_pass(const NetShape *s, NetScratch *sc, const NetSet *d, const uint32_t *subset,
                      uint64_t nsub, const float *w, double k, double lambda, float *grad)
{
    netmodel_round(s, sc, w, 0, s->nw);
    return netmodel_pass_rounded(s, sc, d, subset, nsub, k, lambda, grad);
}

double netmodel_eval_position(const NetShape *s, NetScratch *sc, const float *w,
                              const Position *pos)
{
    uint16_t pieces[NETDATA_SLOTS], fs[NETDATA_SLOTS], fo[NETDATA_SLOTS];
    int n = netdata_pieces(pos, pieces);
    features(pieces, n, pos->side, fs, fo);
    netmodel_round(s, sc, w, 0, s->nw);
    return forward(s, sc->tail, sc->w1i, fs, fo, n, netmodel_bucket(s->buckets, n), sc->acci,
                   sc->acc) *
           s->scale;
}
