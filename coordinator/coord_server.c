#include "coord_server.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "coord_accept.h"
#include "coord_acklog.h"
#include "coord_auth.h"
#include "limits.h"
#include "coord_log.h"
#include "coord_signal.h"
#include "timeman.h"

enum {
    IDENTITY_MAX = 255,   /* ZeroMQ routing ids are at most 255 bytes */
    DRAIN_BATCH = 512,    /* messages handled per turn before the flush and the ACKs */
    WAIT_RETRY_MS = 1000, /* WAIT answer when no pair is free */
    POLL_MAX_MS = 200,
    /* Group commit: the run file is flushed once this many games wait for it, or... */
    COMMIT_GAMES = 32,
};
/* ...once the oldest has waited this long (a flush costs ~3 ms, an fsync and ~7 KB of
 * file space, so one per game would bloat the file at low game rates). */
#define COMMIT_SECONDS 2.0
/* Workers of an earlier session reconnect within their backoff (at most 5 s) and beat
 * every second: a session that starts on a complete run waits this long for them. */
#define REJOIN_SECONDS 7.0
/* A run file that cannot be written (a full disk) is tried again this often, and a
 * reminder logged this often while it stays so. */
#define STALL_RETRY_SECONDS 5.0
#define STALL_NOTE_SECONDS 60.0

/* A worker rank, known by its ZeroMQ routing id. Never removed, so indices stay valid
 * in the schedule; a worker silent past the heartbeat timeout is only marked dead. */
typedef struct {
    uint8_t id[IDENTITY_MAX];
    size_t idlen;
    char name[PROTO_HOST_MAX + 96]; /* for log lines */
    bool hello;
    uint32_t rank;
    char host[PROTO_HOST_MAX + 1]; /* from its HELLO */
    double last_seen;
    bool alive;
    bool told_done;
    int64_t pair; /* the pair it holds, -1 for none */
    uint64_t stored, rejected;
    WorkerLimits limits;
    bool throttled; /* waiting for ACKs under --max-inflight (logged once) */
    /* CURVE: the key its messages carry, checked against the allow-list generation */
    char key[KEYS_Z85_LEN + 1];
    char key_name[KEYS_NAME_MAX + 1];
    uint64_t key_generation;
    bool key_allowed;
} Worker;

/* An ACK held back until the games before it are durable (all ACKs wait while any game
 * does, which keeps each worker's ACKs in order). */
typedef struct {
    int worker;
    uint8_t *frame;
    size_t len;
    ProtoAck ack;
} Deferred;

typedef struct {
    CoordRun *run;
    const CoordConfig *cfg;
    void *ctx, *router;
    Worker *workers;
    int nworkers, cap;
    Deferred *out;
    int nout, out_cap;
    ProtoMsg *msg; /* the message being handled (large) */
    uint8_t *buf;  /* encoding buffer, PROTO_MAX_MESSAGE bytes */
    bool dirty;    /* games appended since the last flush */
    int pending;   /* their number */
    double first_pending_at;
    double now;
    double finished_at; /* when the target was reached; < 0 before */
    bool failed;        /* the ack log cannot be written: the session stops */
    bool complete_at_start;
    AckLog *acklog;     /* --ack-log, or NULL */
    CoordAuth *auth;
    /* The run file cannot be written: no work goes out, no game is taken, the ACKs of
     * the games waiting for the flush are held until a retry succeeds. */
    bool stalled;
    bool stall_broken; /* a write failed part-way: only a restart goes on */
    double stalled_at, next_retry, next_note;
    CoordLogGate gate; /* lines about dropped messages and games not taken */
} Server;

/* ---- workers ---- */

static double now_s(void)
{
    return (double)time_now_ms() / 1000.0;
}

static void name_from_identity(Worker *w)
{
    bool printable = w->idlen > 0;
    for (size_t i = 0; i < w->idlen; i++)
        if (w->id[i] < 0x20 || w->id[i] > 0x7e)
            printable = false;
    if (printable) {
        snprintf(w->name, sizeof w->name, "%.*s", (int)w->idlen, (const char *)w->id);
        return;
    }
    size_t n = 0;
    n += (size_t)snprintf(w->name, sizeof w->name, "peer 0x");
    for (size_t i = 0; i < w->idlen && n + 3 < sizeof w->name; i++)
        n += (size_t)snprintf(w->name + n, sizeof w->name - n, "%02x", w->id[i]);
}

static int worker_find(Server *s, const uint8_t *id, size_t len)
{
    for (int i = 0; i < s->nworkers; i++)
        if (s->workers[i].idlen == len && !memcmp(s->workers[i].id, id, len))
            return i;
    if (s->nworkers == s->cap) {
        int cap = s->cap ? s->cap * 2 : 64;
        Worker *w = realloc(s->workers, (size_t)cap * sizeof *w);
        if (!w)
            COORD_FATAL("out of memory for %d workers", cap);
        s->workers = w;
        s->cap = cap;
    }
    Worker *w = &s->workers[s->nworkers];
    memset(w, 0, sizeof *w);
    memcpy(w->id, id, len);
    w->idlen = len;
    w->pair = -1;
    w->alive = true;
    w->last_seen = s->now;
    limits_init(&w->limits, s->cfg, s->now);
    name_from_identity(w);
    return s->nworkers++;
}

