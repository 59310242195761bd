/*
 * The network trainer's model and optimiser: the gradient of the float network equals
 * finite differences of its loss, and a pass's gradient the sum of its positions'; the engine's
 * quantised evaluation of the exported net stays within the export bound (2, mean 1) of the float
 * model, and a damaged export does not; the bucket rule and the features are the engine's; the
 * compact store keeps what it is given in 72 bytes a position; a checkpoint resumed gives bit for
 * bit the run that was never stopped, and refuses other settings.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "movegen.h"
#include "nnue.h"
#include "position.h"
#include "record.h"
#include "rng.h"
#include "tuning/comm.h"
#include "tuning/netdata.h"
#include "tuning/netexport.h"
#include "tuning/netmodel.h"
#include "tuning/netshare.h"
#include "tuning/nettrain.h"
#include "tuning/synth.h"

static NetSet g_set; /* positions of random games, built once */

static int setup(void **state)
{
    (void)state;
    position_init();
    netmodel_init();
    netdata_init(&g_set);
    return netdata_synth(&g_set, 400, 3) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    netdata_free(&g_set);
    return 0;
}

/* Weights of a small net on the engine's grid, as the gradient check needs. */
static float *small_weights(const NetShape *s, uint64_t seed)
{
    float *w = netmodel_alloc(s->nw);
    assert_non_null(w);
    netmodel_init_weights(s, w, seed);
    for (size_t i = 0; i < s->o_w2; i++)
        w[i] = roundf(w[i] * NNUE_QA) / NNUE_QA;
    uint64_t rng = seed;
    for (size_t i = s->o_w2; i < s->o_b2; i++)
        w[i] = roundf((float)(rng_unit(rng_next(&rng)) - 0.5) * 40) / NNUE_QB;
    for (int b = 0; b < s->buckets; b++)
        w[s->o_b2 + (size_t)b] = 0.05f * (float)b;
    return w;
}

static double loss_of(const NetShape *s, NetScratch *sc, const uint32_t *sub, int n, const float *w)
{
    return netmodel_pass(s, sc, &g_set, sub, (uint64_t)n, w, 1 / 300.0, 0.5, NULL).loss;
}

/* Central differences against the gradient, for weights of every kind. */
static void test_gradient_matches_finite_differences(void **state)
{
    (void)state;
    NetShape s;
    assert_true(netmodel_shape(&s, 32, 3, 400));
    float *w = small_weights(&s, 7), *grad = netmodel_alloc(s.nw);
    NetScratch *sc = netmodel_scratch_new(&s);
    assert_non_null(grad);
    assert_non_null(sc);
    enum { N = 24 };
    uint32_t sub[N];
    for (int i = 0; i < N; i++)
        sub[i] = (uint32_t)(i * 13);
    netmodel_pass(&s, sc, &g_set, sub, N, w, 1 / 300.0, 0.5, grad);

    /* W1 rows of features present in the positions, b1, W2, b2; a step of one point of
     * the engine's grid, so that the rounded weights move by exactly that step */
    size_t picks[64];
    int np = 0;
    uint64_t rng = 99;
    for (int tries = 0; np < 24 && tries < 1000000; tries++) {
        size_t j = (size_t)rng_below(&rng, s.o_b1);
        if (fabsf(grad[j]) > 1e-4f)
            picks[np++] = j;
    }
    assert_int_equal(np, 24); /* the positions' features have gradients */
    for (int i = 0; i < 8; i++)
        picks[np++] = s.o_b1 + (size_t)rng_below(&rng, (uint64_t)s.hidden);
    for (int i = 0; i < 12; i++)
        picks[np++] = s.o_w2 + (size_t)rng_below(&rng, s.o_b2 - s.o_w2);
    for (int b = 0; b < s.buckets; b++)
        picks[np++] = s.o_b2 + (size_t)b;
    int bad = 0, checked = 0;
    for (int p = 0; p < np; p++) {
        size_t j = picks[p];
        float eps = j < s.o_w2 ? 1.0f / NNUE_QA : j < s.o_b2 ? 1.0f / NNUE_QB : 1e-3f;
        float keep = w[j];
        w[j] = keep + eps;
        double up = loss_of(&s, sc, sub, N, w);
        w[j] = keep - eps;
        double down = loss_of(&s, sc, sub, N, w);
        w[j] = keep;
        double fd = (up - down) / (2 * (double)eps), an = grad[j];
        if (fabs(an) < 1e-6 && fabs(fd) < 1e-6)
            continue;
        checked++;
        /* a feature row whose accumulator crosses a kink of SCReLU within eps may differ */
        if (fabs(fd - an) > 0.03 * fabs(an) + 1e-5) {
            bad++;
            print_message("weight %zu: gradient %.8g, finite difference %.8g\n", j, an, fd);
        }
    }
    assert_true(checked >= 30);
    assert_true(bad <= 1);
    free(w);
    free(grad);
    netmodel_scratch_free(&sc);
}

