#include "coord_spsa.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cliopt.h"
#include "error.h"
#include "numparse.h"
#include "rng.h"
#include "coord_sched.h"
#include "spsa_params.h"

/* ---- the --spsa setting ---------------------------------------------------------- */

/* The keys of --spsa, read by the shared parser (engine/cliopt.h). */
#define SET(f) offsetof(SpsaSettings, f), sizeof(((SpsaSettings *)0)->f)
static const CliOpt SETTINGS_KEYS[] = {
    {"params", NULL, CLIOPT_PATH, SET(params), 0, 0, 0, CLIOPT_NONEMPTY, "FILE", NULL, NULL},
    {"pairs", NULL, CLIOPT_U64, SET(pairs), 1, 0x1p39, 0, 0, "N", NULL, NULL},
    {"A", NULL, CLIOPT_DOUBLE, SET(A), 0, 1e12, 0, 0, "X", NULL, NULL},
    {"alpha", NULL, CLIOPT_DOUBLE, SET(alpha), 0, 10, 0, 0, "X", NULL, NULL},
    {"gamma", NULL, CLIOPT_DOUBLE, SET(gamma), 0, 10, 0, 0, "X", NULL, NULL},
    {"window", NULL, CLIOPT_U64, SET(window), 0, 0x1p20, 0, 0, "W", NULL, NULL},
};
#undef SET

bool coord_spsa_settings_parse(const char *text, SpsaSettings *s, CoordError *err)
{
    memset(s, 0, sizeof *s);
    s->A = -1;
    s->alpha = SPSA_DEFAULT_ALPHA;
    s->gamma = SPSA_DEFAULT_GAMMA;
    s->window = SPSA_DEFAULT_WINDOW;
    char copy[COORD_PATH_MAX + 256], *words[16];
    int n = 0;
    if (strlen(text) >= sizeof copy)
        return ERROR_SET(err, "--spsa: too long");
    snprintf(copy, sizeof copy, "%s", text);
    for (char *save, *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (n == (int)(sizeof words / sizeof words[0]))
            return ERROR_SET(err, "--spsa: more than %d words", n);
        words[n++] = w;
    }
    CliOptSpec spec = {
        .opts = SETTINGS_KEYS, .nopts = sizeof SETTINGS_KEYS / sizeof SETTINGS_KEYS[0], .dest = s};
    if (!cliopt_parse_words(&spec, "--spsa", n, words, err->msg, sizeof err->msg))
        return false;
    return s->params[0] ? true : ERROR_SET(err, "--spsa: params=FILE is required");
}

bool coord_spsa_settings_text(const SpsaSettings *s, char *buf, size_t size)
{
    int n = snprintf(buf, size,
                     "params=%s pairs=%" PRIu64 " A=%.17g alpha=%.17g gamma=%.17g window=%" PRIu64,
                     s->params, s->pairs, s->A, s->alpha, s->gamma, s->window);
    return n > 0 && (size_t)n < size;
}

/* Whether engine 1 is engine 0 again: same program or weights, options and limits. */
static bool same_engines(const CoordConfig *c)
{
    return !strcmp(c->cmd[0], c->cmd[1]) && !strcmp(c->proto[0], c->proto[1]) &&
           !strcmp(c->options[0], c->options[1]) && !strcmp(c->dir[0], c->dir[1]) &&
           !strcmp(c->weights[0], c->weights[1]) &&
           !strcmp(c->engine_tc[0].text, c->engine_tc[1].text) &&
           c->engine_movetime[0] == c->engine_movetime[1] &&
           c->engine_nodes[0] == c->engine_nodes[1] && c->engine_depth[0] == c->engine_depth[1];
}

bool coord_spsa_finish_config(CoordConfig *c, CoordError *err)
{
    SpsaSettings s;
    if (!c->spsa[0])
        return true;
    if (!coord_spsa_settings_parse(c->spsa, &s, err))
        return false;
    if (!s.pairs)
        s.pairs = coord_sched_pairs_for_games(c->games);
    if (s.A < 0)
        s.A = 0.1 * (double)s.pairs;
    c->games = 2 * s.pairs;
    return coord_spsa_settings_text(&s, c->spsa, sizeof c->spsa)
               ? true
               : ERROR_SET(err, "--spsa: too long");
}

