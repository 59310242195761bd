#include "train.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "array.h"
#include "ckptio.h"
#include "error.h"
#include "rng.h"

/* The defaults are the settings that recovered the most strength in one round of
 * scripts/tune-loop from material-only weights and improved most on the built-in ones
 * (docs/tuning.md, "Choosing the defaults"). */
void train_options_default(TrainOptions *o)
{
    memset(o, 0, sizeof *o);
    o->epochs = 100;
    o->batch = 16384;
    o->lr = 3.0;
    o->lr_decay = 0.966;
    o->reg = 0.1;
    o->symmetric = true;
    o->beta1 = 0.9;
    o->beta2 = 0.999;
    o->eps = 1e-8;
    o->patience = 20;
    o->seed = 1;
}

TrainState *train_new(const TrainOptions *o, const double *w0, double K, uint64_t ntrain,
                      uint64_t nvalid)
{
    TrainState *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->K = K;
    s->ntrain = ntrain;
    s->nvalid = nvalid;
    memcpy(s->w0, w0, sizeof s->w0);
    memcpy(s->w, w0, sizeof s->w);
    memcpy(s->best_w, w0, sizeof s->best_w);
    s->rng = rng_mix(o->seed ^ 0x747261696eULL);
    s->best_loss = INFINITY;
    s->best_epoch = -1;
    return s;
}

