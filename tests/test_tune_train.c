/*
 * The tuner's optimiser: a checkpoint resumed gives bit for bit the run that was never
 * stopped (full batch and mini-batches), and refuses other settings, other positions,
 * a damaged file or one of an older format; frozen terms keep their values and early
 * stopping keeps the best weights; mirrored piece-square points move together and the
 * pull toward the start holds the weights near it; row N of the epoch history holds the
 * losses of the weights after N epochs.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "position.h"
#include "tests/support/tune_fixture.h"
#include "tuning/comm.h"
#include "tuning/dataset.h"
#include "tuning/model.h"
#include "tuning/synth.h"
#include "tuning/train.h"
#include "weights.h"

static char g_dir[64];
static Dataset g_synth; /* traced positions of random games, built once */

enum { SYNTH_N = 3000 };

static void path_in_dir(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", g_dir, name);
}

/* ---- training ----------------------------------------------------------------------------- */

/* The synthetic set split in two: training and validation. */
static void split_synth(Dataset *train, Dataset *valid)
{
    dataset_init(train);
    dataset_init(valid);
    for (uint64_t i = 0; i < g_synth.n; i++)
        assert_true(dataset_add(i % 5 ? train : valid, g_synth.idx + g_synth.start[i],
                                g_synth.coef + g_synth.start[i], dataset_count(&g_synth, i),
                                g_synth.phase[i], g_synth.score[i], g_synth.result[i],
                                g_synth.uid[i]));
    model_set_labels(train, 1 / 170.0, 0.5);
    model_set_labels(valid, 1 / 170.0, 0.5);
}

/* A test's fit: the synthetic set split in two, the default options (to adjust), the
 * default weights as the start. */
typedef struct {
    Dataset train, valid;
    TrainOptions o;
    double w0[MODEL_NW];
} Fit;

static void fit_init(Fit *f)
{
    split_synth(&f->train, &f->valid);
    train_options_default(&f->o);
    model_from_params(weights_default(), f->w0);
}

/* A new optimiser state from the fit's start and options, K = 1/170. */
static TrainState *fit_state(const Fit *f)
{
    return train_new(&f->o, f->w0, 1 / 170.0, f->train.n, f->valid.n);
}

static void fit_free(Fit *f)
{
    dataset_free(&f->train);
    dataset_free(&f->valid);
}

static TrainState *run_epochs(const TrainOptions *o, TrainState *s, int upto, const Dataset *train,
                              const Dataset *valid)
{
    uint32_t *perm = malloc((train->n + 1) * sizeof *perm);
    while (s->epoch < upto && !s->stopped)
        assert_true(train_epoch(comm_serial(), o, s, train, valid, perm));
    free(perm);
    return s;
}

static void resume_case(uint64_t batch)
{
    Fit f;
    fit_init(&f);
    f.o.batch = batch;
    f.o.lr = 2;
    f.o.patience = 0;
    const char *cfg = "test config";
    uint64_t dh = dataset_hash(&f.train);

    TrainState *a = run_epochs(&f.o, fit_state(&f), 6, &f.train, &f.valid);
    char path[128], err[512];
    path_in_dir(path, sizeof path, "resume.ckpt");
    TrainState *b = run_epochs(&f.o, fit_state(&f), 3, &f.train, &f.valid);
    if (!train_save(path, b, cfg, dh, err, sizeof err))
        fail_msg("%s", err);
    train_free(&b);
    TrainState *c = train_load(path, cfg, dh, err, sizeof err);
    if (!c)
        fail_msg("%s", err);
    assert_int_equal(c->epoch, 3);
    assert_int_equal(c->nhist, 3);
    run_epochs(&f.o, c, 6, &f.train, &f.valid);
    assert_memory_equal(a->w, c->w, sizeof a->w);
    assert_memory_equal(a->m, c->m, sizeof a->m);
    assert_memory_equal(a->v, c->v, sizeof a->v);
    assert_memory_equal(a->best_w, c->best_w, sizeof a->best_w);
    assert_int_equal(a->step, c->step);
    assert_int_equal(a->rng, c->rng);
    for (int i = 0; i < 6; i++) {
        assert_true(a->hist[i].train_loss == c->hist[i].train_loss);
        assert_true(a->hist[i].valid_loss == c->hist[i].valid_loss);
    }
    /* training lowers the training loss */
    assert_true(a->hist[5].train_loss < a->hist[0].train_loss);
    if (batch)
        assert_true(a->step > 6);
    else
        assert_int_equal(a->step, 6);
    train_free(&a);
    train_free(&c);
    fit_free(&f);
}

