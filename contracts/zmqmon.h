/*
 * ZeroMQ socket monitors, decoded in one place: the coordinator's ROUTER watches the
 * handshakes it refuses, the worker's DEALER its connections, each through a monitor
 * (zmq_socket_monitor) whose events arrive on a PAIR socket.
 *
 * A monitor message is two frames: the event (u16 event, u32 value, in host order: an
 * errno, a ZMQ_PROTOCOL_ERROR_* code or a descriptor, by event) and the endpoint text.
 * The module prints nothing; failures come back as ZeroMQ's error number or text.
 */
#ifndef CHUHE_ZMQMON_H
#define CHUHE_ZMQMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint16_t event; /* one ZMQ_EVENT_* */
    uint32_t value;
    char endpoint[256]; /* cut to fit */
} ZmqmonEvent;

/*
 * Monitors the events (a mask of ZMQ_EVENT_*) of sock through a new PAIR socket of ctx,
 * with no linger, connected at endpoint ("inproc://...", unique in ctx). NULL, with
 * "CALL: REASON" in msg[size], when ZeroMQ refuses.
 */
void *zmqmon_open(void *ctx, void *sock, const char *endpoint, int events, char *msg, size_t size);

/* The next event waiting on monitor, without blocking: true with it in *out; false
 * when none waits (*error 0) or the receive failed (*error the zmq_errno()). */
bool zmqmon_next(void *monitor, ZmqmonEvent *out, int *error);

#endif
