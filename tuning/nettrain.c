#include "nettrain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ckptio.h"
#include "error.h"
#include "meter.h"
#include "rng.h"

/* The defaults: docs/nnue.md, "Training", says how they were chosen. */
void nettrain_options_default(NetTrainOptions *o)
{
    memset(o, 0, sizeof *o);
    o->hidden = 256;
    o->buckets = 1;
    o->scale = NNUE_SCALE_DEFAULT;
    o->epochs = 30;
    o->batch = 16384;
    o->lr = 1e-3;
    o->lr_drop = 0.3;
    o->lr_step = 10;
    o->beta1 = 0.9;
    o->beta2 = 0.999;
    o->eps = 1e-8;
    o->lambda = 1.0;
}

NetTrain *nettrain_new(const NetTrainOptions *o, uint64_t seed, double k, uint64_t ntrain,
                       uint64_t nvalid)
{
    NetTrain *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (!netmodel_shape(&t->shape, o->hidden, o->buckets, o->scale)) {
        free(t);
        return NULL;
    }
    size_t nw = t->shape.nw;
    t->w = netmodel_alloc(nw);
    t->m = netmodel_alloc(nw);
    t->v = netmodel_alloc(nw);
    t->best_w = netmodel_alloc(nw);
    if (!t->w || !t->m || !t->v || !t->best_w) {
        nettrain_free(&t);
        return NULL;
    }
    netmodel_init_weights(&t->shape, t->w, seed);
    memcpy(t->best_w, t->w, nw * sizeof *t->w);
    t->k = k;
    t->ntrain = ntrain;
    t->nvalid = nvalid;
    t->rng = rng_mix(seed ^ 0x6e657474726e6eULL);
    t->best_loss = INFINITY;
    t->best_epoch = -1;
    return t;
}

void nettrain_free(NetTrain **t)
{
    if (*t) {
        free((*t)->w);
        free((*t)->m);
        free((*t)->v);
        free((*t)->best_w);
        free((*t)->hist);
        free((*t)->step_wall);
        free(*t);
        *t = NULL;
    }
}

/* The step size of the epoch under way: it depends on the epoch only, so a resumed run
 * takes the steps it would have taken. */
static double step_size(const NetTrainOptions *o, const NetTrain *t)
{
    return o->lr * pow(o->lr_drop, (double)(t->epoch / o->lr_step));
}

/* Adam's update of n weights, vectorised: v is never negative, so sqrtf needs no errno
 * (which would keep it scalar). */
NETMODEL_CLONES __attribute__((optimize("no-math-errno"))) static void
adam_update(size_t n, float *restrict w, float *restrict m, float *restrict v,
            const float *restrict g, float inv, float b1, float b2, float c1, float c2, float eps)
{
    for (size_t j = 0; j < n; j++) {
        float gj = g[j] * inv;
        m[j] = b1 * m[j] + (1 - b1) * gj;
        v[j] = b2 * v[j] + (1 - b2) * gj * gj;
        w[j] -= c1 * m[j] / (sqrtf(v[j] * c2) + eps);
    }
}

/* adam_update of n W1 or b1 weights with the clip and the rounding onto the engine's
 * grid (q) in the same pass: one sweep of memory a step instead of three. */
NETMODEL_CLONES __attribute__((optimize("no-math-errno"))) static void
adam_update_w1(size_t n, float *restrict w, float *restrict m, float *restrict v,
               const float *restrict g, int16_t *restrict q, float inv, float b1, float b2,
               float c1, float c2, float eps)
{
    for (size_t j = 0; j < n; j++) {
        float gj = g[j] * inv;
        m[j] = b1 * m[j] + (1 - b1) * gj;
        v[j] = b2 * v[j] + (1 - b2) * gj * gj;
        float x = netmodel_clip_weight(w[j] - c1 * m[j] / (sqrtf(v[j] * c2) + eps));
        w[j] = x;
        q[j] = netmodel_round_w1(x);
    }
}

/* Adam's constants for the next step (t->step is advanced). */
typedef struct {
    float inv, b1, b2, c1, c2, eps;
} AdamStep;

static AdamStep adam_begin(const NetTrainOptions *o, NetTrain *t, double count)
{
    t->step++;
    double lr = step_size(o, t);
    return (AdamStep){(float)(1 / count),
                      (float)o->beta1,
                      (float)o->beta2,
                      (float)(lr / (1 - pow(o->beta1, (double)t->step))),
                      (float)(1 / (1 - pow(o->beta2, (double)t->step))),
                      (float)o->eps};
}

