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
        w[i] = w[i] > NETMODEL_CLIP ? NETMODEL_CLIP : w[i] < -NETMODEL_CLIP ? -NETMODEL_CLIP : w[i];
}

struct NetScratch {
    float *acc;  /* [2H]: the side to move's accumulator, then the other's */
    float *dacc; /* [2H]: the loss's gradient with respect to them */
    float *wq;   /* [nw]: the weights on the engine's grid (round_weights) */
};

NetScratch *netmodel_scratch_new(const NetShape *s)
{
    NetScratch *sc = calloc(1, sizeof *sc);
    if (!sc)
        return NULL;
    sc->acc = netmodel_alloc(2 * (size_t)s->hidden);
    sc->dacc = netmodel_alloc(2 * (size_t)s->hidden);
    sc->wq = netmodel_alloc(s->nw);
    if (!sc->acc || !sc->dacc || !sc->wq)
        netmodel_scratch_free(&sc);
    return sc;
}

void netmodel_scratch_free(NetScratch **sc)
{
    if (*sc) {
        free((*sc)->acc);
        free((*sc)->dacc);
        free((*sc)->wq);
        free(*sc);
        *sc = NULL;
    }
}

/* Partial sums kept apart so that the compiler can vectorise the float reduction
 * (without -ffast-math it may not reorder one running sum). */
enum { LANES = 16 };

static inline float clamp01(float a)
{
    return a < 0 ? 0 : a > 1 ? 1 : a;
}

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
 */
static void round_weights(const NetShape *s, const float *restrict w, float *restrict wq)
{
    for (size_t i = 0; i < s->o_w2; i++)
        wq[i] = nearbyintf(w[i] * NNUE_QA) * (1.0f / NNUE_QA);
    for (size_t i = s->o_w2; i < s->o_b2; i++)
        wq[i] = nearbyintf(w[i] * NNUE_QB) * (1.0f / NNUE_QB);
    for (size_t i = s->o_b2; i < s->nw; i++)
        wq[i] = w[i];
}

/* The pass's hot loops are inlined into each of its clones (below), so that each is
 * compiled for the clone's instruction set. */
#define NETMODEL_HOT static inline __attribute__((always_inline))

/* Both accumulators into acc, and y. */
NETMODEL_HOT float forward(const NetShape *s, const float *restrict w, const uint16_t *fs,
                           const uint16_t *fo, int n, int b, float *restrict acc)
{
    const int H = s->hidden;
    float *restrict as = acc, *restrict ao = acc + H;
    memcpy(as, w + s->o_b1, (size_t)H * sizeof *as);
    memcpy(ao, w + s->o_b1, (size_t)H * sizeof *ao);
    for (int k = 0; k < n; k++) {
        const float *restrict rs = w + (size_t)fs[k] * (size_t)H;
        const float *restrict ro = w + (size_t)fo[k] * (size_t)H;
        for (int i = 0; i < H; i++) {
            as[i] += rs[i];
            ao[i] += ro[i];
        }
    }
    const float *restrict w2 = w + s->o_w2 + (size_t)b * 2 * (size_t)H;
    float part[LANES] = {0};
    for (int i = 0; i < 2 * H; i += LANES)
        for (int j = 0; j < LANES; j++) {
            float c = clamp01(acc[i + j]);
            part[j] += c * c * w2[i + j];
        }
    float y = w[s->o_b2 + (size_t)b];
    for (int j = 0; j < LANES; j++)
        y += part[j];
    return y;
}

/* Adds g times the gradient of y (accumulators in acc) to grad. */
NETMODEL_HOT void backward(const NetShape *s, const float *restrict w, const uint16_t *fs,
                           const uint16_t *fo, int n, int b, const float *restrict acc, float g,
                           float *restrict dacc, float *restrict grad)
{
    const int H = s->hidden;
    const float *restrict w2 = w + s->o_w2 + (size_t)b * 2 * (size_t)H;
    float *restrict gw2 = grad + s->o_w2 + (size_t)b * 2 * (size_t)H;
    grad[s->o_b2 + (size_t)b] += g;
    for (int i = 0; i < 2 * H; i++) {
        float a = acc[i], c = clamp01(a);
        gw2[i] += g * c * c;
        /* d screlu / d a = 2 clamp(a) inside (0, 1), 0 outside */
        dacc[i] = a < 1 ? 2 * g * c * w2[i] : 0;
    }
    float *restrict gb1 = grad + s->o_b1;
    const float *restrict ds = dacc, *restrict dother = dacc + H;
    for (int i = 0; i < H; i++)
        gb1[i] += ds[i] + dother[i];
    for (int k = 0; k < n; k++) {
        float *restrict rs = grad + (size_t)fs[k] * (size_t)H;
        for (int i = 0; i < H; i++)
            rs[i] += ds[i];
        float *restrict ro = grad + (size_t)fo[k] * (size_t)H;
        for (int i = 0; i < H; i++)
            ro[i] += dother[i];
    }
}

/* The pass is where training spends its time: on x86-64 it is compiled twice, for the
 * build's target and for AVX2 + FMA (x86-64-v3), and the loader picks the one the CPU
 * runs, so a default build trains at AVX2 speed where it can. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NETMODEL_CLONES __attribute__((target_clones("default", "arch=x86-64-v3")))
#else
#define NETMODEL_CLONES
#endif

NETMODEL_CLONES
NetLoss netmodel_pass(const NetShape *s, NetScratch *sc, const NetSet *d, const uint32_t *subset,
                      uint64_t nsub, const float *w, double k, double lambda, float *grad)
{
    NetLoss L = {0, 0};
    uint64_t count = subset ? nsub : d->n;
    double ks = k * s->scale;
    uint16_t fs[NETDATA_SLOTS], fo[NETDATA_SLOTS];
    round_weights(s, w, sc->wq);
    for (uint64_t j = 0; j < count; j++) {
        uint64_t i = subset ? subset[j] : j;
        int n = netdata_count(d, i), b = netmodel_bucket(s->buckets, n);
        features(d->piece[i], n, netdata_side(d, i), fs, fo);
        float y = forward(s, sc->wq, fs, fo, n, b, sc->acc);
        double p = 1.0 / (1.0 + exp(-ks * y));
        double t = netmodel_target(d->score[i], d->result[i], k, lambda);
        double r = (d->result[i] + 1) / 2.0;
        L.loss += (p - t) * (p - t);
        L.result_loss += (p - r) * (p - r);
        if (grad) {
            float g = (float)(2 * (p - t) * p * (1 - p) * ks);
            backward(s, sc->wq, fs, fo, n, b, sc->acc, g, sc->dacc, grad);
        }
    }
    return L;
}

double netmodel_eval_position(const NetShape *s, NetScratch *sc, const float *w,
                              const Position *pos)
{
    uint16_t pieces[NETDATA_SLOTS], fs[NETDATA_SLOTS], fo[NETDATA_SLOTS];
    int n = netdata_pieces(pos, pieces);
    features(pieces, n, pos->side, fs, fo);
    round_weights(s, w, sc->wq);
    return forward(s, sc->wq, fs, fo, n, netmodel_bucket(s->buckets, n), sc->acc) * s->scale;
}
