/*
 * Match statistics: see stats.h for the formulas. The SPRT follows fishtest's LLRcalc
 * (the generalized SPRT of Michel Van den Bergh's notes), which fastchess reimplements.
 */
#include "stats.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"
#include "error.h"
#include "numparse.h"

/* 95 % two-sided normal quantile, and normalized Elo per unit of t-value. */
static const double Z95 = 1.959963984540054;
#define NELO_K (800.0 / M_LN10)

/* Zero counts are replaced by this before an LLR, as fishtest does. */
static const double ZERO_COUNT = 1e-3;

enum { MAX_BINS = STATS_PENTA_NB };

/* ------------------------------------------------------------------------ counting */

void stats_counts_init(StatsCounts *c)
{
    memset(c, 0, sizeof *c);
}

static bool score_ok(StatsScore s)
{
    return (unsigned)s < STATS_SCORE_NB;
}

StatsScore stats_game_score(int red_result, bool a_red)
{
    StatsScore red = red_result > 0 ? STATS_WIN : red_result < 0 ? STATS_LOSS : STATS_DRAW;
    return a_red ? red : (StatsScore)(STATS_WIN - red);
}

bool stats_add_game(StatsCounts *c, StatsScore s)
{
    if (!score_ok(s))
        return false;
    c->tri[s]++;
    return true;
}

bool stats_add_pair(StatsCounts *c, StatsScore g0, StatsScore g1)
{
    if (!score_ok(g0) || !score_ok(g1))
        return false;
    c->penta[g0 + g1]++;
    if (g0 + g1 == 2) {
        if (g0 == STATS_DRAW)
            c->dd++;
        else
            c->wl++;
    }
    c->tri[g0]++;
    c->tri[g1]++;
    return true;
}

uint64_t stats_pairs(const StatsCounts *c)
{
    uint64_t n = 0;
    for (int i = 0; i < STATS_PENTA_NB; i++)
        n += c->penta[i];
    return n;
}

static uint64_t tri_total(const StatsCounts *c)
{
    return c->tri[STATS_LOSS] + c->tri[STATS_DRAW] + c->tri[STATS_WIN];
}

uint64_t stats_games(const StatsCounts *c)
{
    uint64_t paired = 2 * stats_pairs(c), all = tri_total(c);
    return all > paired ? all : paired;
}

bool stats_wdl_known(const StatsCounts *c)
{
    return tri_total(c) >= 2 * stats_pairs(c);
}

StatsKind stats_default_kind(const StatsCounts *c)
{
    return stats_pairs(c) > 0 ? STATS_PENTANOMIAL : STATS_TRINOMIAL;
}

/* ----------------------------------------------------------------------- estimates */

double stats_logistic_elo(double score)
{
    if (score <= 0)
        return -INFINITY;
    if (score >= 1)
        return INFINITY;
    return -400.0 * log10(1.0 / score - 1.0);
}

/* The bins of one distribution: counts (as doubles) and scores, lowest first. */
static int kind_bins(const StatsCounts *c, StatsKind kind, double *n, double *a)
{
    int nb = kind == STATS_PENTANOMIAL ? STATS_PENTA_NB : STATS_SCORE_NB;
    for (int i = 0; i < nb; i++) {
        n[i] = (double)(kind == STATS_PENTANOMIAL ? c->penta[i] : c->tri[i]);
        a[i] = (double)i / (nb - 1);
    }
    return nb;
}

/* Mean and variance of the distribution q over scores a. */
static void moments(const double *q, const double *a, int nb, double *mu, double *var)
{
    double m = 0, v = 0;
    for (int i = 0; i < nb; i++)
        m += q[i] * a[i];
    for (int i = 0; i < nb; i++)
        v += q[i] * (a[i] - m) * (a[i] - m);
    *mu = m;
    *var = v;
}

/* Standard normal CDF; erfc keeps the tails accurate. */
static double normal_cdf(double x)
{
    return 0.5 * erfc(-x / M_SQRT2);
}

