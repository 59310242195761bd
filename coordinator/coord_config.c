#include "coord_config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "contracts/jsontext.h"
#include "engine.h"
#include "opening.h"
#include "record.h"
#include "tournament.h"

typedef enum { OPT_U64, OPT_INT, OPT_DOUBLE, OPT_PATH, OPT_TEXT, OPT_FLAG } OptKind;

enum {
    OPT_RUN = 1,       /* a run setting, stored in run_config */
    OPT_RESUMABLE = 2, /* may change when a run is resumed */
    OPT_BOTH = 4,      /* --weights: sets both players' weights */
};

/*
 * Every option, once: the parser, the usage text, the stored JSON and the resume check
 * all read this table. A run setting's JSON key is its option name without dashes, with
 * '_' for '-'.
 */
typedef struct {
    const char *name;
    OptKind kind;
    size_t offset, size;
    double min, max;
    unsigned flags;
    const char *arg;
    const char *help; /* NULL for the options of engines 2 and up, named "--X-N" */
} Opt;

#define FIELD(f) offsetof(CoordConfig, f), sizeof(((CoordConfig *)0)->f)

static const Opt OPTS[] = {
    {"--games", OPT_U64, FIELD(games), 1, 1e12, OPT_RUN | OPT_RESUMABLE, "N",
     "games to store in the run file (rounded up to whole pairs; default 1000)"},
    {"--nodes", OPT_U64, FIELD(nodes), 0, 4e9, OPT_RUN, "N",
     "node limit per move (default 10000 when no limit is given)"},
    {"--depth", OPT_INT, FIELD(depth), 0, MAX_PLY, OPT_RUN, "N", "depth limit per move"},
    {"--movetime", OPT_INT, FIELD(movetime), 0, 3600000, OPT_RUN, "MS", "time limit per move"},
    {"--hash", OPT_INT, FIELD(hash_mb), 1, ENGINE_HASH_MAX_MB, OPT_RUN, "MB",
     "hash table per engine (default 16)"},
    {"--openings", OPT_PATH, FIELD(openings), 0, 0, OPT_RUN, "FILE",
     "openings: EPD/FEN lines or PGN games; pair p plays opening p (cycling)"},
    {"--opening-format", OPT_TEXT, FIELD(opening_format), 0, 0, OPT_RUN, "epd|pgn",
     "format of --openings (default: pgn for a .pgn file, else epd)"},
    {"--opening-order", OPT_TEXT, FIELD(opening_order), 0, 0, OPT_RUN, "ORDER",
     "sequential (default) or random: shuffled by --seed, the same on a restart"},
    {"--opening-start", OPT_INT, FIELD(opening_start), 0, 1e9, OPT_RUN, "N",
     "the first pair plays opening N (1-based, of the order)"},
    {"--opening-plies", OPT_INT, FIELD(opening_plies), 0, RECORD_MAX_PLIES, OPT_RUN, "N",
     "PGN openings: at most the first N plies of each game (default: the whole game)"},
    {"--random-plies", OPT_INT, FIELD(random_plies), 0, OPENING_MAX_MOVES, OPT_RUN, "N",
     "random openings: N random plies from the start position (default 8)"},
    {"--seed", OPT_U64, FIELD(seed), 0, 18446744073709551615.0, OPT_RUN, "S",
     "random openings: seed (default: a random one, stored in the run file)"},
    {"--opening-max-score", OPT_INT, FIELD(opening_max_score), 0, VALUE_MATE, OPT_RUN, "CP",
     "random openings: keep only lines a short search scores within +-CP"},
    {"--weights", OPT_PATH, FIELD(weights[0]), 0, 0, OPT_RUN | OPT_BOTH, "FILE",
     "weights file of both players (default: built-in)"},
    {"--weights-red", OPT_PATH, FIELD(weights[0]), 0, 0, OPT_RUN, "FILE",
     "weights of player 0, Red in game 0 of every pair"},
    {"--weights-black", OPT_PATH, FIELD(weights[1]), 0, 0, OPT_RUN, "FILE",
     "weights of player 1, Black in game 0 of every pair"},
    {"--name-red", OPT_TEXT, FIELD(name[0]), 0, 0, OPT_RUN, "NAME", "name of player 0"},
    {"--name-black", OPT_TEXT, FIELD(name[1]), 0, 0, OPT_RUN, "NAME", "name of player 1"},
    {"--cmd-red", OPT_TEXT, FIELD(cmd[0]), 0, 0, OPT_RUN, "CMD",
     "player 0 is an external engine run as CMD (program and arguments)"},
    {"--cmd-black", OPT_TEXT, FIELD(cmd[1]), 0, 0, OPT_RUN, "CMD",
     "player 1 is an external engine run as CMD"},
    {"--proto-red", OPT_TEXT, FIELD(proto[0]), 0, 0, OPT_RUN, "P",
     "player 0's protocol: uci (ranks 0-9), uci1 (ranks 1-10, Fairy-Stockfish), ucci, xboard"},
    {"--proto-black", OPT_TEXT, FIELD(proto[1]), 0, 0, OPT_RUN, "P", "player 1's protocol"},
    {"--options-red", OPT_TEXT, FIELD(options[0]), 0, 0, OPT_RUN, "N=V;...",
     "player 0's engine options"},
    {"--options-black", OPT_TEXT, FIELD(options[1]), 0, 0, OPT_RUN, "N=V;...",
     "player 1's engine options"},
    {"--dir-red", OPT_PATH, FIELD(dir[0]), 0, 0, OPT_RUN, "DIR", "player 0's working directory"},
    {"--dir-black", OPT_PATH, FIELD(dir[1]), 0, 0, OPT_RUN, "DIR", "player 1's working directory"},
    {"--engines", OPT_INT, FIELD(engines), 2, COORD_MAX_ENGINES, OPT_RUN, "N",
     "engines in the run (default 2); engine N >= 2 takes --name-N, --cmd-N, ..."},
    {"--tournament", OPT_TEXT, FIELD(tournament), 0, 0, OPT_RUN, "KIND",
     "more than two engines: roundrobin (default) or gauntlet (engine 0 against each)"},
    {"--tc-red", OPT_TEXT, FIELD(engine_tc[0]), 0, 0, OPT_RUN, "BASE+INC",
     "player 0's own clock, replacing --tc and --movetime for it (time odds)"},
    {"--tc-black", OPT_TEXT, FIELD(engine_tc[1]), 0, 0, OPT_RUN, "BASE+INC",
     "player 1's own clock"},
    {"--movetime-red", OPT_INT, FIELD(engine_movetime[0]), 0, 3600000, OPT_RUN, "MS",
     "player 0's own time per move, replacing --tc and --movetime for it"},
    {"--movetime-black", OPT_INT, FIELD(engine_movetime[1]), 0, 3600000, OPT_RUN, "MS",
     "player 1's own time per move"},
    {"--nodes-red", OPT_U64, FIELD(engine_nodes[0]), 0, 4e9, OPT_RUN, "N",
     "player 0's own node limit, replacing --nodes for it"},
    {"--nodes-black", OPT_U64, FIELD(engine_nodes[1]), 0, 4e9, OPT_RUN, "N",
     "player 1's own node limit"},
    {"--depth-red", OPT_INT, FIELD(engine_depth[0]), 0, MAX_PLY, OPT_RUN, "N",
     "player 0's own depth limit, replacing --depth for it"},
    {"--depth-black", OPT_INT, FIELD(engine_depth[1]), 0, MAX_PLY, OPT_RUN, "N",
     "player 1's own depth limit"},
    {"--tc", OPT_TEXT, FIELD(tc), 0, 0, OPT_RUN, "BASE+INC",
     "clock per game in seconds, e.g. 10+0.1, kept by the worker"},
    {"--timemargin", OPT_INT, FIELD(timemargin), 0, 60000, OPT_RUN, "MS",
     "overrun allowed before a time forfeit (default 100)"},
    {"--sprt", OPT_TEXT, FIELD(sprt), 0, 0, OPT_RUN, "'elo0=X elo1=Y ...'",
     "stop once the SPRT decides (alpha, beta 0.05, model normalized by default)"},
    {"--max-plies", OPT_INT, FIELD(max_plies), 1, RECORD_MAX_PLIES, OPT_RUN, "N",
     "a game reaching N plies is drawn (default 400)"},
    {"--resign-moves", OPT_INT, FIELD(resign_moves), 0, RECORD_MAX_PLIES, OPT_RUN, "N",
     "resign adjudication after N moves of each side beyond the score (0: off)"},
    {"--resign-score", OPT_INT, FIELD(resign_score), 0, VALUE_MATE, OPT_RUN, "CP",
     "resign adjudication score"},
    {"--draw-after", OPT_INT, FIELD(draw_after), 0, RECORD_MAX_PLIES, OPT_RUN, "PLY",
     "draw adjudication only from this game ply on"},
    {"--draw-moves", OPT_INT, FIELD(draw_moves), 0, RECORD_MAX_PLIES, OPT_RUN, "N",
     "draw adjudication after N moves of each side within the score (0: off)"},
    {"--draw-score", OPT_INT, FIELD(draw_score), 0, VALUE_MATE, OPT_RUN, "CP",
     "draw adjudication score"},
    {"--bind", OPT_TEXT, FIELD(bind), 0, 0, 0, "ENDPOINT",
     "ZeroMQ endpoint to bind (default tcp://127.0.0.1:5555, tcp://*:5555 with keys or "
     "--open-network; tcp://127.0.0.1:* picks a free port)"},
    {"--out", OPT_PATH, FIELD(out), 0, 0, 0, "FILE",
     "run file; an existing one is resumed with its stored settings (default run.h5)"},
    {"--json", OPT_FLAG, FIELD(json), 0, 0, 0, NULL,
     "JSON lines on stdout: listening, progress, summary"},
    {"--heartbeat-timeout", OPT_DOUBLE, FIELD(heartbeat_timeout), 1, 86400, 0, "S",
     "re-queue the pair of a worker silent for S seconds (default 30)"},
    {"--drain-timeout", OPT_DOUBLE, FIELD(drain_timeout), 0, 86400, 0, "S",
     "after the target, wait at most S seconds to tell workers DONE (default 30)"},
    {"--progress-interval", OPT_DOUBLE, FIELD(progress_interval), 0.1, 86400, 0, "S",
     "seconds between progress lines (default 1)"},
    {"--pgnout", OPT_PATH, FIELD(pgnout), 0, 0, 0, "FILE",
     "write every stored game as PGN to FILE when the run ends"},
    {"--rating-interval", OPT_INT, FIELD(rating_interval), 0, 1000000000, 0, "N",
     "log the match statistics every N stored games"},
    {"--ack-log", OPT_PATH, FIELD(ack_log), 0, 0, 0, "FILE",
     "append a JSON line per game acknowledged, written before the ACK (for fault tests)"},
    {"--curve-secret", OPT_PATH, FIELD(curve_secret), 0, 0, 0, "FILE",
     "CURVE: this coordinator's secret key (chuhe-coordinator keygen); needs --allow-keys"},
    {"--allow-keys", OPT_PATH, FIELD(allow_keys), 0, 0, 0, "FILE",
     "CURVE: the workers' public keys, one per line; SIGHUP reads the file again"},
    {"--open-network", OPT_FLAG, FIELD(open_network), 0, 0, 0, NULL,
     "without keys, bind a non-loopback endpoint anyway (a trusted network only)"},
    {"--max-message", OPT_INT, FIELD(max_message), 256, PROTO_MAX_MESSAGE, 0, "BYTES",
     "a worker sending a longer message is disconnected (default 16384)"},
    {"--max-inflight", OPT_INT, FIELD(max_inflight), 1, COORD_MAX_INFLIGHT_CAP, 0, "N",
     "no new pair for a worker holding N pairs not yet acknowledged (default 8)"},
    {"--rate-limit", OPT_DOUBLE, FIELD(rate_limit), 0, 1e7, 0, "N",
     "messages a second per worker; more are dropped (default 1000, 0: no limit)"},
    {"--rate-burst", OPT_DOUBLE, FIELD(rate_burst), 0, 1e8, 0, "N",
     "messages a worker may send at once (default: two seconds of --rate-limit)"},
/* Engines 2 and up: the per-engine options of red and black under a number. */
/* clang-format off */
#define ENGINE_OPTS(k)                                                                            \
    {"--name-" #k, OPT_TEXT, FIELD(name[k]), 0, 0, OPT_RUN, "NAME", NULL},                     \
        {"--cmd-" #k, OPT_TEXT, FIELD(cmd[k]), 0, 0, OPT_RUN, "CMD", NULL},                    \
        {"--proto-" #k, OPT_TEXT, FIELD(proto[k]), 0, 0, OPT_RUN, "P", NULL},                  \
        {"--options-" #k, OPT_TEXT, FIELD(options[k]), 0, 0, OPT_RUN, "N=V;...", NULL},        \
        {"--dir-" #k, OPT_PATH, FIELD(dir[k]), 0, 0, OPT_RUN, "DIR", NULL},                    \
        {"--weights-" #k, OPT_PATH, FIELD(weights[k]), 0, 0, OPT_RUN, "FILE", NULL},           \
        {"--tc-" #k, OPT_TEXT, FIELD(engine_tc[k]), 0, 0, OPT_RUN, "BASE+INC", NULL},          \
        {"--movetime-" #k, OPT_INT, FIELD(engine_movetime[k]), 0, 3600000, OPT_RUN, "MS", NULL}, \
        {"--nodes-" #k, OPT_U64, FIELD(engine_nodes[k]), 0, 4e9, OPT_RUN, "N", NULL},          \
        {"--depth-" #k, OPT_INT, FIELD(engine_depth[k]), 0, MAX_PLY, OPT_RUN, "N", NULL}
    ENGINE_OPTS(2),  ENGINE_OPTS(3),  ENGINE_OPTS(4),  ENGINE_OPTS(5),  ENGINE_OPTS(6),
    ENGINE_OPTS(7),  ENGINE_OPTS(8),  ENGINE_OPTS(9),  ENGINE_OPTS(10), ENGINE_OPTS(11),
    ENGINE_OPTS(12), ENGINE_OPTS(13), ENGINE_OPTS(14), ENGINE_OPTS(15), ENGINE_OPTS(16),
    ENGINE_OPTS(17), ENGINE_OPTS(18), ENGINE_OPTS(19), ENGINE_OPTS(20), ENGINE_OPTS(21),
    ENGINE_OPTS(22), ENGINE_OPTS(23), ENGINE_OPTS(24), ENGINE_OPTS(25), ENGINE_OPTS(26),
    ENGINE_OPTS(27), ENGINE_OPTS(28), ENGINE_OPTS(29), ENGINE_OPTS(30), ENGINE_OPTS(31),
#undef ENGINE_OPTS
    /* clang-format on */
};
_Static_assert((int)COORD_MAX_ENGINES == 32, "ENGINE_OPTS lists engines 2..31");

#undef FIELD

enum { NOPTS = sizeof OPTS / sizeof OPTS[0] };
_Static_assert((int)NOPTS <= (int)COORD_OPTS_MAX, "CoordGiven is too small");

static bool fail(CoordError *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool fail(CoordError *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return false;
}

void coord_config_defaults(CoordConfig *c)
{
    memset(c, 0, sizeof *c);
    c->games = COORD_DEFAULT_GAMES;
    c->engines = 2;
    c->hash_mb = ENGINE_HASH_DEFAULT_MB;
    c->random_plies = COORD_DEFAULT_RANDOM_PLIES;
    c->max_plies = COORD_DEFAULT_MAX_PLIES;
    c->timemargin = 100;
    snprintf(c->out, sizeof c->out, "run.h5");
    c->heartbeat_timeout = 30;
    c->drain_timeout = 30;
    c->progress_interval = 1;
    c->max_message = PROTO_MAX_MESSAGE;
    c->max_inflight = COORD_DEFAULT_MAX_INFLIGHT;
    c->rate_limit = COORD_DEFAULT_RATE_LIMIT;
}

/* The engine N of an option "--X-N" (N >= 2); 0 for the other options. */
static int opt_engine(const Opt *o)
{
    return o->help ? 0 : atoi(strrchr(o->name, '-') + 1);
}

static void *field(CoordConfig *c, const Opt *o)
{
    return (char *)c + o->offset;
}

static const void *cfield(const CoordConfig *c, const Opt *o)
{
    return (const char *)c + o->offset;
}

/* The JSON key of a run setting: "--random-plies" -> "random_plies". */
static void json_key(const Opt *o, char *buf, size_t size)
{
    snprintf(buf, size, "%s", o->name + 2);
    for (char *p = buf; *p; p++)
        if (*p == '-')
            *p = '_';
}

/* Sets an option from its text; the message names the option. */
static bool set_value(CoordConfig *c, const Opt *o, const char *text, CoordError *err)
{
    char *end = NULL;
    errno = 0;
    switch (o->kind) {
    case OPT_U64: {
        if (text[0] == '-')
            return fail(err, "%s: '%s' is not a number >= 0", o->name, text);
        unsigned long long v = strtoull(text, &end, 10);
        if (errno || end == text || *end || (double)v < o->min || (double)v > o->max)
            return fail(err, "%s: '%s' is not a number in %.0f..%.0f", o->name, text, o->min,
                        o->max);
        *(uint64_t *)field(c, o) = v;
        return true;
    }
    case OPT_INT: {
        long v = strtol(text, &end, 10);
        if (errno || end == text || *end || v < o->min || v > o->max)
            return fail(err, "%s: '%s' is not a number in %.0f..%.0f", o->name, text, o->min,
                        o->max);
        *(int *)field(c, o) = (int)v;
        return true;
    }
    case OPT_DOUBLE: {
        double v = strtod(text, &end);
        if (errno || end == text || *end || !(v >= o->min && v <= o->max))
            return fail(err, "%s: '%s' is not a number in %g..%g", o->name, text, o->min, o->max);
        *(double *)field(c, o) = v;
        return true;
    }
    case OPT_PATH:
    case OPT_TEXT:
        if (strlen(text) >= o->size)
            return fail(err, "%s: longer than %zu bytes", o->name, o->size - 1);
        for (const char *p = text; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                return fail(err, "%s: control character in '%s'", o->name, text);
        snprintf(field(c, o), o->size, "%s", text);
        return true;
    case OPT_FLAG:
        *(bool *)field(c, o) = true;
        return true;
    }
    return fail(err, "%s: unknown option kind", o->name);
}

static const Opt *opt_by_name(const char *name)
{
    for (int i = 0; i < NOPTS; i++)
        if (!strcmp(OPTS[i].name, name))
            return &OPTS[i];
    return NULL;
}

bool coord_config_parse(CoordConfig *c, CoordGiven *given, int argc, char **argv, CoordError *err)
{
    memset(given, 0, sizeof *given);
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        size_t namelen = eq ? (size_t)(eq - arg) : strlen(arg);
        int k = -1;
        for (int j = 0; j < NOPTS; j++)
            if (strlen(OPTS[j].name) == namelen && !strncmp(OPTS[j].name, arg, namelen))
                k = j;
        if (k < 0)
            return fail(err, "unknown option '%s' (see --help)", arg);
        const Opt *o = &OPTS[k];
        const char *value;
        if (o->kind == OPT_FLAG) {
            if (eq)
                return fail(err, "%s takes no value", o->name);
            value = "";
        } else if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            return fail(err, "%s needs a value (%s)", o->name, o->arg);
        }
        if (o->flags & OPT_BOTH) {
            /* --weights FILE is --weights-red FILE --weights-black FILE */
            const Opt *both[2] = {opt_by_name("--weights-red"), opt_by_name("--weights-black")};
            for (int s = 0; s < 2; s++) {
                if (!set_value(c, both[s], value, err))
                    return false;
                given->given[both[s] - OPTS] = true;
            }
            continue;
        }
        if (!set_value(c, o, value, err))
            return false;
        given->given[k] = true;
    }
    return true;
}

static bool was_given(const CoordGiven *g, const char *name)
{
    const Opt *o = opt_by_name(name);
    return o && g->given[o - OPTS];
}

/* Makes a path absolute, so that workers started elsewhere find the same file. */
static bool absolute(char *path, size_t size, const char *what, CoordError *err)
{
    if (!path[0])
        return true;
    char *real = realpath(path, NULL);
    if (!real)
        return fail(err, "%s '%s': %s", what, path, strerror(errno));
    bool fits = strlen(real) < size;
    if (fits)
        snprintf(path, size, "%s", real);
    free(real);
    return fits ? true : fail(err, "%s '%s': the absolute path is too long", what, path);
}

static uint64_t random_seed(void)
{
    uint64_t s = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &s, sizeof s) != (ssize_t)sizeof s)
            s = 0;
        close(fd);
    }
    if (!s) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        s = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)ts.tv_sec ^
            (uint64_t)getpid() << 32;
    }
    return s;
}

bool coord_parse_tc(const char *text, uint32_t *base_ms, uint32_t *inc_ms)
{
    *base_ms = *inc_ms = 0;
    if (!text[0])
        return true;
    char *end;
    errno = 0;
    double base = strtod(text, &end), inc = 0;
    if (errno || end == text || !(base > 0 && base <= 86400))
        return false;
    if (*end == '+') {
        const char *p = end + 1;
        inc = strtod(p, &end);
        if (errno || end == p || !(inc >= 0 && inc <= 3600))
            return false;
    }
    if (*end)
        return false;
    *base_ms = (uint32_t)(base * 1000 + 0.5);
    *inc_ms = (uint32_t)(inc * 1000 + 0.5);
    return *base_ms > 0;
}

bool coord_parse_sprt(const char *text, SprtParams *p, bool *has, CoordError *err)
{
    sprt_params_default(p);
    *has = text[0] != '\0';
    if (!*has)
        return true;
    StatsError serr;
    if (!sprt_parse_text(text, p, &serr))
        return fail(err, "--sprt: %s", serr.msg);
    return true;
}

const char *coord_engine_suffix(int e, char buf[16])
{
    if (e == 0)
        return "red";
    if (e == 1)
        return "black";
    snprintf(buf, 16, "%d", e);
    return buf;
}

void coord_engine_limits(const CoordConfig *c, int e, CoordLimits *out)
{
    bool own_time = c->engine_tc[e][0] || c->engine_movetime[e];
    const char *tc = own_time ? c->engine_tc[e] : c->tc;
    out->movetime = own_time ? c->engine_movetime[e] : c->movetime;
    out->nodes = c->engine_nodes[e] ? c->engine_nodes[e] : c->nodes;
    out->depth = c->engine_depth[e] ? c->engine_depth[e] : c->depth;
    if (!coord_parse_tc(tc, &out->tc_base_ms, &out->tc_inc_ms))
        out->tc_base_ms = out->tc_inc_ms = 0; /* refused by check() */
}

static bool has_limit(const CoordLimits *l)
{
    return l->nodes || l->depth || l->movetime || l->tc_base_ms;
}

/* Whether engine e has any setting of its own (for engines beyond the run's count). */
static bool engine_set(const CoordConfig *c, int e)
{
    return c->name[e][0] || c->cmd[e][0] || c->proto[e][0] || c->options[e][0] || c->dir[e][0] ||
           c->weights[e][0] || c->engine_tc[e][0] || c->engine_movetime[e] || c->engine_nodes[e] ||
           c->engine_depth[e];
}

/* Range checks that involve several options. */
static bool check(const CoordConfig *c, CoordError *err)
{
    SprtParams sp;
    bool has_sprt;
    if (!coord_parse_sprt(c->sprt, &sp, &has_sprt, err))
        return false;
    if (has_sprt && c->engines != 2)
        return fail(err,
                    "--sprt needs exactly two engines; this run has %d (a round robin or "
                    "gauntlet has no single test to decide)",
                    c->engines);
    TourKind kind;
    if (c->tournament[0] && !tournament_kind_parse(c->tournament, &kind))
        return fail(err, "--tournament: '%s' is not roundrobin or gauntlet", c->tournament);
    uint32_t base, inc;
    if (!coord_parse_tc(c->tc, &base, &inc))
        return fail(err, "--tc: '%s' is not BASE+INC in seconds (e.g. 10+0.1)", c->tc);
    for (int p = 0; p < COORD_MAX_ENGINES; p++) {
        char buf[16];
        const char *sfx = coord_engine_suffix(p, buf);
        if (p >= c->engines) {
            if (engine_set(c, p))
                return fail(err, "engine %d (--*-%s) is set, but the run has %d engines", p, sfx,
                            c->engines);
            continue;
        }
        ProtoExtProtocol proto;
        if (c->proto[p][0] && !proto_ext_protocol_parse(c->proto[p], &proto))
            return fail(err, "--proto-%s: '%s' is not uci, uci1, ucci or xboard", sfx,
                        c->proto[p]);
        if (c->cmd[p][0] && c->weights[p][0])
            return fail(err, "player %d: an external engine (--cmd-%s) has no weights", p, sfx);
        if (!c->cmd[p][0] && (c->proto[p][0] || c->options[p][0] || c->dir[p][0]))
            return fail(err, "player %d: protocol, options and directory need --cmd-%s", p, sfx);
        if (!coord_parse_tc(c->engine_tc[p], &base, &inc))
            return fail(err, "--tc-%s: '%s' is not BASE+INC in seconds (e.g. 10+0.1)", sfx,
                        c->engine_tc[p]);
        CoordLimits lim;
        coord_engine_limits(c, p, &lim);
        if (!has_limit(&lim))
            return fail(err,
                        "no search limit for player %d: give --nodes, --depth, --movetime or "
                        "--tc (or its own --nodes-%s ...)",
                        p, sfx);
        if (c->proto[p][0] && proto == PROTO_EXT_XBOARD && lim.nodes)
            return fail(err,
                        "player %d: xboard engines have no exact node limit: give a clock "
                        "(tc), a move time (st) or a depth instead of nodes",
                        p);
    }
    if (c->resign_moves && c->resign_score < 1)
        return fail(err, "--resign-moves needs --resign-score of at least 1");
    if (c->openings[0] && c->opening_max_score)
        return fail(err, "--opening-max-score applies to random openings, not to --openings");
    if (c->opening_format[0] && strcmp(c->opening_format, "epd") &&
        strcmp(c->opening_format, "pgn"))
        return fail(err, "--opening-format: '%s' is not epd or pgn", c->opening_format);
    if (c->opening_order[0] && strcmp(c->opening_order, "sequential") &&
        strcmp(c->opening_order, "random"))
        return fail(err, "--opening-order: '%s' is not sequential or random", c->opening_order);
    if (!c->openings[0] &&
        (c->opening_format[0] || c->opening_order[0] || c->opening_start || c->opening_plies))
        return fail(err, "--opening-format, -order, -start and -plies need --openings");
    if (c->games > (uint64_t)1 << 40)
        return fail(err, "--games: too many");
    if (c->max_message < coord_worker_message_max(c->max_plies))
        return fail(err,
                    "--max-message %d is below the longest message a worker sends in this run "
                    "(%d bytes: a game of %d plies)",
                    c->max_message, coord_worker_message_max(c->max_plies), c->max_plies);
    return true;
}

int coord_worker_message_max(int max_plies)
{
    /* GAME: run_id, pair_id, game_in_pair, worker_rank, str start_fen, u16 nplies, the
     * plies, outcome, reason */
    int game =
        PROTO_HEADER_SIZE + 8 + 8 + 1 + 4 + 2 + PROTO_FEN_MAX + 2 + max_plies * PROTO_PLY_SIZE + 2;
    int error = PROTO_HEADER_SIZE + 2 + PROTO_TEXT_MAX;
    int hello = PROTO_HEADER_SIZE + 12 + 2 + PROTO_HOST_MAX + 2 + PROTO_VERSION_MAX;
    int most = game > error ? game : error;
    return most > hello ? most : hello;
}

/* The host of a tcp:// endpoint: "127.0.0.1" of "tcp://127.0.0.1:5555", "::1" of
 * "tcp://[::1]:5555"; false when there is none. */
static bool tcp_host(const char *endpoint, char *host, size_t size)
{
    if (strncmp(endpoint, "tcp://", 6))
        return false;
    const char *h = endpoint + 6;
    const char *semi = strchr(h, ';'); /* a source address comes first: "src;dst" */
    if (semi)
        h = semi + 1;
    size_t n;
    if (*h == '[') {
        const char *close = strchr(h, ']');
        if (!close)
            return false;
        h++;
        n = (size_t)(close - h);
    } else {
        const char *colon = strrchr(h, ':');
        n = colon ? (size_t)(colon - h) : strlen(h);
    }
    if (n >= size)
        return false;
    memcpy(host, h, n);
    host[n] = '\0';
    return true;
}

bool coord_endpoint_is_local(const char *endpoint)
{
    if (!strncmp(endpoint, "ipc://", 6) || !strncmp(endpoint, "inproc://", 9))
        return true;
    char host[COORD_ENDPOINT_MAX];
    if (!tcp_host(endpoint, host, sizeof host))
        return false;
    if (!strcmp(host, "localhost") || !strcmp(host, "::1") || !strcmp(host, "lo"))
        return true;
    /* 127.0.0.0/8, written as four decimal numbers */
    unsigned a, b, c2, d;
    char extra;
    return sscanf(host, "%u.%u.%u.%u%c", &a, &b, &c2, &d, &extra) == 4 && a == 127 && b < 256 &&
           c2 < 256 && d < 256;
}

bool coord_config_check_network(CoordConfig *c, CoordError *err)
{
    bool curve = c->curve_secret[0] != '\0';
    if (curve != (c->allow_keys[0] != '\0'))
        return fail(err, "--curve-secret and --allow-keys go together: the coordinator's own "
                         "key and the keys of the workers it lets in");
    if (!c->bind[0])
        snprintf(c->bind, sizeof c->bind, "%s",
                 curve || c->open_network ? COORD_DEFAULT_BIND_OPEN : COORD_DEFAULT_BIND_LOCAL);
    if (!curve && !c->open_network && !coord_endpoint_is_local(c->bind))
        return fail(err,
                    "--bind %s: without keys a coordinator binds only loopback endpoints "
                    "(tcp://127.0.0.1:PORT, tcp://[::1]:PORT, ipc://...), since anyone who "
                    "reaches it could take work and store games; give --curve-secret and "
                    "--allow-keys (see chuhe-coordinator keygen), or --open-network on a "
                    "trusted network",
                    c->bind);
    return true;
}

/* Makes every path setting absolute. */
static bool absolute_paths(CoordConfig *c, CoordError *err)
{
    if (!absolute(c->openings, sizeof c->openings, "--openings", err))
        return false;
    for (int p = 0; p < COORD_MAX_ENGINES; p++) {
        char buf[16], what[32];
        const char *sfx = coord_engine_suffix(p, buf);
        snprintf(what, sizeof what, "--weights-%s", sfx);
        if (!absolute(c->weights[p], sizeof c->weights[p], what, err))
            return false;
        snprintf(what, sizeof what, "--dir-%s", sfx);
        if (!absolute(c->dir[p], sizeof c->dir[p], what, err))
            return false;
    }
    return true;
}

bool coord_config_finish_new(CoordConfig *c, const CoordGiven *given, CoordError *err)
{
    bool any_limit = c->nodes || c->depth || c->movetime || c->tc[0];
    for (int p = 0; p < c->engines && p < COORD_MAX_ENGINES; p++)
        any_limit |=
            c->engine_tc[p][0] || c->engine_movetime[p] || c->engine_nodes[p] || c->engine_depth[p];
    if (!any_limit)
        c->nodes = COORD_DEFAULT_NODES;
    if (!was_given(given, "--seed"))
        c->seed = random_seed();
    if (c->engines > 2 && !c->tournament[0])
        snprintf(c->tournament, sizeof c->tournament, "roundrobin");
    if (!absolute_paths(c, err))
        return false;
    return check(c, err);
}

/* ---- JSON ---- */

static bool append(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len >= size)
        return false;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size - *len)
        return false;
    *len += (size_t)n;
    return true;
}

bool coord_json_string(char *buf, size_t size, size_t *len, const char *s)
{
    if (*len >= size)
        return false;
    size_t n = jsontext_string(buf + *len, size - *len, s);
    if (n >= size - *len)
        return false;
    *len += n;
    return true;
}

bool coord_config_to_json(const CoordConfig *c, char *buf, size_t size)
{
    size_t len = 0;
    if (!append(buf, size, &len, "{\"format\":\"%s\"", COORD_CONFIG_FORMAT))
        return false;
    for (int i = 0; i < NOPTS; i++) {
        const Opt *o = &OPTS[i];
        if (!(o->flags & OPT_RUN) || (o->flags & OPT_BOTH) || opt_engine(o) >= c->engines)
            continue;
        char key[64];
        json_key(o, key, sizeof key);
        bool ok = append(buf, size, &len, ",\"%s\":", key);
        const void *p = cfield(c, o);
        switch (o->kind) {
        case OPT_U64:
            ok = ok && append(buf, size, &len, "%" PRIu64, *(const uint64_t *)p);
            break;
        case OPT_INT:
            ok = ok && append(buf, size, &len, "%d", *(const int *)p);
            break;
        case OPT_PATH:
        case OPT_TEXT:
            ok = ok && coord_json_string(buf, size, &len, p);
            break;
        default:
            ok = false;
        }
        if (!ok)
            return false;
    }
    return append(buf, size, &len, "}");
}

/*
 * A reader for the flat objects coord_config_to_json writes: string and integer values
 * only. Unknown keys are an error, so that a file from a newer coordinator is not
 * silently resumed with settings missing.
 */
typedef struct {
    const char *p;
    CoordError *err;
} Json;

static void skip_ws(Json *j)
{
    while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
        j->p++;
}

static bool json_string(Json *j, char *out, size_t size)
{
    if (*j->p != '"')
        return fail(j->err, "run_config: expected a string at '%.20s'", j->p);
    j->p++;
    size_t n = 0;
    while (*j->p != '"') {
        unsigned c = (unsigned char)*j->p;
        if (!c)
            return fail(j->err, "run_config: unterminated string");
        j->p++;
        if (c == '\\') {
            char e = *j->p++;
            if (e == 'u') {
                unsigned v = 0;
                for (int k = 0; k < 4; k++) {
                    char h = *j->p++;
                    int d = h >= '0' && h <= '9'   ? h - '0'
                            : h >= 'a' && h <= 'f' ? h - 'a' + 10
                            : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                   : -1;
                    if (d < 0)
                        return fail(j->err, "run_config: bad \\u escape");
                    v = v * 16 + (unsigned)d;
                }
                if (v > 0x7f)
                    return fail(j->err, "run_config: \\u escape beyond ASCII");
                c = v;
            } else if (e == '"' || e == '\\' || e == '/') {
                c = (unsigned char)e;
            } else if (e == 'n' || e == 't' || e == 'r') {
                c = e == 'n' ? '\n' : e == 't' ? '\t' : '\r';
            } else {
                return fail(j->err, "run_config: bad escape '\\%c'", e);
            }
        }
        if (n + 1 >= size)
            return fail(j->err, "run_config: string too long");
        out[n++] = (char)c;
    }
    j->p++;
    out[n] = '\0';
    return true;
}

static bool json_number(Json *j, char *out, size_t size)
{
    size_t n = 0;
    while ((*j->p >= '0' && *j->p <= '9') || *j->p == '-') {
        if (n + 1 >= size)
            return fail(j->err, "run_config: number too long");
        out[n++] = *j->p++;
    }
    out[n] = '\0';
    return n > 0 ? true : fail(j->err, "run_config: expected a value at '%.20s'", j->p);
}

static const Opt *run_opt_by_key(const char *key)
{
    for (int i = 0; i < NOPTS; i++) {
        const Opt *o = &OPTS[i];
        if (!(o->flags & OPT_RUN) || (o->flags & OPT_BOTH))
            continue;
        char k[64];
        json_key(o, k, sizeof k);
        if (!strcmp(k, key))
            return o;
    }
    return NULL;
}

static bool parse_stored(CoordConfig *c, const char *text, CoordError *err)
{
    Json j = {text, err};
    bool format_seen = false;
    skip_ws(&j);
    if (*j.p++ != '{')
        return fail(err, "run_config is not a JSON object");
    skip_ws(&j);
    if (*j.p == '}')
        return fail(err, "run_config is empty");
    for (;;) {
        char key[64], value[COORD_PATH_MAX + 64];
        skip_ws(&j);
        if (!json_string(&j, key, sizeof key))
            return false;
        skip_ws(&j);
        if (*j.p++ != ':')
            return fail(err, "run_config: expected ':' after \"%s\"", key);
        skip_ws(&j);
        bool quoted = *j.p == '"';
        if (!(quoted ? json_string(&j, value, sizeof value) : json_number(&j, value, sizeof value)))
            return false;
        if (!strcmp(key, "format")) {
            if (strcmp(value, COORD_CONFIG_FORMAT))
                return fail(err, "run_config: format '%s', expected '%s'", value,
                            COORD_CONFIG_FORMAT);
            format_seen = true;
        } else {
            const Opt *o = run_opt_by_key(key);
            if (!o)
                return fail(err, "run_config: unknown setting \"%s\"", key);
            bool is_text = o->kind == OPT_PATH || o->kind == OPT_TEXT;
            if (quoted != is_text)
                return fail(err, "run_config: \"%s\" has the wrong type", key);
            CoordError e2;
            if (!set_value(c, o, value, &e2))
                return fail(err, "run_config: %s", e2.msg);
        }
        skip_ws(&j);
        if (*j.p == ',') {
            j.p++;
            continue;
        }
        if (*j.p++ != '}')
            return fail(err, "run_config: expected ',' or '}'");
        break;
    }
    skip_ws(&j);
    if (*j.p)
        return fail(err, "run_config: text after the object");
    return format_seen ? true : fail(err, "run_config: no format key (not a chuhe run file?)");
}

/* The option's value as text, for messages. */
static void value_text(const CoordConfig *c, const Opt *o, char *buf, size_t size)
{
    const void *p = cfield(c, o);
    switch (o->kind) {
    case OPT_U64:
        snprintf(buf, size, "%" PRIu64, *(const uint64_t *)p);
        break;
    case OPT_INT:
        snprintf(buf, size, "%d", *(const int *)p);
        break;
    case OPT_PATH:
    case OPT_TEXT:
        snprintf(buf, size, "'%s'", (const char *)p);
        break;
    default:
        snprintf(buf, size, "?");
    }
}

/* The command line's run settings (cmd, paths made absolute) against the stored ones;
 * on success c gets the stored run settings (and the resumable ones of cmd). */
static bool resume_check(CoordConfig *c, const CoordGiven *given, const CoordConfig *cmd,
                         CoordConfig *stored, CoordError *err)
{
    for (int i = 0; i < NOPTS; i++) {
        const Opt *o = &OPTS[i];
        if (!(o->flags & OPT_RUN) || !given->given[i] || (o->flags & OPT_BOTH))
            continue;
        bool same = !memcmp(cfield(cmd, o), cfield(stored, o), o->size);
        if (o->kind == OPT_PATH || o->kind == OPT_TEXT)
            same = !strcmp(cfield(cmd, o), cfield(stored, o));
        if (o->flags & OPT_RESUMABLE)
            memcpy(field(stored, o), cfield(cmd, o), o->size);
        else if (!same) {
            char was[COORD_PATH_MAX + 8], now[COORD_PATH_MAX + 8];
            value_text(stored, o, was, sizeof was);
            value_text(cmd, o, now, sizeof now);
            return fail(err,
                        "%s %s differs from the run's stored %s: a run keeps its settings (only "
                        "--games may change); leave the option out or start a new --out file",
                        o->name, now, was);
        }
    }
    /* Session settings stay the command line's. */
    for (int i = 0; i < NOPTS; i++) {
        const Opt *o = &OPTS[i];
        if (o->flags & OPT_RUN)
            memcpy(field(c, o), cfield(stored, o), o->size);
    }
    return check(c, err);
}

bool coord_config_resume(CoordConfig *c, const CoordGiven *given, const char *json, CoordError *err)
{
    /* two more configurations: too large for a small stack */
    CoordConfig *stored = malloc(sizeof *stored), *cmd = malloc(sizeof *cmd);
    if (!stored || !cmd) {
        free(stored);
        free(cmd);
        return fail(err, "out of memory");
    }
    coord_config_defaults(stored);
    *cmd = *c;
    bool ok = parse_stored(stored, json, err) && absolute_paths(cmd, err) &&
              resume_check(c, given, cmd, stored, err);
    free(cmd);
    free(stored);
    return ok;
}

void coord_config_usage(FILE *f)
{
    for (int i = 0; i < NOPTS; i++) {
        const Opt *o = &OPTS[i];
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
