#include "coord_spsa_probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "timeman.h"
#include "extengine/extproc.h"

enum { PROBE_MS = 10000 };

static void add_option(SpsaOptions *o, const char *name, size_t len, const char *type)
{
    if (o->n == SPSA_PROBE_OPTIONS_MAX || !len || len >= sizeof o->opt[0].name)
        return;
    SpsaOption *x = &o->opt[o->n++];
    memset(x, 0, sizeof *x);
    memcpy(x->name, name, len);
    snprintf(x->type, sizeof x->type, "%s", type);
}

/* The number after word in text ("min 1" -> 1); false without one. */
static bool number_after(const char *text, const char *word, double *v)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        if ((p == text || p[-1] == ' ') && p[n] == ' ') {
            char *end;
            *v = strtod(p + n + 1, &end);
            return end != p + n + 1;
        }
    return false;
}

/* "option name NAME type T [default D] [min A] [max B] ..." (UCI) or "option NAME type T
 * [min A] [max B] [default D]" (UCCI). */
static void uci_option(SpsaOptions *o, const char *line, bool ucci)
{
    const char *name = line + strlen("option ");
    if (!ucci) {
        if (strncmp(name, "name ", 5))
            return;
        name += 5;
    }
    const char *type = strstr(name, " type ");
    if (!type)
        return;
    char t[16] = "";
    sscanf(type + 6, "%15s", t);
    add_option(o, name, (size_t)(type - name), t);
    SpsaOption *x = &o->opt[o->n - 1];
    x->ranged = !strcmp(t, "spin") && number_after(type, "min", &x->min) &&
                number_after(type, "max", &x->max);
}

/* Every option="NAME -TYPE ..." of an XBoard feature line; true at done=1. */
static bool xboard_features(SpsaOptions *o, const char *line)
{
    for (const char *p = strstr(line, "option=\""); p; p = strstr(p + 1, "option=\"")) {
        const char *name = p + 8, *end = strchr(name, '"');
        const char *dash = strstr(name, " -");
        if (!end || !dash || dash > end)
            continue;
        char t[16] = "";
        sscanf(dash + 2, "%15[a-z]", t);
        add_option(o, name, (size_t)(dash - name), t);
        SpsaOption *x = &o->opt[o->n - 1];
        double def;
        x->ranged = (!strcmp(t, "spin") || !strcmp(t, "slider")) &&
                    sscanf(dash + 2 + strlen(t), "%lf %lf %lf", &def, &x->min, &x->max) == 3;
    }
    return strstr(line, "done=1") != NULL;
}

bool coord_spsa_probe_options(const CoordConfig *cfg, int e, SpsaOptions *out, CoordError *err)
{
    ProtoExtProtocol proto = PROTO_EXT_UCI;
    if (cfg->proto[e][0])
        proto_ext_protocol_parse(cfg->proto[e], &proto);
    out->n = 0;
    ExtProc p;
    extproc_init(&p);
    if (!extproc_spawn(&p, cfg->cmd[e], cfg->dir[e]))
        return ERROR_SET(err, "%s: %s", cfg->cmd[e], p.error);
    bool ucci = proto == PROTO_EXT_UCCI, xboard = proto == PROTO_EXT_XBOARD;
    bool sent = xboard ? extproc_send(&p, "xboard") && extproc_send(&p, "protover 2")
                       : extproc_send(&p, "%s", ucci ? "ucci" : "uci");
    const char *done = ucci ? "ucciok" : "uciok";
    int64_t deadline = time_now_ms() + PROBE_MS;
    char line[EXTPROC_LINE_MAX];
    bool answered = false;
    while (sent && !answered) {
        ExtProcRead r = extproc_read_line(&p, deadline, line, sizeof line);
        if (r != EXTPROC_LINE)
            break;
        if (xboard)
            answered = !strncmp(line, "feature ", 8) && xboard_features(out, line);
        else if (!strncmp(line, "option ", 7))
            uci_option(out, line, ucci);
        else
            answered = !strcmp(line, done);
    }
    extproc_stop(&p, true, "quit");
    if (!answered && p.error[0])
        return ERROR_SET(err, "%s: %s; cannot list its options", cfg->cmd[e], p.error);
    if (!answered)
        return ERROR_SET(err, "%s: no %s within %d s; cannot list its options", cfg->cmd[e],
                         xboard ? "feature done=1" : done, PROBE_MS / 1000);
    return true;
}

bool coord_spsa_probe_check(SpsaFile *f, const char *path, const SpsaOptions *o, const char *engine,
                            CoordError *err)
{
    for (int i = 0; i < f->n; i++) {
        RunSpsaParam *p = &f->param[i];
        const SpsaOption *x = NULL;
        for (int k = 0; k < o->n && !x; k++)
            if (!strcasecmp(o->opt[k].name, p->name))
                x = &o->opt[k];
        if (!x)
            return ERROR_SET(err, "%s:%d: engine %s has no option '%s'", path, f->line[i], engine,
                             p->name);
        bool spin = !strcmp(x->type, "spin") || !strcmp(x->type, "slider");
        if (!spin && strcmp(x->type, "string"))
            return ERROR_SET(err, "%s:%d: %s is a %s option of engine %s, not a number", path,
                             f->line[i], x->name, x->type, engine);
        if (x->ranged && (p->min < x->min || p->max > x->max))
            return ERROR_SET(err, "%s:%d: %s: bounds %g..%g exceed the engine's %g..%g", path,
                             f->line[i], x->name, p->min, p->max, x->min, x->max);
        snprintf(p->name, sizeof p->name, "%s", x->name);
    }
    return true;
}

bool coord_spsa_probe_file(const CoordConfig *cfg, SpsaFile *f, CoordError *err)
{
    SpsaSettings set;
    if (!coord_spsa_settings_parse(cfg->spsa, &set, err) ||
        !coord_spsa_file_read(set.params, f, err))
        return false;
    if (!cfg->cmd[0][0])
        return coord_spsa_file_check_builtin(f, set.params, err);
    SpsaOptions *o = malloc(sizeof *o);
    if (!o)
        return ERROR_SET(err, "out of memory");
    /* the program names the engine: the run's names carry SPSA's +/- */
    char name[PROTO_COMMAND_MAX + 1];
    snprintf(name, sizeof name, "%s", cfg->cmd[0]);
    name[strcspn(name, " \t")] = '\0';
    bool ok = coord_spsa_probe_options(cfg, 0, o, err) &&
              coord_spsa_probe_check(f, set.params, o, name, err);
    free(o);
    return ok;
}
