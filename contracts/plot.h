/*
 * gnuplot, the one way the programs draw a picture (the run report's figures and the
 * SPSA trajectories of the coordinator, the loss curves of the tuner and the trainer).
 * The caller writes the script; plot_draw puts the terminal and the output first, gives
 * the whole script to gnuplot on its standard input, waits at most a time limit, and
 * says a failure in one line: gnuplot missing, gnuplot's own last error line, or the
 * time limit (gnuplot is then killed). A gnuplot that stops reading never ends the
 * caller by SIGPIPE. Every string a script quotes goes through textesc_gnuplot
 * (engine/textesc.h): a run file's names are data, never commands.
 */
#ifndef CHUHE_PLOT_H
#define CHUHE_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum { PLOT_SECONDS = 60 }; /* the default time limit of one picture */

typedef struct {
    const char *png;   /* the picture's path (no control character) */
    int width, height; /* pixels */
    const char *font;  /* gnuplot's font text, e.g. ",10"; NULL: its default */
    int seconds;       /* the time limit; 0: PLOT_SECONDS */
} PlotPicture;

/* Writes the rest of the script (after the terminal and the output) to g. */
typedef void (*PlotScript)(FILE *g, const void *ctx);

/* Whether a gnuplot program is on PATH. */
bool plot_available(void);

/* Draws p->png with the script that script(ctx) writes; false with one line in err. */
bool plot_draw(const PlotPicture *p, PlotScript script, const void *ctx, char *err, size_t size);

#endif
