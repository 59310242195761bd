#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weights.h"

#ifndef CHUHE_VERSION
#define CHUHE_VERSION "unknown"
#endif

/* Fills err and returns CLI_ERROR. */
static CliStatus say(char *err, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static CliStatus say(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return CLI_ERROR;
}

static const char USAGE[] =
    "Usage: chuhe-tune [options] RUN.h5 [RUN.h5 ...]\n"
    "       mpirun -np N chuhe-tune [options] RUN.h5 [RUN.h5 ...]\n"
    "       chuhe-tune --bench [--bench-positions N] [selection options] [RUN.h5 ...]\n"
    "       chuhe-tune --match-report RUN.h5 [--player NAME] [--sprt elo0=A,elo1=B,...]\n"
    "\n"
    "Fits the evaluation weights to positions of run files: least squares between\n"
    "sigmoid(K * eval) and a label mixing the search score and the game result.\n"
    "\n"
    "Output:\n"
    "  -o, --out FILE          tuned weights file (default tuned.weights)\n"
    "      --log FILE          per-epoch table as TSV (default OUT.tsv)\n"
    "      --plot FILE         PNG of both loss curves, by gnuplot (default OUT.png)\n"
    "      --checkpoint FILE   optimiser state (default OUT.ckpt)\n"
    "      --checkpoint-every N  epochs between checkpoints (default 1; 0: none)\n"
    "      --resume            go on from the checkpoint\n"
    "      --top N             report the N parameters that moved most (default 20)\n"
    "  -q, --quiet             no progress lines on stderr\n"
    "Start:\n"
    "      --weights FILE      starting weights (default: the built-in ones)\n"
    "Selection:\n"
    "      --skip-plies N      drop the first N plies of each game (default 16)\n"
    "      --max-score CP      drop |search score| > CP (default 2000)\n"
    "      --per-game N        at most N positions per game (default 0: all)\n"
    "      --qresolve          resolve captures along the quiescence line instead of\n"
    "                          dropping positions whose best or played move captures\n"
    "      --no-dedup          keep repeated positions (default: one per Zobrist key)\n"
    "      --valid-frac F      games held out for validation (default 0.1)\n"
    "      --check N           positions compared with the engine's evaluate() before\n"
    "                          fitting (default 10000)\n"
    "Fit:\n"
    "      --K X               scaling constant (default: fitted to the results)\n"
    "      --lambda L          label = L * sigmoid(K * score) + (1 - L) * result\n"
    "                          (default 0.5)\n"
    "      --epochs N          (default 200)\n"
    "      --batch N           positions per Adam step (default 0: full batch)\n"
    "      --lr X              Adam step size in centi-soldiers (default 1)\n"
    "      --beta1 X, --beta2 X  Adam moment decays (default 0.9, 0.999)\n"
    "      --patience N        stop after N epochs without a better validation loss\n"
    "                          (default 20; 0: never)\n"
    "      --freeze T[,T...]   terms that keep their starting values (names as in\n"
    "                          engine/eval_terms.h, e.g. material,psqt_king)\n"
    "      --seed N            sampling, validation split and mini-batches (default 1)\n"
    "Benchmark:\n"
    "      --bench             time gradient passes and measure memory per position\n"
    "      --bench-positions N synthetic positions per rank without files (default 1000000)\n"
    "Match:\n"
    "      --match-report FILE Elo, pentanomial counts and SPRT of one player of a\n"
    "                          finished run (against all others)\n"
    "      --player NAME       the player (name or weights path; default: player 0)\n"
    "      --sprt K=V[,K=V...] SPRT of the report: elo0, elo1, alpha, beta,\n"
    "                          model=normalized|logistic (default elo0=0,elo1=2,\n"
    "                          alpha=0.05,beta=0.05,model=normalized)\n"
    "\n"
    "  -h, --help              this text;  -V, --version  the version\n";

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || s[0] == '-')
        return false;
    *out = v;
    return true;
}

static bool parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

static bool parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !(v >= lo && v <= hi))
        return false;
    *out = v;
    return true;
}

