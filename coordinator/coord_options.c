#include "coord_options.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "error.h"
#include "numparse.h"
#include "opening.h"
#include "record.h"
#include "textesc.h"

/* Short names for the table's rows, undefined after it. */
#define FIELD(f) offsetof(CoordConfig, f), sizeof(((CoordConfig *)0)->f)
#define RUN COORD_OPT_RUN
#define U64 COORD_OPT_U64
#define INT COORD_OPT_INT
#define DOUBLE COORD_OPT_DOUBLE
#define PATH COORD_OPT_PATH
#define TEXT COORD_OPT_TEXT
#define FLAG COORD_OPT_FLAG

/* The options every engine has: the row of engine k, named "--X-" sfx. */
/* clang-format off */
#define OPT_NAME(sfx, k, help)     {"--name-" sfx, TEXT, FIELD(name[k]), 0, 0, RUN, "NAME", help}
#define OPT_CMD(sfx, k, help)      {"--cmd-" sfx, TEXT, FIELD(cmd[k]), 0, 0, RUN, "CMD", help}
#define OPT_PROTO(sfx, k, help)    {"--proto-" sfx, TEXT, FIELD(proto[k]), 0, 0, RUN, "P", help}
#define OPT_OPTIONS(sfx, k, help)  {"--options-" sfx, TEXT, FIELD(options[k]), 0, 0, RUN, "N=V;...", help}
#define OPT_DIR(sfx, k, help)      {"--dir-" sfx, PATH, FIELD(dir[k]), 0, 0, RUN, "DIR", help}
#define OPT_WEIGHTS(sfx, k, help)  {"--weights-" sfx, PATH, FIELD(weights[k]), 0, 0, RUN, "FILE", help}
#define OPT_TC(sfx, k, help)       {"--tc-" sfx, TEXT, FIELD(engine_tc[k]), 0, 0, RUN, "BASE+INC", help}
#define OPT_MOVETIME(sfx, k, help) {"--movetime-" sfx, INT, FIELD(engine_movetime[k]), 0, 3600000, RUN, "MS", help}
#define OPT_NODES(sfx, k, help)    {"--nodes-" sfx, U64, FIELD(engine_nodes[k]), 0, 4e9, RUN, "N", help}
#define OPT_DEPTH(sfx, k, help)    {"--depth-" sfx, INT, FIELD(engine_depth[k]), 0, MAX_PLY, RUN, "N", help}
/* Engines 2 and up: the same options under a number, covered by one line of --help. */
#define ENGINE_OPTS(k)                                                                           \
    OPT_NAME(#k, k, NULL), OPT_CMD(#k, k, NULL), OPT_PROTO(#k, k, NULL), OPT_OPTIONS(#k, k, NULL), \
    OPT_DIR(#k, k, NULL), OPT_WEIGHTS(#k, k, NULL), OPT_TC(#k, k, NULL),                          \
    OPT_MOVETIME(#k, k, NULL), OPT_NODES(#k, k, NULL), OPT_DEPTH(#k, k, NULL)
/* clang-format on */

static const CoordOpt OPTS[] = {
    {"--games", U64, FIELD(games), 1, 1e12, RUN | COORD_OPT_RESUMABLE, "N",
     "games to store in the run file (rounded up to whole pairs; default 1000)"},
    {"--rounds", U64, FIELD(rounds), 1, 1e12, 0, "N",
     "games to store as N rounds of every pairing of the run's engines (-rounds)"},
    {"--round-games", U64, FIELD(round_games), 1, 1e12, 0, "N",
     "with --rounds: games of each pairing in a round (-games; default 2, one pair)"},
    {"--nodes", U64, FIELD(nodes), 0, 4e9, RUN, "N",
     "node limit per move (default 10000 when no limit is given)"},
    {"--depth", INT, FIELD(depth), 0, MAX_PLY, RUN, "N", "depth limit per move"},
    {"--movetime", INT, FIELD(movetime), 0, 3600000, RUN, "MS", "time limit per move"},
    {"--hash", INT, FIELD(hash_mb), 1, ENGINE_HASH_MAX_MB, RUN, "MB",
     "hash table per engine (default 16)"},
    {"--openings", PATH, FIELD(openings), 0, 0, RUN, "FILE",
     "openings: EPD/FEN lines or PGN games; pair p plays opening p (cycling)"},
    {"--opening-format", TEXT, FIELD(opening_format), 0, 0, RUN, "epd|pgn",
     "format of --openings (default: pgn for a .pgn file, else epd)"},
    {"--opening-order", TEXT, FIELD(opening_order), 0, 0, RUN, "ORDER",
     "sequential (default) or random: shuffled by --seed, the same on a restart"},
    {"--opening-policy", TEXT, FIELD(opening_policy), 0, 0, RUN, "POLICY",
     "pair (default): a new opening for every pair; round: one for every round of the "
     "tournament, so all pairings of a round play it"},
    {"--opening-start", INT, FIELD(opening_start), 0, 1e9, RUN, "N",
     "the first pair plays opening N (1-based, of the order)"},
    {"--opening-plies", INT, FIELD(opening_plies), 0, RECORD_MAX_PLIES, RUN, "N",
     "PGN openings: at most the first N plies of each game (default: the whole game)"},
    {"--random-plies", INT, FIELD(random_plies), 0, OPENING_MAX_MOVES, RUN, "N",
     "random openings: N random plies from the start position (default 8)"},
    {"--seed", U64, FIELD(seed), 0, 18446744073709551615.0, RUN, "S",
     "random openings: seed (default: a random one, stored in the run file)"},
    {"--opening-max-score", INT, FIELD(opening_max_score), 0, VALUE_MATE, RUN, "CP",
     "random openings: keep only lines a short search scores within +-CP"},
    {"--weights", PATH, FIELD(weights[0]), 0, 0, RUN | COORD_OPT_BOTH, "FILE",
     "weights file of both players (default: built-in)"},
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
    {"--engines", INT, FIELD(engines), 2, COORD_MAX_ENGINES, RUN, "N",
     "engines in the run (default 2); engine N >= 2 takes --name-N, --cmd-N, ..."},
    {"--tournament", TEXT, FIELD(tournament), 0, 0, RUN, "KIND",
     "more than two engines: roundrobin (default) or gauntlet (engine 0 against each)"},
    OPT_TC("red", 0, "player 0's own clock, replacing --tc and --movetime for it (time odds)"),
    OPT_TC("black", 1, "player 1's own clock"),
    OPT_MOVETIME("red", 0, "player 0's own time per move, replacing --tc and --movetime for it"),
    OPT_MOVETIME("black", 1, "player 1's own time per move"),
    OPT_NODES("red", 0, "player 0's own node limit, replacing --nodes for it"),
    OPT_NODES("black", 1, "player 1's own node limit"),
    OPT_DEPTH("red", 0, "player 0's own depth limit, replacing --depth for it"),
    OPT_DEPTH("black", 1, "player 1's own depth limit"),
    {"--tc", TEXT, FIELD(tc), 0, 0, RUN, "BASE+INC",
     "clock per game in seconds, e.g. 10+0.1, kept by the worker"},
    {"--timemargin", INT, FIELD(timemargin), 0, 60000, RUN, "MS",
     "overrun allowed before a time forfeit (default 100)"},
    {"--sprt", TEXT, FIELD(sprt), 0, 0, RUN, "'elo0=X elo1=Y ...'",
     "stop once the SPRT decides (alpha, beta 0.05, model normalized by default)"},
    {"--spsa", TEXT, FIELD(spsa), 0, 0, RUN, "'params=F [pairs=N] ...'",
     "SPSA: tune engine 0's parameters against itself; also A, alpha, gamma, window"},
    {"--max-plies", INT, FIELD(max_plies), 1, RECORD_MAX_PLIES, RUN, "N",
     "a game reaching N plies is drawn (default 400)"},
    {"--resign-moves", INT, FIELD(resign_moves), 0, RECORD_MAX_PLIES, RUN, "N",
     "resign adjudication after N moves of each side beyond the score (0: off)"},
    {"--resign-score", INT, FIELD(resign_score), 0, VALUE_MATE, RUN, "CP",
     "resign adjudication score"},
    {"--draw-after", INT, FIELD(draw_after), 0, RECORD_MAX_PLIES, RUN, "PLY",
     "draw adjudication only from this game ply on"},
    {"--draw-moves", INT, FIELD(draw_moves), 0, RECORD_MAX_PLIES, RUN, "N",
     "draw adjudication after N moves of each side within the score (0: off)"},
    {"--draw-score", INT, FIELD(draw_score), 0, VALUE_MATE, RUN, "CP", "draw adjudication score"},
    {"--bind", TEXT, FIELD(bind), 0, 0, 0, "ENDPOINT",
     "ZeroMQ endpoint to bind (default tcp://127.0.0.1:5555, tcp://*:5555 with keys or "
     "--open-network; tcp://127.0.0.1:* picks a free port)"},
    {"--out", PATH, FIELD(out), 0, 0, 0, "FILE",
     "run file; an existing one is resumed with its stored settings (default run.h5)"},
    {"--accept-changed-inputs", FLAG, FIELD(accept_changed_inputs), 0, 0, 0, NULL,
     "resume although an input (weights, openings, engine settings) changed since the run "
     "began; the new one is stored"},
    {"--json", FLAG, FIELD(json), 0, 0, 0, NULL,
     "JSON lines on stdout: listening, progress, summary"},
    {"--heartbeat-timeout", DOUBLE, FIELD(heartbeat_timeout), 1, 86400, 0, "S",
     "re-queue the pair of a worker silent for S seconds (default 30)"},
    {"--drain-timeout", DOUBLE, FIELD(drain_timeout), 0, 86400, 0, "S",
     "after the target, wait at most S seconds to tell workers DONE (default 30)"},
    {"--progress-interval", DOUBLE, FIELD(progress_interval), 0.1, 86400, 0, "S",
     "seconds between progress lines (default 1)"},
    {"--pgnout", PATH, FIELD(pgnout), 0, 0, 0, "FILE",
     "append every game of the run to FILE as PGN as it is stored"},
    {"--rating-interval", INT, FIELD(rating_interval), 0, 1000000000, 0, "N",
     "log the match statistics every N stored games"},
    {"--ack-log", PATH, FIELD(ack_log), 0, 0, 0, "FILE",
     "append a JSON line per game acknowledged, written before the ACK (for fault tests)"},
    {"--spsa-out", PATH, FIELD(spsa_out), 0, 0, 0, "FILE",
     "SPSA: the final values, as fishtest's SPSA input, at the end (and on SIGTERM)"},
    {"--spsa-plot", PATH, FIELD(spsa_plot), 0, 0, 0, "FILE",
     "SPSA: every parameter's trajectory as a PNG (default: --spsa-out or the run file + .png)"},
    {"--curve-secret", PATH, FIELD(curve_secret), 0, 0, 0, "FILE",
     "CURVE: this coordinator's secret key (chuhe-coordinator keygen); needs --allow-keys"},
    {"--allow-keys", PATH, FIELD(allow_keys), 0, 0, 0, "FILE",
     "CURVE: the workers' public keys, one per line; SIGHUP reads the file again"},
    {"--open-network", FLAG, FIELD(open_network), 0, 0, 0, NULL,
     "without keys, bind a non-loopback endpoint anyway (a trusted network only)"},
    {"--http", TEXT, FIELD(http), 0, 0, 0, "ADDR:PORT",
     "serve a live page of the run there (127.0.0.1:0 picks a free port)"},
    {"--http-open", FLAG, FIELD(http_open), 0, 0, 0, NULL,
     "serve the live page on a non-loopback address too (a trusted network only)"},
    {"--max-message", INT, FIELD(max_message), 256, PROTO_MAX_MESSAGE, 0, "BYTES",
     "a worker sending a longer message is disconnected (default 16384)"},
    {"--max-inflight", INT, FIELD(max_inflight), 1, COORD_MAX_INFLIGHT_CAP, 0, "N",
     "no new pair for a worker holding N pairs not yet acknowledged (default 8)"},
    {"--rate-limit", DOUBLE, FIELD(rate_limit), 0, 1e7, 0, "N",
     "messages a second per worker; more are dropped (default 1000, 0: no limit)"},
    {"--rate-burst", DOUBLE, FIELD(rate_burst), 0, 1e8, 0, "N",
     "messages a worker may send at once (default: two seconds of --rate-limit)"},
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
#undef FIELD
#undef RUN
#undef U64
#undef INT
#undef DOUBLE
#undef PATH
#undef TEXT
#undef FLAG

enum { NOPTS = sizeof OPTS / sizeof OPTS[0] };
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
        if (!strcmp(OPTS[i].name, name))
            return &OPTS[i];
    return NULL;
}

int coord_options_engine(const CoordOpt *o)
{
    return o->help ? 0 : atoi(strrchr(o->name, '-') + 1);
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

/* The seed takes the whole unsigned 64-bit range, beyond numparse_int's long long: a
 * value numparse finds out of range is read again as unsigned when it is plain digits. */
static bool parse_u64(const char *label, const char *text, double min, double max, uint64_t *out,
                      char *msg, size_t size)
{
    long long v;
    if (max < (double)LLONG_MAX) {
        if (!numparse_int(label, text, (long long)min, (long long)max, &v, msg, size))
            return false;
        *out = (uint64_t)v;
        return true;
    }
    if (numparse_int(label, text, (long long)min, LLONG_MAX, &v, NULL, 0)) {
        *out = (uint64_t)v;
        return true;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long u = text && *text >= '0' && *text <= '9' ? strtoull(text, &end, 10) : 0;
    if (end && !*end && errno != ERANGE && (double)u >= min) {
        *out = u;
        return true;
    }
    return error_set(msg, size, "%s: '%.40s' is %s (allowed: %.0f..%llu)", label, text ? text : "",
                     end && !*end ? "out of range" : "not a whole number", min, ULLONG_MAX);
}

bool coord_options_number(const CoordOpt *o, const char *label, const char *text, CoordNumber *out,
                          CoordError *err)
{
    char *msg = err ? err->msg : NULL;
    size_t size = err ? sizeof err->msg : 0;
    long long v;
    switch (o->kind) {
    case COORD_OPT_U64:
        return parse_u64(label, text, o->min, o->max, &out->u64, msg, size);
    case COORD_OPT_INT:
        if (!numparse_int(label, text, (long long)o->min, (long long)o->max, &v, msg, size))
            return false;
        out->i = (int)v;
        return true;
    case COORD_OPT_DOUBLE:
        return numparse_double(label, text, o->min, o->max, &out->d, msg, size);
    default:
        return ERROR_SET(err, "%s is not a number option", o->name);
    }
}

/* A number option's text in o's range; the message names the option. */
static bool set_number(CoordConfig *c, const CoordOpt *o, const char *text, CoordError *err)
{
    CoordNumber n;
    if (!coord_options_number(o, o->name, text, &n, err))
        return false;
    void *field = coord_options_field(c, o);
    if (o->kind == COORD_OPT_U64)
        *(uint64_t *)field = n.u64;
    else if (o->kind == COORD_OPT_INT)
        *(int *)field = n.i;
    else
        *(double *)field = n.d;
    return true;
}

bool coord_options_set(CoordConfig *c, const CoordOpt *o, const char *text, CoordError *err)
{
    switch (o->kind) {
    case COORD_OPT_U64:
    case COORD_OPT_INT:
    case COORD_OPT_DOUBLE:
        return set_number(c, o, text, err);
    case COORD_OPT_PATH:
    case COORD_OPT_TEXT:
        if (strlen(text) >= o->size)
            return ERROR_SET(err, "%s: longer than %zu bytes", o->name, o->size - 1);
        if (!textesc_plain(text)) {
            char shown[COORD_PATH_MAX];
            textesc_printable(shown, sizeof shown, text);
            return ERROR_SET(err,
                             "%s: '%s' holds a control character (shown as \\xNN); give "
                             "printable text",
                             o->name, shown);
        }
        snprintf(coord_options_field(c, o), o->size, "%s", text);
        return true;
    case COORD_OPT_FLAG:
        *(bool *)coord_options_field(c, o) = true;
        return true;
    }
    return ERROR_SET(err, "%s: unknown option kind", o->name);
}

/* The option an argument names ("--name" or "--name=value"); NULL for none. */
static const CoordOpt *named(const char *arg, const char *eq)
{
    size_t namelen = eq ? (size_t)(eq - arg) : strlen(arg);
    for (int j = 0; j < NOPTS; j++)
        if (strlen(OPTS[j].name) == namelen && !strncmp(OPTS[j].name, arg, namelen))
            return &OPTS[j];
    return NULL;
}

bool coord_options_parse(CoordConfig *c, CoordGiven *given, int argc, char **argv, CoordError *err)
{
    memset(given, 0, sizeof *given);
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        const CoordOpt *o = named(arg, eq);
        if (!o)
            return ERROR_SET(err, "unknown option '%s' (see --help)", arg);
        const char *value;
        if (o->kind == COORD_OPT_FLAG) {
            if (eq)
                return ERROR_SET(err, "%s takes no value", o->name);
            value = "";
        } else if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            return ERROR_SET(err, "%s needs a value (%s)", o->name, o->arg);
        }
        /* --weights FILE is --weights-red FILE --weights-black FILE */
        const CoordOpt *set[2] = {o, NULL};
        if (o->flags & COORD_OPT_BOTH) {
            set[0] = coord_options_find("--weights-red");
            set[1] = coord_options_find("--weights-black");
        }
        for (int s = 0; s < 2 && set[s]; s++) {
            if (set[1])
                coord_options_said(given, set[s]->name, o->name);
            if (!coord_options_set(c, set[s], value, err))
                return false;
            given->given[set[s] - OPTS] = true;
        }
    }
    return true;
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
            size_t l = strlen(OPTS[j].name);
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
    for (int i = 0; i < NOPTS; i++) {
        const CoordOpt *o = &OPTS[i];
        if (!o->help) {
            if (!strcmp(o->name, "--name-2"))
                fprintf(f, "  %-28s %s\n", "--name-N, --cmd-N, ...",
                        "engine N (2..31): the per-engine options of red and black");
            continue;
        }
        char left[64];
        snprintf(left, sizeof left, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(f, "  %-28s %s\n", left, o->help);
    }
}
