/*
 * The command line of a test tool: its options read by the one parser (engine/cliopt)
 * and exactly `want` positional words; otherwise one line naming what was wrong, the
 * usage line, and exit status 2.
 */
#ifndef CHUHE_TOOLARGS_H
#define CHUHE_TOOLARGS_H

#include <stdio.h>
#include <stdlib.h>

#include "cliopt.h"

static inline void toolargs_parse(const CliOptSpec *spec, int argc, char **argv, char **words,
                                  int want, const char *missing, const char *usage)
{
    char msg[300];
    int n = 0;
    bool parsed =
        cliopt_parse(spec, argc - 1, argv + 1, words, &n, want, msg, sizeof msg) == CLIOPT_OK;
    if (!parsed || n != want) {
        fprintf(stderr, "%s: %s\nusage: %s\n", spec->prog, parsed ? missing : msg, usage);
        exit(2);
    }
}

#endif
