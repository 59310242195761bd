/*
 * A worker for the end-to-end tests that speaks the wire protocol itself over a raw
 * ZeroMQ DEALER, misbehaving on demand, and prints what comes back, one line per event.
 *
 *   wire_client [options] ENDPOINT MODE [N]
 *     garbage      a frame that is no chuhe message
 *     big N        a frame of N bytes that is no chuhe message
 *     version      a well-formed header with protocol version 99
 *     illegal      asks for work, then sends game 0 of its pair with the opening followed
 *                  by an illegal move
 *     request      asks for work once and prints the answer
 *     play N       plays N pairs of random legal games (ended by the rules or the move
 *                  limit), printing "ack stored|duplicate|rejected pair P game G id I" for
 *                  every ACK, "wait" for every WAIT; resends unacknowledged games every
 *                  2 s as a worker does; "done" on DONE
 *     inflight [N] plays one pair, asks for work before the ACKs come ("early REPLY"),
 *                  waits for them, asks again ("late REPLY"); N times (default 1), each
 *                  round playing the pair of the last round's late WORK
 *     flood N      sends N heartbeats as fast as it can, then counts the answers for a
 *                  second: "sent N replies M"
 *   options:
 *     --id NAME              routing id (default wire-client)
 *     --wait S               give up after S seconds without the expected answer (10)
 *     --server-key FILE      CURVE: the coordinator's public key file
 *     --secret FILE          CURVE: this client's secret key file
 *
 * Replies are printed as "reply ERROR <text>", "reply ACK status <n>" or "reply TYPE";
 * "no reply" when the wait ran out. Exit status 0 when the mode got its answers.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "cliopt.h"
#include "contracts/keys.h"
#include "contracts/protocol.h"
#include "movegen.h"
#include "numparse.h"
#include "position.h"
#include "rng.h"
#include "rules.h"
#include "timeman.h"

static void *sock;
static uint8_t buf[PROTO_MAX_MESSAGE];
static int wait_ms = 10000;

enum { RESEND_MS = 5000 };

static void die(const char *what)
{
    fprintf(stderr, "wire_client: %s: %s\n", what, zmq_strerror(zmq_errno()));
    exit(2);
}

static size_t encode(const ProtoMsg *m)
{
    ProtoError err;
    size_t len = proto_encode(m, buf, sizeof buf, &err);
    if (!len) {
        fprintf(stderr, "wire_client: encode: %s\n", err.msg);
        exit(2);
    }
    return len;
}

static void send_msg(const ProtoMsg *m)
{
    size_t len = encode(m);
    if (zmq_send(sock, buf, len, 0) < 0)
        die("zmq_send");
}

static void send_type(ProtoType type)
{
    ProtoMsg m;
    proto_init(&m, type);
    send_msg(&m);
}

/* Waits up to ms for a message other than HEARTBEAT; false when none came. */
static bool receive_within(ProtoMsg *m, int ms)
{
    int64_t end = time_now_ms() + ms;
    for (;;) {
        int64_t left = end - time_now_ms();
        zmq_pollitem_t item = {sock, 0, ZMQ_POLLIN, 0};
        int n = zmq_poll(&item, 1, left > 0 ? (long)left : 0);
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
            proto_init(m, PROTO_ERROR);
            return true;
        }
        if (m->type != PROTO_HEARTBEAT)
            return true;
    }
}

/* The answer to a request: a message other than HEARTBEAT and ACK (an ACK of a game
 * sent twice may come late). */
static bool receive(ProtoMsg *m)
{
    int64_t end = time_now_ms() + wait_ms;
    for (;;) {
        int64_t left = end - time_now_ms();
        if (left <= 0 || !receive_within(m, (int)left))
            return false;
        if (m->type != PROTO_ACK)
            return true;
    }
}

static void print_msg(const ProtoMsg *m)
{
    if (m->type == PROTO_ERROR)
        printf("reply ERROR %s\n", m->error.text);
    else if (m->type == PROTO_ACK)
        printf("reply ACK status %u\n", m->ack.status);
    else
        printf("reply %s\n", proto_type_name(m->type));
    fflush(stdout);
}

static int print_reply(void)
{
    static ProtoMsg m;
    if (!receive_within(&m, wait_ms)) {
        printf("no reply\n");
        return 1;
    }
    print_msg(&m);
    return 0;
}

