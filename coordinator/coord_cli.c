#include "coord_cli.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_log.h"
#include "coord_options.h"
#include "error.h"
#include "numparse.h"
#include "coord_tournament.h"

enum { MAX_OUT = 256 };

typedef struct {
    char name[64];
    char cmd[PROTO_COMMAND_MAX + 1];
    char dir[PROTO_COMMAND_MAX + 1];
    char proto[16];
    char options[PROTO_COMMAND_MAX + 1];
    char weights[PROTO_WEIGHTS_MAX + 1];
    bool builtin;
    /* its own limits, already as coordinator options and values (tc=, st=, nodes=,
     * depth= of an -engine) */
    char limit_opt[4][16];
    char limit_val[4][32];
    int nlimits;
} EngineSpec;

/* A translation under way: the output so far, and what the options gathered for the
 * end (the engines, -each, the game count, the tournament). */
typedef struct {
    CoordArgs *out;
    CoordError *err;
    EngineSpec *eng; /* room for COORD_MAX_ENGINES engines, zeroed */
    int nengines;
    EngineSpec each;
    long long rounds, games; /* -1: not given */
    const char *tournament;  /* the canonical kind name; NULL: not given */
    bool spsa;               /* -spsa: the one engine plays against itself */
    char said[48];           /* what the user typed for the long options pushed next */
} Translation;

/* Names the long options pushed from now on in messages ("-each nodes="). */
static void say(Translation *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(Translation *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->said, sizeof t->said, fmt, ap);
    va_end(ap);
}

static char *copy_text(const char *s)
{
    char *copy = strdup(s);
    if (!copy)
        COORD_FATAL("out of memory");
    return copy;
}

static bool push(Translation *t, const char *s)
{
    if (t->out->argc + 1 >= MAX_OUT)
        return ERROR_SET(t->err, "too many options");
    if (s[0] == '-' && s[1] == '-' && t->said[0])
        t->out->said[t->out->argc] = copy_text(t->said);
    t->out->argv[t->out->argc++] = copy_text(s);
    t->out->argv[t->out->argc] = NULL;
    return true;
}

static bool push2(Translation *t, const char *opt, const char *value)
{
    return push(t, opt) && push(t, value);
}

/* push2, the option named said in messages. */
static bool push_said(Translation *t, const char *said, const char *opt, const char *value)
{
    say(t, "%s", said);
    return push2(t, opt, value);
}

/* ---- the words of -engine and -each ---- */

static bool copy_to(char *dst, size_t size, const char *src, const char *what, CoordError *err)
{
    if (strlen(src) >= size)
        return ERROR_SET(err, "%s: '%s' is too long", what, src);
    snprintf(dst, size, "%s", src);
    return true;
}

/* Appends "Name=Value" to an engine's option list. */
static bool add_option(EngineSpec *e, const char *nv, CoordError *err)
{
    size_t n = strlen(e->options);
    if (n + strlen(nv) + 2 > sizeof e->options)
        return ERROR_SET(err, "too many engine options");
    snprintf(e->options + n, sizeof e->options - n, "%s%s", n ? ";" : "", nv);
    return true;
}

/* args=: more words of the engine's command. */
static bool add_args(EngineSpec *e, const char *val, CoordError *err)
{
    size_t n = strlen(e->cmd);
    if (n + strlen(val) + 2 > sizeof e->cmd)
        return ERROR_SET(err, "args: too long");
    snprintf(e->cmd + n, sizeof e->cmd - n, " %s", val);
    return true;
}

/* A search limit key of -each or -engine (tc, st, nodes, depth; of option `of`) as the
 * coordinator's option name ("--movetime" for st) and value; false with *handled unset
 * for others. A node count or depth of 0 (no limit to the long options) is refused:
 * here it is a slip, which would leave the default limit. */
