/*
 * A misbehaving worker for the end-to-end test: speaks to a coordinator over a raw
 * ZeroMQ DEALER and prints what comes back, one line per reply.
 *
 *   wire_client ENDPOINT garbage      a frame that is no chuhe message
 *   wire_client ENDPOINT version      a well-formed header with protocol version 99
 *   wire_client ENDPOINT illegal      asks for work, then sends game 0 of its pair with
 *                                     the opening followed by an illegal move
 *
 * Replies are printed as "reply ERROR <text>" or "reply ACK status <n>"; "no reply"
 * after 10 s. Exit status 0 when a reply came.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "coordinator/protocol.h"
#include "movegen.h"
#include "position.h"

static void *sock;
static uint8_t buf[PROTO_MAX_MESSAGE];

static void die(const char *what)
{
    fprintf(stderr, "wire_client: %s: %s\n", what, zmq_strerror(zmq_errno()));
    exit(2);
}

static void send_msg(const ProtoMsg *m)
{
    ProtoError err;
    size_t len = proto_encode(m, buf, sizeof buf, &err);
    if (!len) {
        fprintf(stderr, "wire_client: encode: %s\n", err.msg);
        exit(2);
    }
    if (zmq_send(sock, buf, len, 0) < 0)
        die("zmq_send");
}

/* Waits for a message other than HEARTBEAT; false after 10 s. */
static bool receive(ProtoMsg *m)
{
    for (;;) {
        zmq_pollitem_t item = {sock, 0, ZMQ_POLLIN, 0};
        int n = zmq_poll(&item, 1, 10000);
        if (n < 0)
            die("zmq_poll");
        if (n == 0)
            return false;
        int len = zmq_recv(sock, buf, sizeof buf, 0);
        ProtoError err;
        if (len < 0)
            die("zmq_recv");
        if (!proto_decode(buf, (size_t)len, m, &err)) {
            printf("undecodable reply: %s\n", err.msg);
            return true;
        }
        if (m->type != PROTO_HEARTBEAT)
            return true;
    }
}

static int print_reply(void)
{
    static ProtoMsg m;
    if (!receive(&m)) {
        printf("no reply\n");
        return 1;
    }
    if (m.type == PROTO_ERROR)
        printf("reply ERROR %s\n", m.error.text);
    else if (m.type == PROTO_ACK)
        printf("reply ACK status %u\n", m.ack.status);
    else
        printf("reply %s\n", proto_type_name(m.type));
    return 0;
}

/* Game 0 of the pair: the opening's moves, then a chariot jumping over its own pieces. */
static int illegal_game(void)
{
    static ProtoMsg m, g;
    proto_init(&m, PROTO_WORK_REQUEST);
    send_msg(&m);
    if (!receive(&m) || m.type != PROTO_WORK) {
        printf("no WORK (got %s)\n", proto_type_name(m.type));
        return 1;
    }
    const ProtoWork *w = &m.work;
    proto_init(&g, PROTO_GAME);
    g.game.run_id = w->run_id;
    g.game.pair_id = w->pair_id;
    g.game.game_in_pair = 0;
    g.game.worker_rank = 0;
    GameRecord *r = &g.game.rec;
    const char *fen = w->opening_fen[0] ? w->opening_fen : START_FEN;
    record_init(r, 0, fen);
    position_init();
    static Position pos;
    PosError perr;
    if (!pos_set_fen(&pos, fen, &perr)) {
        printf("bad opening FEN: %s\n", perr.msg);
        return 1;
    }
    for (int i = 0; i < w->nmoves; i++) {
        RecordPly p = {.move = w->moves[i], .best = MOVE_NONE};
        p.flags = (uint8_t)(record_move_flags(&pos, p.move) | RECORD_FLAG_OPENING);
        record_push(r, &p);
        pos_do_move(&pos, p.move);
    }
    /* a move from a corner to the far corner: never legal with both sides' pieces between */
    Move bad = pos.side == RED ? move_make(0, 81) : move_make(81, 0);
    if (move_is_legal(&pos, bad))
        bad = move_make(4, 85);
    RecordPly p = {.move = bad, .best = bad, .score = 10, .depth = 1, .nodes = 100};
    record_push(r, &p);
    r->outcome = OUTCOME_RED_WIN;
    r->reason = REASON_CHECKMATE;
    send_msg(&g);
    return print_reply();
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: wire_client ENDPOINT garbage|version|illegal\n");
        return 2;
    }
    void *ctx = zmq_ctx_new();
    if (!ctx)
        die("zmq_ctx_new");
    sock = zmq_socket(ctx, ZMQ_DEALER);
    if (!sock)
        die("zmq_socket");
    int linger = 0;
    const char *id = "wire-client";
    if (zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof linger) != 0 ||
        zmq_setsockopt(sock, ZMQ_ROUTING_ID, id, strlen(id)) != 0)
        die("zmq_setsockopt");
    if (zmq_connect(sock, argv[1]) != 0)
        die("zmq_connect");
    int status = 2;
    if (!strcmp(argv[2], "garbage")) {
        const char text[] = "this is not a chuhe message";
        if (zmq_send(sock, text, sizeof text - 1, 0) < 0)
            die("zmq_send");
        status = print_reply();
    } else if (!strcmp(argv[2], "version")) {
        ProtoMsg m;
        proto_init(&m, PROTO_WORK_REQUEST);
        ProtoError err;
        size_t len = proto_encode(&m, buf, sizeof buf, &err);
        buf[4] = 99; /* version, little-endian u16 at offset 4 */
        if (zmq_send(sock, buf, len, 0) < 0)
            die("zmq_send");
        status = print_reply();
    } else if (!strcmp(argv[2], "illegal")) {
        status = illegal_game();
    } else {
        fprintf(stderr, "wire_client: unknown mode '%s'\n", argv[2]);
    }
    zmq_close(sock);
    zmq_ctx_term(ctx);
    return status;
}