/* "material,psqt_king" -> frozen flags; false with the bad name in err. */
static bool parse_freeze(const char *list, uint8_t *frozen, char *err, size_t errsize)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    char *save;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int t = 0;
        while (t < EVAL_TERM_NB && strcmp(EVAL_TERM_INFO[t].name, tok))
            t++;
        if (t == EVAL_TERM_NB) {
            int n = snprintf(err, errsize, "--freeze: unknown term '%s'; terms:", tok);
            for (int k = 0; k < EVAL_TERM_NB && n > 0 && (size_t)n < errsize; k++)
                n += snprintf(err + n, errsize - (size_t)n, " %s", EVAL_TERM_INFO[k].name);
            return false;
        }
        int first = (int)(EVAL_TERM_INFO[t].offset / sizeof(Score));
        for (int i = 0; i < EVAL_TERM_INFO[t].count; i++)
            frozen[first + i] = 1;
    }
    return true;
}

enum {
    OPT_LOG = 256,
    OPT_PLOT,
    OPT_CKPT,
    OPT_CKPT_EVERY,
    OPT_RESUME,
    OPT_TOP,
    OPT_WEIGHTS,
    OPT_SKIP,
    OPT_MAXSCORE,
    OPT_PERGAME,
    OPT_QRESOLVE,
    OPT_NODEDUP,
    OPT_VALID,
    OPT_CHECK,
    OPT_K,
    OPT_LAMBDA,
    OPT_EPOCHS,
    OPT_BATCH,
    OPT_LR,
    OPT_BETA1,
    OPT_BETA2,
    OPT_PATIENCE,
    OPT_FREEZE,
    OPT_SEED,
    OPT_BENCH,
    OPT_BENCH_N,
    OPT_MATCH,
    OPT_PLAYER,
    OPT_SPRT
};