static bool limit_option(const char *of, const char *key, const char *val, char opt[16],
                         char value[32], bool *handled, CoordError *err)
{
    *handled = true;
    char label[32];
    snprintf(label, sizeof label, "%s %s", of, key);
    if (strlen(val) >= 32)
        return ERROR_SET(err, "%s=%s: too long", label, val);
    snprintf(value, 32, "%s", val);
    if (!strcmp(key, "st")) {
        double s;
        if (!numparse_double(label, val, 0.001, 3600, &s, err ? err->msg : NULL,
                             err ? sizeof err->msg : 0))
            return false;
        snprintf(value, 32, "%d", (int)(s * 1000 + 0.5));
        snprintf(opt, 16, "--movetime");
    } else if (!strcmp(key, "tc") || !strcmp(key, "nodes") || !strcmp(key, "depth")) {
        if (!val[0]) /* "--tc ''" is no clock: here it is a slip */
            return ERROR_SET(err, "%s: '' is not a %s", label,
                             key[0] == 't' ? "BASE+INC" : "number");
        snprintf(opt, 16, "--%.8s", key);
        long long v;
        const CoordOpt *o = coord_options_find(opt);
        if (key[0] != 't' && !numparse_int(label, val, 1, (long long)o->max, &v,
                                           err ? err->msg : NULL, err ? sizeof err->msg : 0))
            return false;
    } else {
        *handled = false;
    }
    return true;
}

/* The limits of -each: the run's own, given at once. */
static bool each_limit(Translation *t, const char *key, const char *val, bool *handled)
{
    char opt[16], value[32];
    if (!limit_option("-each", key, val, opt, value, handled, t->err))
        return false;
    say(t, "-each %s", key);
    if (*handled)
        return push2(t, opt, value);
    *handled = true;
    if (!strcmp(key, "timemargin"))
        return push2(t, "--timemargin", val);
    if (!strcmp(key, "hash"))
        return push2(t, "--hash", val);
    *handled = false;
    return true;
}

/* The limits of an -engine: its own (time odds), kept for the end. */
static bool engine_limit(EngineSpec *e, const char *key, const char *val, bool *handled,
                         CoordError *err)
{
    *handled = false;
    if (!strcmp(key, "timemargin"))
        return ERROR_SET(err,
                         "-engine timemargin: one margin holds for every engine: give it in -each");
    if (e->nlimits == 4)
        return ERROR_SET(err, "-engine %s: too many limits", key);
    if (!limit_option("-engine", key, val, e->limit_opt[e->nlimits], e->limit_val[e->nlimits],
                      handled, err))
        return false;
    if (*handled)
        e->nlimits++;
    return true;
}

#define TEXT_KEY(f)                                               \
    {                                                             \
#f, offsetof(EngineSpec, f), sizeof(((EngineSpec *)0)->f) \
    }
/* The keys of -engine and -each whose value is copied as it is. */
static const struct {
    const char *key;
    size_t offset, size;
} TEXT_KEYS[] = {TEXT_KEY(name), TEXT_KEY(cmd), TEXT_KEY(dir), TEXT_KEY(proto), TEXT_KEY(weights)};
#undef TEXT_KEY

/* One key=value (or "builtin") of an -engine or -each. */
static bool engine_word(Translation *t, EngineSpec *e, const char *w, bool each)
{
    CoordError *err = t->err;
    const char *opt = each ? "-each" : "-engine";
    if (!strcmp(w, "builtin")) {
        e->builtin = true;
        return true;
    }
    /* cutechess's "ponder": the worker ponders with an engine that has the option */
    if (!strcmp(w, "ponder"))
        return add_option(e, "Ponder=true", err);
    const char *eq = strchr(w, '=');
    if (!eq)
        return ERROR_SET(err, "%s: '%s' is not key=value", opt, w);
    char key[64];
    size_t kn = (size_t)(eq - w);
    if (kn >= sizeof key)
        return ERROR_SET(err, "'%s': key too long", w);
    memcpy(key, w, kn);
    key[kn] = '\0';
    const char *val = eq + 1;
    if (!strncmp(key, "option.", 7))
        return add_option(e, w + 7, err);
    bool text = !strcmp(key, "args");
    for (size_t k = 0; k < sizeof TEXT_KEYS / sizeof TEXT_KEYS[0]; k++)
        text |= !strcmp(key, TEXT_KEYS[k].key);
    /* "cmd=$ENGINE" with the variable unset would make a built-in engine */
    if (text && !val[0])
        return ERROR_SET(err, "%s %s=: the value is empty (give one, or leave %s= out)", opt, key,
                         key);
    for (size_t k = 0; k < sizeof TEXT_KEYS / sizeof TEXT_KEYS[0]; k++)
        if (!strcmp(key, TEXT_KEYS[k].key))
            return copy_to((char *)e + TEXT_KEYS[k].offset, TEXT_KEYS[k].size, val, key, err);
    if (!strcmp(key, "args"))
        return add_args(e, val, err);
    bool handled;
    if (!(each ? each_limit(t, key, val, &handled) : engine_limit(e, key, val, &handled, err)))
        return false;
    return handled ? true : ERROR_SET(err, "%s: unknown key '%s'", opt, key);
}

