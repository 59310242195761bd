#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "nnue.h"
#include "numparse.h"
#include "contracts/outpath.h"
#include "weights.h"

#ifndef CHUHE_VERSION
#define CHUHE_VERSION "unknown"
#endif

/* What an option does with its value. */
typedef enum {
    OPT_HEADING, /* not an option: a heading of the --help text */
    OPT_TRUE,    /* sets a bool */
    OPT_FALSE,   /* clears a bool (--no-dedup) */
    OPT_PATH,    /* a const char * into argv */
    OPT_INT,     /* an int in the range, read by numparse_int */
    OPT_U64,     /* a uint64_t in the range, read by numparse_u64 */
    OPT_DOUBLE,  /* a double in the range, read by numparse_double */
    OPT_FREEZE,  /* term names, added to the --freeze list */
    OPT_SPRT,    /* SPRT settings, read by sprt_parse_text */
    OPT_HELP,
    OPT_VERSION,
} OptKind;

/*
 * Every option, once: getopt's tables, the value checks and the --help text all read
 * this table. An option takes a value exactly when it names one (arg). Numbers must lie
 * in [min, max] (U64_ANY as max: any uint64_t).
 */
/* The programs that take an option (bits of 1 << CliProgram). */
enum { TUNE = 1 << CLI_TUNE, TRAIN = 1 << CLI_TRAIN, BOTH = TUNE | TRAIN };

typedef struct {
    unsigned progs;
    const char *name; /* without "--"; NULL for a heading */
    char letter;      /* the short option, 0 for none */
    OptKind kind;
    size_t offset; /* of the field in Cli */
    double min, max;
    const char *arg;  /* the value's name in --help; NULL: no value */
    const char *help; /* '\n' goes on in the help column; a heading's whole line */
} CliOpt;

/* The offset of Cli's field f, which must be of type T: a wrong kind does not compile. */
/* clang-format off */
#define AT(f, T) (offsetof(Cli, f) + 0 * sizeof(_Generic(((Cli *)0)->f, T: 1)))
#define FLAG_ON(f) OPT_TRUE, AT(f, bool), 0, 0
#define FLAG_OFF(f) OPT_FALSE, AT(f, bool), 0, 0
#define PATH(f) OPT_PATH, AT(f, const char *), 0, 0
#define INT(f, lo, hi) OPT_INT, AT(f, int), lo, hi
#define U64(f, lo, hi) OPT_U64, AT(f, uint64_t), lo, hi
#define REAL(f, lo, hi) OPT_DOUBLE, AT(f, double), lo, hi
#define ACTION(kind) kind, 0, 0, 0
#define HEADING(progs, text) {progs, NULL, 0, OPT_HEADING, 0, 0, 0, NULL, text}
/* clang-format on */
#define U64_ANY 0x1p64 /* 2^64: no uint64_t is above it */

