/*
 * bin/chuhe-tune: fits the evaluation weights to stored positions (Texel tuning), in one
 * process or on many MPI ranks. `chuhe-tune --help` lists the options.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "comm_mpi.h"
#include "loader.h"
#include "match.h"
#include "meter.h"
#include "model.h"
#include "position.h"
#include "report.h"
#include "rng.h"
#include "session.h"
#include "synth.h"
#include "train.h"
#include "weights.h"

#define PROG "chuhe-tune"

static Comm *g_comm; /* for fail_all() only */

/* Rank 0 reports; every rank leaves. For errors all ranks agree on. */
#define fail_all(...) comm_fail(g_comm, PROG, __VA_ARGS__)

static void print_stats(const Cli *c, const LoadStats *s)
{
    if (g_comm->rank)
        return;
    report_load_stats(stdout, &c->load, s);
    if (s->train + s->valid)
        printf("coefficients: %.1f per position\n",
               (double)s->entries / (double)(s->train + s->valid));
    printf("trace check: %" PRIu64 " positions, the linear form equals evaluate()\n", s->checked);
}

/* Every setting a resumed run must share with the run it resumes. */
static void config_text(const Cli *c, char *buf, size_t size)
{
    const Score *w = (const Score *)&c->start;
    uint64_t wh = 0;
    for (int i = 0; i < EVAL_PARAM_NB; i++)
        wh = rng_mix(wh ^ (uint32_t)w[i]);
    uint64_t fh = 0;
    for (int i = 0; i < EVAL_PARAM_NB; i++)
        fh = rng_mix(fh ^ c->train.frozen[i]);
    char k[32];
    if (c->K > 0)
        snprintf(k, sizeof k, "%.17g", c->K);
    else
        snprintf(k, sizeof k, "fit");
    snprintf(buf, size,
             "skip-plies=%d max-score=%d per-game=%d qresolve=%d dedup=%d valid-frac=%.17g "
             "seed=%" PRIu64 " K=%s lambda=%.17g batch=%" PRIu64 " lr=%.17g beta1=%.17g "
             "beta2=%.17g start-weights=%016" PRIx64 " frozen=%016" PRIx64
             " lr-decay=%.17g reg=%.17g symmetric=%d",
             c->load.skip_plies, c->load.max_score, c->load.per_game, c->load.qresolve,
             c->load.dedup, c->load.valid_frac, c->train.seed, k, c->lambda, c->train.batch,
             c->train.lr, c->train.beta1, c->train.beta2, wh, fh, c->train.lr_decay, c->train.reg,
             c->train.symmetric);
}

static int run_bench(Cli *c)
{
    Dataset train, valid;
    dataset_init(&train);
    dataset_init(&valid);
    double rss0 = meter_resident(), t0 = meter_wall();
    const char *what;
    bool ok;
    LoadError err = {{0}};
    if (c->nfiles) {
        LoadStats st;
        c->load.valid_frac = 0;
        ok = load_runfiles(g_comm, c->files, c->nfiles, &c->load, &train, &valid, &st, &err);
        what = "positions of the run files";
    } else {
        ok = synth_positions(&train, c->bench_positions, c->load.seed + (uint64_t)g_comm->rank,
                             &c->start, 1 / 170.0);
        dataset_trim(&train);
        if (!ok)
            snprintf(err.msg, sizeof err.msg, "out of memory");
        ok = comm_agree(g_comm, ok, err.msg, sizeof err.msg);
        what = "synthetic positions from seeded random games";
    }
    if (!ok)
        return fail_all("%s", err.msg);
    double load_s = meter_wall() - t0, rss1 = meter_resident();
    double w[MODEL_NW], *grad = calloc(MODEL_NW, sizeof *grad);
    if (!grad)
        return fail_all("out of memory");
    model_from_params(&c->start, w);
    model_set_labels(&train, 1 / 170.0, c->lambda);

    /* whole passes until a second and a half has gone by, at least three */
    int passes = 0;
    double t1 = meter_wall(), c1 = meter_cpu(), elapsed = 0;
    while (passes < 3 || elapsed < 1.5) {
        model_pass(&train, NULL, 0, w, 1 / 170.0, grad);
        passes++;
        elapsed = meter_wall() - t1;
    }
    double cpu = meter_cpu() - c1;
    double sums[7] = {(double)train.n,
                      (double)train.nent,
                      (double)dataset_bytes(&train),
                      rss1 - rss0,
                      (double)train.n * passes / cpu,
                      load_s,
                      (double)train.n * passes / elapsed};
    free(grad);
    if (!comm_sum_f64(g_comm, sums, 7))
        return fail_all("MPI: a collective failed");
    if (g_comm->rank == 0) {
        double n = sums[0] > 0 ? sums[0] : 1;
        printf("tune bench: %.0f %s on %d rank%s, %.1f coefficients each, loaded in %.2f s\n",
               sums[0], what, g_comm->size, g_comm->size == 1 ? "" : "s", sums[1] / n,
               sums[5] / g_comm->size);
        printf("memory: %.1f bytes/position in the data set (%.0f fixed + 3 per coefficient); "
               "resident set grew by %.1f bytes/position while loading\n",
               sums[2] / n, sums[2] / n - 3 * sums[1] / n, sums[3] / n);
        printf("gradient pass: %.2f M positions/s per rank by CPU time, %.2f M by wall time "
               "(%d passes on rank 0, %.2f s)\n",
               sums[4] / g_comm->size / 1e6, sums[6] / g_comm->size / 1e6, passes, elapsed);
    }
    dataset_free(&train);
    dataset_free(&valid);
    return 0;
}

