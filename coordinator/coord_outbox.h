/*
 * What the server sends its workers, and the group commit that puts every ACK after the
 * flush that makes its game durable.
 *
 * A reply goes out at once, except an ACK while games wait for the flush: then it is
 * held, and so is every later ACK (which keeps each worker's ACKs in order). The run file
 * is flushed once COORD_OUTBOX_GAMES games wait or the oldest has waited
 * COORD_OUTBOX_SECONDS (a flush costs ~3 ms, an fsync and ~7 KB of file space, so one per
 * game would bloat the file at low game rates), before any DONE, and on the way out; only
 * then are the games it made durable appended to the -pgnout file (coord_pgnout.h) and
 * the held ACKs sent, each first written to the --ack-log. An ack log that
 * cannot be written sets `failed`, which stops the server.
 *
 * A flush that fails (a full disk, a quota, a file size limit) stalls the server: the
 * held ACKs stay held, no work goes out (WAIT), no game is taken, and the flush is tried
 * again every 5 s; once it succeeds everything goes on. A write that failed part-way
 * (runfile_broken) stalls until the coordinator is stopped.
 */
#ifndef CHUHE_COORD_OUTBOX_H
#define CHUHE_COORD_OUTBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord_acklog.h"
#include "contracts/protocol.h"

typedef struct CoordHub CoordHub;

enum {
    COORD_OUTBOX_GAMES = 32, /* games that make a flush due */
};
#define COORD_OUTBOX_SECONDS 2.0 /* the longest a stored game waits for its flush */

/* An ACK held until the games before it are durable. */
typedef struct {
    int worker;
    uint8_t *frame;
    size_t len;
    ProtoAck ack;
} CoordHeldAck;

typedef struct {
    CoordHeldAck *held;
    size_t nheld, cap;
    bool dirty;  /* games appended since the last flush */
    int pending; /* their number */
    double first_pending_at;
    AckLog *acklog; /* --ack-log, or NULL */
    bool failed;    /* the ack log cannot be written: the server stops */
    /* The run file cannot be written: no work goes out, no game is taken, the ACKs of
     * the games waiting for the flush are held until a retry succeeds. */
    bool stalled;
    bool stall_broken; /* a write failed part-way: only a restart goes on */
    double stalled_at, next_retry, next_note;
} CoordOutbox;

/* Sends m to worker i; an ACK waits for the pending flush if games wait for one. */
void coord_outbox_send(CoordHub *h, int i, const ProtoMsg *m);

/* A message without fields (WAIT, DONE). DONE forces the pending flush first, so that a
 * worker never leaves with a game unacknowledged; while the run file cannot be written
 * it becomes a WAIT. */
void coord_outbox_send_simple(CoordHub *h, int i, ProtoType type);

/* An ERROR with text (control characters made spaces). */
void coord_outbox_send_error(CoordHub *h, int i, const char *text);

/* A game was appended to the run file: its ACK (sent next) waits for the flush. */
void coord_outbox_appended(CoordHub *h);

/* Whether the pending flush is due now. */
bool coord_outbox_commit_due(const CoordHub *h);

/* When the pending flush falls due by time; HUGE_VAL when none waits (or stalled). */
double coord_outbox_commit_at(const CoordHub *h);

/* Flushes the run file, then sends the held ACKs in order. Stalls on a failed flush. */
void coord_outbox_commit(CoordHub *h);

/* A flush failed (why): holds everything that depends on it, and logs so. */
void coord_outbox_stall(CoordHub *h, const char *why);

/* While stalled: tries the flush again when due (or at once with force), and goes on
 * when it succeeds. True when the run file has just become writable again. */
bool coord_outbox_retry(CoordHub *h, bool force);

/* Frees the held ACKs (unsent) and the list. */
void coord_outbox_free(CoordOutbox *o);

#endif
