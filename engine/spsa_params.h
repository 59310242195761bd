/*
 * The search's tunable constants, declared once. Each entry is
 *     X(name, default, min, max, c_end, r_end)
 * and expands into the parameter storage (SearchParams), the defaults, the UCI and UCCI
 * options of bin/chuhe-engine, and the lines of `chuhe-engine spsa-params`, which are
 * fishtest's SPSA input ("name, int, value, min, max, c_end, r_end"): c_end is the size
 * of the last iteration's perturbation, r_end its learning rate (a_end / c_end^2).
 *
 * Every value is an integer. A margin is in centi-soldiers; a *_depth is the deepest
 * (or, for *_min_depth, the shallowest) remaining depth at which a rule applies. At the
 * defaults the search is the one `bench` signs.
 */
#ifndef CHUHE_SPSA_PARAMS_H
#define CHUHE_SPSA_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

/* clang-format off */
#define SPSA_PARAMS(X)                                                                       \
    /* late-move reductions: 0.01 lmr_base + ln(depth) ln(move) / (0.01 lmr_divisor) */        \
    X(lmr_base,           80,    0,   200,  10,  0.002)                                        \
    X(lmr_divisor,        230,   100, 500,  15,  0.002)                                        \
    X(lmr_min_depth,      3,     1,   8,    1,   0.002)                                        \
    X(lmr_history_div,    10000, 2000, 40000, 1000, 0.002) /* one ply less per this history */ \
    /* reverse futility: eval - (margin - improving bonus) * depth >= beta */                   \
    X(rfp_depth,          7,     1,   16,   1,   0.002)                                        \
    X(rfp_margin,         90,    20,  300,  8,   0.002)                                        \
    X(rfp_improving,      30,    0,   150,  5,   0.002)                                        \
    /* null move: R = base + depth / depth_div + min((eval - beta) / eval_div, eval_max) */    \
    X(nmp_min_depth,      3,     1,   8,    1,   0.002)                                        \
    X(nmp_static_margin,  20,    0,   100,  3,   0.002) /* static eval >= beta - this*depth */ \
    X(nmp_base,           3,     1,   8,    1,   0.002)                                        \
    X(nmp_depth_div,      4,     1,   16,   1,   0.002)                                        \
    X(nmp_eval_div,       200,   50,  800,  20,  0.002)                                        \
    X(nmp_eval_max,       3,     0,   8,    1,   0.002)                                        \
    /* no hash move at a PV or cut node this deep: one ply less */                            \
    X(iir_min_depth,      4,     2,   12,   1,   0.002)                                        \
    /* late-move pruning: quiet moves past (base + depth^2) / (2 - improving) */               \
    X(lmp_base,           3,     0,   20,   1,   0.002)                                        \
    X(lmp_depth,          8,     1,   16,   1,   0.002)                                        \
    /* futility: static eval + base + margin * depth <= alpha, history below the limit */    \
    X(fut_depth,          6,     1,   16,   1,   0.002)                                        \
    X(fut_base,           120,   0,   400,  10,  0.002)                                        \
    X(fut_margin,         100,   20,  300,  8,   0.002)                                        \
    X(fut_history,        4000,  0,   16000, 400, 0.002)                                       \
    /* static exchange pruning: quiet moves below -margin * depth^2, captures -margin*depth */ \
    X(see_quiet_depth,    8,     1,   16,   1,   0.002)                                        \
    X(see_quiet_margin,   25,    0,   100,  3,   0.002)                                        \
    X(see_capture_depth,  6,     1,   16,   1,   0.002)                                        \
    X(see_capture_margin, 150,   0,   400,  10,  0.002)                                        \
    /* quiescence: a capture that cannot lift stand pat + its victim + this to alpha */       \
    X(qs_futility_margin, 150,   0,   500,  10,  0.002)                                        \
    /* history bonus of a cut-off: min(mul * depth^2 + add, max) */                           \
    X(history_bonus_mul,  16,    1,   64,   2,   0.002)                                        \
    X(history_bonus_add,  32,    0,   256,  8,   0.002)                                        \
    X(history_bonus_max,  4000,  500, 16000, 300, 0.002)                                       \
    /* aspiration windows: +-delta around the last score from this depth on */                \
    X(asp_delta,          30,    5,   200,  3,   0.002)                                        \
    X(asp_min_depth,      5,     1,   12,   1,   0.002)                                        \
    /* singular extension: the hash move, at least this deep, one ply more when every     */ \
    /* other move fails below its value - margin * depth at half the depth               */ \
    X(se_min_depth,       8,     4,   16,   1,   0.002)                                        \
    X(se_margin,          2,     0,   20,   1,   0.002)                                        \
    /* time: no new iteration past tm_stop_pct % of the optimum times the factors of     */ \
    /* best-move changes (+change_pct % each, halved every iteration), stability (130 %   */ \
    /* less stable_pct % per iteration the best move stayed, up to 6), a falling score    */ \
    /* (+fall_permille per mille per centi-soldier of drop, 70 % .. 160 %) and effort      */ \
    /* (effort_cut % when the best move took at least effort_pct % of the nodes)          */ \
    X(tm_stop_pct,        60,    20,  150,  5,   0.002)                                        \
    X(tm_change_pct,      100,   0,   300,  15,  0.002)                                        \
    X(tm_stable_pct,      8,     0,   20,   1,   0.002)                                        \
    X(tm_fall_permille,   20,    0,   100,  3,   0.002)                                        \
    X(tm_effort_pct,      90,    50,  101,  3,   0.002)                                        \
    X(tm_effort_cut,      70,    20,  100,  5,   0.002)
/* clang-format on */

typedef struct {
#define X(name, def, lo, hi, c_end, r_end) int name;
    SPSA_PARAMS(X)
#undef X
} SearchParams;

enum {
#define X(name, def, lo, hi, c_end, r_end) SPSA_PARAM_##name,
    SPSA_PARAMS(X)
#undef X
        SPSA_PARAM_NB
};

typedef struct {
    const char *name;
    int value; /* the default */
    int min, max;
    double c_end, r_end;
    size_t offset; /* of the int inside SearchParams */
} SpsaParamInfo;

extern const SpsaParamInfo SPSA_PARAM_INFO[SPSA_PARAM_NB];

/* The defaults: the search that `bench` signs. */
extern const SearchParams SPSA_PARAMS_DEFAULT;

/* The index of the parameter named name (case does not matter, as in UCI option
 * names); -1 for none. */
int spsa_params_find(const char *name);

/* Parameter i of p. */
int spsa_params_get(const SearchParams *p, int i);

/* Sets parameter i of p; false, p unchanged, when v is outside its min..max. */
bool spsa_params_set(SearchParams *p, int i, long long v);

/* Parameter i with p's value as one line of fishtest's SPSA input, without the newline:
 * "lmr_base, int, 80, 0, 200, 10, 0.002". */
void spsa_params_line(const SearchParams *p, int i, char *buf, size_t size);

#endif
