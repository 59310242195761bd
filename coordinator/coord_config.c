#include "coord_config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "coord_options.h"
#include "coord_runconfig.h"
#include "engine.h"
#include "error.h"
#include "numparse.h"
#include "contracts/outpath.h"
#include "rng.h"
#include "coord_spsa.h"
#include "coord_tournament.h"

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

bool coord_config_parse(CoordConfig *c, CoordGiven *given, int argc, char **argv, CoordError *err)
{
    return coord_options_parse(c, given, argc, argv, err);
}

/* Makes a path absolute, so that workers started elsewhere find the same file. */
static bool absolute(char *path, size_t size, const char *what, CoordError *err)
{
    if (!path[0])
        return true;
    char *real = realpath(path, NULL);
    if (!real)
        return ERROR_SET(err, "%s '%s': %s", what, path, strerror(errno));
    bool fits = strlen(real) < size;
    if (fits)
        snprintf(path, size, "%s", real);
    free(real);
    return fits ? true : ERROR_SET(err, "%s '%s': the absolute path is too long", what, path);
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
        s = rng_at((uint64_t)ts.tv_sec ^ (uint64_t)getpid() << 32, (uint64_t)ts.tv_nsec + 1);
    }
    return s;
}

bool coord_config_parse_sprt(const char *text, SprtParams *p, bool *has, CoordError *err)
{
    sprt_params_default(p);
    *has = text[0] != '\0';
    if (!*has)
        return true;
    StatsError serr;
    if (!sprt_parse_text(text, p, &serr)) /* most of its messages start "-sprt: " */
        return ERROR_SET(err, "--sprt: %s", serr.msg + (strncmp(serr.msg, "-sprt: ", 7) ? 0 : 7));
    return true;
}

const char *coord_config_engine_suffix(int e, char buf[16])
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
    bool own_time = c->engine_tc[e].base_ms || c->engine_movetime[e];
    const CliTimeControl *tc = own_time ? &c->engine_tc[e] : &c->tc;
    out->movetime = own_time ? c->engine_movetime[e] : c->movetime;
    out->nodes = c->engine_nodes[e] ? c->engine_nodes[e] : c->nodes;
    out->depth = c->engine_depth[e] ? c->engine_depth[e] : c->depth;
    out->tc_base_ms = tc->base_ms;
    out->tc_inc_ms = tc->inc_ms;
}

static bool has_limit(const CoordLimits *l)
{
    return l->nodes || l->depth || l->movetime || l->tc_base_ms;
}

/* Whether engine e has any setting of its own (for engines beyond the run's count). */
static bool engine_set(const CoordConfig *c, int e)
{
    return c->name[e][0] || c->cmd[e][0] || c->proto[e][0] || c->options[e][0] || c->dir[e][0] ||
           c->weights[e][0] || c->engine_tc[e].base_ms || c->engine_movetime[e] ||
           c->engine_nodes[e] || c->engine_depth[e];
}

/* Whether an option list holds Ponder=true (the worker then ponders: extuci.c). */
static bool asks_ponder(const char *options)
{
    for (const char *p = options; *p; p += strcspn(p, ";"), p += *p == ';')
        if (!strncasecmp(p, "Ponder=true", 11) && (p[11] == ';' || !p[11]))
            return true;
    return false;
}

/* The checks of engine p: its protocol, command and limits; an engine beyond the run's
 * count must have no settings at all. */
