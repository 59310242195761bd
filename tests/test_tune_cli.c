/*
 * chuhe-tune's command line: defaults, every option, numbers read by the one strict
 * reader (a bad one names the option, the text and the range), refusals, the --help
 * text; and the output files checked before any work (cli_check_outputs): never a run
 * file, an input or another output, an existing file only with --force, and the
 * checkpoint of --resume rewritten.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <hdf5.h>

#include "position.h"
#include "tuning/cli.h"
#include "tuning/train.h"
#include "weights.h"

static char g_dir[64];

static void path_in_dir(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", g_dir, name);
}

/* ---- parsing ----------------------------------------------------------------------------- */

/* cli_parse of "chuhe-tune" and the NULL-terminated words; c->files points into a static
 * argv that the next call reuses. */
static CliStatus parse_words(Cli *c, CliError *err, const char *const *words)
{
    static char *argv[80];
    int argc = 0;
    argv[argc++] = (char *)"chuhe-tune";
    while (*words && argc < 79)
        argv[argc++] = (char *)*words++;
    assert_null(*words);
    argv[argc] = NULL;
    err->msg[0] = '\0';
    return cli_parse(c, argc, argv, false, err);
}

/* Whether every parameter of term name is frozen (want 1) or none is (want 0). */
static bool term_frozen(const Cli *c, const char *name, int want)
{
    for (int t = 0; t < EVAL_TERM_NB; t++) {
        if (strcmp(EVAL_TERM_INFO[t].name, name))
            continue;
        int first = (int)(EVAL_TERM_INFO[t].offset / sizeof(Score));
        for (int i = 0; i < EVAL_TERM_INFO[t].count; i++)
            if (c->train.frozen[first + i] != want)
                return false;
        return true;
    }
    return false;
}

/* The selection and fit settings c holds, but the frozen flags, eps and the weights; the
 * expected structs list their fields in order (loader.h, train.h). */
static void expect_options(const Cli *c, const LoadOptions *load, const TrainOptions *train)
{
    assert_int_equal(c->load.skip_plies, load->skip_plies);
    assert_int_equal(c->load.max_score, load->max_score);
    assert_int_equal(c->load.per_game, load->per_game);
    assert_int_equal(c->load.qresolve, load->qresolve);
    assert_int_equal(c->load.dedup, load->dedup);
    assert_true(c->load.valid_frac == load->valid_frac);
    assert_int_equal(c->load.seed, load->seed);
    assert_int_equal(c->load.check, load->check);
    assert_int_equal(c->train.epochs, train->epochs);
    assert_int_equal(c->train.batch, train->batch);
    assert_true(c->train.lr == train->lr);
    assert_true(c->train.beta1 == train->beta1 && c->train.beta2 == train->beta2);
    assert_int_equal(c->train.patience, train->patience);
    assert_int_equal(c->train.seed, train->seed);
    assert_true(c->train.lr_decay == train->lr_decay && c->train.reg == train->reg);
    assert_int_equal(c->train.symmetric, train->symmetric);
}

static void test_cli_defaults(void **state)
{
    (void)state;
    Cli *c = malloc(sizeof *c);
    CliError err;
    assert_non_null(c);
    assert_int_equal(parse_words(c, &err, (const char *[]){"run.h5", NULL}), CLI_RUN);
    assert_int_equal(c->nfiles, 1);
    assert_string_equal(c->files[0], "run.h5");
    assert_string_equal(c->out, "tuned.weights");
    assert_string_equal(c->log, "tuned.weights.tsv");
    assert_string_equal(c->plot, "tuned.weights.png");
    assert_string_equal(c->ckpt, "tuned.weights.ckpt");
    assert_null(c->weights);
    assert_null(c->match);
    assert_null(c->player);
    assert_int_equal(c->ckpt_every, 1);
    assert_int_equal(c->top, 20);
    assert_false(c->resume || c->quiet || c->bench);
    assert_int_equal(c->bench_positions, 1000000);
    assert_true(c->K == 0 && c->lambda == 0.9);
    expect_options(c, &(LoadOptions){16, 2000, 0, false, true, 0.1, 1, 10000, NULL, false, false},
                   &(TrainOptions){100, 16384, 3, 0.9, 0.999, 1e-8, 20, 1, {0}, 0.966, 0.1, true});
    for (int i = 0; i < EVAL_PARAM_NB; i++)
        assert_int_equal(c->train.frozen[i], 0);
    SprtParams sp;
    sprt_params_default(&sp);
    assert_true(c->sprt.elo0 == sp.elo0 && c->sprt.elo1 == sp.elo1);
    assert_true(c->sprt.alpha == sp.alpha && c->sprt.beta == sp.beta);
    assert_int_equal(c->sprt.model, sp.model);
    assert_memory_equal(&c->start, weights_default(), sizeof c->start);
    assert_ptr_equal(c->load.params, &c->start);
    free(c);
}

