/*
 * The search, through the Engine facade: mates in one, two and three found with their
 * exact distance and played out to a side with no legal move; a mated or stalemated
 * side; reproducibility and two engines in one process; the depth, node, time and stop
 * limits; the game rules inside the tree (perpetual check and chase); the transposition
 * table; and the legality of every move the search reports.
 *
 * Every mate position was checked with Fairy-Stockfish (UCI_Variant xiangqi, go depth
 * 16: "score mate N", the same N as here). The assertions are about behaviour and
 * invariants, never about node counts or evaluation numbers that tuning changes.
 *
 * Effort: CHUHE_TEST_QUICK=1 shrinks the searches; it is the default in debug and
 * sanitizer builds, where CHUHE_TEST_QUICK=0 asks for the full run.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "engine.h"
#include "movegen.h"
#include "notation.h"
#include "position.h"
#include "tests/support/searchtest.h"
#include "tests/support/epd.h"
#include "timeman.h"
#include "tt.h"

typedef struct {
    int pv_depth;     /* depth of the searches whose reports are replayed */
    uint64_t nodes;   /* node limit of the reproducibility searches */
    int normal_depth; /* depth limit of ordinary searches */
} Effort;

static const Effort FULL_EFFORT = {8, 200000, 7};
static const Effort QUICK_EFFORT = {5, 20000, 5};
static Effort effort;

/* A few hundred nodes of slack over a node limit: the check may come a little late. */
enum { NODE_SLACK = 300 };

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static Engine *new_engine(void)
{
    Engine *e = engine_new();
    if (!e)
        fail_msg("engine_new failed");
    return e;
}

/* Sets a FEN (NULL: the start) and a space-separated move list (NULL or "": none). */
static void set_position(Engine *e, const char *fen, const char *moves)
{
    char buf[4096];
    const char *tok[512];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", moves ? moves : "");
    for (char *save, *t = strtok_r(buf, " ", &save); t && n < 512; t = strtok_r(NULL, " ", &save))
        tok[n++] = t;
    PosError err = {{0}};
    if (!engine_set_position(e, fen, tok, n, &err))
        fail_msg("cannot set %s moves '%s': %s", fen ? fen : "startpos", moves ? moves : "",
                 err.msg);
}

/*
 * Plays moves from pos (restored afterwards); returns the index of the first illegal
 * one, or -1 if all are legal. *mobile gets the number of legal moves at the end.
 */
static int replay(Position *pos, const Move *moves, int n, int *mobile)
{
    int bad = -1, done = 0;
    for (; done < n; done++) {
        if (!move_is_legal(pos, moves[done])) {
            bad = done;
            break;
        }
        pos_do_move(pos, moves[done]);
    }
    if (mobile) {
        MoveList list;
        *mobile = gen_legal(pos, &list);
    }
    while (done-- > 0)
        pos_undo_move(pos);
    return bad;
}

/* ---- the reports of a search -------------------------------------------------------- */

/* What the on_info callback saw. Every report's PV is replayed from the root at once. */
typedef struct {
    Position *root; /* a copy of the searched position (scratch for the replays) */
    int infos;
    int bad_infos;
    char why[256];
    SearchInfo last; /* the last report with an exact score */
    bool have_last;
    int last_depth;      /* depth of the last report of any kind */
    Move last_move;      /* the first move of its line (MOVE_NONE for none) */
    uint64_t last_nodes; /* and its nodes */
    atomic_int reported; /* read by another thread in the stop test */
} InfoLog;

static void info_log_init(InfoLog *log, const Engine *e)
{
    memset(log, 0, sizeof *log);
    log->root = malloc(sizeof *log->root);
    if (!log->root)
        fail_msg("out of memory");
    pos_copy(log->root, engine_position(e));
    atomic_init(&log->reported, 0);
}

static void info_log_free(InfoLog *log)
{
    free(log->root);
    log->root = NULL;
}

static void on_info(void *ctx, const SearchInfo *info)
{
    InfoLog *log = ctx;
    log->infos++;
    log->last_depth = info->depth;
    log->last_move = info->pv_len > 0 ? info->pv[0] : MOVE_NONE;
    log->last_nodes = info->nodes;
    if (info->pv_len < 0 || info->pv_len > MAX_PLY) {
        log->bad_infos++;
        snprintf(log->why, sizeof log->why, "depth %d: pv_len %d", info->depth, info->pv_len);
    } else {
        int bad = replay(log->root, info->pv, info->pv_len, NULL);
        if (bad >= 0) {
            char fen[128], mv[5];
            pos_get_fen(log->root, fen, sizeof fen);
            move_to_text(info->pv[bad], mv);
            if (!log->bad_infos)
                snprintf(log->why, sizeof log->why,
                         "%s: depth %d bound %d: PV move %d (%s) of %d is illegal", fen,
                         info->depth, (int)info->bound, bad + 1, mv, info->pv_len);
            log->bad_infos++;
        }
    }
    if (info->bound == BOUND_EXACT) {
        log->last = *info;
        log->have_last = true;
    }
    atomic_fetch_add(&log->reported, 1);
}

