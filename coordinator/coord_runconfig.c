#include "coord_runconfig.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "coord_json.h"
#include "coord_options.h"
#include "error.h"
#include "textesc.h"
#include "coord_tournament.h"

/* Whether o is stored: a run setting, not the --weights shorthand. */
static bool stored_setting(const CoordOpt *o)
{
    return (o->flags & COORD_OPT_RUN) && !(o->flags & COORD_OPT_BOTH);
}

bool coord_runconfig_write(const CoordConfig *c, char *buf, size_t size)
{
    size_t len = 0;
    if (!coord_json_append(buf, size, &len, "{\"format\":\"%s\"", COORD_CONFIG_FORMAT))
        return false;
    for (int i = 0; i < coord_options_count(); i++) {
        const CoordOpt *o = coord_options_at(i);
        if (!stored_setting(o) || coord_options_engine(o) >= c->engines)
            continue;
        char key[64];
        coord_options_json_key(o, key, sizeof key);
        bool ok = coord_json_append(buf, size, &len, ",\"%s\":", key);
        const void *p = coord_options_cfield(c, o);
        switch (o->kind) {
        case CLIOPT_U64:
            ok = ok && coord_json_append(buf, size, &len, "%" PRIu64, *(const uint64_t *)p);
            break;
        case CLIOPT_INT:
            ok = ok && coord_json_append(buf, size, &len, "%d", *(const int *)p);
            break;
        case CLIOPT_PATH:
        case CLIOPT_TEXT:
            ok = ok && coord_json_string(buf, size, &len, p);
            break;
        case CLIOPT_TC: /* as the user gave it */
            ok = ok && coord_json_string(buf, size, &len, ((const CliTimeControl *)p)->text);
            break;
        default:
            ok = false;
        }
        if (!ok)
            return false;
    }
    return coord_json_append(buf, size, &len, "}");
}

/*
 * A reader for the flat objects coord_runconfig_write writes: string and integer values
 * only.
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

/* The character of a backslash escape at j->p (after the backslash). */
static bool escape(Json *j, unsigned *c)
{
    char e = *j->p++;
    if (e == '"' || e == '\\' || e == '/') {
        *c = (unsigned char)e;
        return true;
    }
    if (e == 'n' || e == 't' || e == 'r') {
        *c = e == 'n' ? '\n' : e == 't' ? '\t' : '\r';
        return true;
    }
    if (e != 'u')
        return ERROR_SET(j->err, "run_config: bad escape '\\%c'", e);
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char h = *j->p++;
        int d = h >= '0' && h <= '9'   ? h - '0'
                : h >= 'a' && h <= 'f' ? h - 'a' + 10
                : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                       : -1;
        if (d < 0)
            return ERROR_SET(j->err, "run_config: bad \\u escape");
        v = v * 16 + (unsigned)d;
    }
    if (v > 0x7f)
        return ERROR_SET(j->err, "run_config: \\u escape beyond ASCII");
    *c = v;
    return true;
}

static bool json_string(Json *j, char *out, size_t size)
{
    if (*j->p != '"')
        return ERROR_SET(j->err, "run_config: expected a string at '%.20s'", j->p);
    j->p++;
    size_t n = 0;
    while (*j->p != '"') {
        unsigned c = (unsigned char)*j->p;
        if (!c)
            return ERROR_SET(j->err, "run_config: unterminated string");
        j->p++;
        if (c == '\\' && !escape(j, &c))
            return false;
        if (n + 1 >= size)
            return ERROR_SET(j->err, "run_config: string too long");
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
            return ERROR_SET(j->err, "run_config: number too long");
        out[n++] = *j->p++;
    }
    out[n] = '\0';
    return n > 0 ? true : ERROR_SET(j->err, "run_config: expected a value at '%.20s'", j->p);
}

static const CoordOpt *setting_by_key(const char *key)
{
    for (int i = 0; i < coord_options_count(); i++) {
        const CoordOpt *o = coord_options_at(i);
        if (!stored_setting(o))
            continue;
        char k[64];
        coord_options_json_key(o, k, sizeof k);
        if (!strcmp(k, key))
            return o;
    }
    return NULL;
}