void train_free(TrainState **s)
{
    if (*s) {
        free((*s)->hist);
        free(*s);
        *s = NULL;
    }
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The step size of the epoch under way: large steps while the weights are far from the
 * fit, small ones to settle mini-batch noise. It depends on the epoch only, so a resumed
 * run takes the steps it would have taken. */
static double step_size(const TrainOptions *o, const TrainState *s)
{
    return o->lr * pow(o->lr_decay, (double)s->epoch);
}

/* The gradient of weight j with the pull toward the starting weights added: the mean
 * loss gains reg * sum ((w - w0) / 100)^2 / ntrain, as if every 100 centi-soldiers a
 * weight strays cost the squared error of reg training positions. So the pull keeps its
 * meaning as the data grows: the more positions, the more they outweigh it. */
static double pulled(const TrainOptions *o, const TrainState *s, const double *g, int j)
{
    return g[j] + 2e-4 * o->reg * (s->w[j] - s->w0[j]) / (double)s->ntrain;
}

static void adam_step(const TrainOptions *o, TrainState *s, const double *g)
{
    s->step++;
    double lr = step_size(o, s);
    double c1 = 1 - pow(o->beta1, (double)s->step), c2 = 1 - pow(o->beta2, (double)s->step);
    double full[MODEL_NW];
    for (int j = 0; j < MODEL_NW; j++)
        full[j] = pulled(o, s, g, j);
    for (int j = 0; j < MODEL_NW; j++) {
        if (o->frozen[j / 2])
            continue;
        double gj = full[j];
        /* tied points: the gradient of their shared value, so both make the same step */
        int pj = o->symmetric ? 2 * model_mirror(j / 2) + j % 2 : j;
        if (pj != j)
            gj += full[pj];
        s->m[j] = o->beta1 * s->m[j] + (1 - o->beta1) * gj;
        s->v[j] = o->beta2 * s->v[j] + (1 - o->beta2) * gj * gj;
        s->w[j] -= lr * (s->m[j] / c1) / (sqrt(s->v[j] / c2) + o->eps);
    }
}

/* Mean loss of a whole set under the current weights, over every rank (NaN when the set
 * is empty everywhere). */
static bool set_loss(Comm *comm, const TrainState *s, const double *w, const Dataset *d,
                     double *out)
{
    double buf[2] = {model_pass(d, NULL, 0, w, s->K, NULL), (double)d->n};
    if (!comm_sum_f64(comm, buf, 2))
        return false;
    *out = buf[1] > 0 ? buf[0] / buf[1] : NAN;
    return true;
}

bool train_history_push(EpochRow **hist, int *nhist, size_t *cap, const EpochRow *row)
{
    if (!array_reserve((void **)hist, cap, (size_t)*nhist + 1, sizeof **hist, 64))
        return false;
    (*hist)[(*nhist)++] = *row;
    return true;
}

void train_history_put(CkptOut *o, const EpochRow *hist, int nhist)
{
    int32_t n = nhist;
    ckptio_put(o, &n, 4);
    for (int i = 0; i < nhist; i++) {
        int32_t e = hist[i].epoch;
        ckptio_put(o, &e, 4);
        ckptio_put(o, &hist[i].train_loss, 8);
        ckptio_put(o, &hist[i].valid_loss, 8);
        ckptio_put(o, &hist[i].seconds, 8);
    }
}

bool train_history_get(CkptIn *in, size_t len, EpochRow **hist, int *nhist, size_t *cap)
{
    int32_t n = 0;
    ckptio_get(in, &n, 4);
    if (!in->ok || n < 0 || (size_t)n > len / 28)
        return false;
    for (int i = 0; i < n; i++) {
        EpochRow r;
        int32_t e = 0;
        ckptio_get(in, &e, 4);
        r.epoch = e;
        ckptio_get(in, &r.train_loss, 8);
        ckptio_get(in, &r.valid_loss, 8);
        ckptio_get(in, &r.seconds, 8);
        if (!in->ok || !train_history_push(hist, nhist, cap, &r))
            return false;
    }
    return true;
}

static bool history_push(TrainState *s, const EpochRow *row)
{
    return train_history_push(&s->hist, &s->nhist, &s->hist_cap, row);
}

void train_group_batches(const uint32_t *uid, uint64_t n, uint64_t nb, uint64_t eseed,
                         uint32_t *perm, uint64_t *off)
{
    memset(off, 0, (nb + 1) * sizeof *off);
    for (uint64_t i = 0; i < n; i++)
        off[rng_mix(uid[i] ^ eseed) % nb + 1]++;
    for (uint64_t b = 0; b < nb; b++)
        off[b + 1] += off[b];
    for (uint64_t i = 0; i < n; i++)
        perm[off[rng_mix(uid[i] ^ eseed) % nb]++] = (uint32_t)i;
    for (uint64_t b = nb; b > 0; b--)
        off[b] = off[b - 1];
    off[0] = 0;
}

bool train_epoch(Comm *comm, const TrainOptions *o, TrainState *s, const Dataset *train,
                 const Dataset *valid, uint32_t *perm)
{
    double t0 = now_seconds();
    /* the row of the weights this epoch starts from */
    EpochRow row = {s->epoch, NAN, NAN, s->last_seconds};
    double metric_w[MODEL_NW];
    memcpy(metric_w, s->w, sizeof metric_w);
    if (!set_loss(comm, s, s->w, valid, &row.valid_loss))
        return false;

    uint64_t eseed = rng_next(&s->rng);
    uint64_t nb = o->batch ? (s->ntrain + o->batch - 1) / o->batch : 1;
    if (nb < 1)
        nb = 1;
    uint64_t *off = NULL;
    if (nb > 1) {
        off = malloc((nb + 1) * sizeof *off);
        if (!comm_all_ok(comm, off != NULL)) {
            free(off);
            return false;
        }
        train_group_batches(train->uid, train->n, nb, eseed, perm, off);
    }
    /* gradient, then the batch's summed loss and its size */
    double *buf = malloc((MODEL_NW + 2) * sizeof *buf);
    if (!comm_all_ok(comm, buf != NULL)) {
        free(off);
        free(buf);
        return false;
    }
    double loss_sum = 0, count_sum = 0;
    bool ok = true;
    for (uint64_t b = 0; ok && b < nb; b++) {
        memset(buf, 0, (MODEL_NW + 2) * sizeof *buf);
        if (nb > 1) {
            buf[MODEL_NW] = model_pass(train, perm + off[b], off[b + 1] - off[b], s->w, s->K, buf);
            buf[MODEL_NW + 1] = (double)(off[b + 1] - off[b]);
        } else {
            buf[MODEL_NW] = model_pass(train, NULL, 0, s->w, s->K, buf);
            buf[MODEL_NW + 1] = (double)train->n;
        }
        if (!(ok = comm_sum_f64(comm, buf, MODEL_NW + 2)))
            break;
        double count = buf[MODEL_NW + 1];
        if (count == 0)
            continue;
        loss_sum += buf[MODEL_NW];
        count_sum += count;
        for (int j = 0; j < MODEL_NW; j++)
            buf[j] /= count;
        adam_step(o, s, buf);
    }
    free(buf);
    free(off);
    if (!ok)
        return false;
    row.train_loss = count_sum > 0 ? loss_sum / count_sum : NAN;

    /* early stopping on the validation loss, or the training loss without one */
    double metric = s->nvalid ? row.valid_loss : row.train_loss;
    if (metric < s->best_loss) {
        s->best_loss = metric;
        s->best_epoch = row.epoch;
        s->bad_epochs = 0;
        memcpy(s->best_w, metric_w, sizeof s->best_w);
    } else {
        s->bad_epochs++;
    }
    if (o->patience > 0 && s->bad_epochs >= o->patience)
        s->stopped = true;
    s->epoch++;
    s->last_seconds = now_seconds() - t0;
    return history_push(s, &row);
}

bool train_finish(Comm *comm, TrainState *s, const Dataset *train, const Dataset *valid)
{
    EpochRow row = {s->epoch, NAN, NAN, s->last_seconds};
    if (!set_loss(comm, s, s->w, train, &row.train_loss) ||
        !set_loss(comm, s, s->w, valid, &row.valid_loss))
        return false;
    double metric = s->nvalid ? row.valid_loss : row.train_loss;
    if (metric < s->best_loss) {
        s->best_loss = metric;
        s->best_epoch = row.epoch;
        memcpy(s->best_w, s->w, sizeof s->best_w);
    }
    return history_push(s, &row);
}

/* The fingerprint of eval_terms.h: names and sizes of every term, in order. */
static uint64_t train_terms_hash(void)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int t = 0; t < EVAL_TERM_NB; t++) {
        for (const char *p = EVAL_TERM_INFO[t].name; *p; p++)
            h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
        h = rng_mix(h ^ (uint64_t)EVAL_TERM_INFO[t].count);
    }
    return h;
}

