/*
 * bin/chuhe-train: trains the engine's network (engine/nnue.h) on the positions of run
 * files, in one process or on many MPI ranks, and writes a network file the engine
 * loads. `chuhe-train --help` lists the options; docs/nnue.md explains them.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "error.h"
#include "comm_mpi.h"
#include "loader.h"
#include "meter.h"
#include "model.h"
#include "netdata.h"
#include "netexport.h"
#include "netshare.h"
#include "nettrain.h"
#include "position.h"
#include "report.h"
#include "rng.h"
#include "session.h"

#define PROG "chuhe-train"

static Comm *g_comm;

/* Rank 0 reports; every rank leaves. For errors all ranks agree on. */
#define fail_all(...) comm_fail(g_comm, PROG, __VA_ARGS__)

/* What a training run holds; freed by run_train whatever happens. */
typedef struct {
    NetSet train, valid;
    NetSink sink;
    LoadStats st;
    uint64_t data_hash;
    char config[1024];
    NetTrain *t;
    uint32_t *perm;
    NetShare *share;
} Run;

/* A collective (the shared positions). */
static void run_free(Run *run)
{
    netshare_free(g_comm, &run->share);
    nettrain_free(&run->t);
    free(run->perm);
    free(run->sink.sample);
    netdata_free(&run->train);
    netdata_free(&run->valid);
}

/* Writes a checkpoint of state (a SessionSave). */
static bool save(const char *path, const void *state, const char *config, uint64_t data_hash,
                 char *err, size_t size)
{
    return nettrain_save(path, state, config, data_hash, err, size);
}

/* Every setting a resumed run must share with the run it resumes. */
static void config_text(const Cli *c, char *buf, size_t size)
{
    const NetTrainOptions *o = &c->net;
    char k[32] = "fit";
    if (c->K > 0)
        snprintf(k, sizeof k, "%.17g", c->K);
    snprintf(buf, size,
             "hidden=%d buckets=%d scale=%d skip-plies=%d max-score=%d per-game=%d qresolve=%d "
             "keep-in-check=%d keep-captures=%d dedup=%d valid-frac=%.17g seed=%" PRIu64
             " K=%s lambda=%.17g batch=%" PRIu64 " lr=%.17g lr-drop=%.17g lr-step=%d "
             "beta1=%.17g beta2=%.17g",
             o->hidden, o->buckets, o->scale, c->load.skip_plies, c->load.max_score,
             c->load.per_game, c->load.qresolve, c->load.keep_in_check, c->load.keep_captures,
             c->load.dedup, c->load.valid_frac, c->train.seed, k, o->lambda, o->batch, o->lr,
             o->lr_drop, o->lr_step, o->beta1, o->beta2);
    /* only with --init, so that checkpoints written before the option still resume */
    if (c->init) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, " init=%s", c->init_id);
    }
}

/* Reads and selects the positions (this rank's shard) and prints what was kept. */
static int load_positions(Cli *c, Run *run, int sample_max)
{
    run->sink = (NetSink){{&run->train, &run->valid}, NULL, 0, sample_max};
    if (sample_max)
        run->sink.sample = malloc((size_t)sample_max * sizeof *run->sink.sample);
    if (!comm_all_ok(g_comm, !sample_max || run->sink.sample))
        return fail_all("out of memory");
    LoadSink sink = netdata_sink(&run->sink);
    LoadError err;
    double t0 = meter_wall(), rss0 = meter_resident();
    if (!load_runfiles_into(g_comm, c->files, c->nfiles, &c->load, &sink, &run->st, &err))
        return fail_all("%s", err.msg);
    double bytes[2] = {(double)(netdata_bytes(&run->train) + netdata_bytes(&run->valid)),
                       meter_resident() - rss0};
    uint64_t sums[2] = {netdata_hash(&run->train), netdata_hash(&run->valid)};
    if (!comm_sum_u64(g_comm, sums, 2) || !comm_sum_f64(g_comm, bytes, 2))
        return fail_all("MPI: a collective failed");
    run->data_hash = sums[0] ^ rng_mix(sums[1] + 1);
    config_text(c, run->config, sizeof run->config);
    if (g_comm->rank == 0) {
        const LoadStats *s = &run->st;
        double n = (double)(s->train + s->valid);
        report_load_stats(stdout, &c->load, s);
        printf("loaded in %.2f s: %.1f pieces, %.1f bytes in the sets and %.1f bytes of "
               "resident memory per position\n",
               meter_wall() - t0, n > 0 ? (double)s->entries / n : 0.0, n > 0 ? bytes[0] / n : 0.0,
               n > 0 ? bytes[1] / n : 0.0);
    }
    if (run->st.train == 0)
        return fail_all("no training positions left after selection (%" PRIu64
                        " positions read, %" PRIu64 " kept for validation): give more games, "
                        "or keep more with a lower --skip-plies or --valid-frac, --max-score 0",
                        run->st.rows, run->st.valid);
    return 0;
}

