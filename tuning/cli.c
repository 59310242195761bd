#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cliopt.h"
#include "error.h"
#include "nnue.h"
#include "numparse.h"
#include "contracts/outpath.h"
#include "weights.h"

static void cli_usage_program(FILE *f, CliProgram prog);

#ifndef CHUHE_VERSION
#define CHUHE_VERSION "unknown"
#endif

/*
 * Every option, once (engine/cliopt.h): the parser, the value checks and the --help text
 * all read this table. Numbers must lie in [min, max] (CLIOPT_U64_ANY as max: any
 * uint64_t). The scope says which programs take an option.
 */
enum { TUNE = 1 << CLI_TUNE, TRAIN = 1 << CLI_TRAIN, BOTH = TUNE | TRAIN };

/* The offset and size of Cli's field f, which must be of type T: a wrong kind does not
 * compile. */
/* clang-format off */
#define AT(f, T) offsetof(Cli, f) + 0 * sizeof(_Generic(((Cli *)0)->f, T: 1)), sizeof(((Cli *)0)->f)
#define FLAG_ON(f) CLIOPT_FLAG, AT(f, bool), 0, 0
#define FLAG_OFF(f) CLIOPT_FLAG_OFF, AT(f, bool), 0, 0
#define PATH(f) CLIOPT_ARG, AT(f, const char *), 0, 0
#define INT(f, lo, hi) CLIOPT_INT, AT(f, int), lo, hi
#define U64(f, lo, hi) CLIOPT_U64, AT(f, uint64_t), lo, hi
#define REAL(f, lo, hi) CLIOPT_DOUBLE, AT(f, double), lo, hi
#define ACTION(kind) kind, 0, 0, 0, 0
/* A row: the programs, the names, what it sets, the value's name and the help. */
#define OPT(progs, name, alias, what, arg, help) {name, alias, what, progs, 0, arg, help, NULL}
#define HEADING(progs, text) {NULL, NULL, CLIOPT_HEADING, 0, 0, 0, 0, progs, 0, NULL, text, NULL}
/* clang-format on */

