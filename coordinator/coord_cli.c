#include "coord_cli.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"
#include "coord_log.h"
#include "coord_options.h"
#include "coord_tournament.h"
#include "engine.h"
#include "error.h"
#include "numparse.h"

/* An -engine, or -each, as its words give it. */
typedef struct {
    char name[64];
    char cmd[PROTO_COMMAND_MAX + 1];
    char dir[PROTO_COMMAND_MAX + 1];
    char proto[16];
    char options[PROTO_COMMAND_MAX + 1];
    char weights[PROTO_WEIGHTS_MAX + 1];
    bool builtin;
    /* its own limits (time odds), or with -each the run's; 0 or no clock when not given */
    CliTimeControl tc;
    int st_ms;
    uint64_t nodes;
    int depth;
    int timemargin, hash; /* -each only */
} EngineSpec;

/* A command line under way: where the options go, and what the tournament options
 * gathered for the end (the engines, -each, the game count, the tournament). */
typedef struct {
    CoordConfig *c;
    CoordGiven *given;
    char *msg; /* the error */
    size_t size;
    EngineSpec *eng; /* room for COORD_MAX_ENGINES engines, zeroed */
    int nengines;
    EngineSpec each;
    uint64_t rounds, games; /* 0: not given */
    char tournament[16];    /* "": not given */
    bool spsa;              /* -spsa: the one engine plays against itself */
    char spsa_text[COORD_PATH_MAX + 256];
} Translation;

/* Sets long option name from text, named said in messages. */
static bool set_long(Translation *t, const char *name, const char *said, const char *text)
{
    CoordError err;
    if (coord_options_set_said(t->c, t->given, name, said, text, &err))
        return true;
    return error_set(t->msg, t->size, "%s", err.msg);
}

/* ---- the words of -engine and -each ---- */

/* The key table's scopes. */
enum { ENGINE = 1, EACH = 2 };

/* The offset and size of EngineSpec's field f, of type T. */
#define E(f, T)                                                                  \
    offsetof(EngineSpec, f) + 0 * sizeof(_Generic(((EngineSpec *)0)->f, T : 1)), \
        sizeof(((EngineSpec *)0)->f)
#define NOFIELD 0, 0
#define KEY(key, kind, field, min, max, scope, flags, arg)              \
    {                                                                   \
        key, NULL, kind, field, min, max, scope, flags, arg, NULL, NULL \
    }
static const CliOpt ENGINE_KEYS[] = {
    KEY("name", CLIOPT_TEXT, E(name, char *), 0, 0, 0, CLIOPT_NONEMPTY, "N"),
    KEY("cmd", CLIOPT_TEXT, E(cmd, char *), 0, 0, 0, CLIOPT_NONEMPTY, "PROG"),
    KEY("args", CLIOPT_CALL, NOFIELD, 0, 0, 0, CLIOPT_NONEMPTY, "A"),
    KEY("dir", CLIOPT_PATH, E(dir, char *), 0, 0, 0, CLIOPT_NONEMPTY, "D"),
    KEY("proto", CLIOPT_TEXT, E(proto, char *), 0, 0, 0, CLIOPT_NONEMPTY, "P"),
    KEY("weights", CLIOPT_PATH, E(weights, char *), 0, 0, 0, CLIOPT_NONEMPTY, "FILE"),
    KEY("builtin", CLIOPT_FLAG, E(builtin, bool), 0, 0, 0, 0, NULL),
    KEY("ponder", CLIOPT_CALL, NOFIELD, 0, 0, 0, 0, NULL),
    KEY("option.", CLIOPT_CALL, NOFIELD, 0, 0, 0, 0, "X=Y"),
    KEY("tc", CLIOPT_TC, E(tc, CliTimeControl), 0, 0, 0, CLIOPT_NONEMPTY, "B+I"),
    KEY("st", CLIOPT_MS, E(st_ms, int), 0.001, COORD_MOVETIME_MAX / 1000, 0, 0, "S"),
    /* a node count or depth of 0 (no limit to the long options) would be a slip here,
     * which leaves the default limit */
    KEY("nodes", CLIOPT_U64, E(nodes, uint64_t), 1, COORD_NODES_MAX, 0, 0, "N"),
    KEY("depth", CLIOPT_INT, E(depth, int), 1, MAX_PLY, 0, 0, "N"),
    KEY("timemargin", CLIOPT_CALL, NOFIELD, 0, 0, ENGINE, 0, "MS"),
    KEY("timemargin", CLIOPT_INT, E(timemargin, int), 0, 60000, EACH, 0, "MS"),
    KEY("hash", CLIOPT_INT, E(hash, int), 1, ENGINE_HASH_MAX_MB, EACH, 0, "MB"),
};
#undef E
#undef NOFIELD
#undef KEY
enum { NENGINE_KEYS = sizeof ENGINE_KEYS / sizeof ENGINE_KEYS[0] };