/* A pass adds its positions' W1 gradients block by block, feature by feature: over 300
 * positions (two whole blocks and part of one) and over the whole set without a subset,
 * the gradient and loss are those of the positions passed one at a time, added up. */
static void test_pass_is_the_sum_of_its_positions(void **state)
{
    (void)state;
    NetShape s;
    assert_true(netmodel_shape(&s, 32, 3, 400));
    float *w = small_weights(&s, 11), *all = netmodel_alloc(s.nw), *one = netmodel_alloc(s.nw);
    NetScratch *sc = netmodel_scratch_new(&s);
    assert_non_null(all);
    assert_non_null(one);
    assert_non_null(sc);
    enum { N = 300 };
    uint32_t sub[N];
    for (int i = 0; i < N; i++)
        sub[i] = (uint32_t)(i * 7 % (int)g_set.n);
    for (int whole = 0; whole < 2; whole++) {
        int n = whole ? (int)g_set.n : N;
        memset(all, 0, s.nw * sizeof *all);
        memset(one, 0, s.nw * sizeof *one);
        NetLoss L = netmodel_pass(&s, sc, &g_set, whole ? NULL : sub, whole ? 0 : N, w, 1 / 300.0,
                                  0.5, all);
        double sum = 0;
        for (int i = 0; i < n; i++) {
            uint32_t k = whole ? (uint32_t)i : sub[i];
            sum += netmodel_pass(&s, sc, &g_set, &k, 1, w, 1 / 300.0, 0.5, one).loss;
        }
        assert_true(fabs(L.loss - sum) <= 1e-9 * fabs(sum) + 1e-12);
        int bad = 0, nonzero = 0;
        for (size_t j = 0; j < s.nw; j++) {
            nonzero += all[j] != 0;
            if (fabsf(all[j] - one[j]) > 1e-4f * fabsf(one[j]) + 1e-6f && bad++ < 5)
                print_message("weight %zu: pass %.8g, one by one %.8g\n", j, all[j], one[j]);
        }
        assert_int_equal(bad, 0);
        assert_true(nonzero > 1000); /* rows of many features, b1, W2 */
    }
    free(w);
    free(all);
    free(one);
    netmodel_scratch_free(&sc);
}

/* Packed positions of random games, for the export check. */
static int sample_positions(PackedPos *out, int n)
{
    NetSet tmp;
    netdata_init(&tmp);
    Position *pos = malloc(sizeof *pos);
    assert_non_null(pos);
    uint64_t rng = 5;
    int k = 0;
    while (k < n) {
        assert_true(pos_set_fen(pos, START_FEN, &(PosError){{0}}));
        int plies = 10 + (int)rng_below(&rng, 120);
        for (int i = 0; i < plies; i++) {
            MoveList l;
            gen_legal(pos, &l);
            if (l.count == 0)
                break;
            pos_do_move(pos, l.moves[rng_below(&rng, (uint64_t)l.count)]);
        }
        record_pack(pos, &out[k++]);
    }
    free(pos);
    netdata_free(&tmp);
    return k;
}

