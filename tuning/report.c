#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/plot.h"
#include "error.h"
#include "textesc.h"
#include "weights.h"

void report_table_header(FILE *f)
{
    fprintf(f, "losses of the weights after each epoch (epoch 0: the starting weights)\n");
    fprintf(f, "%6s  %12s  %12s  %9s\n", "epoch", "train_loss", "valid_loss", "seconds");
}

void report_table_row(FILE *f, const EpochRow *r)
{
    fprintf(f, "%6d  %12.8f  %12.8f  %9.3f%s\n", r->epoch, r->train_loss, r->valid_loss, r->seconds,
            r->epoch == 0 ? "  start" : "");
}

bool report_tsv(const char *path, const EpochRow *rows, int n, char *err, size_t errsize)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return error_set(err, errsize, "%s: path too long", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return error_set(err, errsize, "%s: %s", tmp, strerror(errno));
    bool ok = fprintf(f, "epoch\ttrain_loss\tvalid_loss\tseconds\n") > 0;
    for (int i = 0; ok && i < n; i++)
        ok = fprintf(f, "%d\t%.10g\t%.10g\t%.4f\n", rows[i].epoch, rows[i].train_loss,
                     rows[i].valid_loss, rows[i].seconds) > 0;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        return error_set(err, errsize, "%s: write error", path);
    }
    return true;
}

typedef struct {
    const char *tsv, *title;
} LossPlot;

/* The loss curves of the epoch table (a PlotScript). */
static void loss_script(FILE *g, const void *ctx)
{
    const LossPlot *l = ctx;
    fprintf(g, "set title ");
    textesc_gnuplot(g, l->title);
    fprintf(g, " noenhanced\nset xlabel 'epoch (0: the starting weights)'\nset ylabel 'mean "
               "squared error'\n"
               "set key top right\nset grid\nset datafile separator '\\t'\n"
               "set datafile missing 'nan'\nplot ");
    textesc_gnuplot(g, l->tsv);
    fprintf(g, " using 1:2 skip 1 with lines lw 2 title 'train', ");
    textesc_gnuplot(g, l->tsv);
    fprintf(g, " using 1:3 skip 1 with lines lw 2 title 'validation'\n");
}

bool report_plot(const char *tsv, const char *png, const char *title, char *err, size_t errsize)
{
    if (!textesc_plain(tsv))
        return error_set(err, errsize, "a path with a control character is not given to gnuplot");
    LossPlot l = {tsv, title};
    PlotPicture pic = {.png = png, .width = 900, .height = 560};
    return plot_draw(&pic, loss_script, &l, err, errsize);
}

typedef struct {
    int param;
    int moved;
} Moved;

static int by_moved(const void *a, const void *b)
{
    const Moved *x = a, *y = b;
    if (x->moved != y->moved)
        return y->moved - x->moved;
    return x->param - y->param;
}

static int rounded(double x)
{
    return (int)lround(x);
}

void report_moved(FILE *f, const double *before, const double *after, int top)
{
    Moved *m = malloc(EVAL_PARAM_NB * sizeof *m);
    if (!m)
        return;
    int n = 0;
    for (int i = 0; i < EVAL_PARAM_NB; i++) {
        int d = abs(rounded(after[2 * i]) - rounded(before[2 * i])) +
                abs(rounded(after[2 * i + 1]) - rounded(before[2 * i + 1]));
        if (d)
            m[n++] = (Moved){i, d};
    }
    qsort(m, (size_t)n, sizeof *m, by_moved);
    fprintf(f, "%d of %d parameters changed; the %d that moved most:\n", n, EVAL_PARAM_NB,
            n < top ? n : top);
    fprintf(f, "  %-28s %13s %13s\n", "parameter", "old mg/eg", "new mg/eg");
    for (int k = 0; k < n && k < top; k++) {
        int i = m[k].param;
        char name[48], was[32], now[32];
        weights_param_name(i, name, sizeof name);
        snprintf(was, sizeof was, "%d/%d", rounded(before[2 * i]), rounded(before[2 * i + 1]));
        snprintf(now, sizeof now, "%d/%d", rounded(after[2 * i]), rounded(after[2 * i + 1]));
        fprintf(f, "  %-28s %13s %13s\n", name, was, now);
    }
    free(m);
}

void report_load_stats(FILE *f, const LoadOptions *o, const LoadStats *s)
{
    fprintf(f, "read %" PRIu64 " file%s: %" PRIu64 " games, %" PRIu64 " positions\n", s->files,
            s->files == 1 ? "" : "s", s->games, s->rows);
    char limit[32] = "(no limit)";
    if (o->max_score > 0)
        snprintf(limit, sizeof limit, "> %d", o->max_score);
    fprintf(f,
            "dropped: %" PRIu64 " before ply %d, %" PRIu64 " opening moves, %" PRIu64
            " in check, %" PRIu64 " |score| %s, %" PRIu64 " %s\n",
            s->early, o->skip_plies, s->opening, s->in_check, s->big_score, limit, s->capture,
            "with a capturing best or played move");
    fprintf(f, "kept: %" PRIu64 " eligible, %" PRIu64 " sampled", s->eligible, s->sampled);
    if (o->per_game)
        fprintf(f, " (at most %d per game)", o->per_game);
    fprintf(f,
            ", %" PRIu64 " duplicates removed (%" PRIu64 " from training, %" PRIu64
            " from validation): %" PRIu64 " training + %" PRIu64 " validation positions\n",
            s->duplicates, s->duplicates - s->valid_duplicates, s->valid_duplicates, s->train,
            s->valid);
    if (o->qresolve)
        fprintf(f,
                "qresolve: %" PRIu64 " positions moved along their capture line (%.2f plies "
                "on average)\n",
                s->resolved, s->resolved ? (double)s->resolved_plies / (double)s->resolved : 0.0);
}
