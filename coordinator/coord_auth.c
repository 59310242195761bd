#include "coord_auth.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_log.h"
#include "coord_rate.h"
#include "error.h"
#include "contracts/zmqmon.h"

#define ZAP_ENDPOINT "inproc://zeromq.zap.01"
#define MONITOR_ENDPOINT "inproc://chuhe-coordinator-handshakes"

enum {
    HANDSHAKE_MS = 10000, /* a connection must finish its handshake within this */
    ZAP_FRAMES = 8,       /* frames of a ZAP request kept (CURVE sends 7) */
    ZAP_FRAME_MAX = 256,
};

struct CoordAuth {
    const CoordConfig *cfg;
    bool curve;
    void *router;
    void *zap;     /* REP on ZAP_ENDPOINT; NULL without keys */
    void *monitor; /* PAIR receiving the router's failed handshakes */
    AllowList allow;
    uint64_t generation;
    /* refused keys, and failed handshakes (a client without CURVE reconnects every
     * 100 ms: its lines must not hide the others) */
    CoordLogGate keys_gate, handshake_gate;
};

static void setopt(void *sock, int opt, const void *v, size_t len, const char *name)
{
    if (zmq_setsockopt(sock, opt, v, len) != 0)
        COORD_FATAL("zmq_setsockopt(%s): %s", name, zmq_strerror(zmq_errno()));
}

static void setopt_int(void *sock, int opt, int v, const char *name)
{
    setopt(sock, opt, &v, sizeof v, name);
}

/* Reads the keys (and the list into *allow). */
static bool read_keys(const CoordConfig *cfg, KeyPair *pair, AllowList *allow, CoordError *err)
{
    if (!keys_curve_available())
        return ERROR_SET(err, "this libzmq has no CURVE (zmq_has(\"curve\") is false): install a "
                              "libzmq built with libsodium, or run without keys on loopback");
    KeysError kerr;
    if (!keys_read_secret(cfg->curve_secret, pair, &kerr) ||
        !keys_allow_load(cfg->allow_keys, allow, &kerr))
        return ERROR_SET(err, "%s", kerr.msg);
    return true;
}

bool coord_auth_check(const CoordConfig *cfg, CoordError *err)
{
    if (!cfg->curve_secret[0])
        return true;
    KeyPair pair;
    AllowList allow;
    bool ok = read_keys(cfg, &pair, &allow, err);
    if (ok)
        keys_allow_free(&allow);
    memset(&pair, 0, sizeof pair);
    return ok;
}

/* A socket of ctx on an inproc endpoint (bound, or connected), which drops what it has
 * not sent when it closes. */
static void *inproc_socket(void *ctx, int type, const char *endpoint, bool bind)
{
    void *sock = zmq_socket(ctx, type);
    if (!sock)
        COORD_FATAL("zmq_socket: %s", zmq_strerror(zmq_errno()));
    setopt_int(sock, ZMQ_LINGER, 0, "ZMQ_LINGER");
    if ((bind ? zmq_bind(sock, endpoint) : zmq_connect(sock, endpoint)) != 0)
        COORD_FATAL("%s(%s): %s", bind ? "zmq_bind" : "zmq_connect", endpoint,
                    zmq_strerror(zmq_errno()));
    return sock;
}

/* Reads the keys and makes router a CURVE server with its ZAP handler. */
static bool curve_open(CoordAuth *a, void *ctx, CoordError *err)
{
    const CoordConfig *cfg = a->cfg;
    KeyPair pair;
    if (!read_keys(cfg, &pair, &a->allow, err))
        return false;
    /* bound before the router accepts anything, so that no handshake passes unasked */
    a->zap = inproc_socket(ctx, ZMQ_REP, ZAP_ENDPOINT, true);
    setopt_int(a->router, ZMQ_CURVE_SERVER, 1, "ZMQ_CURVE_SERVER");
    setopt(a->router, ZMQ_CURVE_SECRETKEY, pair.secret_z85, KEYS_Z85_LEN, "ZMQ_CURVE_SECRETKEY");
    setopt(a->router, ZMQ_ZAP_DOMAIN, "chuhe", 5, "ZMQ_ZAP_DOMAIN");
    memset(&pair.secret_z85, 0, sizeof pair.secret_z85);
    coord_log("CURVE on: the coordinator's public key is %s (%s); %d worker keys allowed (%s; "
              "SIGHUP reads it again)",
              pair.public_z85, cfg->curve_secret, a->allow.count, cfg->allow_keys);
    return true;
}