bool coord_spsa_check_config(const CoordConfig *c, CoordError *err)
{
    if (!c->spsa[0])
        return true;
    SpsaSettings s;
    if (!coord_spsa_settings_parse(c->spsa, &s, err))
        return false;
    if (c->sprt[0])
        return ERROR_SET(err, "--sprt and --spsa exclude each other: an SPSA run has no "
                              "hypothesis to test");
    if (c->engines != 2 || !same_engines(c))
        return ERROR_SET(err, "--spsa plays one engine against itself: give one engine (-engine "
                              "once; engine 1 the same as engine 0)");
    if (!s.pairs || s.A < 0 || c->games != 2 * s.pairs) {
        return ERROR_SET(err,
                         "--spsa: an SPSA run plays its pairs=%" PRIu64 " (%" PRIu64
                         " games); its game target does not change",
                         s.pairs, 2 * s.pairs);
    }
    return true;
}

/* ---- the parameter file ---------------------------------------------------------- */

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static bool whole(double v)
{
    return v == floor(v);
}

/* One line's fields into p; false with why. */
static bool parse_line(char *text, RunSpsaParam *p, char *why, size_t size)
{
    char *field[8];
    int n = 0;
    for (char *save, *f = strtok_r(text, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        if (n == 8)
            break;
        field[n++] = trim(f);
    }
    if (n != 6 && n != 7)
        return error_set(why, size,
                         "%d fields; expected 'name, int|float, value, min, max, "
                         "c_end, r_end' (or the same without the type)",
                         n);
    memset(p, 0, sizeof *p);
    const char *name = field[0];
    if (!name[0] || strlen(name) >= sizeof p->name)
        return error_set(why, size, "the name must have 1 to %zu characters", sizeof p->name - 1);
    if (!runfile_spsa_name_ok(name))
        return error_set(why, size, "a name is printable ASCII without '=' or ';'");
    snprintf(p->name, sizeof p->name, "%s", name);
    int at = n - 5;
    if (n == 7 && strcmp(field[1], "int") && strcmp(field[1], "float"))
        return error_set(why, size, "%s: type '%s' is not int or float", name, field[1]);
    static const char *const WHAT[5] = {"value", "min", "max", "c_end", "r_end"};
    double v[5];
    for (int k = 0; k < 5; k++) {
        char option[96];
        snprintf(option, sizeof option, "%s: %s", name, WHAT[k]);
        if (!numparse_double(option, field[at + k], -1e15, 1e15, &v[k], why, size))
            return false;
    }
    p->start = v[0], p->min = v[1], p->max = v[2], p->c_end = v[3], p->r_end = v[4];
    bool is_int = n == 7 ? !strcmp(field[1], "int") : whole(v[0]) && whole(v[1]) && whole(v[2]);
    snprintf(p->type, sizeof p->type, "%s", is_int ? "int" : "float");
    if (!(p->min < p->max))
        return error_set(why, size, "%s: min %g is not below max %g", name, p->min, p->max);
    if (is_int && (!whole(p->min) || !whole(p->max)))
        return error_set(why, size, "%s: an int parameter has whole bounds", name);
    if (p->start < p->min || p->start > p->max)
        return error_set(why, size, "%s: value %g is outside its bounds %g..%g", name, p->start,
                         p->min, p->max);
    if (!(p->c_end > 0) || !(p->r_end > 0))
        return error_set(why, size, "%s: c_end and r_end must be above 0", name);
    return true;
}

bool coord_spsa_file_read(const char *path, SpsaFile *f, CoordError *err)
{
    f->n = 0;
    FILE *in = fopen(path, "r");
    if (!in)
        return ERROR_SET(err, "%s: %s", path, strerror(errno));
    char buf[1024], why[400];
    int line = 0;
    bool ok = true;
    while (ok && fgets(buf, sizeof buf, in)) {
        line++;
        if (!strchr(buf, '\n') && !feof(in)) {
            ok = ERROR_SET(err, "%s:%d: line too long", path, line);
            break;
        }
        buf[strcspn(buf, "#")] = '\0';
        char *text = trim(buf);
        if (!text[0])
            continue;
        if (f->n == SPSA_MAX_PARAMS) {
            ok = ERROR_SET(err, "%s:%d: more than %d parameters", path, line, SPSA_MAX_PARAMS);
            break;
        }
        RunSpsaParam *p = &f->param[f->n];
        if (!parse_line(text, p, why, sizeof why)) {
            ok = ERROR_SET(err, "%s:%d: %s", path, line, why);
            break;
        }
        for (int k = 0; k < f->n; k++)
            if (!strcmp(f->param[k].name, p->name))
                ok = ERROR_SET(err, "%s:%d: %s is given twice (first on line %d)", path, line,
                               p->name, f->line[k]);
        f->line[f->n++] = line;
    }
    if (ok && ferror(in))
        ok = ERROR_SET(err, "%s: read error", path);
    fclose(in);
    if (ok && f->n == 0)
        ok = ERROR_SET(err, "%s: no parameter in the file", path);
    return ok;
}

bool coord_spsa_file_check_builtin(SpsaFile *f, const char *path, CoordError *err)
{
    for (int i = 0; i < f->n; i++) {
        RunSpsaParam *p = &f->param[i];
        int k = spsa_params_find(p->name);
        if (k < 0)
            return ERROR_SET(err,
                             "%s:%d: '%s' is not a search parameter of the built-in engine "
                             "(bin/chuhe-engine spsa-params lists them)",
                             path, f->line[i], p->name);
        const SpsaParamInfo *in = &SPSA_PARAM_INFO[k];
        if (strcmp(p->type, "int"))
            return ERROR_SET(err, "%s:%d: %s: the built-in engine's parameters are int", path,
                             f->line[i], p->name);
        if (p->min < in->min || p->max > in->max)
            return ERROR_SET(err, "%s:%d: %s: bounds %g..%g exceed the engine's %d..%d", path,
                             f->line[i], p->name, p->min, p->max, in->min, in->max);
        snprintf(p->name, sizeof p->name, "%s", in->name);
    }
    return true;
}

/* ---- the iterations -------------------------------------------------------------- */

bool coord_spsa_init(Spsa *s, const SpsaSettings *set, uint64_t seed, const RunSpsaParam *params,
                     int n, uint16_t plus_player)
{
    memset(s, 0, sizeof *s);
    s->set = *set;
    s->seed = seed;
    s->n = n;
    s->plus_player = plus_player;
    double pairs = (double)set->pairs;
    for (int i = 0; i < n; i++) {
        const RunSpsaParam *p = &params[i];
        s->param[i] = *p;
        s->c[i] = p->c_end * pow(pairs, set->gamma);
        s->a[i] = p->r_end * p->c_end * p->c_end * pow(set->A + pairs, set->alpha);
    }
    if (!array_reserve((void **)&s->theta, &s->theta_cap, (size_t)n * 64, sizeof *s->theta, 1))
        return false;
    for (int i = 0; i < n; i++)
        s->theta[i] = params[i].start;
    return true;
}

void coord_spsa_free(Spsa *s)
{
    free(s->theta);
    s->theta = NULL;
    s->theta_cap = 0;
}

const double *coord_spsa_theta(const Spsa *s, uint64_t j)
{
    return s->theta + j * (uint64_t)s->n;
}

int coord_spsa_delta(const Spsa *s, uint64_t pair, int i)
{
    /* a keyed hash of the seed and (pair, parameter): one coin per parameter and pair */
    uint64_t z = rng_at(s->seed ^ 0x7370736164656c74ULL /* "spsadelt" */,
                        pair * SPSA_MAX_PARAMS + (uint64_t)i + 1);
    return z >> 63 ? 1 : -1;
}

static double clamp(const RunSpsaParam *p, double v)
{
    return v < p->min ? p->min : v > p->max ? p->max : v;
}

/* A value to play: clamped, and rounded for an int parameter. */
static double playable(const RunSpsaParam *p, double v)
{
    v = clamp(p, v);
    return strcmp(p->type, "int") ? v : round(v);
}

void coord_spsa_values(const Spsa *s, uint64_t pair, double *plus, double *minus)
{
    uint64_t j = pair >= s->set.window ? pair - s->set.window : 0;
    if (j > s->applied)
        j = s->applied; /* never for a pair handed out (coord_spsa_issue_below) */
    const double *theta = coord_spsa_theta(s, j);
    for (int i = 0; i < s->n; i++) {
        double ck = s->c[i] / pow((double)pair + 1, s->set.gamma);
        double d = ck * coord_spsa_delta(s, pair, i);
        plus[i] = playable(&s->param[i], theta[i] + d);
        minus[i] = playable(&s->param[i], theta[i] - d);
    }
}

uint64_t coord_spsa_issue_below(const Spsa *s, const RunFile *rf)
{
    return runfile_spsa_flushed_count(rf) + s->set.window + 1;
}

void coord_spsa_fill_player(const Spsa *s, uint64_t pair, int engine, ProtoPlayer *p)
{
    double plus[SPSA_MAX_PARAMS], minus[SPSA_MAX_PARAMS];
    coord_spsa_values(s, pair, plus, minus);
    p->ntuned = (uint8_t)s->n;
    for (int i = 0; i < s->n; i++) {
        snprintf(p->tuned[i].name, sizeof p->tuned[i].name, "%s", s->param[i].name);
        p->tuned[i].value = engine == 0 ? plus[i] : minus[i];
    }
}

/* The pair's result for plus (-2..2), once both its games are stored. */
static bool pair_result(const Spsa *s, const RunFile *rf, uint64_t pair, int *result)
{
    *result = 0;
    for (unsigned g = 0; g < 2; g++) {
        uint64_t id;
        if (!runfile_find_game(rf, pair, g, &id))
            return false;
        const RunGame *game = runfile_game(rf, id);
        *result += game->red == s->plus_player ? game->outcome : -game->outcome;
    }
    return true;
}

/* The row of update `applied` (pair `applied`, result given), theta after it included. */
static void next_row(const Spsa *s, int result, RunSpsaRow *row)
{
    uint64_t k = s->applied;
    memset(row, 0, sizeof *row);
    row->pair_id = k;
    row->result = (int8_t)result;
    coord_spsa_values(s, k, row->plus, row->minus);
    const double *theta = coord_spsa_theta(s, k);
    for (int i = 0; i < s->n; i++) {
        double ak = s->a[i] / pow(s->set.A + (double)k + 1, s->set.alpha);
        double ck = s->c[i] / pow((double)k + 1, s->set.gamma);
        row->delta[i] = (int8_t)coord_spsa_delta(s, k, i);
        row->theta[i] = clamp(&s->param[i], theta[i] + ak / ck * result * row->delta[i]);
    }
}

/* Makes row's theta the current one. */
static bool commit(Spsa *s, const RunSpsaRow *row)
{
    size_t need = (size_t)(s->applied + 2) * (size_t)s->n;
    if (!array_reserve((void **)&s->theta, &s->theta_cap, need, sizeof *s->theta, 1))
        return false;
    memcpy(s->theta + (s->applied + 1) * (uint64_t)s->n, row->theta,
           (size_t)s->n * sizeof *s->theta);
    s->applied++;
    return true;
}

bool coord_spsa_catch_up(Spsa *s, RunFile *rf, CoordError *err)
{
    int result;
    while (s->applied < s->set.pairs && pair_result(s, rf, s->applied, &result)) {
        RunSpsaRow row;
        RunError rerr;
        next_row(s, result, &row);
        if (!runfile_spsa_append(rf, &row, &rerr))
            return ERROR_SET(err, "%s", rerr.msg);
        if (!commit(s, &row))
            return ERROR_SET(err, "out of memory for the SPSA history");
    }
    return true;
}

bool coord_spsa_restore(Spsa *s, RunFile *rf, CoordError *err)
{
    uint64_t rows = runfile_spsa_count(rf);
    for (uint64_t k = 0; k < rows; k++) {
        RunSpsaRow stored, want;
        RunError rerr;
        int result;
        if (!runfile_spsa_read(rf, k, 1, &stored, &rerr))
            return ERROR_SET(err, "%s", rerr.msg);
        if (!pair_result(s, rf, k, &result))
            return ERROR_SET(err, "%s: SPSA iteration %" PRIu64 " has no complete pair",
                             runfile_path(rf), k);
        next_row(s, result, &want);
        if (memcmp(&stored, &want, sizeof want))
            return ERROR_SET(err,
                             "%s: SPSA iteration of pair %" PRIu64
                             " differs from its recomputation from the seed, the --spsa "
                             "settings and the pair's games",
                             runfile_path(rf), k);
        if (!commit(s, &stored))
            return ERROR_SET(err, "out of memory for the SPSA history");
    }
    return coord_spsa_catch_up(s, rf, err);
}

bool coord_spsa_load_history(Spsa *s, RunFile *rf, CoordError *err)
{
    memset(s, 0, sizeof *s);
    int n = runfile_spsa_param_count(rf);
    if (n == 0)
        return ERROR_SET(err, "%s: not an SPSA run (no /spsa_params)", runfile_path(rf));
    RunSpsaParam params[SPSA_MAX_PARAMS];
    for (int i = 0; i < n; i++)
        params[i] = *runfile_spsa_param(rf, i);
    SpsaSettings set;
    memset(&set, 0, sizeof set);
    if (!coord_spsa_init(s, &set, 0, params, n, 0))
        return ERROR_SET(err, "out of memory");
    uint64_t rows = runfile_spsa_count(rf);
    for (uint64_t k = 0; k < rows; k++) {
        RunSpsaRow row;
        RunError rerr;
        if (!runfile_spsa_read(rf, k, 1, &row, &rerr))
            return ERROR_SET(err, "%s", rerr.msg);
        if (!commit(s, &row))
            return ERROR_SET(err, "out of memory for the SPSA history");
    }
    return true;
}