CliStatus cli_parse(Cli *c, int argc, char **argv, bool print, char *err, size_t errsize)
{
    static const struct option LONG[] = {
        {"out", required_argument, NULL, 'o'},
        {"log", required_argument, NULL, OPT_LOG},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"checkpoint", required_argument, NULL, OPT_CKPT},
        {"checkpoint-every", required_argument, NULL, OPT_CKPT_EVERY},
        {"resume", no_argument, NULL, OPT_RESUME},
        {"top", required_argument, NULL, OPT_TOP},
        {"quiet", no_argument, NULL, 'q'},
        {"weights", required_argument, NULL, OPT_WEIGHTS},
        {"skip-plies", required_argument, NULL, OPT_SKIP},
        {"max-score", required_argument, NULL, OPT_MAXSCORE},
        {"per-game", required_argument, NULL, OPT_PERGAME},
        {"qresolve", no_argument, NULL, OPT_QRESOLVE},
        {"no-dedup", no_argument, NULL, OPT_NODEDUP},
        {"valid-frac", required_argument, NULL, OPT_VALID},
        {"check", required_argument, NULL, OPT_CHECK},
        {"K", required_argument, NULL, OPT_K},
        {"lambda", required_argument, NULL, OPT_LAMBDA},
        {"epochs", required_argument, NULL, OPT_EPOCHS},
        {"batch", required_argument, NULL, OPT_BATCH},
        {"lr", required_argument, NULL, OPT_LR},
        {"beta1", required_argument, NULL, OPT_BETA1},
        {"beta2", required_argument, NULL, OPT_BETA2},
        {"patience", required_argument, NULL, OPT_PATIENCE},
        {"freeze", required_argument, NULL, OPT_FREEZE},
        {"seed", required_argument, NULL, OPT_SEED},
        {"bench", no_argument, NULL, OPT_BENCH},
        {"bench-positions", required_argument, NULL, OPT_BENCH_N},
        {"match-report", required_argument, NULL, OPT_MATCH},
        {"player", required_argument, NULL, OPT_PLAYER},
        {"sprt", required_argument, NULL, OPT_SPRT},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    memset(c, 0, sizeof *c);
    c->out = "tuned.weights";
    c->ckpt_every = 1;
    c->top = 20;
    c->bench_positions = 1000000;
    c->lambda = 0.5;
    sprt_params_default(&c->sprt);
    load_options_default(&c->load);
    train_options_default(&c->train);
    opterr = 0;
    int ch;
    bool ok = true;
    const char *bad = NULL;
    while (ok && (ch = getopt_long(argc, argv, "o:qhV", LONG, NULL)) != -1) {
        int n;
        uint64_t u = 0;
        switch (ch) {
        case 'o':
            c->out = optarg;
            break;
        case OPT_LOG:
            c->log = optarg;
            break;
        case OPT_PLOT:
            c->plot = optarg;
            break;
        case OPT_CKPT:
            c->ckpt = optarg;
            break;
        case OPT_CKPT_EVERY:
            ok = parse_int(optarg, 0, 1000000, &c->ckpt_every);
            break;
        case OPT_RESUME:
            c->resume = true;
            break;
        case OPT_TOP:
            ok = parse_int(optarg, 0, 100000, &c->top);
            break;
        case 'q':
            c->quiet = true;
            break;
        case OPT_WEIGHTS:
            c->weights = optarg;
            break;
        case OPT_SKIP:
            ok = parse_int(optarg, 0, 100000, &c->load.skip_plies);
            break;
        case OPT_MAXSCORE:
            ok = parse_int(optarg, 0, 32767, &c->load.max_score);
            break;
        case OPT_PERGAME:
            ok = parse_int(optarg, 0, 100000, &c->load.per_game);
            break;
        case OPT_QRESOLVE:
            c->load.qresolve = true;
            break;
        case OPT_NODEDUP:
            c->load.dedup = false;
            break;
        case OPT_VALID:
            ok = parse_double(optarg, 0, 0.9, &c->load.valid_frac);
            break;
        case OPT_CHECK:
            ok = parse_u64(optarg, &c->load.check);
            break;
        case OPT_K:
            ok = parse_double(optarg, 1e-9, 10, &c->K);
            break;
        case OPT_LAMBDA:
            ok = parse_double(optarg, 0, 1, &c->lambda);
            break;
        case OPT_EPOCHS:
            ok = parse_int(optarg, 0, 100000000, &c->train.epochs);
            break;
        case OPT_BATCH:
            ok = parse_u64(optarg, &c->train.batch);
            break;
        case OPT_LR:
            ok = parse_double(optarg, 1e-12, 1e6, &c->train.lr);
            break;
        case OPT_BETA1:
            ok = parse_double(optarg, 0, 0.999999, &c->train.beta1);
            break;
        case OPT_BETA2:
            ok = parse_double(optarg, 0, 0.99999999, &c->train.beta2);
            break;
        case OPT_PATIENCE:
            ok = parse_int(optarg, 0, 100000000, &c->train.patience);
            break;
        case OPT_FREEZE: {
            size_t len = strlen(c->freeze);
            n = snprintf(c->freeze + len, sizeof c->freeze - len, "%s%s", len ? "," : "", optarg);
            ok = n > 0 && (size_t)n < sizeof c->freeze - len;
            break;
        }
        case OPT_SEED:
            ok = parse_u64(optarg, &u);
            c->load.seed = c->train.seed = u;
            break;
        case OPT_BENCH:
            c->bench = true;
            break;
        case OPT_BENCH_N:
            ok = parse_u64(optarg, &c->bench_positions) && c->bench_positions;
            break;
        case OPT_MATCH:
            c->match = optarg;
            break;
        case OPT_PLAYER:
            c->player = optarg;
            break;
        case OPT_SPRT: {
            StatsError se;
            if (!sprt_parse_text(optarg, &c->sprt, &se))
                return say(err, errsize, "%s", se.msg);
            break;
        }
        case 'h':
            if (print)
                fputs(USAGE, stdout);
            return CLI_DONE;
        case 'V':
            if (print)
                printf("chuhe-tune %s\n", CHUHE_VERSION);
            return CLI_DONE;
        default:
            bad = argv[optind - 1];
            ok = false;
            break;
        }
        if (!ok && !bad)
            bad = argv[optind - 1];
    }
    if (!ok)
        return say(err, errsize,
                   "bad or incomplete option near '%s' (chuhe-tune --help lists the options)",
                   bad ? bad : "?");
    c->files = (const char **)argv + optind;
    c->nfiles = argc - optind;
    if (!c->bench && !c->match && c->nfiles == 0)
        return say(err, errsize, "no run files given (chuhe-tune --help lists the options)");
    if (!c->log) {
        snprintf(c->log_buf, sizeof c->log_buf, "%s.tsv", c->out);
        c->log = c->log_buf;
    }
    if (!c->plot) {
        snprintf(c->plot_buf, sizeof c->plot_buf, "%s.png", c->out);
        c->plot = c->plot_buf;
    }
    if (!c->ckpt) {
        snprintf(c->ckpt_buf, sizeof c->ckpt_buf, "%s.ckpt", c->out);
        c->ckpt = c->ckpt_buf;
    }
    if (c->freeze[0] && !parse_freeze(c->freeze, c->train.frozen, err, errsize))
        return CLI_ERROR;
    if (c->weights) {
        WeightsError we;
        if (!weights_load(c->weights, &c->start, &we))
            return say(err, errsize, "%s", we.msg);
    } else {
        c->start = *weights_default();
    }
    c->load.params = &c->start;
    return CLI_RUN;
}