/* ---- the options ---- */

/* The value of an option that takes one; NULL, with the error set, when it has none. */
static const char *one_value(Translation *t, const char *opt, char **w, int n)
{
    if (n < 1) {
        ERROR_SET(t->err, "%s needs a value", opt);
        return NULL;
    }
    return w[0];
}

/* A whole number of a tournament option, in the range of the long option it becomes:
 * counted in units of scale of it (-maxmoves N is --max-plies 2N). */
static bool cli_number(Translation *t, const char *label, const char *text, const char *longopt,
                       int scale, long long *v)
{
    const CoordOpt *o = coord_options_find(longopt);
    return numparse_int(label, text, ((long long)o->min + scale - 1) / scale,
                        (long long)o->max / scale, v, t->err->msg, sizeof t->err->msg);
}

/* The value of key in key=value words w[0..n-1]; NULL if absent. */
static const char *kv(char **w, int n, const char *key)
{
    size_t k = strlen(key);
    for (int i = 0; i < n; i++)
        if (!strncmp(w[i], key, k) && w[i][k] == '=')
            return w[i] + k + 1;
    return NULL;
}

static bool only_keys(char **w, int n, const char *opt, const char *const *keys, CoordError *err)
{
    for (int i = 0; i < n; i++) {
        bool ok = false;
        for (const char *const *k = keys; *k; k++) {
            size_t l = strlen(*k);
            ok |= !strncmp(w[i], *k, l) && (w[i][l] == '=' || w[i][l] == '\0');
        }
        if (!ok)
            return ERROR_SET(err, "%s: unknown or unsupported '%s'", opt, w[i]);
    }
    return true;
}

static bool opt_engine(Translation *t, const char *opt, char **w, int n)
{
    (void)opt;
    if (t->nengines == COORD_MAX_ENGINES)
        return ERROR_SET(t->err, "-engine: at most %d engines", COORD_MAX_ENGINES);
    for (int k = 0; k < n; k++)
        if (!engine_word(t, &t->eng[t->nengines], w[k], false))
            return false;
    t->nengines++;
    return true;
}

static bool opt_each(Translation *t, const char *opt, char **w, int n)
{
    (void)opt;
    for (int k = 0; k < n; k++)
        if (!engine_word(t, &t->each, w[k], true))
            return false;
    return true;
}

static bool opt_tournament(Translation *t, const char *opt, char **w, int n)
{
    const char *val = one_value(t, opt, w, n);
    if (!val)
        return false;
    TourKind kind;
    if (!coord_tournament_kind_parse(val, &kind))
        return ERROR_SET(t->err, "-tournament: '%s' is not round-robin (roundrobin) or gauntlet",
                         val);
    t->tournament = coord_tournament_kind_name(kind);
    return true;
}