static void test_export_matches_the_engine(void **state)
{
    (void)state;
    NetShape s;
    assert_true(netmodel_shape(&s, 64, 8, 400));
    float *w = netmodel_alloc(s.nw);
    assert_non_null(w);
    netmodel_init_weights(&s, w, 11);
    uint64_t rng = 3;
    /* weights of a trained size, some at the clip */
    for (size_t i = 0; i < s.o_b2; i++)
        w[i] += (float)(rng_unit(rng_next(&rng)) - 0.5) * (i < s.o_b1 ? 0.3f : 2.0f);
    netmodel_clip(&s, w);
    for (int b = 0; b < s.buckets; b++)
        w[s.o_b2 + (size_t)b] = 0.1f * (float)(b - 4);
    enum { N = 300 };
    PackedPos *sample = malloc(N * sizeof *sample);
    assert_non_null(sample);
    assert_int_equal(sample_positions(sample, N), N);
    NnueNet net;
    char err[256];
    assert_true(netexport_quantise(&s, w, "test", &net, err, sizeof err));
    NetCheck chk;
    assert_true(netexport_compare(&s, w, &net, sample, N, &chk, err, sizeof err));
    print_message("quantised - float: max %.2f mean %.3f\n", chk.max_diff, chk.mean_diff);
    assert_int_equal(chk.n, N);
    assert_true(chk.max_diff <= 2 && chk.mean_diff <= 1);
    assert_true(chk.max_diff > 0); /* the engine truncates: the two are not the same code */

    /* the check sees a damaged export: the two perspectives' halves of W2 swapped */
    for (size_t b = 0; b < (size_t)s.buckets; b++)
        for (size_t i = 0; i < (size_t)s.hidden; i++) {
            int16_t *half = net.w2 + b * 2 * (size_t)s.hidden, t = half[i];
            half[i] = half[s.hidden + i];
            half[s.hidden + i] = t;
        }
    assert_true(netexport_compare(&s, w, &net, sample, N, &chk, err, sizeof err));
    assert_true(chk.max_diff > 2);
    nnue_net_free(&net);

    /* the written file reads back as the same network */
    char path[] = "/tmp/chuhe-net-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    NnueNet a, b;
    assert_true(netexport_quantise(&s, w, "test", &a, err, sizeof err));
    assert_true(nnue_net_write(&a, path, err, sizeof err));
    memset(&b, 0, sizeof b);
    assert_true(nnue_net_read(&b, path, err, sizeof err));
    assert_int_equal(b.hidden, 64);
    assert_int_equal(b.buckets, 8);
    assert_memory_equal(a.w1, b.w1, NNUE_INPUTS * 64 * sizeof *a.w1);
    assert_memory_equal(a.w2, b.w2, 8 * 2 * 64 * sizeof *a.w2);
    nnue_net_free(&a);
    nnue_net_free(&b);
    unlink(path);
    free(sample);
    free(w);
}

/* The bucket rule and the stored pieces agree with the engine's. */
static void test_buckets_and_pieces_are_the_engines(void **state)
{
    (void)state;
    enum { N = 200 };
    PackedPos *sample = malloc(N * sizeof *sample);
    assert_non_null(sample);
    sample_positions(sample, N);
    NnueNet net;
    char err[256];
    Position *pos = malloc(sizeof *pos);
    assert_non_null(pos);
    for (int B = 1; B <= NNUE_BUCKETS_MAX; B += 7) {
        assert_true(nnue_net_alloc(&net, 32, (uint32_t)B, err, sizeof err));
        for (int i = 0; i < N; i++) {
            assert_true(record_unpack(&sample[i], pos, &(PosError){{0}}));
            uint16_t pieces[NETDATA_SLOTS];
            int n = netdata_pieces(pos, pieces);
            assert_int_equal(netmodel_bucket(B, n), nnue_bucket(&net, pos));
            for (int k = 0; k < n; k++)
                assert_int_equal(pos_piece_on(pos, pieces[k] & 127), pieces[k] >> 7);
        }
        nnue_net_free(&net);
    }
    free(pos);
    free(sample);
}

static void test_store_is_compact_and_filters(void **state)
{
    (void)state;
    NetSet d;
    netdata_init(&d);
    assert_true(netdata_synth(&d, 100, 9));
    assert_int_equal(d.n, 100);
    assert_int_equal(netdata_bytes(&d), 72 * 100);
    uint64_t h = netdata_hash(&d);
    uint8_t keep[100];
    for (int i = 0; i < 100; i++)
        keep[i] = i % 3 != 0;
    uint32_t uid5 = d.uid[5];
    netdata_filter(&d, keep);
    assert_int_equal(d.n, 66);
    assert_int_equal(d.uid[3], uid5); /* 1, 2, 4, 5: the fourth kept */
    assert_true(netdata_hash(&d) != h);
    for (uint64_t i = 0; i < d.n; i++) {
        int n = netdata_count(&d, i);
        assert_true(n >= 2 && n <= 32);
        for (int k = n; k < NETDATA_SLOTS; k++)
            assert_int_equal(d.piece[i][k], NETDATA_NONE);
    }
    netdata_free(&d);
}

static NetTrainOptions small_options(void)
{
    NetTrainOptions o;
    nettrain_options_default(&o);
    o.hidden = 32;
    o.buckets = 2;
    o.batch = 100;
    o.lr = 0.01;
    o.lr_step = 2;
    o.epochs = 4;
    return o;
}

