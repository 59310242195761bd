/*
 * The wire protocol: every message type survives encode + decode unchanged, encoding
 * refuses out-of-range fields, and decoding refuses, with a message and without reading
 * past the frame, every malformed frame: bad headers, every truncation, every byte
 * corrupted, and many thousands of random frames from a fixed seed. Any frame the decoder
 * accepts must re-encode to exactly the same bytes (the encoding is canonical).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "contracts/protocol.h"
#include "notation.h"

/* Messages are large (a GAME holds a GameRecord): the tests share static ones. */
static ProtoMsg g_msg, g_out, g_tmp;
static uint8_t g_buf[PROTO_MAX_MESSAGE], g_buf2[PROTO_MAX_MESSAGE], g_fuzz[PROTO_MAX_MESSAGE + 64];

static uint64_t g_rng = 0x5eed0f7e57ab1e01ULL;

static uint64_t rnd(void)
{
    /* xorshift64*: fixed seed, so every run feeds the same frames. */
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 0x2545f4914f6cdd1dULL;
}

static Move mv(const char *text)
{
    Move m = move_from_text(text);
    assert_int_not_equal(m, MOVE_NONE);
    return m;
}

static void make_hello(ProtoMsg *m)
{
    proto_init(m, PROTO_HELLO);
    m->hello.rank = 3;
    m->hello.world_size = 8;
    m->hello.pid = 4242;
    snprintf(m->hello.hostname, sizeof m->hello.hostname, "node-17.cluster");
    snprintf(m->hello.version, sizeof m->hello.version, "chuhe 1.0-3-gabcdef");
}

static void make_work(ProtoMsg *m, int nmoves)
{
    proto_init(m, PROTO_WORK);
    ProtoWork *w = &m->work;
    w->run_id = 0x0123456789abcdefULL;
    w->pair_id = 77;
    snprintf(w->opening_fen, sizeof w->opening_fen, "%s", START_FEN);
    w->nmoves = (uint16_t)nmoves;
    for (int i = 0; i < nmoves; i++)
        w->moves[i] = (i & 1) ? mv("h9g7") : mv("h2e2");
    for (int i = 0; i < 2; i++) {
        ProtoPlayer *p = &w->players[i];
        p->player_id = (uint16_t)(10 + i);
        p->kind = PROTO_ENGINE_BUILTIN;
        p->hash_mb = 16;
        p->nodes = 20000 + (uint64_t)i;
        p->depth = (uint16_t)(i ? 0 : 12);
        p->movetime_ms = (uint32_t)(i ? 100 : 0);
        snprintf(p->weights, sizeof p->weights, "%s", i ? "/data/w/new.weights" : "");
    }
    w->settings.max_plies = 400;
    w->settings.resign_moves = 3;
    w->settings.resign_score = 1000;
    w->settings.draw_after = 80;
    w->settings.draw_moves = 8;
    w->settings.draw_score = 10;
}

static void make_game(ProtoMsg *m, int nplies)
{
    proto_init(m, PROTO_GAME);
    ProtoGame *g = &m->game;
    g->run_id = 0x0123456789abcdefULL;
    g->pair_id = 1ULL << 40;
    g->game_in_pair = 1;
    g->worker_rank = 5;
    snprintf(g->rec.start_fen, sizeof g->rec.start_fen, "%s", START_FEN);
    g->rec.nplies = nplies;
    for (int i = 0; i < nplies; i++) {
        RecordPly *p = &g->rec.plies[i];
        p->move = move_make(i % 90, (i % 90 + 1 + i % 7) % 90);
        p->best = i % 3 ? p->move : MOVE_NONE;
        p->score = (int16_t)((i * 37) % 64000 - 32000);
        p->depth = (uint8_t)(i % 40);
        p->flags = (uint8_t)(i % 16);
        p->nodes = (uint32_t)i * 1000003u;
    }
    g->rec.outcome = OUTCOME_BLACK_WIN;
    g->rec.reason = REASON_PERPETUAL_CHECK;
}

