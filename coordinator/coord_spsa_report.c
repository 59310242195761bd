#include "coord_spsa_report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "contracts/plot.h"
#include "coord_subcmd.h"
#include "error.h"
#include "contracts/outpath.h"
#include "textesc.h"

enum { PROGRESS_PARAMS = 3 };

static bool is_int(const RunSpsaParam *p)
{
    return !strcmp(p->type, "int");
}

/* A value as the final file writes it. */
static void value_text(const RunSpsaParam *p, double v, char *buf, size_t size)
{
    if (is_int(p))
        snprintf(buf, size, "%.0f", round(v) == 0 ? 0.0 : round(v)); /* never "-0" */
    else
        snprintf(buf, size, "%.6g", v);
}

static const double *current(const Spsa *s)
{
    return coord_spsa_theta(s, s->applied);
}

void coord_spsa_report_progress(const Spsa *s, char *buf, size_t size)
{
    size_t n = strlen(buf);
    n += (size_t)snprintf(buf + n, n < size ? size - n : 0, " | spsa %" PRIu64 "/%" PRIu64,
                          s->applied, s->set.pairs);
    for (int i = 0; i < s->n && i < PROGRESS_PARAMS && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, " %s %.1f", s->param[i].name, current(s)[i]);
    if (s->n > PROGRESS_PARAMS && n < size)
        snprintf(buf + n, size - n, " (+%d more)", s->n - PROGRESS_PARAMS);
}

void coord_spsa_report_json(const Spsa *s, StrBuf *out)
{
    strbuf_printf(out, "\"spsa\":{\"iterations\":%" PRIu64 ",\"pairs\":%" PRIu64 ",\"params\":[",
                  s->applied, s->set.pairs);
    for (int i = 0; i < s->n; i++) {
        char v[64];
        value_text(&s->param[i], current(s)[i], v, sizeof v);
        strbuf_printf(out, "%s{\"name\":", i ? "," : "");
        strbuf_json_string(out, s->param[i].name);
        strbuf_printf(out, ",\"value\":%s,\"theta\":%.17g}", v, current(s)[i]);
    }
    strbuf_printf(out, "]}");
}

void coord_spsa_report_values(const Spsa *s, StrBuf *out)
{
    for (int i = 0; i < s->n; i++) {
        const RunSpsaParam *p = &s->param[i];
        char v[64];
        value_text(p, current(s)[i], v, sizeof v);
        strbuf_printf(out, "%s, %s, %s, %g, %g, %g, %g\n", p->name, p->type, v, p->min, p->max,
                      p->c_end, p->r_end);
    }
}

bool coord_spsa_report_write(const Spsa *s, const char *path, CoordError *err)
{
    char tmp[COORD_PATH_MAX + 8];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return ERROR_SET(err, "%s: path too long", path);
    StrBuf text;
    strbuf_init(&text);
    coord_spsa_report_values(s, &text);
    FILE *f = fopen(tmp, "w");
    bool ok = f && fputs(strbuf_text(&text), f) >= 0;
    ok = f && fclose(f) == 0 && ok;
    strbuf_free(&text);
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return ERROR_SET(err, "%s: %s", path, strerror(e));
    }
    return true;
}

typedef struct {
    const Spsa *s;
    const char *title;
} Trajectories;

/* Each parameter's theta by iteration, as a fraction of its range (a PlotScript). */
static void trajectories_script(FILE *g, const void *ctx)
{
    const Trajectories *t = ctx;
    const Spsa *s = t->s;
    fprintf(g, "set title ");
    textesc_gnuplot(g, t->title);
    fprintf(g, " noenhanced\nset xlabel 'iteration (pair)'\n");
    fprintf(g, "set ylabel 'theta, as a fraction of [min, max]'\nset yrange [0:1]\n"
               "set key outside right noenhanced\nset grid\nplot ");
    for (int i = 0; i < s->n; i++) {
        fprintf(g, "%s'-' using 1:2 with lines lw 2 title ", i ? ", " : "");
        textesc_gnuplot(g, s->param[i].name);
    }
    fputc('\n', g);
    for (int i = 0; i < s->n; i++) {
        const RunSpsaParam *p = &s->param[i];
        for (uint64_t j = 0; j <= s->applied; j++)
            fprintf(g, "%" PRIu64 " %.6g\n", j,
                    (coord_spsa_theta(s, j)[i] - p->min) / (p->max - p->min));
        fprintf(g, "e\n");
    }
}

bool coord_spsa_report_plot(const Spsa *s, const char *png, const char *run, CoordError *err)
{
    char title[COORD_PATH_MAX + 64];
    snprintf(title, sizeof title, "SPSA of %s: %" PRIu64 " iterations", run, s->applied);
    Trajectories t = {s, title};
    PlotPicture pic = {.png = png, .width = 1100, .height = 650};
    return plot_draw(&pic, trajectories_script, &t, err->msg, sizeof err->msg);
}

typedef struct {
    const char *out, *plot;
} SpsaReportArgs;

int coord_spsa_report_tool(int argc, char **argv)
{
    SpsaReportArgs a = {NULL, NULL};
    static const CliOpt OPTS[] = {
        {"--out", NULL, CLIOPT_ARG, offsetof(SpsaReportArgs, out), sizeof a.out, 0, 0, 0, 0, "FILE",
         "the current values, as fishtest's SPSA input", NULL},
        {"--plot", NULL, CLIOPT_ARG, offsetof(SpsaReportArgs, plot), sizeof a.plot, 0, 0, 0, 0,
         "FILE.png", "every parameter's trajectory, drawn by gnuplot", NULL},
        COORD_SUBCMD_HELP,
    };
    CoordSubcmd cmd = COORD_SUBCMD_ONE(
        "spsa-report", "spsa-report RUN.h5 [--out FILE] [--plot FILE.png]", "RUN.h5", OPTS, &a);
    int status;
    const char *run = coord_subcmd_word(&cmd, argc, argv, &status), *out = a.out, *plot = a.plot;
    if (!run)
        return status;
    const char *inputs[1] = {run};
    char msg[600];
    if ((out && !outpath_check("--out", out, OUTPATH_REPLACE, true, inputs, 1, msg, sizeof msg)) ||
        (plot && !outpath_check("--plot", plot, OUTPATH_REPLACE, true, inputs, 1, msg, sizeof msg)))
        return coord_subcmd_fail(&cmd, 2, "%s", msg);
    RunFile *rf = coord_subcmd_open(&cmd, run);
    if (!rf)
        return 1;
    RunError rerr;
    Spsa s;
    CoordError err;
    bool ok = coord_spsa_load_history(&s, rf, &err);
    if (ok) {
        StrBuf text;
        strbuf_init(&text);
        coord_spsa_report_values(&s, &text);
        fputs(strbuf_text(&text), stdout);
        strbuf_free(&text);
        fprintf(stderr, "%s: SPSA of %d parameters, %" PRIu64 " iterations stored\n", run, s.n,
                s.applied);
        ok = (!out || coord_spsa_report_write(&s, out, &err)) &&
             (!plot || coord_spsa_report_plot(&s, plot, run, &err));
    }
    if (!ok)
        fprintf(stderr, "chuhe-coordinator spsa-report: %s\n", err.msg);
    coord_spsa_free(&s);
    runfile_close(&rf, &rerr);
    return ok ? 0 : 1;
}