static const CliOpt OPTS[] = {
    HEADING(BOTH, "Output:"),
    {TUNE, "out", 'o', PATH(out), "FILE", "tuned weights file (default tuned.weights)"},
    {TRAIN, "out", 'o', PATH(out), "FILE", "network file (default trained.nnue)"},
    {BOTH, "log", 0, PATH(log), "FILE", "per-epoch table as TSV (default OUT.tsv)"},
    {BOTH, "plot", 0, PATH(plot), "FILE", "PNG of both loss curves, by gnuplot (default OUT.png)"},
    {BOTH, "checkpoint", 0, PATH(ckpt), "FILE", "optimiser state (default OUT.ckpt)"},
    {BOTH, "checkpoint-every", 0, INT(ckpt_every, 0, 1000000), "N",
     "epochs between checkpoints (default 1; 0: none)"},
    {BOTH, "resume", 0, FLAG_ON(resume), NULL,
     "go on from the checkpoint: it and the TSV are rewritten\n"
     "without --force (the result and the plot need it)"},
    {BOTH, "force", 0, FLAG_ON(force), NULL,
     "replace output files that exist (never a run file or\n"
     "an input of the command)"},
    {BOTH, "dry-run", 0, FLAG_ON(dry_run), NULL,
     "check the options, the input and the output\n"
     "files, then stop: no run file is read, nothing written"},
    {TUNE, "top", 0, INT(top, 0, 100000), "N",
     "report the N parameters that moved most (default 20)"},
    {BOTH, "quiet", 'q', FLAG_ON(quiet), NULL, "no progress lines on stderr"},
    {TRAIN, "description", 0, PATH(description), "TEXT",
     "the network file's description, printable ASCII, at most\n"
     "64 characters (default: positions and epochs)"},
    {TRAIN, "export-positions", 0, INT(export_positions, 1, 1000000), "N",
     "positions on which the engine's quantised evaluation is\n"
     "compared with the float network's (default 4096)"},
    {TRAIN, "max-diff", 0, REAL(max_diff, 0, 1e6), "CP",
     "no network file when they differ by more than CP on a\n"
     "position (default 2)"},
    {TRAIN, "mean-diff", 0, REAL(mean_diff, 0, 1e6), "CP",
     "... or by more than CP on average (default 1)"},
    HEADING(TUNE, "Start:"),
    {TUNE, "weights", 0, PATH(weights), "FILE", "starting weights (default: the built-in ones)"},
    HEADING(BOTH, "Selection:"),
    {BOTH, "skip-plies", 0, INT(load.skip_plies, 0, 100000), "N",
     "drop the first N plies of each game (default 16)"},
    {BOTH, "max-score", 0, INT(load.max_score, 0, 32767), "CP",
     "drop |search score| > CP (default 2000; 0: no limit, as\n"
     "in chuhe-coordinator export plain --max-score)"},
    {BOTH, "per-game", 0, INT(load.per_game, 0, 100000), "N",
     "at most N positions per game (default 0: all)"},
    {BOTH, "qresolve", 0, FLAG_ON(load.qresolve), NULL,
     "resolve captures along the quiescence line instead of\n"
     "dropping positions whose best or played move captures"},
    {TRAIN, "keep-in-check", 0, FLAG_ON(load.keep_in_check), NULL,
     "keep positions whose side to move is in check"},
    {TRAIN, "keep-captures", 0, FLAG_ON(load.keep_captures), NULL,
     "keep positions whose best or played move captures"},
    {BOTH, "no-dedup", 0, FLAG_OFF(load.dedup), NULL,
     "keep repeated positions (default: one per Zobrist key)"},
    {BOTH, "valid-frac", 0, REAL(load.valid_frac, 0, 0.9), "F",
     "games held out for validation (default 0.1)"},
    {TUNE, "check", 0, U64(load.check, 0, U64_ANY), "N",
     "positions compared with the engine's evaluate() before\n"
     "fitting (default 10000)"},
    HEADING(TUNE, "Fit:"),
    {TUNE, "K", 0, REAL(K, 1e-6, 10), "X", "scaling constant (default: fitted to the results)"},
    {TUNE, "lambda", 0, REAL(lambda, 0, 1), "L",
     "label = L * sigmoid(K * score) + (1 - L) * result\n"
     "(default 0.9)"},
    {TUNE, "epochs", 0, INT(train.epochs, 0, 100000000), "N",
     "(default 100); row N of the epoch table holds the losses\n"
     "after N epochs (row 0: the starting weights)"},
    {TUNE, "batch", 0, U64(train.batch, 0, U64_ANY), "N",
     "positions per Adam step (default 16384; 0: full batch)"},
    {TUNE, "lr", 0, REAL(train.lr, 1e-6, 1e6), "X", "Adam step size in centi-soldiers (default 3)"},
    {TUNE, "lr-decay", 0, REAL(train.lr_decay, 1e-6, 1), "F",
     "the step size shrinks by F each epoch (default 0.966:\n"
     "lr 3 falls to 0.1 in 100 epochs; 1: constant)"},
    {TUNE, "reg", 0, REAL(train.reg, 0, 1e6), "X",
     "pull toward the starting weights: 100 cp away costs\n"
     "a weight the error of X positions (default 0.1)"},
    {TUNE, "no-symmetric", 0, FLAG_OFF(train.symmetric), NULL,
     "let mirrored points of the piece-square tables move\n"
     "apart (default: each moves with its mirror image)"},
    {TUNE, "beta1", 0, REAL(train.beta1, 0, 0.999999), "X",
     "Adam decay of the gradient's mean (default 0.9)"},
    {TUNE, "beta2", 0, REAL(train.beta2, 0, 0.999999), "X",
     "Adam decay of the squared gradient's mean (default 0.999)"},
    {TUNE, "patience", 0, INT(train.patience, 0, 100000000), "N",
     "stop after N epochs without a better validation loss\n"
     "(default 20; 0: never)"},
    {TUNE, "freeze", 0, ACTION(OPT_FREEZE), "T[,T...]",
     "terms that keep their starting values (names as in\n"
     "engine/eval_terms.h, e.g. material,psqt_king)"},
    {TUNE, "seed", 0, U64(train.seed, 0, U64_ANY), "N",
     "sampling, validation split and mini-batches (default 1)"},
    HEADING(TRAIN, "Network:"),
    {TRAIN, "hidden", 0, INT(net.hidden, NNUE_HIDDEN_MIN, NNUE_HIDDEN_MAX), "H",
     "hidden units per perspective, a multiple of 32 (default 256)"},
    {TRAIN, "buckets", 0, INT(net.buckets, 1, NNUE_BUCKETS_MAX), "B",
     "output buckets by the number of pieces (default 1)"},
    {TRAIN, "scale", 0, INT(net.scale, NNUE_SCALE_MIN, NNUE_SCALE_MAX), "S",
     "engine units per unit of output (default 400)"},
    HEADING(TRAIN, "Training:"),
    {TRAIN, "K", 0, REAL(K, 1e-6, 10), "X",
     "win probability of a score: sigmoid(K * score) (default:\n"
     "fitted to the results)"},
    {TRAIN, "lambda", 0, REAL(net.lambda, 0, 1), "L",
     "target = L * sigmoid(K * score) + (1 - L) * result\n"
     "(default 0.9)"},
    {TRAIN, "epochs", 0, INT(net.epochs, 0, 100000000), "N",
     "passes over the positions (default 30)"},
    {TRAIN, "batch", 0, U64(net.batch, 1, U64_ANY), "N",
     "positions per Adam step over all ranks (default 16384)"},
    {TRAIN, "lr", 0, REAL(net.lr, 1e-9, 10), "X", "Adam step size (default 0.001)"},
    {TRAIN, "lr-drop", 0, REAL(net.lr_drop, 1e-6, 1), "F",
     "the step size is multiplied by F every --lr-step epochs\n"
     "(default 0.3)"},
    {TRAIN, "lr-step", 0, INT(net.lr_step, 1, 100000000), "N", "(default 10)"},
    {TRAIN, "beta1", 0, REAL(net.beta1, 0, 0.999999), "X",
     "Adam decay of the gradient's mean (default 0.9)"},
    {TRAIN, "beta2", 0, REAL(net.beta2, 0, 0.999999), "X",
     "Adam decay of the squared gradient's mean (default 0.999)"},
    {TRAIN, "seed", 0, U64(train.seed, 0, U64_ANY), "N",
     "starting weights, sampling, validation split and\n"
     "mini-batches (default 1)"},
    HEADING(BOTH, "Benchmark:"),
    {TUNE, "bench", 0, FLAG_ON(bench), NULL,
     "time gradient passes and measure memory per position"},
    {TRAIN, "bench", 0, FLAG_ON(bench), NULL,
     "train a few seconds on the files (or on synthetic\n"
     "positions) and report positions/s per core and memory"},
    {TRAIN, "bench-positions", 0, U64(bench_positions, 1, U64_ANY), "N",
     "synthetic positions per rank without files (default 200000)"},
    {TRAIN, "bench-seconds", 0, REAL(bench_seconds, 0.1, 3600), "S",
     "seconds of training to time (default 3)"},
    {TUNE, "bench-positions", 0, U64(bench_positions, 1, U64_ANY), "N",
     "synthetic positions per rank without files (default 1000000)"},
    HEADING(TUNE, "Match:"),
    {TUNE, "match-report", 0, PATH(match), "FILE",
     "Elo, pentanomial counts and SPRT of one player of a\n"
     "finished run (against all others)"},
    {TUNE, "player", 0, PATH(player), "NAME",
     "the player (name or weights path; default: player 0)"},
    {TUNE, "baseline", 0, PATH(baseline), "FILE",
     "also compare the player with its result in another run\n"
     "on the same openings (pair by pair)"},
    {TUNE, "baseline-player", 0, PATH(baseline_player), "NAME",
     "the player in the --baseline run (default: --player)"},
    {TUNE, "sprt", 0, ACTION(OPT_SPRT), "K=V[,K=V...]",
     "SPRT of the report: elo0, elo1, alpha, beta,\n"
     "model=normalized|logistic (default elo0=0,elo1=2,\n"
     "alpha=0.05,beta=0.05,model=normalized)"},
    HEADING(BOTH, ""),
    {BOTH, "help", 'h', ACTION(OPT_HELP), NULL, "this text"},
    {BOTH, "version", 'V', ACTION(OPT_VERSION), NULL, "the version"},
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

enum {
    NOPTS = sizeof OPTS / sizeof OPTS[0],
    LONG_BASE = 256, /* getopt_long returns LONG_BASE + i for OPTS[i] */
    HELP_COLUMN = 26,
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

void cli_usage_program(FILE *f, CliProgram prog)
{
    fputs(prog == CLI_TRAIN ? USAGE_TRAIN : USAGE_TUNE, f);
    for (int i = 0; i < NOPTS; i++) {
        const CliOpt *o = &OPTS[i];
        if (!(o->progs & (1u << prog)))
            continue;
        if (o->kind == OPT_HEADING) {
            fprintf(f, "%s\n", o->help);
            continue;
        }
        char letter[8] = "    ", left[64];
        if (o->letter)
            snprintf(letter, sizeof letter, "-%c, ", o->letter);
        snprintf(left, sizeof left, "%s--%s%s%s", letter, o->name, o->arg ? " " : "",
                 o->arg ? o->arg : "");
        fprintf(f, "  %-*s  ", HELP_COLUMN - 4, left);
        for (const char *p = o->help; *p; p++) {
            fputc(*p, f);
            if (*p == '\n')
                fprintf(f, "%*s", HELP_COLUMN, "");
        }
        fputc('\n', f);
    }
}

/* Reads a number of o's kind into field with the one strict reader (numparse.h): false,
 * with the option, the text and the range in err, when it is not one or out of range. */
static bool parse_number(const CliOpt *o, const char *text, void *field, CliError *err)
{
    char option[48];
    snprintf(option, sizeof option, "--%s", o->name);
    char *msg = err ? err->msg : NULL;
    size_t size = err ? sizeof err->msg : 0;
    if (o->kind == OPT_DOUBLE)
        return numparse_double(option, text, o->min, o->max, (double *)field, msg, size);
    if (o->kind == OPT_U64) {
        uint64_t hi = o->max >= U64_ANY ? UINT64_MAX : (uint64_t)o->max;
        return numparse_u64(option, text, (uint64_t)o->min, hi, (uint64_t *)field, msg, size);
    }
    long long v;
    if (!numparse_int(option, text, (long long)o->min, (long long)o->max, &v, msg, size))
        return false;
    *(int *)field = (int)v;
    return true;
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

static bool set_option(Cli *c, const CliOpt *o, const char *arg, CliError *err)
{
    void *field = (char *)c + o->offset;
    switch (o->kind) {
    case OPT_TRUE:
        *(bool *)field = true;
        return true;
    case OPT_FALSE:
        *(bool *)field = false;
        return true;
    case OPT_PATH:
        *(const char **)field = arg;
        return true;
    case OPT_INT:
    case OPT_U64:
    case OPT_DOUBLE:
        return parse_number(o, arg, field, err);
    case OPT_FREEZE:
        return add_freeze(c, arg, err);
    case OPT_SPRT: {
        StatsError se;
        return sprt_parse_text(arg, &c->sprt, &se) || ERROR_SET(err, "%s", se.msg);
    }
    case OPT_HEADING:
    case OPT_HELP:
    case OPT_VERSION:
        break;
    }
    return true;
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
        c->export_positions = 4096;
        c->max_diff = 2;
        c->mean_diff = 1;
    }
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
    const char **inputs = malloc(((size_t)c->nfiles + 2) * sizeof *inputs);
    if (!inputs)
        return ERROR_SET(err, "out of memory");
    int ninputs = 0;
    if (c->resume)
        inputs[ninputs++] = c->ckpt;
    if (c->weights)
        inputs[ninputs++] = c->weights;
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

/* getopt_long's view of the table: long options and the short option string. */
static void getopt_tables(CliProgram prog, struct option *longopts, char *shortopts)
{
    int n = 0;
    for (int i = 0; i < NOPTS; i++) {
        const CliOpt *o = &OPTS[i];
        if (o->kind == OPT_HEADING || !(o->progs & (1u << prog)))
            continue;
        longopts[n++] =
            (struct option){o->name, o->arg ? required_argument : no_argument, NULL, LONG_BASE + i};
        if (o->letter) {
            *shortopts++ = o->letter;
            if (o->arg)
                *shortopts++ = ':';
        }
    }
    longopts[n] = (struct option){NULL, 0, NULL, 0};
    *shortopts = '\0';
}

/* The row of what getopt_long returned; NULL for an unknown or incomplete option. */
static const CliOpt *opt_of(CliProgram prog, int ch)
{
    if (ch >= LONG_BASE && ch < LONG_BASE + NOPTS)
        return &OPTS[ch - LONG_BASE];
    for (int i = 0; ch > 0 && i < NOPTS; i++)
        if (OPTS[i].letter == ch && (OPTS[i].progs & (1u << prog)))
            return &OPTS[i];
    return NULL;
}

CliStatus cli_parse(Cli *c, int argc, char **argv, bool print, CliError *err)
{
    return cli_parse_program(c, CLI_TUNE, argc, argv, print, err);
}

CliStatus cli_parse_program(Cli *c, CliProgram prog, int argc, char **argv, bool print,
                            CliError *err)
{
    struct option longopts[NOPTS + 1];
    char shortopts[2 * NOPTS + 1];
    getopt_tables(prog, longopts, shortopts);
    defaults(c, prog);
    opterr = 0;
    optind = 0; /* glibc: start afresh, so that tests may parse several command lines */
    int ch;
    while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        const CliOpt *o = opt_of(prog, ch);
        if (!o) {
            ERROR_SET(err, "bad or incomplete option near '%s' (%s --help lists the options)",
                      argv[optind - 1], PROG_NAME[prog]);
            return CLI_ERROR;
        }
        if (o->kind == OPT_HELP || o->kind == OPT_VERSION) {
            if (print && o->kind == OPT_HELP)
                cli_usage_program(stdout, prog);
            else if (print)
                printf("%s %s\n", PROG_NAME[prog], CHUHE_VERSION);
            return CLI_DONE;
        }
        if (!set_option(c, o, optarg, err))
            return CLI_ERROR;
    }
    return finish(c, argc - optind, argv + optind, err) ? CLI_RUN : CLI_ERROR;
}