/* What a tuning run holds; freed by run_tune whatever happens. */
typedef struct {
    Dataset train, valid;
    LoadStats st;
    uint64_t data_hash; /* of the positions on every rank: a checkpoint must match it */
    char config[1024];  /* config_text: a checkpoint must match it too */
    TrainState *s;
    uint32_t *perm;
} Run;

/* Writes a checkpoint of state (a SessionSave). */
static bool save(const char *path, const void *state, const char *config, uint64_t data_hash,
                 char *err, size_t size)
{
    return train_save(path, state, config, data_hash, err, size);
}

/* The weights Adam moves: two for each parameter that is not frozen. */
static int free_weights(const TrainOptions *o)
{
    int n = 0;
    for (int i = 0; i < EVAL_PARAM_NB; i++)
        n += o->frozen[i] ? 0 : 2;
    return n;
}

/* None is an error; fewer training positions than weights to fit is allowed but warned
 * about, as the fit then follows the noise of the few. */
static int check_size(const Cli *c, const LoadStats *s)
{
    if (s->train == 0)
        return fail_all("no training positions left after selection (%" PRIu64
                        " positions read, %" PRIu64 " kept for validation): give more games, "
                        "or keep more with a lower --skip-plies or --valid-frac, --max-score 0, "
                        "--qresolve",
                        s->rows, s->valid);
    int nw = free_weights(&c->train);
    if (g_comm->rank == 0 && s->train < (uint64_t)nw)
        fprintf(stderr,
                "chuhe-tune: warning: %" PRIu64 " training position%s for %d weights to fit: "
                "too few, the fit follows their noise (reasonable: at least one per weight, "
                "better ten, %d; give more games or --freeze terms)\n",
                s->train, s->train == 1 ? "" : "s", nw, 10 * nw);
    return 0;
}

/* Reads and selects the positions and prints what was kept. */
static int load_positions(Cli *c, Run *run)
{
    Dataset *train = &run->train, *valid = &run->valid;
    LoadError lerr;
    double t_load = meter_wall();
    if (!load_runfiles(g_comm, c->files, c->nfiles, &c->load, train, valid, &run->st, &lerr))
        return fail_all("%s", lerr.msg);
    print_stats(c, &run->st);
    if (check_size(c, &run->st) != 0)
        return 1;
    uint64_t sums[2] = {dataset_hash(train), dataset_hash(valid)};
    if (!comm_sum_u64(g_comm, sums, 2))
        return fail_all("MPI: a collective failed");
    run->data_hash = sums[0] ^ rng_mix(sums[1] + 1);
    if (g_comm->rank == 0)
        printf("loaded in %.2f s, %.1f bytes per position on rank 0\n", meter_wall() - t_load,
               train->n + valid->n ? (double)(dataset_bytes(train) + dataset_bytes(valid)) /
                                         (double)(train->n + valid->n)
                                   : 0.0);
    config_text(c, run->config, sizeof run->config);
    return 0;
}

/* K, given or fitted to the results; 0 when fitting fails. */
static double choose_k(const Cli *c, Run *run, const double *w0)
{
    bool root = g_comm->rank == 0;
    if (c->K > 0) {
        if (root)
            printf("K = %.8g (given)\n", c->K);
        return c->K;
    }
    const Dataset *sets[2] = {&run->train, &run->valid};
    double K = model_fit_k(g_comm, sets, 2, w0);
    if (K <= 0)
        return 0;
    if (root)
        printf("K = %.8g (fitted: least squares of sigmoid(K * eval) against the "
               "results, %" PRIu64 " positions)\n",
               K, run->st.train + run->st.valid);
    if (root && (K < 2e-5 || K > 0.5))
        fprintf(stderr,
                "chuhe-tune: warning: K = %g is at the end of the range "
                "searched (1e-5 .. 1): the results hardly depend on the evaluation "
                "(all draws?); consider --K or --lambda 1\n",
                K);
    return K;
}

/* The optimiser: the checkpoint's with --resume, else a new one; then the labels and the
 * mini-batch order. */
