#include "coord_options.h"

#include <string.h>

#include "coord_log.h"
#include "engine.h"
#include "error.h"
#include "opening.h"
#include "record.h"

/* Short names for the table's rows, undefined after it: the kind and the field of
 * CoordConfig, which must be of type T (a wrong kind does not compile). */
/* clang-format off */
#define AT(f, T) offsetof(CoordConfig, f) + 0 * sizeof(_Generic(((CoordConfig *)0)->f, T: 1)), \
                 sizeof(((CoordConfig *)0)->f)
#define U64(f) CLIOPT_U64, AT(f, uint64_t)
#define INT(f) CLIOPT_INT, AT(f, int)
#define DOUBLE(f) CLIOPT_DOUBLE, AT(f, double)
#define PATH(f) CLIOPT_PATH, AT(f, char *)
#define TEXT(f) CLIOPT_TEXT, AT(f, char *)
#define FLAG(f) CLIOPT_FLAG, AT(f, bool)
#define TC(f) CLIOPT_TC, AT(f, CliTimeControl)
#define ROW(name, what, min, max, flags, arg, help) {name, NULL, what, min, max, 0, flags, arg, help, NULL}
#define RUN COORD_OPT_RUN
/* The engine bits of engine k's options ("--X-N" for k >= 2). */
#define ENGINE(k) (RUN | ((k) >= 2 ? (unsigned)(k) << COORD_OPT_ENGINE_SHIFT : 0u))

