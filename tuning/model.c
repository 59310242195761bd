#include "model.h"

#include <stdlib.h>

#include "evaluate.h"

/* A (midgame, endgame) pair in one SSE2 register: each coefficient costs one load and
 * one multiply-add forward, one load-add-store backward. */
typedef double v2d __attribute__((vector_size(16)));

int model_mirror(int i)
{
    for (int t = 0; t < EVAL_TERM_NB; t++) {
        int first = (int)(EVAL_TERM_INFO[t].offset / sizeof(Score));
        if (i < first || i >= first + EVAL_TERM_INFO[t].count)
            continue;
        if (EVAL_TERM_INFO[t].kind != IDX_SQUARE)
            return i;
        Square sq = i - first;
        return first + sq_make(FILE_NB - 1 - sq_file(sq), sq_rank(sq));
    }
    return i;
}

void model_from_params(const EvalParams *p, double *w)
{
    const Score *s = (const Score *)p;
    for (int i = 0; i < EVAL_PARAM_NB; i++) {
        w[2 * i] = score_mg(s[i]);
        w[2 * i + 1] = score_eg(s[i]);
    }
}

static int round_weight(double x)
{
    double r = x < 0 ? -floor(-x + 0.5) : floor(x + 0.5);
    return r > 30000 ? 30000 : r < -30000 ? -30000 : (int)r;
}

void model_to_params(const double *w, EvalParams *p)
{
    Score *s = (Score *)p;
    for (int i = 0; i < EVAL_PARAM_NB; i++)
        s[i] = S(round_weight(w[2 * i]), round_weight(w[2 * i + 1]));
}

double model_eval(const Dataset *d, uint64_t i, const double *w)
{
    double mg = 0, eg = 0, rho = d->phase[i] / (double)PHASE_MAX;
    for (uint64_t k = d->start[i]; k < d->start[i + 1]; k++) {
        mg += d->coef[k] * w[2 * d->idx[k]];
        eg += d->coef[k] * w[2 * d->idx[k] + 1];
    }
    return mg * rho + eg * (1 - rho);
}

/* The loss of one position; with G, its gradient added in. C[c + 128] holds {c, c}: a
 * load instead of an int-to-double conversion, whose partial register write would chain
 * every coefficient to the previous one. */
static inline double pass_one(const Dataset *d, uint64_t i, const v2d *W, double K, v2d *G,
                              const double *rho_of, const v2d *C)
{
    const uint16_t *idx = d->idx;
    const int8_t *coef = d->coef;
    uint64_t s = d->start[i], e = d->start[i + 1];
    /* four sums: one chain of additions would wait on each add's latency */
    v2d a0 = {0, 0}, a1 = {0, 0}, a2 = {0, 0}, a3 = {0, 0};
    uint64_t k = s;
    for (; k + 4 <= e; k += 4) {
        a0 += C[coef[k] + 128] * W[idx[k]];
        a1 += C[coef[k + 1] + 128] * W[idx[k + 1]];
        a2 += C[coef[k + 2] + 128] * W[idx[k + 2]];
        a3 += C[coef[k + 3] + 128] * W[idx[k + 3]];
    }
    for (; k < e; k++)
        a0 += C[coef[k] + 128] * W[idx[k]];
    v2d acc = (a0 + a1) + (a2 + a3);
    double rho = rho_of[d->phase[i]];
    double p = model_sigmoid(K * (acc[0] * rho + acc[1] * (1 - rho)));
    double diff = p - d->label[i];
    if (G) {
        double g = 2 * diff * p * (1 - p) * K;
        v2d gv = {g * rho, g * (1 - rho)};
        for (k = s; k < e; k++)
            G[idx[k]] += C[coef[k] + 128] * gv;
    }
    return diff * diff;
}