static void test_cli_every_option(void **state)
{
    (void)state;
    char wpath[128];
    path_in_dir(wpath, sizeof wpath, "cli-start.weights");
    EvalParams start = *weights_default();
    start.tempo[0] = S(7, 3);
    WeightsError we;
    assert_true(weights_save(wpath, &start, &we));
    Cli *c = malloc(sizeof *c);
    CliError err;
    assert_non_null(c);
    const char *words[] = {"a.h5",
                           "-o",
                           "out.w",
                           "--log",
                           "l.tsv",
                           "--plot=p.png",
                           "--checkpoint",
                           "ck",
                           "--checkpoint-every",
                           "3",
                           "--resume",
                           "--top",
                           "7",
                           "-q",
                           "--weights",
                           wpath,
                           "--skip-plies",
                           "2",
                           "--max-score",
                           "900",
                           "--per-game",
                           "5",
                           "--qresolve",
                           "--no-dedup",
                           "--valid-frac",
                           "0.25",
                           "--check",
                           "12",
                           "--K",
                           "0.004",
                           "--lambda",
                           "0.75",
                           "--epochs",
                           "9",
                           "--batch",
                           "64",
                           "--lr=2.5",
                           "--lr-decay",
                           "0.5",
                           "--reg",
                           "0.01",
                           "--no-symmetric",
                           "--beta1",
                           "0.8",
                           "--beta2",
                           "0.99",
                           "--patience",
                           "4",
                           "--freeze",
                           "material",
                           "--freeze",
                           "psqt_king",
                           "--seed",
                           "42",
                           "--bench",
                           "--bench-positions",
                           "5000",
                           "--match-report",
                           "m.h5",
                           "--player",
                           "slow",
                           "--sprt",
                           "elo0=1,elo1=3",
                           "--baseline",
                           "base.h5",
                           "--baseline-player",
                           "old",
                           "b.h5",
                           NULL};
    assert_int_equal(parse_words(c, &err, words), CLI_RUN);
    assert_int_equal(c->nfiles, 2);
    assert_string_equal(c->files[0], "a.h5");
    assert_string_equal(c->files[1], "b.h5");
    assert_string_equal(c->out, "out.w");
    assert_string_equal(c->log, "l.tsv");
    assert_string_equal(c->plot, "p.png");
    assert_string_equal(c->ckpt, "ck");
    assert_int_equal(c->ckpt_every, 3);
    assert_true(c->resume && c->quiet && c->bench);
    assert_int_equal(c->top, 7);
    assert_string_equal(c->weights, wpath);
    assert_memory_equal(&c->start, &start, sizeof start);
    expect_options(c, &(LoadOptions){2, 900, 5, true, false, 0.25, 42, 12, NULL, false, false},
                   &(TrainOptions){9, 64, 2.5, 0.8, 0.99, 1e-8, 4, 42, {0}, 0.5, 0.01, false});
    assert_true(c->K == 0.004 && c->lambda == 0.75);
    assert_string_equal(c->freeze, "material,psqt_king");
    assert_true(term_frozen(c, "material", 1));
    assert_true(term_frozen(c, "psqt_king", 1));
    assert_true(term_frozen(c, "tempo", 0));
    assert_int_equal(c->bench_positions, 5000);
    assert_string_equal(c->match, "m.h5");
    assert_string_equal(c->player, "slow");
    assert_true(c->sprt.elo0 == 1 && c->sprt.elo1 == 3);
    assert_string_equal(c->baseline, "base.h5");
    assert_string_equal(c->baseline_player, "old");
    free(c);
}