CoordAuth *coord_auth_open(void *ctx, void *router, const CoordConfig *cfg, CoordError *err)
{
    CoordAuth *a = calloc(1, sizeof *a);
    if (!a)
        COORD_FATAL("out of memory");
    a->cfg = cfg;
    a->router = router;
    a->curve = cfg->curve_secret[0] != '\0';
    setopt_int(router, ZMQ_HANDSHAKE_IVL, HANDSHAKE_MS, "ZMQ_HANDSHAKE_IVL");
    if (a->curve && !curve_open(a, ctx, err)) {
        coord_auth_close(&a);
        return NULL;
    }
    if (!a->curve && coord_endpoint_is_local(cfg->bind))
        coord_log("no keys: plain connections, on loopback only");
    else if (!a->curve)
        coord_log("warning: no keys and --open-network: plain, unauthenticated connections on "
                  "%s; anyone who reaches it can take work and store games",
                  cfg->bind);
    char msg[256];
    a->monitor =
        zmqmon_open(ctx, router, MONITOR_ENDPOINT,
                    ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                        ZMQ_EVENT_HANDSHAKE_FAILED_AUTH,
                    msg, sizeof msg);
    if (!a->monitor)
        COORD_FATAL("%s", msg);
    return a;
}

int coord_auth_poll_items(CoordAuth *a, zmq_pollitem_t *items)
{
    int n = 0;
    if (a->zap)
        items[n++] = (zmq_pollitem_t){a->zap, 0, ZMQ_POLLIN, 0};
    items[n++] = (zmq_pollitem_t){a->monitor, 0, ZMQ_POLLIN, 0};
    return n;
}

/* One refusal line, through a gate. */
static void refusal(CoordLogGate *gate, double now, const char *fmt, ...)
{
    uint64_t held;
    if (!coord_log_gate(gate, now, &held))
        return;
    char text[600], more[64] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (held) /* the refusals the gate held back since the last line */
        snprintf(more, sizeof more, " (and %llu refusals not logged)", (unsigned long long)held);
    coord_log("%s%s", text, more);
}

typedef struct {
    char data[ZAP_FRAME_MAX + 1];
    size_t len; /* may exceed ZAP_FRAME_MAX: then data holds the start */
} Frame;

static bool frame_is(const Frame *f, const char *text)
{
    return f->len == strlen(text) && !memcmp(f->data, text, f->len);
}

static void send_part(void *sock, const void *data, size_t len, bool more)
{
    if (zmq_send(sock, data, len, more ? ZMQ_SNDMORE : 0) < 0)
        COORD_FATAL("zmq_send(ZAP reply): %s", zmq_strerror(zmq_errno()));
}

/* Receives one ZAP request; false when none is waiting. */
static bool zap_receive(CoordAuth *a, Frame *f, int *n)
{
    *n = 0;
    for (int more = 1; more;) {
        Frame junk;
        Frame *to = *n < ZAP_FRAMES ? &f[*n] : &junk;
        int len = zmq_recv(a->zap, to->data, ZAP_FRAME_MAX, *n ? 0 : ZMQ_DONTWAIT);
        if (len < 0) {
            if (!*n && (zmq_errno() == EAGAIN || zmq_errno() == EINTR))
                return false;
            COORD_FATAL("zmq_recv(ZAP): %s", zmq_strerror(zmq_errno()));
        }
        to->len = (size_t)len;
        to->data[len < ZAP_FRAME_MAX ? len : ZAP_FRAME_MAX] = '\0';
        (*n)++;
        size_t ml = sizeof more;
        if (zmq_getsockopt(a->zap, ZMQ_RCVMORE, &more, &ml) != 0)
            COORD_FATAL("zmq_getsockopt(ZMQ_RCVMORE): %s", zmq_strerror(zmq_errno()));
    }
    return true;
}

/*
 * Answers one ZAP request (RFC 27): frames version "1.0", request id, domain, peer
 * address, routing id, mechanism, credentials. A CURVE client whose public key is
 * listed gets 200 with its key as User-Id; anything else 400 and a log line.
 */
static bool zap_answer(CoordAuth *a, double now)
{
    Frame f[ZAP_FRAMES];
    int n;
    if (!zap_receive(a, f, &n))
        return false;
    const char *status = "400", *text = "not allowed";
    char user[KEYS_Z85_LEN + 1] = "";
    const char *address = n > 3 && f[3].len ? f[3].data : "an unknown address";
    if (n < 6 || !frame_is(&f[0], "1.0")) {
        status = "500";
        text = "malformed request";
        refusal(&a->keys_gate, now, "refused a connection: a malformed authentication request");
    } else if (!frame_is(&f[5], "CURVE") || n < 7 || f[6].len != 32) {
        refusal(&a->keys_gate, now, "refused a connection from %s: mechanism %.32s, no CURVE key",
                address, f[5].data);
    } else {
        char key[KEYS_Z85_LEN + 1];
        keys_encode((const unsigned char *)f[6].data, key);
        const AllowedKey *k = keys_allow_find(&a->allow, key);
        if (k) {
            status = "200";
            text = "OK";
            snprintf(user, sizeof user, "%s", key);
        } else {
            refusal(&a->keys_gate, now, "refused a connection from %s: CURVE key %s is not in %s",
                    address, key, a->cfg->allow_keys);
        }
    }
    send_part(a->zap, "1.0", 3, true);
    send_part(a->zap, n > 1 ? f[1].data : "", n > 1 && f[1].len <= ZAP_FRAME_MAX ? f[1].len : 0,
              true);
    send_part(a->zap, status, 3, true);
    send_part(a->zap, text, strlen(text), true);
    send_part(a->zap, user, strlen(user), true);
    send_part(a->zap, "", 0, false);
    return true;
}