double model_pass(const Dataset *d, const uint32_t *subset, uint64_t nsub, const double *w,
                  double K, double *grad)
{
    double rho_of[PHASE_MAX + 1];
    for (int f = 0; f <= PHASE_MAX; f++)
        rho_of[f] = f / (double)PHASE_MAX;
    v2d C[256];
    for (int c = 0; c < 256; c++)
        C[c] = (v2d){c - 128.0, c - 128.0};
    const v2d *W = (const v2d *)w;
    v2d *G = (v2d *)grad;
    double loss = 0;
    if (subset) {
        for (uint64_t j = 0; j < nsub; j++)
            loss += pass_one(d, subset[j], W, K, G, rho_of, C);
    } else if (G) {
        for (uint64_t i = 0; i < d->n; i++)
            loss += pass_one(d, i, W, K, G, rho_of, C);
    } else {
        for (uint64_t i = 0; i < d->n; i++)
            loss += pass_one(d, i, W, K, NULL, rho_of, C);
    }
    return loss;
}

/*
 * Summed squared error of sigmoid(K e) against the results, over every rank. Each term
 * is added in fixed point (units of 2^-24, exact integer sums for up to 2^39 positions),
 * so the sum, and the K it leads to, do not depend on how positions are spread over
 * ranks: the minimum of a flat function moves with the last bits of its values.
 */
static double k_error(Comm *comm, const float *ev, const float *res, uint64_t n, double K, bool *ok)
{
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        double d = model_sigmoid(K * ev[i]) - res[i];
        sum += (uint64_t)llround(d * d * 16777216.0);
    }
    if (!comm_sum_u64(comm, &sum, 1))
        *ok = false;
    return (double)sum;
}

double model_fit_k(Comm *comm, const Dataset *const *sets, int nsets, const double *w)
{
    uint64_t n = 0;
    for (int s = 0; s < nsets; s++)
        n += sets[s]->n;
    float *ev = malloc((n ? n : 1) * sizeof *ev), *res = malloc((n ? n : 1) * sizeof *res);
    bool ok = comm_all_ok(comm, ev && res);
    double K = 0;
    if (ok) {
        uint64_t j = 0;
        for (int s = 0; s < nsets; s++)
            for (uint64_t i = 0; i < sets[s]->n; i++, j++) {
                ev[j] = (float)model_eval(sets[s], i, w);
                res[j] = (float)((sets[s]->result[i] + 1) / 2.0);
            }
        K = model_fit_k_values(comm, ev, res, n);
    }
    free(ev);
    free(res);
    return K;
}

double model_fit_k_values(Comm *comm, const float *ev, const float *res, uint64_t n)
{
    bool ok = true;
    /* ln K from 1e-5 to 1: a centi-soldier scale where K = 1/170 is typical */
    enum { SCAN = 56 };
    const double lo = log(1e-5), hi = 0.0, step = (hi - lo) / SCAN;
    int best = 0;
    double best_err = 0;
    for (int k = 0; k <= SCAN; k++) {
        double err = k_error(comm, ev, res, n, exp(lo + k * step), &ok);
        if (k == 0 || err < best_err)
            best = k, best_err = err;
    }
    double a = lo + (best > 0 ? best - 1 : 0) * step;
    double b = lo + (best < SCAN ? best + 1 : SCAN) * step;
    const double invphi = (sqrt(5.0) - 1) / 2;
    double c = b - invphi * (b - a), d = a + invphi * (b - a);
    double fc = k_error(comm, ev, res, n, exp(c), &ok), fd = k_error(comm, ev, res, n, exp(d), &ok);
    while (ok && b - a > 1e-7) {
        if (fc < fd) {
            b = d, d = c, fd = fc;
            c = b - invphi * (b - a);
            fc = k_error(comm, ev, res, n, exp(c), &ok);
        } else {
            a = c, c = d, fc = fd;
            d = a + invphi * (b - a);
            fd = k_error(comm, ev, res, n, exp(d), &ok);
        }
    }
    return ok ? exp((a + b) / 2) : 0;
}

void model_set_labels(Dataset *d, double K, double lambda)
{
    for (uint64_t i = 0; i < d->n; i++)
        d->label[i] = (float)(lambda * model_sigmoid(K * d->score[i]) +
                              (1 - lambda) * (d->result[i] + 1) / 2.0);
}
