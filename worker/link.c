#include "link.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <zmq.h>

#include "array.h"
#include "diag.h"
#include "error.h"
#include "numparse.h"
#include "timeman.h"
#include "contracts/zmqmon.h"

enum {
    HEARTBEAT_MS = 1000,
    RESEND_FIRST_MS = 10000,
    RESEND_MAX_MS = 60000,
    RECONNECT_MAX_MS = 5000, /* ZeroMQ's reconnect backoff stops growing here */
    LINGER_MS = 1000,        /* bounded: zmq_ctx_term never hangs on a dead coordinator */
    HANDSHAKE_MS = 10000,    /* a connection that has not finished its handshake is dropped */
    HANDSHAKE_FAILURES = 3,  /* failed handshakes in a row that end the link */
    PROBE_MS = 2000,         /* how long the greeting probe waits for the peer */
    ZMTP_GREETING = 64,      /* bytes of a ZMTP 3 greeting; the mechanism at 12..31 */
};

/* A GAME waiting for its ACK, kept encoded. */
typedef struct {
    uint64_t pair_id;
    uint8_t game_in_pair;
    uint8_t *frame;
    size_t len;
    int64_t next_send_ms;
    int64_t backoff_ms;
} Pending;

struct Link {
    void *sock;
    void *monitor;  /* PAIR socket receiving the DEALER's connect/disconnect events */
    uint8_t *hello; /* the encoded HELLO, sent again on every new connection */
    size_t hello_len;
    int connects;
    bool curve;
    bool up;               /* the current connection finished its handshake */
    int failed_handshakes; /* in a row */
    char endpoint[256];
    char refusal[400]; /* why the coordinator refused us; "" */
    uint32_t rank;
    int64_t timeout_ms;
    Pending *pending;
    int npending;
    size_t cap;
    uint8_t *buf; /* PROTO_MAX_MESSAGE bytes: encoding and receiving */
    int64_t last_heartbeat_ms;
    bool expecting; /* something was sent since the last message came in */
    int64_t expect_since_ms;
    uint64_t games_done, nodes, rejected;
};

static void setopt(void *sock, int opt, const void *v, size_t len, const char *name)
{
    if (zmq_setsockopt(sock, opt, v, len) != 0)
        WORKER_FATAL("zmq_setsockopt(%s): %s", name, zmq_strerror(zmq_errno()));
}

static void setopt_int(void *sock, int opt, int v, const char *name)
{
    setopt(sock, opt, &v, sizeof v, name);
}