/*
 * One step on the summed gradient of count positions, each rank updating its own part
 * of W1 and b1 (gpart: the sums of that part) and all of W2 and b2 (g, from o_w2 on),
 * then the clip, and the new weights onto sc's grid (the caller gathers the other
 * ranks' parts of it). A rank's float weights and Adam moments outside its part are
 * left as they were (gather_state makes them whole again).
 */
static void adam_step(Comm *comm, const NetTrainOptions *o, NetTrain *t, NetScratch *sc,
                      const float *gpart, const float *g, double count)
{
    const NetShape *s = &t->shape;
    AdamStep a = adam_begin(o, t, count);
    size_t lo = comm_part(s->o_w2, comm->size, comm->rank);
    size_t hi = comm_part(s->o_w2, comm->size, comm->rank + 1);
    adam_update_w1(hi - lo, t->w + lo, t->m + lo, t->v + lo, gpart, netmodel_rounded_w1(sc) + lo,
                   a.inv, a.b1, a.b2, a.c1, a.c2, a.eps);
    size_t o2 = s->o_w2;
    adam_update(s->nw - o2, t->w + o2, t->m + o2, t->v + o2, g + o2, a.inv, a.b1, a.b2, a.c1, a.c2,
                a.eps);
    for (size_t i = o2; i < s->o_b2; i++)
        t->w[i] = netmodel_clip_weight(t->w[i]);
    netmodel_round(s, sc, t->w, o2, s->nw);
}

/* Every rank's part of the float weights and of both moments to every rank. */
static bool gather_state(Comm *comm, NetTrain *t)
{
    size_t n = t->shape.o_w2;
    return comm_gather_parts(comm, t->w, n, sizeof *t->w) &&
           comm_gather_parts(comm, t->m, n, sizeof *t->m) &&
           comm_gather_parts(comm, t->v, n, sizeof *t->v);
}

bool nettrain_set_loss(Comm *comm, const NetTrain *t, const float *w, const NetSet *d,
                       double lambda, NetLoss *sum, double *count)
{
    NetScratch *sc = netmodel_scratch_new(&t->shape);
    if (!comm_all_ok(comm, sc != NULL))
        return false;
    NetLoss L = netmodel_pass(&t->shape, sc, d, NULL, 0, w, t->k, lambda, NULL);
    netmodel_scratch_free(&sc);
    double buf[3] = {L.loss, L.result_loss, (double)d->n};
    if (!comm_sum_f64(comm, buf, 3))
        return false;
    sum->loss = buf[0];
    sum->result_loss = buf[1];
    *count = buf[2];
    return true;
}

/* The mean loss of a set (NaN when it is empty on every rank). */
static bool mean_loss(Comm *comm, const NetTrain *t, const float *w, const NetSet *d, double lambda,
                      double *out)
{
    NetLoss sum;
    double count;
    if (!nettrain_set_loss(comm, t, w, d, lambda, &sum, &count))
        return false;
    *out = count > 0 ? sum.loss / count : NAN;
    return true;
}

/* A new row of the history; the best weights follow the validation loss (the training
 * loss without a validation set). */
static bool record_row(NetTrain *t, const EpochRow *row, const float *w)
{
    double metric = t->nvalid ? row->valid_loss : row->train_loss;
    if (metric < t->best_loss) {
        t->best_loss = metric;
        t->best_epoch = row->epoch;
        memcpy(t->best_w, w, t->shape.nw * sizeof *w);
    }
    return train_history_push(&t->hist, &t->nhist, &t->hist_cap, row);
}

uint64_t nettrain_batches(const NetTrainOptions *o, uint64_t ntrain)
{
    uint64_t nb = o->batch ? (ntrain + o->batch - 1) / o->batch : 1;
    return nb < 1 ? 1 : nb;
}