void stats_estimate(const StatsCounts *c, StatsKind kind, StatsEstimate *out)
{
    double n[MAX_BINS], a[MAX_BINS], p[MAX_BINS];
    int nb = kind_bins(c, kind, n, a);
    double total = 0;
    for (int i = 0; i < nb; i++)
        total += n[i];

    memset(out, 0, sizeof *out);
    out->kind = kind;
    out->n = total;
    out->games = kind == STATS_PENTANOMIAL ? 2 * total : total;
    if (total <= 0) {
        out->mu = 0.5;
        out->elo_error = INFINITY;
        out->nelo_error = INFINITY;
        out->los = 0.5;
        return;
    }

    for (int i = 0; i < nb; i++)
        p[i] = n[i] / total;
    moments(p, a, nb, &out->mu, &out->var);
    out->se = sqrt(out->var / total);

    double mu = out->mu, se = out->se;
    out->elo = stats_logistic_elo(mu);
    double hi = stats_logistic_elo(mu + Z95 * se), lo = stats_logistic_elo(mu - Z95 * se);
    out->elo_error = isinf(hi) || isinf(lo) ? INFINITY : (hi - lo) / 2;

    /* With no variance the score is certain: LOS and nElo follow the sign of mu - 1/2. */
    double excess = mu - 0.5;
    double sigma = kind == STATS_PENTANOMIAL ? sqrt(2 * out->var) : sqrt(out->var);
    if (se > 0) {
        out->los = normal_cdf(excess / se);
        out->nelo = NELO_K * excess / sigma;
    } else {
        out->los = excess > 0 ? 1 : excess < 0 ? 0 : 0.5;
        out->nelo = excess > 0 ? INFINITY : excess < 0 ? -INFINITY : 0;
    }
    out->nelo_error = Z95 * NELO_K / sqrt(out->games);
    out->draw_ratio = (kind == STATS_PENTANOMIAL ? n[2] : n[STATS_DRAW]) / total;
}

/* --------------------------------------------------------------------------- SPRT */

void sprt_params_default(SprtParams *p)
{
    p->elo0 = 0;
    p->elo1 = 2;
    p->alpha = 0.05;
    p->beta = 0.05;
    p->model = SPRT_NORMALIZED;
}

bool sprt_check(const SprtParams *p, StatsError *err)
{
    if ((unsigned)p->model >= SPRT_MODEL_NB)
        return ERROR_SET(err, "unknown SPRT model %d", (int)p->model);
    if (!(p->alpha > 0 && p->alpha < 1) || !(p->beta > 0 && p->beta < 1))
        return ERROR_SET(err,
                         "alpha and beta must lie strictly between 0 and 1 (alpha=%g, beta=%g)",
                         p->alpha, p->beta);
    if (!(p->alpha + p->beta < 1))
        return ERROR_SET(err, "alpha + beta must be below 1 (alpha=%g, beta=%g)", p->alpha,
                         p->beta);
    if (!(fabs(p->elo0) <= SPRT_ELO_LIMIT) || !(fabs(p->elo1) <= SPRT_ELO_LIMIT))
        return ERROR_SET(err, "elo0 and elo1 must lie within +-%g (elo0=%g, elo1=%g)",
                         SPRT_ELO_LIMIT, p->elo0, p->elo1);
    if (!(p->elo0 < p->elo1))
        return ERROR_SET(err, "elo0 must be below elo1 (elo0=%g, elo1=%g)", p->elo0, p->elo1);
    return true;
}

double sprt_lower_bound(const SprtParams *p)
{
    return log(p->beta / (1 - p->alpha));
}

double sprt_upper_bound(const SprtParams *p)
{
    return log((1 - p->beta) / p->alpha);
}

/* sum p_i x_i / (1 + theta x_i), strictly decreasing in theta between the poles
 * -1/max x and -1/min x. Past a pole (rounding at the very edge) it answers with the
 * sign the function has on that side. */
