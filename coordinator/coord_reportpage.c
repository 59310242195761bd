#include "coord_reportpage.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "coord_log.h"
#include "contracts/plot.h"
#include "error.h"
#include "textesc.h"

void coord_reportpage_row(ReportTable *t, const char *label, const double *values)
{
    size_t need = (size_t)t->nrows + 1;
    if (!array_reserve((void **)&t->rows, &t->cap, need, sizeof *t->rows, 32))
        COORD_FATAL("out of memory for %zu report rows", need);
    ReportRow *row = &t->rows[t->nrows++];
    /* labels may quote a run file (player names): kept printable for every output */
    textesc_printable(row->label, sizeof row->label, label);
    for (int c = 1; c < t->ncols; c++)
        row->v[c] = values[c - 1];
}

void coord_reportpage_free(ReportTable *t)
{
    free(t->rows);
    t->rows = NULL;
    t->nrows = 0;
    t->cap = 0;
}

/* ---- text ---- */

static void value_text(const ReportTable *t, int r, int c, char *buf, size_t size)
{
    double v = t->rows[r].v[c];
    if (isnan(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.*f", t->decimals[c], v);
}

void coord_reportpage_text(const ReportTable *t, FILE *out)
{
    fprintf(out, "%s\n", t->title);
    if (t->note[0])
        fprintf(out, "  %s\n", t->note);
    if (t->nrows == 0) {
        fprintf(out, "  (none)\n");
        return;
    }
    int width[REPORT_COLS_MAX];
    for (int c = 0; c < t->ncols; c++) {
        width[c] = (int)strlen(t->cols[c]);
        for (int r = 0; r < t->nrows; r++) {
            char buf[64];
            if (c == 0)
                snprintf(buf, sizeof buf, "%s", t->rows[r].label);
            else
                value_text(t, r, c, buf, sizeof buf);
            if ((int)strlen(buf) > width[c])
                width[c] = (int)strlen(buf);
        }
    }
    fprintf(out, "  %-*s", width[0], t->cols[0]);
    for (int c = 1; c < t->ncols; c++)
        fprintf(out, "  %*s", width[c], t->cols[c]);
    fprintf(out, "\n");
    for (int r = 0; r < t->nrows; r++) {
        fprintf(out, "  %-*s", width[0], t->rows[r].label);
        for (int c = 1; c < t->ncols; c++) {
            char buf[64];
            value_text(t, r, c, buf, sizeof buf);
            fprintf(out, "  %*s", width[c], buf);
        }
        fprintf(out, "\n");
    }
}

/* ---- pictures ---- */

/* A label as a quoted column of a data block. A data file has no escape for a double
 * quote (it becomes a single one) and a line break would end the block, letting what
 * follows run as commands: the label's printable form only. */
static void gp_datum(FILE *g, const char *label)
{
    char text[REPORT_LABEL_SIZE * 4];
    textesc_printable(text, sizeof text, label);
    fputc('"', g);
    for (const char *c = text; *c; c++)
        fputc(*c == '"' ? '\'' : *c, g);
    fputc('"', g);
}

/* The rows as an inline data block $d: the label in quotes, then the values. */
static void gp_data(FILE *g, const ReportTable *t)
{
    fprintf(g, "$d << EOD\n");
    for (int r = 0; r < t->nrows; r++) {
        gp_datum(g, t->rows[r].label);
        for (int c = 1; c < t->ncols; c++)
            fprintf(g, isnan(t->rows[r].v[c]) ? " NaN" : " %.10g", t->rows[r].v[c]);
        fprintf(g, "\n");
    }
    fprintf(g, "EOD\n");
}

/* The script of t's picture (a PlotScript). */
static void gp_script(FILE *g, const void *ctx)
{
    const ReportTable *t = ctx;
    fprintf(g, "set title ");
    textesc_gnuplot(g, t->title);
    fprintf(g, " noenhanced\nset xlabel ");
    textesc_gnuplot(g, t->xlabel);
    fprintf(g, " noenhanced\nset ylabel ");
    textesc_gnuplot(g, t->ylabel);
    fprintf(g, " noenhanced\nset grid ytics\nset key top right noenhanced\n");
    gp_data(g, t);
    if (t->plot == REPORT_PLOT_SIGMOID) {
        fprintf(g,
                "set yrange [0:1]\nset grid xtics\nset key top left\nset samples 400\nk = %.10g\n"
                "plot $d using 2:3 with points pt 7 ps 1 lc rgb '#3182ce' "
                "title 'positions by score bucket', "
                "1 / (1 + exp(-k * x)) with lines lw 2 lc rgb '#c53030' title sprintf('1 / (1 + "
                "exp(-K x)), "
                "K = %%.5f', k)\n",
                t->k);
        return;
    }
    fprintf(g,
            "set style data histograms\nset style histogram %s\n"
            "set style fill solid 0.85 border -1\nset boxwidth 0.85\nset yrange [0:*]\n"
            "set xtics rotate by -45 scale 0 noenhanced\n",
            /* one column: rowstacked draws plain bars as wide as the boxwidth */
            t->plot == REPORT_PLOT_STACKED || t->plotted == 1 ? "rowstacked" : "clustered gap 1");
    if (t->nrows > 40)
        fprintf(g, "set xtics %d\n", t->nrows / 20);
    fprintf(g, "plot ");
    for (int c = 1; c <= t->plotted && c < t->ncols; c++) {
        fprintf(g, "%s$d using %d%s lc rgb ", c > 1 ? ", " : "", c + 1, c == 1 ? ":xtic(1)" : "");
        textesc_gnuplot(g, t->colors[c] ? t->colors[c] : "#3182ce");
        fprintf(g, " title ");
        textesc_gnuplot(g, t->cols[c]);
    }
    fprintf(g, "\n");
}

bool coord_reportpage_plot(const ReportTable *t, const char *png, char *err, size_t size)
{
    PlotPicture pic = {.png = png, .width = 900, .height = 520, .font = ",10"};
    return plot_draw(&pic, gp_script, t, err, size);
}

/* ---- the page ---- */

static void html_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '"')
            fputs("&quot;", f);
        else
            fputc(*s, f);
    }
}