bool nettrain_epoch(Comm *comm, const NetTrainOptions *o, NetTrain *t, const NetSet *train,
                    const NetSet *valid, uint32_t *perm)
{
    double t0 = meter_wall();
    EpochRow row = {t->epoch, NAN, NAN, t->last_seconds};
    size_t nw = t->shape.nw;
    float *start_w = netmodel_alloc(nw), *grad = netmodel_alloc(nw);
    uint64_t nb = nettrain_batches(o, t->ntrain);
    NetShare *share = t->share;
    uint64_t *off = share ? share->off[share->me] : malloc((nb + 1) * sizeof *off);
    if (share)
        perm = share->perm[share->me];
    size_t o2 = t->shape.o_w2;
    float *gpart = netmodel_alloc(comm_part(o2, comm->size, comm->rank + 1) -
                                  comm_part(o2, comm->size, comm->rank));
    NetScratch *sc = netmodel_scratch_new(&t->shape);
    bool ok = comm_all_ok(comm, start_w && grad && off && sc && gpart);
    if (ok) {
        memcpy(start_w, t->w, nw * sizeof *start_w);
        ok = mean_loss(comm, t, t->w, valid, o->lambda, &row.valid_loss);
    }
    if (ok) {
        train_group_batches(train->uid, train->n, nb, rng_next(&t->rng), perm, off);
        netmodel_round(&t->shape, sc, t->w, 0, nw);
        ok = !share || comm_all_ok(comm, netshare_epoch_begin(comm, share));
    }
    double loss_sum = 0, count_sum = 0;
    for (uint64_t b = 0; ok && b < nb; b++) {
        double s0 = meter_wall();
        memset(grad, 0, nw * sizeof *grad);
        uint64_t count = off[b + 1] - off[b];
        NetLoss L = share ? netshare_step(share, b, &t->shape, sc, t->k, o->lambda, grad, &count)
                          : netmodel_pass_rounded(&t->shape, sc, train, perm + off[b], count, t->k,
                                                  o->lambda, grad);
        double sums[2] = {L.loss, (double)count};
        double t1 = meter_wall(), c1 = meter_cpu(), computing = t1 - s0;
        /* the W1 and b1 sums of this rank's part only; W2 and b2 whole (small) */
        ok = comm_sum_part_f32(comm, grad, gpart, o2) && comm_sum_f32(comm, grad + o2, nw - o2) &&
             comm_sum_f64(comm, sums, 2);
        t->sum_seconds += meter_wall() - t1;
        t->sum_cpu += meter_cpu() - c1;
        if (!ok)
            break;
        if (sums[1] == 0)
            continue;
        loss_sum += sums[0];
        count_sum += sums[1];
        s0 = meter_wall();
        adam_step(comm, o, t, sc, gpart, grad, sums[1]);
        t1 = meter_wall(), c1 = meter_cpu();
        computing += t1 - s0;
        if (t->step_wall && t->nstep_wall < t->step_wall_cap)
            t->step_wall[t->nstep_wall++] = computing;
        ok = comm_gather_parts(comm, netmodel_rounded_w1(sc), o2, sizeof(int16_t));
        t->sum_seconds += meter_wall() - t1;
        t->sum_cpu += meter_cpu() - c1;
    }
    ok = ok && gather_state(comm, t);
    row.train_loss = count_sum > 0 ? loss_sum / count_sum : NAN;
    if (ok) {
        t->epoch++;
        t->last_seconds = meter_wall() - t0;
        ok = record_row(t, &row, start_w);
    }
    netmodel_scratch_free(&sc);
    free(gpart);
    free(start_w);
    free(grad);
    if (!share)
        free(off);
    return ok;
}

bool nettrain_finish(Comm *comm, const NetTrainOptions *o, NetTrain *t, const NetSet *train,
                     const NetSet *valid)
{
    EpochRow row = {t->epoch, NAN, NAN, t->last_seconds};
    if (!mean_loss(comm, t, t->w, train, o->lambda, &row.train_loss) ||
        !mean_loss(comm, t, t->w, valid, o->lambda, &row.valid_loss))
        return false;
    return record_row(t, &row, t->w);
}

/* ---- checkpoints ----
 *   "chuhe-train-ckp1" (16 bytes), hidden u32, buckets u32, scale u32, nw u64, data hash
 *   u64, config length u32 + bytes, k f64, ntrain u64, nvalid u64, epoch i32, step u64,
 *   rng u64, best_loss f64, best_epoch i32, last_seconds f64, w, m, v, best_w (nw f32
 *   each), nhist i32 + rows (epoch i32, 3 f64), FNV-1a 64 of everything before it. */

static const char CKPT_MAGIC[16] = "chuhe-train-ckp1";