/* K, given or fitted: the least-squares fit of sigmoid(K * score) to the results, over
 * every position on every rank (model_fit_k_values); 0 when it fails. */
static double choose_k(const Cli *c, const Run *run)
{
    if (c->K > 0) {
        if (g_comm->rank == 0)
            printf("K = %.8g (given)\n", c->K);
        return c->K;
    }
    uint64_t n = run->train.n + run->valid.n, j = 0;
    float *ev = malloc((n ? n : 1) * sizeof *ev), *res = malloc((n ? n : 1) * sizeof *res);
    double K = 0;
    if (comm_all_ok(g_comm, ev && res)) {
        const NetSet *sets[2] = {&run->train, &run->valid};
        for (int s = 0; s < 2; s++)
            for (uint64_t i = 0; i < sets[s]->n; i++, j++) {
                ev[j] = sets[s]->score[i];
                res[j] = (float)((sets[s]->result[i] + 1) / 2.0);
            }
        K = model_fit_k_values(g_comm, ev, res, n);
    }
    free(ev);
    free(res);
    if (K > 0 && g_comm->rank == 0)
        printf("K = %.8g (fitted: least squares of sigmoid(K * score) against the results, "
               "%" PRIu64 " positions)\n",
               K, run->st.train + run->st.valid);
    return K;
}

/* On 2 or more ranks (unless --no-balance) the ranks of each node share their training
 * positions and split every step as they go (netshare.h). */
static int share_positions(const Cli *c, Run *run)
{
    if (!c->balance || g_comm->size == 1)
        return 0;
    run->share = netshare_new(g_comm, &run->train, nettrain_batches(&c->net, run->t->ntrain));
    if (!run->share)
        return fail_all("out of memory for the positions the ranks of a node share "
                        "(--no-balance keeps each rank's to itself)");
    run->t->share = run->share;
    return 0;
}

/* How the steps get their positions: the node's shared set, or each rank's own
 * mini-batch order. */
static int prepare_steps(const Cli *c, Run *run)
{
    int rc = share_positions(c, run);
    if (rc == 0 && !run->share && !session_alloc_order(g_comm, run->train.n, &run->perm))
        return fail_all("out of memory for the mini-batch order");
    return rc;
}

/* --init: t's weights (and best weights) become the network's, on every rank: the
 * network the options named (the weights whose identity the checkpoint records), and
 * the same on every rank (each reads its own copy of the file). */
static int init_from_net(const Cli *c, NetTrain *t)
{
    char root_id[NNUE_WEIGHTS_ID_BYTES], id[NNUE_WEIGHTS_ID_BYTES];
    memcpy(root_id, c->init_id, sizeof root_id);
    if (!comm_bcast(g_comm, root_id, sizeof root_id, 0))
        return fail_all("MPI: a collective failed");
    NnueNet net;
    memset(&net, 0, sizeof net);
    char err[1400] = "";
    bool ok = nnue_net_read(&net, c->init, err, sizeof err);
    if (ok)
        nnue_weights_id(&net, id);
    if (ok && ((int)net.hidden != t->shape.hidden || (int)net.buckets != t->shape.buckets ||
               net.scale != (int32_t)t->shape.scale || strcmp(id, c->init_id)))
        ok =
            error_set(err, sizeof err, "%s: the file changed since the options were read", c->init);
    if (ok && strcmp(id, root_id))
        ok = error_set(err, sizeof err,
                       "%s: rank %d's copy has other weights than rank 0's (weights %s, not %s)",
                       c->init, g_comm->rank, id, root_id);
    if (ok) {
        netexport_dequantise(&t->shape, &net, t->w);
        memcpy(t->best_w, t->w, t->shape.nw * sizeof *t->w);
    }
    nnue_net_free(&net);
    if (!comm_agree(g_comm, ok, err, sizeof err))
        return fail_all("--init: %s", err);
    if (g_comm->rank == 0)
        printf("starting from the weights of %s\n", c->init);
    return 0;
}

