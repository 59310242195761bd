/*
 * The ZeroMQ monitor decoder (contracts/zmqmon.c) that the coordinator and the worker
 * share, on real sockets over loopback: nothing waiting is no event and no error; a
 * DEALER's connection to a ROUTER is seen on both sides with its event and endpoint; a
 * handshake that breaks off reaches the ROUTER's monitor as a failed handshake; a monitor
 * that ZeroMQ refuses comes back as one line naming the call.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <zmq.h>

#include "contracts/zmqmon.h"
#include "timeman.h"

/* The next event of monitor within two seconds, which must be event at endpoint; its
 * value. */
static uint32_t expect_event(void *monitor, uint16_t event, const char *endpoint)
{
    ZmqmonEvent ev;
    int error;
    int64_t deadline = time_now_ms() + 2000;
    while (!zmqmon_next(monitor, &ev, &error)) {
        assert_int_equal(error, 0);
        assert_true(time_now_ms() < deadline);
        zmq_pollitem_t item = {monitor, 0, ZMQ_POLLIN, 0};
        zmq_poll(&item, 1, 50);
    }
    assert_int_equal(ev.event, event);
    assert_string_equal(ev.endpoint, endpoint);
    return ev.value;
}

static void set_int(void *sock, int option, int value)
{
    assert_int_equal(zmq_setsockopt(sock, option, &value, sizeof value), 0);
}

static void test_connection_events(void **state)
{
    (void)state;
    void *ctx = zmq_ctx_new();
    void *router = zmq_socket(ctx, ZMQ_ROUTER), *dealer = zmq_socket(ctx, ZMQ_DEALER);
    set_int(router, ZMQ_LINGER, 0);
    set_int(dealer, ZMQ_LINGER, 0);
    assert_int_equal(zmq_bind(router, "tcp://127.0.0.1:*"), 0);
    char endpoint[256];
    size_t len = sizeof endpoint;
    assert_int_equal(zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, endpoint, &len), 0);
    char msg[256] = "";
    void *rmon =
        zmqmon_open(ctx, router, "inproc://test-router", ZMQ_EVENT_ACCEPTED, msg, sizeof msg);
    assert_non_null(rmon);
    void *dmon =
        zmqmon_open(ctx, dealer, "inproc://test-dealer",
                    ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED, msg, sizeof msg);
    assert_non_null(dmon);

    /* nothing has happened yet */
    ZmqmonEvent ev;
    int error = -1;
    assert_false(zmqmon_next(dmon, &ev, &error));
    assert_int_equal(error, 0);

    assert_int_equal(zmq_connect(dealer, endpoint), 0);
    expect_event(rmon, ZMQ_EVENT_ACCEPTED, endpoint);
    expect_event(dmon, ZMQ_EVENT_HANDSHAKE_SUCCEEDED, endpoint);

    /* the router goes away: the dealer sees its connection drop */
    zmq_socket_monitor(router, NULL, 0);
    zmq_close(rmon);
    zmq_close(router);
    expect_event(dmon, ZMQ_EVENT_DISCONNECTED, endpoint);

    zmq_socket_monitor(dealer, NULL, 0);
    zmq_close(dmon);
    zmq_close(dealer);
    zmq_ctx_term(ctx);
}

/* A plain DEALER at a CURVE server: the server's monitor reports the mechanism
 * mismatch as a failed handshake with ZeroMQ's protocol error code as the value. */
static void test_failed_handshake(void **state)
{
    (void)state;
    if (!zmq_has("curve"))
        skip();
    void *ctx = zmq_ctx_new();
    void *router = zmq_socket(ctx, ZMQ_ROUTER), *dealer = zmq_socket(ctx, ZMQ_DEALER);
    set_int(router, ZMQ_LINGER, 0);
    set_int(dealer, ZMQ_LINGER, 0);
    char pub[41], secret[41];
    assert_int_equal(zmq_curve_keypair(pub, secret), 0);
    set_int(router, ZMQ_CURVE_SERVER, 1);
    assert_int_equal(zmq_setsockopt(router, ZMQ_CURVE_SECRETKEY, secret, 40), 0);
    assert_int_equal(zmq_bind(router, "tcp://127.0.0.1:*"), 0);
    char endpoint[256];
    size_t len = sizeof endpoint;
    assert_int_equal(zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, endpoint, &len), 0);
    char msg[256];
    void *rmon =
        zmqmon_open(ctx, router, "inproc://test-curve",
                    ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL, msg,
                    sizeof msg);
    assert_non_null(rmon);
    assert_int_equal(zmq_connect(dealer, endpoint), 0);
    assert_int_equal(expect_event(rmon, ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL, endpoint),
                     ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH);
    zmq_socket_monitor(router, NULL, 0);
    zmq_close(rmon);
    zmq_close(router);
    zmq_close(dealer);
    zmq_ctx_term(ctx);
}

static void test_refused_monitor(void **state)
{
    (void)state;
    void *ctx = zmq_ctx_new();
    void *sock = zmq_socket(ctx, ZMQ_DEALER);
    char msg[256] = "";
    /* a monitor endpoint must be inproc */
    assert_null(zmqmon_open(ctx, sock, "tcp://127.0.0.1:1", ZMQ_EVENT_ALL, msg, sizeof msg));
    assert_non_null(strstr(msg, "zmq_socket_monitor: "));
    assert_null(strchr(msg, '\n'));
    zmq_close(sock);
    zmq_ctx_term(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_connection_events),
        cmocka_unit_test(test_failed_handshake),
        cmocka_unit_test(test_refused_monitor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
