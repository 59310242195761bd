/*
 * The run file: games written and read back field by field; resuming a file for append;
 * a writer killed with SIGKILL after a flush loses nothing it flushed; damaged and
 * mismatched files are refused, unchanged; what an interrupted write leaves is dropped;
 * the plain-text export replays legally and the PGN export has every game.
 *
 * Games are random legal games from fixed seeds, ended by the rules (rules_judge_game) or
 * by a ply cap and checked with record_validate, so a test can rebuild any game it wrote.
 * Files live in a scratch directory that the group teardown removes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <hdf5.h>

#include "coordinator/coord_export.h"
#include "contracts/runfile.h"
#include "movegen.h"
#include "notation.h"
#include "rng.h"
#include "rules.h"
#include "tests/support/scratch.h"

static Position g_pos;
static GameRecord g_rec, g_back;

static const char *const OPENING_FEN =
    "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 3 2";

/* A random legal game from seed: ended by the rules, or drawn at max_plies. The first two
 * plies are marked as opening moves. */
static void play_game(GameRecord *r, uint64_t seed, int max_plies, const char *fen)
{
    PosError err = {{0}};
    memset(r, 0, offsetof(GameRecord, plies));
    snprintf(r->start_fen, sizeof r->start_fen, "%s", fen);
    if (!pos_set_fen(&g_pos, fen, &err))
        fail_msg("bad FEN %s: %s", fen, err.msg);
    uint64_t s = seed;
    r->outcome = OUTCOME_DRAW;
    r->reason = REASON_MOVE_LIMIT;
    for (int i = 0; i < max_plies; i++) {
        MoveList list;
        gen_legal(&g_pos, &list);
        assert_true(list.count > 0);
        RecordPly *p = &r->plies[r->nplies++];
        p->move = list.moves[rng_next(&s) % (unsigned)list.count];
        p->best = rng_next(&s) % 4 ? p->move : list.moves[0];
        p->score = (int16_t)((int)(rng_next(&s) % 2001) - 1000);
        p->depth = (uint8_t)(i < 2 ? 0 : 1 + rng_next(&s) % 20);
        p->flags =
            (uint8_t)(record_move_flags(&g_pos, p->move) | (i < 2 ? RECORD_FLAG_OPENING : 0));
        p->nodes = (uint32_t)rng_next(&s);
        pos_do_move(&g_pos, p->move);
        Verdict v = rules_judge_game(&g_pos);
        if (v.result != RESULT_NONE) {
            r->outcome = record_outcome_from(g_pos.side, v.result);
            r->reason = v.reason;
            break;
        }
    }
}

/* Game k of the standard test set: pair k / 2, colours swapped in odd games. */
static void test_game(GameRecord *r, int k)
{
    play_game(r, 1000 + (uint64_t)k, 40 + (k * 37) % 160, k % 5 == 4 ? OPENING_FEN : START_FEN);
    PosError err = {{0}};
    if (!record_validate(r, &err))
        fail_msg("test game %d does not validate: %s", k, err.msg);
}

static void expect_same_record(const GameRecord *a, const GameRecord *b)
{
    assert_string_equal(a->start_fen, b->start_fen);
    assert_int_equal(a->nplies, b->nplies);
    for (int i = 0; i < a->nplies; i++) {
        const RecordPly *p = &a->plies[i], *q = &b->plies[i];
        if (p->move != q->move || p->best != q->best || p->score != q->score ||
            p->depth != q->depth || p->flags != q->flags || p->nodes != q->nodes)
            fail_msg("ply %d differs", i);
    }
    assert_int_equal(a->outcome, b->outcome);
    assert_int_equal(a->reason, b->reason);
}

static RunFile *create_ok(const char *path)
{
    RunError err = {{0}};
    RunFile *rf =
        runfile_create(path, "{\"mode\": \"datagen\", \"nodes\": 5000}", "chuhe test", &err);
    if (!rf)
        fail_msg("create: %s", err.msg);
    uint16_t id = 99;
    assert_true(runfile_add_player(rf, "chuhe-a", "builtin", "", 0x1111, &id, &err));
    assert_int_equal(id, 0);
    assert_true(runfile_add_player(rf, "chuhe-b", "builtin", "/w/b.weights", 0x2222, &id, &err));
    assert_int_equal(id, 1);
    return rf;
}

static void append_ok(RunFile *rf, const GameRecord *r, int k, uint64_t pair_id)
{
    RunError err = {{0}};
    uint64_t id = UINT64_MAX, before = runfile_game_count(rf);
    unsigned gip = (unsigned)(k & 1);
    if (!runfile_append_game(rf, r, pair_id, gip, (uint16_t)gip, (uint16_t)!gip, (uint32_t)(k % 7),
                             &id, &err))
        fail_msg("append game %d: %s", k, err.msg);
    assert_int_equal(id, before);
}

/* Writes games 0 .. n-1 of the test set as pairs 0 .. n/2 - 1 and closes the file. */
static void write_file(const char *path, int n)
{
    RunFile *rf = create_ok(path);
    for (int k = 0; k < n; k++) {
        test_game(&g_rec, k);
        append_ok(rf, &g_rec, k, (uint64_t)k / 2);
    }
    RunError err = {{0}};
    if (!runfile_close(&rf, &err))
        fail_msg("close: %s", err.msg);
    assert_null(rf);
}

static RunFile *open_read_ok(const char *path)
{
    RunError err = {{0}};
    RunFile *rf = runfile_open_read(path, &err);
    if (!rf)
        fail_msg("open_read %s: %s", path, err.msg);
    return rf;
}

