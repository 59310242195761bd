/*
 * Match statistics, as fishtest and fastchess compute them, so that chuhe's numbers can
 * be compared with theirs: counts of finished games and game pairs, Elo with its 95 %
 * error, normalized Elo, LOS, the draw ratio, the generalized SPRT (logistic and
 * normalized models), the report text shared by the live progress line and the final
 * report, and the SPRT text every program reads. Pure computation: no I/O except into
 * caller buffers. (The `stats` subcommand's arguments: coordinator/coord_statscmd.h.)
 *
 * Everything is counted from engine A's view. Games come in pairs (one opening, colours
 * swapped); a pair is counted once both of its games have finished:
 *
 *   pentanomial  penta[i] = pairs in which A scored i half-points, i = 0..4:
 *                [LL, LD, WL + DD, WD, WW]; bin scores a_i = i / 4, N = pairs
 *   trinomial    tri[i] = games in which A scored i half-points: [L, D, W];
 *                bin scores 0, 1/2, 1, N = games
 *
 * Formulas, with p_i = n_i / N:
 *   mu = sum p_i a_i, var = sum p_i (a_i - mu)^2, SE = sqrt(var / N)
 *   Elo = E(mu), E(s) = -400 log10(1/s - 1); error = [E(mu + z SE) - E(mu - z SE)] / 2,
 *   z = 1.959963984540054; LOS = Phi((mu - 1/2) / SE)
 *   nElo = K (mu - 1/2) / (sqrt(2) sigma) (penta), K (mu - 1/2) / sigma (trinomial),
 *   K = 800 / ln 10, sigma = sqrt(var); its error, as fastchess prints it: z K / sqrt(games)
 *   SPRT bounds A = ln(beta / (1 - alpha)), B = ln((1 - beta) / alpha); LLR by the
 *   generalized SPRT with the maximum-likelihood distribution under each hypothesis.
 */
#ifndef CHUHE_STATS_H
#define CHUHE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The score of one game from A's view, in half-points. */
typedef enum {
    STATS_LOSS,
    STATS_DRAW,
    STATS_WIN,
    STATS_SCORE_NB,
} StatsScore;

enum { STATS_PENTA_NB = 5 };

/*
 * The counts. Invariants: wl + dd <= penta[2]; the difference is bin 2 given without its
 * split (five-number --penta input). tri counts every finished game, paired or not, so
 * tri[0] + tri[1] + tri[2] >= 2 * pairs, except after five-number input with an unknown
 * split, where tri stays empty (the games' W-D-L is unknown).
 */
typedef struct {
    uint64_t penta[STATS_PENTA_NB]; /* pairs: LL, LD, WL + DD, WD, WW */
    uint64_t wl, dd;                /* bin 2 split: one win and one loss / two draws */
    uint64_t tri[STATS_SCORE_NB];   /* games: L, D, W */
} StatsCounts;

/* Which distribution the estimates and the SPRT are computed from. */
typedef enum {
    STATS_PENTANOMIAL,
    STATS_TRINOMIAL,
} StatsKind;

/*
 * Estimates from one distribution. Never NaN: at a 0 % or 100 % score Elo is -inf or
 * +inf; the Elo error is +inf whenever the 95 % score interval reaches 0 or 1; with no
 * variance (all draws, all wins) LOS is 0, 1/2 or 1 and nElo 0 or +-inf; with no
 * results (n == 0) mu is 1/2, Elo and nElo 0, their errors +inf, LOS 1/2 and the draw
 * ratio 0.
 */
typedef struct {
    StatsKind kind;
    double n;     /* pairs (pentanomial) or games (trinomial) */
    double games; /* 2 n (pentanomial) or n */
    double mu, var, se;
    double elo, elo_error;   /* logistic Elo and half its 95 % interval */
    double nelo, nelo_error; /* normalized Elo and z K / sqrt(games) */
    double los;              /* likelihood of superiority, 0..1 */
    double draw_ratio;       /* pairs scoring 1-1 / pairs (as fastchess), draws / games */
} StatsEstimate;

typedef enum {
    SPRT_NORMALIZED, /* fishtest's and fastchess's default */
    SPRT_LOGISTIC,
    SPRT_MODEL_NB,
} SprtModel;

typedef enum {
    SPRT_CONTINUE,  /* A < LLR < B */
    SPRT_ACCEPT_H0, /* LLR <= A */
    SPRT_ACCEPT_H1, /* LLR >= B */
} SprtState;

/* H0: elo = elo0 against H1: elo = elo1, in the model's Elo (logistic or normalized). */
typedef struct {
    double elo0, elo1;
    double alpha, beta; /* type I and type II error rates */
    SprtModel model;
} SprtParams;

/* The largest |elo0|, |elo1| accepted: the normalized model cannot reach much beyond
 * (about 230 nElo for pairs), and no real test needs bounds near it. */
#define SPRT_ELO_LIMIT 200.0

typedef struct {
    char msg[160];
} StatsError;

/* --- Counting --- */

void stats_counts_init(StatsCounts *c);

/* A's score in one game. red_result: the game's result from Red's view, as the run file
 * stores it (> 0 Red won, 0 a draw, < 0 Black won); a_red: whether A had Red. */
StatsScore stats_game_score(int red_result, bool a_red);