/* The options every engine has: the row of engine k, named "--X-" sfx. */
#define OPT_NAME(sfx, k, help)     ROW("--name-" sfx, TEXT(name[k]), 0, 0, ENGINE(k), "NAME", help)
#define OPT_CMD(sfx, k, help)      ROW("--cmd-" sfx, TEXT(cmd[k]), 0, 0, ENGINE(k), "CMD", help)
#define OPT_PROTO(sfx, k, help)    ROW("--proto-" sfx, TEXT(proto[k]), 0, 0, ENGINE(k), "P", help)
#define OPT_OPTIONS(sfx, k, help)  ROW("--options-" sfx, TEXT(options[k]), 0, 0, ENGINE(k), "N=V;...", help)
#define OPT_DIR(sfx, k, help)      ROW("--dir-" sfx, PATH(dir[k]), 0, 0, ENGINE(k), "DIR", help)
#define OPT_WEIGHTS(sfx, k, help)  ROW("--weights-" sfx, PATH(weights[k]), 0, 0, ENGINE(k), "FILE", help)
#define OPT_TC(sfx, k, help)       ROW("--tc-" sfx, TC(engine_tc[k]), 0, 0, ENGINE(k), "BASE+INC", help)
#define OPT_MOVETIME(sfx, k, help) ROW("--movetime-" sfx, INT(engine_movetime[k]), 0, COORD_MOVETIME_MAX, ENGINE(k), "MS", help)
#define OPT_NODES(sfx, k, help)    ROW("--nodes-" sfx, U64(engine_nodes[k]), 0, COORD_NODES_MAX, ENGINE(k), "N", help)
#define OPT_DEPTH(sfx, k, help)    ROW("--depth-" sfx, INT(engine_depth[k]), 0, MAX_PLY, ENGINE(k), "N", help)
/* Engines 2 and up: the same options under a number, covered by one line of --help. */
#define ENGINE_OPTS(k)                                                                           \
    OPT_NAME(#k, k, NULL), OPT_CMD(#k, k, NULL), OPT_PROTO(#k, k, NULL), OPT_OPTIONS(#k, k, NULL), \
    OPT_DIR(#k, k, NULL), OPT_WEIGHTS(#k, k, NULL), OPT_TC(#k, k, NULL),                          \
    OPT_MOVETIME(#k, k, NULL), OPT_NODES(#k, k, NULL), OPT_DEPTH(#k, k, NULL)
/* clang-format on */

static const CoordOpt OPTS[] = {
    ROW("--games", U64(games), 1, COORD_GAMES_MAX, RUN | COORD_OPT_RESUMABLE, "N",
        "games to store in the run file (rounded up to whole pairs; default 1000)"),
    ROW("--rounds", U64(rounds), 1, COORD_GAMES_MAX, 0, "N",
        "games to store as N rounds of every pairing of the run's engines (-rounds)"),
    ROW("--round-games", U64(round_games), 1, COORD_GAMES_MAX, 0, "N",
        "with --rounds: games of each pairing in a round (-games; default 2, one pair)"),
    ROW("--nodes", U64(nodes), 0, COORD_NODES_MAX, RUN, "N",
        "node limit per move (default 10000 when no limit is given)"),
    ROW("--depth", INT(depth), 0, MAX_PLY, RUN, "N", "depth limit per move"),
    ROW("--movetime", INT(movetime), 0, COORD_MOVETIME_MAX, RUN, "MS", "time limit per move"),
    ROW("--hash", INT(hash_mb), 1, ENGINE_HASH_MAX_MB, RUN, "MB",
        "hash table per engine (default 16)"),
    ROW("--openings", PATH(openings), 0, 0, RUN, "FILE",
        "openings: EPD/FEN lines or PGN games; pair p plays opening p (cycling)"),
    ROW("--opening-format", TEXT(opening_format), 0, 0, RUN, "epd|pgn",
        "format of --openings (default: pgn for a .pgn file, else epd)"),
    ROW("--opening-order", TEXT(opening_order), 0, 0, RUN, "ORDER",
        "sequential (default) or random: shuffled by --seed, the same on a restart"),
    ROW("--opening-policy", TEXT(opening_policy), 0, 0, RUN, "POLICY",
        "pair (default): a new opening for every pair; round: one for every round of the "
        "tournament, so all pairings of a round play it"),
    ROW("--opening-start", INT(opening_start), 0, 1e9, RUN, "N",
        "the first pair plays opening N (1-based, of the order)"),
    ROW("--opening-plies", INT(opening_plies), 0, RECORD_MAX_PLIES, RUN, "N",
        "PGN openings: at most the first N plies of each game (default: the whole game)"),
    ROW("--random-plies", INT(random_plies), 0, OPENING_MAX_MOVES, RUN, "N",
        "random openings: N random plies from the start position (default 8)"),
    ROW("--seed", U64(seed), 0, CLIOPT_U64_ANY, RUN, "S",
        "random openings: seed (default: a random one, stored in the run file)"),
    ROW("--opening-max-score", INT(opening_max_score), 0, VALUE_MATE, RUN, "CP",
        "random openings: keep only lines a short search scores within +-CP"),
    {"--weights", NULL, CLIOPT_CALL, AT(weights[0], char *), 0, 0, 0, RUN | COORD_OPT_BOTH, "FILE",
     "weights file of both players (default: built-in)", NULL},
    OPT_WEIGHTS("red", 0, "weights of player 0, Red in game 0 of every pair"),
    OPT_WEIGHTS("black", 1, "weights of player 1, Black in game 0 of every pair"),
    OPT_NAME("red", 0, "name of player 0"),
    OPT_NAME("black", 1, "name of player 1"),
    OPT_CMD("red", 0, "player 0 is an external engine run as CMD (program and arguments)"),
    OPT_CMD("black", 1, "player 1 is an external engine run as CMD"),
    OPT_PROTO("red", 0,
              "player 0's protocol: uci (ranks 0-9), uci1 (ranks 1-10, Fairy-Stockfish), ucci, "
              "xboard"),
    OPT_PROTO("black", 1, "player 1's protocol"),
    OPT_OPTIONS("red", 0, "player 0's engine options"),
    OPT_OPTIONS("black", 1, "player 1's engine options"),
    OPT_DIR("red", 0, "player 0's working directory"),
    OPT_DIR("black", 1, "player 1's working directory"),
    ROW("--engines", INT(engines), 2, COORD_MAX_ENGINES, RUN, "N",
        "engines in the run (default 2); engine N >= 2 takes --name-N, --cmd-N, ..."),
    ROW("--tournament", TEXT(tournament), 0, 0, RUN, "KIND",
        "more than two engines: roundrobin (default) or gauntlet (engine 0 against each)"),
    OPT_TC("red", 0, "player 0's own clock, replacing --tc and --movetime for it (time odds)"),
    OPT_TC("black", 1, "player 1's own clock"),
    OPT_MOVETIME("red", 0, "player 0's own time per move, replacing --tc and --movetime for it"),
    OPT_MOVETIME("black", 1, "player 1's own time per move"),
    OPT_NODES("red", 0, "player 0's own node limit, replacing --nodes for it"),
    OPT_NODES("black", 1, "player 1's own node limit"),
    OPT_DEPTH("red", 0, "player 0's own depth limit, replacing --depth for it"),
    OPT_DEPTH("black", 1, "player 1's own depth limit"),
    ROW("--tc", TC(tc), 0, 0, RUN, "BASE+INC",
        "clock per game in seconds, e.g. 10+0.1, kept by the worker"),
    ROW("--timemargin", INT(timemargin), 0, 60000, RUN, "MS",
        "overrun allowed before a time forfeit (default 100)"),
    ROW("--sprt", TEXT(sprt), 0, 0, RUN, "'elo0=X elo1=Y ...'",
        "stop once the SPRT decides (alpha, beta 0.05, model normalized by default)"),
    ROW("--spsa", TEXT(spsa), 0, 0, RUN, "'params=F [pairs=N] ...'",
        "SPSA: tune engine 0's parameters against itself; also A, alpha, gamma, window"),
    ROW("--max-plies", INT(max_plies), 1, RECORD_MAX_PLIES, RUN, "N",
        "a game reaching N plies is drawn (default 400)"),
    ROW("--resign-moves", INT(resign_moves), 0, RECORD_MAX_PLIES, RUN, "N",
        "resign adjudication after N moves of each side beyond the score (0: off)"),
    ROW("--resign-score", INT(resign_score), 0, VALUE_MATE, RUN, "CP", "resign adjudication score"),
    ROW("--draw-after", INT(draw_after), 0, RECORD_MAX_PLIES, RUN, "PLY",
        "draw adjudication only from this game ply on"),
    ROW("--draw-moves", INT(draw_moves), 0, RECORD_MAX_PLIES, RUN, "N",
        "draw adjudication after N moves of each side within the score (0: off)"),
    ROW("--draw-score", INT(draw_score), 0, VALUE_MATE, RUN, "CP", "draw adjudication score"),
    ROW("--bind", TEXT(bind), 0, 0, 0, "ENDPOINT",
        "ZeroMQ endpoint to bind (default tcp://127.0.0.1:5555, tcp://*:5555 with keys or "
        "--open-network; tcp://127.0.0.1:* picks a free port)"),
    ROW("--out", PATH(out), 0, 0, 0, "FILE",
        "run file; an existing one is resumed with its stored settings (default run.h5)"),
    ROW("--accept-changed-inputs", FLAG(accept_changed_inputs), 0, 0, 0, NULL,
        "resume although an input (weights, openings, engine settings) changed since the run "
        "began; the new one is stored"),
    ROW("--json", FLAG(json), 0, 0, 0, NULL, "JSON lines on stdout: listening, progress, summary"),
    ROW("--heartbeat-timeout", DOUBLE(heartbeat_timeout), 1, 86400, 0, "S",
        "re-queue the pair of a worker silent for S seconds (default 30)"),
    ROW("--drain-timeout", DOUBLE(drain_timeout), 0, 86400, 0, "S",
        "after the target, wait at most S seconds to tell workers DONE (default 30)"),
    ROW("--progress-interval", DOUBLE(progress_interval), 0.1, 86400, 0, "S",
        "seconds between progress lines (default 1)"),
    ROW("--pgnout", PATH(pgnout), 0, 0, 0, "FILE",
        "append every game of the run to FILE as PGN as it is stored"),
    ROW("--rating-interval", INT(rating_interval), 0, 1000000000, 0, "N",
        "log the match statistics every N stored games"),
    ROW("--ack-log", PATH(ack_log), 0, 0, 0, "FILE",
        "append a JSON line per game acknowledged, written before the ACK (for fault tests)"),
    ROW("--spsa-out", PATH(spsa_out), 0, 0, 0, "FILE",
        "SPSA: the final values, as fishtest's SPSA input, at the end (and on SIGTERM)"),
    ROW("--spsa-plot", PATH(spsa_plot), 0, 0, 0, "FILE",
        "SPSA: every parameter's trajectory as a PNG (default: --spsa-out or the run file + .png)"),
    ROW("--curve-secret", PATH(curve_secret), 0, 0, 0, "FILE",
        "CURVE: this coordinator's secret key (chuhe-coordinator keygen); needs --allow-keys"),
    ROW("--allow-keys", PATH(allow_keys), 0, 0, 0, "FILE",
        "CURVE: the workers' public keys, one per line; SIGHUP reads the file again"),
    ROW("--open-network", FLAG(open_network), 0, 0, 0, NULL,
        "without keys, bind a non-loopback endpoint anyway (a trusted network only)"),
    ROW("--http", TEXT(http), 0, 0, 0, "ADDR:PORT",
        "serve a live page of the run there (127.0.0.1:0 picks a free port)"),
    ROW("--http-open", FLAG(http_open), 0, 0, 0, NULL,
        "serve the live page on a non-loopback address too (a trusted network only)"),
    ROW("--max-message", INT(max_message), 256, PROTO_MAX_MESSAGE, 0, "BYTES",
        "a worker sending a longer message is disconnected (default 16384)"),
    ROW("--max-inflight", INT(max_inflight), 1, COORD_MAX_INFLIGHT_CAP, 0, "N",
        "no new pair for a worker holding N pairs not yet acknowledged (default 8)"),
    ROW("--rate-limit", DOUBLE(rate_limit), 0, 1e7, 0, "N",
        "messages a second per worker; more are dropped (default 1000, 0: no limit)"),
    ROW("--rate-burst", DOUBLE(rate_burst), 0, 1e8, 0, "N",
        "messages a worker may send at once (default: two seconds of --rate-limit)"),
    {NULL, NULL, CLIOPT_HEADING, 0, 0, 0, 0, 0, 0, NULL,
     "  --name-N, --cmd-N, ...       engine N (2..31): the per-engine options of red and black",
     NULL},
    /* clang-format off */
    ENGINE_OPTS(2),  ENGINE_OPTS(3),  ENGINE_OPTS(4),  ENGINE_OPTS(5),  ENGINE_OPTS(6),
    ENGINE_OPTS(7),  ENGINE_OPTS(8),  ENGINE_OPTS(9),  ENGINE_OPTS(10), ENGINE_OPTS(11),
    ENGINE_OPTS(12), ENGINE_OPTS(13), ENGINE_OPTS(14), ENGINE_OPTS(15), ENGINE_OPTS(16),
    ENGINE_OPTS(17), ENGINE_OPTS(18), ENGINE_OPTS(19), ENGINE_OPTS(20), ENGINE_OPTS(21),
    ENGINE_OPTS(22), ENGINE_OPTS(23), ENGINE_OPTS(24), ENGINE_OPTS(25), ENGINE_OPTS(26),
    ENGINE_OPTS(27), ENGINE_OPTS(28), ENGINE_OPTS(29), ENGINE_OPTS(30), ENGINE_OPTS(31),
    /* clang-format on */
};
_Static_assert((int)COORD_MAX_ENGINES == 32, "ENGINE_OPTS lists engines 2..31");
#undef ENGINE_OPTS
#undef OPT_NAME
#undef OPT_CMD
#undef OPT_PROTO
#undef OPT_OPTIONS
#undef OPT_DIR
#undef OPT_WEIGHTS
#undef OPT_TC
#undef OPT_MOVETIME
#undef OPT_NODES
#undef OPT_DEPTH
#undef ENGINE
#undef RUN
#undef ROW
#undef TC
#undef FLAG
#undef TEXT
#undef PATH
#undef DOUBLE
#undef INT
#undef U64
#undef AT

enum {
    NOPTS = sizeof OPTS / sizeof OPTS[0],
    HELP_COLUMN = 28, /* the help text starts 3 further */
};
_Static_assert((int)NOPTS <= (int)COORD_OPTS_MAX, "CoordGiven is too small");

int coord_options_count(void)
{
    return NOPTS;
}

const CoordOpt *coord_options_at(int i)
{
    return &OPTS[i];
}

const CoordOpt *coord_options_find(const char *name)
{
    for (int i = 0; i < NOPTS; i++)
        if (OPTS[i].name && !strcmp(OPTS[i].name, name))
            return &OPTS[i];
    return NULL;
}

int coord_options_engine(const CoordOpt *o)
{
    return (int)(o->flags >> COORD_OPT_ENGINE_SHIFT);
}

void coord_options_json_key(const CoordOpt *o, char *buf, size_t size)
{
    snprintf(buf, size, "%s", o->name + 2);
    for (char *p = buf; *p; p++)
        if (*p == '-')
            *p = '_';
}

void *coord_options_field(CoordConfig *c, const CoordOpt *o)
{
    return (char *)c + o->offset;
}

const void *coord_options_cfield(const CoordConfig *c, const CoordOpt *o)
{
    return (const char *)c + o->offset;
}

/* --weights FILE is --weights-red FILE --weights-black FILE, both named --weights. */
static bool both_weights(void *ctx, const CliOpt *o, const char *label, int n, char **words,
                         char *msg, size_t size)
{
    CoordOptParse *p = ctx;
    CoordError err;
    (void)o, (void)n;
    if (coord_options_set_said(p->c, p->given, "--weights-red", label, words[0], &err) &&
        coord_options_set_said(p->c, p->given, "--weights-black", label, words[0], &err))
        return true;
    return error_set(msg, size, "%s", err.msg);
}

CliOptSpec coord_options_spec(CoordOptParse *p)
{
    return (CliOptSpec){.prog = "chuhe-coordinator",
                        .opts = OPTS,
                        .nopts = NOPTS,
                        .dest = p->c,
                        .call = both_weights,
                        .ctx = p,
                        .given = p->given ? p->given->given : NULL};
}

bool coord_options_set(CoordConfig *c, const CoordOpt *o, const char *text, CoordError *err)
{
    CoordOptParse p = {c, NULL};
    CliOptSpec s = coord_options_spec(&p);
    return cliopt_set(&s, o, o->name, text, err->msg, sizeof err->msg);
}

bool coord_options_set_said(CoordConfig *c, CoordGiven *given, const char *name, const char *said,
                            const char *text, CoordError *err)
{
    const CoordOpt *o = coord_options_find(name);
    CoordOptParse p = {c, given};
    CliOptSpec s = coord_options_spec(&p);
    if (!o)
        return ERROR_SET(err, "%s: no such option", name);
    coord_options_said(given, name, said);
    return cliopt_set(&s, o, said, text, err->msg, sizeof err->msg);
}

void coord_options_put(CoordConfig *c, CoordGiven *given, const char *name, const char *said,
                       const void *value, size_t size)
{
    const CoordOpt *o = coord_options_find(name);
    if (!o || o->size != size)
        COORD_FATAL("option %s: no field of %zu bytes", name, size);
    memcpy(coord_options_field(c, o), value, size);
    given->given[o - OPTS] = true;
    coord_options_said(given, name, said);
}

bool coord_options_parse(CoordConfig *c, CoordGiven *given, int argc, char **argv, CoordError *err)
{
    memset(given, 0, sizeof *given);
    CoordOptParse p = {c, given};
    CliOptSpec s = coord_options_spec(&p);
    return cliopt_parse(&s, argc, argv, NULL, NULL, 0, err->msg, sizeof err->msg) == CLIOPT_OK;
}

bool coord_options_given(const CoordGiven *given, const char *name)
{
    const CoordOpt *o = coord_options_find(name);
    return o && given->given[o - OPTS];
}

void coord_options_said(CoordGiven *given, const char *name, const char *said)
{
    const CoordOpt *o = coord_options_find(name);
    if (o)
        snprintf(given->said[o - OPTS], sizeof given->said[0], "%s", said);
}

/* A character that continues an option name. */
static bool name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
}

void coord_options_say(const CoordGiven *given, char *msg, size_t size)
{
    char out[sizeof((CoordError *)0)->msg];
    size_t n = 0;
    for (const char *p = msg; *p && n + 1 < sizeof out;) {
        const char *said = NULL;
        size_t len = 0;
        for (int j = 0; p[0] == '-' && p[1] == '-' && (p == msg || !name_char(p[-1])) && j < NOPTS;
             j++) {
            size_t l = OPTS[j].name ? strlen(OPTS[j].name) : 0;
            if (given->said[j][0] && !strncmp(p, OPTS[j].name, l) && !name_char(p[l])) {
                said = given->said[j];
                len = l;
                break;
            }
        }
        if (said) {
            n += (size_t)snprintf(out + n, sizeof out - n, "%s", said);
            p += len;
        } else {
            out[n++] = *p++;
        }
    }
    out[n < sizeof out ? n : sizeof out - 1] = '\0';
    snprintf(msg, size, "%s", out);
}

void coord_options_usage(FILE *f)
{
    CoordOptParse p = {NULL, NULL};
    CliOptSpec s = coord_options_spec(&p);
    cliopt_usage(f, &s, HELP_COLUMN);
}