/* Appends "Name=Value" to an engine's option list. */
static bool add_option(EngineSpec *e, const char *nv, char *msg, size_t size)
{
    size_t n = strlen(e->options);
    if (n + strlen(nv) + 2 > sizeof e->options)
        return error_set(msg, size, "too many engine options");
    snprintf(e->options + n, sizeof e->options - n, "%s%s", n ? ";" : "", nv);
    return true;
}

/* The keys that are more than a field: args=, ponder, option.X=Y, -engine timemargin=. */
static bool engine_key(void *ctx, const CliOpt *o, const char *label, int n, char **words,
                       char *msg, size_t size)
{
    EngineSpec *e = ctx;
    (void)n;
    if (!strcmp(o->name, "args")) { /* more words of the engine's command */
        size_t len = strlen(e->cmd);
        if (len + strlen(words[0]) + 2 > sizeof e->cmd)
            return error_set(msg, size, "%s: too long", label);
        snprintf(e->cmd + len, sizeof e->cmd - len, " %s", words[0]);
        return true;
    }
    /* cutechess's "ponder": the worker ponders with an engine that has the option */
    if (!strcmp(o->name, "ponder"))
        return add_option(e, "Ponder=true", msg, size);
    if (!strcmp(o->name, "option."))
        return add_option(e, words[0], msg, size);
    return error_set(msg, size, "%s: one margin holds for every engine: give it in -each", label);
}

/* The key table of an -engine (scope ENGINE) or -each (EACH) into e; given[k]: key k
 * given. */
static CliOptSpec engine_spec(EngineSpec *e, unsigned scope, bool given[NENGINE_KEYS])
{
    return (CliOptSpec){.opts = ENGINE_KEYS,
                        .nopts = NENGINE_KEYS,
                        .dest = e,
                        .scope = scope,
                        .call = engine_key,
                        .ctx = e,
                        .given = given};
}

/* ---- the tournament options ---- */

static bool opt_engine(Translation *t, const char *label, int n, char **w)
{
    bool given[NENGINE_KEYS] = {false};
    if (t->nengines == COORD_MAX_ENGINES)
        return error_set(t->msg, t->size, "-engine: at most %d engines", COORD_MAX_ENGINES);
    CliOptSpec s = engine_spec(&t->eng[t->nengines], ENGINE, given);
    if (!cliopt_parse_words(&s, label, n, w, t->msg, t->size))
        return false;
    t->nengines++;
    return true;
}

/* -each: its limits are the run's, given at once; the rest is kept for the engines. */
static bool opt_each(Translation *t, const char *label, int n, char **w)
{
    static const struct {
        const char *key, *option;
    } limits[] = {{"tc", "--tc"},       {"st", "--movetime"},           {"nodes", "--nodes"},
                  {"depth", "--depth"}, {"timemargin", "--timemargin"}, {"hash", "--hash"}};
    bool given[NENGINE_KEYS] = {false};
    EngineSpec *e = &t->each;
    CliOptSpec s = engine_spec(e, EACH, given);
    if (!cliopt_parse_words(&s, label, n, w, t->msg, t->size))
        return false;
    const void *value[] = {&e->tc, &e->st_ms, &e->nodes, &e->depth, &e->timemargin, &e->hash};
    const size_t size[] = {sizeof e->tc,    sizeof e->st_ms,      sizeof e->nodes,
                           sizeof e->depth, sizeof e->timemargin, sizeof e->hash};
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
        char said[32];
        snprintf(said, sizeof said, "-each %s", limits[k].key);
        if (given[cliopt_find(&s, limits[k].key) - ENGINE_KEYS])
            coord_options_put(t->c, t->given, limits[k].option, said, value[k], size[k]);
    }
    return true;
}