static void make_simple(ProtoMsg *m, ProtoType t)
{
    proto_init(m, t);
    switch (t) {
    case PROTO_ACK:
        m->ack.run_id = 99;
        m->ack.pair_id = 12;
        m->ack.game_in_pair = 1;
        m->ack.status = PROTO_ACK_DUPLICATE;
        m->ack.game_id = 23;
        break;
    case PROTO_HEARTBEAT:
        m->heartbeat.rank = 2;
        m->heartbeat.games_done = 1234;
        m->heartbeat.nodes = 987654321012ULL;
        break;
    case PROTO_WAIT:
        m->wait.retry_ms = 2500;
        break;
    case PROTO_ERROR:
        snprintf(m->error.text, sizeof m->error.text, "game refused: ply 12: h0g2 is not legal");
        break;
    default:
        break;
    }
}

/* Every message type in a few shapes, by index; false past the last. */
static bool make_sample(ProtoMsg *m, int i)
{
    switch (i) {
    case 0:
        make_hello(m);
        return true;
    case 1:
        make_simple(m, PROTO_WORK_REQUEST);
        return true;
    case 2:
        make_work(m, 0);
        return true;
    case 3:
        make_work(m, 6);
        return true;
    case 4:
        make_work(m, PROTO_OPENING_MAX);
        /* the longest WORK: every tuned parameter, with the longest names */
        for (int p = 0; p < 2; p++) {
            ProtoPlayer *pl = &m->work.players[p];
            pl->ntuned = PROTO_TUNED_MAX;
            for (int k = 0; k < PROTO_TUNED_MAX; k++) {
                memset(pl->tuned[k].name, 'a' + k % 26, PROTO_TUNED_NAME_MAX);
                pl->tuned[k].value = (k - 20) * 1.25;
            }
        }
        return true;
    case 5:
        make_game(m, 0);
        return true;
    case 6:
        make_game(m, 9);
        return true;
    case 7:
        make_game(m, RECORD_MAX_PLIES);
        return true;
    case 8:
        make_simple(m, PROTO_ACK);
        return true;
    case 9:
        make_simple(m, PROTO_HEARTBEAT);
        return true;
    case 10:
        make_simple(m, PROTO_DONE);
        return true;
    case 11:
        make_simple(m, PROTO_WAIT);
        return true;
    case 12:
        make_simple(m, PROTO_ERROR);
        return true;
    default:
        return false;
    }
}

static size_t encode_ok(const ProtoMsg *m, uint8_t *buf)
{
    ProtoError err = {{0}};
    size_t n = proto_encode(m, buf, PROTO_MAX_MESSAGE, &err);
    if (!n)
        fail_msg("encoding %s failed: %s", proto_type_name(m->type), err.msg);
    return n;
}

/* Decodes a frame that must be refused, and checks that a reason was given. */
static void expect_reject(const uint8_t *buf, size_t len, const char *needle)
{
    ProtoError err;
    memset(&err, 0, sizeof err);
    if (proto_decode(buf, len, &g_tmp, &err))
        fail_msg("a malformed frame of %zu bytes was accepted", len);
    assert_true(err.msg[0] != '\0');
    if (needle && !strstr(err.msg, needle))
        fail_msg("error \"%s\" does not mention \"%s\"", err.msg, needle);
}

/* A frame the decoder accepts must be exactly the encoding of what it decoded. */
static void expect_canonical(const uint8_t *buf, size_t len)
{
    ProtoError err = {{0}};
    if (!proto_decode(buf, len, &g_tmp, &err)) {
        assert_true(err.msg[0] != '\0');
        return;
    }
    size_t n = proto_encode(&g_tmp, g_buf2, sizeof g_buf2, &err);
    if (n != len || memcmp(buf, g_buf2, len) != 0)
        fail_msg("an accepted %s frame of %zu bytes re-encodes differently (%zu bytes)",
                 proto_type_name(g_tmp.type), len, n);
}

static void set_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* ------------------------------------------------------------------------------------ */