static SearchResult search_logged(Engine *e, const SearchLimits *l, InfoLog *log)
{
    SearchCallbacks cb = {on_info, log};
    return engine_search(e, l, &cb);
}

static void expect_reports_legal(const InfoLog *log)
{
    if (log->bad_infos)
        fail_msg("%d reports with an illegal PV; first: %s", log->bad_infos, log->why);
}

/* ---- mates -------------------------------------------------------------------------- */

typedef struct {
    const char *fen;
    int moves; /* mate in this many moves of the side to move */
    const char *what;
} MateCase;

/* Fairy-Stockfish: "score mate N" at depth 16 for each (its move text numbers ranks 1-10). */
static const MateCase MATES[] = {
    {"3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1", 1, "two chariots"},
    {"3aka3/9/4P4/7N1/9/9/9/9/9/3K5 w - - 0 1", 1, "horse, soldier guarding e8"},
    {"3rkr3/9/9/9/4C4/C8/9/9/9/4K4 w - - 0 1", 1, "double cannon"},
    {"4k4/1N1P1P3/9/9/9/9/9/9/9/5K3 w - - 0 1", 1, "soldier"},
    {"3k5/R8/9/9/9/9/9/9/9/1R2K4 w - - 0 1", 1, "chariot, e9 closed by the flying general"},
    {"4k4/9/9/9/c8/4c4/9/9/9/3RKR3 b - - 0 1", 1, "Black's double cannon"},
    {"3akab2/9/4b4/9/9/9/5R3/9/5R3/4K4 w - - 0 1", 2, "two chariots"},
    {"3ak2N1/4a4/8C/9/9/9/9/9/9/3K5 w - - 0 1", 2, "horse and cannon"},
    {"1Cbak4/4a4/R3b4/9/9/9/9/9/9/3K5 w - - 0 1", 2, "chariot sacrifice, cannon"},
    {"4k4/9/5P3/9/3P5/9/9/9/9/3K5 w - - 0 1", 2, "two soldiers"},
    {"5k3/9/9/9/9/9/9/9/9/3K3R1 w - - 0 1", 2, "general steps to the file, flying general"},
    {"4k4/5r3/9/5r3/9/9/9/4B4/9/3AKAB2 b - - 0 1", 2, "Black's two chariots"},
    {"3akab2/9/4b4/9/5N3/9/3R5/9/9/3K5 w - - 0 1", 3, "chariot and horse"},
    {"3ak2N1/1N2a4/9/9/9/9/9/9/9/3K5 w - - 0 1", 3, "two horses"},
    {"4k4/7N1/9/9/9/9/2C6/9/9/3K5 w - - 0 1", 3, "cannon and horse"},
    {"3k5/9/9/5P3/3P5/9/8P/9/9/3K5 w - - 0 1", 3, "three soldiers"},
    {"3k3P1/9/9/9/3P1P3/9/9/9/9/3K5 w - - 0 1", 3, "three soldiers, flying general"},
    /* from chuhe's games against Fairy-Stockfish, where the search pruned them away: the
     * mating line runs through a check that gives material away (go depth 22 for the
     * first: Fairy-Stockfish sees it from depth 17) */
    {"3ak1b2/4a4/b1N2n3/9/C1p2P3/4p2R1/5r3/2C1c4/3r5/1RBAKA2p b - - 1 41", 2,
     "chariot sacrificed on e1 under the other chariot"},
    {"2ba1k1Cr/2N1a4/2n1bc1R1/p3p1p1p/2p1c4/P8/5r2P/2C1B4/4A4/RN1AK1B2 b - - 9 19", 2,
     "Black's chariot and two cannons"},
    {"3a1kb2/4a1N2/2R1b4/4p3p/p1p6/2P2rP1P/P2rc4/N3B4/4A4/2B1KA1R1 b - - 0 28", 2,
     "Black's two chariots and a cannon"},
    {"cr1ak1b2/4a4/4b3n/p2R4p/2p1CR3/7p1/4P3P/2N6/9/2BAKAr2 w - - 2 27", 3,
     "two chariots and a cannon"},
    {"2bak3r/4a4/n3b4/p3C3p/3N2p2/6P2/P3P3P/nrcABR3/7R1/2BA1K3 w - - 2 23", 3,
     "two chariots, horse and cannon"},
    {"2bak4/4a4/n1c1b4/p1p5p/5Rp2/P3C4/2P1P1P1P/cr4N2/4A4/2BAK1B2 w - - 0 17", 3,
     "chariot and cannon against the palace"},
};

/* Searches a mate position, checks the score's distance, then plays the PV out to a
 * side with no legal move. */