/* Every game of the file equals game k of the test set, and its positions the replay. */
static void expect_test_games(RunFile *rf, int n)
{
    RunError err = {{0}};
    assert_int_equal(runfile_game_count(rf), n);
    uint64_t first = 0;
    RunPosition *rows = malloc(RECORD_MAX_PLIES * sizeof *rows);
    assert_non_null(rows);
    for (int k = 0; k < n; k++) {
        test_game(&g_rec, k);
        if (!runfile_read_game(rf, (uint64_t)k, &g_back, &err))
            fail_msg("read game %d: %s", k, err.msg);
        assert_int_equal(g_back.game_id, k);
        expect_same_record(&g_rec, &g_back);
        const RunGame *g = runfile_game(rf, (uint64_t)k);
        assert_non_null(g);
        assert_int_equal(g->game_id, k);
        assert_int_equal(g->pair_id, k / 2);
        assert_int_equal(g->game_in_pair, k & 1);
        assert_int_equal(g->red, k & 1);
        assert_int_equal(g->black, !(k & 1));
        assert_int_equal(g->worker_rank, k % 7);
        assert_int_equal(g->plies, g_rec.nplies);
        assert_int_equal(g->first_position, first);
        assert_int_equal(g->reason, g_rec.reason);
        int red = g_rec.outcome == OUTCOME_RED_WIN ? 1 : g_rec.outcome == OUTCOME_DRAW ? 0 : -1;
        assert_int_equal(g->outcome, red);

        /* The positions: replay and compare every column. */
        if (!runfile_read_positions(rf, first, (uint64_t)g_rec.nplies, rows, &err))
            fail_msg("read positions of game %d: %s", k, err.msg);
        PosError perr;
        assert_true(pos_set_fen(&g_pos, g_rec.start_fen, &perr));
        for (int i = 0; i < g_rec.nplies; i++) {
            const RunPosition *p = &rows[i];
            const RecordPly *q = &g_rec.plies[i];
            PackedPos packed;
            record_pack(&g_pos, &packed);
            assert_memory_equal(p->board.b, packed.b, PACKED_POS_SIZE);
            assert_int_equal(p->board.b[45], g_pos.side);
            assert_int_equal(p->game_id, k);
            assert_int_equal(p->ply, i);
            assert_int_equal(p->move, q->move);
            assert_int_equal(p->best, q->best);
            assert_int_equal(p->score, q->score);
            assert_int_equal(p->depth, q->depth);
            assert_int_equal(p->flags, q->flags);
            assert_int_equal(p->nodes, q->nodes);
            assert_int_equal(p->result, g_pos.side == RED ? red : -red);
            pos_do_move(&g_pos, q->move);
        }
        first += (uint64_t)g_rec.nplies;
    }
    assert_int_equal(runfile_position_count(rf), first);
    free(rows);
}

/* ------------------------------------------------------------------------------------ */

static void test_write_read(void **state)
{
    (void)state;
    const char *path = scratch_path("write_read.h5");
    write_file(path, 40);
    RunFile *rf = open_read_ok(path);
    RunError err = {{0}};
    assert_string_equal(runfile_config(rf), "{\"mode\": \"datagen\", \"nodes\": 5000}");
    assert_string_equal(runfile_engine_version(rf), "chuhe test");
    assert_int_equal(strlen(runfile_created(rf)), 20); /* 2024-05-01T12:00:00Z */
    assert_int_equal(runfile_created(rf)[19], 'Z');
    assert_string_equal(runfile_recovery_note(rf), "");
    assert_int_equal(runfile_player_count(rf), 2);
    const RunPlayer *p = runfile_player(rf, 1);
    assert_non_null(p);
    assert_int_equal(p->player_id, 1);
    assert_string_equal(p->name, "chuhe-b");
    assert_string_equal(p->kind, "builtin");
    assert_string_equal(p->weights, "/w/b.weights");
    assert_int_equal(p->weights_hash, 0x2222);
    assert_null(runfile_player(rf, 2));
    assert_int_equal(runfile_next_pair_id(rf), 20);
    expect_test_games(rf, 40);
    if (!runfile_verify(rf, &err))
        fail_msg("verify: %s", err.msg);

    /* A second reader at the same time, reading a shard from the middle. */
    RunFile *rf2 = open_read_ok(path);
    assert_int_equal(runfile_run_id(rf2), runfile_run_id(rf));
    uint64_t n = runfile_position_count(rf);
    RunPosition a[10], b[10];
    assert_true(runfile_read_positions(rf, n / 2, 10, a, &err));
    assert_true(runfile_read_positions(rf2, n / 2, 10, b, &err));
    for (int i = 0; i < 10; i++) {
        assert_memory_equal(a[i].board.b, b[i].board.b, PACKED_POS_SIZE);
        assert_int_equal(a[i].game_id, b[i].game_id);
        assert_int_equal(a[i].ply, b[i].ply);
        assert_int_equal(a[i].nodes, b[i].nodes);
    }

    /* Out of range, and writes through a reader. */
    assert_false(runfile_read_positions(rf, n - 5, 6, a, &err));
    assert_non_null(strstr(err.msg, "stored"));
    assert_false(runfile_read_game(rf, 40, &g_back, &err));
    assert_null(runfile_game(rf, 40));
    test_game(&g_rec, 0);
    assert_false(runfile_append_game(rf, &g_rec, 100, 0, 0, 1, 0, NULL, &err));
    assert_non_null(strstr(err.msg, "read-only"));
    assert_non_null(strstr(err.msg, path));
    assert_true(runfile_close(&rf2, &err));
    assert_true(runfile_close(&rf, &err));
}