/* Key tables whose keys stand for a long option each (data: its name). */
static bool forward(void *ctx, const CliOpt *o, const char *label, int n, char **words, char *msg,
                    size_t size);

#define FWD(key, option, arg)                                       \
    {                                                               \
        key, NULL, CLIOPT_CALL, 0, 0, 0, 0, 0, 0, arg, NULL, option \
    }
static const CliOpt OPENINGS_KEYS[] = {
    FWD("file", "--openings", "F"),           FWD("format", "--opening-format", "epd|pgn"),
    FWD("order", "--opening-order", "ORDER"), FWD("seed", "--seed", "S"),
    FWD("start", "--opening-start", "N"),     FWD("plies", "--opening-plies", "N"),
    FWD("policy", "--opening-policy", "P"),
};
static const CliOpt RESIGN_KEYS[] = {
    FWD("movecount", "--resign-moves", "N"), FWD("score", "--resign-score", "CP"),
    FWD("twosided", NULL, "BOOL"), /* accepted: resigning is always judged for both */
};
static const CliOpt DRAW_KEYS[] = {
    FWD("movenumber", NULL, "N"), /* moves: --draw-after in plies */
    FWD("movecount", "--draw-moves", "N"),
    FWD("score", "--draw-score", "CP"),
};
static const CliOpt SPSA_KEYS[] = {
    FWD("params", NULL, "F"),   FWD("pairs", NULL, "N"),       FWD("A", NULL, "X"),
    FWD("alpha", NULL, "X"),    FWD("gamma", NULL, "X"),       FWD("window", NULL, "W"),
    FWD("seed", "--seed", "S"), FWD("out", "--spsa-out", "F"), FWD("plot", "--spsa-plot", "F"),
};
#undef FWD

/* A whole number of a tournament option, in the range of the long option it becomes,
 * counted in units of scale of it (-maxmoves N is --max-plies 2N), as that option's
 * text. */
static bool scaled(Translation *t, const char *label, const char *text, const char *longopt,
                   int scale, char out[32])
{
    const CoordOpt *o = coord_options_find(longopt);
    long long v;
    if (!numparse_int(label, text, ((long long)o->min + scale - 1) / scale,
                      (long long)o->max / scale, &v, t->msg, t->size))
        return false;
    snprintf(out, 32, "%lld", v * scale);
    return true;
}

static bool forward(void *ctx, const CliOpt *o, const char *label, int n, char **words, char *msg,
                    size_t size)
{
    Translation *t = ctx;
    (void)n, (void)msg, (void)size;
    if (o->data)
        return set_long(t, o->data, label, words[0]);
    if (!strcmp(o->name, "twosided"))
        return true;
    if (!strcmp(o->name, "movenumber")) {
        char plies[32];
        return scaled(t, label, words[0], "--draw-after", 2, plies) &&
               set_long(t, "--draw-after", label, plies);
    }
    /* the tuning words of -spsa become --spsa */
    size_t len = strlen(t->spsa_text);
    if (len + strlen(o->name) + strlen(words[0]) + 3 > sizeof t->spsa_text)
        return error_set(t->msg, t->size, "-spsa: too long");
    snprintf(t->spsa_text + len, sizeof t->spsa_text - len, "%s%s=%s", len ? " " : "", o->name,
             words[0]);
    return true;
}

/* The words of option label read by key table keys[0..nkeys-1]; given[k]: key k given. */
static bool key_words(Translation *t, const CliOpt *keys, int nkeys, const char *label, int n,
                      char **w, bool *given)
{
    CliOptSpec s = {
        .opts = keys, .nopts = nkeys, .dest = t, .call = forward, .ctx = t, .given = given};
    return cliopt_parse_words(&s, label, n, w, t->msg, t->size);
}

#define KEY_WORDS(t, keys, label, n, w, given) \
    key_words(t, keys, (int)(sizeof keys / sizeof keys[0]), label, n, w, given)