bool link_endpoint_check(const char *endpoint, char *msg, size_t size)
{
    if (!strncmp(endpoint, "ipc://", 6))
        return endpoint[6] ? true : error_set(msg, size, "ipc:// needs a path (ipc://PATH)");
    if (strncmp(endpoint, "tcp://", 6))
        return error_set(msg, size, "not tcp://HOST:PORT or ipc://PATH");
    const char *host = endpoint + 6, *colon = strrchr(host, ':');
    if (!colon || colon == host)
        return error_set(msg, size, "no host or no port: give tcp://HOST:PORT");
    size_t n = (size_t)(colon - host);
    if (host[0] == '[' ? n < 3 || host[n - 1] != ']' : memchr(host, ':', n) != NULL)
        return error_set(msg, size, "an IPv6 host goes in brackets: tcp://[::1]:PORT");
    if (memchr(host, '*', n))
        return error_set(msg, size, "'*' is for binding; give the coordinator's host");
    for (const char *p = host; p < colon; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return error_set(msg, size, "a blank or control character in the host");
    long long port;
    char why[160];
    if (!numparse_int("the port", colon + 1, 1, 65535, &port, why, sizeof why))
        return error_set(msg, size, "%s", why);
    return true;
}

Link *link_open(void *ctx, const char *endpoint, const char *identity, uint32_t rank,
                double timeout_s, const char *server_key, const KeyPair *keys, char *err,
                size_t size)
{
    Link *l = calloc(1, sizeof *l);
    if (!l || !(l->buf = malloc(PROTO_MAX_MESSAGE)))
        WORKER_FATAL("out of memory");
    l->rank = rank;
    l->timeout_ms = (int64_t)(timeout_s * 1000);
    l->sock = zmq_socket(ctx, ZMQ_DEALER);
    if (!l->sock)
        WORKER_FATAL("zmq_socket: %s", zmq_strerror(zmq_errno()));
    setopt_int(l->sock, ZMQ_LINGER, LINGER_MS, "ZMQ_LINGER");
    setopt(l->sock, ZMQ_ROUTING_ID, identity, strlen(identity), "ZMQ_ROUTING_ID");
    setopt_int(l->sock, ZMQ_RECONNECT_IVL_MAX, RECONNECT_MAX_MS, "ZMQ_RECONNECT_IVL_MAX");
    /* no message of the coordinator is longer: a longer one ends the connection */
    int64_t maxsize = PROTO_MAX_MESSAGE;
    setopt(l->sock, ZMQ_MAXMSGSIZE, &maxsize, sizeof maxsize, "ZMQ_MAXMSGSIZE");
    int handshake = l->timeout_ms < HANDSHAKE_MS ? (int)l->timeout_ms : HANDSHAKE_MS;
    setopt_int(l->sock, ZMQ_HANDSHAKE_IVL, handshake, "ZMQ_HANDSHAKE_IVL");
    snprintf(l->endpoint, sizeof l->endpoint, "%s", endpoint);
    l->curve = server_key != NULL;
    if (l->curve) {
        setopt(l->sock, ZMQ_CURVE_SERVERKEY, server_key, KEYS_Z85_LEN, "ZMQ_CURVE_SERVERKEY");
        setopt(l->sock, ZMQ_CURVE_PUBLICKEY, keys->public_z85, KEYS_Z85_LEN, "ZMQ_CURVE_PUBLICKEY");
        setopt(l->sock, ZMQ_CURVE_SECRETKEY, keys->secret_z85, KEYS_Z85_LEN, "ZMQ_CURVE_SECRETKEY");
    }
    /* Connection events tell a new connection (a restarted coordinator, a network
     * break) from the first, so that HELLO and the unacknowledged games go out again at
     * once rather than at the next resend. */
    char mon[64], msg[256];
    snprintf(mon, sizeof mon, "inproc://chuhe-link-%u", rank);
    l->monitor =
        zmqmon_open(ctx, l->sock, mon,
                    ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_SUCCEEDED |
                        ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                        ZMQ_EVENT_HANDSHAKE_FAILED_AUTH,
                    msg, sizeof msg);
    if (!l->monitor)
        WORKER_FATAL("%s", msg);
    if (zmq_connect(l->sock, endpoint) != 0) {
        /* an endpoint link_endpoint_check let through that ZeroMQ still refuses */
        error_set(err, size, "cannot connect to %s: %s", endpoint, zmq_strerror(zmq_errno()));
        link_close(&l, false);
        return NULL;
    }
    int64_t now = time_now_ms();
    l->last_heartbeat_ms = now;
    l->expecting = true; /* the coordinator has not been heard from yet */
    l->expect_since_ms = now;
    return l;
}

void link_close(Link **lp, bool deliver)
{
    Link *l = *lp;
    if (!l)
        return;
    if (!deliver)
        setopt_int(l->sock, ZMQ_LINGER, 0, "ZMQ_LINGER");
    if (zmq_socket_monitor(l->sock, NULL, 0) != 0)
        WORKER_FATAL("zmq_socket_monitor: %s", zmq_strerror(zmq_errno()));
    if (zmq_close(l->monitor) != 0 || zmq_close(l->sock) != 0)
        WORKER_FATAL("zmq_close: %s", zmq_strerror(zmq_errno()));
    free(l->hello);
    for (int i = 0; i < l->npending; i++)
        free(l->pending[i].frame);
    free(l->pending);
    free(l->buf);
    free(l);
    *lp = NULL;
}

static void expect_answer(Link *l, int64_t now)
{
    if (!l->expecting) {
        l->expecting = true;
        l->expect_since_ms = now;
    }
}

/* Sends one frame without blocking; false when ZeroMQ's queue is full. */
static bool send_frame(Link *l, const void *frame, size_t len)
{
    if (zmq_send(l->sock, frame, len, ZMQ_DONTWAIT) >= 0) {
        expect_answer(l, time_now_ms());
        return true;
    }
    if (zmq_errno() == EAGAIN || zmq_errno() == EINTR)
        return false;
    WORKER_FATAL("zmq_send: %s", zmq_strerror(zmq_errno()));
}

static size_t encode(Link *l, const ProtoMsg *m)
{
    ProtoError err;
    size_t len = proto_encode(m, l->buf, PROTO_MAX_MESSAGE, &err);
    if (!len)
        WORKER_FATAL("encoding %s: %s", proto_type_name(m->type), err.msg);
    return len;
}

bool link_send(Link *l, const ProtoMsg *m)
{
    size_t len = encode(l, m);
    if (m->type == PROTO_HELLO) {
        free(l->hello);
        if (!(l->hello = malloc(len)))
            WORKER_FATAL("out of memory");
        memcpy(l->hello, l->buf, len);
        l->hello_len = len;
    }
    return send_frame(l, l->buf, len);
}

void link_send_game(Link *l, const ProtoMsg *game)
{
    if (!array_reserve((void **)&l->pending, &l->cap, (size_t)l->npending + 1, sizeof *l->pending,
                       8))
        WORKER_FATAL("out of memory");
    size_t len = encode(l, game);
    Pending *p = &l->pending[l->npending];
    p->frame = malloc(len);
    if (!p->frame)
        WORKER_FATAL("out of memory");
    memcpy(p->frame, l->buf, len);
    p->len = len;
    p->pair_id = game->game.pair_id;
    p->game_in_pair = game->game.game_in_pair;
    p->backoff_ms = RESEND_FIRST_MS;
    /* a frame ZeroMQ could not queue now goes out with the next resend check */
    p->next_send_ms = send_frame(l, p->frame, len) ? time_now_ms() + p->backoff_ms : 0;
    l->npending++;
}

int link_unacked(const Link *l)
{
    return l->npending;
}

const char *link_refusal(const Link *l)
{
    return l->refusal;
}

uint64_t link_rejected(const Link *l)
{
    return l->rejected;
}

void link_set_progress(Link *l, uint64_t games_done, uint64_t nodes)
{
    l->games_done = games_done;
    l->nodes = nodes;
}

static void on_ack(Link *l, const ProtoAck *a)
{
    for (int i = 0; i < l->npending; i++) {
        Pending *p = &l->pending[i];
        if (p->pair_id != a->pair_id || p->game_in_pair != a->game_in_pair)
            continue;
        if (a->status == PROTO_ACK_REJECTED) {
            l->rejected++;
            diag_warn("game %u of pair %llu was rejected by the coordinator (see its log)",
                      a->game_in_pair, (unsigned long long)a->pair_id);
        }
        free(p->frame);
        l->pending[i] = l->pending[--l->npending];
        return;
    }
}

/* Heartbeat and resends that are due. */
static void due_sends(Link *l, int64_t now)
{
    if (now - l->last_heartbeat_ms >= HEARTBEAT_MS) {
        ProtoMsg m;
        proto_init(&m, PROTO_HEARTBEAT);
        m.heartbeat.rank = l->rank;
        m.heartbeat.games_done = l->games_done;
        m.heartbeat.nodes = l->nodes;
        if (link_send(l, &m))
            l->last_heartbeat_ms = now;
    }
    for (int i = 0; i < l->npending; i++) {
        Pending *p = &l->pending[i];
        if (now < p->next_send_ms)
            continue;
        if (p->next_send_ms)
            diag_info("no ACK for game %u of pair %llu: sending it again", p->game_in_pair,
                      (unsigned long long)p->pair_id);
        if (send_frame(l, p->frame, p->len)) {
            p->next_send_ms = now + p->backoff_ms;
            p->backoff_ms = p->backoff_ms * 2 > RESEND_MAX_MS ? RESEND_MAX_MS : p->backoff_ms * 2;
        }
    }
}

/* A socket for the probe, with PROBE_MS timeouts on connecting, sending and reading;
 * connected to addr, else -1. */
static int probe_socket(int family, const struct sockaddr *addr, socklen_t len)
{
    struct timeval tv = {PROBE_MS / 1000, PROBE_MS % 1000 * 1000};
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0 ||
                    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
                    connect(fd, addr, len) != 0)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* A socket connected to the endpoint's peer (link_endpoint_check's form); -1 when none. */