static void test_cli_bad_numbers(void **state)
{
    (void)state;
    /* option, value, the whole message */
    static const char *const cases[][3] = {
        {"--lr", "0", "--lr: '0' is out of range (allowed: 1e-06..1e+06)"},
        {"--lr", "2e6", "--lr: '2e6' is out of range (allowed: 1e-06..1e+06)"},
        {"--lr", "0x10", "--lr: '0x10' is not a number (allowed: 1e-06..1e+06)"},
        {"--lr", " 1", "--lr: ' 1' is not a number (allowed: 1e-06..1e+06)"},
        {"--K", "abc", "--K: 'abc' is not a number (allowed: 1e-06..10)"},
        {"--K", "0", "--K: '0' is out of range (allowed: 1e-06..10)"},
        {"--lambda", "nan", "--lambda: 'nan' is not a number (allowed: 0..1)"},
        {"--lambda", "2", "--lambda: '2' is out of range (allowed: 0..1)"},
        {"--valid-frac", "0.95", "--valid-frac: '0.95' is out of range (allowed: 0..0.9)"},
        {"--valid-frac", "1", "--valid-frac: '1' is out of range (allowed: 0..0.9)"},
        {"--beta1", "1", "--beta1: '1' is out of range (allowed: 0..0.999999)"},
        {"--beta2", "1", "--beta2: '1' is out of range (allowed: 0..0.999999)"},
        {"--epochs", "-1", "--epochs: '-1' is out of range (allowed: 0..100000000)"},
        {"--patience", "", "--patience: '' is not a whole number (allowed: 0..100000000)"},
        {"--top", "12x", "--top: '12x' is not a whole number (allowed: 0..100000)"},
        {"--max-score", "40000", "--max-score: '40000' is out of range (allowed: 0..32767)"},
        {"--max-score", "abc", "--max-score: 'abc' is not a whole number (allowed: 0..32767)"},
        {"--max-score", "-5", "--max-score: '-5' is out of range (allowed: 0..32767)"},
        {"--max-score", "", "--max-score: '' is not a whole number (allowed: 0..32767)"},
        {"--max-score", "99999999999999999999",
         "--max-score: '99999999999999999999' is out of range (allowed: 0..32767)"},
        {"--max-score", "1e3", "--max-score: '1e3' is not a whole number (allowed: 0..32767)"},
        {"--max-score", "100abc",
         "--max-score: '100abc' is not a whole number (allowed: 0..32767)"},
        {"--max-score", " 5", "--max-score: ' 5' is not a whole number (allowed: 0..32767)"},
        {"--skip-plies", "1.5", "--skip-plies: '1.5' is not a whole number (allowed: 0..100000)"},
        {"--per-game", "100001", "--per-game: '100001' is out of range (allowed: 0..100000)"},
        {"--checkpoint-every", "1000001",
         "--checkpoint-every: '1000001' is out of range (allowed: 0..1000000)"},
        {"--seed", "-1", "--seed: '-1' is out of range (allowed: 0..18446744073709551615)"},
        {"--seed", " 1", "--seed: ' 1' is not a whole number (allowed: 0..18446744073709551615)"},
        {"--check", "18446744073709551616",
         "--check: '18446744073709551616' is out of range (allowed: 0..18446744073709551615)"},
        {"--batch", "x", "--batch: 'x' is not a whole number (allowed: 0..18446744073709551615)"},
        {"--bench-positions", "0",
         "--bench-positions: '0' is out of range (allowed: 1..18446744073709551615)"},
    };
    Cli *c = malloc(sizeof *c);
    CliError err;
    assert_non_null(c);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *words[] = {cases[i][0], cases[i][1], "run.h5", NULL};
        assert_int_equal(parse_words(c, &err, words), CLI_ERROR);
        assert_string_equal(err.msg, cases[i][2]);
    }
    /* the ends of a range are accepted */
    assert_int_equal(
        parse_words(c, &err,
                    (const char *[]){"--lr", "1e6", "--valid-frac", "0.9", "--max-score", "32767",
                                     "--seed", "18446744073709551615", "run.h5", NULL}),
        CLI_RUN);
    assert_int_equal(c->train.seed, UINT64_MAX);
    free(c);
}

