/*
 * NNUE evaluation: the feature index, the reference evaluation and the accumulator
 * stack of a search (nnue.h).
 */
#include "nnue.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "nnue_kernel.h"

int nnue_feature_index(Color perspective, Piece pc, Square s)
{
    int sp = perspective == RED ? s : (RANK_NB - 1 - sq_rank(s)) * FILE_NB + sq_file(s);
    int side = piece_color(pc) == perspective ? 0 : 1;
    return side * 630 + (piece_type(pc) - 1) * SQUARE_NB + sp;
}

int nnue_bucket(const NnueNet *net, const Position *pos)
{
    return (bb_count(pos->occupied) - 2) * (int)net->buckets / 31;
}

/* out = (sum / QA + b2) * SCALE / (QA * QB), clamped below the mate scores. */
static Value output_value(const NnueNet *net, int bucket, int64_t sum)
{
    int64_t out = (sum / NNUE_QA + net->b2[bucket]) * net->scale / (NNUE_QA * NNUE_QB);
    const int64_t limit = VALUE_MATE_IN_MAX_PLY - 1;
    return (Value)(out > limit ? limit : out < -limit ? -limit : out);
}

Value nnue_evaluate_full(const NnueNet *net, const Position *pos)
{
    uint32_t h = net->hidden;
    assert(h <= NNUE_HIDDEN_MAX);
    /* acc[0..h): the side to move's perspective, acc[h..2h): the other's */
    int32_t acc[2 * NNUE_HIDDEN_MAX];
    for (int half = 0; half < 2; half++) {
        Color p = half == 0 ? pos->side : color_flip(pos->side);
        int32_t *a = acc + (size_t)half * h;
        for (uint32_t i = 0; i < h; i++)
            a[i] = net->b1[i];
        for (Square s = 0; s < SQUARE_NB; s++) {
            Piece pc = pos_piece_on(pos, s);
            if (!pc)
                continue;
            const int16_t *row = net->w1 + (size_t)nnue_feature_index(p, pc, s) * h;
            for (uint32_t i = 0; i < h; i++)
                a[i] += row[i];
        }
    }
    int bucket = nnue_bucket(net, pos);
    const int16_t *w2 = net->w2 + (size_t)bucket * 2 * h;
    int64_t sum = 0;
    for (uint32_t i = 0; i < 2 * h; i++) {
        int64_t v = (int16_t)acc[i] < 0 ? 0 : (int16_t)acc[i] > NNUE_QA ? NNUE_QA : (int16_t)acc[i];
        sum += v * w2[i] * v;
    }
    return output_value(net, bucket, sum);
}

bool nnue_stack_alloc(NnueStack *st, uint32_t hidden, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    size_t bytes = (size_t)NNUE_STACK_PLIES * COLOR_NB * hidden * sizeof(int16_t);
    st->acc = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!st->acc)
        return error_set(err, errlen, "network: out of memory for the accumulators");
    st->hidden = hidden;
    return true;
}

void nnue_stack_free(NnueStack *st)
{
    free(st->acc);
    memset(st, 0, sizeof *st);
}

static inline int16_t *acc_at(NnueStack *st, int ply, Color c)
{
    return st->acc + ((size_t)ply * COLOR_NB + c) * st->hidden;
}

static inline const int16_t *w1_row(const NnueNet *net, Color p, Piece pc, Square s)
{
    return net->w1 + (size_t)nnue_feature_index(p, pc, s) * net->hidden;
}

/* Both accumulators of ply from the board. */
static void refresh(NnueStack *st, const NnueNet *net, const Position *pos, int ply)
{
    for (Color c = RED; c < COLOR_NB; c++) {
        const int16_t *rows[32];
        int n = 0;
        for (Bitboard b = pos->occupied; b;) {
            Square s = bb_pop(&b);
            rows[n++] = w1_row(net, c, pos_piece_on(pos, s), s);
        }
        nnue_kernel_update(acc_at(st, ply, c), net->b1, rows, n, NULL, 0, st->hidden);
    }
    st->computed[ply] = true;
}

/* Both accumulators of ply from those of ply - 1 and the move between them. */
static void update(NnueStack *st, const NnueNet *net, int ply)
{
    const NnueDelta *d = &st->delta[ply];
    for (Color c = RED; c < COLOR_NB; c++) {
        int16_t *dst = acc_at(st, ply, c);
        const int16_t *src = acc_at(st, ply - 1, c);
        if (d->piece == NO_PIECE) {
            memcpy(dst, src, st->hidden * sizeof *dst);
            continue;
        }
        const int16_t *add[1] = {w1_row(net, c, d->piece, d->to)};
        const int16_t *sub[2] = {w1_row(net, c, d->piece, d->from)};
        int nsub = 1;
        if (d->captured)
            sub[nsub++] = w1_row(net, c, d->captured, d->to);
        nnue_kernel_update(dst, src, add, 1, sub, nsub, st->hidden);
    }
    st->computed[ply] = true;
}

Value nnue_evaluate(NnueStack *st, const NnueNet *net, const Position *pos, int ply)
{
    assert(st->hidden == net->hidden && ply >= 0 && ply < NNUE_STACK_PLIES);
    if (!st->computed[ply]) {
        /* an update reads and writes about four rows per perspective, a refresh one per
         * piece: walk down to a computed ply only while that is cheaper */
        int limit = bb_count(pos->occupied) / 4, k = ply;
        while (k > 0 && ply - k < limit && !st->computed[k])
            k--;
        if (st->computed[k])
            for (k++; k <= ply; k++)
                update(st, net, k);
        else
            refresh(st, net, pos, ply);
    }
    Color us = pos->side;
    int bucket = nnue_bucket(net, pos);
    int64_t sum = nnue_kernel_output(acc_at(st, ply, us), acc_at(st, ply, color_flip(us)),
                                     net->w2 + (size_t)bucket * 2 * net->hidden, net->hidden);
    Value v = output_value(net, bucket, sum);
#ifdef CHUHE_DEBUG
    /* one position in 8, chosen by its key (the same ones every run): a full check of
     * every evaluation made sanitizer builds of searches several times slower;
     * tests/test_nnue.c compares every position of its games */
    assert((pos_key(pos) & 7) != 0 || v == nnue_evaluate_full(net, pos));
#endif
    return v;
}