static void test_resume(void **state)
{
    (void)state;
    const char *path = scratch_path("resume.h5");
    write_file(path, 10);
    RunError err = {{0}};

    /* create never overwrites, and says why it refuses a path. */
    assert_null(runfile_create(path, "{}", "x", &err));
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "the file exists (a run file is never overwritten)"));
    assert_null(runfile_create(scratch_path("none/x.h5"), "{}", "x", &err));
    assert_non_null(strstr(err.msg, "none/x.h5: cannot create: the folder does not exist"));
    assert_null(runfile_create("", "{}", "x", &err));
    assert_non_null(strstr(err.msg, "cannot create: an empty file name"));

    RunFile *rf = runfile_open_append(path, &err);
    if (!rf)
        fail_msg("open_append: %s", err.msg);
    assert_int_equal(runfile_game_count(rf), 10);
    assert_int_equal(runfile_next_pair_id(rf), 5);
    assert_int_equal(runfile_player_count(rf), 2);
    uint64_t id = 0;
    assert_true(runfile_find_game(rf, 3, 1, &id));
    assert_int_equal(id, 7);
    assert_false(runfile_find_game(rf, 5, 0, &id));
    assert_false(runfile_find_game(rf, 3, 2, &id));

    /* A game already stored is refused, naming its id. */
    test_game(&g_rec, 7);
    assert_false(runfile_append_game(rf, &g_rec, 3, 1, 1, 0, 0, NULL, &err));
    assert_non_null(strstr(err.msg, "already stored as game 7"));

    for (int k = 10; k < 14; k++) {
        test_game(&g_rec, k);
        append_ok(rf, &g_rec, k, (uint64_t)k / 2);
    }
    assert_int_equal(runfile_game_count(rf), 14);
    assert_int_equal(runfile_next_pair_id(rf), 7);
    assert_true(runfile_find_game(rf, 6, 1, &id));
    assert_int_equal(id, 13);
    uint16_t pid = 0;
    assert_true(runfile_add_player(rf, "late", "builtin", "", 7, &pid, &err));
    assert_int_equal(pid, 2);
    assert_true(runfile_close(&rf, &err));

    rf = open_read_ok(path);
    expect_test_games(rf, 14);
    assert_int_equal(runfile_player_count(rf), 3);
    assert_string_equal(runfile_player(rf, 2)->name, "late");
    assert_true(runfile_verify(rf, &err));
    assert_true(runfile_close(&rf, &err));
}

static void test_append_rejects(void **state)
{
    (void)state;
    const char *path = scratch_path("rejects.h5");
    RunFile *rf = create_ok(path);
    RunError err = {{0}};

    test_game(&g_rec, 1);
    g_rec.plies[5].move = g_rec.plies[4].move; /* the other side's move: illegal */
    assert_false(runfile_append_game(rf, &g_rec, 0, 0, 0, 1, 0, NULL, &err));
    assert_non_null(strstr(err.msg, "ply 5"));
    assert_non_null(strstr(err.msg, "not legal"));

    test_game(&g_rec, 1);
    assert_false(runfile_append_game(rf, &g_rec, 0, 0, 0, 2, 0, NULL, &err));
    assert_non_null(strstr(err.msg, "unknown player 2"));
    /* (game_in_pair, outcome and reason out of range are the decoder's to refuse:
     * test_protocol) */
    /* the last pair id: runfile_next_pair_id would wrap to 0 */
    assert_false(runfile_append_game(rf, &g_rec, UINT64_MAX, 0, 0, 1, 0, NULL, &err));
    assert_non_null(strstr(err.msg, "no next one"));
    test_game(&g_rec, 1);
    uint64_t next_id = runfile_game_count(rf);
    assert_false(runfile_append_game(rf, &g_rec, next_id + RUNFILE_PAIR_ID_SLACK + 1, 0, 0, 1, 0,
                                     NULL, &err));
    assert_non_null(strstr(err.msg, "more than 2^24 past game"));
    test_game(&g_rec, 1);
    snprintf(g_rec.start_fen, sizeof g_rec.start_fen, "rnbakabnr/9/9 w");
    assert_false(runfile_append_game(rf, &g_rec, 0, 0, 0, 1, 0, NULL, &err));
    assert_non_null(strstr(err.msg, "FEN"));
    char big[RUNFILE_NAME_SIZE + 1];
    memset(big, 'n', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_false(runfile_add_player(rf, big, "builtin", "", 0, NULL, &err));
    assert_non_null(strstr(err.msg, "too long"));

    /* Nothing of the refused games was kept. */
    assert_int_equal(runfile_game_count(rf), 0);
    assert_int_equal(runfile_position_count(rf), 0);
    assert_int_equal(runfile_player_count(rf), 2);

    /* A game of no plies (decided before any move) is fine. */
    memset(&g_rec, 0, offsetof(GameRecord, plies));
    snprintf(g_rec.start_fen, sizeof g_rec.start_fen, "%s", START_FEN);
    g_rec.outcome = OUTCOME_DRAW;
    g_rec.reason = REASON_MOVE_LIMIT;
    append_ok(rf, &g_rec, 0, 0);
    test_game(&g_rec, 1);
    append_ok(rf, &g_rec, 1, 0);
    assert_true(runfile_close(&rf, &err));

    rf = open_read_ok(path);
    assert_int_equal(runfile_game_count(rf), 2);
    assert_true(runfile_read_game(rf, 0, &g_back, &err));
    assert_int_equal(g_back.nplies, 0);
    assert_true(runfile_read_game(rf, 1, &g_back, &err));
    expect_same_record(&g_rec, &g_back);
    assert_int_equal(runfile_game(rf, 1)->first_position, 0);
    assert_true(runfile_verify(rf, &err));
    assert_true(runfile_close(&rf, &err));
}

/* The run configuration: up to RUNFILE_CONFIG_MAX bytes, kept exactly. */
static void test_config_limits(void **state)
{
    (void)state;
    char *config = malloc(RUNFILE_CONFIG_MAX + 2);
    assert_non_null(config);
    for (int i = 0; i < RUNFILE_CONFIG_MAX + 1; i++)
        config[i] = (char)('a' + i % 26);
    config[RUNFILE_CONFIG_MAX + 1] = '\0';
    RunError err = {{0}};
    const char *path = scratch_path("config.h5");
    assert_null(runfile_create(path, config, "v", &err));
    assert_non_null(strstr(err.msg, "run_config"));
    assert_int_equal(access(path, F_OK), -1);
    config[RUNFILE_CONFIG_MAX] = '\0';
    RunFile *rf = runfile_create(path, config, "v", &err);
    if (!rf)
        fail_msg("create: %s", err.msg);
    assert_true(runfile_close(&rf, &err));
    rf = open_read_ok(path);
    assert_string_equal(runfile_config(rf), config);
    assert_int_equal(runfile_game_count(rf), 0);
    assert_int_equal(runfile_player_count(rf), 0);
    assert_true(runfile_verify(rf, &err));
    assert_true(runfile_close(&rf, &err));
    free(config);
}

/*
 * A child appends games and flushes, reports the count over a pipe, buffers a few more
 * games and waits; the parent kills it with SIGKILL. Every flushed game must be in the
 * file, and nothing else. Enough positions pass through to trigger an automatic batch
 * flush (RUNFILE_BATCH_POSITIONS) on the way.
 */
static void test_sigkill(void **state)
{
    (void)state;
    const char *path = scratch_path("killed.h5");
    RunFile *rf = create_ok(path);
    RunError err = {{0}};
    assert_true(runfile_close(&rf, &err));
    enum { FLUSHED = 160 };

    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        RunFile *w = runfile_open_append(path, &err);
        if (!w)
            _exit(2);
        for (int k = 0; k < FLUSHED + 3; k++) {
            test_game(&g_rec, k);
            if (!runfile_append_game(w, &g_rec, (uint64_t)k / 2, (unsigned)(k & 1),
                                     (uint16_t)(k & 1), (uint16_t) !(k & 1), (uint32_t)(k % 7),
                                     NULL, &err))
                _exit(3);
            if (k + 1 == FLUSHED) {
                if (!runfile_flush(w, &err))
                    _exit(4);
                int n = FLUSHED;
                if (write(fds[1], &n, sizeof n) != (ssize_t)sizeof n)
                    _exit(5);
            }
        }
        int done = -1;
        if (write(fds[1], &done, sizeof done) != (ssize_t)sizeof done)
            _exit(6);
        for (;;)
            pause();
    }
    close(fds[1]);
    int n = 0, done = 0;
    assert_int_equal(read(fds[0], &n, sizeof n), sizeof n);
    assert_int_equal(read(fds[0], &done, sizeof done), sizeof done);
    assert_int_equal(done, -1);
    close(fds[0]);
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    rf = open_read_ok(path);
    assert_string_equal(runfile_recovery_note(rf), "");
    assert_true(runfile_position_count(rf) > RUNFILE_BATCH_POSITIONS);
    expect_test_games(rf, n);
    assert_true(runfile_verify(rf, &err));
    assert_true(runfile_close(&rf, &err));
    /* And the writer can pick up where the killed one left off. */
    rf = runfile_open_append(path, &err);
    assert_non_null(rf);
    assert_int_equal(runfile_game_count(rf), FLUSHED);
    assert_int_equal(runfile_next_pair_id(rf), FLUSHED / 2);
    assert_true(runfile_close(&rf, &err));
}