static void test_cli_refusals(void **state)
{
    (void)state;
    Cli *c = malloc(sizeof *c);
    CliError err;
    assert_non_null(c);
    /* up to three words, then what the message says */
    static const char *const cases[][4] = {
        {"--bogus", "run.h5", NULL,
         "unknown option '--bogus' (chuhe-tune --help lists the options)"},
        {"run.h5", "--lr", NULL, "--lr: needs a number (allowed: 1e-06..1e+06)"},
        {"--resume=1", "run.h5", NULL, "--resume: takes no value, got '1'"},
        {"--quiet", "--", NULL, "no run files given"},
        {"--freeze", "material,no_such_term", "run.h5",
         "--freeze: unknown term 'no_such_term'; terms: material psqt_king"},
        {"--sprt", "elo0=x", "run.h5", "elo0 must be a number"},
        {"--weights", "/nonexistent/w", "run.h5", "--weights: /nonexistent/w"},
        {"--baseline", "b.h5", "run.h5", "--baseline needs --match-report"},
        {"--baseline-player", "x", "run.h5", "--baseline-player needs --match-report"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *words[] = {cases[i][0], cases[i][1], cases[i][2], NULL};
        assert_int_equal(parse_words(c, &err, words), CLI_ERROR);
        if (!strstr(err.msg, cases[i][3]))
            fail_msg("%s %s: '%s' does not say '%s'", cases[i][0], cases[i][1], err.msg,
                     cases[i][3]);
    }
    assert_int_equal(
        parse_words(c, &err,
                    (const char *[]){"--match-report", "r.h5", "--baseline-player", "old", NULL}),
        CLI_ERROR);
    assert_non_null(strstr(err.msg, "--baseline-player needs --baseline"));
    assert_int_equal(
        parse_words(c, &err,
                    (const char *[]){"--match-report", "r.h5", "--baseline", "b.h5", NULL}),
        CLI_RUN);
    /* --bench and --match-report need no run file; --help and --version stop */
    assert_int_equal(parse_words(c, &err, (const char *[]){"--bench", NULL}), CLI_RUN);
    assert_int_equal(parse_words(c, &err, (const char *[]){"--match-report", "r.h5", NULL}),
                     CLI_RUN);
    assert_int_equal(parse_words(c, &err, (const char *[]){"--help", NULL}), CLI_DONE);
    assert_int_equal(parse_words(c, &err, (const char *[]){"-V", NULL}), CLI_DONE);
    free(c);
}

static void test_cli_usage_lists_every_option(void **state)
{
    (void)state;
    static const char *const names[] = {"-o, --out FILE",
                                        "--log FILE",
                                        "--plot FILE",
                                        "--checkpoint FILE",
                                        "--checkpoint-every N",
                                        "--resume",
                                        "--force",
                                        "--dry-run",
                                        "--top N",
                                        "-q, --quiet",
                                        "--weights FILE",
                                        "--skip-plies N",
                                        "--max-score CP",
                                        "--per-game N",
                                        "--qresolve",
                                        "--no-dedup",
                                        "--valid-frac F",
                                        "--check N",
                                        "--K X",
                                        "--lambda L",
                                        "--epochs N",
                                        "--batch N",
                                        "--lr X",
                                        "--beta1 X",
                                        "--beta2 X",
                                        "--patience N",
                                        "--freeze T[,T...]",
                                        "--seed N",
                                        "--bench",
                                        "--bench-positions N",
                                        "--match-report FILE",
                                        "--player NAME",
                                        "--sprt K=V[,K=V...]",
                                        "--baseline FILE",
                                        "--baseline-player NAME",
                                        "-h, --help",
                                        "-V, --version"};
    char text[8192];
    FILE *f = fmemopen(text, sizeof text, "w");
    assert_non_null(f);
    cli_usage(f);
    assert_int_equal(fclose(f), 0);
    assert_non_null(strstr(text, "Usage: chuhe-tune [options] RUN.h5"));
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strstr(text, names[i]))
            fail_msg("--help does not list '%s'", names[i]);
    /* and each line fits the terminal */
    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        assert_non_null(end);
        assert_true(end - p <= 100);
        p = end + 1;
    }
}

/* ---- output files ------------------------------------------------------------------------ */