static const CliOpt OPTS[] = {
    HEADING(BOTH, "Output:"),
    OPT(TUNE, "--out", "-o", PATH(out), "FILE", "tuned weights file (default tuned.weights)"),
    OPT(TRAIN, "--out", "-o", PATH(out), "FILE", "network file (default trained.nnue)"),
    OPT(BOTH, "--log", NULL, PATH(log), "FILE", "per-epoch table as TSV (default OUT.tsv)"),
    OPT(BOTH, "--plot", NULL, PATH(plot), "FILE",
        "PNG of both loss curves, by gnuplot (default OUT.png)"),
    OPT(BOTH, "--checkpoint", NULL, PATH(ckpt), "FILE", "optimiser state (default OUT.ckpt)"),
    OPT(BOTH, "--checkpoint-every", NULL, INT(ckpt_every, 0, 1000000), "N",
        "epochs between checkpoints (default 1; 0: none)"),
    OPT(BOTH, "--resume", NULL, FLAG_ON(resume), NULL,
        "go on from the checkpoint: it and the TSV are rewritten\n"
        "without --force (the result and the plot need it)"),
    OPT(BOTH, "--force", NULL, FLAG_ON(force), NULL,
        "replace output files that exist (never a run file or\n"
        "an input of the command)"),
    OPT(BOTH, "--dry-run", NULL, FLAG_ON(dry_run), NULL,
        "check the options, the input and the output\n"
        "files, then stop: no run file is read, nothing written"),
    OPT(TUNE, "--top", NULL, INT(top, 0, 100000), "N",
        "report the N parameters that moved most (default 20)"),
    OPT(BOTH, "--quiet", "-q", FLAG_ON(quiet), NULL, "no progress lines on stderr"),
    OPT(TRAIN, "--description", NULL, PATH(description), "TEXT",
        "the network file's description, printable ASCII, at most\n"
        "64 characters (default: positions and epochs)"),
    OPT(TRAIN, "--export-positions", NULL, INT(export_positions, 1, 1000000), "N",
        "positions on which the engine's quantised evaluation is\n"
        "compared with the float network's (default 4096)"),
    OPT(TRAIN, "--max-diff", NULL, REAL(max_diff, 0, 1e6), "CP",
        "no network file when they differ by more than CP on a\n"
        "position (default 2)"),
    OPT(TRAIN, "--mean-diff", NULL, REAL(mean_diff, 0, 1e6), "CP",
        "... or by more than CP on average (default 1)"),
    HEADING(BOTH, "Start:"),
    OPT(TUNE, "--weights", NULL, PATH(weights), "FILE",
        "starting weights (default: the built-in ones)"),
    OPT(TRAIN, "--init", NULL, PATH(init), "NET",
        "starting weights from a network file, which sets the\n"
        "hidden units, buckets and scale (default: seeded\n"
        "random weights)"),
    HEADING(BOTH, "Selection:"),
    OPT(BOTH, "--skip-plies", NULL, INT(load.skip_plies, 0, 100000), "N",
        "drop the first N plies of each game (default 16)"),
    OPT(BOTH, "--max-score", NULL, INT(load.max_score, 0, 32767), "CP",
        "drop |search score| > CP (default 2000; 0: no limit, as\n"
        "in chuhe-coordinator export plain --max-score)"),
    OPT(BOTH, "--per-game", NULL, INT(load.per_game, 0, 100000), "N",
        "at most N positions per game (default 0: all)"),
    OPT(BOTH, "--qresolve", NULL, FLAG_ON(load.qresolve), NULL,
        "resolve captures along the quiescence line instead of\n"
        "dropping positions whose best or played move captures"),
    OPT(TRAIN, "--keep-in-check", NULL, FLAG_ON(load.keep_in_check), NULL,
        "keep positions whose side to move is in check"),
    OPT(TRAIN, "--keep-captures", NULL, FLAG_ON(load.keep_captures), NULL,
        "keep positions whose best or played move captures"),
    OPT(BOTH, "--no-dedup", NULL, FLAG_OFF(load.dedup), NULL,
        "keep repeated positions (default: one per Zobrist key)"),
    OPT(BOTH, "--valid-frac", NULL, REAL(load.valid_frac, 0, 0.9), "F",
        "games held out for validation (default 0.1)"),
    OPT(TUNE, "--check", NULL, U64(load.check, 0, CLIOPT_U64_ANY), "N",
        "positions compared with the engine's evaluate() before\n"
        "fitting (default 10000)"),
    HEADING(TUNE, "Fit:"),
    OPT(TUNE, "--K", NULL, REAL(K, 1e-6, 10), "X",
        "scaling constant (default: fitted to the results)"),
    OPT(TUNE, "--lambda", NULL, REAL(lambda, 0, 1), "L",
        "label = L * sigmoid(K * score) + (1 - L) * result\n"
        "(default 0.9)"),
    OPT(TUNE, "--epochs", NULL, INT(train.epochs, 0, 100000000), "N",
        "(default 100); row N of the epoch table holds the losses\n"
        "after N epochs (row 0: the starting weights)"),
    OPT(TUNE, "--batch", NULL, U64(train.batch, 0, CLIOPT_U64_ANY), "N",
        "positions per Adam step (default 16384; 0: full batch)"),
    OPT(TUNE, "--lr", NULL, REAL(train.lr, 1e-6, 1e6), "X",
        "Adam step size in centi-soldiers (default 3)"),
    OPT(TUNE, "--lr-decay", NULL, REAL(train.lr_decay, 1e-6, 1), "F",
        "the step size shrinks by F each epoch (default 0.966:\n"
        "lr 3 falls to 0.1 in 100 epochs; 1: constant)"),
    OPT(TUNE, "--reg", NULL, REAL(train.reg, 0, 1e6), "X",
        "pull toward the starting weights: 100 cp away costs\n"
        "a weight the error of X positions (default 0.1)"),
    OPT(TUNE, "--no-symmetric", NULL, FLAG_OFF(train.symmetric), NULL,
        "let mirrored points of the piece-square tables move\n"
        "apart (default: each moves with its mirror image)"),
    OPT(TUNE, "--beta1", NULL, REAL(train.beta1, 0, 0.999999), "X",
        "Adam decay of the gradient's mean (default 0.9)"),
    OPT(TUNE, "--beta2", NULL, REAL(train.beta2, 0, 0.999999), "X",
        "Adam decay of the squared gradient's mean (default 0.999)"),
    OPT(TUNE, "--patience", NULL, INT(train.patience, 0, 100000000), "N",
        "stop after N epochs without a better validation loss\n"
        "(default 20; 0: never)"),
    OPT(TUNE, "--freeze", NULL, ACTION(CLIOPT_CALL), "T[,T...]",
        "terms that keep their starting values (names as in\n"
        "engine/eval_terms.h, e.g. material,psqt_king)"),
    OPT(TUNE, "--seed", NULL, U64(train.seed, 0, CLIOPT_U64_ANY), "N",
        "sampling, validation split and mini-batches (default 1)"),
    HEADING(TRAIN, "Network:"),
    OPT(TRAIN, "--hidden", NULL, INT(net.hidden, NNUE_HIDDEN_MIN, NNUE_HIDDEN_MAX), "H",
        "hidden units per perspective, a multiple of 32 (default 256,\n"
        "or --init's)"),
    OPT(TRAIN, "--buckets", NULL, INT(net.buckets, 1, NNUE_BUCKETS_MAX), "B",
        "output buckets by the number of pieces (default 1, or\n"
        "--init's)"),
    OPT(TRAIN, "--scale", NULL, INT(net.scale, NNUE_SCALE_MIN, NNUE_SCALE_MAX), "S",
        "engine units per unit of output (default 400, or --init's)"),
    HEADING(TRAIN, "Training:"),
    OPT(TRAIN, "--K", NULL, REAL(K, 1e-6, 10), "X",
        "win probability of a score: sigmoid(K * score) (default:\n"
        "fitted to the results)"),
    OPT(TRAIN, "--lambda", NULL, REAL(net.lambda, 0, 1), "L",
        "target = L * sigmoid(K * score) + (1 - L) * result\n"
        "(default 1: the searched scores alone)"),
    OPT(TRAIN, "--epochs", NULL, INT(net.epochs, 0, 100000000), "N",
        "passes over the positions (default 30)"),
    OPT(TRAIN, "--batch", NULL, U64(net.batch, 1, CLIOPT_U64_ANY), "N",
        "positions per Adam step over all ranks (default 16384)"),
    OPT(TRAIN, "--lr", NULL, REAL(net.lr, 1e-9, 10), "X", "Adam step size (default 0.001)"),
    OPT(TRAIN, "--lr-drop", NULL, REAL(net.lr_drop, 1e-6, 1), "F",
        "the step size is multiplied by F every --lr-step epochs\n"
        "(default 0.3)"),
    OPT(TRAIN, "--lr-step", NULL, INT(net.lr_step, 1, 100000000), "N", "(default 10)"),
    OPT(TRAIN, "--beta1", NULL, REAL(net.beta1, 0, 0.999999), "X",
        "Adam decay of the gradient's mean (default 0.9)"),
    OPT(TRAIN, "--beta2", NULL, REAL(net.beta2, 0, 0.999999), "X",
        "Adam decay of the squared gradient's mean (default 0.999)"),
    OPT(TRAIN, "--seed", NULL, U64(train.seed, 0, CLIOPT_U64_ANY), "N",
        "starting weights, sampling, validation split and\n"
        "mini-batches (default 1)"),
    OPT(TRAIN, "--no-balance", NULL, FLAG_OFF(balance), NULL,
        "each rank computes its own positions only (default on\n"
        "2+ ranks: the ranks of a node share theirs and split\n"
        "each step as they go; without: runs repeat bit for bit)"),
    HEADING(BOTH, "Benchmark:"),
    OPT(TUNE, "--bench", NULL, FLAG_ON(bench), NULL,
        "time gradient passes and measure memory per position"),
    OPT(TRAIN, "--bench", NULL, FLAG_ON(bench), NULL,
        "train a few seconds on the files (or on synthetic\n"
        "positions) and report positions/s per core and memory"),
    OPT(TRAIN, "--bench-positions", NULL, U64(bench_positions, 1, CLIOPT_U64_ANY), "N",
        "synthetic positions per rank without files (default 200000)"),
    OPT(TRAIN, "--bench-seconds", NULL, REAL(bench_seconds, 0.1, 3600), "S",
        "seconds of training to time (default 3)"),
    OPT(TUNE, "--bench-positions", NULL, U64(bench_positions, 1, CLIOPT_U64_ANY), "N",
        "synthetic positions per rank without files (default 1000000)"),
    HEADING(TUNE, "Match:"),
    OPT(TUNE, "--match-report", NULL, PATH(match), "FILE",
        "Elo, pentanomial counts and SPRT of one player of a\n"
        "finished run (against all others)"),
    OPT(TUNE, "--player", NULL, PATH(player), "NAME",
        "the player (name or weights path; default: player 0)"),
    OPT(TUNE, "--baseline", NULL, PATH(baseline), "FILE",
        "also compare the player with its result in another run\n"
        "on the same openings (pair by pair)"),
    OPT(TUNE, "--baseline-player", NULL, PATH(baseline_player), "NAME",
        "the player in the --baseline run (default: --player)"),
    OPT(TUNE, "--sprt", NULL, ACTION(CLIOPT_CALL), "K=V[,K=V...]",
        "SPRT of the report: elo0, elo1, alpha, beta,\n"
        "model=normalized|logistic (default elo0=0,elo1=2,\n"
        "alpha=0.05,beta=0.05,model=normalized)"),
    HEADING(BOTH, ""),
    OPT(BOTH, "--help", "-h", ACTION(CLIOPT_HELP), NULL, "this text"),
    OPT(BOTH, "--version", "-V", ACTION(CLIOPT_VERSION), NULL, "the version"),
};

