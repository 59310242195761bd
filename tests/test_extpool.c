/*
 * The external engines (extengine/: extpool.c, extengine.c and the dialogues
 * extuci.c and extxboard.c), driven through real processes: the fake engines of
 * tests/engines/, run from the repository's top directory (as tests/run does).
 *
 *   - The texts of every protocol's dialogue, line by line, as the engine receives them:
 *     handshake, options, new game, a search on a clock and one to a depth; the options
 *     the engine announces, as the library reads them.
 *   - A round robin of three engines over the two players of a rank's WORKs starts each
 *     engine once; a WORK whose players name the same engine gets two processes; the
 *     pool stops its least recently used engine beyond EXTPOOL_MAX; a crash or a hang
 *     restarts just that engine.
 *   - The built-in players' option.Threads reaches their in-process engines.
 *   - Pondering with Ponder=true: ponderhit, a missed ponder move, a new game, idle.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "notation.h"
#include "position.h"
#include "timeman.h"
#include "tests/support/scratch.h"
#include "worker/diag.h"
#include "extengine/extpool.h"
#include "worker/play.h"

/* The worker's log lines (worker/diag.c needs MPI): not wanted here. */
void diag_info(const char *fmt, ...)
{
    (void)fmt;
}

void diag_warn(const char *fmt, ...)
{
    (void)fmt;
}

static char g_engines[PATH_MAX]; /* tests/engines, absolute */

static int group_setup(void **state)
{
    (void)state;
    if (!realpath("tests/engines", g_engines)) {
        fprintf(stderr, "tests/engines not found: run from the repository's top directory\n");
        return -1;
    }
    return scratch_create("extpool");
}

static int group_teardown(void **state)
{
    (void)state;
    return scratch_remove();
}

/* The text of a scratch file, "" when it does not exist (static; the next call
 * overwrites it). */
static const char *file_text(const char *name)
{
    static char text[8192];
    text[0] = '\0';
    FILE *f = fopen(scratch_path(name), "r");
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    return text;
}

/* The lines of a scratch file. */
static int file_lines(const char *name)
{
    int n = 0;
    for (const char *s = file_text(name); *s; s++)
        n += *s == '\n';
    return n;
}

/* An engine of protocol proto: tests/engines/NAME.sh ARG. */
static ExtEngineConfig config(ProtoExtProtocol proto, const char *name, const char *arg,
                              const char *options)
{
    ExtEngineConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.proto = proto;
    snprintf(cfg.command, sizeof cfg.command, "%.300s/%.20s.sh %.600s", g_engines, name, arg);
    snprintf(cfg.options, sizeof cfg.options, "%.200s", options);
    return cfg;
}

/* tests/engines/broken.sh FAULT, its starts counted in count_name. */
static ExtEngineConfig counted(const char *count_name, const char *fault)
{
    char arg[EXT_TEXT_MAX];
    snprintf(arg, sizeof arg, "%.300s %.300s/broken.sh %.20s", scratch_path(count_name), g_engines,
             fault);
    return config(PROTO_EXT_UCI, "counted", arg, "");
}

/* The engine NAME of protocol proto with options, started; it logs what it receives in
 * the scratch file log (made afresh), its other arguments after the log's path. */
static ExtEngine *start_logged(ProtoExtProtocol proto, const char *name, const char *log,
                               const char *more, const char *options)
{
    const char *path = scratch_path(log);
    remove(path);
    char arg[EXT_TEXT_MAX];
    snprintf(arg, sizeof arg, "%.600s %.100s", path, more);
    ExtEngineConfig cfg = config(proto, name, arg, options);
    ExtEngine *e = extengine_new(&cfg);
    assert_non_null(e);
    char err[512];
    if (!extengine_start(e, err, sizeof err))
        fail_msg("%s: %s", name, err);
    return e;
}

/* 60 s + 1 s on both clocks. */
static SearchLimits clock_limits(void)
{
    SearchLimits clock;
    time_limits_clear(&clock);
    clock.time[RED] = clock.time[BLACK] = 60000;
    clock.inc[RED] = clock.inc[BLACK] = 1000;
    return clock;
}

/* The game from the start position after moves, searched with limits. */
static GameSearchStatus search(ExtEngine *e, const char *const *moves, int nmoves,
                               const SearchLimits *limits, SearchResult *out)
{
    return extengine_search(e, START_FEN, moves, nmoves, limits, time_now_ms() + 5000, out);
}

/*
 * What the engine of protocol proto receives for: start, new game, a search of the
 * start position with 60 s + 1 s on both clocks (its answer h2e2), a search after
 * h2e2 h9g7 to depth 3, and the end.
 */
