#include "coord_runreport.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "array.h"
#include "coord_config.h"
#include "coord_log.h"
#include "contracts/plot.h"
#include "coord_subcmd.h"
#include "error.h"
#include "contracts/outpath.h"
#include "position.h"
#include "rules.h"
#include "textesc.h"

enum { READ_BLOCK = 65536 }; /* positions per read */

/* ---- collecting ---- */

static void count_rank(RunReport *rep, uint32_t rank)
{
    int i = 0;
    while (i < rep->nranks && rep->ranks[i].rank < rank)
        i++;
    if (i == rep->nranks || rep->ranks[i].rank != rank) {
        if (!array_reserve((void **)&rep->ranks, &rep->ranks_cap, (size_t)rep->nranks + 1,
                           sizeof *rep->ranks, 16))
            COORD_FATAL("out of memory for %d worker ranks", rep->nranks + 1);
        memmove(&rep->ranks[i + 1], &rep->ranks[i], (size_t)(rep->nranks - i) * sizeof *rep->ranks);
        rep->ranks[i] = (RunReportRank){rank, 0};
        rep->nranks++;
    }
    rep->ranks[i].games++;
}

static void count_game(RunReport *rep, const RunGame *g)
{
    rep->games++;
    int bin = g->plies / RUNREPORT_LENGTH_BIN;
    rep->length[bin < RUNREPORT_LENGTH_BINS ? bin : RUNREPORT_LENGTH_BINS - 1]++;
    if (g->reason < REASON_NB && g->outcome >= -1 && g->outcome <= 1)
        rep->ending[g->reason][1 - g->outcome]++;
    count_rank(rep, g->worker_rank);
}

static int score_bin(int score)
{
    int bin = (score + RUNREPORT_SCORE_CLIP) / RUNREPORT_SCORE_BIN;
    if (score < -RUNREPORT_SCORE_CLIP)
        bin = 0;
    return bin < 0 ? 0 : bin >= RUNREPORT_SCORE_BINS ? RUNREPORT_SCORE_BINS - 1 : bin;
}

static void count_position(RunReport *rep, const RunPosition *p)
{
    rep->positions++;
    Position pos;
    PosError perr;
    if (record_unpack(&p->board, &pos, &perr)) {
        int phase = eval_phase(&pos);
        rep->phase[phase < 0 ? 0 : phase > PHASE_MAX ? PHASE_MAX : phase]++;
    }
    if (p->flags & RECORD_FLAG_OPENING) {
        rep->opening++;
        return;
    }
    if (abs(p->score) >= VALUE_MATE_IN_MAX_PLY) {
        rep->mates[p->score < 0]++;
        return;
    }
    int bin = score_bin(p->score);
    rep->scored[bin]++;
    rep->score_sum[bin] += p->score;
    if (p->result >= -1 && p->result <= 1)
        rep->wdl[bin][1 - p->result]++;
}

bool coord_runreport_collect(RunFile *rf, RunReport *rep, RunError *err)
{
    memset(rep, 0, sizeof *rep);
    rep->players = runfile_player_count(rf);
    coord_runstats_init(&rep->stats, 0);
    coord_runstats_set_engines(&rep->stats, rep->players);
    for (int e = 0; e < rep->players && e < XT_MAX; e++) {
        const RunPlayer *pl = runfile_player(rf, (uint16_t)e);
        char name[XT_NAME_SIZE];
        textesc_printable(name, sizeof name, pl ? pl->name : "");
        coord_crosstable_set_name(&rep->stats.table, e, name);
    }
    uint64_t n = runfile_game_count(rf);
    for (uint64_t id = 0; id < n; id++) {
        const RunGame *g = runfile_game(rf, id);
        if (g)
            count_game(rep, g);
        coord_runstats_add_stored(&rep->stats, rf, id, 0, false, NULL);
    }
    uint64_t total = runfile_position_count(rf);
    RunPosition *buf = malloc(READ_BLOCK * sizeof *buf);
    if (!buf)
        return ERROR_SET(err, "out of memory for %d positions", READ_BLOCK);
    for (uint64_t start = 0; start < total; start += READ_BLOCK) {
        uint64_t count = total - start < READ_BLOCK ? total - start : READ_BLOCK;
        if (!runfile_read_positions(rf, start, count, buf, err)) {
            free(buf);
            return false;
        }
        for (uint64_t i = 0; i < count; i++)
            count_position(rep, &buf[i]);
    }
    free(buf);
    return true;
}