static bool opt_openings(Translation *t, const char *opt, char **w, int n)
{
    static const char *const keys[] = {"file",  "format", "order",  "seed",
                                       "start", "plies",  "policy", NULL};
    if (!only_keys(w, n, opt, keys, t->err))
        return false;
    const char *file = kv(w, n, "file"), *format = kv(w, n, "format");
    const char *order = kv(w, n, "order"), *seed = kv(w, n, "seed");
    const char *start = kv(w, n, "start"), *plies = kv(w, n, "plies");
    const char *policy = kv(w, n, "policy");
    if (!file)
        return ERROR_SET(t->err, "-openings: file= is required");
    if (format && strcmp(format, "epd") && strcmp(format, "pgn"))
        return ERROR_SET(t->err, "-openings: format=%s is not epd or pgn", format);
    if (order && strcmp(order, "sequential") && strcmp(order, "random"))
        return ERROR_SET(t->err, "-openings: order=%s is not sequential or random", order);
    if (policy && strcmp(policy, "pair") && strcmp(policy, "round"))
        return ERROR_SET(t->err, "-openings: policy=%s is not pair or round", policy);
    return push_said(t, "-openings file", "--openings", file) &&
           (!seed || push_said(t, "-openings seed", "--seed", seed)) &&
           (!format || push_said(t, "-openings format", "--opening-format", format)) &&
           (!order || push_said(t, "-openings order", "--opening-order", order)) &&
           (!start || push_said(t, "-openings start", "--opening-start", start)) &&
           (!plies || push_said(t, "-openings plies", "--opening-plies", plies)) &&
           (!policy || push_said(t, "-openings policy", "--opening-policy", policy));
}

/* -rounds N and -games N: the game count, pushed at the end. */
static bool opt_count(Translation *t, const char *opt, char **w, int n)
{
    const char *val = one_value(t, opt, w, n);
    if (!val)
        return false;
    long long v;
    if (!cli_number(t, opt, val, "--games", 1, &v))
        return false;
    if (opt[1] == 'r')
        t->rounds = v;
    else
        t->games = v;
    return true;
}

static bool opt_sprt(Translation *t, const char *opt, char **w, int n)
{
    (void)opt;
    char text[128] = "";
    for (int k = 0; k < n; k++) {
        size_t l = strlen(text), wl = strlen(w[k]);
        if (l + wl + 2 > sizeof text)
            return ERROR_SET(t->err, "-sprt: too long");
        if (l)
            text[l++] = ' ';
        memcpy(text + l, w[k], wl + 1);
    }
    return push_said(t, "-sprt", "--sprt", text);
}

/* -spsa params=F [pairs=N] [A=X] [alpha=X] [gamma=X] [window=W] [seed=S] [out=F]
 * [plot=F]: the tuning words become --spsa, the others their own options. */
static bool opt_spsa(Translation *t, const char *opt, char **w, int n)
{
    static const char *const keys[] = {"params", "pairs", "A",   "alpha", "gamma",
                                       "window", "seed",  "out", "plot",  NULL};
    if (!only_keys(w, n, opt, keys, t->err))
        return false;
    char text[COORD_PATH_MAX + 256] = "";
    for (int k = 0; k < n; k++) {
        size_t l = strlen(text);
        if (!strncmp(w[k], "seed=", 5) || !strncmp(w[k], "out=", 4) || !strncmp(w[k], "plot=", 5))
            continue;
        if (l + strlen(w[k]) + 2 > sizeof text)
            return ERROR_SET(t->err, "-spsa: too long");
        snprintf(text + l, sizeof text - l, "%s%s", l ? " " : "", w[k]);
    }
    const char *seed = kv(w, n, "seed"), *out = kv(w, n, "out"), *plot = kv(w, n, "plot");
    t->spsa = true;
    return push_said(t, "-spsa", "--spsa", text) &&
           (!seed || push_said(t, "-spsa seed", "--seed", seed)) &&
           (!out || push_said(t, "-spsa out", "--spsa-out", out)) &&
           (!plot || push_said(t, "-spsa plot", "--spsa-plot", plot));
}

static bool opt_maxmoves(Translation *t, const char *opt, char **w, int n)
{
    const char *val = one_value(t, opt, w, n);
    if (!val)
        return false;
    long long moves;
    if (!cli_number(t, opt, val, "--max-plies", 2, &moves))
        return false;
    char plies[32];
    snprintf(plies, sizeof plies, "%lld", 2 * moves);
    return push_said(t, "-maxmoves", "--max-plies", plies);
}