static bool opt_openings(Translation *t, const char *label, int n, char **w)
{
    bool given[sizeof OPENINGS_KEYS / sizeof OPENINGS_KEYS[0]] = {false};
    if (!KEY_WORDS(t, OPENINGS_KEYS, label, n, w, given))
        return false;
    return given[0] ? true : error_set(t->msg, t->size, "-openings: file= is required");
}

static bool opt_resign(Translation *t, const char *label, int n, char **w)
{
    bool given[sizeof RESIGN_KEYS / sizeof RESIGN_KEYS[0]] = {false};
    if (!KEY_WORDS(t, RESIGN_KEYS, label, n, w, given))
        return false;
    return given[0] && given[1] ? true
                                : error_set(t->msg, t->size, "-resign: give movecount= and score=");
}

static bool opt_draw(Translation *t, const char *label, int n, char **w)
{
    bool given[sizeof DRAW_KEYS / sizeof DRAW_KEYS[0]] = {false};
    if (!KEY_WORDS(t, DRAW_KEYS, label, n, w, given))
        return false;
    if (!given[1] || !given[2])
        return error_set(t->msg, t->size, "-draw: give movecount= and score=");
    return given[0] || set_long(t, "--draw-after", "-draw movenumber", "0");
}

/* -spsa: the tuning words become --spsa, the others their own options. */
static bool opt_spsa(Translation *t, const char *label, int n, char **w)
{
    bool given[sizeof SPSA_KEYS / sizeof SPSA_KEYS[0]] = {false};
    t->spsa_text[0] = '\0';
    if (!KEY_WORDS(t, SPSA_KEYS, label, n, w, given))
        return false;
    t->spsa = true;
    return set_long(t, "--spsa", "-spsa", t->spsa_text);
}

static bool opt_sprt(Translation *t, const char *label, int n, char **w)
{
    char text[128] = "";
    for (int k = 0; k < n; k++) {
        size_t l = strlen(text), wl = strlen(w[k]);
        if (l + wl + 2 > sizeof text)
            return error_set(t->msg, t->size, "-sprt: too long");
        if (l)
            text[l++] = ' ';
        memcpy(text + l, w[k], wl + 1);
    }
    return set_long(t, "--sprt", label, text);
}

static bool opt_maxmoves(Translation *t, const char *label, int n, char **w)
{
    char plies[32];
    (void)n;
    return scaled(t, label, w[0], "--max-plies", 2, plies) &&
           set_long(t, "--max-plies", label, plies);
}

static bool opt_pgnout(Translation *t, const char *label, int n, char **w)
{
    (void)n;
    return set_long(t, "--pgnout", label, w[0] + (strncmp(w[0], "file=", 5) ? 0 : 5));
}

static bool opt_ratinginterval(Translation *t, const char *label, int n, char **w)
{
    (void)n;
    return set_long(t, "--rating-interval", label, w[0]);
}

/* Pairs are always played with colours swapped (-repeat [N]); crashed engines are
 * always restarted (-recover); the MPI job's size sets the concurrency (-concurrency N).
 * A number given to them must still be one. */
static bool opt_accepted(Translation *t, const char *label, int n, char **w)
{
    long long v;
    if (n > 0 && !strcmp(label, "-recover"))
        return error_set(t->msg, t->size, "-recover: takes no value, got '%s'", w[0]);
    if (n > 1)
        return error_set(t->msg, t->size, "%s: one number at most, got '%s %s'", label, w[0], w[1]);
    return n == 0 || numparse_int(label, w[0], 1, 1000000, &v, t->msg, t->size);
}

/* The tournament options: the parser reads them beside the long options. */
#define T(f) offsetof(Translation, f), sizeof(((Translation *)0)->f)
#define WORDS(name, arg, help)                                                \
    {                                                                         \
        name, NULL, CLIOPT_CALL, 0, 0, 0, 0, 0, CLIOPT_WORDS, arg, help, NULL \
    }
#define ONE(name, arg, help)                                       \
    {                                                              \
        name, NULL, CLIOPT_CALL, 0, 0, 0, 0, 0, 0, arg, help, NULL \
    }