static void expect_mate(Engine *e, const MateCase *c, int depth)
{
    set_position(e, c->fen, NULL);
    engine_new_game(e);
    InfoLog log;
    info_log_init(&log, e);
    SearchLimits l = searchtest_depth(depth);
    SearchResult r = search_logged(e, &l, &log);
    expect_reports_legal(&log);
    int plies = 2 * c->moves - 1;
    char score[32];
    search_score_text(r.score, score, sizeof score);
    if (r.score != VALUE_MATE - plies)
        fail_msg("%s (%s): expected mate %d, got %s at depth %d", c->fen, c->what, c->moves, score,
                 r.depth);
    if (!move_is_legal(log.root, r.best))
        fail_msg("%s: best move is illegal", c->fen);
    assert_true(log.have_last);
    assert_int_equal(log.last.score, r.score);
    assert_int_equal(log.last.pv[0], r.best);
    if (log.last.pv_len < plies)
        fail_msg("%s (%s): the PV has %d moves, a mate in %d needs %d", c->fen, c->what,
                 log.last.pv_len, c->moves, plies);
    /* no mate before the end of the line, none left to the loser at its end */
    for (int n = 1; n <= plies; n++) {
        int mobile;
        assert_int_equal(replay(log.root, log.last.pv, n, &mobile), -1);
        if (n < plies && mobile == 0)
            fail_msg("%s: the PV ends the game after %d plies, not %d", c->fen, n, plies);
        if (n == plies && mobile != 0) {
            char mv[5];
            move_to_text(r.best, mv);
            fail_msg("%s (%s): after the PV from %s the loser still has %d moves", c->fen, c->what,
                     mv, mobile);
        }
    }
    info_log_free(&log);
}

static void test_mates(int moves)
{
    Engine *e = new_engine();
    int found = 0;
    for (size_t i = 0; i < sizeof MATES / sizeof MATES[0]; i++)
        if (MATES[i].moves == moves) {
            expect_mate(e, &MATES[i], 2 * moves + 10);
            found++;
        }
    assert_true(found >= 3);
    engine_free(&e);
}

static void test_mate_in_one(void **state)
{
    (void)state;
    test_mates(1);
}

static void test_mate_in_two(void **state)
{
    (void)state;
    test_mates(2);
}

static void test_mate_in_three(void **state)
{
    (void)state;
    test_mates(3);
}

/* Black to move is mated in one whatever it does (after the first move of a mate in 2). */
static void test_mated_in_one(void **state)
{
    (void)state;
    Engine *e = new_engine();
    set_position(e, "3akab2/9/4b4/9/9/9/5R3/9/5R3/4K4 w - - 0 1", "f3f9");
    SearchLimits l = searchtest_depth(effort.normal_depth);
    SearchResult r = engine_search(e, &l, NULL);
    assert_true(r.score <= VALUE_MATED_IN_MAX_PLY);
    assert_int_equal(r.score, -VALUE_MATE + 2);
    assert_true(move_is_legal(engine_position(e), r.best));
    engine_free(&e);
}

/* A side with no legal move has lost, in check or not, and has no move to play. */
static void test_no_legal_move(void **state)
{
    (void)state;
    static const struct {
        const char *fen, *moves;
        bool in_check;
    } CASES[] = {
        {"3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1", "a0d0", true},
        {"3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1", "", false}, /* rules.md 8.10 */
        {"4k4/9/9/9/9/9/9/9/r8/3K5 w - - 0 1", "", false},
    };
    Engine *e = new_engine();
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        set_position(e, CASES[i].fen, CASES[i].moves);
        MoveList list;
        assert_int_equal(gen_legal(engine_position(e), &list), 0);
        assert_int_equal(pos_in_check(engine_position(e)), CASES[i].in_check);
        InfoLog log;
        info_log_init(&log, e);
        SearchLimits l = searchtest_depth(6);
        SearchResult r = search_logged(e, &l, &log);
        if (r.best != MOVE_NONE)
            fail_msg("%s: a best move with no legal move", CASES[i].fen);
        if (r.score > VALUE_MATED_IN_MAX_PLY)
            fail_msg("%s: score %d is not a loss", CASES[i].fen, r.score);
        expect_reports_legal(&log);
        info_log_free(&log);
        /* an infinite search has nothing to wait for either */
        SearchLimits inf;
        time_limits_clear(&inf);
        inf.infinite = true;
        r = engine_search(e, &inf, NULL);
        assert_int_equal(r.best, MOVE_NONE);
    }
    engine_free(&e);
}

/* Taking away every move of the opponent wins, check or not (rules.md 7). */
static void test_stalemating_wins(void **state)
{
    (void)state;
    Engine *e = new_engine();
    /* i0i8: the chariot closes rank 8, the red general closes e9; no check */
    set_position(e, "3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1", NULL);
    SearchLimits l = searchtest_depth(effort.normal_depth);
    SearchResult r = engine_search(e, &l, NULL);
    assert_int_equal(r.score, VALUE_MATE - 1);
    Position *p = malloc(sizeof *p);
    assert_non_null(p);
    pos_copy(p, engine_position(e));
    assert_true(move_is_legal(p, r.best));
    pos_do_move(p, r.best);
    MoveList list;
    assert_int_equal(gen_legal(p, &list), 0);
    assert_false(pos_in_check(p));
    free(p);
    engine_free(&e);
}