static void test_round_trip(void **state)
{
    (void)state;
    for (int i = 0; make_sample(&g_msg, i); i++) {
        size_t n = encode_ok(&g_msg, g_buf);
        ProtoError err = {{0}};
        if (!proto_decode(g_buf, n, &g_out, &err))
            fail_msg("sample %d (%s) does not decode: %s", i, proto_type_name(g_msg.type), err.msg);
        if (memcmp(&g_msg, &g_out, sizeof g_msg) != 0)
            fail_msg("sample %d (%s) changed in a round trip", i, proto_type_name(g_msg.type));
        assert_int_equal(encode_ok(&g_out, g_buf2), n);
        assert_memory_equal(g_buf, g_buf2, n);
    }
}

static void test_layout(void **state)
{
    (void)state;
    /* The header and a small payload byte by byte: the documented little-endian layout. */
    make_simple(&g_msg, PROTO_WAIT);
    size_t n = encode_ok(&g_msg, g_buf);
    static const uint8_t want[] = {'C', 'H', 'U', 'H', PROTO_VERSION, 0,    PROTO_WAIT, 0,
                                   4,   0,   0,   0,   0xc4,          0x09, 0,          0};
    assert_int_equal(n, sizeof want);
    assert_memory_equal(g_buf, want, sizeof want);

    make_game(&g_msg, RECORD_MAX_PLIES);
    g_msg.game.rec.start_fen[0] = '\0';
    memset(g_msg.game.rec.start_fen, 'k', PROTO_FEN_MAX);
    n = encode_ok(&g_msg, g_buf);
    assert_true(n <= PROTO_MAX_MESSAGE);
    /* GAME: header, u64 run, u64 pair, u8 game, u32 rank, str fen, u16 n, plies, u8, u8 */
    assert_int_equal(n, 12 + 8 + 8 + 1 + 4 + 2 + PROTO_FEN_MAX + 2 +
                            RECORD_MAX_PLIES * PROTO_PLY_SIZE + 2);
    make_game(&g_msg, 1);
    n = encode_ok(&g_msg, g_buf);
    const uint8_t *ply = g_buf + 12 + 8 + 8 + 1 + 4 + 2 + strlen(START_FEN) + 2;
    const RecordPly *p = &g_msg.game.rec.plies[0];
    assert_int_equal(ply[0] | ply[1] << 8, p->move);
    assert_int_equal((int16_t)(ply[4] | ply[5] << 8), p->score);
    assert_int_equal(ply[6], p->depth);
    assert_int_equal(ply[7], p->flags);
}

static void expect_encode_fails(const ProtoMsg *m, const char *needle)
{
    ProtoError err = {{0}};
    assert_int_equal(proto_encode(m, g_buf, sizeof g_buf, &err), 0);
    if (!strstr(err.msg, needle))
        fail_msg("error \"%s\" does not mention \"%s\"", err.msg, needle);
}

/* An external player's command, options, protocol and clock cross the wire, and the
 * combinations that make no sense are refused; a built-in player's option.Threads. */