/* ---- damaged and mismatched files ---- */

static unsigned char *slurp(const char *path, size_t *len)
{
    unsigned char *buf = scratch_slurp(path, len);
    if (!buf)
        fail_msg("cannot read %s", path);
    return buf;
}

static void spit(const char *path, const unsigned char *buf, size_t len)
{
    assert_true(scratch_spit(path, buf, len));
}

static void copy_file(const char *from, const char *to)
{
    size_t n;
    unsigned char *buf = slurp(from, &n);
    spit(to, buf, n);
    free(buf);
}

/* Both opens must fail with a message naming the file and mentioning `needle`, and leave
 * the file byte for byte as it was. */
static void expect_refused(const char *path, const char *needle)
{
    size_t n0 = 0, n1 = 0;
    bool exists = access(path, F_OK) == 0;
    unsigned char *before = exists ? slurp(path, &n0) : NULL;
    RunError err = {{0}};
    RunFile *rf = runfile_open_read(path, &err);
    if (rf)
        fail_msg("%s was opened for reading", path);
    if (!strstr(err.msg, path) || (needle && !strstr(err.msg, needle)))
        fail_msg("error \"%s\" does not name the file or mention \"%s\"", err.msg, needle);
    memset(&err, 0, sizeof err);
    rf = runfile_open_append(path, &err);
    if (rf)
        fail_msg("%s was opened for append", path);
    if (!strstr(err.msg, path) || (needle && !strstr(err.msg, needle)))
        fail_msg("error \"%s\" does not name the file or mention \"%s\"", err.msg, needle);
    if (!exists) {
        assert_int_equal(access(path, F_OK), -1);
        return;
    }
    unsigned char *after = slurp(path, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(before);
    free(after);
}

/* The file offset and size of chunk `index` of a dataset. */
static void chunk_location(const char *path, const char *dset, hsize_t index, haddr_t *addr,
                           hsize_t *size)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t d = H5Dopen2(f, dset, H5P_DEFAULT);
    assert_true(d >= 0);
    hsize_t offset[1];
    unsigned mask = 0;
    hid_t sp = H5Dget_space(d);
    assert_true(H5Dget_chunk_info(d, sp, index, offset, &mask, addr, size) >= 0);
    H5Sclose(sp);
    H5Dclose(d);
    H5Fclose(f);
}

static void damage(const char *path, size_t at, size_t n)
{
    size_t len;
    unsigned char *buf = slurp(path, &len);
    assert_true(at + n <= len);
    for (size_t i = 0; i < n; i++)
        buf[at + i] ^= 0x5a;
    spit(path, buf, len);
    free(buf);
}

/* Raw HDF5 edits of a copy of a good file. */
static hid_t h5_open_rw(const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    return f;
}

static void set_schema_version(const char *path, uint32_t v)
{
    hid_t f = h5_open_rw(path);
    hid_t a = H5Aopen(f, "schema_version", H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Awrite(a, H5T_NATIVE_UINT32, &v) >= 0);
    H5Aclose(a);
    H5Fclose(f);
}