static bool check_engine(const CoordConfig *c, int p, CoordError *err)
{
    char buf[16];
    const char *sfx = coord_config_engine_suffix(p, buf);
    if (p >= c->engines) {
        if (engine_set(c, p))
            return ERROR_SET(err, "engine %d (--*-%s) is set, but the run has %d engines", p, sfx,
                             c->engines);
        return true;
    }
    ProtoExtProtocol proto;
    if (c->proto[p][0] && !proto_ext_protocol_parse(c->proto[p], &proto))
        return ERROR_SET(err, "--proto-%s: '%s' is not uci, uci1, ucci or xboard", sfx,
                         c->proto[p]);
    if (c->cmd[p][0] && c->weights[p][0])
        return ERROR_SET(err, "player %d: an external engine (--cmd-%s) has no weights", p, sfx);
    if (!c->cmd[p][0] && (c->proto[p][0] || c->dir[p][0]))
        return ERROR_SET(err, "player %d: protocol and directory need --cmd-%s", p, sfx);
    int threads;
    char msg[sizeof err->msg - 40];
    if (!c->cmd[p][0] && !proto_builtin_options(c->options[p], &threads, msg, sizeof msg))
        return ERROR_SET(err, "--options-%s: %s", sfx, msg);
    CoordLimits lim;
    coord_engine_limits(c, p, &lim);
    if (!has_limit(&lim))
        return ERROR_SET(err,
                         "no search limit for player %d: give --nodes, --depth, --movetime or "
                         "--tc (or its own --nodes-%s ...)",
                         p, sfx);
    if (c->proto[p][0] && proto == PROTO_EXT_XBOARD && asks_ponder(c->options[p]))
        return ERROR_SET(err,
                         "player %d: the worker ponders with uci, uci1 and ucci engines only: "
                         "leave ponder (option.Ponder) out for an xboard engine",
                         p);
    if (c->proto[p][0] && proto == PROTO_EXT_XBOARD && lim.nodes)
        return ERROR_SET(err,
                         "player %d: xboard engines have no exact node limit: give a clock "
                         "(tc), a move time (st) or a depth instead of nodes",
                         p);
    return true;
}

/* Range checks that involve several options. */
static bool check(const CoordConfig *c, CoordError *err)
{
    SprtParams sp;
    bool has_sprt;
    if (!coord_config_parse_sprt(c->sprt, &sp, &has_sprt, err))
        return false;
    if (!coord_spsa_check_config(c, err))
        return false;
    if (has_sprt && c->engines != 2)
        return ERROR_SET(err,
                         "--sprt needs exactly two engines; this run has %d (a round robin or "
                         "gauntlet has no single test to decide)",
                         c->engines);
    TourKind kind;
    if (c->tournament[0] && !coord_tournament_kind_parse(c->tournament, &kind))
        return ERROR_SET(err, "--tournament: '%s' is not roundrobin or gauntlet", c->tournament);
    for (int p = 0; p < COORD_MAX_ENGINES; p++)
        if (!check_engine(c, p, err))
            return false;
    if (c->resign_moves && c->resign_score < 1)
        return ERROR_SET(err, "--resign-moves needs --resign-score of at least 1");
    if (c->openings[0] && c->opening_max_score)
        return ERROR_SET(err, "--opening-max-score applies to random openings, not to --openings");
    if (c->opening_format[0] && strcmp(c->opening_format, "epd") &&
        strcmp(c->opening_format, "pgn"))
        return ERROR_SET(err, "--opening-format: '%s' is not epd or pgn", c->opening_format);
    if (c->opening_order[0] && strcmp(c->opening_order, "sequential") &&
        strcmp(c->opening_order, "random"))
        return ERROR_SET(err, "--opening-order: '%s' is not sequential or random",
                         c->opening_order);
    if (c->opening_policy[0] && strcmp(c->opening_policy, "pair") &&
        strcmp(c->opening_policy, "round"))
        return ERROR_SET(err, "--opening-policy: '%s' is not pair or round", c->opening_policy);
    if (!c->openings[0] &&
        (c->opening_format[0] || c->opening_order[0] || c->opening_start || c->opening_plies))
        return ERROR_SET(err, "--opening-format, -order, -start and -plies need --openings");
    if (c->games > (uint64_t)1 << 40)
        return ERROR_SET(err, "--games: too many");
    if (c->max_message < coord_worker_message_max(c->max_plies))
        return ERROR_SET(err,
                         "--max-message %d is below the longest message a worker sends in this run "
                         "(%d bytes: a game of %d plies)",
                         c->max_message, coord_worker_message_max(c->max_plies), c->max_plies);
    return true;
}