static void check_transcript(ProtoExtProtocol proto, const char *options, const char *want)
{
    ExtEngine *e = start_logged(proto, "transcript", "transcript.log", "", options);
    extengine_new_game(e);
    SearchLimits clock = clock_limits();
    SearchResult res;
    assert_int_equal(search(e, NULL, 0, &clock, &res), GAME_SEARCH_OK);
    char mv[8];
    move_to_text(res.best, mv);
    assert_string_equal(mv, "h2e2");
    assert_int_equal(res.nodes, 10);
    SearchLimits depth;
    time_limits_clear(&depth);
    depth.depth = 3;
    const char *moves[] = {"h2e2", "h9g7"};
    assert_int_equal(search(e, moves, 2, &depth, &res), GAME_SEARCH_OK);
    assert_int_equal(extengine_starts(e), 1);
    extengine_free(&e);
    assert_string_equal(file_text("transcript.log"), want);
}

#define START "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"

static void test_transcript_uci(void **state)
{
    (void)state;
    check_transcript(PROTO_EXT_UCI, "Hash=16;Threads=1",
                     "uci\n"
                     "setoption name Hash value 16\n"
                     "setoption name Threads value 1\n"
                     "isready\n"
                     "ucinewgame\n"
                     "isready\n"
                     "position fen " START "\n"
                     "go wtime 60000 btime 60000 winc 1000 binc 1000\n"
                     "position fen " START " moves h2e2 h9g7\n"
                     "go depth 3\n"
                     "quit\n");
}

/* The move of a search, as text. */
static const char *search_move(ExtEngine *e, const char *const *moves, int nmoves,
                               const SearchLimits *limits)
{
    static char mv[8];
    SearchResult res;
    assert_int_equal(search(e, moves, nmoves, limits, &res), GAME_SEARCH_OK);
    move_to_text(res.best, mv);
    return mv;
}

/* What a new game sends a pondering engine up to its first ponder: its first search,
 * then the ponder on the answer it expects. */
#define GAME_START_PONDERING                   \
    "ucinewgame\n"                             \
    "isready\n"                                \
    "position fen " START "\n"                 \
    "go movetime 1000\n"                       \
    "position fen " START " moves h2e2 h9g7\n" \
    "go ponder movetime 1000\n"

/* Pondering with Ponder=true (as cutechess's "ponder"): after each bestmove the engine
 * ponders on its ponder move; the opponent's playing it is a ponderhit, whose bestmove
 * is the answer; another move stops the pondering, drops its bestmove and searches
 * afresh; a new game and an idle engine stop it too. Without the option: no pondering. */
static void test_ponder(void **state)
{
    (void)state;
    ExtEngine *e = start_logged(PROTO_EXT_UCI, "ponderer", "ponder.log", "", "Ponder=true");
    extengine_new_game(e);
    SearchLimits l;
    time_limits_clear(&l);
    l.movetime = 1000;
    const char *moves[] = {"h2e2", "h9g7", "b0c2", "h7h0"};
    assert_string_equal(search_move(e, moves, 0, &l), "h2e2");
    assert_string_equal(search_move(e, moves, 2, &l), "b0c2"); /* ponderhit */
    const char *missed[] = {"h2e2", "h9g7", "b0c2", "h7h0"};
    assert_string_equal(search_move(e, missed, 4, &l), "h2e2"); /* stop, a0a1 dropped */
    extengine_new_game(e);
    assert_string_equal(search_move(e, moves, 0, &l), "h2e2");
    extengine_quiet(e);
    extengine_quiet(e);
    extengine_free(&e);
    assert_string_equal(file_text("ponder.log"),
                        "uci\n"
                        "setoption name Ponder value true\n"
                        "isready\n" GAME_START_PONDERING "ponderhit\n"
                        "position fen " START " moves h2e2 h9g7 b0c2 b9c7\n"
                        "go ponder movetime 1000\n"
                        "stop\n"
                        "position fen " START " moves h2e2 h9g7 b0c2 h7h0\n"
                        "go movetime 1000\n"
                        "position fen " START " moves h2e2 h9g7 b0c2 h7h0 h2e2 h9g7\n"
                        "go ponder movetime 1000\n"
                        "stop\n" GAME_START_PONDERING "stop\n"
                        "quit\n");

    /* without Ponder=true the ponder move is not used */
    e = start_logged(PROTO_EXT_UCI, "ponderer", "ponder.log", "", "");
    assert_string_equal(search_move(e, moves, 0, &l), "h2e2");
    assert_string_equal(search_move(e, moves, 2, &l), "h2e2");
    extengine_free(&e);
    assert_string_equal(file_text("ponder.log"), "uci\n"
                                                 "isready\n"
                                                 "position fen " START "\n"
                                                 "go movetime 1000\n"
                                                 "position fen " START " moves h2e2 h9g7\n"
                                                 "go movetime 1000\n"
                                                 "quit\n");
}