void coord_runreport_free(RunReport *rep)
{
    free(rep->ranks);
    rep->ranks = NULL;
    rep->nranks = 0;
    rep->ranks_cap = 0;
    coord_runstats_free(&rep->stats);
}

/* ---- K ---- */

static double mean_result(const uint64_t wdl[3])
{
    double n = (double)(wdl[0] + wdl[1] + wdl[2]);
    return n > 0 ? ((double)wdl[0] + 0.5 * (double)wdl[1]) / n : NAN;
}

static double k_error(const RunReport *rep, double k)
{
    double e = 0;
    for (int b = 0; b < RUNREPORT_SCORE_BINS; b++) {
        double n = (double)(rep->wdl[b][0] + rep->wdl[b][1] + rep->wdl[b][2]);
        if (n == 0)
            continue;
        double s = rep->score_sum[b] / (double)rep->scored[b];
        double d = 1.0 / (1.0 + exp(-k * s)) - mean_result(rep->wdl[b]);
        e += n * d * d;
    }
    return e;
}

double coord_runreport_fit_k(const RunReport *rep)
{
    uint64_t any = 0;
    for (int b = 0; b < RUNREPORT_SCORE_BINS; b++)
        any += rep->scored[b];
    if (!any)
        return 0;
    /* a log-spaced scan over 1e-5 .. 1 brackets the minimum; golden sections narrow it */
    enum { STEPS = 100 };
    double best = -5, best_e = INFINITY;
    for (int i = 0; i <= STEPS; i++) {
        double x = -5 + 5.0 * i / STEPS, e = k_error(rep, pow(10, x));
        if (e < best_e) {
            best_e = e;
            best = x;
        }
    }
    double a = best - 0.05, b = best + 0.05, g = (sqrt(5) - 1) / 2;
    for (int i = 0; i < 60; i++) {
        double c = b - g * (b - a), d = a + g * (b - a);
        if (k_error(rep, pow(10, c)) < k_error(rep, pow(10, d)))
            b = d;
        else
            a = c;
    }
    return pow(10, (a + b) / 2);
}

/* ---- the tables ---- */

static ReportTable table(const char *name, const char *title, const char *xlabel,
                         const char *ylabel, ReportPlot plot, int plotted, int ncols,
                         const char *const *cols)
{
    ReportTable t = {.name = name,
                     .title = title,
                     .xlabel = xlabel,
                     .ylabel = ylabel,
                     .plot = plot,
                     .plotted = plotted,
                     .ncols = ncols};
    for (int c = 0; c < ncols; c++)
        t.cols[c] = cols[c];
    return t;
}

static void length_table(const RunReport *rep, ReportTable *t)
{
    static const char *const cols[] = {"plies", "games"};
    *t = table("length", "Game length", "plies", "games", REPORT_PLOT_BARS, 1, 2, cols);
    int first = RUNREPORT_LENGTH_BINS, last = -1;
    for (int b = 0; b < RUNREPORT_LENGTH_BINS; b++)
        if (rep->length[b]) {
            first = b < first ? b : first;
            last = b;
        }
    for (int b = first; b <= last; b++) {
        char label[REPORT_LABEL_SIZE];
        snprintf(label, sizeof label, "%d-%d", b * RUNREPORT_LENGTH_BIN,
                 (b + 1) * RUNREPORT_LENGTH_BIN - 1);
        double v = (double)rep->length[b];
        coord_reportpage_row(t, label, &v);
    }
    snprintf(t->note, sizeof t->note, "%" PRIu64 " games, %" PRIu64 " positions, %.1f plies a game",
             rep->games, rep->positions,
             rep->games ? (double)rep->positions / (double)rep->games : 0.0);
}

static void endings_table(const RunReport *rep, ReportTable *t)
{
    static const char *const cols[] = {"ending", "Red won", "draw", "Black won", "games"};
    *t = table("endings", "Results by ending", "ending", "games", REPORT_PLOT_STACKED, 3, 5, cols);
    t->colors[1] = "#c53030";
    t->colors[2] = "#a0aec0";
    t->colors[3] = "#2d3748";
    for (int r = 0; r < REASON_NB; r++) {
        const uint64_t *x = rep->ending[r];
        if (x[0] + x[1] + x[2] == 0)
            continue;
        double v[4] = {(double)x[0], (double)x[1], (double)x[2], (double)(x[0] + x[1] + x[2])};
        coord_reportpage_row(t, rules_reason_name((Reason)r), v);
    }
}

