#include "coord_server.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "coord_hub.h"
#include "coord_json.h"
#include "coord_log.h"
#include "coord_signal.h"
#include "coord_store.h"
#include "coord_dispatch.h"
#include "coord_spsa_report.h"
#include "timeman.h"

enum {
    DRAIN_BATCH = 512, /* messages handled per turn before the flush and the ACKs */
    POLL_MAX_MS = 200,
};
/* Workers of an earlier session reconnect within their backoff (at most 5 s) and beat
 * every second: a session that starts on a complete run waits this long for them. */
#define REJOIN_SECONDS 7.0

static double now_s(void)
{
    return (double)time_now_ms() / 1000.0;
}

/* ---- receiving ---- */

/* Receives one frame of a multipart message into buf; returns its size (may exceed
 * cap: then only cap bytes are kept), or -1 when nothing is waiting. */
static long recv_frame(CoordHub *h, void *buf, size_t cap, bool *more)
{
    int n = zmq_recv(h->router, buf, cap, ZMQ_DONTWAIT);
    if (n < 0) {
        if (zmq_errno() == EAGAIN)
            return -1;
        if (zmq_errno() == EINTR)
            return -1;
        COORD_FATAL("zmq_recv: %s", zmq_strerror(zmq_errno()));
    }
    int m = 0;
    size_t ml = sizeof m;
    if (zmq_getsockopt(h->router, ZMQ_RCVMORE, &m, &ml) != 0)
        COORD_FATAL("zmq_getsockopt(ZMQ_RCVMORE): %s", zmq_strerror(zmq_errno()));
    *more = m != 0;
    return n;
}

/* Receives the body frame into h->buf (at most PROTO_MAX_MESSAGE bytes kept); returns
 * its size and the peer's CURVE key (the User-Id the ZAP handler gave, "" for none). */
static long recv_body(CoordHub *h, bool *more, char key[KEYS_Z85_LEN + 1])
{
    zmq_msg_t msg;
    if (zmq_msg_init(&msg) != 0 || zmq_msg_recv(&msg, h->router, ZMQ_DONTWAIT) < 0)
        COORD_FATAL("zmq_msg_recv: %s", zmq_strerror(zmq_errno()));
    size_t len = zmq_msg_size(&msg);
    memcpy(h->buf, zmq_msg_data(&msg), len < PROTO_MAX_MESSAGE ? len : PROTO_MAX_MESSAGE);
    *more = zmq_msg_more(&msg) != 0;
    const char *user = coord_auth_curve(h->auth) ? zmq_msg_gets(&msg, "User-Id") : NULL;
    snprintf(key, KEYS_Z85_LEN + 1, "%s", user ? user : "");
    if (zmq_msg_close(&msg) != 0)
        COORD_FATAL("zmq_msg_close: %s", zmq_strerror(zmq_errno()));
    return (long)len;
}

/* ---- handling ---- */

static void on_heartbeat(CoordHub *h, int i)
{
    if (coord_sched_finished(h->run->sched) && !h->out.stalled) {
        coord_outbox_send_simple(h, i, PROTO_DONE);
        return;
    }
    ProtoMsg m;
    proto_init(&m, PROTO_HEARTBEAT);
    m.heartbeat.rank = h->workers.items[i].rank;
    m.heartbeat.games_done = h->run->stats->games;
    coord_outbox_send(h, i, &m);
}

/* Hands the decoded message h->msg from worker i to its handler. */
static void dispatch(CoordHub *h, int i)
{
    CoordWorker *w = &h->workers.items[i];
    switch (h->msg->type) {
    case PROTO_HELLO:
        coord_workers_hello(w, &h->msg->hello);
        break;
    case PROTO_WORK_REQUEST:
        coord_dispatch_request(h, i);
        break;
    case PROTO_GAME:
        coord_store_game(h, i);
        break;
    case PROTO_HEARTBEAT:
        on_heartbeat(h, i);
        break;
    case PROTO_ERROR:
        coord_log("%s reports: %s", w->name, h->msg->error.text);
        break;
    default:
        coord_log("rejected message from %s: %s is not a worker's message", w->name,
                  proto_type_name(h->msg->type));
        coord_outbox_send_error(h, i, "unexpected message type");
        break;
    }
}

/* Decodes worker i's message of len bytes (in h->buf, one frame or not) into h->msg;
 * false, with an ERROR sent, when it is malformed. */