/* On a clock: "go ponder" gets the engine's clock less the move's time plus the
 * increment; after a missed ponder move, the wait for the stop comes off the clock that
 * the fresh go sends. */
static void test_ponder_clock(void **state)
{
    (void)state;
    ExtEngine *e =
        start_logged(PROTO_EXT_UCI, "ponderer", "ponder_clock.log", "0.3", "Ponder=true");
    SearchLimits l = clock_limits();
    const char *moves[] = {"h2e2", "h7h0"};
    assert_string_equal(search_move(e, moves, 0, &l), "h2e2");
    assert_string_equal(search_move(e, moves, 2, &l), "h2e2"); /* missed: stop, 0.3 s */
    extengine_free(&e);
    const char *text = file_text("ponder_clock.log");
    long ponder_wtime = 0, go_wtime = 0;
    const char *p = strstr(text, "go ponder wtime ");
    assert_non_null(p);
    ponder_wtime = strtol(p + 16, NULL, 10);
    p = strstr(text, "stop\n");
    assert_non_null(p);
    p = strstr(p, "go wtime ");
    assert_non_null(p);
    go_wtime = strtol(p + 9, NULL, 10);
    assert_in_range(ponder_wtime, 60000, 61000);
    assert_in_range(go_wtime, 50000, 59700);
}

static void test_transcript_uci1(void **state)
{
    (void)state;
    check_transcript(PROTO_EXT_UCI1, "Hash=16",
                     "uci\n"
                     "setoption name UCI_Variant value xiangqi\n"
                     "setoption name Hash value 16\n"
                     "isready\n"
                     "ucinewgame\n"
                     "isready\n"
                     "position fen " START "\n"
                     "go wtime 60000 btime 60000 winc 1000 binc 1000\n"
                     "position fen " START " moves h3e3 h10g8\n"
                     "go depth 3\n"
                     "quit\n");
}

static void test_transcript_ucci(void **state)
{
    (void)state;
    check_transcript(PROTO_EXT_UCCI, "Hash=16",
                     "ucci\n"
                     "setoption Hash 16\n"
                     "isready\n"
                     "isready\n"
                     "position fen " START "\n"
                     "go time 60 increment 1 opptime 60 oppincrement 1\n"
                     "position fen " START " moves h2e2 h9g7\n"
                     "go depth 3\n"
                     "quit\n");
}

static void test_transcript_xboard(void **state)
{
    (void)state;
    check_transcript(PROTO_EXT_XBOARD, "memory=16;Mood=calm",
                     "xboard\n"
                     "protover 2\n"
                     "accepted myname\n"
                     "accepted variants\n"
                     "accepted setboard\n"
                     "accepted usermove\n"
                     "accepted ping\n"
                     "accepted memory\n"
                     "accepted option\n"
                     "accepted option\n"
                     "accepted done\n"
                     "memory 16\n"
                     "option Mood=calm\n"
                     "ping 1\n"
                     "new\n"
                     "variant xiangqi\n"
                     "force\n"
                     "post\n"
                     "easy\n"
                     "ping 2\n"
                     "force\n"
                     "setboard rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - "
                     "- 0 1\n"
                     "level 0 1:00 1\n"
                     "time 6000\n"
                     "otim 6000\n"
                     "go\n"
                     "force\n"
                     "usermove h9g7\n"
                     "sd 3\n"
                     "go\n"
                     "quit\n");
}

/* The options engine e announced: "NAME TYPE" or "NAME TYPE MIN..MAX", one a line. */
static const char *announced(const ExtEngine *e)
{
    static char text[512];
    const ExtOptions *o = extengine_options(e);
    size_t n = 0;
    text[0] = '\0';
    for (int i = 0; i < o->n && n < sizeof text; i++) {
        const ExtOption *x = &o->opt[i];
        n += (size_t)snprintf(text + n, sizeof text - n, "%s %s", x->name, x->type);
        if (x->ranged && n < sizeof text)
            n += (size_t)snprintf(text + n, sizeof text - n, " %g..%g", x->min, x->max);
        if (n < sizeof text)
            n += (size_t)snprintf(text + n, sizeof text - n, "\n");
    }
    return text;
}