/* One "key":value of the object into c; *format_seen once the format key was read. */
static bool member(Json *j, CoordConfig *c, bool *format_seen)
{
    char key[64], value[COORD_PATH_MAX + 64];
    skip_ws(j);
    if (!json_string(j, key, sizeof key))
        return false;
    skip_ws(j);
    if (*j->p++ != ':')
        return ERROR_SET(j->err, "run_config: expected ':' after \"%s\"", key);
    skip_ws(j);
    bool quoted = *j->p == '"';
    if (!(quoted ? json_string(j, value, sizeof value) : json_number(j, value, sizeof value)))
        return false;
    if (!strcmp(key, "format")) {
        if (strcmp(value, COORD_CONFIG_FORMAT))
            return ERROR_SET(j->err, "run_config: format '%s', expected '%s'", value,
                             COORD_CONFIG_FORMAT);
        *format_seen = true;
        return true;
    }
    const CoordOpt *o = setting_by_key(key);
    if (!o)
        return ERROR_SET(j->err, "run_config: unknown setting \"%s\"", key);
    bool is_text = o->kind == CLIOPT_PATH || o->kind == CLIOPT_TEXT || o->kind == CLIOPT_TC;
    if (quoted != is_text)
        return ERROR_SET(j->err, "run_config: \"%s\" has the wrong type", key);
    CoordError e2;
    if (!coord_options_set(c, o, value, &e2))
        return ERROR_SET(j->err, "run_config: %s", e2.msg);
    return true;
}

static bool read_object(CoordConfig *c, const char *text, CoordError *err)
{
    Json j = {text, err};
    bool format_seen = false;
    skip_ws(&j);
    if (*j.p++ != '{')
        return ERROR_SET(err, "run_config is not a JSON object");
    skip_ws(&j);
    if (*j.p == '}')
        return ERROR_SET(err, "run_config is empty");
    for (;;) {
        if (!member(&j, c, &format_seen))
            return false;
        skip_ws(&j);
        if (*j.p == ',') {
            j.p++;
            continue;
        }
        if (*j.p++ != '}')
            return ERROR_SET(err, "run_config: expected ',' or '}'");
        break;
    }
    skip_ws(&j);
    if (*j.p)
        return ERROR_SET(err, "run_config: text after the object");
    return format_seen ? true : ERROR_SET(err, "run_config: no format key (not a chuhe run file?)");
}

bool coord_runconfig_read(CoordConfig *c, const char *text, CoordError *err)
{
    if (read_object(c, text, err))
        return true;
    /* the message may quote a damaged file's bytes: shown, never sent to a terminal */
    if (err) {
        char raw[sizeof err->msg];
        memcpy(raw, err->msg, sizeof raw);
        textesc_printable(err->msg, sizeof err->msg, raw);
    }
    return false;
}

/* The option's value as text, for messages. */
static void value_text(const CoordConfig *c, const CoordOpt *o, char *buf, size_t size)
{
    const void *p = coord_options_cfield(c, o);
    switch (o->kind) {
    case CLIOPT_U64:
        snprintf(buf, size, "%" PRIu64, *(const uint64_t *)p);
        break;
    case CLIOPT_INT:
        snprintf(buf, size, "%d", *(const int *)p);
        break;
    case CLIOPT_PATH:
    case CLIOPT_TEXT:
        snprintf(buf, size, "'%s'", (const char *)p);
        break;
    case CLIOPT_TC:
        snprintf(buf, size, "'%s'", ((const CliTimeControl *)p)->text);
        break;
    default:
        snprintf(buf, size, "?");
    }
}

/* The kind of run c describes, for messages: "an SPSA run", "a round robin of 3
 * engines", "a self-play run" (two built-in engines with the same weights), "a match". */
