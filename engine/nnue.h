/*
 * NNUE: the network evaluation "PS1260 -> Hx2 -> SCReLU -> B buckets" (docs/nnue.md).
 * This module owns the network file format, the feature index and the quantised
 * arithmetic; the trainer (tuning/) calls these functions and has no second copy.
 *
 * Inputs, per perspective p: 1260 = 2 sides x 7 piece types x 90 squares, the board
 * seen from p's side (ranks flipped for Black). One feature transformer W1 (1260 x H)
 * and bias b1 is shared by both perspectives; the output layer of the bucket chosen by
 * the number of pieces reads SCReLU(acc_stm) then SCReLU(acc_other).
 *
 * Integer rules, the same on every code path (scalar, SSE, AVX2):
 *     acc[i] = b1[i] + sum of W1[f][i] over the active features f   (int16)
 *     v      = clamp(acc, 0, QA)
 *     sum    = sum of (v * W2) * v over both halves                   (exact integer)
 *     out    = (sum / QA + b2[bucket]) * SCALE / (QA * QB)            (int64, truncation)
 * The weights are bounded (NNUE_W1_MAX, NNUE_W2_MAX: the trainer's clip of 1.98) so
 * that no accumulator leaves int16 and no int32 lane of a SIMD dot product overflows;
 * the reader and the writer refuse a network outside the bounds.
 */
#ifndef CHUHE_NNUE_H
#define CHUHE_NNUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "position.h"
#include "score.h"

enum {
    NNUE_INPUTS = 1260,
    NNUE_QA = 255,
    NNUE_QB = 64,
    NNUE_VERSION = 1,
    NNUE_FEATURE_SET_PS1260 = 1,
    NNUE_ACTIVATION_SCRELU = 1,
    NNUE_HIDDEN_MIN = 32,
    NNUE_HIDDEN_MAX = 1024,
    NNUE_HIDDEN_STEP = 32, /* the hidden size is a multiple of this */
    NNUE_BUCKETS_MAX = 31, /* one bucket per piece count 2..32 at most */
    NNUE_SCALE_MIN = 1,
    NNUE_SCALE_MAX = 10000,
    NNUE_SCALE_DEFAULT = 400,
    /* round(1.98 * QA) and round(1.98 * QB): the largest |W1|, |b1| and |W2| */
    NNUE_W1_MAX = 505,
    NNUE_W2_MAX = 127,
    NNUE_HEADER_BYTES = 112,
    NNUE_DESCRIPTION_BYTES = 64,
};

/* The first 8 bytes of a network file (no NUL): what tells it from a weights file. */
#define NNUE_MAGIC "CHUHENNU"
enum { NNUE_MAGIC_BYTES = 8 };

/* One network, read-only during search. */
typedef struct NnueNet {
    uint32_t hidden, buckets;
    int32_t scale;
    char description[65]; /* printable ASCII, NUL-terminated */
    int16_t *w1;          /* [NNUE_INPUTS * hidden], feature-major, 64-byte aligned */
    int16_t *b1;          /* [hidden] */
    int16_t *w2;          /* [buckets * 2 * hidden]: per bucket the side to move's half first */
    int32_t *b2;          /* [buckets] */
} NnueNet;

/* A zeroed network of hidden x buckets with SCALE NNUE_SCALE_DEFAULT and no
 * description; false with err filled when the sizes are out of range or memory is
 * short (net is then left empty: nnue_net_free is still safe). */
bool nnue_net_alloc(NnueNet *net, uint32_t hidden, uint32_t buckets, char *err, size_t errlen);
/* Frees the arrays and empties net; safe on an empty or freed network. */
void nnue_net_free(NnueNet *net);
/* Reads a network file. All or nothing: on any error err holds one line naming the
 * file and the fault, and net is untouched. */
bool nnue_net_read(NnueNet *net, const char *path, char *err, size_t errlen);
/* The same from n bytes in memory (a whole file's bytes); name stands for the file in
 * the error. */
