/*
 * The forms of a run report's figures (coord_runreport.h): each figure is one table of
 * labelled rows, printed as text, drawn as a PNG by gnuplot (contracts/plot.h, as the
 * tuner draws its loss curve) and gathered with its text into one index.html. The same
 * table feeds all three, so the page and the text never disagree.
 */
#ifndef CHUHE_COORD_REPORTPAGE_H
#define CHUHE_COORD_REPORTPAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum { REPORT_COLS_MAX = 8, REPORT_LABEL_SIZE = 48, REPORT_NOTE_SIZE = 512 };

typedef enum {
    REPORT_PLOT_NONE,    /* text only */
    REPORT_PLOT_BARS,    /* value columns 1..plotted as bars side by side, over the labels */
    REPORT_PLOT_STACKED, /* the same, stacked */
    REPORT_PLOT_SIGMOID, /* value column 1 (x) against column 2 (y) as points, with the
                            curve 1 / (1 + exp(-k x)) */
} ReportPlot;

typedef struct {
    char label[REPORT_LABEL_SIZE];
    double v[REPORT_COLS_MAX]; /* v[c] for the value columns c = 1..ncols-1; NAN: none */
} ReportRow;

typedef struct {
    const char *name;            /* file stem: NAME.png */
    const char *title;           /* the figure's heading */
    char note[REPORT_NOTE_SIZE]; /* lines under the heading, "" for none */
    const char *xlabel, *ylabel;
    ReportPlot plot;
    int plotted;                         /* value columns drawn (from column 1) */
    const char *colors[REPORT_COLS_MAX]; /* "#rrggbb" of each drawn column; NULL: blue */
    double k;                            /* REPORT_PLOT_SIGMOID */
    int ncols;                           /* label column included */
    const char *cols[REPORT_COLS_MAX];   /* headings; column 0 is the label */
    int decimals[REPORT_COLS_MAX];       /* of each value column as text */
    int nrows;
    size_t cap;
    ReportRow *rows;
} ReportTable;

/* A row: its label and ncols - 1 values. Exits (COORD_FATAL) when out of memory. */
void coord_reportpage_row(ReportTable *t, const char *label, const double *values);
void coord_reportpage_free(ReportTable *t);

/* The table as text: the title, the note, the headings and the rows. */
void coord_reportpage_text(const ReportTable *t, FILE *out);

/* Draws t (not REPORT_PLOT_NONE, at least one row) into png with gnuplot (plot_draw);
 * false with one line in err. */
bool coord_reportpage_plot(const ReportTable *t, const char *png, char *err, size_t size);

/* Writes the page: heading (HTML-escaped) and, for each table, its title, its picture
 * NAME.png when drawn[i], and its text. False with one line in err. */
bool coord_reportpage_html(const char *path, const char *heading, const ReportTable *tables, int n,
                           const bool *drawn, char *err, size_t size);

#endif