static Position pos;

/* Starts game g of a pair: its opening, plies flagged as such. */
static bool start_game(const ProtoWork *w, unsigned g, ProtoMsg *out)
{
    proto_init(out, PROTO_GAME);
    ProtoGame *pg = &out->game;
    pg->run_id = w->run_id;
    pg->pair_id = w->pair_id;
    pg->game_in_pair = (uint8_t)g;
    pg->worker_rank = 0;
    GameRecord *r = &pg->rec;
    const char *fen = w->opening_fen[0] ? w->opening_fen : START_FEN;
    record_init(r, 0, fen);
    PosError perr;
    if (!pos_set_fen(&pos, fen, &perr)) {
        printf("bad opening FEN: %s\n", perr.msg);
        return false;
    }
    for (int i = 0; i < w->nmoves; i++) {
        RecordPly p = {.move = w->moves[i], .best = MOVE_NONE};
        p.flags = (uint8_t)(record_move_flags(&pos, p.move) | RECORD_FLAG_OPENING);
        record_push(r, &p);
        pos_do_move(&pos, p.move);
    }
    return true;
}

/* Game g of the pair, random legal moves until the rules end it or the move limit. */
static bool random_game(const ProtoWork *w, unsigned g, ProtoMsg *out)
{
    if (!start_game(w, g, out))
        return false;
    GameRecord *r = &out->game.rec;
    uint64_t seed = w->pair_id * 2 + g;
    for (;;) {
        if (pos_history_full(&pos))
            pos_trim_history(&pos);
        Verdict v = rules_judge_game(&pos);
        if (v.result != RESULT_NONE) {
            r->outcome = record_outcome_from(pos.side, v.result);
            r->reason = v.reason;
            return true;
        }
        if (r->nplies >= w->settings.max_plies) {
            r->outcome = OUTCOME_DRAW;
            r->reason = REASON_MOVE_LIMIT;
            return true;
        }
        MoveList list;
        gen_legal(&pos, &list);
        RecordPly p = {
            .move = list.moves[rng_next(&seed) % (unsigned)list.count], .depth = 1, .nodes = 1};
        p.best = p.move;
        p.flags = record_move_flags(&pos, p.move);
        record_push(r, &p);
        pos_do_move(&pos, p.move);
    }
}

