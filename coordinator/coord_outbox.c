#include "coord_outbox.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "array.h"
#include "coord_hub.h"
#include "coord_log.h"
#include "coord_store.h"

/* A run file that cannot be written is tried again this often, and a reminder logged
 * this often while it stays so. */
#define STALL_RETRY_SECONDS 5.0
#define STALL_NOTE_SECONDS 60.0

enum { WAIT_RETRY_MS = 1000 }; /* WAIT answer when no pair is free */

/* Sends a frame to worker i now. A worker that is gone or not reading is skipped with a
 * log line: it will ask again or time out. */
static void send_frame(CoordHub *h, int i, const uint8_t *frame, size_t len)
{
    CoordWorker *w = &h->workers.items[i];
    if (zmq_send(h->router, w->id, w->idlen, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
        zmq_send(h->router, frame, len, ZMQ_DONTWAIT) < 0) {
        int e = zmq_errno();
        ProtoType type = len >= 8 ? (ProtoType)(frame[6] | frame[7] << 8) : PROTO_TYPE_NB;
        uint64_t held_back;
        if (e != EHOSTUNREACH && e != EAGAIN)
            COORD_FATAL("zmq_send: %s", zmq_strerror(e));
        /* a peer that does not read (a flood) must not flood the log */
        if (coord_log_gate(&h->gate, h->now, &held_back))
            coord_log("%s to %s not sent: %s%s", proto_type_name(type), w->name,
                      e == EHOSTUNREACH ? "disconnected" : "its queue is full",
                      held_back ? " (and more lines like this)" : "");
    }
}

/* Records an ACK in the --ack-log before it is sent; a log that fails stops the run. */
static bool ack_logged(CoordHub *h, int i, const ProtoAck *a)
{
    CoordOutbox *o = &h->out;
    char err[COORD_PATH_MAX + 64];
    if (!o->acklog || coord_acklog_ack(o->acklog, a, h->workers.items[i].name, err, sizeof err))
        return true;
    coord_log("%s; stopping", err);
    o->failed = true;
    return false;
}

/* Holds an encoded ACK until the flush. */
static void hold(CoordHub *h, int i, const ProtoAck *ack, size_t len)
{
    CoordOutbox *o = &h->out;
    if (!array_reserve((void **)&o->held, &o->cap, o->nheld + 1, sizeof *o->held, 64))
        COORD_FATAL("out of memory for replies");
    CoordHeldAck *d = &o->held[o->nheld++];
    d->worker = i;
    d->len = len;
    d->ack = *ack;
    d->frame = malloc(len);
    if (!d->frame)
        COORD_FATAL("out of memory for a reply");
    memcpy(d->frame, h->buf, len);
}

void coord_outbox_send(CoordHub *h, int i, const ProtoMsg *m)
{
    CoordOutbox *o = &h->out;
    ProtoError perr;
    size_t len = proto_encode(m, h->buf, PROTO_MAX_MESSAGE, &perr);
    if (!len)
        COORD_FATAL("encoding %s for %s: %s", proto_type_name(m->type), h->workers.items[i].name,
                    perr.msg);
    if (m->type == PROTO_ACK && (o->dirty || o->nheld > 0)) {
        hold(h, i, &m->ack, len);
        return;
    }
    if (m->type == PROTO_ACK) {
        if (!ack_logged(h, i, &m->ack))
            return;
        coord_quota_acked(&h->workers.items[i].limits, m->ack.pair_id, m->ack.game_in_pair);
    }
    send_frame(h, i, h->buf, len);
}

void coord_outbox_send_simple(CoordHub *h, int i, ProtoType type)
{
    CoordOutbox *o = &h->out;
    if (type == PROTO_DONE && (o->dirty || o->nheld))
        coord_outbox_commit(h);
    if (type == PROTO_DONE && (o->stalled || o->failed))
        type = PROTO_WAIT;
    ProtoMsg m;
    proto_init(&m, type);
    if (type == PROTO_WAIT)
        m.wait.retry_ms = WAIT_RETRY_MS;
    coord_outbox_send(h, i, &m);
    if (type == PROTO_DONE)
        h->workers.items[i].told_done = true;
}

void coord_outbox_send_error(CoordHub *h, int i, const char *text)
{
    ProtoMsg m;
    proto_init(&m, PROTO_ERROR);
    snprintf(m.error.text, sizeof m.error.text, "%s", text);
    for (char *p = m.error.text; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    coord_outbox_send(h, i, &m);
}

void coord_outbox_appended(CoordHub *h)
{
    CoordOutbox *o = &h->out;
    if (!o->dirty)
        o->first_pending_at = h->now;
    o->dirty = true;
    o->pending++;
}

bool coord_outbox_commit_due(const CoordHub *h)
{
    const CoordOutbox *o = &h->out;
    if (!o->dirty)
        return o->nheld > 0;
    return o->pending >= COORD_OUTBOX_GAMES ||
           h->now - o->first_pending_at >= COORD_OUTBOX_SECONDS ||
           coord_sched_finished(h->run->sched);
}

double coord_outbox_commit_at(const CoordHub *h)
{
    const CoordOutbox *o = &h->out;
    return o->dirty && !o->stalled ? o->first_pending_at + COORD_OUTBOX_SECONDS : HUGE_VAL;
}

/* Games appended and not yet on disk. */
static uint64_t unflushed(const CoordHub *h)
{
    return runfile_game_count(h->run->rf) - runfile_flushed_game_count(h->run->rf);
}

void coord_outbox_stall(CoordHub *h, const char *why)
{
    CoordOutbox *o = &h->out;
    o->stalled = true;
    o->stall_broken = runfile_broken(h->run->rf);
    o->stalled_at = h->now;
    o->next_retry = h->now + STALL_RETRY_SECONDS;
    o->next_note = h->now + STALL_NOTE_SECONDS;
    coord_log_progress_end();
    unsigned long long safe = (unsigned long long)runfile_flushed_game_count(h->run->rf);
    if (o->stall_broken)
        coord_log("run file write failed part-way: %s; no new work and no games are taken, the "
                  "%llu games acknowledged so far are in the file: stop the coordinator "
                  "(SIGTERM) and start it again to go on",
                  why, safe);
    else
        coord_log("cannot write the run file: %s; no new work and no games are taken, %llu "
                  "games wait unacknowledged, the %llu acknowledged so far are in the file; "
                  "trying again every %.0f s",
                  why, (unsigned long long)unflushed(h), safe, STALL_RETRY_SECONDS);
}

void coord_outbox_commit(CoordHub *h)
{
    CoordOutbox *o = &h->out;
    if (o->stalled)
        return;
    if (o->dirty) {
        RunError err;
        if (!runfile_flush(h->run->rf, &err)) {
            coord_outbox_stall(h, err.msg);
            return;
        }
        o->dirty = false;
        o->pending = 0;
    }
    coord_store_flushed(h); /* counted once durable, before the ACKs say so */
    /* the PGN before the ACKs: a game acknowledged is a game in the PGN too */
    if (h->run->pgnout)
        coord_pgnout_sync(h->run->pgnout, h->run->rf);
    for (size_t k = 0; k < o->nheld; k++) {
        CoordHeldAck *d = &o->held[k];
        if (!o->failed && ack_logged(h, d->worker, &d->ack)) {
            coord_quota_acked(&h->workers.items[d->worker].limits, d->ack.pair_id,
                              d->ack.game_in_pair);
            send_frame(h, d->worker, d->frame, d->len);
        }
        free(d->frame);
    }
    o->nheld = 0;
}

bool coord_outbox_retry(CoordHub *h, bool force)
{
    CoordOutbox *o = &h->out;
    if (!o->stalled || o->stall_broken || (!force && h->now < o->next_retry))
        return false;
    RunError err;
    uint64_t waiting = unflushed(h);
    if (runfile_flush(h->run->rf, &err)) {
        o->stalled = false;
        coord_log("the run file is writable again after %.0f s: %llu games written and "
                  "acknowledged; handing out work again",
                  h->now - o->stalled_at, (unsigned long long)waiting);
        coord_outbox_commit(h);
        return true;
    }
    o->next_retry = h->now + STALL_RETRY_SECONDS;
    if (runfile_broken(h->run->rf)) {
        coord_outbox_stall(h, err.msg);
    } else if (h->now >= o->next_note) {
        o->next_note = h->now + STALL_NOTE_SECONDS;
        coord_log("still cannot write the run file (for %.0f s): %s", h->now - o->stalled_at,
                  err.msg);
    }
    return false;
}

void coord_outbox_free(CoordOutbox *o)
{
    for (size_t k = 0; k < o->nheld; k++)
        free(o->held[k].frame);
    free(o->held);
    o->held = NULL;
    o->nheld = o->cap = 0;
}