/* ---- checkpoints ----
 * Little-endian binary as this machine writes it:
 *   "chuhe-tune-ckpt2" (16 bytes), terms hash u64, MODEL_NW u32, data hash u64,
 *   config length u32 + bytes, K f64, ntrain u64, nvalid u64, epoch i32, step u64,
 *   rng u64, best_loss f64, best_epoch i32, bad_epochs i32, stopped u8, last_seconds f64,
 *   w0, w, m, v, best_w (MODEL_NW f64 each), nhist i32 + rows (epoch i32, 3 f64),
 *   FNV-1a 64 of everything before it.
 * Format 1 numbered its rows from 1 (row e: the weights after e - 1 epochs) and is
 * refused rather than renumbered. */

static const char CKPT_MAGIC[16] = "chuhe-tune-ckpt2";
static const char CKPT_MAGIC_1[16] = "chuhe-tune-ckpt1";

bool train_save(const char *path, const TrainState *s, const char *config, uint64_t data_hash,
                char *err, size_t errsize)
{
    CkptOut o;
    if (!ckptio_create(&o, path, err, errsize))
        return false;
    uint64_t th = train_terms_hash();
    uint32_t nw = MODEL_NW;
    int32_t epoch = s->epoch, best_epoch = s->best_epoch, bad = s->bad_epochs;
    uint8_t stopped = s->stopped;
    ckptio_put(&o, CKPT_MAGIC, sizeof CKPT_MAGIC);
    ckptio_put(&o, &th, 8);
    ckptio_put(&o, &nw, 4);
    ckptio_put(&o, &data_hash, 8);
    ckptio_put_config(&o, config);
    ckptio_put(&o, &s->K, 8);
    ckptio_put(&o, &s->ntrain, 8);
    ckptio_put(&o, &s->nvalid, 8);
    ckptio_put(&o, &epoch, 4);
    ckptio_put(&o, &s->step, 8);
    ckptio_put(&o, &s->rng, 8);
    ckptio_put(&o, &s->best_loss, 8);
    ckptio_put(&o, &best_epoch, 4);
    ckptio_put(&o, &bad, 4);
    ckptio_put(&o, &stopped, 1);
    ckptio_put(&o, &s->last_seconds, 8);
    ckptio_put(&o, s->w0, sizeof s->w0);
    ckptio_put(&o, s->w, sizeof s->w);
    ckptio_put(&o, s->m, sizeof s->m);
    ckptio_put(&o, s->v, sizeof s->v);
    ckptio_put(&o, s->best_w, sizeof s->best_w);
    train_history_put(&o, s->hist, s->nhist);
    return ckptio_commit(&o, path, err, errsize);
}