static void unlink_dataset(const char *path, const char *name)
{
    hid_t f = h5_open_rw(path);
    assert_true(H5Ldelete(f, name, H5P_DEFAULT) >= 0);
    H5Fclose(f);
}

/* Writes the pair_id member of one /games row, leaving the others as they are. */
/* Writes one integer member of one /games row, as h5py would: the file stays valid. */
static void set_game_field(const char *path, hsize_t row, const char *member, uint64_t value)
{
    hid_t f = h5_open_rw(path);
    hid_t d = H5Dopen2(f, "/games", H5P_DEFAULT);
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof value);
    assert_true(d >= 0 && t >= 0 && H5Tinsert(t, member, 0, H5T_NATIVE_UINT64) >= 0);
    hsize_t one = 1;
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, &one, NULL);
    assert_true(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &row, NULL, &one, NULL) >= 0);
    assert_true(H5Dwrite(d, t, ms, fs, H5P_DEFAULT, &value) >= 0);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Tclose(t);
    H5Dclose(d);
    H5Fclose(f);
}

static void set_pair_id(const char *path, hsize_t row, uint64_t pair_id)
{
    set_game_field(path, row, "pair_id", pair_id);
}

static void set_extent(const char *path, const char *name, hsize_t rows)
{
    hid_t f = h5_open_rw(path);
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    assert_true(d >= 0);
    assert_true(H5Dset_extent(d, &rows) >= 0);
    H5Dclose(d);
    H5Fclose(f);
}

/* Replaces /positions with a dataset of the same members except that `score` is a 4-byte
 * float, or missing. */
static void replace_positions(const char *path, bool drop_score)
{
    hid_t f = h5_open_rw(path);
    assert_true(H5Ldelete(f, "/positions", H5P_DEFAULT) >= 0);
    hsize_t dim = PACKED_POS_SIZE;
    hid_t board = H5Tarray_create2(H5T_STD_U8LE, 1, &dim);
    hid_t t = H5Tcreate(H5T_COMPOUND, 48 + 8 + 2 + 2 + 2 + 4 + 1 + 1 + 1 + 4);
    size_t off = 0;
    struct {
        const char *name;
        hid_t type;
    } m[] = {{"board", board},        {"game_id", H5T_STD_U64LE}, {"ply", H5T_STD_U16LE},
             {"move", H5T_STD_U16LE}, {"best", H5T_STD_U16LE},    {"score", H5T_IEEE_F32LE},
             {"depth", H5T_STD_U8LE}, {"flags", H5T_STD_U8LE},    {"result", H5T_STD_I8LE},
             {"nodes", H5T_STD_U32LE}};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        if (drop_score && !strcmp(m[i].name, "score"))
            continue;
        assert_true(H5Tinsert(t, m[i].name, off, m[i].type) >= 0);
        off += H5Tget_size(m[i].type);
    }
    hsize_t zero = 0, unl = H5S_UNLIMITED, chunk = 64;
    hid_t sp = H5Screate_simple(1, &zero, &unl);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    hid_t d = H5Dcreate2(f, "/positions", t, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    assert_true(d >= 0);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(sp);
    H5Tclose(t);
    H5Tclose(board);
    H5Fclose(f);
}

static void test_corrupt_files(void **state)
{
    (void)state;
    const char *good = scratch_path("good.h5");
    const char *bad = scratch_path("bad.h5");
    write_file(good, 80);
    RunError err = {{0}};
    RunFile *rf = open_read_ok(good);
    assert_true(runfile_position_count(rf) > RUNFILE_POSITION_CHUNK); /* two chunks */
    assert_true(runfile_close(&rf, &err));
    size_t len;
    unsigned char *buf = slurp(good, &len);

    expect_refused(scratch_path("no-such-file.h5"), "No such file");

    spit(bad, buf, len / 2);
    expect_refused(bad, "truncated");
    spit(bad, buf, len - 100);
    expect_refused(bad, "truncated");

    spit(bad, buf, len);
    damage(bad, 0, 8);
    expect_refused(bad, "HDF5");

    unsigned char noise[4096];
    uint64_t s = 42;
    for (size_t i = 0; i < sizeof noise; i++)
        noise[i] = (unsigned char)rng_next(&s);
    spit(bad, noise, sizeof noise);
    expect_refused(bad, "HDF5");

    /* A damaged chunk of /games: its checksum fails while opening. */
    haddr_t addr;
    hsize_t size;
    copy_file(good, bad);
    chunk_location(bad, "/games", 0, &addr, &size);
    damage(bad, (size_t)addr + (size_t)size / 2, 16);
    expect_refused(bad, "/games");

    /* A damaged first chunk of /positions: found by runfile_verify. */
    copy_file(good, bad);
    chunk_location(bad, "/positions", 0, &addr, &size);
    damage(bad, (size_t)addr + (size_t)size / 2, 16);
    rf = open_read_ok(bad);
    assert_false(runfile_verify(rf, &err));
    assert_non_null(strstr(err.msg, "/positions"));
    assert_non_null(strstr(err.msg, "checksum"));
    assert_true(runfile_close(&rf, &err));

    copy_file(good, bad);
    set_schema_version(bad, 99);
    expect_refused(bad, "schema version 99");

    copy_file(good, bad);
    unlink_dataset(bad, "/games");
    expect_refused(bad, "/games is missing");

    copy_file(good, bad);
    replace_positions(bad, false);
    expect_refused(bad, "member score");
    copy_file(good, bad);
    replace_positions(bad, true);
    expect_refused(bad, "member score is missing");

    /* A stored pair id after which runfile_next_pair_id would wrap to 0. */
    copy_file(good, bad);
    set_pair_id(bad, 79, UINT64_MAX);
    expect_refused(bad, "pair_id has no next one");

    /* A pair id far past its game id: pair ids run densely, and the coordinator's
     * schedule is an array indexed by them. Exactly the slack is still a run file. */
    copy_file(good, bad);
    set_pair_id(bad, 79, (uint64_t)1 << 40);
    expect_refused(bad, "more than 2^24 past its game_id");
    copy_file(good, bad);
    set_pair_id(bad, 79, 79 + RUNFILE_PAIR_ID_SLACK);
    rf = open_read_ok(bad);
    assert_int_equal(runfile_next_pair_id(rf), 80 + RUNFILE_PAIR_ID_SLACK);
    runfile_close(&rf, &err);

    /* Tables far longer than their rows: more than an interrupted write leaves (and
     * dropping 2^47 rows on append would take HDF5 for ever). */
    for (int t = 0; t < 2; t++) {
        copy_file(good, bad);
        set_extent(bad, t ? "/positions" : "/games", (hsize_t)1 << 47);
        expect_refused(bad, "more than an interrupted write leaves");
    }

    /* The good file itself is still fine. */
    rf = open_read_ok(good);
    assert_int_equal(runfile_game_count(rf), 80);
    assert_true(runfile_close(&rf, &err));
    free(buf);
}

