#include "coord_cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_log.h"
#include "tournament.h"

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

typedef struct {
    CoordArgs *out;
    CoordError *err;
} Builder;

static bool fail(CoordError *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool fail(CoordError *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return false;
}

static bool push(Builder *b, const char *s)
{
    if (b->out->argc + 1 >= MAX_OUT)
        return fail(b->err, "too many options");
    char *copy = strdup(s);
    if (!copy)
        COORD_FATAL("out of memory");
    b->out->argv[b->out->argc++] = copy;
    b->out->argv[b->out->argc] = NULL;
    return true;
}

static bool push2(Builder *b, const char *opt, const char *value)
{
    return push(b, opt) && push(b, value);
}

static bool copy_to(char *dst, size_t size, const char *src, const char *what, CoordError *err)
{
    if (strlen(src) >= size)
        return fail(err, "%s: '%s' is too long", what, src);
    snprintf(dst, size, "%s", src);
    return true;
}

/* Appends "Name=Value" to an engine's option list. */
static bool add_option(EngineSpec *e, const char *nv, CoordError *err)
{
    size_t n = strlen(e->options);
    if (n + strlen(nv) + 2 > sizeof e->options)
        return fail(err, "too many engine options");
    snprintf(e->options + n, sizeof e->options - n, "%s%s", n ? ";" : "", nv);
    return true;
}

/* A search limit key of -each or -engine (tc, st, nodes, depth) as the coordinator's
 * option name ("--movetime" for st) and value; false with *handled unset for others. */
static bool limit_option(const char *key, const char *val, char opt[16], char value[32],
                         bool *handled, CoordError *err)
{
    *handled = true;
    if (strlen(val) >= 32)
        return fail(err, "%s=%s: too long", key, val);
    snprintf(value, 32, "%s", val);
    if (!strcmp(key, "st")) {
        char *end;
        double s = strtod(val, &end);
        if (*end || !(s > 0 && s <= 3600))
            return fail(err, "st=%s: not a number of seconds", val);
        snprintf(value, 32, "%d", (int)(s * 1000 + 0.5));
        snprintf(opt, 16, "--movetime");
    } else if (!strcmp(key, "tc") || !strcmp(key, "nodes") || !strcmp(key, "depth")) {
        snprintf(opt, 16, "--%.8s", key);
    } else {
        *handled = false;
    }
    return true;
}

/* The limits of -each. */
static bool limit(Builder *b, const char *key, const char *val, bool *handled)
{
    char opt[16], value[32];
    if (!limit_option(key, val, opt, value, handled, b->err))
        return false;
    if (*handled)
        return push2(b, opt, value);
    *handled = true;
    if (!strcmp(key, "timemargin"))
        return push2(b, "--timemargin", val);
    if (!strcmp(key, "hash"))
        return push2(b, "--hash", val);
    *handled = false;
    return true;
}

/* One key=value (or "builtin") of an -engine or -each. */
static bool engine_word(Builder *b, EngineSpec *e, const char *w, bool each)
{
    CoordError *err = b->err;
    if (!strcmp(w, "builtin")) {
        e->builtin = true;
        return true;
    }
    const char *eq = strchr(w, '=');
    if (!eq)
        return fail(err, "%s: '%s' is not key=value", each ? "-each" : "-engine", w);
    char key[64];
    size_t kn = (size_t)(eq - w);
    if (kn >= sizeof key)
        return fail(err, "'%s': key too long", w);
    memcpy(key, w, kn);
    key[kn] = '\0';
    const char *val = eq + 1;
    if (!strncmp(key, "option.", 7))
        return add_option(e, w + 7, err);
    if (!strcmp(key, "name"))
        return copy_to(e->name, sizeof e->name, val, "name", err);
    if (!strcmp(key, "cmd"))
        return copy_to(e->cmd, sizeof e->cmd, val, "cmd", err);
    if (!strcmp(key, "args")) {
        size_t n = strlen(e->cmd);
        if (n + strlen(val) + 2 > sizeof e->cmd)
            return fail(err, "args: too long");
        snprintf(e->cmd + n, sizeof e->cmd - n, " %s", val);
        return true;
    }
    if (!strcmp(key, "dir"))
        return copy_to(e->dir, sizeof e->dir, val, "dir", err);
    if (!strcmp(key, "proto"))
        return copy_to(e->proto, sizeof e->proto, val, "proto", err);
    if (!strcmp(key, "weights"))
        return copy_to(e->weights, sizeof e->weights, val, "weights", err);
    if (each) {
        bool handled;
        if (!limit(b, key, val, &handled))
            return false;
        if (handled)
            return true;
    } else if (!strcmp(key, "timemargin")) {
        return fail(err, "-engine timemargin: one margin holds for every engine: give it in -each");
    } else {
        bool handled;
        if (e->nlimits == 4)
            return fail(err, "-engine %s: too many limits", key);
        if (!limit_option(key, val, e->limit_opt[e->nlimits], e->limit_val[e->nlimits], &handled,
                          err))
            return false;
        if (handled) {
            e->nlimits++;
            return true;
        }
    }
    return fail(err, "%s: unknown key '%s'", each ? "-each" : "-engine", key);
}

/* Words of a tournament option: up to the next one that starts with '-'. */
static int words(int argc, char **argv, int i)
{
    int n = 0;
    while (i + 1 + n < argc && argv[i + 1 + n][0] != '-')
        n++;
    return n;
}

static bool one_value(int argc, char **argv, int i, const char **val, CoordError *err)
{
    if (words(argc, argv, i) < 1)
        return fail(err, "%s needs a value", argv[i]);
    *val = argv[i + 1];
    return true;
}

/* key=value words of an option into a callback-free parse: finds key, NULL if absent. */
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
            return fail(err, "%s: unknown or unsupported '%s'", opt, w[i]);
    }
    return true;
}