#undef AT
#undef FLAG_ON
#undef FLAG_OFF
#undef PATH
#undef INT
#undef U64
#undef REAL
#undef ACTION
#undef HEADING
#undef OPT

enum {
    NOPTS = sizeof OPTS / sizeof OPTS[0],
    HELP_COLUMN = 23, /* the help text starts 3 further */
};

static const char *const PROG_NAME[] = {"chuhe-tune", "chuhe-train"};

static const char USAGE_TUNE[] =
    "Usage: chuhe-tune [options] RUN.h5 [RUN.h5 ...]\n"
    "       mpirun -np N chuhe-tune [options] RUN.h5 [RUN.h5 ...]\n"
    "       chuhe-tune --bench [--bench-positions N] [selection options] [RUN.h5 ...]\n"
    "       chuhe-tune --match-report RUN.h5 [--player NAME] [--sprt elo0=A,elo1=B,...]\n"
    "                  [--baseline BASE.h5 [--baseline-player NAME]]\n"
    "\n"
    "Fits the evaluation weights to positions of run files: least squares between\n"
    "sigmoid(K * eval) and a label mixing the search score and the game result.\n"
    "\n";

static const char USAGE_TRAIN[] =
    "Usage: chuhe-train [options] RUN.h5 [RUN.h5 ...]\n"
    "       mpirun -np N chuhe-train [options] RUN.h5 [RUN.h5 ...]\n"
    "       chuhe-train --bench [--bench-seconds S] [options] [RUN.h5 ...]\n"
    "\n"
    "Trains the engine's network (PS1260 -> Hx2 -> SCReLU -> B buckets) on positions of\n"
    "run files: least squares between sigmoid(K * eval) and a target mixing the search\n"
    "score and the game result; writes a network file the engine loads (EvalFile).\n"
    "\n";

