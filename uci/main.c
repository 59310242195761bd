/* bin/chuhe-engine: UCI on stdin/stdout, or the command given on the command line
 * (e.g. `chuhe-engine go perft 5`, `chuhe-engine bench`), run once: its exit status is
 * then 0, 1 when the command failed (or its output could not be written), 2 when it was
 * malformed (see UciStatus). `--help` and `--version` answer as the other programs do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/outpath.h"
#include "cliopt.h"
#include "uci.h"

#ifndef CHUHE_VERSION
#define CHUHE_VERSION "unknown"
#endif

/* The exit status once the standard output is written out (outpath.h). */
static int finish(int status)
{
    char msg[160];
    status = outpath_finish_stdout(status, msg, sizeof msg);
    if (msg[0])
        fprintf(stderr, "chuhe-engine: %s\n", msg);
    return status;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: chuhe-engine              UCI (or UCCI after 'ucci') on stdin/stdout\n"
            "       chuhe-engine COMMAND...   run one command and exit: 0 done, 1 failed,\n"
            "                                 2 malformed\n"
            "       chuhe-engine --help | --version\n"
            "\n"
            "Commands given on the command line, e.g.:\n"
            "  bench [depth]                  fixed positions, fixed depth: 'Nodes searched: N'\n"
            "  go perft N                     move counts from the start position\n"
            "  weights FILE                   write the built-in weights\n"
            "  spsa-params                    the search constants as SPSA input\n"
            "The UCI and UCCI commands and options: docs/engine.md.\n");
}

/* --help and --version; any other word begins a command. */
static const CliOpt OPTS[] = {
    {"--help", "-h", CLIOPT_HELP, 0, 0, 0, 0, 0, 0, NULL, "this text", NULL},
    {"--version", NULL, CLIOPT_VERSION, 0, 0, 0, 0, 0, 0, NULL, "the version", NULL},
};

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    CliOptSpec spec = {.prog = "chuhe-engine",
                       .opts = OPTS,
                       .nopts = sizeof OPTS / sizeof OPTS[0],
                       .mode = CLIOPT_STOP_AT_WORD | CLIOPT_UNKNOWN_IS_WORD};
    int words = 0;
    char msg[200];
    /* the command's words are gathered at the start of argv, after the program's name */
    CliOptStatus st =
        cliopt_parse(&spec, argc - 1, argv + 1, argv + 1, &words, argc, msg, sizeof msg);
    if (st == CLIOPT_ERROR) {
        fprintf(stderr, "chuhe-engine: %s\n", msg);
        return 2;
    }
    if (st == CLIOPT_ASKED_HELP) {
        usage(stdout);
        return finish(0);
    }
    if (st == CLIOPT_ASKED_VERSION) {
        printf("chuhe-engine %s\n", CHUHE_VERSION);
        return finish(0);
    }
    argc = words + 1;
    Uci uci;
    if (!uci_init(&uci, stdout)) {
        fprintf(stderr, "chuhe-engine: out of memory\n");
        return 1;
    }
    if (argc > 1) {
        size_t len = 1;
        for (int i = 1; i < argc; i++)
            len += strlen(argv[i]) + 1;
        char *line = calloc(len, 1);
        if (!line) {
            fprintf(stderr, "chuhe-engine: out of memory\n");
            return 1;
        }
        for (int i = 1; i < argc; i++) {
            strcat(line, argv[i]);
            if (i + 1 < argc)
                strcat(line, " ");
        }
        UciStatus status = uci_command(&uci, line);
        free(line);
        uci_finish(&uci, true);
        return finish((int)status);
    } else {
        uci_loop(&uci, stdin);
        uci_finish(&uci, false);
    }
    return finish(0);
}