static void test_external_player(void **state)
{
    (void)state;
    make_work(&g_msg, 2);
    ProtoPlayer *p = &g_msg.work.players[1];
    p->kind = PROTO_ENGINE_EXTERNAL;
    p->weights[0] = '\0';
    p->protocol = PROTO_EXT_UCI1;
    p->tc_base_ms = 10000;
    p->tc_inc_ms = 100;
    p->margin_ms = 50;
    snprintf(p->command, sizeof p->command, "/usr/games/fairy-stockfish");
    snprintf(p->options, sizeof p->options, "Hash=16;Threads=1");
    snprintf(p->dir, sizeof p->dir, "/tmp");
    size_t n = encode_ok(&g_msg, g_buf);
    ProtoError err;
    assert_true(proto_decode(g_buf, n, &g_tmp, &err));
    const ProtoPlayer *q = &g_tmp.work.players[1];
    assert_int_equal(q->kind, PROTO_ENGINE_EXTERNAL);
    assert_int_equal(q->protocol, PROTO_EXT_UCI1);
    assert_int_equal(q->tc_base_ms, 10000);
    assert_int_equal(q->tc_inc_ms, 100);
    assert_int_equal(q->margin_ms, 50);
    assert_string_equal(q->command, p->command);
    assert_string_equal(q->options, p->options);
    assert_string_equal(q->dir, p->dir);

    ProtoMsg good = g_msg;
    g_msg.work.players[1].command[0] = '\0';
    expect_encode_fails(&g_msg, "needs a command");
    g_msg = good;
    snprintf(g_msg.work.players[1].weights, sizeof g_msg.work.players[1].weights, "x.weights");
    expect_encode_fails(&g_msg, "no weights");
    g_msg = good;
    g_msg.work.players[1].protocol = PROTO_EXT_NB;
    expect_encode_fails(&g_msg, "protocol");
    g_msg = good;
    g_msg.work.players[0].protocol = PROTO_EXT_UCCI;
    expect_encode_fails(&g_msg, "built-in engine has no command");
    /* a built-in player takes option.Threads only, in range */
    g_msg = good;
    snprintf(g_msg.work.players[0].options, sizeof g_msg.work.players[0].options, "Threads=4");
    n = encode_ok(&g_msg, g_buf);
    assert_true(proto_decode(g_buf, n, &g_tmp, &err));
    assert_string_equal(g_tmp.work.players[0].options, "Threads=4");
    snprintf(g_msg.work.players[0].options, sizeof g_msg.work.players[0].options, "Threads=257");
    expect_encode_fails(&g_msg, "option.Threads: '257' is out of range");
    snprintf(g_msg.work.players[0].options, sizeof g_msg.work.players[0].options, "Hash=16");
    expect_encode_fails(&g_msg, "takes option.Threads=N only");
    g_msg = good;
    g_msg.work.players[1].tc_base_ms = 0;
    expect_encode_fails(&g_msg, "increment without a clock");
    g_msg = good;
    g_msg.work.players[1].command[3] = '\n';
    expect_encode_fails(&g_msg, "command");
    /* a clock alone is a limit */
    g_msg = good;
    g_msg.work.players[1].nodes = g_msg.work.players[1].depth = 0;
    g_msg.work.players[1].movetime_ms = 0;
    encode_ok(&g_msg, g_buf);

    ProtoExtProtocol e;
    assert_true(proto_ext_protocol_parse("uci-ranks-1-10", &e) && e == PROTO_EXT_UCI1);
    assert_true(proto_ext_protocol_parse("ucci", &e) && e == PROTO_EXT_UCCI);
    assert_true(proto_ext_protocol_parse("xboard", &e) && e == PROTO_EXT_XBOARD);
    assert_string_equal(proto_ext_protocol_name(PROTO_EXT_XBOARD), "xboard");
    assert_false(proto_ext_protocol_parse("cecp", &e));
}

/* Tuned parameters cross the wire bit for bit, and only names and values that an option
 * list can take pass. */
static void test_tuned(void **state)
{
    (void)state;
    make_work(&g_msg, 2);
    ProtoPlayer *p = &g_msg.work.players[0];
    p->ntuned = 3;
    snprintf(p->tuned[0].name, sizeof p->tuned[0].name, "rfp_margin");
    p->tuned[0].value = 93;
    snprintf(p->tuned[1].name, sizeof p->tuned[1].name, "Skill Level");
    p->tuned[1].value = -0.1;
    snprintf(p->tuned[2].name, sizeof p->tuned[2].name, "x");
    p->tuned[2].value = 1e15;
    size_t n = encode_ok(&g_msg, g_buf);
    ProtoError err;
    assert_true(proto_decode(g_buf, n, &g_tmp, &err));
    assert_int_equal(g_tmp.work.players[0].ntuned, 3);
    assert_string_equal(g_tmp.work.players[0].tuned[1].name, "Skill Level");
    assert_true(g_tmp.work.players[0].tuned[1].value == -0.1);
    assert_int_equal(g_tmp.work.players[1].ntuned, 0);

    ProtoMsg good = g_msg;
    p->tuned[1].name[5] = '=';
    expect_encode_fails(&g_msg, "empty name, or '=' or ';'");
    g_msg = good;
    p->tuned[2].name[0] = '\0';
    expect_encode_fails(&g_msg, "empty name");
    g_msg = good;
    p->tuned[0].value = 0.0 / 0.0;
    expect_encode_fails(&g_msg, "not a finite number");
    g_msg = good;
    p->tuned[0].value = 2e15;
    expect_encode_fails(&g_msg, "not a finite number");
    g_msg = good;
    p->ntuned = PROTO_TUNED_MAX + 1;
    expect_encode_fails(&g_msg, "tuned parameters exceed");
    /* a count past the limit on the wire is refused before anything is read: player 1's
     * ntuned is the byte before the six u16 game settings */
    g_msg = good;
    p->ntuned = 0;
    n = encode_ok(&g_msg, g_buf);
    assert_int_equal(g_buf[n - 13], 0);
    g_buf[n - 13] = PROTO_TUNED_MAX + 1;
    assert_false(proto_decode(g_buf, n, &g_tmp, &err));
    assert_non_null(strstr(err.msg, "tuned parameters exceed"));
}