void cli_usage(FILE *f)
{
    cli_usage_program(f, CLI_TUNE);
}

static bool call(void *ctx, const CliOpt *o, const char *label, int n, char **words, char *msg,
                 size_t size);

/* The table as the parser reads it for prog, into c. */
static CliOptSpec spec_of(Cli *c, CliProgram prog)
{
    return (CliOptSpec){.prog = PROG_NAME[prog],
                        .opts = OPTS,
                        .nopts = NOPTS,
                        .dest = c,
                        .scope = 1u << prog,
                        .call = call,
                        .ctx = c};
}

/* The --help text of either program. */
static void cli_usage_program(FILE *f, CliProgram prog)
{
    fputs(prog == CLI_TRAIN ? USAGE_TRAIN : USAGE_TUNE, f);
    CliOptSpec s = spec_of(NULL, prog);
    cliopt_usage(f, &s, HELP_COLUMN);
}

/* --freeze may be given more than once: the lists are joined. */
static bool add_freeze(Cli *c, const char *list, CliError *err)
{
    size_t len = strlen(c->freeze);
    int n = snprintf(c->freeze + len, sizeof c->freeze - len, "%s%s", len ? "," : "", list);
    if (n < 0 || (size_t)n >= sizeof c->freeze - len)
        return ERROR_SET(err, "--freeze: the term names are longer than %zu characters",
                         sizeof c->freeze - 1);
    return true;
}