/* Counts one finished game that will never be part of a counted pair (its partner
 * failed, or the match is not played in pairs). False, counting nothing, when s is not a
 * StatsScore. */
bool stats_add_game(StatsCounts *c, StatsScore s);

/* Counts a finished pair: the pair and both of its games. g0, g1: A's scores in the two
 * games. Do not also pass these games to stats_add_game. False, counting nothing, when a
 * score is not a StatsScore. */
bool stats_add_pair(StatsCounts *c, StatsScore g0, StatsScore g1);

uint64_t stats_pairs(const StatsCounts *c);
uint64_t stats_games(const StatsCounts *c); /* max(tri total, 2 * pairs) */
/* True when tri holds the W-D-L of every counted game. */
bool stats_wdl_known(const StatsCounts *c);
/* Pentanomial when any pair is counted, else trinomial. */
StatsKind stats_default_kind(const StatsCounts *c);

/* --- Estimates --- */

void stats_estimate(const StatsCounts *c, StatsKind kind, StatsEstimate *out);
/* E(s) = -400 log10(1/s - 1): -inf at s <= 0, +inf at s >= 1. */
double stats_logistic_elo(double score);

/* --- SPRT --- */

/* elo0 0, elo1 2, alpha 0.05, beta 0.05, normalized: fishtest's usual test. */
void sprt_params_default(SprtParams *p);
/* False with err set unless: elo0 < elo1, both finite with |elo| <= SPRT_ELO_LIMIT,
 * alpha and beta in (0, 1) with alpha + beta < 1, a known model. */
bool sprt_check(const SprtParams *p, StatsError *err);
double sprt_lower_bound(const SprtParams *p); /* A = ln(beta / (1 - alpha)) */
double sprt_upper_bound(const SprtParams *p); /* B = ln((1 - beta) / alpha) */

/*
 * The generalized SPRT's log-likelihood ratio of H1 against H0: N sum p_i ln(q1_i / q0_i)
 * with q_j the maximum-likelihood distribution over the bins under hypothesis j, after
 * zero counts are replaced by 1e-3. 0 with no results. For parameters that pass
 * sprt_check the result is finite; otherwise it may be NaN.
 */
double sprt_llr(const SprtParams *p, const StatsCounts *c, StatsKind kind);
/* The same from raw bin counts: nbins 5 (pentanomial) or 3 (trinomial), lowest score
 * first; NaN for any other nbins. */
double sprt_llr_bins(const SprtParams *p, const uint64_t *counts, int nbins);

SprtState sprt_state(const SprtParams *p, double llr);
const char *sprt_model_name(SprtModel m); /* "normalized", "logistic"; "unknown" */
const char *sprt_state_name(SprtState s); /* "continue", "H0 accepted", "H1 accepted" */

/* --- Report text --- */

/*
 * Like snprintf: writes at most cap bytes (always NUL-terminated when cap > 0) and
 * returns the length the whole text needs.
 *
 * sprt_format: "LLR 2.25 (-2.94, 2.94) [0.00, 2.00] normalized".
 *
 * stats_format, one line (the live progress line), the SPRT part only when sprt is given:
 *   Elo 55.58 +/- 27.65, nElo 57.94 +/- 28.28, LOS 99.99 %, DrawRatio 21.72 %,
 *   Penta [34, 54, 31+32, 64, 75], Games 580: 245-182-153, LLR ... normalized
 * Bin 2 shows its WL+DD split when known; "Games N: W-D-L" drops the W-D-L when unknown;
 * Penta is left out for trinomial estimates. With no results the Elo part reads
 * "no results". Full form: the same items on lines of their own, each ending in '\n',
 * the SPRT line followed by its state. A probability strictly between 0 and 1 never
 * prints as 0.00 % or 100.00 %; infinities print as "inf" and "-inf".
 */
typedef enum {
    STATS_REPORT_LINE,
    STATS_REPORT_FULL,
} StatsReportForm;

size_t sprt_format(char *buf, size_t cap, const SprtParams *p, double llr);
/* The number pieces of that text: two decimals, "inf" and "-inf", no "-0.00"; a
 * probability in percent that is "0.00" or "100.00" only when certain. */
const char *stats_num_text(char out[32], double x);
const char *stats_percent_text(char out[32], double x);
size_t stats_format(char *buf, size_t cap, const StatsCounts *c, StatsKind kind,
                    const SprtParams *sprt, StatsReportForm form);

/* --- SPRT text --- */

/* One "key=value" of -sprt: elo0, elo1, alpha, beta, model=normalized|logistic. Checks
 * each value alone (sprt_check judges them together); on failure *p is unchanged. */
bool sprt_parse_option(const char *arg, SprtParams *p, StatsError *err);
/* The one SPRT text rule of every program: the key=value words (elo0, elo1, alpha, beta,
 * model), each at most once, elo0 and elo1 required, the rest defaulting as
 * sprt_params_default; checked with sprt_check. sprt_parse_text splits text at spaces
 * and commas ("elo0=0 elo1=5" or "elo0=0,elo1=5"). */
bool sprt_parse_words(int n, char *const words[], SprtParams *p, StatsError *err);
bool sprt_parse_text(const char *text, SprtParams *p, StatsError *err);

#endif