/* Whether the file's first bytes (len of them) open a checkpoint this build reads. */
static bool magic_ok(const char *path, const unsigned char *head, size_t len, char *err,
                     size_t errsize)
{
    if (len >= sizeof CKPT_MAGIC && memcmp(head, CKPT_MAGIC_1, sizeof CKPT_MAGIC) == 0)
        return error_set(err, errsize,
                         "%s: a checkpoint of an older chuhe-tune (format 1); start afresh "
                         "without --resume",
                         path);
    if (len < sizeof CKPT_MAGIC + 8 || memcmp(head, CKPT_MAGIC, sizeof CKPT_MAGIC) != 0)
        return error_set(err, errsize, "%s: not a chuhe-tune checkpoint", path);
    return true;
}

bool train_is_checkpoint(const char *path, char *err, size_t errsize)
{
    return ckptio_is_checkpoint(path, magic_ok, sizeof CKPT_MAGIC + 8, err, errsize);
}

TrainState *train_load(const char *path, const char *config, uint64_t data_hash, char *err,
                       size_t errsize)
{
    size_t len = 0;
    unsigned char *buf = ckptio_load(path, magic_ok, &len, err, errsize);
    if (!buf)
        return NULL;
    TrainState *s = calloc(1, sizeof *s);
    CkptIn in = {buf, len, 0, true};
    char magic[16];
    uint64_t th = 0, dh = 0;
    uint32_t nw = 0;
    int32_t epoch = 0, best_epoch = 0, bad = 0;
    uint8_t stopped = 0;
    bool ok = false;
    if (!s) {
        error_set(err, errsize, "out of memory");
        goto out;
    }
    ckptio_get(&in, magic, sizeof magic);
    ckptio_get(&in, &th, 8);
    ckptio_get(&in, &nw, 4);
    ckptio_get(&in, &dh, 8);
    if (th != train_terms_hash() || nw != MODEL_NW) {
        error_set(err, errsize, "%s: checkpoint of another term list (eval_terms.h changed since)",
                  path);
        goto out;
    }
    if (!ckptio_get_config(&in, path, config, dh, data_hash, err, errsize))
        goto out;
    ckptio_get(&in, &s->K, 8);
    ckptio_get(&in, &s->ntrain, 8);
    ckptio_get(&in, &s->nvalid, 8);
    ckptio_get(&in, &epoch, 4);
    ckptio_get(&in, &s->step, 8);
    ckptio_get(&in, &s->rng, 8);
    ckptio_get(&in, &s->best_loss, 8);
    ckptio_get(&in, &best_epoch, 4);
    ckptio_get(&in, &bad, 4);
    ckptio_get(&in, &stopped, 1);
    ckptio_get(&in, &s->last_seconds, 8);
    ckptio_get(&in, s->w0, sizeof s->w0);
    ckptio_get(&in, s->w, sizeof s->w);
    ckptio_get(&in, s->m, sizeof s->m);
    ckptio_get(&in, s->v, sizeof s->v);
    ckptio_get(&in, s->best_w, sizeof s->best_w);
    if (!train_history_get(&in, len, &s->hist, &s->nhist, &s->hist_cap)) {
        error_set(err, errsize, "%s: checkpoint is truncated", path);
        goto out;
    }
    if (!in.ok || in.at != len - 8) {
        error_set(err, errsize, "%s: checkpoint has %zu unexpected bytes", path, len - 8 - in.at);
        goto out;
    }
    s->epoch = epoch;
    s->best_epoch = best_epoch;
    s->bad_epochs = bad;
    s->stopped = stopped != 0;
    ok = true;
out:
    free(buf);
    if (!ok)
        train_free(&s);
    return s;
}