static void run_kind(const CoordConfig *c, char *buf, size_t size)
{
    TourKind kind = TOUR_ROUNDROBIN;
    if (c->spsa[0])
        snprintf(buf, size, "an SPSA run");
    else if (c->engines > 2)
        snprintf(buf, size, "a %s of %d engines",
                 coord_tournament_kind_parse(c->tournament, &kind) && kind == TOUR_GAUNTLET
                     ? "gauntlet"
                     : "round robin",
                 c->engines);
    else if (!c->cmd[0][0] && !c->cmd[1][0] && !strcmp(c->weights[0], c->weights[1]))
        snprintf(buf, size, "a self-play run");
    else
        snprintf(buf, size, "a match");
}

/* Whether o says which engines a run has: --engines, or an engine's name, command,
 * protocol or weights. */
static bool engine_identity(const CoordOpt *o)
{
    static const char *const prefixes[] = {"--engines", "--name-", "--cmd-", "--proto-",
                                           "--weights-"};
    for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++)
        if (!strncmp(o->name, prefixes[k], strlen(prefixes[k])))
            return true;
    return false;
}

/* A command line for another kind of run than the stored one (SPSA or not): one line
 * naming both kinds, rather than the first engine setting that differs. */
static bool same_kind(const CoordGiven *given, const CoordConfig *cmd, const CoordConfig *stored,
                      const CoordOpt *differing, CoordError *err)
{
    bool spsa_given = coord_options_given(given, "--spsa");
    char was[64], now[64];
    run_kind(stored, was, sizeof was);
    if (spsa_given && !stored->spsa[0])
        return ERROR_SET(err,
                         "%s; -spsa cannot resume it as an SPSA run (leave -spsa and its -engine "
                         "out to continue it, or give a new --out file)",
                         was);
    if (stored->spsa[0] && !spsa_given && differing && engine_identity(differing)) {
        run_kind(cmd, now, sizeof now);
        return ERROR_SET(err,
                         "%s; the command line describes %s (%s differs), which cannot resume "
                         "it (give the -spsa command it began with, or only --out, to continue "
                         "it; or a new --out file)",
                         was, now, differing->name);
    }
    if (!stored->spsa[0] && differing && !strcmp(differing->name, "--engines")) {
        run_kind(cmd, now, sizeof now);
        return ERROR_SET(err,
                         "%s; the command line describes %s (leave the engine options out to "
                         "continue it, or give a new --out file)",
                         was, now);
    }
    return true;
}

bool coord_runconfig_merge(CoordConfig *c, const CoordGiven *given, const CoordConfig *cmd,
                           CoordConfig *stored, CoordError *err)
{
    if (!same_kind(given, cmd, stored, NULL, err))
        return false;
    for (int i = 0; i < coord_options_count(); i++) {
        const CoordOpt *o = coord_options_at(i);
        if (!stored_setting(o) || !given->given[i])
            continue;
        const void *now = coord_options_cfield(cmd, o), *was = coord_options_cfield(stored, o);
        bool same = !memcmp(now, was, o->size);
        if (o->kind == CLIOPT_PATH || o->kind == CLIOPT_TEXT)
            same = !strcmp(now, was);
        if (o->kind == CLIOPT_TC) /* the text as given, as before the clock was read */
            same =
                !strcmp(((const CliTimeControl *)now)->text, ((const CliTimeControl *)was)->text);
        if (o->flags & COORD_OPT_RESUMABLE) {
            memcpy(coord_options_field(stored, o), now, o->size);
        } else if (!same) {
            if (!same_kind(given, cmd, stored, o, err))
                return false;
            char was_text[COORD_PATH_MAX + 8], now_text[COORD_PATH_MAX + 8];
            value_text(stored, o, was_text, sizeof was_text);
            value_text(cmd, o, now_text, sizeof now_text);
            return ERROR_SET(err,
                             "%s %s differs from the run's stored %s: a run keeps its settings "
                             "(only --games may change); leave the option out or start a new "
                             "--out file",
                             o->name, now_text, was_text);
        }
    }
    /* Session settings stay the command line's. */
    for (int i = 0; i < coord_options_count(); i++) {
        const CoordOpt *o = coord_options_at(i);
        if (o->flags & COORD_OPT_RUN)
            memcpy(coord_options_field(c, o), coord_options_cfield(stored, o), o->size);
    }
    return true;
}
