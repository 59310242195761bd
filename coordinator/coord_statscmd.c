#include "coord_statscmd.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cliopt.h"
#include "coord_subcmd.h"
#include "error.h"

/* Counts above this are refused, so that sums and doubled counts cannot overflow and
 * every count is exact as a double. */
static const uint64_t MAX_COUNT = 1000000000000000ULL;

static bool is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* One count from [s, end), blanks around it allowed. */
static bool parse_count(const char *s, const char *end, uint64_t *v, const char *opt, int index,
                        StatsError *err)
{
    while (s < end && is_blank(*s))
        s++;
    while (end > s && is_blank(end[-1]))
        end--;
    int len = (int)(end - s);
    if (len == 0)
        return ERROR_SET(err, "%s: number %d is missing", opt, index);
    if (*s == '-')
        return ERROR_SET(err, "%s: number %d is negative: '%.*s'", opt, index, len, s);
    uint64_t x = 0;
    for (const char *q = s; q < end; q++) {
        if (*q < '0' || *q > '9')
            return ERROR_SET(err, "%s: number %d is not a whole number: '%.*s'", opt, index, len,
                             s);
        x = x * 10 + (uint64_t)(*q - '0');
        if (x > MAX_COUNT)
            return ERROR_SET(err, "%s: number %d is too large (at most %" PRIu64 "): '%.*s'", opt,
                             index, MAX_COUNT, len, s);
    }
    *v = x;
    return true;
}

/*
 * Splits a comma-separated list of up to max counts. An item "a+b" is allowed only at
 * index plus_at (-1: nowhere); its parts go to plus[]. Returns the number of items, or
 * -1 with err set.
 */
static int parse_list(const char *text, const char *opt, uint64_t *vals, int max, int plus_at,
                      uint64_t plus[2], bool *has_plus, StatsError *err)
{
    int n = 0;
    const char *s = text;
    *has_plus = false;
    if (!text || !*text) {
        ERROR_SET(err, "%s: no numbers given", opt);
        return -1;
    }
    for (;;) {
        const char *end = strchr(s, ',');
        if (!end)
            end = s + strlen(s);
        if (n == max) {
            ERROR_SET(err, "%s: too many numbers (at most %d)", opt, max);
            return -1;
        }
        const char *pl = memchr(s, '+', (size_t)(end - s));
        if (pl) {
            if (n != plus_at) {
                ERROR_SET(err, "%s: number %d: only a pentanomial bin 2 may be a sum (WL+DD)", opt,
                          n + 1);
                return -1;
            }
            if (!parse_count(s, pl, &plus[0], opt, n + 1, err) ||
                !parse_count(pl + 1, end, &plus[1], opt, n + 1, err))
                return -1;
            vals[n] = plus[0] + plus[1];
            *has_plus = true;
        } else if (!parse_count(s, end, &vals[n], opt, n + 1, err)) {
            return -1;
        }
        n++;
        if (!*end)
            return n;
        s = end + 1;
    }
}

bool coord_statscmd_parse_penta(const char *text, StatsCounts *out, StatsError *err)
{
    uint64_t v[STATS_PENTA_NB + 1], plus[2];
    bool has_plus;
    int n = parse_list(text, "--penta", v, STATS_PENTA_NB + 1, 2, plus, &has_plus, err);
    if (n < 0)
        return false;
    if (n != STATS_PENTA_NB && n != STATS_PENTA_NB + 1)
        return ERROR_SET(err,
                         "--penta: give 5 numbers LL,LD,WL+DD,WD,WW or 6 numbers "
                         "LL,LD,WL,DD,WD,WW, not %d",
                         n);
    if (has_plus && n != STATS_PENTA_NB)
        return ERROR_SET(err, "--penta: WL+DD belongs to the five-number form only");
    StatsCounts c;
    stats_counts_init(&c);
    if (n == STATS_PENTA_NB) {
        memcpy(c.penta, v, sizeof c.penta);
        if (has_plus) {
            c.wl = plus[0];
            c.dd = plus[1];
        }
    } else {
        c.penta[0] = v[0];
        c.penta[1] = v[1];
        c.wl = v[2];
        c.dd = v[3];
        c.penta[2] = v[2] + v[3];
        c.penta[3] = v[4];
        c.penta[4] = v[5];
    }
    /* The games' W-D-L follows from the pairs once bin 2 is split. */
    if (c.wl + c.dd == c.penta[2]) {
        const uint64_t *p = c.penta;
        c.tri[STATS_LOSS] = 2 * p[0] + p[1] + c.wl;
        c.tri[STATS_DRAW] = p[1] + 2 * c.dd + p[3];
        c.tri[STATS_WIN] = c.wl + p[3] + 2 * p[4];
    }
    *out = c;
    return true;
}