/* One damaged row of a file whose writer closed it: the rows after it are not the rest
 * of an interrupted write (the file records every row as written in full), so the file
 * is refused, read or appended, with the row, the field, its value and what was expected,
 * and nothing is dropped. */
static void test_damaged_row(void **state)
{
    (void)state;
    const char *good = scratch_path("twelve.h5");
    const char *bad = scratch_path("damaged-row.h5");
    write_file(good, 12);
    static const struct {
        hsize_t row;
        const char *member;
        uint64_t value;
        const char *says;
    } CASES[] = {
        {3, "game_id", 7, "/games row 3: game_id 7, expected 3"},
        {0, "plies", 65535, "/games row 0: plies 65535"},
        {11, "game_id", 0, "/games row 11: game_id 0, expected 11"},
        {5, "first_position", 0, "/games row 5: first_position 0, expected"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        copy_file(good, bad);
        set_game_field(bad, CASES[i].row, CASES[i].member, CASES[i].value);
        expect_refused(bad, CASES[i].says);
        if (strcmp(CASES[i].member, "first_position")) /* not a row an interrupted write leaves */
            expect_refused(bad, "the file records 12 games as written in full");
    }
}

/* What a kill inside runfile_flush can leave: a /games row whose positions never
 * arrived, unwritten (fill) rows, orphan positions, and file bytes past the EOA. */
static void test_interrupted_write(void **state)
{
    (void)state;
    const char *path = scratch_path("interrupted.h5");
    write_file(path, 6);
    RunFile *rf = open_read_ok(path);
    uint64_t npos = runfile_position_count(rf);
    RunError err = {{0}};
    assert_true(runfile_close(&rf, &err));

    hid_t f = h5_open_rw(path);
    hid_t games = H5Dopen2(f, "/games", H5P_DEFAULT), pos = H5Dopen2(f, "/positions", H5P_DEFAULT);
    hsize_t gsize = 9, psize = npos + 5;
    assert_true(H5Dset_extent(games, &gsize) >= 0);
    assert_true(H5Dset_extent(pos, &psize) >= 0);
    /* Row 6: a game whose 50 positions never arrived (rows 7, 8 stay fill values). */
    hid_t mt = H5Tcreate(H5T_COMPOUND, 3 * sizeof(uint64_t));
    H5Tinsert(mt, "game_id", 0, H5T_NATIVE_UINT64);
    H5Tinsert(mt, "first_position", 8, H5T_NATIVE_UINT64);
    H5Tinsert(mt, "plies", 16, H5T_NATIVE_UINT64);
    uint64_t row[3] = {6, npos, 50};
    hsize_t start = 6, count = 1;
    hid_t fs = H5Dget_space(games);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
    hid_t ms = H5Screate_simple(1, &count, NULL);
    assert_true(H5Dwrite(games, mt, ms, fs, H5P_DEFAULT, row) >= 0);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Tclose(mt);
    H5Dclose(pos);
    H5Dclose(games);
    H5Fclose(f);

    rf = open_read_ok(path);
    assert_int_equal(runfile_game_count(rf), 6);
    assert_int_equal(runfile_position_count(rf), npos);
    assert_non_null(strstr(runfile_recovery_note(rf), "3 game rows and 5 position rows"));
    assert_non_null(strstr(runfile_recovery_note(rf), "ignored"));
    assert_true(runfile_verify(rf, &err));
    assert_true(runfile_close(&rf, &err));

    rf = runfile_open_append(path, &err);
    if (!rf)
        fail_msg("open_append: %s", err.msg);
    assert_non_null(strstr(runfile_recovery_note(rf), "dropped 3 game rows and 5 position rows"));
    test_game(&g_rec, 6);
    append_ok(rf, &g_rec, 6, 3);
    test_game(&g_rec, 7);
    append_ok(rf, &g_rec, 7, 3);
    assert_true(runfile_close(&rf, &err));

    rf = open_read_ok(path);
    assert_string_equal(runfile_recovery_note(rf), "");
    expect_test_games(rf, 8);
    assert_true(runfile_verify(rf, &err));
    assert_true(runfile_close(&rf, &err));

    /* Bytes past the end of allocation: a write section killed after it extended the
     * file. Readers ignore them; opening for append moves the EOA over them. */
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, st.st_size + 100000), 0);
    rf = open_read_ok(path);
    assert_int_equal(runfile_game_count(rf), 8);
    assert_true(runfile_close(&rf, &err));
    rf = runfile_open_append(path, &err);
    if (!rf)
        fail_msg("open_append: %s", err.msg);
    assert_non_null(strstr(runfile_recovery_note(rf), "moved the EOA over 100000 bytes"));
    test_game(&g_rec, 8);
    append_ok(rf, &g_rec, 8, 4);
    assert_true(runfile_close(&rf, &err));
    rf = open_read_ok(path);
    expect_test_games(rf, 9);
    assert_true(runfile_verify(rf, &err));
    assert_true(runfile_close(&rf, &err));
}