/* Game 0 of the pair: the opening's moves, then a chariot jumping over its own pieces. */
static int illegal_game(void)
{
    static ProtoMsg m, g;
    send_type(PROTO_WORK_REQUEST);
    if (!receive(&m) || m.type != PROTO_WORK) {
        printf("no WORK (got %s)\n", proto_type_name(m.type));
        return 1;
    }
    if (!start_game(&m.work, 0, &g))
        return 1;
    GameRecord *r = &g.game.rec;
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

/* Asks for work until a WORK; false (with a line) on DONE, an ERROR or no answer. */
static bool get_work(ProtoMsg *m)
{
    for (;;) {
        send_type(PROTO_WORK_REQUEST);
        if (!receive(m)) {
            printf("no reply\n");
            return false;
        }
        if (m->type == PROTO_WORK)
            return true;
        if (m->type == PROTO_WAIT) {
            printf("wait\n");
            fflush(stdout);
            receive_within(m, (int)m->wait.retry_ms); /* sleeps, answering nothing */
            continue;
        }
        if (m->type == PROTO_DONE)
            printf("done\n");
        else
            print_msg(m);
        return false;
    }
}

/* Sends both games of the pair and waits for their ACKs, sending them again every 5 s
 * (and a heartbeat every second). False when the wait ran out. */
static bool play_pair(const ProtoWork *w, bool ask_early)
{
    static ProtoMsg games[2], m;
    for (unsigned g = 0; g < 2; g++)
        if (!random_game(w, g, &games[g]))
            return false;
    bool acked[2] = {false, false};
    int64_t start = time_now_ms(), last_send = 0, last_beat = 0;
    bool asked = false;
    while (!acked[0] || !acked[1]) {
        int64_t now = time_now_ms();
        if (now - start > wait_ms) {
            printf("no ACK for pair %llu\n", (unsigned long long)w->pair_id);
            return false;
        }
        if (now - last_send >= RESEND_MS) {
            for (unsigned g = 0; g < 2; g++)
                if (!acked[g])
                    send_msg(&games[g]);
            last_send = now;
        }
        if (ask_early && !asked) {
            send_type(PROTO_WORK_REQUEST);
            asked = true;
        }
        if (now - last_beat >= 1000) {
            send_type(PROTO_HEARTBEAT);
            last_beat = now;
        }
        if (!receive_within(&m, 200))
            continue;
        if (m.type == PROTO_ACK && m.ack.pair_id == w->pair_id && m.ack.game_in_pair < 2) {
            static const char *status[] = {"stored", "duplicate", "rejected"};
            if (!acked[m.ack.game_in_pair])
                printf("ack %s pair %llu game %u id %llu\n",
                       m.ack.status < 3 ? status[m.ack.status] : "?",
                       (unsigned long long)m.ack.pair_id, m.ack.game_in_pair,
                       (unsigned long long)m.ack.game_id);
            acked[m.ack.game_in_pair] = true;
        } else if (ask_early && m.type != PROTO_ACK) {
            printf("early %s\n", proto_type_name(m.type));
            ask_early = false;
        } else if (m.type == PROTO_WAIT) {
            printf("wait\n");
        }
        fflush(stdout);
    }
    return true;
}

static int play(int pairs)
{
    static ProtoMsg m;
    for (int k = 0; k < pairs; k++) {
        if (!get_work(&m))
            return m.type == PROTO_DONE ? 0 : 1;
        ProtoWork w = m.work;
        if (!play_pair(&w, false))
            return 1;
    }
    return 0;
}

static int inflight(long rounds)
{
    static ProtoMsg m;
    if (!get_work(&m))
        return 1;
    for (long k = 0; k < rounds; k++) {
        if (m.type != PROTO_WORK)
            return 1;
        ProtoWork w = m.work;
        if (!play_pair(&w, true))
            return 1;
        send_type(PROTO_WORK_REQUEST);
        if (!receive(&m)) {
            printf("no reply\n");
            return 1;
        }
        printf("late %s\n", proto_type_name(m.type));
        fflush(stdout);
    }
    return 0;
}

static int flood(long n)
{
    int hwm = 0; /* no limit: queue every message */
    if (zmq_setsockopt(sock, ZMQ_SNDHWM, &hwm, sizeof hwm) != 0)
        die("zmq_setsockopt(ZMQ_SNDHWM)");
    ProtoMsg m;
    proto_init(&m, PROTO_HEARTBEAT);
    size_t len = encode(&m);
    for (long i = 0; i < n; i++)
        if (zmq_send(sock, buf, len, 0) < 0)
            die("zmq_send");
    long replies = 0;
    for (;;) {
        zmq_pollitem_t item = {sock, 0, ZMQ_POLLIN, 0};
        int k = zmq_poll(&item, 1, 1000);
        if (k < 0)
            die("zmq_poll");
        if (k == 0)
            break;
        if (zmq_recv(sock, buf, sizeof buf, 0) < 0)
            die("zmq_recv");
        replies++;
    }
    printf("sent %ld replies %ld\n", n, replies);
    return 0;
}

static void set_curve(const char *server_file, const char *secret_file)
{
    char server[KEYS_Z85_LEN + 1];
    KeyPair pair;
    KeysError err;
    if (!keys_read_public(server_file, server, &err) ||
        !keys_read_secret(secret_file, &pair, &err)) {
        fprintf(stderr, "wire_client: %s\n", err.msg);
        exit(2);
    }
    if (zmq_setsockopt(sock, ZMQ_CURVE_SERVERKEY, server, KEYS_Z85_LEN) != 0 ||
        zmq_setsockopt(sock, ZMQ_CURVE_PUBLICKEY, pair.public_z85, KEYS_Z85_LEN) != 0 ||
        zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, pair.secret_z85, KEYS_Z85_LEN) != 0)
        die("zmq_setsockopt(CURVE)");
}

typedef struct {
    const char *id, *server_key, *secret;
} Args;

