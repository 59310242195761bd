#include "zmqmon.h"

#include <errno.h>
#include <string.h>

#include <zmq.h>

#include "error.h"

void *zmqmon_open(void *ctx, void *sock, const char *endpoint, int events, char *msg, size_t size)
{
    if (zmq_socket_monitor(sock, endpoint, events) != 0) {
        error_set(msg, size, "zmq_socket_monitor: %s", zmq_strerror(zmq_errno()));
        return NULL;
    }
    void *monitor = zmq_socket(ctx, ZMQ_PAIR);
    if (!monitor) {
        error_set(msg, size, "zmq_socket: %s", zmq_strerror(zmq_errno()));
        return NULL;
    }
    int linger = 0;
    if (zmq_setsockopt(monitor, ZMQ_LINGER, &linger, sizeof linger) != 0 ||
        zmq_connect(monitor, endpoint) != 0) {
        error_set(msg, size, "zmq_connect(%s): %s", endpoint, zmq_strerror(zmq_errno()));
        zmq_close(monitor);
        return NULL;
    }
    return monitor;
}

bool zmqmon_next(void *monitor, ZmqmonEvent *out, int *error)
{
    uint8_t ev[6];
    *error = 0;
    int n = zmq_recv(monitor, ev, sizeof ev, ZMQ_DONTWAIT);
    if (n < 0) {
        int e = zmq_errno();
        if (e != EAGAIN && e != EINTR)
            *error = e;
        return false;
    }
    /* the endpoint frame always follows the event frame */
    int w = zmq_recv(monitor, out->endpoint, sizeof out->endpoint - 1, 0);
    if (w < 0) {
        *error = zmq_errno();
        return false;
    }
    out->endpoint[w < (int)sizeof out->endpoint ? w : (int)sizeof out->endpoint - 1] = '\0';
    memcpy(&out->event, ev, sizeof out->event);
    memcpy(&out->value, ev + 2, sizeof out->value);
    return true;
}