static void score_label(int b, char *label, size_t size)
{
    int lo = b * RUNREPORT_SCORE_BIN - RUNREPORT_SCORE_CLIP;
    if (b == 0)
        snprintf(label, size, "< %d", lo + RUNREPORT_SCORE_BIN);
    else if (b == RUNREPORT_SCORE_BINS - 1)
        snprintf(label, size, ">= %d", lo);
    else
        snprintf(label, size, "%d..%d", lo, lo + RUNREPORT_SCORE_BIN - 1);
}

/* The first and last score bucket holding a position; first > last when none does. */
static void score_range(const RunReport *rep, int *first, int *last)
{
    *first = RUNREPORT_SCORE_BINS;
    *last = -1;
    for (int b = 0; b < RUNREPORT_SCORE_BINS; b++)
        if (rep->scored[b]) {
            *first = b < *first ? b : *first;
            *last = b;
        }
}

static void scores_table(const RunReport *rep, ReportTable *t)
{
    static const char *const cols[] = {"score", "positions"};
    *t = table("scores", "Search scores (the mover's view, centi-soldiers)", "score", "positions",
               REPORT_PLOT_BARS, 1, 2, cols);
    int first, last;
    score_range(rep, &first, &last);
    for (int b = first; b <= last; b++) {
        char label[REPORT_LABEL_SIZE];
        score_label(b, label, sizeof label);
        double v = (double)rep->scored[b];
        coord_reportpage_row(t, label, &v);
    }
    snprintf(t->note, sizeof t->note,
             "left out: %" PRIu64 " opening moves (no search), %" PRIu64 " mate scores for the "
             "mover, %" PRIu64 " against",
             rep->opening, rep->mates[0], rep->mates[1]);
}

static void score_result_table(const RunReport *rep, ReportTable *t)
{
    static const char *const cols[] = {"score", "mean score", "result", "positions",
                                       "wins",  "draws",      "losses"};
    *t = table("score_result", "Score against result (the mover's mean result per score bucket)",
               "search score (centi-soldiers)", "mean result (win 1, draw 1/2, loss 0)",
               REPORT_PLOT_SIGMOID, 2, 7, cols);
    t->decimals[2] = 3;
    int first, last;
    score_range(rep, &first, &last);
    for (int b = first; b <= last; b++) {
        const uint64_t *x = rep->wdl[b];
        if (!rep->scored[b])
            continue;
        char label[REPORT_LABEL_SIZE];
        score_label(b, label, sizeof label);
        double v[6] = {rep->score_sum[b] / (double)rep->scored[b],
                       mean_result(x),
                       (double)rep->scored[b],
                       (double)x[0],
                       (double)x[1],
                       (double)x[2]};
        coord_reportpage_row(t, label, v);
    }
    t->k = coord_runreport_fit_k(rep);
    if (t->k == 0)
        snprintf(t->note, sizeof t->note, "no scored positions: no K");
    else
        snprintf(t->note, sizeof t->note,
                 "1 / (1 + exp(-K score)) fits these best at K = %.5f (least squares, weighted "
                 "by positions)",
                 t->k);
}

static int gcd(int a, int b)
{
    return b ? gcd(b, a % b) : a;
}

static void phase_table(const RunReport *rep, ReportTable *t)
{
    static const char *const cols[] = {"phase", "positions"};
    *t = table("phase", "Positions by game phase", "phase", "positions", REPORT_PLOT_BARS, 1, 2,
               cols);
    /* the phase only takes multiples of the pieces' common divisor */
    int step = gcd(gcd(PHASE_CHARIOT, PHASE_HORSE), PHASE_CANNON);
    for (int p = 0; p <= PHASE_MAX; p += step) {
        char label[REPORT_LABEL_SIZE];
        snprintf(label, sizeof label, "%d", p);
        double v = (double)rep->phase[p];
        coord_reportpage_row(t, label, &v);
    }
    snprintf(t->note, sizeof t->note,
             "%d: every chariot, horse and cannon on the board; 0: none (chariot %d, horse %d, "
             "cannon %d)",
             PHASE_MAX, PHASE_CHARIOT, PHASE_HORSE, PHASE_CANNON);
}

static void ranks_table(const RunReport *rep, ReportTable *t)
{
    static const char *const cols[] = {"rank", "games"};
    *t = table("ranks", "Games per worker rank", "worker rank", "games", REPORT_PLOT_BARS, 1, 2,
               cols);
    for (int i = 0; i < rep->nranks; i++) {
        char label[REPORT_LABEL_SIZE];
        snprintf(label, sizeof label, "%" PRIu32, rep->ranks[i].rank);
        double v = (double)rep->ranks[i].games;
        coord_reportpage_row(t, label, &v);
    }
}