bool nnue_net_read_memory(NnueNet *net, const void *data, size_t n, const char *name, char *err,
                          size_t errlen);
/* The network built into the binary (engine/default.nnue), decoded once per process;
 * NULL when it does not decode (a broken build: then the handcrafted evaluation). */
const NnueNet *nnue_default(void);
/* Writes net to path (replacing it); refuses a network whose sizes, scale,
 * description or weights break the format's rules. */
bool nnue_net_write(const NnueNet *net, const char *path, char *err, size_t errlen);
/* Whether the file at path starts with the network magic, or with a part of it when
 * it is shorter (false when it cannot be read or is empty). */
bool nnue_file_is_net(const char *path);
/* The payload size a file of hidden x buckets must have. */
size_t nnue_payload_bytes(uint32_t hidden, uint32_t buckets);
/* The payload checksum of the header: FNV-1a, 32 bits. */
uint32_t nnue_checksum(const void *bytes, size_t n);
/* What identifies a network's weights whatever its description: the checksums of W1,
 * b1, W2 and b2 (nnue_checksum), as 32 hex digits and a NUL. */
enum { NNUE_WEIGHTS_ID_BYTES = 33 };
void nnue_weights_id(const NnueNet *net, char out[NNUE_WEIGHTS_ID_BYTES]);

int nnue_feature_index(Color perspective, Piece pc, Square s);
int nnue_bucket(const NnueNet *net, const Position *pos);
/* The reference: fresh accumulators and plain scalar arithmetic, from the side to
 * move's view. */
Value nnue_evaluate_full(const NnueNet *net, const Position *pos);

/*
 * The accumulators of a search: one pair (Red's and Black's perspective) per ply on a
 * stack indexed by the search's ply. Making a move records only what it changed; the
 * accumulators are brought up to date when an evaluation needs them, from the nearest
 * computed ply below, or refreshed from the board when that is cheaper. One stack per
 * search (thread); the network is only read.
 *
 * Use: nnue_stack_reset when the position at ply 0 is set; before pos_do_move(m) at
 * ply, nnue_stack_push(st, pos, ply, m) (nnue_stack_push_null before a null move);
 * an undo needs nothing. nnue_evaluate(st, net, pos, ply) with pos the position at ply.
 */
enum { NNUE_STACK_PLIES = MAX_PLY + 4 };

typedef struct {
    uint8_t piece;    /* the piece moved, NO_PIECE for a null move */
    uint8_t from, to; /* its squares */
    uint8_t captured; /* the piece taken on to, or NO_PIECE */
} NnueDelta;

typedef struct NnueStack {
    uint32_t hidden;
    int16_t *acc;                      /* [NNUE_STACK_PLIES][COLOR_NB][hidden], 64-byte aligned */
    NnueDelta delta[NNUE_STACK_PLIES]; /* what the move into ply changed */
    bool computed[NNUE_STACK_PLIES];   /* acc of ply matches the position at ply */
} NnueStack;

bool nnue_stack_alloc(NnueStack *st, uint32_t hidden, char *err, size_t errlen);
void nnue_stack_free(NnueStack *st);

static inline void nnue_stack_reset(NnueStack *st)
{
    st->computed[0] = false;
}

static inline void nnue_stack_push(NnueStack *st, const Position *pos, int ply, Move m)
{
    NnueDelta *d = &st->delta[ply + 1];
    d->piece = pos->board[move_from(m)];
    d->from = (uint8_t)move_from(m);
    d->to = (uint8_t)move_to(m);
    d->captured = pos->board[move_to(m)];
    st->computed[ply + 1] = false;
}

static inline void nnue_stack_push_null(NnueStack *st, int ply)
{
    st->delta[ply + 1].piece = NO_PIECE;
    st->computed[ply + 1] = false;
}

/* The network's evaluation of pos (the position at ply), from the side to move's view,
 * through the stack's accumulators. Equal to nnue_evaluate_full. */
Value nnue_evaluate(NnueStack *st, const NnueNet *net, const Position *pos, int ply);

#endif