static bool emit_engine(Builder *b, const EngineSpec *e, int p)
{
    char sfx[16];
    const char *side = coord_engine_suffix(p, sfx);
    char opt[32];
    if (e->cmd[0] && e->builtin)
        return fail(b->err, "engine %d: builtin and cmd= exclude each other", p + 1);
    if (e->cmd[0] && e->weights[0])
        return fail(b->err, "engine %d: weights= is for the built-in engine", p + 1);
    if (e->name[0]) {
        snprintf(opt, sizeof opt, "--name-%s", side);
        if (!push2(b, opt, e->name))
            return false;
    }
    if (e->weights[0]) {
        snprintf(opt, sizeof opt, "--weights-%s", side);
        if (!push2(b, opt, e->weights))
            return false;
    }
    for (int k = 0; k < e->nlimits; k++) {
        snprintf(opt, sizeof opt, "%s-%s", e->limit_opt[k], side);
        if (!push2(b, opt, e->limit_val[k]))
            return false;
    }
    if (!e->cmd[0]) {
        if (e->proto[0] || e->options[0] || e->dir[0])
            return fail(b->err, "engine %d: proto, option.* and dir need cmd=", p + 1);
        return true;
    }
    snprintf(opt, sizeof opt, "--cmd-%s", side);
    if (!push2(b, opt, e->cmd))
        return false;
    if (e->proto[0]) {
        snprintf(opt, sizeof opt, "--proto-%s", side);
        if (!push2(b, opt, e->proto))
            return false;
    }
    if (e->options[0]) {
        snprintf(opt, sizeof opt, "--options-%s", side);
        if (!push2(b, opt, e->options))
            return false;
    }
    if (e->dir[0]) {
        snprintf(opt, sizeof opt, "--dir-%s", side);
        if (!push2(b, opt, e->dir))
            return false;
    }
    return true;
}