/* ---- reproducibility and limits ---------------------------------------------------------- */

static const char *const MIDGAME_FEN =
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1";

static void expect_same(SearchResult a, SearchResult b, const char *what)
{
    char ma[5], mb[5];
    move_to_text(a.best, ma);
    move_to_text(b.best, mb);
    if (a.best != b.best || a.nodes != b.nodes || a.score != b.score || a.depth != b.depth)
        fail_msg("%s: %s %llu nodes score %d depth %d against %s %llu nodes score %d depth %d",
                 what, ma, (unsigned long long)a.nodes, a.score, a.depth, mb,
                 (unsigned long long)b.nodes, b.score, b.depth);
}

static void test_nodes_reproducible(void **state)
{
    (void)state;
    SearchLimits l = searchtest_nodes(effort.nodes);
    Engine *e = new_engine();
    set_position(e, MIDGAME_FEN, NULL);
    engine_new_game(e);
    SearchResult a = engine_search(e, &l, NULL);
    engine_new_game(e);
    SearchResult b = engine_search(e, &l, NULL);
    expect_same(a, b, "same engine after engine_new_game");
    assert_true(move_is_legal(engine_position(e), a.best));
    if (a.nodes > effort.nodes + NODE_SLACK)
        fail_msg("node limit %llu, searched %llu", (unsigned long long)effort.nodes,
                 (unsigned long long)a.nodes);
    assert_true(a.nodes >= effort.nodes / 2);

    Engine *f = new_engine();
    set_position(f, MIDGAME_FEN, NULL);
    SearchResult c = engine_search(f, &l, NULL);
    expect_same(a, c, "a second engine");
    engine_free(&f);
    engine_free(&e);
}

/* No hidden shared state: two engines searching at the same time get what one alone gets. */
static void test_two_engines_at_once(void **state)
{
    (void)state;
    SearchLimits l = searchtest_nodes(effort.nodes);
    Engine *ref = new_engine();
    set_position(ref, MIDGAME_FEN, NULL);
    SearchResult alone = engine_search(ref, &l, NULL);
    engine_free(&ref);

    SearchJob jobs[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        jobs[i] = (SearchJob){new_engine(), l, {0}, false};
        set_position(jobs[i].e, MIDGAME_FEN, NULL);
    }
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, searchtest_job_run, &jobs[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < 2; i++) {
        expect_same(alone, jobs[i].result, "an engine searching beside another");
        engine_free(&jobs[i].e);
    }
}

static void test_depth_limit(void **state)
{
    (void)state;
    Engine *e = new_engine();
    static const char *const FENS[] = {NULL, MIDGAME_FEN};
    for (int i = 0; i < 2; i++) {
        set_position(e, FENS[i], NULL);
        for (int d = 1; d <= effort.normal_depth; d += 2) {
            InfoLog log;
            info_log_init(&log, e);
            SearchLimits l = searchtest_depth(d);
            SearchResult r = search_logged(e, &l, &log);
            assert_int_equal(r.depth, d);
            assert_true(log.have_last);
            assert_int_equal(log.last.depth, d);
            assert_int_equal(log.last_depth, d);
            assert_true(move_is_legal(log.root, r.best));
            expect_reports_legal(&log);
            info_log_free(&log);
        }
    }
    engine_free(&e);
}

typedef struct {
    Engine *e;
    InfoLog *log;
    SearchResult result;
} StopJob;

static void *run_infinite(void *arg)
{
    StopJob *j = arg;
    SearchLimits l;
    time_limits_clear(&l);
    l.infinite = true;
    j->result = search_logged(j->e, &l, j->log);
    return NULL;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void test_stop_from_another_thread(void **state)
{
    (void)state;
    Engine *e = new_engine();
    set_position(e, MIDGAME_FEN, NULL);
    InfoLog log;
    info_log_init(&log, e);
    StopJob job = {e, &log, {0}};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, run_infinite, &job), 0);
    /* stop a search that is known to run: wait for its first report */
    int64_t t0 = now_ms();
    while (atomic_load(&log.reported) == 0 && now_ms() - t0 < 10000)
        sleep_ms(5);
    assert_true(atomic_load(&log.reported) > 0);
    sleep_ms(100);
    int64_t t1 = now_ms();
    engine_stop(e);
    assert_int_equal(pthread_join(th, NULL), 0);
    int64_t dt = now_ms() - t1;
    if (dt >= 2000)
        fail_msg("the search took %lld ms to stop", (long long)dt);
    assert_true(move_is_legal(log.root, job.result.best));
    assert_true(job.result.depth >= 1);
    expect_reports_legal(&log);
    info_log_free(&log);
    engine_free(&e);
}