/* 2 epochs, a checkpoint, 2 more = 4 epochs straight, bit for bit. */
static void test_resume_equals_an_uninterrupted_run(void **state)
{
    (void)state;
    Comm *comm = comm_serial();
    NetTrainOptions o = small_options();
    NetSet valid;
    netdata_init(&valid);
    assert_true(netdata_synth(&valid, 50, 21));
    uint32_t *perm = malloc(g_set.n * sizeof *perm);
    assert_non_null(perm);
    NetTrain *a = nettrain_new(&o, 1, 1 / 300.0, g_set.n, valid.n);
    assert_non_null(a);
    for (int e = 0; e < 4; e++)
        assert_true(nettrain_epoch(comm, &o, a, &g_set, &valid, perm));
    assert_true(a->hist[4 - 1].valid_loss < a->hist[0].valid_loss ||
                a->hist[3].train_loss < a->hist[0].train_loss);

    char path[] = "/tmp/chuhe-ckpt-XXXXXX", err[1400];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    NetTrain *b = nettrain_new(&o, 1, 1 / 300.0, g_set.n, valid.n);
    assert_non_null(b);
    for (int e = 0; e < 2; e++)
        assert_true(nettrain_epoch(comm, &o, b, &g_set, &valid, perm));
    assert_true(nettrain_save(path, b, "cfg", 42, err, sizeof err));
    nettrain_free(&b);
    assert_true(nettrain_is_checkpoint(path, err, sizeof err));
    assert_null(nettrain_load(path, "other", 42, err, sizeof err));
    assert_non_null(strstr(err, "other settings"));
    assert_null(nettrain_load(path, "cfg", 43, err, sizeof err));
    assert_non_null(strstr(err, "other positions"));
    b = nettrain_load(path, "cfg", 42, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(b->epoch, 2);
    for (int e = 0; e < 2; e++)
        assert_true(nettrain_epoch(comm, &o, b, &g_set, &valid, perm));
    assert_memory_equal(a->w, b->w, a->shape.nw * sizeof *a->w);
    assert_memory_equal(a->m, b->m, a->shape.nw * sizeof *a->m);
    assert_memory_equal(a->best_w, b->best_w, a->shape.nw * sizeof *a->best_w);
    assert_int_equal(a->nhist, b->nhist);
    for (int i = 0; i < a->nhist; i++)
        assert_true(a->hist[i].train_loss == b->hist[i].train_loss &&
                    (a->hist[i].valid_loss == b->hist[i].valid_loss));

    /* a damaged checkpoint is refused */
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 200, SEEK_SET);
    fputc(0x5a, f);
    fclose(f);
    assert_null(nettrain_load(path, "cfg", 42, err, sizeof err));
    assert_non_null(strstr(err, "damaged"));
    unlink(path);
    nettrain_free(&a);
    nettrain_free(&b);
    free(perm);
    netdata_free(&valid);
}

/* The clip holds every weight of the feature transformer and the output layer. */
/* The ranks' parts of an array (the sharded optimiser's) cover it once, in order, each
 * starting on a whole multiple of COMM_PART_ALIGN, as even as that allows. */
static void test_parts_cover_the_array(void **state)
{
    (void)state;
    const size_t ns[] = {0, 1, 15, 16, 17, 1000, 322816, 1290240 + 1};
    const int sizes[] = {1, 2, 3, 7, 64, 1000};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
            size_t n = ns[i];
            int size = sizes[j];
            assert_int_equal(comm_part(n, size, 0), 0);
            assert_int_equal(comm_part(n, size, size), n);
            size_t most = 0, least = n;
            for (int r = 0; r < size; r++) {
                size_t a = comm_part(n, size, r), b = comm_part(n, size, r + 1);
                assert_true(a <= b);
                assert_true(a == n || a % COMM_PART_ALIGN == 0);
                most = b - a > most ? b - a : most;
                least = b - a < least ? b - a : least;
            }
            /* a last part may hold the array's odd tail besides its whole units */
            assert_true(most - least <= 2 * COMM_PART_ALIGN);
        }
    /* one process: the part is the whole sum */
    float send[40], recv[40];
    for (int i = 0; i < 40; i++)
        send[i] = (float)i;
    assert_true(comm_sum_part_f32(comm_serial(), send, recv, 40));
    assert_memory_equal(send, recv, sizeof send);
}