static int probe_connect(const char *endpoint)
{
    if (!strncmp(endpoint, "ipc://", 6)) {
        struct sockaddr_un sun = {.sun_family = AF_UNIX};
        snprintf(sun.sun_path, sizeof sun.sun_path, "%s", endpoint + 6);
        return probe_socket(AF_UNIX, (struct sockaddr *)&sun, sizeof sun);
    }
    char host[256];
    const char *h = endpoint + 6, *colon = strrchr(h, ':');
    bool bracket = h[0] == '[';
    snprintf(host, sizeof host, "%.*s", (int)(colon - h) - 2 * bracket, h + bracket);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    if (getaddrinfo(host, colon + 1, &hints, &ai) != 0)
        return -1;
    int fd = -1;
    for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next)
        fd = probe_socket(a->ai_family, a->ai_addr, a->ai_addrlen);
    freeaddrinfo(ai);
    return fd;
}

/* Reads up to n bytes (fewer at the end of the stream or the timeout). */
static size_t read_upto(int fd, unsigned char *buf, size_t n)
{
    size_t got = 0;
    ssize_t r;
    while (got < n && (r = recv(fd, buf + got, n - got, 0)) > 0)
        got += (size_t)r;
    return got;
}

/*
 * What the peer at the endpoint is, from its ZMTP greeting, when a handshake failed:
 * ZeroMQ's events alone do not tell a coordinator with other keys from a server that is
 * not ZeroMQ at all. A probe connection reads the peer's signature (a ZeroMQ server
 * sends it at once), answers with its own and the major version, which makes the peer
 * send the rest of its greeting, and stops there, before any mechanism is compared.
 * mech gets the security mechanism the peer announces ("NULL", "CURVE"). False when the
 * peer could not be reached; true with mech "" when it answered but not with a greeting.
 */