/* The state: the checkpoint's with --resume, else new weights (--init's when given). */
static int start_training(Cli *c, Run *run)
{
    if (c->resume) {
        char err[1400] = "";
        run->t = nettrain_load(c->ckpt, run->config, run->data_hash, err, sizeof err);
        if (!comm_agree(g_comm, run->t != NULL, err, sizeof err))
            return fail_all("--resume: %s", err);
        if (g_comm->rank == 0)
            printf("resumed from %s after epoch %d (K = %.8g)\n", c->ckpt, run->t->epoch,
                   run->t->k);
    } else {
        double K = choose_k(c, run);
        if (K <= 0)
            return fail_all("fitting K failed (out of memory or MPI)");
        run->t = nettrain_new(&c->net, c->train.seed, K, run->st.train, run->st.valid);
        if (!comm_all_ok(g_comm, run->t != NULL))
            return fail_all("out of memory");
        int rc = c->init ? init_from_net(c, run->t) : 0;
        if (rc)
            return rc;
    }
    return prepare_steps(c, run);
}

static int run_epochs(Cli *c, Run *run)
{
    bool root = g_comm->rank == 0;
    NetTrain *t = run->t;
    if (root) {
        printf("training %d x %d -> SCReLU -> %d bucket%s (%zu weights) by Adam, batch %" PRIu64
               ", lr %g (x %g every %d epochs), lambda %g\n",
               NNUE_INPUTS, c->net.hidden, c->net.buckets, c->net.buckets == 1 ? "" : "s",
               t->shape.nw, c->net.batch, c->net.lr, c->net.lr_drop, c->net.lr_step, c->net.lambda);
        session_print_history(t->hist, t->nhist);
    }
    double t0 = meter_wall();
    int first = t->epoch;
    while (t->epoch < c->net.epochs) {
        if (!nettrain_epoch(g_comm, &c->net, t, &run->train, &run->valid, run->perm))
            return fail_all("training failed (out of memory or MPI)");
        SessionEpoch e = {.hist = t->hist,
                          .nhist = t->nhist,
                          .epoch = t->epoch,
                          .best_loss = t->best_loss,
                          .best_epoch = t->best_epoch,
                          .epochs = c->net.epochs};
        e.per_epoch = (meter_wall() - t0) / (t->epoch - first);
        e.checkpoint =
            c->ckpt_every && (t->epoch % c->ckpt_every == 0 || t->epoch == c->net.epochs);
        if (!session_epoch_done(g_comm, c, PROG, &e, save, t, run->config, run->data_hash))
            return 1;
    }
    bool ok = nettrain_finish(g_comm, &c->net, t, &run->train, &run->valid);
    return session_epochs_end(g_comm, PROG, ok, t->hist, t->nhist);
}

/* Rank 0 quantises the best weights, compares the engine's evaluation with the float
 * model's on its sample, and writes the network only within the bounds. */
static bool export_net(const Cli *c, const Run *run)
{
    const NetTrain *t = run->t;
    char desc[NNUE_DESCRIPTION_BYTES + 1], err[1400];
    if (c->description)
        snprintf(desc, sizeof desc, "%s", c->description);
    else
        snprintf(desc, sizeof desc, "chuhe-train: %" PRIu64 " positions, epoch %d of %d", t->ntrain,
                 t->best_epoch, t->epoch);
    NnueNet net;
    if (!netexport_quantise(&t->shape, t->best_w, desc, &net, err, sizeof err)) {
        fprintf(stderr, "chuhe-train: %s\n", err);
        return false;
    }
    NetCheck chk;
    bool ok = netexport_compare(&t->shape, t->best_w, &net, run->sink.sample, run->sink.nsample,
                                &chk, err, sizeof err);
    if (!ok) {
        fprintf(stderr, "chuhe-train: export check: %s\n", err);
    } else {
        printf("export check: %d positions, quantised - float: max |diff| %.2f, mean %.3f "
               "(bounds %g and %g)\n",
               chk.n, chk.max_diff, chk.mean_diff, c->max_diff, c->mean_diff);
        fflush(stdout);
        if (chk.n == 0 || chk.max_diff > c->max_diff || chk.mean_diff > c->mean_diff) {
            fprintf(stderr,
                    "chuhe-train: the quantised network does not match the float one within the "
                    "bounds (--max-diff %g, --mean-diff %g) on %d positions: %s not written\n",
                    c->max_diff, c->mean_diff, chk.n, c->out);
            ok = false;
        }
    }
    if (ok && !(ok = nnue_net_write(&net, c->out, err, sizeof err)))
        fprintf(stderr, "chuhe-train: %s\n", err);
    if (ok)
        printf("network: %s (%s)\n", c->out, desc);
    nnue_net_free(&net);
    return ok;
}