/* eng: room for COORD_MAX_ENGINES engines, zeroed. */
static bool translate(int argc, char **argv, Builder *b, EngineSpec *eng)
{
    CoordError *err = b->err;
    EngineSpec each;
    memset(&each, 0, sizeof each);
    int nengines = 0;
    long long rounds = -1, games = -1;
    const char *tournament = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '-') {
            if (!push(b, a))
                return false;
            continue;
        }
        int n = words(argc, argv, i);
        char **w = argv + i + 1;
        const char *val = NULL;
        if (!strcmp(a, "-engine")) {
            if (nengines == COORD_MAX_ENGINES)
                return fail(err, "-engine: at most %d engines", COORD_MAX_ENGINES);
            for (int k = 0; k < n; k++)
                if (!engine_word(b, &eng[nengines], w[k], false))
                    return false;
            nengines++;
        } else if (!strcmp(a, "-each")) {
            for (int k = 0; k < n; k++)
                if (!engine_word(b, &each, w[k], true))
                    return false;
        } else if (!strcmp(a, "-tournament")) {
            TourKind kind;
            if (!one_value(argc, argv, i, &val, err))
                return false;
            if (!tournament_kind_parse(val, &kind))
                return fail(err, "-tournament: '%s' is not round-robin (roundrobin) or gauntlet",
                            val);
            tournament = tournament_kind_name(kind);
        } else if (!strcmp(a, "-openings")) {
            static const char *const keys[] = {"file",  "format", "order", "seed",
                                               "start", "plies",  NULL};
            if (!only_keys(w, n, a, keys, err))
                return false;
            const char *file = kv(w, n, "file"), *format = kv(w, n, "format");
            const char *order = kv(w, n, "order"), *seed = kv(w, n, "seed");
            const char *start = kv(w, n, "start"), *plies = kv(w, n, "plies");
            if (!file)
                return fail(err, "-openings: file= is required");
            if (format && strcmp(format, "epd") && strcmp(format, "pgn"))
                return fail(err, "-openings: format=%s is not epd or pgn", format);
            if (order && strcmp(order, "sequential") && strcmp(order, "random"))
                return fail(err, "-openings: order=%s is not sequential or random", order);
            if (!push2(b, "--openings", file) || (seed && !push2(b, "--seed", seed)) ||
                (format && !push2(b, "--opening-format", format)) ||
                (order && !push2(b, "--opening-order", order)) ||
                (start && !push2(b, "--opening-start", start)) ||
                (plies && !push2(b, "--opening-plies", plies)))
                return false;
        } else if (!strcmp(a, "-rounds") || !strcmp(a, "-games")) {
            if (!one_value(argc, argv, i, &val, err))
                return false;
            char *end;
            long long v = strtoll(val, &end, 10);
            if (*end || v < 1)
                return fail(err, "%s: '%s' is not a positive number", a, val);
            if (a[1] == 'r')
                rounds = v;
            else
                games = v;
        } else if (!strcmp(a, "-sprt")) {
            char text[128] = "";
            for (int k = 0; k < n; k++) {
                size_t l = strlen(text), wl = strlen(w[k]);
                if (l + wl + 2 > sizeof text)
                    return fail(err, "-sprt: too long");
                if (l)
                    text[l++] = ' ';
                memcpy(text + l, w[k], wl + 1);
            }
            if (!push2(b, "--sprt", text))
                return false;
        } else if (!strcmp(a, "-maxmoves")) {
            if (!one_value(argc, argv, i, &val, err))
                return false;
            char plies[32];
            snprintf(plies, sizeof plies, "%ld", 2 * strtol(val, NULL, 10));
            if (!push2(b, "--max-plies", plies))
                return false;
        } else if (!strcmp(a, "-resign")) {
            static const char *const keys[] = {"movecount", "score", "twosided", NULL};
            if (!only_keys(w, n, a, keys, err))
                return false;
            const char *mc = kv(w, n, "movecount"), *sc = kv(w, n, "score");
            if (!mc || !sc)
                return fail(err, "-resign: give movecount= and score=");
            if (!push2(b, "--resign-moves", mc) || !push2(b, "--resign-score", sc))
                return false;
        } else if (!strcmp(a, "-draw")) {
            static const char *const keys[] = {"movenumber", "movecount", "score", NULL};
            if (!only_keys(w, n, a, keys, err))
                return false;
            const char *mn = kv(w, n, "movenumber"), *mc = kv(w, n, "movecount");
            const char *sc = kv(w, n, "score");
            if (!mc || !sc)
                return fail(err, "-draw: give movecount= and score=");
            char after[32];
            snprintf(after, sizeof after, "%ld", mn ? 2 * strtol(mn, NULL, 10) : 0L);
            if (!push2(b, "--draw-after", after) || !push2(b, "--draw-moves", mc) ||
                !push2(b, "--draw-score", sc))
                return false;
        } else if (!strcmp(a, "-pgnout")) {
            if (!one_value(argc, argv, i, &val, err))
                return false;
            if (!strncmp(val, "file=", 5))
                val += 5;
            if (!push2(b, "--pgnout", val))
                return false;
        } else if (!strcmp(a, "-ratinginterval")) {
            if (!one_value(argc, argv, i, &val, err) || !push2(b, "--rating-interval", val))
                return false;
        } else if (!strcmp(a, "-repeat") || !strcmp(a, "-recover") || !strcmp(a, "-concurrency")) {
            /* pairs are always played with colours swapped; crashed engines are always
             * restarted; the MPI job's size sets the concurrency */
        } else {
            return fail(err, "unknown option '%s' (see --help)", a);
        }
        i += n;
    }
    TourKind kind = TOUR_ROUNDROBIN;
    if (tournament)
        tournament_kind_parse(tournament, &kind);
    if (rounds > 0 || games > 0) {
        /* every pairing plays -rounds rounds of -games games (2 by default: one pair) */
        uint64_t pairings = nengines > 2 ? tournament_pairings(kind, nengines) : 1;
        long long total = (rounds > 0 ? rounds : 1) * (games > 0 ? games : 2) * (long long)pairings;
        char t[32];
        snprintf(t, sizeof t, "%lld", total);
        if (!push2(b, "--games", t))
            return false;
    }
    if (nengines == 1)
        return fail(err, "-engine: give at least two engines");
    if (nengines > 2) {
        char count[16];
        snprintf(count, sizeof count, "%d", nengines);
        if (!push2(b, "--engines", count) || !push2(b, "--tournament", tournament_kind_name(kind)))
            return false;
    }
    if (nengines == 0 && (each.cmd[0] || each.options[0] || each.proto[0]))
        return fail(err, "-each: cmd, proto and option.* need -engine");
    for (int p = 0; p < nengines; p++) {
        EngineSpec *e = &eng[p];
        if (!e->cmd[0] && each.cmd[0] && !e->builtin)
            snprintf(e->cmd, sizeof e->cmd, "%s", each.cmd);
        if (!e->proto[0] && e->cmd[0])
            snprintf(e->proto, sizeof e->proto, "%s", each.proto);
        if (!e->dir[0] && e->cmd[0])
            snprintf(e->dir, sizeof e->dir, "%s", each.dir);
        if (!e->weights[0] && !e->cmd[0])
            snprintf(e->weights, sizeof e->weights, "%s", each.weights);
        if (each.options[0] && e->cmd[0]) {
            char mine[sizeof e->options];
            snprintf(mine, sizeof mine, "%s", e->options);
            snprintf(e->options, sizeof e->options, "%s", each.options);
            if (mine[0] && !add_option(e, mine, err))
                return false;
        }
        if (!emit_engine(b, e, p))
            return false;
    }
    return true;
}

bool coord_cli_translate(int argc, char **argv, CoordArgs *out, CoordError *err)
{
    out->argc = 0;
    out->argv = calloc(MAX_OUT, sizeof *out->argv);
    if (!out->argv)
        COORD_FATAL("out of memory");
    Builder b = {out, err};
    EngineSpec *eng = calloc(COORD_MAX_ENGINES, sizeof *eng);
    if (!eng)
        COORD_FATAL("out of memory");
    bool ok = translate(argc, argv, &b, eng);
    free(eng);
    if (!ok)
        coord_args_free(out);
    return ok;
}

void coord_args_free(CoordArgs *a)
{
    if (!a->argv)
        return;
    for (int i = 0; i < a->argc; i++)
        free(a->argv[i]);
    free(a->argv);
    a->argv = NULL;
    a->argc = 0;
}