/* ---- export ---- */

/* A new file of n test games at name, open for reading, exported whole as plain text
 * (pgn false) or as PGN with comments into text, which the caller frees. */
static void export_new_file(const char *name, int n, bool pgn, RunFile **rf, ExportStats *st,
                            char **text, size_t *size)
{
    const char *path = scratch_path(name);
    write_file(path, n);
    *rf = open_read_ok(path);
    FILE *out = open_memstream(text, size);
    assert_non_null(out);
    RunError err = {{0}};
    bool ok = pgn ? coord_export_pgn(*rf, 0, UINT64_MAX, true, out, st, &err)
                  : coord_export_plain(*rf, 0, UINT64_MAX, NULL, out, st, &err);
    fclose(out);
    if (!ok)
        fail_msg("export: %s", err.msg);
    assert_int_equal(st->games, n);
    assert_int_equal(st->positions, runfile_position_count(*rf));
}

static void test_export_plain(void **state)
{
    (void)state;
    RunFile *rf;
    ExportStats st;
    char *text = NULL;
    size_t size = 0;
    export_new_file("export.h5", 12, false, &rf, &st, &text, &size);
    RunError err = {{0}};
    assert_int_equal(st.skipped, 0);

    /* Every block: a FEN that parses, a legal move, the stored score and result. */
    uint64_t blocks = 0, row = 0;
    RunPosition p;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        assert_true(strncmp(line, "fen ", 4) == 0);
        PosError perr;
        if (!pos_set_fen(&g_pos, line + 4, &perr))
            fail_msg("block %llu: bad FEN %s: %s", (unsigned long long)blocks, line + 4, perr.msg);
        char *mline = strtok_r(NULL, "\n", &save), *sline = strtok_r(NULL, "\n", &save);
        char *pline = strtok_r(NULL, "\n", &save), *rline = strtok_r(NULL, "\n", &save);
        char *eline = strtok_r(NULL, "\n", &save);
        assert_non_null(eline);
        assert_string_equal(eline, "e");
        assert_true(strncmp(mline, "move ", 5) == 0);
        Move m = move_parse_legal(&g_pos, mline + 5);
        if (m == MOVE_NONE)
            fail_msg("block %llu: %s is not legal in %s", (unsigned long long)blocks, mline + 5,
                     line + 4);
        assert_true(runfile_read_positions(rf, row++, 1, &p, &err));
        PackedPos packed;
        record_pack(&g_pos, &packed);
        assert_memory_equal(packed.b, p.board.b, 45); /* same board, same side */
        assert_int_equal(packed.b[45], p.board.b[45]);
        assert_int_equal(m, p.move);
        int score = 0, ply = -1, result = 9;
        assert_int_equal(sscanf(sline, "score %d", &score), 1);
        assert_int_equal(sscanf(pline, "ply %d", &ply), 1);
        assert_int_equal(sscanf(rline, "result %d", &result), 1);
        assert_int_equal(score, p.score);
        assert_int_equal(result, p.result);
        assert_int_equal(ply, g_pos.game_ply);
        blocks++;
    }
    assert_int_equal(blocks, st.positions);
    free(text);

    /* A filter and a range: the two opening plies of each game left out. */
    FILE *out = open_memstream(&text, &size);
    ExportFilter filter = {.skip_opening = true};
    assert_true(coord_export_plain(rf, 2, 3, &filter, out, &st, &err));
    fclose(out);
    assert_int_equal(st.games, 3);
    assert_int_equal(st.skipped, 6);
    uint64_t want = 0;
    for (uint64_t g = 2; g < 5; g++)
        want += runfile_game(rf, g)->plies - 2u;
    assert_int_equal(st.positions, want);
    free(text);
    assert_true(runfile_close(&rf, &err));
}

static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_export_pgn(void **state)
{
    (void)state;
    RunFile *rf;
    ExportStats st;
    char *text = NULL;
    size_t size = 0;
    export_new_file("pgn.h5", 6, true, &rf, &st, &text, &size);
    RunError err = {{0}};
    assert_int_equal(count_of(text, "[Event \"chuhe run "), 6);
    assert_int_equal(count_of(text, "[Round \"3.2\"]"), 1); /* game 5: pair 2, second game */
    /* Red in the even games ([Red] and [White]), Black in the odd ones. */
    assert_int_equal(count_of(text, "\"chuhe-a\"]"), 3 * 2 + 3);
    /* Game 4 starts from its own FEN. */
    assert_int_equal(count_of(text, OPENING_FEN), 1);
    for (int k = 0; k < 6; k++) {
        char want[64];
        test_game(&g_rec, k);
        snprintf(want, sizeof want, "[Result \"%s\"]", record_outcome_pgn(g_rec.outcome));
        assert_non_null(strstr(text, want));
    }
    char date[16];
    snprintf(date, sizeof date, "%.4s.%.2s.%.2s", runfile_created(rf), runfile_created(rf) + 5,
             runfile_created(rf) + 8);
    assert_non_null(strstr(text, date));
    free(text);
    assert_true(runfile_close(&rf, &err));
}

static off_t file_size(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_size;
}

/*
 * A file size limit stands in for a full disk (both fail the space reservation): the
 * batch fails before anything is written, the rows stay buffered and the file keeps every
 * flushed game. Round 0: the limit goes and the same flush succeeds. Round 1: closed
 * while still full, the file holds exactly the flushed games and opens for append again.
 * Round 2: the unwritten games are dropped while full, as a coordinator that stops does:
 * the counts and the index are the file's again, the same pairs can be appended anew,
 * and the close writes nothing of the dropped games.
 */