static int live_workers(const Server *s)
{
    int n = 0;
    for (int i = 0; i < s->nworkers; i++)
        n += s->workers[i].alive;
    return n;
}

/* ---- sending ---- */

/* Sends a frame to worker i now. A worker that is gone or not reading is skipped with a
 * log line: it will ask again or time out. */
static void send_frame(Server *s, int i, const uint8_t *frame, size_t len)
{
    Worker *w = &s->workers[i];
    if (zmq_send(s->router, w->id, w->idlen, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
        zmq_send(s->router, frame, len, ZMQ_DONTWAIT) < 0) {
        int e = zmq_errno();
        ProtoType type = len >= 8 ? (ProtoType)(frame[6] | frame[7] << 8) : PROTO_TYPE_NB;
        uint64_t held_back;
        if (e != EHOSTUNREACH && e != EAGAIN)
            COORD_FATAL("zmq_send: %s", zmq_strerror(e));
        /* a peer that does not read (a flood) must not flood the log */
        if (coord_log_gate(&s->gate, s->now, &held_back))
            coord_log("%s to %s not sent: %s%s", proto_type_name(type), w->name,
                      e == EHOSTUNREACH ? "disconnected" : "its queue is full",
                      held_back ? " (and more lines like this)" : "");
    }
}

static void commit(Server *s);
static void stall(Server *s, const char *why);

/* Records an ACK in the --ack-log before it is sent; a log that fails stops the run. */
static bool ack_logged(Server *s, int i, const ProtoAck *a)
{
    char err[COORD_PATH_MAX + 64];
    if (!s->acklog || acklog_ack(s->acklog, a, s->workers[i].name, err, sizeof err))
        return true;
    coord_log("%s; stopping", err);
    s->failed = true;
    return false;
}

/* Sends m to worker i. ACKs wait for the pending flush if games wait for one. */
static void send_to(Server *s, int i, const ProtoMsg *m)
{
    ProtoError perr;
    size_t len = proto_encode(m, s->buf, PROTO_MAX_MESSAGE, &perr);
    if (!len)
        COORD_FATAL("encoding %s for %s: %s", proto_type_name(m->type), s->workers[i].name,
                    perr.msg);
    if (m->type != PROTO_ACK || (!s->dirty && s->nout == 0)) {
        if (m->type == PROTO_ACK) {
            if (!ack_logged(s, i, &m->ack))
                return;
            limits_acked(&s->workers[i].limits, m->ack.pair_id, m->ack.game_in_pair);
        }
        send_frame(s, i, s->buf, len);
        return;
    }
    if (s->nout == s->out_cap) {
        int cap = s->out_cap ? s->out_cap * 2 : 64;
        Deferred *d = realloc(s->out, (size_t)cap * sizeof *d);
        if (!d)
            COORD_FATAL("out of memory for replies");
        s->out = d;
        s->out_cap = cap;
    }
    Deferred *d = &s->out[s->nout++];
    d->worker = i;
    d->len = len;
    d->ack = m->ack;
    d->frame = malloc(len);
    if (!d->frame)
        COORD_FATAL("out of memory for a reply");
    memcpy(d->frame, s->buf, len);
}

/* DONE forces the pending flush first, so that a worker never leaves with a game
 * unacknowledged; while the run file cannot be written it becomes a WAIT. */
static void send_simple(Server *s, int i, ProtoType type)
{
    if (type == PROTO_DONE && (s->dirty || s->nout))
        commit(s);
    if (type == PROTO_DONE && (s->stalled || s->failed))
        type = PROTO_WAIT;
    ProtoMsg m;
    proto_init(&m, type);
    if (type == PROTO_WAIT)
        m.wait.retry_ms = WAIT_RETRY_MS;
    send_to(s, i, &m);
    if (type == PROTO_DONE)
        s->workers[i].told_done = true;
}

static void send_error(Server *s, int i, const char *text)
{
    ProtoMsg m;
    proto_init(&m, PROTO_ERROR);
    snprintf(m.error.text, sizeof m.error.text, "%s", text);
    for (char *p = m.error.text; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    send_to(s, i, &m);
}

/* Engine i as the WORK message's player, with its own limits. */
static void fill_player(const CoordConfig *cfg, uint16_t id, int i, ProtoPlayer *p)
{
    CoordLimits lim;
    coord_engine_limits(cfg, i, &lim);
    p->player_id = id;
    p->kind = cfg->cmd[i][0] ? PROTO_ENGINE_EXTERNAL : PROTO_ENGINE_BUILTIN;
    p->hash_mb = (uint32_t)cfg->hash_mb;
    p->nodes = lim.nodes;
    p->depth = (uint16_t)lim.depth;
    p->movetime_ms = (uint32_t)lim.movetime;
    p->tc_base_ms = lim.tc_base_ms;
    p->tc_inc_ms = lim.tc_inc_ms;
    p->margin_ms = (uint32_t)cfg->timemargin;
    if (p->kind == PROTO_ENGINE_EXTERNAL) {
        ProtoExtProtocol proto = PROTO_EXT_UCI;
        if (cfg->proto[i][0] && !proto_ext_protocol_parse(cfg->proto[i], &proto))
            proto = PROTO_EXT_UCI;
        p->protocol = (uint8_t)proto;
        snprintf(p->command, sizeof p->command, "%s", cfg->cmd[i]);
        snprintf(p->options, sizeof p->options, "%s", cfg->options[i]);
        snprintf(p->dir, sizeof p->dir, "%s", cfg->dir[i]);
    } else {
        snprintf(p->weights, sizeof p->weights, "%s", cfg->weights[i]);
    }
}

static void send_work(Server *s, int i, uint64_t pair, const Opening *op)
{
    const CoordConfig *cfg = s->cfg;
    ProtoMsg *m = s->msg;
    proto_init(m, PROTO_WORK);
    ProtoWork *w = &m->work;
    w->run_id = runfile_run_id(s->run->rf);
    w->pair_id = pair;
    snprintf(w->opening_fen, sizeof w->opening_fen, "%s", op->fen);
    w->nmoves = (uint16_t)op->nmoves;
    memcpy(w->moves, op->moves, (size_t)op->nmoves * sizeof op->moves[0]);
    int engine[2];
    sched_pair_engines(s->run->sched, pair, &engine[0], &engine[1]);
    for (int p = 0; p < 2; p++)
        fill_player(cfg, s->run->players[engine[p]], engine[p], &w->players[p]);
    w->settings.max_plies = (uint16_t)cfg->max_plies;
    w->settings.resign_moves = (uint16_t)cfg->resign_moves;
    w->settings.resign_score = (uint16_t)cfg->resign_score;
    w->settings.draw_after = (uint16_t)cfg->draw_after;
    w->settings.draw_moves = (uint16_t)cfg->draw_moves;
    w->settings.draw_score = (uint16_t)cfg->draw_score;
    send_to(s, i, m);
}

/* ---- handling ---- */

/* A worker asks for work. A repeated request for a pair it has sent nothing for yet
 * (the WORK was lost) gets the same pair again; otherwise what it held and did not
 * finish goes back to the queue. */
static void on_request(Server *s, int i)
{
    Worker *w = &s->workers[i];
    Schedule *sched = s->run->sched;
    if (s->stalled) {
        send_simple(s, i, PROTO_WAIT);
        return;
    }
    if (w->pair >= 0) {
        Pair *p = sched_pair(sched, (uint64_t)w->pair);
        if (p && p->state == PAIR_ASSIGNED && p->worker == i) {
            if (p->received == 0) {
                SchedError serr;
                const Opening *op = sched_opening(sched, (uint64_t)w->pair, &serr);
                if (op) {
                    sched_reassign(sched, (uint64_t)w->pair, i, s->now);
                    send_work(s, i, (uint64_t)w->pair, op);
                    return;
                }
            }
            coord_log("pair %lld is unfinished after %s moved on: back in the queue",
                      (long long)w->pair, w->name);
            sched_release(sched, (uint64_t)w->pair);
            limits_release(&w->limits, (uint64_t)w->pair);
        }
        w->pair = -1;
    }
    if (limits_held(&w->limits) >= s->cfg->max_inflight && !sched_finished(sched)) {
        if (!w->throttled)
            coord_log("%s holds %d pairs not yet acknowledged (--max-inflight %d): no new pair "
                      "until their ACKs are out",
                      w->name, limits_held(&w->limits), s->cfg->max_inflight);
        w->throttled = true;
        send_simple(s, i, PROTO_WAIT);
        return;
    }
    w->throttled = false;
    uint64_t id;
    while (sched_assign_next(sched, i, s->now, &id)) {
        SchedError serr;
        const Opening *op = sched_opening(sched, id, &serr);
        if (!op) {
            coord_log("%s; pair dropped", serr.msg);
            sched_drop(sched, id);
            continue;
        }
        w->pair = (int64_t)id;
        limits_hold(&w->limits, id);
        send_work(s, i, id, op);
        return;
    }
    send_simple(s, i, sched_finished(sched) ? PROTO_DONE : PROTO_WAIT);
}

/* ACKs of stored games go out after the flush (send_to defers them: dirty is set). */
static void send_ack(Server *s, int i, const ProtoGame *g, ProtoAckStatus status, uint64_t id)
{
    ProtoMsg m;
    proto_init(&m, PROTO_ACK);
    m.ack = (ProtoAck){.run_id = g->run_id,
                       .pair_id = g->pair_id,
                       .game_in_pair = g->game_in_pair,
                       .status = (uint8_t)status,
                       .game_id = id};
    send_to(s, i, &m);
}

static uint64_t record_nodes(const GameRecord *r)
{
    uint64_t n = 0;
    for (int i = 0; i < r->nplies; i++)
        n += r->plies[i].nodes;
    return n;
}

static void on_game(Server *s, int i)
{
    Worker *w = &s->workers[i];
    CoordRun *run = s->run;
    ProtoGame *g = &s->msg->game;
    uint64_t held_back;
    if (s->stalled) {
        /* not acknowledged: the worker sends it again */
        if (coord_log_gate(&s->gate, s->now, &held_back))
            coord_log("game %u of pair %llu from %s not taken: the run file cannot be written%s",
                      g->game_in_pair, (unsigned long long)g->pair_id, w->name,
                      held_back ? " (and more lines like this)" : "");
        return;
    }
    Pair *held = sched_pair(run->sched, g->pair_id);
    if (held && held->state == PAIR_ASSIGNED && held->worker == i)
        held->received++;

    uint64_t id = 0;
    char why[600];
    AcceptVerdict v = accept_game(s->cfg, run->rf, run->sched, g, &id, why, sizeof why);
    if (v == ACCEPT_DUPLICATE) {
        run->stats->duplicates++;
        send_ack(s, i, g, PROTO_ACK_DUPLICATE, id);
        return;
    }
    if (v == ACCEPT_REJECT) {
        coord_log("rejected game %u of pair %llu from %s (rank %u): %s", g->game_in_pair,
                  (unsigned long long)g->pair_id, w->name, g->worker_rank, why);
        run->stats->rejected++;
        w->rejected++;
        if (sched_game_rejected(run->sched, g->pair_id))
            coord_log("pair %llu dropped after %d rejected games", (unsigned long long)g->pair_id,
                      SCHED_MAX_REJECTS);
        send_ack(s, i, g, PROTO_ACK_REJECTED, 0);
        return;
    }
    if (v == ACCEPT_ADOPT) {
        coord_log("pair %llu adopted from %s (handed out before a restart)",
                  (unsigned long long)g->pair_id, w->name);
        sched_adopt(run->sched, g->pair_id, i, s->now);
        if (w->pair < 0)
            w->pair = (int64_t)g->pair_id;
    }
    int engine[2]; /* the pair's engines; engine[0] has Red in game 0, Black in game 1 */
    sched_pair_engines(run->sched, g->pair_id, &engine[0], &engine[1]);
    int red = engine[g->game_in_pair], black = engine[1 - g->game_in_pair];
    RunError rerr;
    if (!runfile_append_game(run->rf, &g->rec, g->pair_id, g->game_in_pair, run->players[red],
                             run->players[black], g->worker_rank, &id, &rerr)) {
        if (runfile_broken(run->rf)) {
            stall(s, rerr.msg); /* not the game's fault: it is not acknowledged */
            return;
        }
        coord_log("rejected game %u of pair %llu from %s (rank %u): run file: %s", g->game_in_pair,
                  (unsigned long long)g->pair_id, w->name, g->worker_rank, rerr.msg);
        run->stats->rejected++;
        send_ack(s, i, g, PROTO_ACK_REJECTED, 0);
        return;
    }
    if (!s->dirty)
        s->first_pending_at = s->now;
    s->dirty = true;
    s->pending++;
    w->stored++;
    sched_game_stored(run->sched, g->pair_id, g->game_in_pair);
    runstats_worker_game(run->stats, w->hello ? w->host : "?", g->worker_rank, g->rec.reason);
    if (runstats_add_stored(run->stats, run->rf, id, record_nodes(&g->rec), true)) {
        double llr;
        SprtState ss = runstats_sprt(run->stats, &llr);
        if (ss != SPRT_CONTINUE && !run->sched->stopped) {
            char text[160];
            sprt_format(text, sizeof text, &run->stats->sprt, llr);
            coord_log("SPRT: %s: %s; no new pairs, the workers finish their games", text,
                      sprt_state_name(ss));
            sched_stop(run->sched);
        }
    }
    if (s->cfg->rating_interval > 0 && run->stats->games % (uint64_t)s->cfg->rating_interval == 0) {
        char text[1024];
        runstats_rating_text(run->stats, text, sizeof text);
        coord_log("after %llu games: %s", (unsigned long long)run->stats->games, text);
    }
    send_ack(s, i, g, PROTO_ACK_STORED, id);
}

static void on_hello(Server *s, int i)
{
    Worker *w = &s->workers[i];
    const ProtoHello *h = &s->msg->hello;
    w->hello = true;
    w->rank = h->rank;
    snprintf(w->host, sizeof w->host, "%s", h->hostname);
    snprintf(w->name, sizeof w->name, "rank %u/%u on %s (pid %u)", h->rank, h->world_size,
             h->hostname, h->pid);
    if (w->key[0])
        coord_log("worker joined: %s, version %s, key %s", w->name, h->version,
                  w->key_name[0] ? w->key_name : w->key);
    else
        coord_log("worker joined: %s, version %s", w->name, h->version);
    if (strcmp(h->version, CHUHE_VERSION))
        coord_log("note: %s runs version %s, the coordinator %s", w->name, h->version,
                  CHUHE_VERSION);
}

static void on_heartbeat(Server *s, int i)
{
    if (sched_finished(s->run->sched) && !s->stalled) {
        send_simple(s, i, PROTO_DONE);
        return;
    }
    ProtoMsg m;
    proto_init(&m, PROTO_HEARTBEAT);
    m.heartbeat.rank = s->workers[i].rank;
    m.heartbeat.games_done = s->run->stats->games;
    send_to(s, i, &m);
}

/* Receives one frame of a multipart message into buf; returns its size (may exceed
 * cap: then only cap bytes are kept), or -1 when nothing is waiting. */
static long recv_frame(Server *s, void *buf, size_t cap, bool *more)
{
    int n = zmq_recv(s->router, buf, cap, ZMQ_DONTWAIT);
    if (n < 0) {
        if (zmq_errno() == EAGAIN)
            return -1;
        if (zmq_errno() == EINTR)
            return -1;
        COORD_FATAL("zmq_recv: %s", zmq_strerror(zmq_errno()));
    }
    int m = 0;
    size_t ml = sizeof m;
    if (zmq_getsockopt(s->router, ZMQ_RCVMORE, &m, &ml) != 0)
        COORD_FATAL("zmq_getsockopt(ZMQ_RCVMORE): %s", zmq_strerror(zmq_errno()));
    *more = m != 0;
    return n;
}

/* Receives the body frame into s->buf (at most PROTO_MAX_MESSAGE bytes kept); returns
 * its size and the peer's CURVE key (the User-Id the ZAP handler gave, "" for none). */
static long recv_body(Server *s, bool *more, char key[KEYS_Z85_LEN + 1])
{
    zmq_msg_t msg;
    if (zmq_msg_init(&msg) != 0 || zmq_msg_recv(&msg, s->router, ZMQ_DONTWAIT) < 0)
        COORD_FATAL("zmq_msg_recv: %s", zmq_strerror(zmq_errno()));
    size_t len = zmq_msg_size(&msg);
    memcpy(s->buf, zmq_msg_data(&msg), len < PROTO_MAX_MESSAGE ? len : PROTO_MAX_MESSAGE);
    *more = zmq_msg_more(&msg) != 0;
    const char *user = coord_auth_curve(s->auth) ? zmq_msg_gets(&msg, "User-Id") : NULL;
    snprintf(key, KEYS_Z85_LEN + 1, "%s", user ? user : "");
    if (zmq_msg_close(&msg) != 0)
        COORD_FATAL("zmq_msg_close: %s", zmq_strerror(zmq_errno()));
    return (long)len;
}

/* Whether a worker's message is taken under the rate limit; logs the start of a run of
 * drops and the start of a flood. */
static bool admitted(Server *s, int i)
{
    Worker *w = &s->workers[i];
    LimitVerdict v = limits_admit(&w->limits, s->cfg, s->now);
    if (v == DROP_FIRST) {
        uint64_t held_back;
        if (coord_log_gate(&s->gate, s->now, &held_back))
            coord_log("rate limit: %s sends more than %g messages a second (burst %g): "
                      "dropping the excess",
                      w->name, s->cfg->rate_limit, w->limits.rate.burst);
    } else if (v == DROP_FLOODING) {
        int released = sched_release_worker(s->run->sched, i);
        limits_release_all(&w->limits);
        w->pair = -1;
        coord_log("rate limit: %s keeps flooding (%.0f messages dropped without a pause): "
                  "ignored for %.0f s%s",
                  w->name, LIMITS_FLOOD_BURSTS * w->limits.rate.burst, LIMITS_IGNORE_SECONDS,
                  released ? "; its pair is back in the queue" : "");
    }
    return v == ADMIT;
}

/* CURVE: whether the key a message came with is (still) on the allow-list. A reload can
 * take a key off; the connections made with it stay up, so their messages are dropped. */
static bool key_allowed(Server *s, int i, const char *key)
{
    Worker *w = &s->workers[i];
    if (!coord_auth_curve(s->auth))
        return true;
    uint64_t gen = coord_auth_generation(s->auth);
    if (strcmp(key, w->key) || w->key_generation != gen || !w->key[0]) {
        const AllowedKey *k = coord_auth_find(s->auth, key);
        snprintf(w->key, sizeof w->key, "%s", key);
        snprintf(w->key_name, sizeof w->key_name, "%s", k ? k->name : "");
        w->key_generation = gen;
        w->key_allowed = k != NULL;
    }
    uint64_t held_back;
    if (!w->key_allowed && coord_log_gate(&s->gate, s->now, &held_back))
        coord_log("dropped a message from %s: its key %s is no longer allowed", w->name,
                  key[0] ? key : "(none)");
    return w->key_allowed;
}

/* Handles one waiting message; false when none was waiting. */
static bool handle_one(Server *s)
{
    uint8_t id[IDENTITY_MAX];
    bool more = false;
    long idlen = recv_frame(s, id, sizeof id, &more);
    if (idlen < 0)
        return false;
    if (!more)
        return true; /* a ROUTER always prefixes the routing id; cannot happen */
    char key[KEYS_Z85_LEN + 1];
    long len = recv_body(s, &more, key);
    int i = worker_find(s, id, (size_t)(idlen > IDENTITY_MAX ? IDENTITY_MAX : idlen));
    Worker *w = &s->workers[i];
    bool one_frame = !more;
    uint8_t junk[64];
    while (more && recv_frame(s, junk, sizeof junk, &more) >= 0) {
    }
    if (!admitted(s, i) || !key_allowed(s, i, key))
        return true;
    if (!w->alive)
        coord_log("%s is back", w->name);
    w->alive = true;
    w->last_seen = s->now;
    if (!one_frame) {
        coord_log("rejected message from %s: more than one frame", w->name);
        send_error(s, i, "a message is one frame");
        return true;
    }
    ProtoError perr;
    if (len > PROTO_MAX_MESSAGE) {
        coord_log("rejected message from %s: %ld bytes, more than %d", w->name, len,
                  PROTO_MAX_MESSAGE);
        send_error(s, i, "message too long");
        return true;
    }
    if (!proto_decode(s->buf, (size_t)len, s->msg, &perr)) {
        coord_log("rejected message from %s: %s", w->name, perr.msg);
        char text[PROTO_TEXT_MAX + 1];
        snprintf(text, sizeof text, "bad message: %s", perr.msg);
        send_error(s, i, text);
        return true;
    }
    switch (s->msg->type) {
    case PROTO_HELLO:
        on_hello(s, i);
        break;
    case PROTO_WORK_REQUEST:
        on_request(s, i);
        break;
    case PROTO_GAME:
        on_game(s, i);
        break;
    case PROTO_HEARTBEAT:
        on_heartbeat(s, i);
        break;
    case PROTO_ERROR:
        coord_log("%s reports: %s", w->name, s->msg->error.text);
        break;
    default:
        coord_log("rejected message from %s: %s is not a worker's message", w->name,
                  proto_type_name(s->msg->type));
        send_error(s, i, "unexpected message type");
        break;
    }
    return true;
}

/* Games appended and not yet on disk. */
static uint64_t unflushed(const Server *s)
{
    return runfile_game_count(s->run->rf) - runfile_flushed_game_count(s->run->rf);
}

/* A flush failed: hold everything that depends on it. */
static void stall(Server *s, const char *why)
{
    s->stalled = true;
    s->stall_broken = runfile_broken(s->run->rf);
    s->stalled_at = s->now;
    s->next_retry = s->now + STALL_RETRY_SECONDS;
    s->next_note = s->now + STALL_NOTE_SECONDS;
    coord_log_progress_end();
    unsigned long long safe = (unsigned long long)runfile_flushed_game_count(s->run->rf);
    if (s->stall_broken)
        coord_log("run file write failed part-way: %s; no new work and no games are taken, the "
                  "%llu games acknowledged so far are in the file: stop the coordinator "
                  "(SIGTERM) and start it again to go on",
                  why, safe);
    else
        coord_log("cannot write the run file: %s; no new work and no games are taken, %llu "
                  "games wait unacknowledged, the %llu acknowledged so far are in the file; "
                  "trying again every %.0f s",
                  why, (unsigned long long)unflushed(s), safe, STALL_RETRY_SECONDS);
}

/* Flushes the run file, then sends the replies held back for it, in order. While the
 * file cannot be written they stay held (retry_flush sends them). */
static void commit(Server *s)
{
    if (s->stalled)
        return;
    if (s->dirty) {
        RunError err;
        if (!runfile_flush(s->run->rf, &err)) {
            stall(s, err.msg);
            return;
        }
        s->dirty = false;
        s->pending = 0;
    }
    for (int k = 0; k < s->nout; k++) {
        Deferred *d = &s->out[k];
        if (!s->failed && ack_logged(s, d->worker, &d->ack)) {
            limits_acked(&s->workers[d->worker].limits, d->ack.pair_id, d->ack.game_in_pair);
            send_frame(s, d->worker, d->frame, d->len);
        }
        free(d->frame);
    }
    s->nout = 0;
}

/* While stalled: tries the flush again when due, and goes on when it succeeds. */
static void retry_flush(Server *s, bool now)
{
    if (!s->stalled || s->stall_broken || (!now && s->now < s->next_retry))
        return;
    RunError err;
    uint64_t waiting = unflushed(s);
    if (runfile_flush(s->run->rf, &err)) {
        s->stalled = false;
        coord_log("the run file is writable again after %.0f s: %llu games written and "
                  "acknowledged; handing out work again",
                  s->now - s->stalled_at, (unsigned long long)waiting);
        if (s->finished_at >= 0)
            s->finished_at = s->now; /* the drain time starts again */
        commit(s);
        return;
    }
    s->next_retry = s->now + STALL_RETRY_SECONDS;
    if (runfile_broken(s->run->rf)) {
        stall(s, err.msg);
    } else if (s->now >= s->next_note) {
        s->next_note = s->now + STALL_NOTE_SECONDS;
        coord_log("still cannot write the run file (for %.0f s): %s", s->now - s->stalled_at,
                  err.msg);
    }
}

static bool commit_due(const Server *s)
{
    if (!s->dirty)
        return s->nout > 0;
    return s->pending >= COMMIT_GAMES || s->now - s->first_pending_at >= COMMIT_SECONDS ||
           sched_finished(s->run->sched);
}

/* Workers silent past the timeout are marked dead and their pairs re-queued; runs of
 * dropped messages that have ended are logged. */
static void sweep(Server *s)
{
    for (int i = 0; i < s->nworkers; i++) {
        Worker *w = &s->workers[i];
        uint64_t dropped;
        bool ignored;
        if (limits_drops_ended(&w->limits, s->now, &dropped, &ignored))
            coord_log("rate limit: %s %s (%llu messages dropped)", w->name,
                      ignored ? "is no longer ignored" : "is back within the limit",
                      (unsigned long long)dropped);
        if (!w->alive || s->now - w->last_seen <= s->cfg->heartbeat_timeout)
            continue;
        w->alive = false;
        limits_release_all(&w->limits);
        int released = sched_release_worker(s->run->sched, i);
        if (released == 1 && w->pair >= 0)
            coord_log("%s silent for %.0f s: pair %lld back in the queue", w->name,
                      s->now - w->last_seen, (long long)w->pair);
        else if (released)
            coord_log("%s silent for %.0f s: %d pairs back in the queue", w->name,
                      s->now - w->last_seen, released);
        else if (!w->told_done)
            coord_log("%s silent for %.0f s", w->name, s->now - w->last_seen);
        w->pair = -1;
    }
}

void coord_run_stats_context(const CoordRun *run, int live, RunStatsContext *cx)
{
    const Schedule *sc = run->sched;
    cx->pairs_done = sc->complete;
    cx->pairs_target = sc->target;
    cx->pairs_out = sc->outstanding;
    cx->requeued = sc->requeued;
    cx->dropped = sc->dropped;
    cx->workers = live;
    cx->now = now_s();
}

static void progress(Server *s)
{
    RunStatsContext cx;
    coord_run_stats_context(s->run, live_workers(s), &cx);
    char line[2048];
    if (s->cfg->json) {
        StrBuf json;
        strbuf_init(&json);
        runstats_json(s->run->stats, &cx, "progress", NULL, false, &json);
        printf("%s\n", strbuf_text(&json));
        fflush(stdout);
        strbuf_free(&json);
    }
    runstats_progress_text(s->run->stats, &cx, line, sizeof line);
    coord_log_progress(line);
}

/* Done when the target is reached and every live worker has been told (on a run complete
 * from the start, after REJOIN_SECONDS), or the drain time is over. */
static bool drained(Server *s)
{
    if (!sched_finished(s->run->sched) || s->stalled)
        return false;
    if (s->finished_at < 0) {
        s->finished_at = s->now;
        coord_log_progress_end();
        coord_log("target reached: %llu pairs; telling the workers",
                  (unsigned long long)s->run->sched->complete);
    }
    if (s->now - s->finished_at >= s->cfg->drain_timeout)
        return true;
    /* Restarted after the last game: the ranks of the killed session, still waiting for
     * their ACKs, are told DONE when they reconnect rather than left to time out. */
    if (s->complete_at_start && s->now - s->finished_at < REJOIN_SECONDS)
        return false;
    for (int i = 0; i < s->nworkers; i++)
        if (s->workers[i].alive && !s->workers[i].told_done)
            return false;
    return true;
}

static void setopt_int(void *sock, int opt, int v, const char *name)
{
    if (zmq_setsockopt(sock, opt, &v, sizeof v) != 0)
        COORD_FATAL("zmq_setsockopt(%s): %s", name, zmq_strerror(zmq_errno()));
}

static bool open_socket(Server *s)
{
    s->ctx = zmq_ctx_new();
    if (!s->ctx)
        COORD_FATAL("zmq_ctx_new: %s", zmq_strerror(zmq_errno()));
    s->router = zmq_socket(s->ctx, ZMQ_ROUTER);
    if (!s->router)
        COORD_FATAL("zmq_socket: %s", zmq_strerror(zmq_errno()));
    setopt_int(s->router, ZMQ_LINGER, 1000, "ZMQ_LINGER");
    setopt_int(s->router, ZMQ_ROUTER_MANDATORY, 1, "ZMQ_ROUTER_MANDATORY");
    /* a worker reconnecting under its routing id takes it over */
    setopt_int(s->router, ZMQ_ROUTER_HANDOVER, 1, "ZMQ_ROUTER_HANDOVER");
    /* a longer message from a worker ends its connection */
    int64_t maxsize = s->cfg->max_message;
    if (zmq_setsockopt(s->router, ZMQ_MAXMSGSIZE, &maxsize, sizeof maxsize) != 0)
        COORD_FATAL("zmq_setsockopt(ZMQ_MAXMSGSIZE): %s", zmq_strerror(zmq_errno()));
    CoordError err;
    s->auth = coord_auth_open(s->ctx, s->router, s->cfg, &err);
    if (!s->auth) {
        coord_log("%s", err.msg);
        return false;
    }
    if (zmq_bind(s->router, s->cfg->bind) != 0) {
        coord_log("cannot bind %s: %s", s->cfg->bind, zmq_strerror(zmq_errno()));
        return false;
    }
    char endpoint[COORD_ENDPOINT_MAX];
    size_t len = sizeof endpoint;
    if (zmq_getsockopt(s->router, ZMQ_LAST_ENDPOINT, endpoint, &len) != 0)
        COORD_FATAL("zmq_getsockopt(ZMQ_LAST_ENDPOINT): %s", zmq_strerror(zmq_errno()));
    unsigned long long run_id = (unsigned long long)runfile_run_id(s->run->rf);
    if (s->cfg->json) {
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
    return true;
}

static void close_socket(Server *s)
{
    coord_auth_close(&s->auth);
    if (s->router && zmq_close(s->router) != 0)
        coord_log("zmq_close: %s", zmq_strerror(zmq_errno()));
    s->router = NULL;
    if (s->ctx) {
        while (zmq_ctx_term(s->ctx) != 0 && zmq_errno() == EINTR) {
        }
    }
    s->ctx = NULL;
}

ServeStatus coord_serve(CoordRun *run, int *signo, int *workers)
{
    Server s;
    memset(&s, 0, sizeof s);
    s.run = run;
    s.cfg = run->cfg;
    s.finished_at = -1;
    s.complete_at_start = sched_finished(run->sched);
    s.now = now_s();
    s.msg = malloc(sizeof *s.msg);
    s.buf = malloc(PROTO_MAX_MESSAGE);
    if (!s.msg || !s.buf)
        COORD_FATAL("out of memory");
    *signo = 0;
    ServeStatus status = SERVE_FAILED;
    int sigfd = coord_signals_install();
    char err[COORD_PATH_MAX + 64];
    if (s.cfg->ack_log[0]) {
        s.acklog = acklog_open(s.cfg->ack_log, runfile_run_id(run->rf),
                               runfile_game_count(run->rf), err, sizeof err);
        if (!s.acklog) {
            coord_log("%s", err);
            s.failed = true;
        }
    }
    if (!s.failed && open_socket(&s)) {
        double next_progress = s.now;
        for (;;) {
            s.now = now_s();
            if (drained(&s)) {
                status = SERVE_COMPLETE;
                break;
            }
            if (s.now >= next_progress) {
                progress(&s);
                next_progress = s.now + s.cfg->progress_interval;
            }
            double wait = next_progress - s.now;
            if (s.dirty && !s.stalled && s.first_pending_at + COMMIT_SECONDS - s.now < wait)
                wait = s.first_pending_at + COMMIT_SECONDS - s.now;
            long timeout = wait > 0 ? (long)(wait * 1000) + 1 : 0;
            if (timeout > POLL_MAX_MS)
                timeout = POLL_MAX_MS;
            zmq_pollitem_t items[2 + COORD_AUTH_POLL_ITEMS] = {{s.router, 0, ZMQ_POLLIN, 0},
                                                               {NULL, sigfd, ZMQ_POLLIN, 0}};
            int nitems = 2 + coord_auth_poll_items(s.auth, items + 2);
            if (zmq_poll(items, nitems, timeout) < 0 && zmq_errno() != EINTR)
                COORD_FATAL("zmq_poll: %s", zmq_strerror(zmq_errno()));
            s.now = now_s();
            int sig = coord_signal_pending();
            if (sig == SIGHUP && coord_auth_curve(s.auth)) {
                coord_auth_reload(s.auth);
                sig = 0;
            }
            if (sig) {
                *signo = sig;
                status = SERVE_INTERRUPTED;
                break;
            }
            coord_auth_handle(s.auth, s.now);
            for (int k = 0; k < DRAIN_BATCH && handle_one(&s); k++) {
            }
            retry_flush(&s, false);
            if (commit_due(&s))
                commit(&s);
            if (s.failed)
                break;
            sweep(&s);
        }
    }
    /* Games received but not yet committed are flushed and acknowledged on the way out
     * (a stalled run file gets one more try). */
    if (!s.failed && s.router) {
        retry_flush(&s, true);
        commit(&s);
    }
    for (int k = 0; k < s.nout; k++)
        free(s.out[k].frame);
    coord_log_progress_end();
    if (status != SERVE_FAILED)
        progress(&s);
    coord_log_progress_end();
    if (s.acklog && !acklog_close(&s.acklog, !s.failed, runfile_game_count(run->rf), err,
                                  sizeof err)) {
        coord_log("%s", err);
        s.failed = true;
    }
    close_socket(&s);
    coord_signals_remove();
    *workers = s.nworkers;
    free(s.workers);
    free(s.out);
    free(s.msg);
    free(s.buf);
    return s.failed ? SERVE_FAILED : status;
}