/* The options an engine announces at its handshake, read once by the library (SPSA's
 * probe uses them): UCI option lines (a spin without min is not ranged), UCCI's, and
 * XBoard's option features; none before the first start. */
static void test_announced_options(void **state)
{
    (void)state;
    const char *want[] = {
        [PROTO_EXT_UCI] = "Skill Level spin 0..20\nPonder check\nHash spin\n",
        [PROTO_EXT_UCI1] = "Skill Level spin 0..20\nPonder check\nHash spin\n",
        [PROTO_EXT_UCCI] = "hashsize spin 0..1024\n",
        [PROTO_EXT_XBOARD] = "Mood combo\nDepth limit spin 0..99\n",
    };
    for (int p = 0; p < PROTO_EXT_NB; p++) {
        ExtEngineConfig cfg =
            config((ProtoExtProtocol)p, "transcript", scratch_path("options.log"), "");
        ExtEngine *e = extengine_new(&cfg);
        assert_non_null(e);
        assert_int_equal(extengine_options(e)->n, 0);
        char err[512];
        assert_true(extengine_start(e, err, sizeof err));
        assert_string_equal(announced(e), want[p]);
        assert_false(extengine_options(e)->cut);
        extengine_free(&e);
    }
}

/* A WORK whose players are the external engines a and b. */
static void work_of(ProtoWork *w, const ExtEngineConfig *a, const ExtEngineConfig *b)
{
    memset(w, 0, sizeof *w);
    const ExtEngineConfig *cfg[2] = {a, b};
    for (int p = 0; p < 2; p++) {
        ProtoPlayer *pl = &w->players[p];
        pl->player_id = (uint16_t)p;
        pl->kind = PROTO_ENGINE_EXTERNAL;
        pl->protocol = (uint8_t)cfg[p]->proto;
        pl->depth = 1;
        snprintf(pl->command, sizeof pl->command, "%.*s", PROTO_COMMAND_MAX, cfg[p]->command);
    }
}

static void prepare(PlayEngines *pe, const ExtEngineConfig *a, const ExtEngineConfig *b)
{
    ProtoWork w;
    GamePlayer players[2];
    char err[512];
    work_of(&w, a, b);
    assert_true(play_prepare(pe, &w, players, err, sizeof err));
    assert_ptr_not_equal(players[0].search_ctx, players[1].search_ctx);
}