static void test_resume_full_batch(void **state)
{
    (void)state;
    resume_case(0);
}

static void test_resume_mini_batch(void **state)
{
    (void)state;
    resume_case(500);
}

/* Largest |w - w0| over the weights. */
static double moved_most(const TrainState *s)
{
    double most = 0;
    for (int j = 0; j < MODEL_NW; j++)
        most = fmax(most, fabs(s->w[j] - s->w0[j]));
    return most;
}

static void test_symmetry_and_pull(void **state)
{
    (void)state;
    /* the mirror of a piece-square point is the same rank on the mirrored file */
    const EvalTermInfo *horse = &EVAL_TERM_INFO[EVAL_TERM_psqt_horse];
    int h0 = (int)(horse->offset / sizeof(Score));
    assert_int_equal(model_mirror(h0 + sq_make(1, 2)), h0 + sq_make(7, 2));
    assert_int_equal(model_mirror(h0 + sq_make(4, 9)), h0 + sq_make(4, 9));
    int t0 = (int)(EVAL_TERM_INFO[EVAL_TERM_tempo].offset / sizeof(Score));
    assert_int_equal(model_mirror(t0), t0);
    for (int i = 0; i < EVAL_PARAM_NB; i++)
        assert_int_equal(model_mirror(model_mirror(i)), i);

    Fit f;
    fit_init(&f);
    f.o.batch = 500;
    f.o.patience = 0;
    f.o.reg = 0;
    const double *w0 = f.w0;
    /* tied: every mirrored pair keeps the difference it started with */
    TrainState *tied = run_epochs(&f.o, fit_state(&f), 5, &f.train, &f.valid);
    f.o.symmetric = false;
    TrainState *free_ = run_epochs(&f.o, fit_state(&f), 5, &f.train, &f.valid);
    int apart = 0;
    for (int j = 0; j < MODEL_NW; j++) {
        int pj = 2 * model_mirror(j / 2) + j % 2;
        assert_true(fabs((tied->w[j] - tied->w[pj]) - (w0[j] - w0[pj])) < 1e-9);
        apart += fabs((free_->w[j] - free_->w[pj]) - (w0[j] - w0[pj])) > 1e-6;
    }
    assert_true(apart > 0);
    /* the pull toward the start holds the weights closer to it */
    f.o.symmetric = true;
    f.o.reg = 1e6;
    TrainState *pulled = run_epochs(&f.o, fit_state(&f), 5, &f.train, &f.valid);
    assert_true(moved_most(pulled) < moved_most(tied) / 2);
    train_free(&tied);
    train_free(&free_);
    train_free(&pulled);
    fit_free(&f);
}

static void test_checkpoint_refusals(void **state)
{
    (void)state;
    TrainOptions o;
    train_options_default(&o);
    double w0[MODEL_NW] = {0};
    TrainState *s = train_new(&o, w0, 0.01, 10, 0);
    char path[128], err[512];
    path_in_dir(path, sizeof path, "refuse.ckpt");
    assert_true(train_save(path, s, "lr=1", 42, err, sizeof err));
    train_free(&s);
    assert_null(train_load(path, "lr=2", 42, err, sizeof err));
    assert_non_null(strstr(err, "other settings"));
    assert_non_null(strstr(err, "lr=1"));
    assert_null(train_load(path, "lr=1", 43, err, sizeof err));
    assert_non_null(strstr(err, "other positions"));
    /* one flipped byte */
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 100, SEEK_SET);
    int ch = fgetc(f);
    fseek(f, 100, SEEK_SET);
    fputc(ch ^ 1, f);
    fclose(f);
    assert_null(train_load(path, "lr=1", 42, err, sizeof err));
    assert_non_null(strstr(err, "damaged"));
    assert_true(train_is_checkpoint(path, err, sizeof err));
    /* format 1 numbered its rows otherwise: refused, before and when loading */
    f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 15, SEEK_SET);
    fputc('1', f);
    fclose(f);
    assert_false(train_is_checkpoint(path, err, sizeof err));
    assert_non_null(strstr(err, "older chuhe-tune"));
    assert_null(train_load(path, "lr=1", 42, err, sizeof err));
    assert_non_null(strstr(err, "older chuhe-tune"));
    char other[128];
    path_in_dir(other, sizeof other, "missing.ckpt");
    assert_null(train_load(other, "lr=1", 42, err, sizeof err));
    assert_non_null(strstr(err, "missing.ckpt"));
    assert_false(train_is_checkpoint(other, err, sizeof err));
    assert_non_null(strstr(err, "missing.ckpt"));
}

