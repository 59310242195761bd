#include "coord_spsa_probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "extengine/extengine.h"

enum { PROBE_MS = 10000 };

/* The options of engine e of cfg, an external one. */
static bool probe_options(const CoordConfig *cfg, int e, ExtOptions *out, CoordError *err)
{
    ExtEngineConfig ec;
    memset(&ec, 0, sizeof ec);
    ec.proto = PROTO_EXT_UCI;
    if (cfg->proto[e][0])
        proto_ext_protocol_parse(cfg->proto[e], &ec.proto);
    snprintf(ec.command, sizeof ec.command, "%s", cfg->cmd[e]);
    snprintf(ec.dir, sizeof ec.dir, "%s", cfg->dir[e]);
    ec.startup_ms = ec.ready_ms = PROBE_MS;
    ExtEngine *x = extengine_new(&ec);
    if (!x)
        return ERROR_SET(err, "out of memory");
    char msg[sizeof err->msg];
    bool ok = extengine_start(x, msg, sizeof msg);
    if (ok)
        *out = *extengine_options(x);
    extengine_free(&x);
    return ok ? true : ERROR_SET(err, "%s; cannot list its options", msg);
}

/* Every parameter of f against the options o of engine. */
static bool check_params(SpsaFile *f, const char *path, const ExtOptions *o, const char *engine,
                         CoordError *err)
{
    for (int i = 0; i < f->n; i++) {
        RunSpsaParam *p = &f->param[i];
        const ExtOption *x = NULL;
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
        /* the engine's spelling: the same length, the names being equal but for case */
        memcpy(p->name, x->name, strlen(p->name));
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
    ExtOptions *o = malloc(sizeof *o);
    if (!o)
        return ERROR_SET(err, "out of memory");
    /* the program names the engine: the run's names carry SPSA's +/- */
    char name[PROTO_COMMAND_MAX + 1];
    snprintf(name, sizeof name, "%s", cfg->cmd[0]);
    name[strcspn(name, " \t")] = '\0';
    bool ok = probe_options(cfg, 0, o, err) && check_params(f, set.params, o, name, err);
    free(o);
    return ok;
}
