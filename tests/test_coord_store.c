/*
 * A GAME's one pass through the coordinator (coordinator/coord_store.h): decoded, judged,
 * stored and counted once durable, with nothing read back from the run file. A stored
 * game counts as a repeat exactly when its moves repeat an earlier stored game's (not a
 * resend), and a restart that counts the file again finds the same repeats.
 *
 * The server's state is built by hand around a ROUTER socket with no peer (the ACKs go
 * nowhere); every pair opens from the start position (a one-line openings file), and the
 * games play seeded random moves up to the run's move limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zmq.h>

#include "contracts/protocol.h"
#include "contracts/runfile.h"
#include "coordinator/coord_hub.h"
#include "coordinator/coord_runstats.h"
#include "coordinator/coord_sched.h"
#include "coordinator/coord_store.h"
#include "movegen.h"
#include "tests/support/scratch.h"

enum { MAX_PLIES = 12 };

typedef struct {
    CoordConfig cfg;
    Schedule sched;
    RunStats stats;
    CoordRun run;
    CoordHub hub;
    uint8_t wire[PROTO_MAX_MESSAGE];
} Server;

static GameRecord g_rec;

static int setup(void **state)
{
    (void)state;
    return scratch_create("store");
}

static int teardown(void **state)
{
    (void)state;
    return scratch_remove();
}

/* Two engines, the start position for every pair, the move limit at MAX_PLIES, a new
 * run file. */
static void server_open(Server *s, const char *path)
{
    memset(s, 0, sizeof *s);
    coord_config_defaults(&s->cfg);
    s->cfg.games = 20;
    s->cfg.max_plies = MAX_PLIES;
    snprintf(s->cfg.openings, sizeof s->cfg.openings, "%s", scratch_path("start.epd"));
    char line[RECORD_FEN_MAX + 1];
    snprintf(line, sizeof line, "%s\n", START_FEN);
    assert_true(scratch_spit(s->cfg.openings, (const unsigned char *)line, strlen(line)));
    SchedError serr;
    if (!coord_sched_init(&s->sched, &s->cfg, &serr))
        fail_msg("coord_sched_init: %s", serr.msg);
    coord_runstats_init(&s->stats, 0);
    coord_runstats_set_engines(&s->stats, 2);
    RunError err;
    RunFile *rf = runfile_create(path, "{}", "chuhe test", &err);
    if (!rf)
        fail_msg("create: %s", err.msg);
    for (int e = 0; e < 2; e++)
        assert_true(
            runfile_add_player(rf, e ? "b" : "a", "builtin", "", 0, &s->run.players[e], &err));
    s->run = (CoordRun){.cfg = &s->cfg,
                        .rf = rf,
                        .sched = &s->sched,
                        .stats = &s->stats,
                        .players = {s->run.players[0], s->run.players[1]}};
    CoordHub *h = &s->hub;
    h->run = &s->run;
    h->cfg = &s->cfg;
    h->ctx = zmq_ctx_new();
    assert_non_null(h->ctx);
    h->router = zmq_socket(h->ctx, ZMQ_ROUTER);
    assert_non_null(h->router);
    assert_int_equal(zmq_bind(h->router, "inproc://store"), 0);
    h->msg = calloc(1, sizeof *h->msg);
    h->buf = malloc(PROTO_MAX_MESSAGE);
    assert_non_null(h->msg);
    assert_non_null(h->buf);
    assert_int_equal(coord_workers_find(&h->workers, (const uint8_t *)"w0", 2, &s->cfg, 0), 0);
}

static void server_close(Server *s)
{
    CoordHub *h = &s->hub;
    coord_store_free(&h->unflushed);
    coord_outbox_free(&h->out);
    free(h->workers.items);
    free(h->msg);
    free(h->buf);
    zmq_close(h->router);
    zmq_ctx_term(h->ctx);
    RunError err;
    assert_true(runfile_close(&s->run.rf, &err));
    coord_runstats_free(&s->stats);
    coord_sched_free(&s->sched);
}

/* A game of pair: its opening (the start position), then random moves from seed up to
 * the move limit. */