static double secular_sum(const double *p, const double *x, int nb, double theta)
{
    double sum = 0;
    for (int i = 0; i < nb; i++) {
        double d = 1 + theta * x[i];
        if (d <= 0)
            return x[i] > 0 ? INFINITY : -INFINITY;
        sum += p[i] * x[i] / d;
    }
    return sum;
}

/*
 * The root theta of sum p_i x_i / (1 + theta x_i) = 0 on (-1/max x, -1/min x), which
 * exists and is unique when min x < 0 < max x and every p_i > 0 (the sum runs from +inf
 * to -inf). Bisection: the function has poles at both ends, where Newton's method
 * overshoots out of the domain; 62 halvings reach the bracket's resolution.
 */
static bool secular_root(const double *p, const double *x, int nb, double *theta)
{
    double v = x[0], w = x[0];
    for (int i = 1; i < nb; i++) {
        v = fmin(v, x[i]);
        w = fmax(w, x[i]);
    }
    if (!(v < 0 && w > 0))
        return false;
    double lo = -1 / w, hi = -1 / v;
    double tol = (hi - lo) * 0x1p-62;
    while (hi - lo > tol) {
        double mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi)
            break;
        double f = secular_sum(p, x, nb, mid);
        if (f > 0)
            lo = mid;
        else if (f < 0)
            hi = mid;
        else
            lo = hi = mid;
    }
    *theta = lo + (hi - lo) / 2;
    return true;
}

/* The MLE under "expected score = s": q_i = p_i / (1 + theta (a_i - s)). */
static bool mle_expected(const double *p, const double *a, int nb, double s, double *q)
{
    double x[MAX_BINS] = {0}, theta;
    for (int i = 0; i < nb; i++)
        x[i] = a[i] - s;
    if (!secular_root(p, x, nb, &theta))
        return false;
    for (int i = 0; i < nb; i++)
        q[i] = p[i] / (1 + theta * x[i]);
    return true;
}

/*
 * The MLE under "t-value (mu - r) / sigma = t", r = 1/2: fishtest's fixed-point scheme,
 * each round linearising the constraint around the previous estimate, from the uniform
 * distribution, up to 10 rounds until no probability moves by 1e-9.
 */
static bool mle_tvalue(const double *p, const double *a, int nb, double t, double *q)
{
    const double r = 0.5;
    for (int i = 0; i < nb; i++)
        q[i] = 1.0 / nb;
    for (int round = 0; round < 10; round++) {
        double mu, var, phi[MAX_BINS], theta;
        moments(q, a, nb, &mu, &var);
        double sigma = sqrt(var);
        if (!(sigma > 0))
            return false;
        for (int i = 0; i < nb; i++) {
            double z = (a[i] - mu) / sigma;
            phi[i] = a[i] - r - t * sigma * (1 + z * z) / 2;
        }
        if (!secular_root(p, phi, nb, &theta))
            return false;
        double moved = 0;
        for (int i = 0; i < nb; i++) {
            double next = p[i] / (1 + theta * phi[i]);
            moved = fmax(moved, fabs(next - q[i]));
            q[i] = next;
        }
        if (moved < 1e-9)
            break;
    }
    return true;
}