static bool opt_resign(Translation *t, const char *opt, char **w, int n)
{
    static const char *const keys[] = {"movecount", "score", "twosided", NULL};
    if (!only_keys(w, n, opt, keys, t->err))
        return false;
    const char *mc = kv(w, n, "movecount"), *sc = kv(w, n, "score");
    if (!mc || !sc)
        return ERROR_SET(t->err, "-resign: give movecount= and score=");
    return push_said(t, "-resign movecount", "--resign-moves", mc) &&
           push_said(t, "-resign score", "--resign-score", sc);
}

static bool opt_draw(Translation *t, const char *opt, char **w, int n)
{
    static const char *const keys[] = {"movenumber", "movecount", "score", NULL};
    if (!only_keys(w, n, opt, keys, t->err))
        return false;
    const char *mn = kv(w, n, "movenumber"), *mc = kv(w, n, "movecount");
    const char *sc = kv(w, n, "score");
    if (!mc || !sc)
        return ERROR_SET(t->err, "-draw: give movecount= and score=");
    long long moves = 0;
    if (mn && !cli_number(t, "-draw movenumber", mn, "--draw-after", 2, &moves))
        return false;
    char after[32];
    snprintf(after, sizeof after, "%lld", 2 * moves);
    return push_said(t, "-draw movenumber", "--draw-after", after) &&
           push_said(t, "-draw movecount", "--draw-moves", mc) &&
           push_said(t, "-draw score", "--draw-score", sc);
}

static bool opt_pgnout(Translation *t, const char *opt, char **w, int n)
{
    const char *val = one_value(t, opt, w, n);
    if (!val)
        return false;
    if (!strncmp(val, "file=", 5))
        val += 5;
    return push_said(t, "-pgnout", "--pgnout", val);
}

static bool opt_ratinginterval(Translation *t, const char *opt, char **w, int n)
{
    const char *val = one_value(t, opt, w, n);
    return val && push_said(t, "-ratinginterval", "--rating-interval", val);
}

/* Pairs are always played with colours swapped (-repeat [N]); crashed engines are
 * always restarted (-recover); the MPI job's size sets the concurrency (-concurrency N).
 * A number given to them must still be one. */
static bool opt_accepted(Translation *t, const char *opt, char **w, int n)
{
    long long v;
    if (n > 0 && !strcmp(opt, "-recover"))
        return ERROR_SET(t->err, "-recover takes no value, got '%s'", w[0]);
    if (n > 1)
        return ERROR_SET(t->err, "%s: one number at most, got '%s %s'", opt, w[0], w[1]);
    if (n == 0 && !strcmp(opt, "-concurrency"))
        return ERROR_SET(t->err, "-concurrency needs a value");
    return n == 0 || numparse_int(opt, w[0], 1, 1000000, &v, t->err->msg, sizeof t->err->msg);
}

/* Each tournament option with the words that follow it: up to the next option, or for
 * an option of one value (one) the next word unless it names an option, so that
 * "-rounds -5" is judged as a number of rounds. */
static const struct {
    const char *name;
    bool (*handle)(Translation *t, const char *opt, char **w, int n);
    bool one;
} OPTIONS[] = {
    {"-engine", opt_engine, false},
    {"-each", opt_each, false},
    {"-tournament", opt_tournament, true},
    {"-openings", opt_openings, false},
    {"-rounds", opt_count, true},
    {"-games", opt_count, true},
    {"-sprt", opt_sprt, false},
    {"-spsa", opt_spsa, false},
    {"-maxmoves", opt_maxmoves, true},
    {"-resign", opt_resign, false},
    {"-draw", opt_draw, false},
    {"-pgnout", opt_pgnout, true},
    {"-ratinginterval", opt_ratinginterval, true},
    {"-repeat", opt_accepted, false},
    {"-recover", opt_accepted, false},
    {"-concurrency", opt_accepted, true},
};