static void test_time_limits(void **state)
{
    (void)state;
    Engine *e = new_engine();
    set_position(e, MIDGAME_FEN, NULL);

    SearchLimits l;
    time_limits_clear(&l);
    l.movetime = 200;
    int64_t t0 = now_ms();
    SearchResult r = engine_search(e, &l, NULL);
    int64_t dt = now_ms() - t0;
    if (dt >= 1000)
        fail_msg("movetime 200 took %lld ms", (long long)dt);
    assert_true(move_is_legal(engine_position(e), r.best));

    /* a second on each clock and a small increment: a small share of it */
    time_limits_clear(&l);
    l.time[RED] = l.time[BLACK] = 1000;
    l.inc[RED] = l.inc[BLACK] = 10;
    t0 = now_ms();
    r = engine_search(e, &l, NULL);
    dt = now_ms() - t0;
    if (dt >= 1000)
        fail_msg("a 1 s clock took %lld ms", (long long)dt);
    assert_true(move_is_legal(engine_position(e), r.best));
    engine_free(&e);

    /* a fixed time a move is searched to its end (less the overhead): no optimum at
     * which to stop before it */
    time_limits_clear(&l);
    l.movetime = 1000;
    TimePlan p = time_plan(&l, RED, 10, 0);
    assert_int_equal(p.optimum, 0);
    assert_int_equal(p.maximum, 990);
    /* a clock: an optimum, at most the maximum, below the time left */
    time_limits_clear(&l);
    l.time[RED] = l.time[BLACK] = 10000;
    l.inc[RED] = l.inc[BLACK] = 100;
    p = time_plan(&l, RED, 10, 0);
    if (p.optimum <= 0 || p.optimum > p.maximum || p.maximum >= 10000)
        fail_msg("10 s + 0.1 s: optimum %lld, maximum %lld ms", (long long)p.optimum,
                 (long long)p.maximum);
}

/* ---- the game rules inside the tree ------------------------------------------------------ */

/*
 * Red's chariot checks from i9 and i8 while Black's general steps d9-d8 (rules.md 8.1,
 * with Black ahead by a chariot and a cannon). After these eight plies i8i9 repeats the
 * position after the first ply a third time, with every Red move a check: Red would
 * lose. Four plies earlier the same check only repeats once, and the engine takes it.
 */
static const char *const CHECKS_FEN = "3k5/9/9/9/r1c6/9/9/9/9/4K3R w - - 0 1";
static const char *const CHECKS_MOVES = "i0i9 d9d8 i9i8 d8d9 i8i9 d9d8 i9i8 d8d9";

static void test_avoids_perpetual_check(void **state)
{
    (void)state;
    Engine *e = new_engine();
    set_position(e, CHECKS_FEN, CHECKS_MOVES);
    Move check = move_parse_legal(engine_position(e), "i8i9");
    assert_int_not_equal(check, MOVE_NONE);
    InfoLog log;
    info_log_init(&log, e);
    SearchLimits l = searchtest_depth(effort.normal_depth + 2);
    SearchResult r = search_logged(e, &l, &log);
    expect_reports_legal(&log);
    char mv[5];
    move_to_text(r.best, mv);
    if (r.best == check)
        fail_msg("the engine repeats the check i8i9 a third time (score %d)", r.score);
    if (r.score <= VALUE_MATED_IN_MAX_PLY)
        fail_msg("%s scores %d: a quiet move keeps the game going", mv, r.score);
    assert_true(move_is_legal(log.root, r.best));
    info_log_free(&log);
    engine_free(&e);
}

/*
 * rules.md 8.3: Red's horse chases the unprotected cannon on every move. After six plies
 * c8b6 lets Black's a4a7 bring back the start position a third time: Red, the chaser,
 * loses. Red must choose anything else, and Black, one ply later, completes the cycle.
 */
static const char *const CHASE_FEN = "5k3/9/c8/1N7/9/9/9/9/9/3K5 w - - 0 1";

static void test_avoids_perpetual_chase(void **state)
{
    (void)state;
    Engine *e = new_engine();
    set_position(e, CHASE_FEN, "b6c8 a7a4 c8b6 a4a7 b6c8 a7a4");
    Move chase = move_parse_legal(engine_position(e), "c8b6");
    assert_int_not_equal(chase, MOVE_NONE);
    SearchLimits l = searchtest_depth(effort.normal_depth + 2);
    SearchResult r = engine_search(e, &l, NULL);
    if (r.best == chase)
        fail_msg("the engine chases the cannon into a lost repetition (score %d)", r.score);
    if (r.score <= VALUE_MATED_IN_MAX_PLY)
        fail_msg("score %d: the horse has other moves", r.score);
    engine_free(&e);
}

static void test_completes_perpetual_chase(void **state)
{
    (void)state;
    Engine *e = new_engine();
    set_position(e, CHASE_FEN, "b6c8 a7a4 c8b6 a4a7 b6c8 a7a4 c8b6");
    Move back = move_parse_legal(engine_position(e), "a4a7");
    assert_int_not_equal(back, MOVE_NONE);
    SearchLimits l = searchtest_depth(effort.normal_depth);
    SearchResult r = engine_search(e, &l, NULL);
    char mv[5];
    move_to_text(r.best, mv);
    if (r.best != back || r.score < VALUE_MATE_IN_MAX_PLY)
        fail_msg("expected a4a7 winning by Red's perpetual chase, got %s score %d", mv, r.score);

    /* the same position without its history is no win: the rule made the difference */
    char fen[128];
    pos_get_fen(engine_position(e), fen, sizeof fen);
    set_position(e, fen, NULL);
    engine_new_game(e);
    r = engine_search(e, &l, NULL);
    if (r.score >= VALUE_MATE_IN_MAX_PLY)
        fail_msg("%s without history scores %d", fen, r.score);
    engine_free(&e);
}