static void test_encode_checks(void **state)
{
    (void)state;
    make_hello(&g_msg);
    g_msg.hello.rank = 8;
    expect_encode_fails(&g_msg, "world size");
    make_hello(&g_msg);
    g_msg.hello.hostname[3] = '\n';
    expect_encode_fails(&g_msg, "hostname");
    make_hello(&g_msg);
    memset(g_msg.hello.version, 'x', sizeof g_msg.hello.version);
    expect_encode_fails(&g_msg, "longer than");

    make_work(&g_msg, 2);
    g_msg.work.moves[1] = MOVE_NULL;
    expect_encode_fails(&g_msg, "opening move 1");
    make_work(&g_msg, 2);
    g_msg.work.nmoves = PROTO_OPENING_MAX + 1;
    expect_encode_fails(&g_msg, "opening moves");
    make_work(&g_msg, 2);
    g_msg.work.players[1].nodes = g_msg.work.players[1].depth = 0;
    g_msg.work.players[1].movetime_ms = 0;
    expect_encode_fails(&g_msg, "no nodes");
    make_work(&g_msg, 2);
    g_msg.work.players[0].kind = PROTO_ENGINE_KIND_NB;
    expect_encode_fails(&g_msg, "engine kind");
    make_work(&g_msg, 2);
    g_msg.work.settings.max_plies = 0;
    expect_encode_fails(&g_msg, "max_plies");
    make_work(&g_msg, 2);
    g_msg.work.opening_fen[5] = (char)0xe4;
    expect_encode_fails(&g_msg, "opening_fen");

    make_game(&g_msg, 5);
    g_msg.game.game_in_pair = 2;
    expect_encode_fails(&g_msg, "game_in_pair");
    make_game(&g_msg, 5);
    g_msg.game.rec.plies[3].move = move_make(4, 4);
    expect_encode_fails(&g_msg, "ply 3");
    make_game(&g_msg, 5);
    g_msg.game.rec.plies[2].score = 32001;
    expect_encode_fails(&g_msg, "score");
    make_game(&g_msg, 5);
    g_msg.game.rec.plies[4].flags = 0x40;
    expect_encode_fails(&g_msg, "flags");
    make_game(&g_msg, 5);
    g_msg.game.rec.outcome = OUTCOME_NONE;
    expect_encode_fails(&g_msg, "outcome");
    make_game(&g_msg, 5);
    g_msg.game.rec.reason = REASON_NB;
    expect_encode_fails(&g_msg, "reason");
    make_game(&g_msg, 5);
    g_msg.game.rec.nplies = RECORD_MAX_PLIES + 1;
    expect_encode_fails(&g_msg, "plies");

    make_simple(&g_msg, PROTO_ACK);
    g_msg.ack.status = PROTO_ACK_STATUS_NB;
    expect_encode_fails(&g_msg, "status");
    make_simple(&g_msg, PROTO_WAIT);
    g_msg.wait.retry_ms = 0;
    expect_encode_fails(&g_msg, "retry_ms");
    proto_init(&g_msg, PROTO_TYPE_NB);
    expect_encode_fails(&g_msg, "unknown message type");

    /* Too small a buffer: refused, never overrun. */
    make_game(&g_msg, 50);
    ProtoError err = {{0}};
    size_t full = encode_ok(&g_msg, g_buf);
    for (size_t cap = 0; cap < full; cap += 37)
        assert_int_equal(proto_encode(&g_msg, g_buf, cap, &err), 0);
    assert_non_null(strstr(err.msg, "does not fit"));
}