double sprt_llr_bins(const SprtParams *prm, const uint64_t *counts, int nbins)
{
    if (nbins != STATS_PENTA_NB && nbins != STATS_SCORE_NB)
        return NAN;
    double n[MAX_BINS], a[MAX_BINS], p[MAX_BINS], q0[MAX_BINS], q1[MAX_BINS];
    double total = 0;
    bool any = false;
    for (int i = 0; i < nbins; i++) {
        any |= counts[i] > 0;
        n[i] = counts[i] > 0 ? (double)counts[i] : ZERO_COUNT;
        a[i] = (double)i / (nbins - 1);
        total += n[i];
    }
    /* The spec's substitution would give a tiny nonzero LLR from no data at all. */
    if (!any)
        return 0;
    for (int i = 0; i < nbins; i++)
        p[i] = n[i] / total;

    bool ok;
    if (prm->model == SPRT_LOGISTIC) {
        double s0 = 1 / (1 + pow(10, -prm->elo0 / 400));
        double s1 = 1 / (1 + pow(10, -prm->elo1 / 400));
        ok = mle_expected(p, a, nbins, s0, q0) && mle_expected(p, a, nbins, s1, q1);
    } else if (prm->model == SPRT_NORMALIZED) {
        /* A pair's t-value is sqrt(2) times a game's. */
        double scale = nbins == STATS_PENTA_NB ? M_SQRT2 / NELO_K : 1 / NELO_K;
        ok = mle_tvalue(p, a, nbins, prm->elo0 * scale, q0) &&
             mle_tvalue(p, a, nbins, prm->elo1 * scale, q1);
    } else {
        ok = false;
    }
    if (!ok)
        return NAN;

    double sum = 0;
    for (int i = 0; i < nbins; i++)
        sum += p[i] * log(q1[i] / q0[i]);
    return total * sum;
}

double sprt_llr(const SprtParams *p, const StatsCounts *c, StatsKind kind)
{
    return kind == STATS_PENTANOMIAL ? sprt_llr_bins(p, c->penta, STATS_PENTA_NB)
                                     : sprt_llr_bins(p, c->tri, STATS_SCORE_NB);
}

SprtState sprt_state(const SprtParams *p, double llr)
{
    if (llr >= sprt_upper_bound(p))
        return SPRT_ACCEPT_H1;
    if (llr <= sprt_lower_bound(p))
        return SPRT_ACCEPT_H0;
    return SPRT_CONTINUE;
}

const char *sprt_model_name(SprtModel m)
{
    switch (m) {
    case SPRT_NORMALIZED:
        return "normalized";
    case SPRT_LOGISTIC:
        return "logistic";
    default:
        return "unknown";
    }
}

const char *sprt_state_name(SprtState s)
{
    switch (s) {
    case SPRT_CONTINUE:
        return "continue";
    case SPRT_ACCEPT_H0:
        return "H0 accepted";
    case SPRT_ACCEPT_H1:
        return "H1 accepted";
    default:
        return "unknown";
    }
}

/* --------------------------------------------------------------------- report text */

/* An snprintf that appends at *len and keeps counting past the end of buf. */
typedef struct {
    char *buf;
    size_t cap, len;
} Text;