/* ---- the transposition table ------------------------------------------------------------- */

/* A key that lands in cluster i of tt, with the given high 16 bits if possible. */
static Key key_in_cluster(const TT *tt, size_t i, uint16_t salt)
{
    Key k = (Key)((((unsigned __int128)i << 64) + tt->clusters - 1) / tt->clusters);
    k += (Key)salt << 20;
    assert_int_equal(tt_index(tt, k), i);
    return k;
}

static void test_tt_round_trip(void **state)
{
    (void)state;
    TT tt = {0};
    assert_true(tt_resize(&tt, 1));
    tt_new_search(&tt);
    Key k = 0x9e3779b97f4a7c15ULL;
    Move m = move_make(sq_make(1, 2), sq_make(4, 2));
    TTSlot slot;
    TTProbe p = tt_probe(&tt, k, 0, &slot);
    assert_false(p.hit);
    assert_non_null(slot.cluster);
    tt_store(&tt, slot, k, 123, BOUND_LOWER, 7, m, 45, 0);
    p = tt_probe(&tt, k, 0, &slot);
    assert_true(p.hit);
    assert_int_equal(p.move, m);
    assert_int_equal(p.depth, 7);
    assert_int_equal(p.bound, BOUND_LOWER);
    assert_int_equal(p.value, 123);
    assert_int_equal(p.eval, 45);
    /* an ordinary value reads the same at any ply */
    p = tt_probe(&tt, k, 9, &slot);
    assert_int_equal(p.value, 123);

    /* mate scores are stored from the node: mate in 5 plies from a node at ply 3 */
    Key km = k ^ ((Key)0x5555 << 40);
    p = tt_probe(&tt, km, 3, &slot);
    assert_false(p.hit);
    tt_store(&tt, slot, km, value_mate_in(3 + 5), BOUND_EXACT, 4, m, VALUE_NONE, 3);
    p = tt_probe(&tt, km, 7, &slot);
    assert_true(p.hit);
    assert_int_equal(p.value, value_mate_in(7 + 5));
    assert_int_equal(p.bound, BOUND_EXACT);
    p = tt_probe(&tt, km, 3, &slot);
    assert_int_equal(p.value, value_mate_in(3 + 5));
    /* and being mated in 4 plies from a node at ply 2, read at ply 6 */
    Key kl = k ^ ((Key)0xaaaa << 44);
    p = tt_probe(&tt, kl, 2, &slot);
    tt_store(&tt, slot, kl, value_mated_in(2 + 4), BOUND_UPPER, 3, MOVE_NONE, VALUE_NONE, 2);
    p = tt_probe(&tt, kl, 6, &slot);
    assert_true(p.hit);
    assert_int_equal(p.value, value_mated_in(6 + 4));
    assert_int_equal(p.bound, BOUND_UPPER);
    /* VALUE_NONE stays VALUE_NONE */
    Key kn = k ^ ((Key)0x1234 << 48);
    p = tt_probe(&tt, kn, 5, &slot);
    tt_store(&tt, slot, kn, VALUE_NONE, BOUND_NONE, 0, MOVE_NONE, 17, 5);
    p = tt_probe(&tt, kn, 1, &slot);
    assert_true(p.hit);
    assert_int_equal(p.value, VALUE_NONE);
    assert_int_equal(p.eval, 17);
    tt_free(&tt);
}

static void test_tt_cluster_keys(void **state)
{
    (void)state;
    TT tt = {0};
    assert_true(tt_resize(&tt, 1));
    tt_new_search(&tt);
    size_t c = tt.clusters / 3;
    Key a = key_in_cluster(&tt, c, 1);
    /* the same cluster and the same high bits, other check bits: the index comes from
     * the high bits, so a key differing only low must still be told apart */
    Key b = a ^ 0x5a5aULL;
    assert_int_equal(tt_index(&tt, b), tt_index(&tt, a));
    assert_int_not_equal(tt_check_bits(a), tt_check_bits(b));

    TTSlot slot;
    TTProbe p = tt_probe(&tt, a, 0, &slot);
    tt_store(&tt, slot, a, 77, BOUND_EXACT, 5, move_make(0, 9), 0, 0);
    p = tt_probe(&tt, b, 0, &slot);
    assert_false(p.hit); /* the other key's entry is not ours */
    tt_store(&tt, slot, b, -55, BOUND_UPPER, 6, move_make(8, 17), 0, 0);
    p = tt_probe(&tt, a, 0, &slot);
    assert_true(p.hit);
    assert_int_equal(p.value, 77);
    assert_int_equal(p.move, move_make(0, 9));
    p = tt_probe(&tt, b, 0, &slot);
    assert_true(p.hit);
    assert_int_equal(p.value, -55);
    assert_int_equal(p.move, move_make(8, 17));

    tt_clear(&tt);
    p = tt_probe(&tt, a, 0, &slot);
    assert_false(p.hit);
    p = tt_probe(&tt, b, 0, &slot);
    assert_false(p.hit);
    tt_free(&tt);
}