bool nettrain_save(const char *path, const NetTrain *t, const char *config, uint64_t data_hash,
                   char *err, size_t errsize)
{
    CkptOut o;
    if (!ckptio_create(&o, path, err, errsize))
        return false;
    uint32_t hidden = (uint32_t)t->shape.hidden, buckets = (uint32_t)t->shape.buckets;
    uint32_t scale = (uint32_t)t->shape.scale;
    uint64_t nw = t->shape.nw;
    int32_t epoch = t->epoch, best_epoch = t->best_epoch;
    ckptio_put(&o, CKPT_MAGIC, sizeof CKPT_MAGIC);
    ckptio_put(&o, &hidden, 4);
    ckptio_put(&o, &buckets, 4);
    ckptio_put(&o, &scale, 4);
    ckptio_put(&o, &nw, 8);
    ckptio_put(&o, &data_hash, 8);
    ckptio_put_config(&o, config);
    ckptio_put(&o, &t->k, 8);
    ckptio_put(&o, &t->ntrain, 8);
    ckptio_put(&o, &t->nvalid, 8);
    ckptio_put(&o, &epoch, 4);
    ckptio_put(&o, &t->step, 8);
    ckptio_put(&o, &t->rng, 8);
    ckptio_put(&o, &t->best_loss, 8);
    ckptio_put(&o, &best_epoch, 4);
    ckptio_put(&o, &t->last_seconds, 8);
    ckptio_put(&o, t->w, nw * sizeof *t->w);
    ckptio_put(&o, t->m, nw * sizeof *t->m);
    ckptio_put(&o, t->v, nw * sizeof *t->v);
    ckptio_put(&o, t->best_w, nw * sizeof *t->best_w);
    train_history_put(&o, t->hist, t->nhist);
    return ckptio_commit(&o, path, err, errsize);
}

/* Whether the file's first len bytes open a chuhe-train checkpoint. */
static bool magic_ok(const char *path, const unsigned char *head, size_t len, char *err,
                     size_t errsize)
{
    if (len < sizeof CKPT_MAGIC + 8 || memcmp(head, CKPT_MAGIC, sizeof CKPT_MAGIC) != 0)
        return error_set(err, errsize, "%s: not a chuhe-train checkpoint", path);
    return true;
}

bool nettrain_is_checkpoint(const char *path, char *err, size_t errsize)
{
    return ckptio_is_checkpoint(path, magic_ok, sizeof CKPT_MAGIC + 8, err, errsize);
}

/* The part of nettrain_load after the configuration: the state into t. */
static bool load_state(CkptIn *in, NetTrain *t, size_t len)
{
    int32_t epoch = 0, best_epoch = 0;
    size_t nw = t->shape.nw;
    ckptio_get(in, &t->k, 8);
    ckptio_get(in, &t->ntrain, 8);
    ckptio_get(in, &t->nvalid, 8);
    ckptio_get(in, &epoch, 4);
    ckptio_get(in, &t->step, 8);
    ckptio_get(in, &t->rng, 8);
    ckptio_get(in, &t->best_loss, 8);
    ckptio_get(in, &best_epoch, 4);
    ckptio_get(in, &t->last_seconds, 8);
    ckptio_get(in, t->w, nw * sizeof *t->w);
    ckptio_get(in, t->m, nw * sizeof *t->m);
    ckptio_get(in, t->v, nw * sizeof *t->v);
    ckptio_get(in, t->best_w, nw * sizeof *t->best_w);
    if (!train_history_get(in, len, &t->hist, &t->nhist, &t->hist_cap))
        return false;
    t->epoch = epoch;
    t->best_epoch = best_epoch;
    return in->ok && in->at == len - 8;
}

NetTrain *nettrain_load(const char *path, const char *config, uint64_t data_hash, char *err,
                        size_t errsize)
{
    size_t len = 0;
    unsigned char *buf = ckptio_load(path, magic_ok, &len, err, errsize);
    if (!buf)
        return NULL;
    NetTrain *t = NULL;
    CkptIn in = {buf, len, 0, true};
    char magic[16];
    uint32_t hidden = 0, buckets = 0, scale = 0;
    uint64_t nw = 0, dh = 0;
    ckptio_get(&in, magic, sizeof magic);
    ckptio_get(&in, &hidden, 4);
    ckptio_get(&in, &buckets, 4);
    ckptio_get(&in, &scale, 4);
    ckptio_get(&in, &nw, 8);
    ckptio_get(&in, &dh, 8);
    if (!ckptio_get_config(&in, path, config, dh, data_hash, err, errsize))
        goto out;
    NetTrainOptions o;
    nettrain_options_default(&o);
    o.hidden = (int)hidden;
    o.buckets = (int)buckets;
    o.scale = (int)scale;
    t = nettrain_new(&o, 0, 0, 0, 0);
    if (!t || t->shape.nw != nw) {
        error_set(err, errsize, "%s: checkpoint of another architecture (%u x %u)", path, hidden,
                  buckets);
        nettrain_free(&t);
        goto out;
    }
    if (!load_state(&in, t, len)) {
        error_set(err, errsize, "%s: checkpoint is truncated or has unexpected bytes", path);
        nettrain_free(&t);
    }
out:
    free(buf);
    return t;
}