/* --freeze and --sprt: the options whose value is more than one field. */
static bool call(void *ctx, const CliOpt *o, const char *label, int n, char **words, char *msg,
                 size_t size)
{
    Cli *c = ctx;
    CliError err;
    (void)label, (void)n;
    if (!strcmp(o->name, "--freeze")) {
        if (add_freeze(c, words[0], &err))
            return true;
    } else {
        StatsError se;
        if (sprt_parse_text(words[0], &c->sprt, &se))
            return true;
        snprintf(err.msg, sizeof err.msg, "%s", se.msg);
    }
    return error_set(msg, size, "%s", err.msg);
}

/* "material,psqt_king" -> frozen flags; false with the bad name in err. */
static bool parse_freeze(const char *list, uint8_t *frozen, CliError *err)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    char *save;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int t = 0;
        while (t < EVAL_TERM_NB && strcmp(EVAL_TERM_INFO[t].name, tok))
            t++;
        if (t == EVAL_TERM_NB) {
            char *m = err->msg;
            size_t size = sizeof err->msg;
            int n = snprintf(m, size, "--freeze: unknown term '%s'; terms:", tok);
            for (int k = 0; k < EVAL_TERM_NB && n > 0 && (size_t)n < size; k++)
                n += snprintf(m + n, size - (size_t)n, " %s", EVAL_TERM_INFO[k].name);
            return false;
        }
        int first = (int)(EVAL_TERM_INFO[t].offset / sizeof(Score));
        for (int i = 0; i < EVAL_TERM_INFO[t].count; i++)
            frozen[first + i] = 1;
    }
    return true;
}

static void defaults(Cli *c, CliProgram prog)
{
    memset(c, 0, sizeof *c);
    c->prog = prog;
    c->out = prog == CLI_TRAIN ? "trained.nnue" : "tuned.weights";
    c->ckpt_every = 1;
    c->top = 20;
    c->bench_positions = 1000000;
    c->lambda = 0.9;
    sprt_params_default(&c->sprt);
    load_options_default(&c->load);
    train_options_default(&c->train);
    nettrain_options_default(&c->net);
    if (prog == CLI_TRAIN) {
        c->bench_positions = 200000;
        c->bench_seconds = 3;
        c->balance = true;
        c->export_positions = 4096;
        c->max_diff = 2;
        c->mean_diff = 1;
        /* 0: not given (the option's range starts above 0): the default, or --init's */
        c->net.hidden = c->net.buckets = c->net.scale = 0;
    }
}

/* The architecture: what the options gave, the rest from the --init network, or the
 * defaults without one; a given value the --init network does not have is an error. */
static bool resolve_shape(Cli *c, CliError *err)
{
    NetTrainOptions d;
    nettrain_options_default(&d);
    NnueNet net;
    memset(&net, 0, sizeof net);
    char why[sizeof err->msg - 16];
    if (c->init && !nnue_net_read(&net, c->init, why, sizeof why))
        return ERROR_SET(err, "--init: %s", why);
    const struct {
        const char *option;
        int *value;
        int def, file;
    } shape[] = {
        {"--hidden", &c->net.hidden, d.hidden, (int)net.hidden},
        {"--buckets", &c->net.buckets, d.buckets, (int)net.buckets},
        {"--scale", &c->net.scale, d.scale, (int)net.scale},
    };
    bool ok = true;
    for (size_t i = 0; ok && i < sizeof shape / sizeof shape[0]; i++) {
        int *v = shape[i].value;
        if (c->init && *v && *v != shape[i].file)
            ok = ERROR_SET(err, "%s %d: the --init network %s has %d (leave %s out to take it)",
                           shape[i].option, *v, c->init, shape[i].file, shape[i].option);
        else if (!*v)
            *v = c->init ? shape[i].file : shape[i].def;
    }
    if (ok && c->init)
        nnue_weights_id(&net, c->init_id);
    nnue_net_free(&net);
    return ok;
}