static void test_decode_header(void **state)
{
    (void)state;
    make_hello(&g_msg);
    size_t n = encode_ok(&g_msg, g_buf);
    expect_reject(NULL, 0, "shorter");
    expect_reject(g_buf, 0, "shorter");
    expect_reject(g_buf, 11, "shorter");

    memcpy(g_buf2, g_buf, n);
    g_buf2[0] = 'X';
    expect_reject(g_buf2, n, "magic");
    memcpy(g_buf2, g_buf, n);
    g_buf2[4] = PROTO_VERSION + 1;
    char version_text[40];
    snprintf(version_text, sizeof version_text, "protocol version %d", PROTO_VERSION + 1);
    expect_reject(g_buf2, n, version_text);
    memcpy(g_buf2, g_buf, n);
    g_buf2[6] = 0;
    expect_reject(g_buf2, n, "unknown message type 0");
    g_buf2[6] = PROTO_TYPE_NB;
    expect_reject(g_buf2, n, "unknown message type");
    memcpy(g_buf2, g_buf, n);
    set_u32(g_buf2 + 8, 0xffffffffu);
    expect_reject(g_buf2, n, "payload bytes");
    /* One frame per message: trailing bytes after the frame are refused. */
    memcpy(g_buf2, g_buf, n);
    g_buf2[n] = 0;
    expect_reject(g_buf2, n + 1, "payload bytes");
    /* A payload longer than its layout. */
    set_u32(g_buf2 + 8, (uint32_t)(n + 1 - PROTO_HEADER_SIZE));
    expect_reject(g_buf2, n + 1, "unexpected bytes");
    /* An empty message with a payload. */
    make_simple(&g_msg, PROTO_DONE);
    n = encode_ok(&g_msg, g_buf);
    g_buf[n] = 7;
    set_u32(g_buf + 8, 1);
    expect_reject(g_buf, n + 1, "unexpected bytes");
    /* Too long for any message. */
    memset(g_fuzz, 0, sizeof g_fuzz);
    expect_reject(g_fuzz, PROTO_MAX_MESSAGE + 1, "exceeds");
}

static void test_decode_fields(void **state)
{
    (void)state;
    /* A string length beyond its field: refused before anything is copied. */
    make_hello(&g_msg);
    size_t n = encode_ok(&g_msg, g_buf);
    size_t host = PROTO_HEADER_SIZE + 12; /* u16 length of the hostname */
    g_buf[host] = 0xff;
    g_buf[host + 1] = 0xff;
    expect_reject(g_buf, n, "hostname");
    /* A NUL inside a string. */
    n = encode_ok(&g_msg, g_buf);
    g_buf[host + 2 + 3] = 0;
    expect_reject(g_buf, n, "NUL");
    /* A ply count beyond RECORD_MAX_PLIES. */
    make_game(&g_msg, 3);
    n = encode_ok(&g_msg, g_buf);
    size_t np = PROTO_HEADER_SIZE + 8 + 8 + 1 + 4 + 2 + strlen(START_FEN);
    g_buf[np] = 0x01;
    g_buf[np + 1] = 0x10;
    expect_reject(g_buf, n, "plies");
    /* A ply count larger than the plies present. */
    g_buf[np] = 4;
    g_buf[np + 1] = 0;
    expect_reject(g_buf, n, "truncated");
    /* game_in_pair 2, reason out of range, outcome none. */
    n = encode_ok(&g_msg, g_buf);
    g_buf[PROTO_HEADER_SIZE + 16] = 2;
    expect_reject(g_buf, n, "game_in_pair");
    n = encode_ok(&g_msg, g_buf);
    g_buf[n - 1] = REASON_NB;
    expect_reject(g_buf, n, "reason");
    n = encode_ok(&g_msg, g_buf);
    g_buf[n - 2] = OUTCOME_NONE;
    expect_reject(g_buf, n, "outcome");
    /* Opening move count beyond the limit. */
    make_work(&g_msg, 1);
    n = encode_ok(&g_msg, g_buf);
    size_t nm = PROTO_HEADER_SIZE + 16 + 2 + strlen(START_FEN);
    g_buf[nm] = 0xff;
    expect_reject(g_buf, n, "opening moves");
}