static void test_training_keeps_the_clip(void **state)
{
    (void)state;
    NetTrainOptions o = small_options();
    o.lr = 0.5; /* steps far larger than the clip */
    uint32_t *perm = malloc(g_set.n * sizeof *perm);
    assert_non_null(perm);
    NetTrain *t = nettrain_new(&o, 2, 1 / 300.0, g_set.n, 0);
    assert_non_null(t);
    NetSet none;
    netdata_init(&none);
    for (int e = 0; e < 3; e++)
        assert_true(nettrain_epoch(comm_serial(), &o, t, &g_set, &none, perm));
    int at_clip = 0;
    for (size_t i = 0; i < t->shape.o_b2; i++) {
        assert_true(fabsf(t->w[i]) <= NETMODEL_CLIP);
        at_clip += fabsf(t->w[i]) == NETMODEL_CLIP;
    }
    assert_true(at_clip > 0);
    nettrain_free(&t);
    free(perm);
}

/* A node of one rank (comm_serial): epochs over the shared set, split into claimed
 * chunks, make the same weights bit for bit as over the set itself (chunks are whole
 * blocks of the pass); every position is computed once an epoch. */
static void test_shared_steps_equal_plain_ones(void **state)
{
    (void)state;
    Comm *comm = comm_serial();
    NetTrainOptions o = small_options();
    o.batch = 400; /* one step of 400 positions: chunks of 256 and 144 */
    NetSet copy, none;
    netdata_init(&copy);
    netdata_init(&none);
    assert_true(netdata_synth(&copy, 400, 3));
    assert_int_equal(copy.n, g_set.n);
    uint32_t *perm = malloc(g_set.n * sizeof *perm);
    assert_non_null(perm);
    NetTrain *a = nettrain_new(&o, 1, 1 / 300.0, g_set.n, 0);
    NetTrain *b = nettrain_new(&o, 1, 1 / 300.0, g_set.n, 0);
    assert_true(a && b);
    NetShare *sh = netshare_new(comm, &copy, nettrain_batches(&o, copy.n));
    assert_non_null(sh);
    assert_true(copy.borrowed && copy.n == g_set.n && sh->nlocal == 1);
    assert_memory_equal(copy.piece, g_set.piece, g_set.n * sizeof *g_set.piece);
    b->share = sh;
    for (int e = 0; e < 3; e++) {
        assert_true(nettrain_epoch(comm, &o, a, &g_set, &none, perm));
        assert_true(nettrain_epoch(comm, &o, b, &copy, &none, NULL));
    }
    assert_memory_equal(a->w, b->w, a->shape.nw * sizeof *a->w);
    for (int i = 0; i < a->nhist; i++)
        assert_true(fabs(a->hist[i].train_loss - b->hist[i].train_loss) <=
                    1e-12 * a->hist[i].train_loss);
    assert_int_equal(sh->computed, 3 * g_set.n);
    netshare_free(comm, &sh);
    netdata_free(&copy);
    nettrain_free(&a);
    nettrain_free(&b);
    free(perm);
}

/* The claims of a step stand for each node rank's part once, in chunks of at most
 * NETSHARE_CHUNK, rank after rank; an empty part has none; past the last, none. */
static void test_chunks_cover_each_step_once(void **state)
{
    (void)state;
    uint64_t off0[] = {0, 300, 300}, off1[] = {0, 0, 10}, off2[] = {0, 513, 600};
    uint64_t *offs[] = {off0, off1, off2};
    NetShare s = {.nlocal = 3, .off = offs, .nb = 2};
    for (uint64_t b = 0; b < 2; b++) {
        uint64_t next[3] = {off0[b], off1[b], off2[b]}, c = 0, lo, hi;
        int q, last = 0;
        while (netshare_chunk(&s, b, c, &q, &lo, &hi)) {
            assert_true(q >= last && q < 3);
            assert_int_equal(lo, next[q]);
            assert_true(hi > lo && hi - lo <= NETSHARE_CHUNK);
            next[q] = hi, last = q, c++;
        }
        for (int r = 0; r < 3; r++)
            assert_int_equal(next[r], offs[r][b + 1]);
        assert_int_equal(c, b == 0 ? 2 + 0 + 3 : 0 + 1 + 1);
        assert_false(netshare_chunk(&s, b, c + 5, &q, &lo, &hi));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gradient_matches_finite_differences),
        cmocka_unit_test(test_pass_is_the_sum_of_its_positions),
        cmocka_unit_test(test_parts_cover_the_array),
        cmocka_unit_test(test_export_matches_the_engine),
        cmocka_unit_test(test_buckets_and_pieces_are_the_engines),
        cmocka_unit_test(test_store_is_compact_and_filters),
        cmocka_unit_test(test_resume_equals_an_uninterrupted_run),
        cmocka_unit_test(test_training_keeps_the_clip),
        cmocka_unit_test(test_shared_steps_equal_plain_ones),
        cmocka_unit_test(test_chunks_cover_each_step_once),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