static void make_game(Server *s, uint64_t pair, uint64_t seed, GameRecord *r)
{
    SchedError serr;
    const Opening *op = coord_sched_opening(&s->sched, pair, &serr);
    if (!op)
        fail_msg("opening of pair %llu: %s", (unsigned long long)pair, serr.msg);
    static Position pos;
    PosError perr;
    record_init(r, 0, op->fen);
    assert_true(pos_set_fen(&pos, op->fen, &perr));
    r->outcome = OUTCOME_DRAW;
    r->reason = REASON_MOVE_LIMIT;
    for (int i = 0; i < MAX_PLIES; i++) {
        bool opening = i < op->nmoves;
        MoveList list;
        gen_legal(&pos, &list);
        assert_true(list.count > 0);
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL; /* an LCG step */
        Move m = opening ? op->moves[i] : list.moves[(seed >> 33) % (unsigned)list.count];
        RecordPly p = {
            .move = m,
            .best = opening ? MOVE_NONE : m,
            .depth = (uint8_t)!opening,
            .flags = (uint8_t)(record_move_flags(&pos, m) | (opening ? RECORD_FLAG_OPENING : 0)),
            .nodes = 100};
        assert_true(record_push(r, &p));
        pos_do_move(&pos, m);
    }
    if (!record_validate(r, &perr))
        fail_msg("pair %llu seed %llu: %s", (unsigned long long)pair, (unsigned long long)seed,
                 perr.msg);
}

/* Sends game game_in_pair of pair through the wire's encoding and decoding to the store,
 * as worker 0 (which holds the pair). */
static void send_game(Server *s, uint64_t pair, unsigned game_in_pair, const GameRecord *r)
{
    ProtoMsg *m = s->hub.msg;
    proto_init(m, PROTO_GAME);
    m->game.run_id = runfile_run_id(s->run.rf);
    m->game.pair_id = pair;
    m->game.game_in_pair = (uint8_t)game_in_pair;
    m->game.rec = *r;
    ProtoError perr;
    size_t len = proto_encode(m, s->wire, sizeof s->wire, &perr);
    if (!len)
        fail_msg("encode: %s", perr.msg);
    memset(m, 0, sizeof *m);
    if (!proto_decode(s->wire, len, m, &perr))
        fail_msg("decode: %s", perr.msg);
    coord_store_game(&s->hub, 0);
}

static void test_repeats_counted_without_reads(void **state)
{
    (void)state;
    Server *s = malloc(sizeof *s);
    assert_non_null(s);
    const char *path = scratch_path("repeats.h5");
    server_open(s, path);
    uint64_t id;
    for (uint64_t want = 0; want < 3; want++) {
        assert_true(coord_sched_assign_next(&s->sched, 0, 0, &id));
        assert_int_equal(id, want);
    }
    uint64_t reads = runfile_read_count(s->run.rf);

    /* Each row: the pair, the game in it, the seed of its moves (0: the moves of the
     * game before), then a flush when set. Pair 0's second game plays the first's moves,
     * colours swapped: a repeat. Pair 1's first game is sent twice: the resend is a
     * duplicate, not a repeat. Pair 2's first game plays pair 1's last one's moves: a
     * repeat, stored in the same flush. */
    static const struct {
        uint64_t pair;
        unsigned game_in_pair;
        uint64_t seed;
        bool flush;
    } SENT[] = {{0, 0, 11, false}, {0, 1, 0, true},  {1, 0, 12, false}, {1, 0, 0, false},
                {1, 1, 13, false}, {2, 0, 0, false}, {2, 1, 14, true}};
    for (size_t k = 0; k < sizeof SENT / sizeof SENT[0]; k++) {
        if (SENT[k].seed)
            make_game(s, SENT[k].pair, SENT[k].seed, &g_rec);
        send_game(s, SENT[k].pair, SENT[k].game_in_pair, &g_rec);
        if (SENT[k].flush)
            coord_outbox_commit(&s->hub);
        if (k == 1) {
            assert_int_equal(s->stats.games, 2);
            assert_int_equal(s->stats.repeated, 1);
        }
    }
    assert_int_equal(s->stats.duplicates, 1);
    assert_int_equal(s->stats.rejected, 0);
    assert_int_equal(s->stats.games, 6);
    assert_int_equal(s->stats.repeated, 2);
    /* storing and counting read nothing back from the file */
    assert_int_equal(runfile_read_count(s->run.rf), reads);
    server_close(s);

    /* a restart counts the same repeats from the file, which it reads */
    RunError err;
    RunFile *rf = runfile_open_read(path, &err);
    if (!rf)
        fail_msg("open: %s", err.msg);
    RunStats st;
    coord_runstats_init(&st, 0);
    coord_runstats_set_engines(&st, 2);
    reads = runfile_read_count(rf);
    for (uint64_t g = 0; g < runfile_game_count(rf); g++)
        coord_runstats_add_stored(&st, rf, g, 0, false, NULL);
    assert_int_equal(st.games, 6);
    assert_int_equal(st.repeated, 2);
    assert_true(runfile_read_count(rf) > reads);
    coord_runstats_free(&st);
    assert_true(runfile_close(&rf, &err));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repeats_counted_without_reads),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