/* Every prefix of every sample, both as is (the header no longer matches) and with the
 * header's length patched to the prefix (the payload parser meets the shortfall). */
static void test_truncation(void **state)
{
    (void)state;
    long rejected = 0;
    for (int i = 0; make_sample(&g_msg, i); i++) {
        size_t n = encode_ok(&g_msg, g_buf);
        for (size_t len = 0; len < n; len++) {
            expect_reject(g_buf, len, NULL);
            if (len >= PROTO_HEADER_SIZE) {
                memcpy(g_fuzz, g_buf, len);
                set_u32(g_fuzz + 8, (uint32_t)(len - PROTO_HEADER_SIZE));
                expect_reject(g_fuzz, len, NULL);
            }
            rejected++;
        }
    }
    assert_true(rejected > 10000);
}

/* Every byte of every sample flipped in several ways: refused, or canonical. */
static void test_corruption(void **state)
{
    (void)state;
    static const uint8_t masks[] = {0x01, 0x02, 0x10, 0x80, 0xff};
    for (int i = 0; make_sample(&g_msg, i); i++) {
        size_t n = encode_ok(&g_msg, g_buf);
        size_t step = n > 4096 ? 7 : 1; /* the full GAME: every 7th byte, still 1800 */
        for (size_t at = 0; at < n; at += step)
            for (size_t k = 0; k < sizeof masks; k++) {
                memcpy(g_fuzz, g_buf, n);
                g_fuzz[at] ^= masks[k];
                expect_canonical(g_fuzz, n);
            }
    }
}

/* Random frames: raw noise, noise behind a valid header, and valid frames with several
 * random bytes changed and random lengths. */
static void test_random(void **state)
{
    (void)state;
    long accepted = 0, total = 0;
    for (int iter = 0; iter < 30000; iter++, total++) {
        size_t len = (size_t)(rnd() % (iter % 10 ? 600 : sizeof g_fuzz));
        for (size_t j = 0; j < len; j++)
            g_fuzz[j] = (uint8_t)rnd();
        if (iter % 3 && len >= PROTO_HEADER_SIZE) {
            set_u32(g_fuzz, PROTO_MAGIC);
            g_fuzz[4] = PROTO_VERSION;
            g_fuzz[5] = 0;
            g_fuzz[6] = (uint8_t)(1 + rnd() % (PROTO_TYPE_NB - 1));
            g_fuzz[7] = 0;
            set_u32(g_fuzz + 8, (uint32_t)(len - PROTO_HEADER_SIZE));
        }
        ProtoError err = {{0}};
        bool ok = proto_decode(g_fuzz, len, &g_tmp, &err);
        accepted += ok;
        if (!ok)
            assert_true(err.msg[0] != '\0');
        expect_canonical(g_fuzz, len);
    }
    for (int iter = 0; iter < 20000; iter++, total++) {
        make_sample(&g_msg, (int)(rnd() % 13));
        size_t n = encode_ok(&g_msg, g_fuzz);
        int flips = 1 + (int)(rnd() % 4);
        for (int f = 0; f < flips; f++)
            g_fuzz[rnd() % n] = (uint8_t)rnd();
        if (rnd() % 4 == 0) {
            n = PROTO_HEADER_SIZE + (size_t)(rnd() % (n - PROTO_HEADER_SIZE + 1));
            set_u32(g_fuzz + 8, (uint32_t)(n - PROTO_HEADER_SIZE));
        }
        expect_canonical(g_fuzz, n);
    }
    /* Only the empty messages can come out of noise behind a valid header. */
    assert_true(accepted < total / 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),      cmocka_unit_test(test_layout),
        cmocka_unit_test(test_external_player), cmocka_unit_test(test_tuned),
        cmocka_unit_test(test_encode_checks),   cmocka_unit_test(test_decode_header),
        cmocka_unit_test(test_decode_fields),   cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_corruption),      cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