static const CliOpt TOURNAMENT_OPTS[] = {
    WORDS("-engine", "KEY=V ...",
          "an engine (2 to 32, numbered from 0): name=N cmd=PROG [args=A]\n"
          "[dir=D] [proto=uci|uci1|ucci|xboard] [option.X=Y] [ponder], or\n"
          "name=N builtin [weights=FILE] [option.Threads=N]; either with\n"
          "its own tc=B+I, st=S, nodes=N, depth=N (time odds)"),
    WORDS("-each", "KEY=V ...",
          "every engine: tc=B+I | st=S | nodes=N | depth=N [timemargin=MS]\n"
          "[hash=MB] [option.X=Y] [ponder]"),
    {"-tournament", NULL, CLIOPT_ENUM, T(tournament), 0, 0, 0, 0, "KIND",
     "round-robin (default) or gauntlet: more than two engines", "round-robin|roundrobin|gauntlet"},
    WORDS("-openings", "KEY=V ...",
          "file=F [format=epd|pgn] [order=sequential|random] [seed=S]\n"
          "[start=N] [plies=N] [policy=pair|round]"),
    {"-rounds", NULL, CLIOPT_U64, T(rounds), 1, COORD_GAMES_MAX, 0, 0, "N",
     "N rounds of every pairing (with -games G: G games each; default 2)", NULL},
    {"-games", NULL, CLIOPT_U64, T(games), 1, COORD_GAMES_MAX, 0, 0, "N",
     "games of each pairing (in each round with -rounds)", NULL},
    WORDS("-sprt", "KEY=V ...",
          "elo0=X elo1=Y [alpha=A] [beta=B] [model=normalized|logistic]\n"
          "(two engines only)"),
    WORDS("-spsa", "KEY=V ...",
          "params=FILE [pairs=N] [A=X] [alpha=0.602] [gamma=0.101] [window=16]\n"
          "[seed=S] [out=FILE] [plot=FILE.png]: one -engine, against itself"),
    ONE("-maxmoves", "N", "a game reaching N moves of each side is drawn"),
    WORDS("-resign", "KEY=V ...", "movecount=N score=CP"),
    WORDS("-draw", "KEY=V ...", "movenumber=N movecount=M score=CP"),
    ONE("-pgnout", "FILE", "append every game of the run to FILE as PGN"),
    ONE("-ratinginterval", "N", "log the match statistics every N stored games"),
    WORDS("-repeat", "[N]", "accepted: every pair plays both colours"),
    WORDS("-recover", NULL, "accepted: a crashed engine is always restarted"),
    ONE("-concurrency", "N", "accepted: the MPI job's size sets it"),
};
#undef T
#undef WORDS
#undef ONE

static const struct {
    const char *name;
    bool (*handle)(Translation *t, const char *label, int n, char **w);
} HANDLERS[] = {
    {"-engine", opt_engine},
    {"-each", opt_each},
    {"-openings", opt_openings},
    {"-sprt", opt_sprt},
    {"-spsa", opt_spsa},
    {"-maxmoves", opt_maxmoves},
    {"-resign", opt_resign},
    {"-draw", opt_draw},
    {"-pgnout", opt_pgnout},
    {"-ratinginterval", opt_ratinginterval},
    {"-repeat", opt_accepted},
    {"-recover", opt_accepted},
    {"-concurrency", opt_accepted},
};

static bool tournament_option(void *ctx, const CliOpt *o, const char *label, int n, char **w,
                              char *msg, size_t size)
{
    Translation *t = ctx;
    t->msg = msg;
    t->size = size;
    size_t k = 0;
    while (strcmp(HANDLERS[k].name, o->name))
        k++;
    return HANDLERS[k].handle(t, label, n, w);
}

static CliOptSpec tournament_spec(Translation *t)
{
    return (CliOptSpec){.prog = "chuhe-coordinator",
                        .opts = TOURNAMENT_OPTS,
                        .nopts = sizeof TOURNAMENT_OPTS / sizeof TOURNAMENT_OPTS[0],
                        .dest = t,
                        .call = tournament_option,
                        .ctx = t};
}

/* ---- the end: the game count and the engines ---- */