/* ---- the end: the game count and the engines ---- */

/* -rounds and -games as --rounds and --round-games: the coordinator makes them a game
 * target once it knows the run's engines, which a resumed run takes from its file. */
static bool push_games(Translation *t)
{
    char text[32];
    if (t->rounds > 0) {
        snprintf(text, sizeof text, "%lld", t->rounds);
        if (!push_said(t, "-rounds", "--rounds", text))
            return false;
    }
    if (t->games > 0) {
        snprintf(text, sizeof text, "%lld", t->games);
        if (!push_said(t, "-games", "--round-games", text))
            return false;
    }
    return true;
}

/* What engine e takes from -each: its command unless builtin, and for an external
 * engine the protocol, directory and options (-each's first), else the weights. */
static bool inherit(EngineSpec *e, const EngineSpec *each, CoordError *err)
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
        if (mine[0] && !add_option(e, mine, err))
            return false;
    }
    return true;
}

/* "OPT-SIDE VALUE", as --name-red a, for key of engine p ("-engine name (engine 1)" in
 * messages). */
static bool push_side(Translation *t, int p, const char *key, const char *opt, const char *side,
                      const char *value)
{
    char name[32];
    snprintf(name, sizeof name, "%s-%s", opt, side);
    say(t, "-engine %s (engine %d)", key, p + 1);
    return push2(t, name, value);
}

/* The same when value is set. */
static bool push_side_set(Translation *t, int p, const char *key, const char *opt, const char *side,
                          const char *value)
{
    return !value[0] || push_side(t, p, key, opt, side, value);
}

/* Engine p as the coordinator's options for it. */
static bool emit_engine(Translation *t, const EngineSpec *e, int p)
{
    char sfx[16];
    const char *side = coord_config_engine_suffix(p, sfx);
    if (e->cmd[0] && e->builtin)
        return ERROR_SET(t->err, "engine %d: builtin and cmd= exclude each other", p + 1);
    if (e->cmd[0] && e->weights[0])
        return ERROR_SET(t->err, "engine %d: weights= is for the built-in engine", p + 1);
    if (!push_side_set(t, p, "name", "--name", side, e->name) ||
        !push_side_set(t, p, "weights", "--weights", side, e->weights))
        return false;
    for (int k = 0; k < e->nlimits; k++) {
        char key[16];
        const char *opt = e->limit_opt[k];
        snprintf(key, sizeof key, "%s", !strcmp(opt, "--movetime") ? "st" : opt + 2);
        if (!push_side(t, p, key, opt, side, e->limit_val[k]))
            return false;
    }
    if (!e->cmd[0]) {
        if (e->proto[0] || e->dir[0])
            return ERROR_SET(t->err, "engine %d: proto and dir need cmd=", p + 1);
        return push_side_set(t, p, "option.*", "--options", side, e->options);
    }
    return push_side(t, p, "cmd", "--cmd", side, e->cmd) &&
           push_side_set(t, p, "proto", "--proto", side, e->proto) &&
           push_side_set(t, p, "option.*", "--options", side, e->options) &&
           push_side_set(t, p, "dir", "--dir", side, e->dir);
}

/* -spsa: the one -engine twice, as "NAME+" (plus) and "NAME-" (minus). */
static bool spsa_engines(Translation *t)
{
    if (t->nengines != 1)
        return ERROR_SET(t->err,
                         "-spsa tunes one engine against itself: give exactly one "
                         "-engine, not %d",
                         t->nengines);
    EngineSpec *e = &t->eng[0];
    if (!inherit(e, &t->each, t->err))
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
    TourKind kind = TOUR_ROUNDROBIN;
    if (t->tournament)
        coord_tournament_kind_parse(t->tournament, &kind);
    if (!push_games(t))
        return false;
    if (t->spsa)
        return spsa_engines(t);
    if (t->nengines == 1)
        return ERROR_SET(t->err, "-engine: give at least two engines");
    if (t->nengines > 2) {
        char count[16];
        snprintf(count, sizeof count, "%d", t->nengines);
        if (!push_said(t, "-engine", "--engines", count) ||
            !push_said(t, "-tournament", "--tournament", coord_tournament_kind_name(kind)))
            return false;
    }
    if (t->nengines == 0 && (t->each.cmd[0] || t->each.options[0] || t->each.proto[0]))
        return ERROR_SET(t->err, "-each: cmd, proto and option.* need -engine");
    for (int p = 0; p < t->nengines; p++)
        if (!inherit(&t->eng[p], &t->each, t->err) || !emit_engine(t, &t->eng[p], p))
            return false;
    return true;
}