/* The best weights, the result-only validation loss (the measure to compare lambdas by),
 * the network, the epoch table and the plot; every rank returns the same status. */
static int write_results(const Cli *c, Run *run)
{
    NetTrain *t = run->t;
    NetLoss vl;
    double vn;
    if (!nettrain_set_loss(g_comm, t, t->best_w, &run->valid, c->net.lambda, &vl, &vn))
        return fail_all("MPI: a collective failed");
    bool ok = true;
    if (g_comm->rank == 0) {
        printf("best: the weights after %d epoch%s, %s loss %.8f", t->best_epoch,
               t->best_epoch == 1 ? "" : "s", t->nvalid ? "validation" : "training", t->best_loss);
        if (vn > 0)
            printf("; validation loss against the results alone %.8f", vl.result_loss / vn);
        printf("\n");
        fflush(stdout);
        ok = export_net(c, run);
        session_write_history(c, PROG, t->hist, t->nhist);
    }
    return comm_all_ok(g_comm, ok) ? 0 : 1;
}

static int run_train(Cli *c)
{
    Run run;
    memset(&run, 0, sizeof run);
    int rc = load_positions(c, &run, g_comm->rank == 0 ? c->export_positions : 0);
    if (rc == 0 && (rc = start_training(c, &run)) == 0 && (rc = run_epochs(c, &run)) == 0)
        rc = write_results(c, &run);
    run_free(&run);
    return rc;
}

/* Trains for --bench-seconds on the files (or synthetic positions) and reports the
 * speed per core of CPU time and the memory per position. */