/* A path next to --out: OUT.tsv, OUT.png, OUT.ckpt. */
static const char *beside_out(const Cli *c, char *buf, size_t size, const char *ext)
{
    snprintf(buf, size, "%s%s", c->out, ext);
    return buf;
}

/* What follows from the options read: the files, the derived paths, the frozen terms and
 * the starting weights. */
static bool finish(Cli *c, int nfiles, char **files, CliError *err)
{
    c->load.seed = c->train.seed; /* --seed sets both */
    c->files = (const char **)files;
    c->nfiles = nfiles;
    if ((c->baseline || c->baseline_player) && !c->match)
        return ERROR_SET(err, "%s needs --match-report: it compares that run with another",
                         c->baseline ? "--baseline" : "--baseline-player");
    if (c->baseline_player && !c->baseline)
        return ERROR_SET(err, "--baseline-player needs --baseline (the run it names a player of)");
    if (!c->bench && !c->match && c->nfiles == 0)
        return ERROR_SET(err, "no run files given (%s --help lists the options)",
                         PROG_NAME[c->prog]);
    if (c->prog == CLI_TRAIN && c->net.hidden % NNUE_HIDDEN_STEP)
        return ERROR_SET(err, "--hidden: %d is not a multiple of %d", c->net.hidden,
                         NNUE_HIDDEN_STEP);
    if (c->prog == CLI_TRAIN && !resolve_shape(c, err))
        return false;
    if (c->description) {
        if (strlen(c->description) > NNUE_DESCRIPTION_BYTES)
            return ERROR_SET(err, "--description: longer than %d characters",
                             NNUE_DESCRIPTION_BYTES);
        for (const char *p = c->description; *p; p++)
            if (*p < 0x20 || *p > 0x7e)
                return ERROR_SET(err, "--description: only printable ASCII is allowed");
    }
    if (!c->log)
        c->log = beside_out(c, c->log_buf, sizeof c->log_buf, ".tsv");
    if (!c->plot)
        c->plot = beside_out(c, c->plot_buf, sizeof c->plot_buf, ".png");
    if (!c->ckpt)
        c->ckpt = beside_out(c, c->ckpt_buf, sizeof c->ckpt_buf, ".ckpt");
    if (c->freeze[0] && !parse_freeze(c->freeze, c->train.frozen, err))
        return false;
    if (c->weights) {
        WeightsError we;
        if (!weights_load(c->weights, &c->start, &we))
            return ERROR_SET(err, "--weights: %s", we.msg);
    } else {
        c->start = *weights_default();
    }
    c->load.params = &c->start;
    return true;
}

/* One file a tuning run writes. */
typedef struct {
    const char *option, *path;
    bool renamed;   /* written to path.tmp, then renamed over path */
    bool may_exist; /* replaced without asking: --force, or rewritten by a resumed run */
} Output;

enum { OUTPUTS_MAX = 4 };

static int outputs_of(const Cli *c, Output *out)
{
    int n = 0;
    out[n++] = (Output){"-o", c->out, true, c->force};
    out[n++] = (Output){"--log", c->log, true, c->force || c->resume};
    out[n++] = (Output){"--plot", c->plot, false, c->force};
    if (c->ckpt_every)
        out[n++] = (Output){"--checkpoint", c->ckpt, true, c->force || c->resume};
    return n;
}