bool coord_config_check_outputs(const CoordConfig *c, CoordError *err)
{
    /* what the run reads: openings, weights, keys; then the run file itself */
    const char *inputs[COORD_MAX_ENGINES + 4];
    int n = 0;
    inputs[n++] = c->openings;
    inputs[n++] = c->curve_secret;
    inputs[n++] = c->allow_keys;
    for (int p = 0; p < c->engines && p < COORD_MAX_ENGINES; p++)
        inputs[n++] = c->weights[p];
    char *msg = err ? err->msg : NULL;
    size_t size = err ? sizeof err->msg : 0;
    struct stat st;
    if (stat(c->out, &st) != 0) {
        if (!outpath_check("--out", c->out, OUTPATH_REPLACE, false, inputs, n, msg, size))
            return false;
    } else if (S_ISDIR(st.st_mode)) {
        return ERROR_SET(err, "--out %s: is a folder (give a file name)", c->out);
    } else if (!outpath_is_hdf5(c->out)) {
        return ERROR_SET(err,
                         "--out %s: the file exists and is not a run file (an existing run file "
                         "is resumed; any other file is never written over): give another file",
                         c->out);
    } else {
        for (int i = 0; i < n; i++)
            if (inputs[i][0] && outpath_same(c->out, inputs[i]))
                return ERROR_SET(err, "--out %s: is also an input of this run (%s)", c->out,
                                 inputs[i]);
    }
    inputs[n++] = c->out;
    if (c->pgnout[0] &&
        !outpath_check("-pgnout", c->pgnout, OUTPATH_APPEND_PGN, false, inputs, n, msg, size))
        return false;
    if (c->pgnout[0] && c->ack_log[0] && outpath_same(c->pgnout, c->ack_log))
        return ERROR_SET(err, "--ack-log %s: is also the -pgnout file; give another file",
                         c->ack_log);
    return !c->ack_log[0] ||
           outpath_check("--ack-log", c->ack_log, OUTPATH_APPEND_LOG, false, inputs, n, msg, size);
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
    if (!strncmp(endpoint, "ipc://", 6))
        return true;
    char host[COORD_ENDPOINT_MAX];
    if (!tcp_host(endpoint, host, sizeof host))
        return false;
    if (!strcmp(host, "localhost") || !strcmp(host, "::1") || !strcmp(host, "lo"))
        return true;
    /* 127.0.0.0/8, written as four decimal numbers */
    const char *p = host;
    for (int i = 0; i < 4; i++) {
        char part[8];
        long long v;
        size_t n = strcspn(p, ".");
        if (n == 0 || n >= sizeof part || (p[n] == '.') != (i < 3))
            return false;
        memcpy(part, p, n);
        part[n] = '\0';
        if (!numparse_int("host", part, i ? 0 : 127, i ? 255 : 127, &v, NULL, 0))
            return false;
        p += n + 1;
    }
    return true;
}

bool coord_config_check_network(CoordConfig *c, CoordError *err)
{
    bool curve = c->curve_secret[0] != '\0';
    if (curve != (c->allow_keys[0] != '\0'))
        return ERROR_SET(err, "--curve-secret and --allow-keys go together: the coordinator's own "
                              "key and the keys of the workers it lets in");
    if (!c->bind[0])
        snprintf(c->bind, sizeof c->bind, "%s",
                 curve || c->open_network ? COORD_DEFAULT_BIND_OPEN : COORD_DEFAULT_BIND_LOCAL);
    if (strncmp(c->bind, "tcp://", 6) && strncmp(c->bind, "ipc://", 6))
        return ERROR_SET(err,
                         "--bind '%s': give tcp://ADDR:PORT (tcp://127.0.0.1:* picks a free port) "
                         "or ipc://PATH; workers are other processes, which no other transport "
                         "reaches",
                         c->bind);
    /* ZeroMQ binds addresses and interface names, not host names: localhost is loopback */
    if (!strncmp(c->bind, "tcp://localhost:", 16))
        memcpy(c->bind + 6, "127.0.0.1", 9); /* as long as "localhost" */
    if (!curve && !c->open_network && !coord_endpoint_is_local(c->bind))
        return ERROR_SET(err,
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
        const char *sfx = coord_config_engine_suffix(p, buf);
        snprintf(what, sizeof what, "--weights-%s", sfx);
        if (!absolute(c->weights[p], sizeof c->weights[p], what, err))
            return false;
        snprintf(what, sizeof what, "--dir-%s", sfx);
        if (!absolute(c->dir[p], sizeof c->dir[p], what, err))
            return false;
    }
    return true;
}