/* Two threads storing at once can leave an entry with the data of one write and the
 * check word of the other: such an entry is not a hit for either key. */
static void test_tt_torn_entry(void **state)
{
    (void)state;
    TT tt = {0};
    assert_true(tt_resize(&tt, 1));
    tt_new_search(&tt);
    Key a = key_in_cluster(&tt, 7, 1), b = a ^ 0x5a5aULL;
    TTSlot sa, sb;
    tt_probe(&tt, a, 0, &sa);
    tt_store(&tt, sa, a, 40, BOUND_EXACT, 9, move_make(0, 9), 3, 0);
    tt_probe(&tt, b, 0, &sb);
    assert_int_not_equal(sb.index, sa.index);
    tt_store(&tt, sb, b, -40, BOUND_LOWER, 2, move_make(8, 17), 5, 0);
    /* a's check word with b's data, and the other way round */
    uint64_t da = atomic_load(&sa.cluster->data[sa.index]);
    uint64_t db = atomic_load(&sb.cluster->data[sb.index]);
    atomic_store(&sa.cluster->data[sa.index], db);
    atomic_store(&sb.cluster->data[sb.index], da);
    TTSlot s;
    assert_false(tt_probe(&tt, a, 0, &s).hit);
    assert_false(tt_probe(&tt, b, 0, &s).hit);
    tt_free(&tt);
}

/* A full table answers keys it never stored almost never: the check bits carry
 * information the index does not (3 entries a cluster, 16 bits: about 1 in 20 000). */
static void test_tt_false_hits(void **state)
{
    (void)state;
    TT tt = {0};
    assert_true(tt_resize(&tt, 1));
    tt_new_search(&tt);
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    TTSlot slot;
    for (size_t i = 0; i < tt.clusters * 4; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        tt_probe(&tt, x, 0, &slot);
        tt_store(&tt, slot, x, 1, BOUND_EXACT, 3, MOVE_NONE, 0, 0);
    }
    int hits = 0, probes = 100000;
    for (int i = 0; i < probes; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        hits += tt_probe(&tt, x, 0, &slot).hit;
    }
    if (hits > probes / 2000)
        fail_msg("%d false hits in %d probes of a full table", hits, probes);
    tt_free(&tt);
}

static void test_tt_hashfull(void **state)
{
    (void)state;
    TT tt = {0};
    assert_true(tt_resize(&tt, 1));
    tt_clear(&tt);
    assert_int_equal(tt_hashfull(&tt), 0);
    tt_new_search(&tt);
    int before = tt_hashfull(&tt), last = before;
    for (size_t i = 0; i < 900; i++) {
        Key k = key_in_cluster(&tt, i, (uint16_t)(i + 1));
        TTSlot slot;
        TTProbe p = tt_probe(&tt, k, 0, &slot);
        assert_false(p.hit);
        tt_store(&tt, slot, k, 0, BOUND_EXACT, 3, MOVE_NONE, 0, 0);
        if (i % 100 == 99) {
            int h = tt_hashfull(&tt);
            assert_true(h > last);
            assert_true(h <= 1000);
            last = h;
        }
    }
    assert_true(last > before);
    tt_clear(&tt);
    assert_int_equal(tt_hashfull(&tt), 0);
    tt_free(&tt);
}

/* The smallest and a large table both search correctly. */
static void test_hash_sizes(void **state)
{
    (void)state;
    Engine *e = new_engine();
    static const size_t SIZES[] = {1, 64};
    for (int s = 0; s < 2; s++) {
        assert_true(engine_set_hash(e, SIZES[s]));
        assert_int_equal(engine_hash_mb(e), (int)SIZES[s]);
        expect_mate(e, &MATES[7], 14);  /* mate in 2 */
        expect_mate(e, &MATES[13], 16); /* mate in 3 */
        set_position(e, MIDGAME_FEN, NULL);
        SearchLimits l = searchtest_depth(effort.normal_depth);
        SearchResult r = engine_search(e, &l, NULL);
        assert_true(move_is_legal(engine_position(e), r.best));
        assert_int_equal(r.depth, effort.normal_depth);
        engine_clear_hash(e);
    }
    /* a refused size keeps the table */
    assert_false(engine_set_hash(e, 0));
    assert_int_equal(engine_hash_mb(e), 64);
    engine_free(&e);
}

/* ---- every reported move is legal -------------------------------------------------------- */