static bool decode(CoordHub *h, int i, long len, bool one_frame)
{
    const char *name = h->workers.items[i].name;
    if (!one_frame) {
        coord_log("rejected message from %s: more than one frame", name);
        coord_outbox_send_error(h, i, "a message is one frame");
        return false;
    }
    ProtoError perr;
    if (len > PROTO_MAX_MESSAGE) {
        coord_log("rejected message from %s: %ld bytes, more than %d", name, len,
                  PROTO_MAX_MESSAGE);
        coord_outbox_send_error(h, i, "message too long");
        return false;
    }
    if (!proto_decode(h->buf, (size_t)len, h->msg, &perr)) {
        coord_log("rejected message from %s: %s", name, perr.msg);
        char text[PROTO_TEXT_MAX + 1];
        snprintf(text, sizeof text, "bad message: %s", perr.msg);
        coord_outbox_send_error(h, i, text);
        return false;
    }
    return true;
}

/* Handles one waiting message; false when none was waiting. */
static bool handle_one(CoordHub *h)
{
    uint8_t id[COORD_IDENTITY_MAX];
    bool more = false;
    long idlen = recv_frame(h, id, sizeof id, &more);
    if (idlen < 0)
        return false;
    if (!more)
        return true; /* a ROUTER always prefixes the routing id; cannot happen */
    char key[KEYS_Z85_LEN + 1];
    long len = recv_body(h, &more, key);
    int i = coord_workers_find(&h->workers, id,
                               (size_t)(idlen > COORD_IDENTITY_MAX ? COORD_IDENTITY_MAX : idlen),
                               h->cfg, h->now);
    CoordWorker *w = &h->workers.items[i];
    bool one_frame = !more;
    uint8_t junk[64];
    while (more && recv_frame(h, junk, sizeof junk, &more) >= 0) {
    }
    if (!coord_workers_admit(&h->workers, i, h->cfg, h->run->sched, &h->gate, h->now) ||
        !coord_workers_key_allowed(w, h->auth, key, &h->gate, h->now))
        return true;
    if (!w->alive)
        coord_log("%s is back", w->name);
    w->alive = true;
    w->last_seen = h->now;
    if (decode(h, i, len, one_frame))
        dispatch(h, i);
    return true;
}

/* ---- progress and the end ---- */

void coord_server_stats_context(const CoordRun *run, int live, RunStatsContext *cx)
{
    const Schedule *sc = run->sched;
    *cx = (RunStatsContext){.pairs_done = sc->complete,
                            .pairs_target = sc->target,
                            .pairs_out = sc->outstanding,
                            .requeued = sc->requeued,
                            .dropped = sc->dropped,
                            .workers = live,
                            .now = now_s()};
}

static void progress(CoordHub *h)
{
    RunStatsContext cx;
    coord_server_stats_context(h->run, coord_workers_live(&h->workers), &cx);
    uint64_t waiting = coord_store_pairs_waiting(h);
    cx.pairs_done -= waiting; /* as the games: done once in the file */
    cx.pairs_out += waiting;
    char line[2048];
    if (h->cfg->json) {
        StrBuf json, spsa;
        strbuf_init(&json);
        strbuf_init(&spsa);
        if (h->run->spsa)
            coord_spsa_report_json(h->run->spsa, &spsa);
        coord_runstats_json(h->run->stats, &cx, "progress",
                            h->run->spsa ? strbuf_text(&spsa) : NULL, false, &json);
        printf("%s\n", strbuf_text(&json));
        fflush(stdout);
        strbuf_free(&json);
        strbuf_free(&spsa);
    }
    coord_runstats_progress_text(h->run->stats, &cx, line, sizeof line);
    if (h->run->spsa)
        coord_spsa_report_progress(h->run->spsa, line, sizeof line);
    coord_log_progress(line);
    /* the live page; other state for it (an SPSA run's parameters) goes in for NULL */
    if (h->run->live)
        coord_live_publish(h->run->live, h->run->stats, &cx, NULL);
}

/* Done when the target is reached and every live worker has been told (on a run complete
 * from the start, after REJOIN_SECONDS), or the drain time is over. */
static bool drained(CoordHub *h)
{
    if (!coord_sched_finished(h->run->sched) || h->out.stalled)
        return false;
    if (h->finished_at < 0) {
        h->finished_at = h->now;
        coord_log_progress_end();
        coord_log("target reached: %llu pairs; telling the workers",
                  (unsigned long long)h->run->sched->complete);
    }
    if (h->now - h->finished_at >= h->cfg->drain_timeout)
        return true;
    /* Restarted after the last game: the ranks of the killed session, still waiting for
     * their ACKs, are told DONE when they reconnect rather than left to time out. */
    if (h->complete_at_start && h->now - h->finished_at < REJOIN_SECONDS)
        return false;
    for (int i = 0; i < h->workers.count; i++)
        if (h->workers.items[i].alive && !h->workers.items[i].told_done)
            return false;
    return true;
}

/* While stalled: the flush tried again; a run file writable again restarts the drain
 * time. */