static void test_freeze_and_early_stop(void **state)
{
    (void)state;
    Fit f;
    fit_init(&f);
    f.o.lr = 5;
    f.o.patience = 2;
    const EvalTermInfo *mat = &EVAL_TERM_INFO[EVAL_TERM_material];
    int first = (int)(mat->offset / sizeof(Score));
    for (int i = 0; i < mat->count; i++)
        f.o.frozen[first + i] = 1;
    const double *w0 = f.w0;
    TrainState *s = run_epochs(&f.o, fit_state(&f), 400, &f.train, &f.valid);
    for (int i = 0; i < mat->count; i++) {
        assert_true(s->w[2 * (first + i)] == w0[2 * (first + i)]);
        assert_true(s->w[2 * (first + i) + 1] == w0[2 * (first + i) + 1]);
    }
    /* a tiny training set overfits at a large step: the validation loss turns and the
     * run stops with the best weights kept */
    assert_true(s->stopped);
    assert_true(s->epoch < 400);
    assert_int_equal(s->bad_epochs, 2);
    /* the rows of the last three epochs' starting weights: the best, then two worse */
    assert_int_equal(s->best_epoch, s->epoch - 3);
    assert_true(s->best_loss == s->hist[s->best_epoch].valid_loss);
    train_free(&s);
    fit_free(&f);
}

/* Row N of the history holds the losses of the weights after N epochs, measured here
 * directly: row 0 those of the starting weights (0 seconds), the last row (written by
 * train_finish) those of the final weights; best_epoch names a row and its weights. */
static void test_epoch_rows(void **state)
{
    (void)state;
    enum { EPOCHS = 4 };
    Fit f;
    fit_init(&f);
    f.o.lr = 3;
    f.o.patience = 0;
    const double K = 1 / 170.0;
    const Dataset *train = &f.train, *valid = &f.valid;
    TrainState *s = fit_state(&f);
    uint32_t *perm = malloc((train->n + 1) * sizeof *perm);
    double loss[EPOCHS + 1][2], *after = malloc((EPOCHS + 1) * sizeof s->w);
    for (int e = 0; e <= EPOCHS; e++) {
        loss[e][0] = model_pass(train, NULL, 0, s->w, K, NULL) / (double)train->n;
        loss[e][1] = model_pass(valid, NULL, 0, s->w, K, NULL) / (double)valid->n;
        memcpy(after + e * MODEL_NW, s->w, sizeof s->w);
        assert_int_equal(s->nhist, e);
        if (e < EPOCHS)
            assert_true(train_epoch(comm_serial(), &f.o, s, train, valid, perm));
    }
    assert_true(train_finish(comm_serial(), s, train, valid));
    assert_int_equal(s->nhist, EPOCHS + 1);
    for (int e = 0; e <= EPOCHS; e++) {
        const EpochRow *r = &s->hist[e];
        assert_int_equal(r->epoch, e);
        if (fabs(r->train_loss - loss[e][0]) > 1e-12 * loss[e][0] ||
            fabs(r->valid_loss - loss[e][1]) > 1e-12 * loss[e][1])
            fail_msg("row %d: %.12g %.12g, after %d epochs %.12g %.12g", e, r->train_loss,
                     r->valid_loss, e, loss[e][0], loss[e][1]);
        assert_true(e == 0 ? r->seconds == 0 : r->seconds >= 0);
    }
    assert_true(s->best_epoch >= 0 && s->best_epoch <= EPOCHS);
    assert_true(s->best_loss == s->hist[s->best_epoch].valid_loss);
    assert_memory_equal(s->best_w, after + s->best_epoch * MODEL_NW, sizeof s->best_w);
    free(after);
    free(perm);
    train_free(&s);
    fit_free(&f);
}

/* ---- set-up ------------------------------------------------------------------------------ */

static int setup(void **state)
{
    (void)state;
    return tune_fixture_setup(g_dir, sizeof g_dir, "tune-train", &g_synth, SYNTH_N) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return tune_fixture_teardown(g_dir, &g_synth) ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_full_batch),     cmocka_unit_test(test_resume_mini_batch),
        cmocka_unit_test(test_symmetry_and_pull),     cmocka_unit_test(test_checkpoint_refusals),
        cmocka_unit_test(test_freeze_and_early_stop), cmocka_unit_test(test_epoch_rows),
    };
    return cmocka_run_group_tests_name("tune_train", tests, setup, teardown);
}