static int start_training(Cli *c, Run *run)
{
    TrainState *s;
    if (c->resume) {
        char err[1400] = "";
        s = run->s = train_load(c->ckpt, run->config, run->data_hash, err, sizeof err);
        if (!comm_agree(g_comm, s != NULL, err, sizeof err))
            return fail_all("--resume: %s", err);
        if (g_comm->rank == 0)
            printf("resumed from %s after epoch %d (K = %.8g)\n", c->ckpt, s->epoch, s->K);
    } else {
        double w0[MODEL_NW];
        model_from_params(&c->start, w0);
        double K = choose_k(c, run, w0);
        if (K <= 0)
            return fail_all("fitting K failed (out of memory or MPI)");
        s = run->s = train_new(&c->train, w0, K, run->st.train, run->st.valid);
        if (!comm_all_ok(g_comm, s != NULL))
            return fail_all("out of memory");
    }
    model_set_labels(&run->train, s->K, c->lambda);
    model_set_labels(&run->valid, s->K, c->lambda);
    if (c->train.batch && !session_alloc_order(g_comm, run->train.n, &run->perm))
        return fail_all("out of memory for the mini-batch order");
    return 0;
}

/* The epochs, with a checkpoint after each one that --checkpoint-every asks for. */
static int run_epochs(Cli *c, Run *run)
{
    bool root = g_comm->rank == 0;
    TrainState *s = run->s;
    if (root) {
        printf("fitting %d weights (%d parameters x midgame, endgame) by Adam, %s, lr %g\n",
               MODEL_NW, EVAL_PARAM_NB, c->train.batch ? "mini-batches" : "full batch",
               c->train.lr);
        session_print_history(s->hist, s->nhist);
    }
    double t0 = meter_wall();
    int first_epoch = s->epoch;
    bool ok = true;
    while (ok && !s->stopped && s->epoch < c->train.epochs) {
        ok = train_epoch(g_comm, &c->train, s, &run->train, &run->valid, run->perm);
        if (!ok)
            break;
        SessionEpoch e = {.hist = s->hist,
                          .nhist = s->nhist,
                          .epoch = s->epoch,
                          .best_loss = s->best_loss,
                          .best_epoch = s->best_epoch,
                          .epochs = c->train.epochs};
        e.per_epoch = (meter_wall() - t0) / (s->epoch - first_epoch);
        e.checkpoint = c->ckpt_every &&
                       (s->epoch % c->ckpt_every == 0 || s->stopped || s->epoch == c->train.epochs);
        if (!session_epoch_done(g_comm, c, PROG, &e, save, s, run->config, run->data_hash))
            return 1;
    }
    ok = ok && train_finish(g_comm, s, &run->train, &run->valid);
    return session_epochs_end(g_comm, PROG, ok, s->hist, s->nhist);
}

/* Rank 0 writes the best weights, the epoch table and the plot, and lists the parameters
 * that moved most; every rank returns the same status. */
static int write_results(const Cli *c, const Run *run)
{
    const TrainState *s = run->s;
    const char *loss = run->st.valid ? "validation" : "training";
    bool ok = true;
    if (g_comm->rank == 0) {
        if (s->stopped)
            printf("early stop: no better %s loss for %d epochs\n", loss, c->train.patience);
        printf("best: the weights after %d epoch%s, %s loss %.8f\n", s->best_epoch,
               s->best_epoch == 1 ? "" : "s", loss, s->best_loss);
        EvalParams tuned;
        model_to_params(s->best_w, &tuned);
        WeightsError we;
        if (!weights_save(c->out, &tuned, &we)) {
            fprintf(stderr, "chuhe-tune: %s\n", we.msg);
            ok = false;
        } else {
            printf("weights: %s\n", c->out);
        }
        session_write_history(c, PROG, s->hist, s->nhist);
        report_moved(stdout, s->w0, s->best_w, c->top);
    }
    return comm_all_ok(g_comm, ok) ? 0 : 1;
}

static int run_tune(Cli *c)
{
    Run run;
    memset(&run, 0, sizeof run);
    dataset_init(&run.train);
    dataset_init(&run.valid);
    int rc = load_positions(c, &run);
    if (rc == 0 && (rc = start_training(c, &run)) == 0 && (rc = run_epochs(c, &run)) == 0)
        rc = write_results(c, &run);
    train_free(&run.s);
    free(run.perm);
    dataset_free(&run.train);
    dataset_free(&run.valid);
    return rc;
}

/* What chuhe-tune does once its options are read. */
static int run(Comm *comm, Cli *c)
{
    g_comm = comm;
    if (c->dry_run)
        return c->match || c->bench ? 0 : session_check_outputs(comm, c, PROG);
    if (c->match)
        return comm->rank == 0 ? match_report(c->match, c->player, &c->sprt, c->baseline,
                                              c->baseline_player, stdout, stderr)
                               : 0;
    if (c->bench)
        return run_bench(c);
    int rc = session_check_outputs(comm, c, PROG);
    return rc ? rc : run_tune(c);
}

int main(int argc, char **argv)
{
    return comm_mpi_main(argc, argv, CLI_TUNE, PROG, run);
}