static int run_bench(Cli *c)
{
    Run run;
    memset(&run, 0, sizeof run);
    const char *what = "positions of the run files";
    double rss0 = meter_resident();
    int rc = 0;
    if (c->nfiles) {
        c->load.valid_frac = 0;
        rc = load_positions(c, &run, 0);
    } else {
        what = "synthetic positions from seeded random games";
        bool ok =
            netdata_synth(&run.train, c->bench_positions, c->train.seed + (uint64_t)g_comm->rank);
        if (!comm_all_ok(g_comm, ok))
            rc = fail_all("out of memory");
        run.st.train = run.train.n;
        if (rc == 0 && !comm_sum_u64(g_comm, &run.st.train, 1))
            rc = fail_all("MPI: a collective failed");
    }
    double rss1 = meter_resident();
    NetTrain *t = NULL;
    if (rc == 0) {
        t = run.t =
            nettrain_new(&c->net, c->train.seed, c->K > 0 ? c->K : 1 / 170.0, run.st.train, 0);
        if (t) { /* each step's computing time, for the ranks' balance */
            t->step_wall_cap = 1 << 16;
            t->step_wall = malloc(2 * t->step_wall_cap * sizeof *t->step_wall);
        }
        if (!comm_all_ok(g_comm, t && t->step_wall))
            rc = fail_all("out of memory");
        else if ((rc = c->init ? init_from_net(c, t) : 0) == 0)
            rc = prepare_steps(c, &run);
    }
    if (rc == 0) {
        /* whole epochs until the time is up; every rank stops with rank 0 */
        double w0 = meter_wall(), c0 = meter_cpu(), go = 1;
        int epochs = 0;
        while (go > 0) {
            if (!nettrain_epoch(g_comm, &c->net, t, &run.train, &run.valid, run.perm))
                break;
            epochs++;
            go = g_comm->rank == 0 && meter_wall() - w0 < c->bench_seconds;
            if (!comm_bcast(g_comm, &go, sizeof go, 0))
                break;
        }
        double wall = meter_wall() - w0, cpu = meter_cpu() - c0;
        double n = (double)run.train.n * epochs;
        double sums[6] = {n,
                          n / cpu,
                          (double)netdata_bytes(&run.train),
                          rss1 - rss0,
                          (double)run.train.n,
                          t->sum_seconds / wall};
        /* with shared steps: the least and most a rank computed, against an even share */
        double computed = run.share ? (double)run.share->computed : 0;
        double share_max[2] = {computed, -computed};
        bool share_ok = !run.share || comm_max_f64(g_comm, share_max, 2);
        /* the balance: each step's computing, summed over the ranks and its slowest rank's
         * (every rank took the same steps) */
        size_t ns = t->nstep_wall;
        double *step_max = t->step_wall + t->step_wall_cap, step_sum = 0, step_slowest = 0;
        memcpy(step_max, t->step_wall, ns * sizeof *step_max);
        bool balance_ok =
            comm_max_f64(g_comm, step_max, ns) && comm_sum_f64(g_comm, t->step_wall, ns);
        for (size_t i = 0; i < ns; i++)
            step_sum += t->step_wall[i], step_slowest += step_max[i];
        /* a step's collectives alone, every rank ready: what they cost on cores nobody
         * else uses (the W1 part's sums, W2's, the gathering of the rounded W1) */
        double sum_once = 0;
        size_t o2 = t->shape.o_w2, nw = t->shape.nw;
        float *probe = netmodel_alloc(nw), *part = netmodel_alloc(o2);
        int16_t *probe_i16 = calloc(o2, sizeof *probe_i16);
        bool ok = comm_all_ok(g_comm, probe && part && probe_i16);
        for (int i = 0; ok && i < 10; i++) {
            ok = comm_all_ok(g_comm, true);
            double t1 = meter_wall();
            ok = ok && comm_sum_part_f32(g_comm, probe, part, o2) &&
                 comm_sum_f32(g_comm, probe + o2, nw - o2) &&
                 comm_gather_parts(g_comm, probe_i16, o2, sizeof *probe_i16);
            /* the fastest of ten: the collectives themselves, without the other jobs'
             * interference */
            if (i == 0 || meter_wall() - t1 < sum_once)
                sum_once = meter_wall() - t1;
        }
        free(probe);
        free(part);
        free(probe_i16);
        /* a step's computing by CPU time, the sums' left out */
        double per_step = (double)c->net.batch / g_comm->size / (n / (cpu - t->sum_cpu));
        if (go > 0 || !ok || !balance_ok || !share_ok || !comm_sum_f64(g_comm, sums, 6))
            rc = fail_all("training failed (out of memory or MPI)");
        else if (g_comm->rank == 0) {
            double np = sums[4] > 0 ? sums[4] : 1;
            printf("train bench: %.0f %s on %d rank%s, H=%d, B=%d, batch %" PRIu64
                   ", %d epochs in %.2f s\n",
                   sums[4], what, g_comm->size, g_comm->size == 1 ? "" : "s", c->net.hidden,
                   c->net.buckets, c->net.batch, epochs, wall);
            printf("memory: %.1f bytes/position in the sets; resident set grew by %.1f "
                   "bytes/position while loading\n",
                   sums[2] / np, sums[3] / np);
            printf("all ranks: %.0f positions/s by wall time; %.1f %% of it in the collectives "
                   "(the gradient sums and the weights' gathering, waiting for the slowest rank "
                   "included)\n",
                   sums[0] / wall, 100 * sums[5] / g_comm->size);
            if (g_comm->size > 1 && ns > 0)
                printf("a step's computing (the pass and the update, by wall time): %.2f ms on "
                       "average over the ranks, %.2f ms on the slowest rank of each step (+%.1f "
                       "%%), over %zu steps\n",
                       1e3 * step_sum / (double)g_comm->size / (double)ns,
                       1e3 * step_slowest / (double)ns,
                       100 * (step_slowest * g_comm->size / step_sum - 1), ns);
            if (run.share)
                printf("shared steps: each rank computed %.2f-%.2f times an even share of the "
                       "positions (the ranks of a node split each step in chunks of %d as they "
                       "go)\n",
                       -share_max[1] / (sums[0] / g_comm->size),
                       share_max[0] / (sums[0] / g_comm->size), NETSHARE_CHUNK);
            else if (g_comm->size > 1)
                printf("shared steps: off (--no-balance): each rank computes its own positions\n");
            if (g_comm->size > 1)
                printf("a step's collectives (%zu weights) with every rank ready: %.2f ms, %.1f %% "
                       "of a step (%.1f ms of CPU time computing on rank 0)\n",
                       t->shape.nw, 1e3 * sum_once, 100 * sum_once / (per_step + sum_once),
                       1e3 * per_step);
            printf("train: %.0f positions/s per core of CPU time (H=%d, B=%d, %d rank%s)\n",
                   sums[1] / g_comm->size, c->net.hidden, c->net.buckets, g_comm->size,
                   g_comm->size == 1 ? "" : "s");
        }
    }
    run_free(&run);
    return rc;
}

/* What chuhe-train does once its options are read. */
static int run(Comm *comm, Cli *c)
{
    g_comm = comm;
    netmodel_init();
    if (c->bench)
        return run_bench(c);
    int rc = session_check_outputs(comm, c, PROG);
    return rc || c->dry_run ? rc : run_train(c);
}

int main(int argc, char **argv)
{
    return comm_mpi_main(argc, argv, CLI_TRAIN, PROG, run);
}