static void match_table(const RunReport *rep, ReportTable *t)
{
    static const char *const cols[] = {"pair", "pairs"};
    static const char *const bins[] = {"LL", "LD", "WL+DD", "WD", "WW"};
    const RunStats *st = &rep->stats;
    char a[XT_NAME_SIZE], b[XT_NAME_SIZE];
    *t = table("match", "Match: pentanomial counts", "pair result (first player's view)", "pairs",
               REPORT_PLOT_BARS, 1, 2, cols);
    for (int k = 0; k < STATS_PENTA_NB; k++) {
        double v = (double)st->match.penta[k];
        coord_reportpage_row(t, bins[k], &v);
    }
    char line[REPORT_NOTE_SIZE - 160];
    stats_format(line, sizeof line, &st->match, STATS_PENTANOMIAL, NULL, STATS_REPORT_LINE);
    snprintf(t->note, sizeof t->note, "%s against %s, %" PRIu64 " complete pairs: %s",
             coord_crosstable_name(&st->table, 0, a), coord_crosstable_name(&st->table, 1, b),
             stats_pairs(&st->match), line);
}

static void ranking_table(const RunReport *rep, ReportTable *t)
{
    static const char *const cols[] = {"engine", "score %", "games", "points", "Elo", "+/-"};
    *t = table("match", "Ranking (Elo against the field)", "engine", "score %", REPORT_PLOT_BARS, 1,
               6, cols);
    t->decimals[1] = 2;
    t->decimals[3] = 1;
    t->decimals[4] = 1;
    t->decimals[5] = 1;
    CrosstableRow rows[XT_MAX];
    int n = coord_crosstable_ranking(&rep->stats.table, rows);
    for (int r = 0; r < n; r++) {
        char name[XT_NAME_SIZE], label[REPORT_LABEL_SIZE];
        snprintf(label, sizeof label, "%d. %.30s", r + 1,
                 coord_crosstable_name(&rep->stats.table, rows[r].engine, name));
        double v[5] = {100 * rows[r].score, (double)rows[r].games, rows[r].points, rows[r].est.elo,
                       rows[r].est.elo_error};
        coord_reportpage_row(t, label, v);
    }
}

int coord_runreport_tables(const RunReport *rep, ReportTable tables[RUNREPORT_FIGURES])
{
    int n = 0;
    length_table(rep, &tables[n++]);
    endings_table(rep, &tables[n++]);
    scores_table(rep, &tables[n++]);
    score_result_table(rep, &tables[n++]);
    phase_table(rep, &tables[n++]);
    ranks_table(rep, &tables[n++]);
    if (rep->players == 2)
        match_table(rep, &tables[n++]);
    else if (rep->players > 2)
        ranking_table(rep, &tables[n++]);
    return n;
}

/* ---- the subcommand ---- */

/* Every figure's file name: the same for every run ("match" is the ranking of a
 * tournament), so that the paths can be checked before the run is read. */
static const char *const FIGURE_NAMES[RUNREPORT_FIGURES] = {
    "length", "endings", "scores", "score_result", "phase", "ranks", "match"};

/* DIR made if need be, and DIR/index.html and each DIR/NAME.png checked. */
static bool check_outputs(const char *dir, const char *run, bool force)
{
    struct stat sb;
    if (stat(dir, &sb) != 0 && mkdir(dir, 0777) != 0) {
        fprintf(stderr, "chuhe-coordinator report: --out %s: %s\n", dir, strerror(errno));
        return false;
    }
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "chuhe-coordinator report: --out %s: not a folder\n", dir);
        return false;
    }
    const char *inputs[] = {run};
    for (int i = -1; i < RUNREPORT_FIGURES; i++) {
        char path[COORD_PATH_MAX + 32], msg[COORD_PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s%s", dir, i < 0 ? "index" : FIGURE_NAMES[i],
                 i < 0 ? ".html" : ".png");
        if (!outpath_check("--out", path, OUTPATH_REPLACE, force, inputs, 1, msg, sizeof msg)) {
            fprintf(stderr, "chuhe-coordinator report: %s\n", msg);
            return false;
        }
    }
    return true;
}