/* Whether w names an option: a long one, or a tournament option of the table. */
static bool names_option(const char *w)
{
    if (w[0] != '-')
        return false;
    if (w[1] == '-')
        return true;
    for (size_t k = 0; k < sizeof OPTIONS / sizeof OPTIONS[0]; k++)
        if (!strcmp(w, OPTIONS[k].name))
            return true;
    return false;
}

/* Words of tournament option argv[i]: for an option of one value, the next word unless
 * it names an option; else up to the next word that starts with '-' and is no negative
 * number (such as "-repeat -1"'s). */
static int words(int argc, char **argv, int i, bool one)
{
    if (one)
        return i + 1 < argc && !names_option(argv[i + 1]);
    int n = 0;
    for (const char *w; i + 1 + n < argc; n++) {
        w = argv[i + 1 + n];
        if (w[0] == '-' && !(w[1] >= '0' && w[1] <= '9') && w[1] != '.')
            break;
    }
    return n;
}

static bool translate(int argc, char **argv, Translation *t)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '-') {
            /* a long option's value goes with it, even one that starts with '-' */
            const CoordOpt *o = coord_options_find(a);
            bool valued = o && o->kind != COORD_OPT_FLAG && i + 1 < argc;
            t->said[0] = '\0';
            if (!push(t, a) || (valued && !push(t, argv[++i])))
                return false;
            continue;
        }
        size_t k = 0, count = sizeof OPTIONS / sizeof OPTIONS[0];
        while (k < count && strcmp(a, OPTIONS[k].name))
            k++;
        if (k == count)
            return ERROR_SET(t->err, "unknown option '%s' (see --help)", a);
        int n = words(argc, argv, i, OPTIONS[k].one);
        if (!OPTIONS[k].handle(t, a, argv + i + 1, n))
            return false;
        i += n;
    }
    return finish(t);
}

bool coord_cli_translate(int argc, char **argv, CoordArgs *out, CoordError *err)
{
    out->argc = 0;
    out->argv = calloc(MAX_OUT, sizeof *out->argv);
    out->said = calloc(MAX_OUT, sizeof *out->said);
    if (!out->argv || !out->said)
        COORD_FATAL("out of memory");
    Translation t = {.out = out, .err = err, .rounds = -1, .games = -1};
    t.eng = calloc(COORD_MAX_ENGINES, sizeof *t.eng);
    if (!t.eng)
        COORD_FATAL("out of memory");
    bool ok = translate(argc, argv, &t);
    free(t.eng);
    if (!ok)
        coord_args_free(out);
    return ok;
}

bool coord_cli_parse(CoordConfig *c, CoordGiven *given, int argc, char **argv, CoordError *err)
{
    CoordArgs args;
    if (!coord_cli_translate(argc, argv, &args, err))
        return false;
    bool ok = coord_config_parse(c, given, args.argc, args.argv, err);
    for (int i = 0; i < args.argc; i++)
        if (args.said[i])
            coord_options_said(given, args.argv[i], args.said[i]);
    if (!ok)
        coord_options_say(given, err->msg, sizeof err->msg);
    coord_args_free(&args);
    return ok;
}

void coord_args_free(CoordArgs *a)
{
    if (!a->argv)
        return;
    for (int i = 0; i < a->argc; i++) {
        free(a->argv[i]);
        free(a->said[i]);
    }
    free(a->argv);
    free(a->said);
    a->argv = NULL;
    a->said = NULL;
    a->argc = 0;
}