/* Logs one failed handshake of the router; false when no event is waiting. */
static bool handshake_event(CoordAuth *a, double now)
{
    ZmqmonEvent ev;
    int error;
    if (!zmqmon_next(a->monitor, &ev, &error)) {
        if (error)
            COORD_FATAL("zmq_recv(monitor): %s", zmq_strerror(error));
        return false;
    }
    uint16_t event = ev.event;
    uint32_t value = ev.value;
    const char *where = ev.endpoint;
    if (event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
        return true; /* the ZAP handler has logged it */
    if (event == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL && a->curve) {
        /* the peer hung up first: it found the mismatch or could not prove a key */
        refusal(&a->handshake_gate, now,
                "refused a connection on %s: the handshake broke off (%s): a peer without "
                "CURVE, or without this coordinator's public key",
                where, zmq_strerror((int)value));
    } else if (event == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL) {
        refusal(&a->handshake_gate, now, "a connection on %s failed its handshake: %s", where,
                zmq_strerror((int)value));
    } else if (value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH) {
        refusal(&a->handshake_gate, now, "refused a connection on %s: %s", where,
                a->curve ? "no key (the peer does not use CURVE)"
                         : "the peer uses CURVE, and this coordinator runs without keys");
    } else if (value == ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC ||
               value == ZMQ_PROTOCOL_ERROR_ZMTP_KEY_EXCHANGE) {
        refusal(&a->handshake_gate, now,
                "refused a connection on %s: its CURVE handshake failed (a wrong server key?)",
                where);
    } else {
        refusal(&a->handshake_gate, now, "refused a connection on %s: protocol error 0x%08x", where,
                (unsigned)value);
    }
    return true;
}

void coord_auth_handle(CoordAuth *a, double now)
{
    while (a->zap && zap_answer(a, now)) {
    }
    while (handshake_event(a, now)) {
    }
    uint64_t held;
    if (coord_log_gate_flush(&a->keys_gate, now, &held))
        coord_log("%llu more connections with keys not allowed were not logged",
                  (unsigned long long)held);
    if (coord_log_gate_flush(&a->handshake_gate, now, &held))
        coord_log("%llu more failed handshakes were not logged", (unsigned long long)held);
}

void coord_auth_reload(CoordAuth *a)
{
    if (!a->curve) {
        coord_log("SIGHUP: no allow-list to read (the coordinator runs without keys)");
        return;
    }
    AllowList fresh;
    KeysError kerr;
    if (!keys_allow_load(a->cfg->allow_keys, &fresh, &kerr)) {
        coord_log("SIGHUP: %s; the %d keys read before stay in force", kerr.msg, a->allow.count);
        return;
    }
    int removed = 0, added = 0;
    for (int i = 0; i < a->allow.count; i++)
        removed += !keys_allow_find(&fresh, a->allow.keys[i].z85);
    for (int i = 0; i < fresh.count; i++)
        added += !keys_allow_find(&a->allow, fresh.keys[i].z85);
    keys_allow_free(&a->allow);
    a->allow = fresh;
    a->generation++;
    coord_log("SIGHUP: %s read again: %d worker keys allowed (%d new, %d removed; the "
              "messages of removed keys are dropped from now on)",
              a->cfg->allow_keys, a->allow.count, added, removed);
}

bool coord_auth_curve(const CoordAuth *a)
{
    return a->curve;
}

uint64_t coord_auth_generation(const CoordAuth *a)
{
    return a->generation;
}

const AllowedKey *coord_auth_find(const CoordAuth *a, const char *user_id)
{
    return user_id ? keys_allow_find(&a->allow, user_id) : NULL;
}

void coord_auth_close(CoordAuth **ap)
{
    CoordAuth *a = *ap;
    if (!a)
        return;
    if (a->monitor) {
        if (zmq_socket_monitor(a->router, NULL, 0) != 0)
            coord_log("zmq_socket_monitor: %s", zmq_strerror(zmq_errno()));
        if (zmq_close(a->monitor) != 0)
            coord_log("zmq_close: %s", zmq_strerror(zmq_errno()));
    }
    if (a->zap && zmq_close(a->zap) != 0)
        coord_log("zmq_close: %s", zmq_strerror(zmq_errno()));
    keys_allow_free(&a->allow);
    free(a);
    *ap = NULL;
}