static void touch(const char *name, const char *text)
{
    char path[128];
    path_in_dir(path, sizeof path, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* The files the cases use: run files, starting weights, outputs of an earlier run, a
 * checkpoint and a folder. */
static void make_files(void)
{
    char path[128];
    const char *h5[] = {"run.h5", "other.h5"};
    for (int i = 0; i < 2; i++) {
        path_in_dir(path, sizeof path, h5[i]);
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        assert_true(f >= 0);
        H5Fclose(f);
    }
    WeightsError we;
    path_in_dir(path, sizeof path, "start.weights");
    assert_true(weights_save(path, weights_default(), &we));
    path_in_dir(path, sizeof path, "old.weights");
    assert_true(weights_save(path, weights_default(), &we));
    touch("old.weights.tsv", "epoch\ttrain_loss\tvalid_loss\tseconds\n");
    touch("old.weights.png", "");
    touch("text.ckpt", "not a checkpoint\n");
    TrainOptions o;
    train_options_default(&o);
    double w0[2 * EVAL_PARAM_NB] = {0};
    TrainState *s = train_new(&o, w0, 0.01, 10, 0);
    char err[256];
    path_in_dir(path, sizeof path, "old.weights.ckpt");
    assert_true(train_save(path, s, "cfg", 1, err, sizeof err));
    train_free(&s);
    path_in_dir(path, sizeof path, "sub");
    assert_int_equal(mkdir(path, 0755), 0);
}

/*
 * One command line (words starting with '@' name files in the test folder) and what
 * cli_check_outputs says: NULL when it accepts the outputs, else a part of its message.
 */
static void expect_outputs(const char *const *words, const char *want)
{
    char buf[16][128];
    const char *argv[17];
    int n = 0;
    for (; words[n]; n++) {
        if (words[n][0] == '@') {
            path_in_dir(buf[n], sizeof buf[n], words[n] + 1);
            argv[n] = buf[n];
        } else {
            argv[n] = words[n];
        }
    }
    argv[n] = NULL;
    Cli *c = malloc(sizeof *c);
    CliError err;
    assert_non_null(c);
    if (parse_words(c, &err, argv) != CLI_RUN)
        fail_msg("%s: %s", words[0], err.msg);
    err.msg[0] = '\0';
    bool ok = cli_check_outputs(c, &err);
    if (!want && !ok)
        fail_msg("%s %s: refused: %s", words[1], words[2], err.msg);
    if (want && (ok || !strstr(err.msg, want)))
        fail_msg("%s %s: '%s' does not say '%s'", words[1], words[2], ok ? "(accepted)" : err.msg,
                 want);
    free(c);
}

#define CASE(want, ...) expect_outputs((const char *const[]){__VA_ARGS__, NULL}, want)

static void test_cli_check_outputs(void **state)
{
    (void)state;
    make_files();
    /* a new output beside the run file */
    CASE(NULL, "@run.h5", "-o", "@new.weights");
    /* never over an input, whatever option names it */
    CASE("-o ", "@run.h5", "-o", "@run.h5");
    CASE("is also an input of this command", "@run.h5", "-o", "@run.h5");
    CASE("--log ", "@run.h5", "-o", "@new.weights", "--log", "@run.h5");
    CASE("--plot ", "@run.h5", "-o", "@new.weights", "--plot", "@run.h5");
    CASE("--checkpoint ", "@run.h5", "-o", "@new.weights", "--checkpoint", "@run.h5");
    CASE("is also an input", "@run.h5", "--weights", "@start.weights", "-o", "@start.weights");
    CASE("is also an input", "@run.h5", "--force", "--weights", "@start.weights", "-o",
         "@start.weights");
    /* never over an HDF5 file, even with --force */
    CASE("is an HDF5 run file", "@run.h5", "--force", "-o", "@other.h5");
    /* a folder, a missing folder, a device: at once */
    CASE("is a folder", "@run.h5", "-o", "@sub");
    CASE("the folder does not exist", "@run.h5", "-o", "@missing/x.weights");
    CASE("not a regular file", "@run.h5", "-o", "/dev/null");
    /* an existing output only with --force */
    CASE("-o ", "@run.h5", "-o", "@old.weights", "--checkpoint-every", "0");
    CASE("give --force", "@run.h5", "-o", "@old.weights", "--checkpoint-every", "0");
    CASE("--log ", "@run.h5", "-o", "@new.weights", "--log", "@old.weights.tsv");
    CASE("--plot ", "@run.h5", "-o", "@new.weights", "--plot", "@old.weights.png");
    CASE(NULL, "@run.h5", "-o", "@old.weights", "--force");
    /* two outputs, or one and another's temporary file, are one file */
    CASE("--log ", "@run.h5", "-o", "@a.weights", "--log", "@a.weights");
    CASE("-o writes it too", "@run.h5", "-o", "@a.weights", "--plot", "@a.weights");
    CASE("(as its temporary file)", "@run.h5", "-o", "@a.weights", "--plot", "@a.weights.tmp");
    /* an existing checkpoint: --resume goes on from it, --force starts afresh over it */
    CASE("give --resume to go on from it", "@run.h5", "-o", "@x.weights", "--checkpoint",
         "@old.weights.ckpt");
    CASE(NULL, "@run.h5", "-o", "@x.weights", "--checkpoint", "@old.weights.ckpt", "--force");
    CASE(NULL, "@run.h5", "-o", "@x.weights", "--checkpoint", "@old.weights.ckpt",
         "--checkpoint-every", "0");
    /* --resume rewrites its checkpoint and the TSV; the weights and plot need --force */
    CASE(NULL, "@run.h5", "-o", "@x.weights", "--log", "@old.weights.tsv", "--checkpoint",
         "@old.weights.ckpt", "--resume");
    CASE("-o ", "@run.h5", "-o", "@old.weights", "--resume");
    CASE(NULL, "@run.h5", "-o", "@old.weights", "--resume", "--force");
    CASE("--resume: ", "@run.h5", "-o", "@new.weights", "--resume");
    CASE("No such file", "@run.h5", "-o", "@new.weights", "--resume");
    CASE("not a chuhe-tune checkpoint", "@run.h5", "-o", "@new.weights", "--checkpoint",
         "@text.ckpt", "--resume");
    /* the checkpoint --resume reads is still no other output or input */
    CASE("is also an input", "@run.h5", "-o", "@old.weights.ckpt", "--checkpoint",
         "@old.weights.ckpt", "--resume", "--force");
    CASE("is an HDF5 run file", "@run.h5", "-o", "@x.weights", "--checkpoint", "@other.h5",
         "--resume");
}

/* ---- set-up ------------------------------------------------------------------------------ */

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/chuhe-tune-cli-XXXXXX");
    if (!mkdtemp(g_dir))
        return -1;
    position_init();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* chuhe-train shares a node's positions among its ranks unless --no-balance; chuhe-tune
 * has no such option. chuhe-train's target is the searched score alone by default. */
static void test_cli_train_balance(void **state)
{
    (void)state;
    Cli *c = malloc(sizeof *c);
    CliError err;
    assert_non_null(c);
    char *on[] = {"chuhe-train", "run.h5", NULL},
         *off[] = {"chuhe-train", "--no-balance", "run.h5", NULL};
    assert_int_equal(cli_parse_program(c, CLI_TRAIN, 2, on, false, &err), CLI_RUN);
    assert_true(c->balance);
    /* (the Texel tuner's default stays 0.9: test_cli_defaults) */
    assert_true(c->net.lambda == 1.0);
    assert_int_equal(cli_parse_program(c, CLI_TRAIN, 3, off, false, &err), CLI_RUN);
    assert_false(c->balance);
    assert_int_equal(c->nfiles, 1);
    char *tune[] = {"chuhe-tune", "--no-balance", "run.h5", NULL};
    assert_int_equal(cli_parse_program(c, CLI_TUNE, 3, tune, false, &err), CLI_ERROR);
    assert_non_null(strstr(err.msg, "--no-balance"));
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_defaults),
        cmocka_unit_test(test_cli_every_option),
        cmocka_unit_test(test_cli_bad_numbers),
        cmocka_unit_test(test_cli_refusals),
        cmocka_unit_test(test_cli_usage_lists_every_option),
        cmocka_unit_test(test_cli_check_outputs),
        cmocka_unit_test(test_cli_train_balance),
    };
    return cmocka_run_group_tests_name("tune_cli", tests, setup, teardown);
}