/* -rounds and -games as --rounds and --round-games: the coordinator makes them a game
 * target once it knows the run's engines, which a resumed run takes from its file. */
static void put_games(Translation *t)
{
    if (t->rounds)
        coord_options_put(t->c, t->given, "--rounds", "-rounds", &t->rounds, sizeof t->rounds);
    if (t->games)
        coord_options_put(t->c, t->given, "--round-games", "-games", &t->games, sizeof t->games);
}

/* What engine e takes from -each: its command unless builtin, and for an external
 * engine the protocol, directory and options (-each's first), else the weights. */
static bool inherit(Translation *t, EngineSpec *e, const EngineSpec *each)
{
    if (!e->cmd[0] && each->cmd[0] && !e->builtin)
        snprintf(e->cmd, sizeof e->cmd, "%s", each->cmd);
    if (!e->proto[0] && e->cmd[0])
        snprintf(e->proto, sizeof e->proto, "%s", each->proto);
    if (!e->dir[0] && e->cmd[0])
        snprintf(e->dir, sizeof e->dir, "%s", each->dir);
    if (!e->weights[0] && !e->cmd[0])
        snprintf(e->weights, sizeof e->weights, "%s", each->weights);
    if (each->options[0] && e->cmd[0]) {
        char mine[sizeof e->options];
        snprintf(mine, sizeof mine, "%s", e->options);
        snprintf(e->options, sizeof e->options, "%s", each->options);
        if (mine[0] && !add_option(e, mine, t->msg, t->size))
            return false;
    }
    return true;
}

/* "--OPT-SIDE" for key of engine p, named "-engine key (engine p+1)" in messages, set
 * from text (when set) or to a value already read. */
static bool set_side(Translation *t, int p, const char *key, const char *opt, const char *text)
{
    char name[32], said[48], sfx[16];
    snprintf(name, sizeof name, "%s-%s", opt, coord_config_engine_suffix(p, sfx));
    snprintf(said, sizeof said, "-engine %s (engine %d)", key, p + 1);
    return !text[0] || set_long(t, name, said, text);
}

static void put_side(Translation *t, int p, const char *key, const char *opt, const void *value,
                     size_t size)
{
    char name[32], said[48], sfx[16];
    snprintf(name, sizeof name, "%s-%s", opt, coord_config_engine_suffix(p, sfx));
    snprintf(said, sizeof said, "-engine %s (engine %d)", key, p + 1);
    coord_options_put(t->c, t->given, name, said, value, size);
}

/* Engine p as the coordinator's options for it. */
static bool emit_engine(Translation *t, const EngineSpec *e, int p)
{
    if (e->cmd[0] && e->builtin)
        return error_set(t->msg, t->size, "engine %d: builtin and cmd= exclude each other", p + 1);
    if (e->cmd[0] && e->weights[0])
        return error_set(t->msg, t->size, "engine %d: weights= is for the built-in engine", p + 1);
    if (!set_side(t, p, "name", "--name", e->name) ||
        !set_side(t, p, "weights", "--weights", e->weights))
        return false;
    if (e->tc.base_ms)
        put_side(t, p, "tc", "--tc", &e->tc, sizeof e->tc);
    if (e->st_ms)
        put_side(t, p, "st", "--movetime", &e->st_ms, sizeof e->st_ms);
    if (e->nodes)
        put_side(t, p, "nodes", "--nodes", &e->nodes, sizeof e->nodes);
    if (e->depth)
        put_side(t, p, "depth", "--depth", &e->depth, sizeof e->depth);
    if (!e->cmd[0] && (e->proto[0] || e->dir[0]))
        return error_set(t->msg, t->size, "engine %d: proto and dir need cmd=", p + 1);
    return set_side(t, p, "cmd", "--cmd", e->cmd) && set_side(t, p, "proto", "--proto", e->proto) &&
           set_side(t, p, "option.*", "--options", e->options) &&
           set_side(t, p, "dir", "--dir", e->dir);
}