static void test_reported_moves_legal(void **state)
{
    (void)state;
    EpdSuite suite;
    char err[256];
    if (!epd_load(EPD_PUBLIC_PATH, &suite, err, sizeof err))
        fail_msg("%s", err);
    assert_true(suite.count >= 12);
    Engine *e = new_engine();
    for (int i = 0; i < suite.count; i++) {
        set_position(e, suite.entries[i].fen, NULL);
        engine_new_game(e);
        InfoLog log;
        info_log_init(&log, e);
        SearchLimits l = searchtest_depth(effort.pv_depth);
        SearchResult r = search_logged(e, &l, &log);
        if (log.bad_infos)
            fail_msg("line %d: %s", suite.entries[i].line, log.why);
        assert_true(log.infos >= effort.pv_depth);
        if (!move_is_legal(log.root, r.best))
            fail_msg("line %d: best move illegal", suite.entries[i].line);
        if (r.ponder != MOVE_NONE) {
            Move two[2] = {r.best, r.ponder};
            assert_int_equal(replay(log.root, two, 2, NULL), -1);
        }
        info_log_free(&log);
    }
    engine_free(&e);
    epd_free(&suite);
}

/* ---- the move of an unfinished iteration ------------------------------------------- */

/*
 * Node limits that end searches in the middle of an iteration: the best move is the last
 * completed iteration's, unless a root move beat it in the unfinished one (partial),
 * then that move, legal and different, with the depth and score of the completed one.
 * Either way the last report names the move played and counts every node searched.
 * Across the positions and limits some searches must end that way.
 */
static void test_unfinished_iteration(void **state)
{
    (void)state;
    EpdSuite suite;
    char err[256];
    if (!epd_load(EPD_PUBLIC_PATH, &suite, err, sizeof err))
        fail_msg("%s", err);
    Engine *e = new_engine();
    int partial = 0, searches = 0;
    uint64_t top = effort.nodes == FULL_EFFORT.nodes ? 40000 : 20000;
    for (int i = 0; i < suite.count; i++) {
        for (uint64_t n = 1000; n <= top; n += n / 8) {
            set_position(e, suite.entries[i].fen, NULL);
            engine_new_game(e);
            InfoLog log;
            info_log_init(&log, e);
            SearchLimits l = searchtest_nodes(n);
            SearchResult r = search_logged(e, &l, &log);
            searches++;
            expect_reports_legal(&log);
            assert_true(log.have_last);
            if (!move_is_legal(log.root, r.best))
                fail_msg("line %d, %llu nodes: best move illegal", suite.entries[i].line,
                         (unsigned long long)n);
            assert_int_equal(r.depth, log.last.depth);
            assert_int_equal(r.score, log.last.score);
            /* the last report of all names the move played and counts every node */
            if (log.last_move != r.best || log.last_nodes != r.nodes)
                fail_msg("line %d, %llu nodes: the last report has %llu nodes and %s the best "
                         "move (%llu nodes searched)",
                         suite.entries[i].line, (unsigned long long)n,
                         (unsigned long long)log.last_nodes,
                         log.last_move == r.best ? "starts with" : "does not start with",
                         (unsigned long long)r.nodes);
            if (r.partial) {
                partial++;
                if (r.best == log.last.pv[0])
                    fail_msg("line %d: a partial result with the completed iteration's move",
                             suite.entries[i].line);
                if (r.ponder != MOVE_NONE) {
                    Move two[2] = {r.best, r.ponder};
                    assert_int_equal(replay(log.root, two, 2, NULL), -1);
                }
            } else if (r.best != log.last.pv[0]) {
                fail_msg("line %d: the best move is neither the last report's nor partial",
                         suite.entries[i].line);
            }
            info_log_free(&log);
        }
    }
    print_message("# %d of %d searches ended with a move of their unfinished iteration\n", partial,
                  searches);
    if (partial == 0)
        fail_msg("no search of %d ended with a move of an unfinished iteration", searches);
    engine_free(&e);
    epd_free(&suite);
}

static void pick_effort(void)
{
    effort = searchtest_quick() ? QUICK_EFFORT : FULL_EFFORT;
}

int main(void)
{
    position_init();
    pick_effort();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mate_in_one),
        cmocka_unit_test(test_mate_in_two),
        cmocka_unit_test(test_mate_in_three),
        cmocka_unit_test(test_mated_in_one),
        cmocka_unit_test(test_no_legal_move),
        cmocka_unit_test(test_stalemating_wins),
        cmocka_unit_test(test_nodes_reproducible),
        cmocka_unit_test(test_two_engines_at_once),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_stop_from_another_thread),
        cmocka_unit_test(test_time_limits),
        cmocka_unit_test(test_avoids_perpetual_check),
        cmocka_unit_test(test_avoids_perpetual_chase),
        cmocka_unit_test(test_completes_perpetual_chase),
        cmocka_unit_test(test_tt_round_trip),
        cmocka_unit_test(test_tt_cluster_keys),
        cmocka_unit_test(test_tt_torn_entry),
        cmocka_unit_test(test_tt_false_hits),
        cmocka_unit_test(test_tt_hashfull),
        cmocka_unit_test(test_hash_sizes),
        cmocka_unit_test(test_reported_moves_legal),
        cmocka_unit_test(test_unfinished_iteration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