static void retry(CoordHub *h, bool force)
{
    if (coord_outbox_retry(h, force) && h->finished_at >= 0)
        h->finished_at = h->now;
}

/* ---- the socket ---- */

static void setopt_int(void *sock, int opt, int v, const char *name)
{
    if (zmq_setsockopt(sock, opt, &v, sizeof v) != 0)
        COORD_FATAL("zmq_setsockopt(%s): %s", name, zmq_strerror(zmq_errno()));
}

/* Prints where the coordinator listens: the line a launcher reads for the endpoint. */
static void announce(const CoordHub *h, const char *endpoint)
{
    unsigned long long run_id = (unsigned long long)runfile_run_id(h->run->rf);
    if (h->cfg->json) {
        char line[COORD_ENDPOINT_MAX * 2 + 64];
        size_t n = 0;
        snprintf(line, sizeof line, "{\"event\":\"listening\",\"endpoint\":");
        n = strlen(line);
        coord_json_string(line, sizeof line, &n, endpoint);
        printf("%s,\"run_id\":\"%016llx\"}\n", line, run_id);
    } else {
        printf("listening %s run_id %016llx\n", endpoint, run_id);
    }
    fflush(stdout);
    coord_log("listening on %s", endpoint);
}

static bool open_socket(CoordHub *h)
{
    h->ctx = zmq_ctx_new();
    if (!h->ctx)
        COORD_FATAL("zmq_ctx_new: %s", zmq_strerror(zmq_errno()));
    h->router = zmq_socket(h->ctx, ZMQ_ROUTER);
    if (!h->router)
        COORD_FATAL("zmq_socket: %s", zmq_strerror(zmq_errno()));
    setopt_int(h->router, ZMQ_LINGER, 1000, "ZMQ_LINGER");
    setopt_int(h->router, ZMQ_ROUTER_MANDATORY, 1, "ZMQ_ROUTER_MANDATORY");
    /* a worker reconnecting under its routing id takes it over */
    setopt_int(h->router, ZMQ_ROUTER_HANDOVER, 1, "ZMQ_ROUTER_HANDOVER");
    /* a longer message from a worker ends its connection */
    int64_t maxsize = h->cfg->max_message;
    if (zmq_setsockopt(h->router, ZMQ_MAXMSGSIZE, &maxsize, sizeof maxsize) != 0)
        COORD_FATAL("zmq_setsockopt(ZMQ_MAXMSGSIZE): %s", zmq_strerror(zmq_errno()));
    CoordError err;
    h->auth = coord_auth_open(h->ctx, h->router, h->cfg, &err);
    if (!h->auth) {
        coord_log("%s", err.msg);
        return false;
    }
    if (zmq_bind(h->router, h->cfg->bind) != 0) {
        coord_log("cannot bind %s: %s", h->cfg->bind, zmq_strerror(zmq_errno()));
        return false;
    }
    size_t len = sizeof h->endpoint;
    if (zmq_getsockopt(h->router, ZMQ_LAST_ENDPOINT, h->endpoint, &len) != 0)
        COORD_FATAL("zmq_getsockopt(ZMQ_LAST_ENDPOINT): %s", zmq_strerror(zmq_errno()));
    return true;
}

static void close_socket(CoordHub *h)
{
    coord_auth_close(&h->auth);
    if (h->router && zmq_close(h->router) != 0)
        coord_log("zmq_close: %s", zmq_strerror(zmq_errno()));
    h->router = NULL;
    if (h->ctx) {
        while (zmq_ctx_term(h->ctx) != 0 && zmq_errno() == EINTR) {
        }
    }
    h->ctx = NULL;
}

/* ---- the loop ---- */

/* How long the next poll may wait: until the next progress line or the pending flush,
 * at most POLL_MAX_MS. */
static long poll_timeout(const CoordHub *h, double next_progress)
{
    double wait = next_progress - h->now;
    double commit_at = coord_outbox_commit_at(h);
    if (commit_at - h->now < wait)
        wait = commit_at - h->now;
    long timeout = wait > 0 ? (long)(wait * 1000) + 1 : 0;
    return timeout > POLL_MAX_MS ? POLL_MAX_MS : timeout;
}

/* Serves until the run is done (SERVE_COMPLETE), a signal (SERVE_INTERRUPTED, *signo)
 * or the ack log fails (h->out.failed). */