static void test_full_disk(void **state)
{
    (void)state;
    struct rlimit old;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    for (int round = 0; round < 3; round++) {
        const char *names[] = {"full0.h5", "full1.h5", "full2.h5"};
        const char *path = scratch_path(names[round]);
        RunFile *rf = create_ok(path);
        RunError err = {{0}};
        for (int k = 0; k < 10; k++) {
            test_game(&g_rec, k);
            append_ok(rf, &g_rec, k, (uint64_t)k / 2);
        }
        if (!runfile_flush(rf, &err))
            fail_msg("flush: %s", err.msg);
        off_t size = file_size(path);
        struct rlimit lim = {(rlim_t)size + 4096, old.rlim_max};
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
        for (int k = 10; k < 20; k++) {
            test_game(&g_rec, k);
            append_ok(rf, &g_rec, k, (uint64_t)k / 2);
        }
        for (int attempt = 0; attempt < 2; attempt++) {
            assert_false(runfile_flush(rf, &err));
            if (!strstr(err.msg, "cannot reserve") || !strstr(err.msg, "File too large"))
                fail_msg("unexpected error: %s", err.msg);
            assert_false(runfile_broken(rf));
            assert_int_equal(runfile_flushed_game_count(rf), 10);
            assert_int_equal(runfile_game_count(rf), 20);
            assert_int_equal(file_size(path), size);
        }
        int kept = 20;
        if (round == 0) {
            assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
            if (!runfile_flush(rf, &err))
                fail_msg("flush after the limit went: %s", err.msg);
            assert_int_equal(runfile_flushed_game_count(rf), 20);
            assert_true(runfile_close(&rf, &err));
        } else if (round == 1) {
            assert_false(runfile_close(&rf, &err));
            assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
            kept = 10;
        } else {
            uint64_t positions = 0;
            for (int k = 0; k < 10; k++)
                positions += runfile_game(rf, (uint64_t)k)->plies;
            assert_int_equal(runfile_drop_unflushed(rf), 10);
            assert_int_equal(runfile_drop_unflushed(rf), 0);
            assert_int_equal(runfile_game_count(rf), 10);
            assert_int_equal(runfile_flushed_game_count(rf), 10);
            assert_int_equal(runfile_position_count(rf), positions);
            assert_int_equal(runfile_next_pair_id(rf), 5);
            assert_null(runfile_game(rf, 10));
            assert_false(runfile_find_game(rf, 5, 0, NULL));
            uint64_t id = 99;
            assert_true(runfile_find_game(rf, 4, 1, &id));
            assert_int_equal(id, 9);
            assert_true(runfile_flush(rf, &err)); /* nothing waits */
            assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
            for (int k = 10; k < 14; k++) {
                test_game(&g_rec, k);
                append_ok(rf, &g_rec, k, (uint64_t)k / 2);
            }
            assert_true(runfile_close(&rf, &err));
            kept = 14;
        }
        rf = open_read_ok(path);
        assert_string_equal(runfile_recovery_note(rf), "");
        expect_test_games(rf, kept);
        if (!runfile_verify(rf, &err))
            fail_msg("verify: %s", err.msg);
        runfile_close(&rf, &err);
        rf = runfile_open_append(path, &err);
        if (!rf)
            fail_msg("open_append: %s", err.msg);
        assert_true(runfile_close(&rf, &err));
    }
    signal(SIGXFSZ, was);
}

/* The coordinator's way in: each game replayed once, by record_validate_boards, whose
 * boards the file stores as they are; the file reads back as if it had replayed them. */
static void test_append_validated(void **state)
{
    (void)state;
    const char *path = scratch_path("validated.h5");
    RunFile *rf = create_ok(path);
    RunError err = {{0}};
    PackedPos *boards = malloc(RECORD_MAX_PLIES * sizeof *boards);
    assert_non_null(boards);
    for (int k = 0; k < 40; k++) {
        test_game(&g_rec, k);
        PosError perr = {{0}};
        if (!record_validate_boards(&g_rec, boards, &perr))
            fail_msg("game %d: %s", k, perr.msg);
        uint64_t id = UINT64_MAX;
        unsigned gip = (unsigned)(k & 1);
        if (!runfile_append_validated(rf, &g_rec, boards, (uint64_t)k / 2, gip, (uint16_t)gip,
                                      (uint16_t)!gip, (uint32_t)(k % 7), &id, &err))
            fail_msg("append game %d: %s", k, err.msg);
        assert_int_equal(id, k);
    }
    /* The checks of runfile_append_game other than the replay and the lookup (the
     * caller's) still apply. */
    test_game(&g_rec, 7);
    assert_true(record_validate_boards(&g_rec, boards, NULL));
    assert_false(runfile_append_validated(rf, &g_rec, boards, 20, 0, 0, 2, 0, NULL, &err));
    assert_non_null(strstr(err.msg, "unknown player 2"));
    free(boards);
    assert_true(runfile_close(&rf, &err));

    rf = open_read_ok(path);
    expect_test_games(rf, 40);
    if (!runfile_verify(rf, &err))
        fail_msg("verify: %s", err.msg);
    assert_true(runfile_close(&rf, &err));
}

/* ------------------------------------------------------------------------------------ */

static int setup(void **state)
{
    (void)state;
    position_init();
    return scratch_create("runfile");
}

static int teardown(void **state)
{
    (void)state;
    return scratch_remove();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_read),        cmocka_unit_test(test_resume),
        cmocka_unit_test(test_append_rejects),    cmocka_unit_test(test_config_limits),
        cmocka_unit_test(test_sigkill),           cmocka_unit_test(test_corrupt_files),
        cmocka_unit_test(test_interrupted_write), cmocka_unit_test(test_damaged_row),
        cmocka_unit_test(test_export_plain),      cmocka_unit_test(test_export_pgn),
        cmocka_unit_test(test_full_disk),         cmocka_unit_test(test_append_validated),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