static void test_round_robin_starts_each_engine_once(void **state)
{
    (void)state;
    static const char *const COUNTS[3] = {"rr0.count", "rr1.count", "rr2.count"};
    ExtEngineConfig e[3];
    for (int i = 0; i < 3; i++)
        e[i] = counted(COUNTS[i], "hang");
    PlayEngines pe;
    play_engines_init(&pe);
    /* two rounds: every engine plays both colours against both others */
    for (int round = 0; round < 2; round++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                if (a != b)
                    prepare(&pe, &e[a], &e[b]);
    for (int i = 0; i < 3; i++)
        assert_int_equal(file_lines(COUNTS[i]), 1);
    assert_int_equal(extpool_count(&pe.pool), 3);
    play_engines_free(&pe);
}

static void test_same_engine_for_both_players(void **state)
{
    (void)state;
    ExtEngineConfig a = counted("same_a.count", "hang"), b = counted("same_b.count", "hang");
    PlayEngines pe;
    play_engines_init(&pe);
    prepare(&pe, &a, &a);
    assert_int_equal(file_lines("same_a.count"), 2);
    prepare(&pe, &a, &b);
    prepare(&pe, &b, &a);
    prepare(&pe, &a, &a);
    assert_int_equal(file_lines("same_a.count"), 2);
    assert_int_equal(file_lines("same_b.count"), 1);
    assert_int_equal(extpool_count(&pe.pool), 3);
    play_engines_free(&pe);
}

/* The built-in players' option.Threads reaches their in-process engines: set, changed
 * by the next WORK, back to one without it; a bad value is refused with its name. */
static void test_builtin_threads(void **state)
{
    (void)state;
    PlayEngines pe;
    play_engines_init(&pe);
    ProtoWork w;
    memset(&w, 0, sizeof w);
    for (int p = 0; p < 2; p++) {
        w.players[p].player_id = (uint16_t)p;
        w.players[p].kind = PROTO_ENGINE_BUILTIN;
        w.players[p].nodes = 100;
    }
    snprintf(w.players[0].options, sizeof w.players[0].options, "Threads=2");
    GamePlayer players[2];
    char err[512];
    assert_true(play_prepare(&pe, &w, players, err, sizeof err));
    assert_int_equal(engine_threads(pe.engine[0]), 2);
    assert_int_equal(engine_threads(pe.engine[1]), 1);
    snprintf(w.players[0].options, sizeof w.players[0].options, "%s", "");
    snprintf(w.players[1].options, sizeof w.players[1].options, "threads=3");
    assert_true(play_prepare(&pe, &w, players, err, sizeof err));
    assert_int_equal(engine_threads(pe.engine[0]), 1);
    assert_int_equal(engine_threads(pe.engine[1]), 3);
    snprintf(w.players[1].options, sizeof w.players[1].options, "Threads=0");
    assert_false(play_prepare(&pe, &w, players, err, sizeof err));
    assert_non_null(strstr(err, "option.Threads"));
    snprintf(w.players[1].options, sizeof w.players[1].options, "Hash=64");
    assert_false(play_prepare(&pe, &w, players, err, sizeof err));
    assert_non_null(strstr(err, "option.Hash"));
    play_engines_free(&pe);
}

/* Takes the pool's engine for cfg and starts it. */
static ExtEngine *get_started(ExtPool *pool, const ExtEngineConfig *cfg)
{
    char err[512];
    ExtEngine *e = extpool_get(pool, cfg, NULL, err, sizeof err);
    assert_non_null(e);
    assert_true(extengine_start(e, err, sizeof err));
    return e;
}

static void test_least_recently_used_is_stopped(void **state)
{
    (void)state;
    enum { N = EXTPOOL_MAX + 1 };
    ExtEngineConfig cfg[N];
    char name[N][32];
    for (int i = 0; i < N; i++) {
        snprintf(name[i], sizeof name[i], "lru%d.count", i);
        cfg[i] = counted(name[i], "hang");
    }
    ExtPool pool;
    extpool_init(&pool);
    for (int i = 0; i < N; i++)
        get_started(&pool, &cfg[i]);
    assert_int_equal(extpool_count(&pool), EXTPOOL_MAX);
    /* engine 0 was stopped to make room for the last: it starts again, pushing out 1 */
    get_started(&pool, &cfg[0]);
    assert_int_equal(file_lines(name[0]), 2);
    for (int i = 2; i < N; i++)
        get_started(&pool, &cfg[i]);
    for (int i = 2; i < N; i++)
        assert_int_equal(file_lines(name[i]), 1);
    get_started(&pool, &cfg[1]);
    assert_int_equal(file_lines(name[1]), 2);
    assert_int_equal(extpool_count(&pool), EXTPOOL_MAX);
    extpool_free(&pool);
    assert_int_equal(extpool_count(&pool), 0);
}

static void test_crash_and_hang_restart_just_that_engine(void **state)
{
    (void)state;
    ExtEngineConfig crash = counted("crash.count", "crash"), hang = counted("hang.count", "hang"),
                    calm = counted("calm.count", "hang");
    ExtPool pool;
    extpool_init(&pool);
    ExtEngine *c = get_started(&pool, &crash), *h = get_started(&pool, &hang);
    get_started(&pool, &calm);
    SearchLimits limits;
    time_limits_clear(&limits);
    limits.depth = 1;
    SearchResult res;
    assert_int_equal(search(c, NULL, 0, &limits, &res), GAME_SEARCH_CRASH);
    assert_int_equal(extengine_search(h, START_FEN, NULL, 0, &limits, time_now_ms() + 200, &res),
                     GAME_SEARCH_TIMEOUT);
    assert_string_equal(extengine_last_error(h), "no move before the deadline");
    assert_ptr_equal(get_started(&pool, &crash), c);
    assert_ptr_equal(get_started(&pool, &hang), h);
    get_started(&pool, &calm);
    assert_int_equal(extengine_starts(c), 2);
    assert_int_equal(extengine_starts(h), 2);
    assert_int_equal(file_lines("crash.count"), 2);
    assert_int_equal(file_lines("hang.count"), 2);
    assert_int_equal(file_lines("calm.count"), 1);
    extpool_free(&pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transcript_uci),
        cmocka_unit_test(test_transcript_uci1),
        cmocka_unit_test(test_transcript_ucci),
        cmocka_unit_test(test_transcript_xboard),
        cmocka_unit_test(test_announced_options),
        cmocka_unit_test(test_round_robin_starts_each_engine_once),
        cmocka_unit_test(test_same_engine_for_both_players),
        cmocka_unit_test(test_least_recently_used_is_stopped),
        cmocka_unit_test(test_crash_and_hang_restart_just_that_engine),
        cmocka_unit_test(test_builtin_threads),
        cmocka_unit_test(test_ponder),
        cmocka_unit_test(test_ponder_clock),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
