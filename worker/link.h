/*
 * A worker rank's connection to the coordinator: one ZeroMQ DEALER socket with a
 * routing id made of rank, host and pid, so that the coordinator's log lines name the
 * rank even before its HELLO arrives.
 *
 * The link keeps every GAME it sent until the coordinator ACKs it. It sends the HELLO
 * and every unacknowledged GAME again as soon as a new connection is made (a restarted
 * coordinator, a network break: ZeroMQ reconnects by itself, with a backoff growing to
 * 5 s), and a GAME also whenever no ACK came within a backoff (10 s, doubling to 60 s).
 * A copy that arrives twice is acknowledged as a duplicate. It sends a HEARTBEAT at
 * least every second while it is polled, and declares the coordinator lost when nothing
 * at all came back for the timeout since it started waiting for an answer.
 *
 * With keys the connection is CURVE: encrypted, the worker proves its key pair and
 * checks the coordinator's public key. A coordinator that refuses the worker's key, that
 * speaks the other mechanism (CURVE against plain), or with which three handshakes in a
 * row fail (a wrong server key) ends the link at once, with the reason in link_refusal,
 * rather than after the timeout. So does a peer that is no chuhe coordinator: one that
 * breaks the handshake or sends a message that does not decode.
 */
#ifndef CHUHE_WORKER_LINK_H
#define CHUHE_WORKER_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "contracts/keys.h"
#include "contracts/protocol.h"

typedef struct Link Link;

typedef enum {
    LINK_NONE, /* nothing for the caller before the wait ended */
    LINK_MSG,  /* *out holds a WORK, WAIT, DONE or ERROR */
    LINK_LOST, /* no answer for the timeout, or the connection was refused (link_refusal) */
} LinkEvent;

/* Whether endpoint is one a worker can connect to: tcp://HOST:PORT (an IPv6 host in
 * brackets, a port 1..65535) or ipc://PATH; false with the reason in msg. */
bool link_endpoint_check(const char *endpoint, char *msg, size_t size);

/* Connects (ZeroMQ connects lazily: a coordinator that starts later is found). With
 * server_key (Z85) the link is CURVE, with the worker's key pair *keys. NULL, with the
 * reason in err, when ZeroMQ refuses the endpoint. */
Link *link_open(void *zmq_ctx, const char *endpoint, const char *identity, uint32_t rank,
                double timeout_s, const char *server_key, const KeyPair *keys, char *err,
                size_t size);

/* Why the coordinator refused the connection; "" when it did not. */
const char *link_refusal(const Link *l);
/* Closes; with deliver, what is still queued gets up to a second to go out. */
void link_close(Link **l, bool deliver);

/* Sends a message that needs no acknowledgement (HELLO, WORK_REQUEST, ERROR). False when
 * it could not be queued now (the caller may retry). */
bool link_send(Link *l, const ProtoMsg *m);

/* Sends a GAME and keeps it until it is acknowledged. */
void link_send_game(Link *l, const ProtoMsg *game);

/* GAMEs sent and not yet acknowledged. */
int link_unacked(const Link *l);

/* The counters that heartbeats carry. */
void link_set_progress(Link *l, uint64_t games_done, uint64_t nodes);

/*
 * Waits up to wait_ms for a message for the caller, handling ACKs and heartbeats,
 * sending heartbeats and resends that are due. A wait_ms of 0 only looks.
 */
LinkEvent link_poll(Link *l, int wait_ms, ProtoMsg *out);

/* Rejected games so far (ACKs with PROTO_ACK_REJECTED). */
uint64_t link_rejected(const Link *l);

#endif
