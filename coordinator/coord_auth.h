/*
 * Who may talk to the coordinator: CURVE on the ROUTER socket, the ZAP handler that lets
 * in only the workers' listed public keys, and the log of refused connections.
 *
 * With a secret key (--curve-secret) every connection is encrypted and authenticated:
 * the worker proves it holds a key of the allow-list (--allow-keys), and learns that it
 * talks to the holder of the coordinator's key. The ZAP handler (a REP socket on
 * inproc://zeromq.zap.01, polled by the server loop with the ROUTER) answers ZeroMQ's
 * question about every new connection; an accepted peer's messages carry its key as the
 * User-Id, so the server can drop those of a key taken off the list by a reload.
 * Without keys the link is plain; coord_config_check_network has kept it on loopback
 * unless --open-network was given.
 *
 * Refusals are logged, one line each (a key not listed with the peer's address, a peer
 * without CURVE, a failed handshake), at most 10 at once and then one a second, with a
 * count of the lines held back.
 */
#ifndef CHUHE_COORD_AUTH_H
#define CHUHE_COORD_AUTH_H

#include <stdbool.h>
#include <stdint.h>

#include <zmq.h>

#include "coord_config.h"
#include "contracts/keys.h"

typedef struct CoordAuth CoordAuth;

/* Checks what CURVE needs (a libzmq with CURVE, the secret key, the allow-list) before
 * anything else starts; true without keys. */
bool coord_auth_check(const CoordConfig *cfg, CoordError *err);

/*
 * Sets up router (not yet bound) for cfg's mode: with keys, CURVE as server and the ZAP
 * handler in ctx; in both modes a monitor of failed handshakes. Logs the mode. NULL with
 * err set on an unreadable key or allow-list, or a libzmq without CURVE.
 */
CoordAuth *coord_auth_open(void *ctx, void *router, const CoordConfig *cfg, CoordError *err);

/* Adds its sockets to a poll set; returns how many (at most COORD_AUTH_POLL_ITEMS). */
enum { COORD_AUTH_POLL_ITEMS = 2 };
int coord_auth_poll_items(CoordAuth *a, zmq_pollitem_t *items);

/* Answers waiting ZAP requests and logs waiting handshake failures. */
void coord_auth_handle(CoordAuth *a, double now);

/* Reads the allow-list again (SIGHUP); a bad file keeps the list in force. */
void coord_auth_reload(CoordAuth *a);

/* Whether CURVE is on. */
bool coord_auth_curve(const CoordAuth *a);

/* Bumped by every reload that changed the list. */
uint64_t coord_auth_generation(const CoordAuth *a);

/* The allow-list entry of a peer's User-Id (its Z85 key); NULL when not listed. */
const AllowedKey *coord_auth_find(const CoordAuth *a, const char *user_id);

void coord_auth_close(CoordAuth **a);

#endif