/* o's path, and its temporary file, against the inputs. */
static bool check_output(const Output *o, const char *const *inputs, int ninputs, CliError *err)
{
    char *msg = err->msg;
    size_t size = sizeof err->msg;
    if (!outpath_check(o->option, o->path, OUTPATH_REPLACE, o->may_exist, inputs, ninputs, msg,
                       size)) {
        /* an existing checkpoint is most likely one to go on from */
        if (!strcmp(o->option, "--checkpoint") &&
            outpath_check(o->option, o->path, OUTPATH_REPLACE, true, inputs, ninputs, NULL, 0))
            return ERROR_SET(err,
                             "--checkpoint %s: the file exists (give --resume to go on from it, "
                             "--force to start afresh over it, or another file)",
                             o->path);
        return false;
    }
    if (!o->renamed)
        return true;
    struct stat st;
    if (stat(o->path, &st) == 0 && !S_ISREG(st.st_mode))
        return ERROR_SET(err,
                         "%s %s: not a regular file (the file is written as %s.tmp and "
                         "renamed over it)",
                         o->option, o->path, o->path);
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", o->path) >= (int)sizeof tmp)
        return ERROR_SET(err, "%s %s: path too long", o->option, o->path);
    /* a temporary file left by an interrupted run is replaced */
    return outpath_check(o->option, tmp, OUTPATH_REPLACE, true, inputs, ninputs, msg, size);
}

/* No two outputs, or one and another's temporary file, are the same file. */
static bool check_distinct(const Output *out, int n, CliError *err)
{
    char tmp[OUTPUTS_MAX][4096];
    for (int i = 0; i < n; i++)
        snprintf(tmp[i], sizeof tmp[i], "%s.tmp", out[i].path);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (j < i && outpath_same(out[i].path, out[j].path))
                return ERROR_SET(err, "%s %s: %s writes it too; give another file", out[i].option,
                                 out[i].path, out[j].option);
            if (j != i && out[j].renamed && outpath_same(out[i].path, tmp[j]))
                return ERROR_SET(err,
                                 "%s %s: %s writes it too (as its temporary file); give "
                                 "another file",
                                 out[i].option, out[i].path, out[j].option);
        }
    return true;
}

bool cli_check_outputs(const Cli *c, CliError *err)
{
    /* the checkpoint that --resume reads first: its own output check skips it */
    const char **inputs = malloc(((size_t)c->nfiles + 3) * sizeof *inputs);
    if (!inputs)
        return ERROR_SET(err, "out of memory");
    int ninputs = 0;
    if (c->resume)
        inputs[ninputs++] = c->ckpt;
    if (c->weights)
        inputs[ninputs++] = c->weights;
    if (c->init)
        inputs[ninputs++] = c->init;
    for (int i = 0; i < c->nfiles; i++)
        inputs[ninputs++] = c->files[i];
    Output out[OUTPUTS_MAX];
    int n = outputs_of(c, out);
    bool ok = true;
    for (int i = 0; ok && i < n; i++) {
        bool own = c->resume && out[i].path == c->ckpt;
        ok = check_output(&out[i], inputs + own, ninputs - own, err);
    }
    free(inputs);
    if (!ok || !check_distinct(out, n, err))
        return false;
    char why[sizeof err->msg - 16];
    if (c->resume && !(c->prog == CLI_TRAIN ? nettrain_is_checkpoint(c->ckpt, why, sizeof why)
                                            : train_is_checkpoint(c->ckpt, why, sizeof why)))
        return ERROR_SET(err, "--resume: %s", why);
    return true;
}

CliStatus cli_parse(Cli *c, int argc, char **argv, bool print, CliError *err)
{
    return cli_parse_program(c, CLI_TUNE, argc, argv, print, err);
}

CliStatus cli_parse_program(Cli *c, CliProgram prog, int argc, char **argv, bool print,
                            CliError *err)
{
    defaults(c, prog);
    CliOptSpec s = spec_of(c, prog);
    int nfiles;
    /* the run files are gathered at the start of argv, after the program's name */
    CliOptStatus st =
        cliopt_parse(&s, argc - 1, argv + 1, argv + 1, &nfiles, argc, err->msg, sizeof err->msg);
    if (st == CLIOPT_ASKED_HELP || st == CLIOPT_ASKED_VERSION) {
        if (print && st == CLIOPT_ASKED_HELP)
            cli_usage_program(stdout, prog);
        else if (print)
            printf("%s %s\n", PROG_NAME[prog], CHUHE_VERSION);
        return CLI_DONE;
    }
    if (st == CLIOPT_ERROR)
        return CLI_ERROR;
    return finish(c, nfiles, argv + 1, err) ? CLI_RUN : CLI_ERROR;
}