bool coord_statscmd_parse_wdl(const char *text, StatsCounts *out, StatsError *err)
{
    uint64_t v[3], plus[2];
    bool has_plus;
    int n = parse_list(text, "--wdl", v, 3, -1, plus, &has_plus, err);
    if (n < 0)
        return false;
    if (n != 3)
        return ERROR_SET(err, "--wdl: give 3 numbers W,D,L, not %d", n);
    stats_counts_init(out);
    out->tri[STATS_WIN] = v[0];
    out->tri[STATS_DRAW] = v[1];
    out->tri[STATS_LOSS] = v[2];
    return true;
}

/* ---- the command line ---- */

/* The arguments read so far. */
typedef struct {
    StatsCmdArgs a;
    bool have_counts;
} StatsParse;

static const CliOpt OPTS[] = {
    {"--penta", NULL, CLIOPT_CALL, 0, 0, 0, 0, 0, 0, "LL,LD,WL+DD,WD,WW",
     "game pairs by A's points (0, 1/2, 1, 3/2, 2); bin 2\nas one number or as WL+DD; or six "
     "numbers\nLL,LD,WL,DD,WD,WW",
     NULL},
    {"--wdl", NULL, CLIOPT_CALL, 0, 0, 0, 0, 0, 0, "W,D,L", "single games: A's wins, draws, losses",
     NULL},
    {"-sprt", "--sprt", CLIOPT_CALL, 0, 0, 0, 0, 0, CLIOPT_WORDS, "elo0=X elo1=Y",
     "SPRT of H0 elo=X against H1 elo=Y; alpha and beta\ndefault to 0.05, model to normalized "
     "(or logistic)",
     NULL},
    COORD_SUBCMD_HELP,
};
enum { NOPTS = sizeof OPTS / sizeof OPTS[0] };

static bool stats_option(void *ctx, const CliOpt *o, const char *label, int n, char **words,
                         char *msg, size_t size)
{
    StatsParse *p = ctx;
    StatsError err;
    (void)label;
    if (!strcmp(o->name, "-sprt")) {
        if (p->a.has_sprt)
            return error_set(msg, size, "-sprt given twice");
        if (!sprt_parse_words(n, words, &p->a.sprt, &err))
            return error_set(msg, size, "%s", err.msg);
        p->a.has_sprt = true;
        return true;
    }
    bool penta = !strcmp(o->name, "--penta");
    if (p->have_counts)
        return error_set(msg, size, "give one of --penta and --wdl, once");
    if (penta ? !coord_statscmd_parse_penta(words[0], &p->a.counts, &err)
              : !coord_statscmd_parse_wdl(words[0], &p->a.counts, &err))
        return error_set(msg, size, "%s", err.msg);
    p->a.kind = penta ? STATS_PENTANOMIAL : STATS_TRINOMIAL;
    p->have_counts = true;
    return true;
}

static void parse_init(StatsParse *p)
{
    memset(p, 0, sizeof *p);
    stats_counts_init(&p->a.counts);
    sprt_params_default(&p->a.sprt);
}

static const char GIVE_RESULTS[] = "give the results: --penta LL,LD,WL+DD,WD,WW or --wdl W,D,L";

bool coord_statscmd_parse_args(int argc, char *const argv[], StatsCmdArgs *out, StatsError *err)
{
    StatsParse p;
    parse_init(&p);
    CliOptSpec s = {.prog = "chuhe-coordinator stats",
                    .opts = OPTS,
                    .nopts = NOPTS,
                    .call = stats_option,
                    .ctx = &p};
    if (cliopt_parse(&s, argc, (char **)argv, NULL, NULL, 0, err->msg, sizeof err->msg) !=
        CLIOPT_OK)
        return false;
    if (!p.have_counts)
        return ERROR_SET(err, "%s", GIVE_RESULTS);
    *out = p.a;
    return true;
}

static const char SYNOPSIS[] = "stats (--penta LIST | --wdl W,D,L) [-sprt elo0=X elo1=Y "
                               "[alpha=A] [beta=B] [model=M]]";

const char *coord_statscmd_usage(void)
{
    static char text[2048];
    FILE *f = fmemopen(text, sizeof text, "w");
    if (!f)
        return SYNOPSIS;
    CliOptSpec s = {.opts = OPTS, .nopts = NOPTS};
    fprintf(f, "%s\n", SYNOPSIS);
    cliopt_usage(f, &s, 26);
    fclose(f);
    return text;
}

int coord_statscmd_run(int argc, char **argv)
{
    StatsParse p;
    parse_init(&p);
    CoordSubcmd s = {.name = "stats",
                     .synopsis = SYNOPSIS,
                     .opts = OPTS,
                     .nopts = NOPTS,
                     .call = stats_option,
                     .ctx = &p};
    int nwords, status;
    if (!coord_subcmd_args(&s, argc, argv, NULL, &nwords, &status))
        return status;
    if (!p.have_counts)
        return coord_subcmd_fail(&s, 2, "%s", GIVE_RESULTS);
    char text[2048];
    stats_format(text, sizeof text, &p.a.counts, p.a.kind, p.a.has_sprt ? &p.a.sprt : NULL,
                 STATS_REPORT_FULL);
    fputs(text, stdout);
    return 0;
}