static void text_add(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_add(Text *t, const char *fmt, ...)
{
    char *at = t->len < t->cap ? t->buf + t->len : NULL;
    size_t room = t->len < t->cap ? t->cap - t->len : 0;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(at, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
}

/* "%.2f", with the infinities spelled "inf" and "-inf" whatever the C library does. */
const char *stats_num_text(char out[32], double x)
{
    if (isinf(x))
        return x > 0 ? "inf" : "-inf";
    if (isnan(x))
        return "nan";
    snprintf(out, 32, "%.2f", x);
    /* -0.001 and -0.0 print as 0.00: a sign on zero is noise. */
    if (strcmp(out, "-0.00") == 0)
        memmove(out, out + 1, strlen(out));
    return out;
}

/* A probability in percent, two decimals; rounding never turns "not certain" into
 * "certain": 0 < x < 1 prints within [0.01, 99.99]. */
const char *stats_percent_text(char out[32], double x)
{
    double pc = 100 * x;
    if (x > 0 && x < 1) {
        if (pc >= 99.995)
            pc = 99.99;
        else if (pc < 0.005)
            pc = 0.01;
    }
    return stats_num_text(out, pc);
}

static void add_sprt(Text *t, const SprtParams *p, double llr)
{
    char b[5][32];
    text_add(t, "LLR %s (%s, %s) [%s, %s] %s", stats_num_text(b[0], llr),
             stats_num_text(b[1], sprt_lower_bound(p)), stats_num_text(b[2], sprt_upper_bound(p)),
             stats_num_text(b[3], p->elo0), stats_num_text(b[4], p->elo1),
             sprt_model_name(p->model));
}

size_t sprt_format(char *buf, size_t cap, const SprtParams *p, double llr)
{
    Text t = {buf, cap, 0};
    if (cap > 0)
        buf[0] = '\0';
    add_sprt(&t, p, llr);
    return t.len;
}

/* "Penta [34, 54, 31+32, 64, 75]": bin 2 split when the split is known. */
static void add_penta(Text *t, const StatsCounts *c)
{
    const uint64_t *n = c->penta;
    text_add(t, "Penta [%" PRIu64 ", %" PRIu64 ", ", n[0], n[1]);
    if (n[2] > 0 && c->wl + c->dd == n[2])
        text_add(t, "%" PRIu64 "+%" PRIu64, c->wl, c->dd);
    else
        text_add(t, "%" PRIu64, n[2]);
    text_add(t, ", %" PRIu64 ", %" PRIu64 "]", n[3], n[4]);
}

/* "Games 580: 245-182-153" (W-D-L), the W-D-L only when known and games were played. */
static void add_games(Text *t, const StatsCounts *c)
{
    uint64_t games = stats_games(c);
    text_add(t, "Games %" PRIu64, games);
    if (games > 0 && stats_wdl_known(c))
        text_add(t, ": %" PRIu64 "-%" PRIu64 "-%" PRIu64, c->tri[STATS_WIN], c->tri[STATS_DRAW],
                 c->tri[STATS_LOSS]);
}

size_t stats_format(char *buf, size_t cap, const StatsCounts *c, StatsKind kind,
                    const SprtParams *sprt, StatsReportForm form)
{
    const bool full = form == STATS_REPORT_FULL;
    const char *sep = full ? "\n" : ", ";
    Text t = {buf, cap, 0};
    char b[6][32];
    StatsEstimate e;

    if (cap > 0)
        buf[0] = '\0';
    stats_estimate(c, kind, &e);
    if (e.n > 0) {
        text_add(&t, "Elo %s +/- %s, nElo %s +/- %s%sLOS %s %%, DrawRatio %s %%%s",
                 stats_num_text(b[0], e.elo), stats_num_text(b[1], e.elo_error),
                 stats_num_text(b[2], e.nelo), stats_num_text(b[3], e.nelo_error), sep,
                 stats_percent_text(b[4], e.los), stats_percent_text(b[5], e.draw_ratio), sep);
    } else {
        text_add(&t, "no results%s", sep);
    }
    if (kind == STATS_PENTANOMIAL) {
        add_penta(&t, c);
        text_add(&t, "%s", sep);
    }
    add_games(&t, c);
    if (full && stats_wdl_known(c) && stats_games(c) > 0) {
        double points = (double)c->tri[STATS_WIN] + 0.5 * (double)c->tri[STATS_DRAW];
        text_add(&t, ", Points %.1f (%s %%)", points,
                 stats_num_text(b[0], 100 * points / (double)stats_games(c)));
    }
    if (sprt) {
        double llr = sprt_llr(sprt, c, kind);
        text_add(&t, "%s", sep);
        add_sprt(&t, sprt, llr);
        if (full)
            text_add(&t, ": %s", sprt_state_name(sprt_state(sprt, llr)));
    }
    if (full)
        text_add(&t, "\n");
    return t.len;
}

/* -------------------------------------------------------------------- SPRT text */

/* A finite number filling all of text, in decimal (numparse's rule). */
static bool parse_real(const char *text, double *v)
{
    return numparse_double("-sprt", text, -DBL_MAX, DBL_MAX, v, NULL, 0);
}

/* The -sprt keys; the numeric ones in SprtParams field order. */
enum { KEY_ELO0, KEY_ELO1, KEY_ALPHA, KEY_BETA, KEY_MODEL, KEY_NB };
static const char *const SPRT_KEYS[KEY_NB] = {"elo0", "elo1", "alpha", "beta", "model"};

/* The key of "key=value" (KEY_NB when unknown, -1 without "=") and its value. */
static int sprt_key(const char *arg, const char **val)
{
    char key[64];
    if (!cliopt_split_kv(arg, key, sizeof key, val))
        return -1;
    for (int k = 0; k < KEY_NB; k++)
        if (!strcmp(key, SPRT_KEYS[k]))
            return k;
    return KEY_NB;
}

bool sprt_parse_option(const char *arg, SprtParams *p, StatsError *err)
{
    const char *val;
    int k = sprt_key(arg, &val);
    if (k < 0)
        return ERROR_SET(err,
                         "-sprt: expected key=value with key elo0, elo1, alpha, beta or model "
                         "(e.g. elo0=0 elo1=5), got '%s'",
                         arg);
    if (k == KEY_NB)
        return ERROR_SET(err, "-sprt: unknown key '%.*s' (elo0, elo1, alpha, beta, model)",
                         (int)(val - 1 - arg), arg);
    if (k == KEY_MODEL) {
        for (int m = 0; m < SPRT_MODEL_NB; m++) {
            if (strcmp(val, sprt_model_name((SprtModel)m)) == 0) {
                p->model = (SprtModel)m;
                return true;
            }
        }
        return ERROR_SET(err, "-sprt: model must be normalized or logistic, got '%s'", val);
    }
    double x;
    if (!parse_real(val, &x))
        return ERROR_SET(err, "-sprt: %s must be a number, got '%s'", SPRT_KEYS[k], val);
    if ((k == KEY_ALPHA || k == KEY_BETA) && !(x > 0 && x < 1))
        return ERROR_SET(err, "-sprt: %s must lie strictly between 0 and 1, got %s", SPRT_KEYS[k],
                         val);
    if ((k == KEY_ELO0 || k == KEY_ELO1) && !(fabs(x) <= SPRT_ELO_LIMIT))
        return ERROR_SET(err, "-sprt: %s must lie within +-%g, got %s", SPRT_KEYS[k],
                         SPRT_ELO_LIMIT, val);
    double *field[] = {&p->elo0, &p->elo1, &p->alpha, &p->beta};
    *field[k] = x;
    return true;
}

bool sprt_parse_words(int n, char *const words[], SprtParams *p, StatsError *err)
{
    bool seen[KEY_NB] = {false};
    sprt_params_default(p);
    for (int j = 0; j < n; j++) {
        const char *val;
        int k = sprt_key(words[j], &val);
        if (k >= 0 && k < KEY_NB && seen[k])
            return ERROR_SET(err, "-sprt: %s given twice", SPRT_KEYS[k]);
        if (!sprt_parse_option(words[j], p, err))
            return false;
        seen[k] = true;
    }
    if (!seen[KEY_ELO0] || !seen[KEY_ELO1])
        return ERROR_SET(err,
                         "-sprt: needs elo0=X and elo1=Y (then optionally alpha=, beta=, model=)");
    return sprt_check(p, err);
}

bool sprt_parse_text(const char *text, SprtParams *p, StatsError *err)
{
    char copy[256];
    char *words[KEY_NB + 1];
    int n = 0;
    if (snprintf(copy, sizeof copy, "%s", text) >= (int)sizeof copy)
        return ERROR_SET(err, "-sprt: too long (at most %zu characters)", sizeof copy - 1);
    for (char *save = NULL, *w = strtok_r(copy, " ,", &save); w; w = strtok_r(NULL, " ,", &save)) {
        if (n == KEY_NB)
            return ERROR_SET(err, "-sprt: at most %d keys (elo0, elo1, alpha, beta, model)",
                             KEY_NB);
        words[n++] = w;
    }
    return sprt_parse_words(n, words, p, err);
}