static bool probe_mechanism(const char *endpoint, char mech[21])
{
    mech[0] = '\0';
    int fd = probe_connect(endpoint);
    if (fd < 0)
        return false;
    static const unsigned char hello[11] = {0xff, [9] = 0x7f, [10] = 3};
    unsigned char in[ZMTP_GREETING];
    size_t got = read_upto(fd, in, 10);
    if (got == 10 && in[0] == 0xff && (in[9] & 1) &&
        send(fd, hello, sizeof hello, MSG_NOSIGNAL) == (ssize_t)sizeof hello)
        got += read_upto(fd, in + 10, sizeof in - 10);
    close(fd);
    if (got < 32 || in[10] < 3)
        return true;
    /* the name: capital letters, then NUL padding */
    int n = 0;
    while (n < 20 && in[12 + n] >= 'A' && in[12 + n] <= 'Z')
        n++;
    for (int i = n; i < 20; i++)
        if (in[12 + i])
            return true;
    snprintf(mech, 21, "%.*s", n, (const char *)in + 12);
    return true;
}

/* A failed handshake: some end the link at once, repeated ones too. */
static void handshake_failed(Link *l, uint16_t event, uint32_t value)
{
    const char *why = NULL;
    bool mismatch = event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL &&
                    value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH;
    if (event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
        why = "refused this worker's key: add its public key (the .pub of --curve-secret) to "
              "the coordinator's --allow-keys";
    else if (mismatch)
        why = l->curve ? "runs without keys: leave out --curve-server-key and --curve-secret"
                       : "requires CURVE: give --curve-server-key and --curve-secret";
    else if (++l->failed_handshakes >= HANDSHAKE_FAILURES)
        why = l->curve ? "failed the CURVE handshake three times in a row: is --curve-server-key "
                         "the coordinator's public key, and does it use keys?"
                       : "failed the handshake three times in a row: does it require CURVE "
                         "(--curve-server-key and --curve-secret)?";
    if (!why || l->refusal[0])
        return;
    char mech[21];
    if (event != ZMQ_EVENT_HANDSHAKE_FAILED_AUTH && probe_mechanism(l->endpoint, mech) && !mech[0])
        why = "is not a chuhe coordinator: it does not answer as a ZeroMQ server (no ZMTP "
              "greeting)";
    error_set(l->refusal, sizeof l->refusal, "the coordinator at %s %s", l->endpoint, why);
}

/* Handles the monitor's waiting events: on every connection after the first, HELLO
 * and every unacknowledged game go out again. */
static void monitor_events(Link *l)
{
    for (;;) {
        ZmqmonEvent ev;
        int error;
        if (!zmqmon_next(l->monitor, &ev, &error)) {
            if (error)
                WORKER_FATAL("zmq_recv(monitor): %s", zmq_strerror(error));
            return;
        }
        uint16_t event = ev.event;
        uint32_t value = ev.value;
        const char *addr = ev.endpoint;
        if (event == ZMQ_EVENT_DISCONNECTED) {
            if (l->up)
                diag_warn("lost the connection to %s; reconnecting", addr);
            l->up = false;
            continue;
        }
        if (event != ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
            handshake_failed(l, event, value);
            continue;
        }
        l->up = true;
        l->failed_handshakes = 0;
        if (l->connects++ == 0)
            continue;
        diag_info("connected to %s again: sending HELLO and %d unacknowledged games", addr,
                  l->npending);
        if (l->hello)
            send_frame(l, l->hello, l->hello_len);
        for (int i = 0; i < l->npending; i++)
            l->pending[i].next_send_ms = 0;
    }
}

/* Receives one waiting message into out; returns whether one was read. */
static bool receive(Link *l, ProtoMsg *out, bool *for_caller)
{
    int n = zmq_recv(l->sock, l->buf, PROTO_MAX_MESSAGE, ZMQ_DONTWAIT);
    if (n < 0) {
        if (zmq_errno() == EAGAIN || zmq_errno() == EINTR)
            return false;
        WORKER_FATAL("zmq_recv: %s", zmq_strerror(zmq_errno()));
    }
    l->expecting = false;
    *for_caller = false;
    ProtoError err;
    /* a chuhe coordinator of this version sends nothing else: whatever does is not one */
    if (n > PROTO_MAX_MESSAGE || !proto_decode(l->buf, (size_t)n, out, &err)) {
        if (!l->refusal[0])
            error_set(l->refusal, sizeof l->refusal,
                      "%s is not a chuhe coordinator of this version (bad message: %s)",
                      l->endpoint, n > PROTO_MAX_MESSAGE ? "too long" : err.msg);
        return false;
    }
    switch (out->type) {
    case PROTO_ACK:
        on_ack(l, &out->ack);
        break;
    case PROTO_HEARTBEAT:
        break;
    case PROTO_WORK:
    case PROTO_WAIT:
    case PROTO_DONE:
    case PROTO_ERROR:
        *for_caller = true;
        break;
    default:
        diag_warn("unexpected %s from the coordinator", proto_type_name(out->type));
        break;
    }
    return true;
}

LinkEvent link_poll(Link *l, int wait_ms, ProtoMsg *out)
{
    int64_t deadline = time_now_ms() + wait_ms;
    for (;;) {
        monitor_events(l);
        if (l->refusal[0])
            return LINK_LOST;
        int64_t now = time_now_ms();
        due_sends(l, now);
        bool for_caller = false;
        while (receive(l, out, &for_caller))
            if (for_caller)
                return LINK_MSG;
        if (l->refusal[0])
            return LINK_LOST;
        now = time_now_ms();
        if (l->expecting && now - l->expect_since_ms > l->timeout_ms)
            return LINK_LOST;
        if (now >= deadline)
            return LINK_NONE;
        int64_t t = deadline - now;
        int64_t hb = l->last_heartbeat_ms + HEARTBEAT_MS - now;
        if (hb < t)
            t = hb < 1 ? 1 : hb;
        zmq_pollitem_t items[2] = {{l->sock, 0, ZMQ_POLLIN, 0}, {l->monitor, 0, ZMQ_POLLIN, 0}};
        if (zmq_poll(items, 2, (long)t) < 0 && zmq_errno() != EINTR)
            WORKER_FATAL("zmq_poll: %s", zmq_strerror(zmq_errno()));
    }
}