#define AT(f) offsetof(Args, f), sizeof(((Args *)0)->f)
static const CliOpt OPTS[] = {
    {"--id", NULL, CLIOPT_ARG, AT(id), 0, 0, 0, 0, "NAME", "the routing id", NULL},
    {"--server-key", NULL, CLIOPT_ARG, AT(server_key), 0, 0, 0, 0, "FILE", "CURVE", NULL},
    {"--secret", NULL, CLIOPT_ARG, AT(secret), 0, 0, 0, 0, "FILE", "CURVE", NULL},
    /* seconds, into the file's wait_ms */
    {"--wait", NULL, CLIOPT_MS, 0, sizeof wait_ms, 0.001, 86400, 0, 0, "S", "answers", NULL},
};
#undef AT

/* The command line: the options into a (--wait into wait_ms, by a second table), then
 * ENDPOINT MODE [N]; the count N (default 1). Exits with status 2, said, on a bad one. */
static long parse(int argc, char **argv, Args *a, const char **endpoint, const char **mode)
{
    CliOptSpec wait = {.prog = "wire_client", .opts = OPTS + 3, .nopts = 1, .dest = &wait_ms};
    CliOptSpec spec = {.prog = "wire_client", .opts = OPTS, .nopts = 3, .dest = a, .next = &wait};
    char msg[300], *words[3];
    int n = 0;
    long long count = 1;
    CliOptStatus st = cliopt_parse(&spec, argc - 1, argv + 1, words, &n, 3, msg, sizeof msg);
    const char *why = st != CLIOPT_OK ? msg : n < 2 ? "give ENDPOINT and a mode" : NULL;
    if (!why && n == 3 && !numparse_int("N", words[2], 0, 1 << 30, &count, msg, sizeof msg))
        why = msg;
    if (why) {
        fprintf(stderr,
                "wire_client: %s\nusage: wire_client [--id NAME] [--wait S] [--server-key FILE "
                "--secret FILE] ENDPOINT garbage|big N|version|illegal|request|play N|inflight "
                "[N]|flood N\n",
                why);
        exit(2);
    }
    *endpoint = words[0];
    *mode = words[1];
    return (long)count;
}

int main(int argc, char **argv)
{
    Args args = {.id = "wire-client"};
    const char *endpoint, *mode;
    long count = parse(argc, argv, &args, &endpoint, &mode);
    const char *id = args.id, *server_key = args.server_key, *secret = args.secret;
    position_init();
    void *ctx = zmq_ctx_new();
    if (!ctx)
        die("zmq_ctx_new");
    sock = zmq_socket(ctx, ZMQ_DEALER);
    if (!sock)
        die("zmq_socket");
    int linger = 0;
    if (zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof linger) != 0 ||
        zmq_setsockopt(sock, ZMQ_ROUTING_ID, id, strlen(id)) != 0)
        die("zmq_setsockopt");
    if (server_key && secret)
        set_curve(server_key, secret);
    if (zmq_connect(sock, endpoint) != 0)
        die("zmq_connect");
    int status = 2;
    if (!strcmp(mode, "garbage")) {
        const char text[] = "this is not a chuhe message";
        if (zmq_send(sock, text, sizeof text - 1, 0) < 0)
            die("zmq_send");
        status = print_reply();
    } else if (!strcmp(mode, "big")) {
        static uint8_t big[1 << 20];
        size_t n = count > 0 && count < (long)sizeof big ? (size_t)count : sizeof big;
        memset(big, 'x', n);
        if (zmq_send(sock, big, n, 0) < 0)
            die("zmq_send");
        status = print_reply();
    } else if (!strcmp(mode, "version")) {
        ProtoMsg m;
        proto_init(&m, PROTO_WORK_REQUEST);
        size_t len = encode(&m);
        buf[4] = 99; /* version, little-endian u16 at offset 4 */
        if (zmq_send(sock, buf, len, 0) < 0)
            die("zmq_send");
        status = print_reply();
    } else if (!strcmp(mode, "illegal")) {
        status = illegal_game();
    } else if (!strcmp(mode, "request")) {
        send_type(PROTO_WORK_REQUEST);
        status = print_reply();
    } else if (!strcmp(mode, "play")) {
        status = play((int)count);
    } else if (!strcmp(mode, "inflight")) {
        status = inflight(count);
    } else if (!strcmp(mode, "flood")) {
        status = flood(count);
    } else {
        fprintf(stderr, "wire_client: unknown mode '%s'\n", mode);
    }
    fflush(stdout);
    zmq_close(sock);
    zmq_ctx_term(ctx);
    return status;
}