/* A table's text, HTML-escaped. */
static void html_table_text(FILE *f, const ReportTable *t)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        COORD_FATAL("out of memory for the report");
    coord_reportpage_text(t, m);
    fclose(m);
    html_text(f, text);
    free(text);
}

bool coord_reportpage_html(const char *path, const char *heading, const ReportTable *tables, int n,
                           const bool *drawn, char *err, size_t size)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return error_set(err, size, "%s: %s", path, strerror(errno));
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<title>chuhe run report</title>\n<style>\n"
               "body { font: 14px/1.4 system-ui, sans-serif; margin: 20px auto; max-width: 960px;"
               " color: #1d2430; }\n"
               "h2 { font-size: 16px; margin-top: 28px; border-bottom: 1px solid #dde2e8; }\n"
               "img { max-width: 100%%; }\n"
               "pre { background: #f4f5f7; padding: 8px 12px; overflow-x: auto; }\n"
               "</style>\n</head>\n<body>\n<h1>Run report</h1>\n<pre>");
    html_text(f, heading);
    fprintf(f, "</pre>\n");
    for (int i = 0; i < n; i++) {
        fprintf(f, "<h2 id=\"%s\">", tables[i].name);
        html_text(f, tables[i].title);
        fprintf(f, "</h2>\n");
        if (drawn[i])
            fprintf(f, "<img src=\"%s.png\" alt=\"%s\">\n", tables[i].name, tables[i].name);
        fprintf(f, "<pre>");
        html_table_text(f, &tables[i]);
        fprintf(f, "</pre>\n");
    }
    fprintf(f, "</body>\n</html>\n");
    bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok)
        return error_set(err, size, "%s: write error", path);
    return true;
}
