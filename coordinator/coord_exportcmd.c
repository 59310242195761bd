#include "coord_exportcmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coord_config.h"
#include "coord_export.h"
#include "coord_subcmd.h"
#include "contracts/outpath.h"

typedef struct {
    ExportFilter filter;
    bool comments;
    const char *out; /* -o FILE; NULL: the standard output */
    bool force;
} ExportArgs;

/* The scopes: the options of each format. */
enum { PLAIN = 1, PGN = 2 };

#define AT(f) offsetof(ExportArgs, f), sizeof(((ExportArgs *)0)->f)
static const CliOpt OPTS[] = {
    {"--output", "-o", CLIOPT_ARG, AT(out), 0, 0, 0, 0, "FILE",
     "write to FILE (default: the standard output)", NULL},
    {"--force", NULL, CLIOPT_FLAG, AT(force), 0, 0, 0, 0, NULL,
     "replace FILE when it exists (never a run file)", NULL},
    {"--no-comments", NULL, CLIOPT_FLAG_OFF, AT(comments), 0, 0, PGN, 0, NULL,
     "moves only: no score, depth and nodes comments", NULL},
    {"--skip-opening", NULL, CLIOPT_FLAG, AT(filter.skip_opening), 0, 0, PLAIN, 0, NULL,
     "leave out the positions of the opening moves", NULL},
    {"--skip-in-check", NULL, CLIOPT_FLAG, AT(filter.skip_in_check), 0, 0, PLAIN, 0, NULL,
     "leave out the positions whose side to move is in check", NULL},
    {"--skip-captures", NULL, CLIOPT_FLAG, AT(filter.skip_captures), 0, 0, PLAIN, 0, NULL,
     "leave out the positions whose move played captures", NULL},
    {"--max-score", NULL, CLIOPT_INT, AT(filter.max_score), 0, 32767, PLAIN, 0, "CP",
     "leave out |score| > CP (0: no limit, as in chuhe-tune)", NULL},
    COORD_SUBCMD_HELP,
};
#undef AT

/* The standard output is written unchecked by the shell's redirection, which may point
 * it at the run file itself (">> run.h5") or at another run file: refused. */
static bool stdout_usable(const CoordSubcmd *s, const char *run)
{
    struct stat out, in;
    if (fstat(STDOUT_FILENO, &out) != 0 || !S_ISREG(out.st_mode))
        return true;
    const char *why = NULL;
    if (stat(run, &in) == 0 && out.st_dev == in.st_dev && out.st_ino == in.st_ino)
        why = "is the run file being exported";
    else if (outpath_is_hdf5("/dev/stdout"))
        why = "is an HDF5 run file; chuhe never writes over one";
    if (why)
        coord_subcmd_fail(s, 2, "the standard output %s (give another file: -o FILE or > FILE)",
                          why);
    return why == NULL;
}

/* Writes the run file rf in the format asked for; the exit status. */
static int export_run(const CoordSubcmd *s, RunFile *rf, bool pgn, const ExportArgs *a)
{
    FILE *out = a->out ? fopen(a->out, "w") : stdout;
    ExportStats st;
    RunError err;
    bool ok = out != NULL;
    if (!out)
        snprintf(err.msg, sizeof err.msg, "-o %s: %s", a->out, strerror(errno));
    else if (pgn)
        ok = coord_export_pgn(rf, 0, UINT64_MAX, a->comments, out, &st, &err);
    else
        ok = coord_export_plain(rf, 0, UINT64_MAX, &a->filter, out, &st, &err);
    if (out && out != stdout && fclose(out) != 0 && ok) {
        ok = false;
        snprintf(err.msg, sizeof err.msg, "-o %s: %s", a->out, strerror(errno));
    }
    if (!ok)
        return coord_subcmd_fail(s, 1, "%s", err.msg);
    if (pgn)
        fprintf(stderr, "exported %" PRIu64 " games, %" PRIu64 " moves\n", st.games, st.positions);
    else
        fprintf(stderr, "exported %" PRIu64 " games, %" PRIu64 " positions (%" PRIu64 " skipped)\n",
                st.games, st.positions, st.skipped);
    return 0;
}

int coord_exportcmd_run(int argc, char **argv)
{
    ExportArgs a = {.comments = true};
    /* the format comes first: it says which options there are */
    bool pgn = argc > 0 && !strcmp(argv[0], "pgn"), plain = argc > 0 && !strcmp(argv[0], "plain");
    CoordSubcmd s = COORD_SUBCMD_ONE(pgn     ? "export pgn"
                                     : plain ? "export plain"
                                             : "export",
                                     "export plain|pgn RUN.h5 [options] [-o FILE [--force]]",
                                     "RUN.h5", OPTS, &a);
    s.scope = pgn ? PGN : PLAIN;
    int status;
    if (!pgn && !plain) {
        /* --help answers without a format; anything else needs one */
        if (argc > 0 && argv[0][0] == '-' && !coord_subcmd_word(&s, argc, argv, &status))
            return status;
        if (argc && argv[0][0] != '-')
            return coord_subcmd_fail(&s, 2,
                                     "'%s' is not plain or pgn (usage: chuhe-coordinator %s)",
                                     argv[0], s.synopsis);
        return coord_subcmd_fail(&s, 2, "give plain or pgn first (usage: chuhe-coordinator %s)",
                                 s.synopsis);
    }
    const char *run = coord_subcmd_word(&s, argc - 1, argv + 1, &status);
    if (!run)
        return status;
    a.filter.limit_score = a.filter.max_score > 0; /* 0 is no limit, as in chuhe-tune */
    char msg[COORD_PATH_MAX * 2 + 200];
    const char *inputs[] = {run};
    if (a.out && !outpath_check("-o", a.out, OUTPATH_REPLACE, a.force, inputs, 1, msg, sizeof msg))
        return coord_subcmd_fail(&s, 2, "%s", msg);
    if (!a.out && !stdout_usable(&s, run))
        return 2;
    RunFile *rf = coord_subcmd_open(&s, run);
    if (!rf)
        return 1;
    status = export_run(&s, rf, pgn, &a);
    RunError err;
    if (!runfile_close(&rf, &err))
        status = coord_subcmd_fail(&s, status ? status : 1, "%s", err.msg);
    return status;
}
