/*
 * chuhe-coordinator: the hub of a self-play run. Serves work to worker ranks over
 * ZeroMQ, validates and stores their games in one HDF5 run file, resumes from that
 * file, and exports or verifies finished runs. This file only dispatches: a run is
 * served by coord_run, each subcommand has its own file.
 */
#include <stdio.h>
#include <string.h>

#include "cliopt.h"
#include "coord_cli.h"
#include "coord_exportcmd.h"
#include "coord_keygencmd.h"
#include "coord_options.h"
#include "coord_run.h"
#include "coord_runreport.h"
#include "coord_spsa_report.h"
#include "coord_statscmd.h"
#include "coord_verifycmd.h"
#include "contracts/outpath.h"
#include "position.h"

#ifndef CHUHE_VERSION
#define CHUHE_VERSION "unknown"
#endif

static void usage(FILE *f)
{
    fprintf(f, "usage: chuhe-coordinator [options]          serve a self-play run\n"
               "       chuhe-coordinator export plain RUN.h5 [--skip-opening] [--skip-in-check]\n"
               "                         [--skip-captures] [--max-score CP] [-o FILE [--force]]\n"
               "       chuhe-coordinator export pgn RUN.h5 [--no-comments] [-o FILE [--force]]\n"
               "                         (to stdout without -o; --force replaces an existing\n"
               "                         FILE, never a run file)\n"
               "       chuhe-coordinator verify RUN.h5   replay every stored game\n"
               "       chuhe-coordinator spsa-report RUN.h5 [--out FILE] [--plot FILE.png]\n"
               "                         an SPSA run's current values and trajectories\n"
               "       chuhe-coordinator report RUN.h5 --out DIR [--force]\n"
               "                         the run's figures: DIR/index.html, PNGs, text\n"
               "       chuhe-coordinator keygen NAME     write a CURVE key pair: NAME.key\n"
               "                         (secret, mode 0600) and NAME.pub\n"
               "       chuhe-coordinator stats --penta LL,LD,D,WD,WW | --wdl W,D,L\n"
               "                         [-sprt elo0=X elo1=Y alpha=A beta=B model=M]\n"
               "       chuhe-coordinator --help | --version\n"
               "\n"
               "Workers (chuhe-worker, an MPI program) connect to the bound endpoint and play\n"
               "game pairs: one opening, colours swapped. Every game is replayed and checked\n"
               "before it is stored and acknowledged. Restarted with the same --out file, the\n"
               "coordinator continues the run with its stored settings.\n"
               "\nTournament options (cutechess-cli / fastchess style, 2 to 32 engines):\n");
    coord_cli_usage(f);
    fprintf(f, "\nOptions:\n");
    coord_options_usage(f);
}

/* The subcommands; the rest of a command line is a run's options. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} COMMANDS[] = {
    {"run", coord_run_serve},
    {"export", coord_exportcmd_run},
    {"verify", coord_verifycmd_run},
    {"report", coord_runreport_tool},
    {"spsa-report", coord_spsa_report_tool},
    {"stats", coord_statscmd_run},
    {"keygen", coord_keygencmd_run},
};

/* --help and --version, before any command. */
static const CliOpt OPTS[] = {
    {"--help", "-h", CLIOPT_HELP, 0, 0, 0, 0, 0, 0, NULL, "this text", NULL},
    {"--version", NULL, CLIOPT_VERSION, 0, 0, 0, 0, 0, 0, NULL, "the version", NULL},
};

static int run_command(int argc, char **argv)
{
    CliOptSpec spec = {.prog = "chuhe-coordinator",
                       .opts = OPTS,
                       .nopts = sizeof OPTS / sizeof OPTS[0],
                       .mode = CLIOPT_STOP_AT_WORD | CLIOPT_UNKNOWN_IS_WORD};
    char *first[1];
    int nfirst = 0;
    /* only the first word is looked at: a command, --help or --version, or an option */
    CliOptStatus st = cliopt_parse(&spec, argc > 1, argv + 1, first, &nfirst, 1, NULL, 0);
    if (st == CLIOPT_ASKED_HELP) {
        usage(stdout);
        return 0;
    }
    if (st == CLIOPT_ASKED_VERSION) {
        printf("chuhe-coordinator %s\n", CHUHE_VERSION);
        return 0;
    }
    if (nfirst == 0 || first[0][0] == '-')
        return coord_run_serve(argc - 1, argv + 1);
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (!strcmp(first[0], COMMANDS[i].name))
            return COMMANDS[i].run(argc - 2, argv + 2);
    fprintf(stderr, "chuhe-coordinator: unknown command '%s' (see --help)\n", first[0]);
    return 2;
}

int main(int argc, char **argv)
{
    position_init(); /* every subcommand replays games */
    char msg[160];
    int status = outpath_finish_stdout(run_command(argc, argv), msg, sizeof msg);
    if (msg[0])
        fprintf(stderr, "chuhe-coordinator: %s\n", msg);
    return status;
}