/* The run's own words (created, engine version), printable: they come from the file. */
static void heading(RunFile *rf, const RunReport *rep, char *buf, size_t size)
{
    char path[COORD_PATH_MAX * 4], created[256], version[256];
    textesc_printable(path, sizeof path, runfile_path(rf));
    textesc_printable(created, sizeof created, runfile_created(rf));
    textesc_printable(version, sizeof version, runfile_engine_version(rf));
    size_t n = (size_t)snprintf(buf, size,
                                "run %s\nrun id %016" PRIx64 ", created %s, engine version %s\n"
                                "%" PRIu64 " games, %" PRIu64 " positions, %d players:",
                                path, runfile_run_id(rf), created, version, rep->games,
                                rep->positions, rep->players);
    for (int p = 0; p < rep->players && n < size; p++) {
        const RunPlayer *pl = runfile_player(rf, (uint16_t)p);
        char name[RUNFILE_NAME_SIZE * 4];
        textesc_printable(name, sizeof name, pl ? pl->name : "?");
        n += (size_t)snprintf(buf + n, size - n, "%s %s", p ? "," : "", name);
    }
}

/* The text on stdout, the pictures and the page. */
static int write_report(RunFile *rf, const RunReport *rep, const char *dir)
{
    ReportTable tables[RUNREPORT_FIGURES];
    bool drawn[RUNREPORT_FIGURES] = {false};
    int n = coord_runreport_tables(rep, tables);
    char head[4096], err[COORD_PATH_MAX + 128];
    heading(rf, rep, head, sizeof head);
    printf("%s\n", head);
    int status = 0, pictures = 0;
    bool gnuplot = plot_available();
    if (!gnuplot)
        fprintf(stderr, "chuhe-coordinator report: gnuplot is not installed (scripts/install-deps "
                        "installs gnuplot-nox): text only\n");
    for (int i = 0; i < n; i++) {
        printf("\n");
        coord_reportpage_text(&tables[i], stdout);
        if (!gnuplot || tables[i].nrows == 0)
            continue;
        char png[COORD_PATH_MAX + 32];
        snprintf(png, sizeof png, "%s/%s.png", dir, tables[i].name);
        drawn[i] = coord_reportpage_plot(&tables[i], png, err, sizeof err);
        pictures += drawn[i];
        if (!drawn[i]) {
            fprintf(stderr, "chuhe-coordinator report: %s\n", err);
            status = 1;
        }
    }
    char index[COORD_PATH_MAX + 32];
    snprintf(index, sizeof index, "%s/index.html", dir);
    if (!coord_reportpage_html(index, head, tables, n, drawn, err, sizeof err)) {
        fprintf(stderr, "chuhe-coordinator report: %s\n", err);
        status = 1;
    }
    fflush(stdout);
    fprintf(stderr, "report: %s and %d pictures\n", index, pictures);
    for (int i = 0; i < n; i++)
        coord_reportpage_free(&tables[i]);
    return status;
}

typedef struct {
    const char *dir; /* --out */
    bool force;
} ReportArgs;

int coord_runreport_tool(int argc, char **argv)
{
    ReportArgs a = {NULL, false};
    static const CliOpt OPTS[] = {
        {"--out", NULL, CLIOPT_ARG, offsetof(ReportArgs, dir), sizeof a.dir, 0, 0, 0, 0, "DIR",
         "the folder of index.html and the PNGs (made if need be)", NULL},
        {"--force", NULL, CLIOPT_FLAG, offsetof(ReportArgs, force), sizeof a.force, 0, 0, 0, 0,
         NULL, "replace the files of an earlier report in DIR", NULL},
        COORD_SUBCMD_HELP,
    };
    CoordSubcmd s =
        COORD_SUBCMD_ONE("report", "report RUN.h5 --out DIR [--force]", "RUN.h5", OPTS, &a);
    int status;
    const char *run = coord_subcmd_word(&s, argc, argv, &status), *dir = a.dir;
    if (!run)
        return status;
    if (!dir || !dir[0])
        return coord_subcmd_fail(&s, 2, "give --out DIR (usage: chuhe-coordinator %s)", s.synopsis);
    if (strlen(dir) >= COORD_PATH_MAX)
        return coord_subcmd_fail(&s, 2, "--out: the folder name is too long");
    RunFile *rf = coord_subcmd_open(&s, run);
    if (!rf)
        return 1;
    RunError rerr;
    RunReport rep;
    status = 1;
    if (check_outputs(dir, run, a.force)) {
        if (coord_runreport_collect(rf, &rep, &rerr))
            status = write_report(rf, &rep, dir);
        else
            fprintf(stderr, "chuhe-coordinator report: %s\n", rerr.msg);
        coord_runreport_free(&rep);
    }
    runfile_close(&rf, &rerr);
    return status;
}