/* -spsa: the one -engine twice, as "NAME+" (plus) and "NAME-" (minus). */
static bool spsa_engines(Translation *t)
{
    if (t->nengines != 1)
        return error_set(t->msg, t->size,
                         "-spsa tunes one engine against itself: give exactly one -engine, not %d",
                         t->nengines);
    EngineSpec *e = &t->eng[0];
    if (!inherit(t, e, &t->each))
        return false;
    char base[60];
    snprintf(base, sizeof base, "%.59s", e->name[0] ? e->name : "spsa");
    for (int p = 0; p < 2; p++) {
        snprintf(e->name, sizeof e->name, "%s%c", base, p ? '-' : '+');
        if (!emit_engine(t, e, p))
            return false;
    }
    return true;
}

static bool finish(Translation *t)
{
    put_games(t);
    if (t->spsa)
        return spsa_engines(t);
    if (t->nengines == 1)
        return error_set(t->msg, t->size, "-engine: give at least two engines");
    if (t->nengines > 2) {
        char count[16];
        TourKind kind = TOUR_ROUNDROBIN;
        coord_tournament_kind_parse(t->tournament, &kind);
        snprintf(count, sizeof count, "%d", t->nengines);
        if (!set_long(t, "--engines", "-engine", count) ||
            !set_long(t, "--tournament", "-tournament", coord_tournament_kind_name(kind)))
            return false;
    }
    if (t->nengines == 0 && (t->each.cmd[0] || t->each.options[0] || t->each.proto[0]))
        return error_set(t->msg, t->size, "-each: cmd, proto and option.* need -engine");
    for (int p = 0; p < t->nengines; p++)
        if (!inherit(t, &t->eng[p], &t->each) || !emit_engine(t, &t->eng[p], p))
            return false;
    return true;
}

/* A node, depth or move-time limit of 0 typed on the command line is refused: 0 stands
 * for "not given" in the stored run settings, which a resume reads back through the
 * same option table, so the table itself lets 0 through. */
static bool no_zero_limits(const CoordConfig *c, const CoordGiven *given, CoordError *err)
{
    for (int k = -1; k < COORD_MAX_ENGINES; k++) {
        char sfx[16] = ""; /* the run's limit, then -red, -black, -2, -3, ... */
        if (k == 0 || k == 1)
            snprintf(sfx, sizeof sfx, "%s", k == 0 ? "-red" : "-black");
        else if (k > 1)
            snprintf(sfx, sizeof sfx, "-%d", k);
        const struct {
            const char *what;
            bool zero;
        } limits[] = {
            {"--nodes", (k < 0 ? c->nodes : c->engine_nodes[k]) == 0},
            {"--depth", (k < 0 ? c->depth : c->engine_depth[k]) == 0},
            {"--movetime", (k < 0 ? c->movetime : c->engine_movetime[k]) == 0},
        };
        for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
            char name[40];
            snprintf(name, sizeof name, "%s%s", limits[i].what, sfx);
            if (limits[i].zero && coord_options_given(given, name))
                return ERROR_SET(
                    err, "%s: 0 is not a limit (give 1 or more, or leave the option out)", name);
        }
    }
    return true;
}

bool coord_cli_parse(CoordConfig *c, CoordGiven *given, int argc, char **argv, CoordError *err)
{
    memset(given, 0, sizeof *given);
    Translation *t = calloc(1, sizeof *t);
    EngineSpec *eng = calloc(COORD_MAX_ENGINES, sizeof *eng);
    if (!t || !eng)
        COORD_FATAL("out of memory");
    *t =
        (Translation){.c = c, .given = given, .msg = err->msg, .size = sizeof err->msg, .eng = eng};
    CoordOptParse p = {c, given};
    CliOptSpec longs = coord_options_spec(&p), tour = tournament_spec(t);
    longs.next = &tour;
    bool ok =
        cliopt_parse(&longs, argc, argv, NULL, NULL, 0, err->msg, sizeof err->msg) == CLIOPT_OK &&
        finish(t) && no_zero_limits(c, given, err);
    free(eng);
    free(t);
    if (!ok)
        coord_options_say(given, err->msg, sizeof err->msg);
    return ok;
}

void coord_cli_usage(FILE *f)
{
    CliOptSpec s = tournament_spec(NULL);
    cliopt_usage(f, &s, 28);
}