/* --rounds and --round-games (-rounds, -games) as the game target: every pairing of the
 * run's engines plays that many rounds of that many games. Judged with the engines and
 * the tournament of the run, so that a resumed run counts as it did at its start. */
static bool target_from_rounds(CoordConfig *c, const CoordGiven *given, CoordError *err)
{
    if (!c->rounds && !c->round_games)
        return true;
    if (coord_options_given(given, "--games"))
        return ERROR_SET(err, "--games and -rounds/-games both set the game target: give one");
    TourKind kind = TOUR_ROUNDROBIN;
    if (c->tournament[0] && !coord_tournament_kind_parse(c->tournament, &kind))
        return ERROR_SET(err, "--tournament: '%s' is not roundrobin or gauntlet", c->tournament);
    uint64_t pairings = coord_tournament_pairings(kind, c->engines);
    uint64_t rounds = c->rounds ? c->rounds : 1, games = c->round_games ? c->round_games : 2;
    uint64_t total;
    if (!pairings || __builtin_mul_overflow(rounds, games, &total) ||
        __builtin_mul_overflow(total, pairings, &total) || total > (uint64_t)1 << 40)
        return ERROR_SET(err,
                         "-rounds %" PRIu64 ", -games %" PRIu64 ": too many games for %d engines",
                         rounds, games, c->engines);
    c->games = total;
    return true;
}

bool coord_config_finish_new(CoordConfig *c, const CoordGiven *given, CoordError *err)
{
    bool any_limit = c->nodes || c->depth || c->movetime || c->tc.base_ms;
    for (int p = 0; p < c->engines && p < COORD_MAX_ENGINES; p++)
        any_limit |= c->engine_tc[p].base_ms || c->engine_movetime[p] || c->engine_nodes[p] ||
                     c->engine_depth[p];
    if (!any_limit)
        c->nodes = COORD_DEFAULT_NODES;
    if (!coord_options_given(given, "--seed"))
        c->seed = random_seed();
    if (c->engines > 2 && !c->tournament[0])
        snprintf(c->tournament, sizeof c->tournament, "roundrobin");
    if (!absolute_paths(c, err) || !target_from_rounds(c, given, err) ||
        !coord_spsa_finish_config(c, err))
        return false;
    return check(c, err);
}

bool coord_config_to_json(const CoordConfig *c, char *buf, size_t size)
{
    return coord_runconfig_write(c, buf, size);
}

bool coord_config_stored(CoordConfig *c, const char *json, CoordError *err)
{
    coord_config_defaults(c);
    return coord_runconfig_read(c, json, err) && check(c, err);
}

bool coord_config_resume(CoordConfig *c, const CoordGiven *given, const char *json, CoordError *err)
{
    /* two more configurations: too large for a small stack */
    CoordConfig *stored = malloc(sizeof *stored), *cmd = malloc(sizeof *cmd);
    if (!stored || !cmd) {
        free(stored);
        free(cmd);
        return ERROR_SET(err, "out of memory");
    }
    *cmd = *c;
    bool ok = coord_config_stored(stored, json, err) && absolute_paths(cmd, err) &&
              coord_runconfig_merge(c, given, cmd, stored, err) &&
              target_from_rounds(c, given, err) && check(c, err);
    free(cmd);
    free(stored);
    return ok;
}