static ServeStatus loop(CoordHub *h, int sigfd, int *signo)
{
    double next_progress = h->now;
    for (;;) {
        h->now = now_s();
        if (drained(h))
            return SERVE_COMPLETE;
        if (h->now >= next_progress) {
            progress(h);
            next_progress = h->now + h->cfg->progress_interval;
        }
        zmq_pollitem_t items[2 + COORD_AUTH_POLL_ITEMS] = {{h->router, 0, ZMQ_POLLIN, 0},
                                                           {NULL, sigfd, ZMQ_POLLIN, 0}};
        int nitems = 2 + coord_auth_poll_items(h->auth, items + 2);
        if (zmq_poll(items, nitems, poll_timeout(h, next_progress)) < 0 && zmq_errno() != EINTR)
            COORD_FATAL("zmq_poll: %s", zmq_strerror(zmq_errno()));
        h->now = now_s();
        int sig = coord_signal_pending();
        if (sig == SIGHUP && coord_auth_curve(h->auth)) {
            coord_auth_reload(h->auth);
            sig = 0;
        }
        if (sig) {
            *signo = sig;
            return SERVE_INTERRUPTED;
        }
        coord_auth_handle(h->auth, h->now);
        for (int k = 0; k < DRAIN_BATCH && handle_one(h); k++) {
        }
        retry(h, false);
        if (coord_outbox_commit_due(h))
            coord_outbox_commit(h);
        if (h->out.failed)
            return SERVE_FAILED;
        coord_workers_sweep(&h->workers, h->cfg, h->run->sched, h->now);
    }
}

CoordHub *coord_server_open(const CoordConfig *cfg)
{
    /* HDF5's filters allocate and free a zlib state and chunk buffers (~300 KB) for every
     * chunk they compress; by default glibc hands that memory back to the system each
     * time and faults it in again for the next chunk, a sixth of the time spent storing
     * a game. Freed memory stays in the process instead. */
    mallopt(M_MMAP_THRESHOLD, 8 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    CoordHub *h = calloc(1, sizeof *h);
    if (!h)
        COORD_FATAL("out of memory");
    h->cfg = cfg;
    h->finished_at = -1;
    h->msg = malloc(sizeof *h->msg);
    h->buf = malloc(PROTO_MAX_MESSAGE);
    if (!h->msg || !h->buf)
        COORD_FATAL("out of memory");
    h->sigfd = coord_signals_install();
    char err[COORD_PATH_MAX + 64];
    bool ok = true;
    if (cfg->ack_log[0] && !(h->out.acklog = coord_acklog_open(cfg->ack_log, err, sizeof err))) {
        coord_log("%s", err);
        ok = false;
    }
    if (!ok || !open_socket(h))
        coord_server_abandon(&h);
    return h;
}

/* Frees what coord_server_open made. */
static void server_free(CoordHub **hp)
{
    CoordHub *h = *hp;
    close_socket(h);
    coord_signals_remove();
    coord_workers_free(&h->workers);
    coord_store_free(&h->unflushed);
    free(h->msg);
    free(h->buf);
    free(h);
    *hp = NULL;
}

void coord_server_abandon(CoordHub **hp)
{
    if (!*hp)
        return;
    coord_acklog_discard(&(*hp)->out.acklog);
    server_free(hp);
}

ServeStatus coord_server_run(CoordHub **hp, CoordRun *run, int *signo, int *workers)
{
    CoordHub *h = *hp;
    h->run = run;
    h->complete_at_start = coord_sched_finished(run->sched);
    h->now = now_s();
    *signo = 0;
    ServeStatus status = SERVE_FAILED;
    char err[COORD_PATH_MAX + 64];
    if (h->out.acklog && !coord_acklog_begin(h->out.acklog, runfile_run_id(run->rf),
                                             runfile_game_count(run->rf), err, sizeof err)) {
        coord_log("%s", err);
        h->out.failed = true;
    }
    if (!h->out.failed) {
        announce(h, h->endpoint);
        status = loop(h, h->sigfd, signo);
    }
    /* Games received but not yet committed are flushed and acknowledged on the way out
     * (a stalled run file gets one more try). */
    if (!h->out.failed) {
        retry(h, true);
        coord_outbox_commit(h);
    }
    uint64_t dropped = coord_store_drop_unflushed(h);
    if (dropped)
        coord_log("%" PRIu64 " games that could not be written are left out of the run file and "
                  "of the counts: none was acknowledged, their workers send them again to the "
                  "next session",
                  dropped);
    coord_outbox_free(&h->out);
    coord_log_progress_end();
    if (status != SERVE_FAILED)
        progress(h);
    coord_log_progress_end();
    if (h->out.acklog &&
        !coord_acklog_close(&h->out.acklog, !h->out.failed, runfile_flushed_game_count(run->rf),
                            err, sizeof err)) {
        coord_log("%s", err);
        h->out.failed = true;
    }
    if (h->out.failed)
        status = SERVE_FAILED;
    *workers = h->workers.count;
    server_free(hp);
    return status;
}
