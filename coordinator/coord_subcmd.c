#include "coord_subcmd.h"

#include <stdarg.h>
#include <stdio.h>

int coord_subcmd_fail(const CoordSubcmd *s, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "chuhe-coordinator %s: ", s->name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return status;
}

bool coord_subcmd_args(const CoordSubcmd *s, int argc, char **argv, char **words, int *nwords,
                       int *status)
{
    char prog[64], msg[600];
    snprintf(prog, sizeof prog, "chuhe-coordinator %s", s->name);
    CliOptSpec spec = {.prog = prog,
                       .opts = s->opts,
                       .nopts = s->nopts,
                       .dest = s->dest,
                       .scope = s->scope,
                       .call = s->call,
                       .ctx = s->ctx};
    CliOptStatus st = cliopt_parse(&spec, argc, argv, words, nwords, s->max_words, msg, sizeof msg);
    if (st == CLIOPT_ASKED_HELP) {
        printf("usage: chuhe-coordinator %s\n", s->synopsis);
        cliopt_usage(stdout, &spec, 22);
        *status = 0;
        return false;
    }
    *status = 2;
    if (st == CLIOPT_ERROR) {
        coord_subcmd_fail(s, 2, "%s", msg);
        return false;
    }
    if (*nwords < s->min_words) {
        coord_subcmd_fail(s, 2, "give %s (usage: chuhe-coordinator %s)", s->words, s->synopsis);
        return false;
    }
    return true;
}

const char *coord_subcmd_word(const CoordSubcmd *s, int argc, char **argv, int *status)
{
    char *words[1];
    int nwords;
    return coord_subcmd_args(s, argc, argv, words, &nwords, status) ? words[0] : NULL;
}

RunFile *coord_subcmd_open(const CoordSubcmd *s, const char *path)
{
    RunError err;
    RunFile *rf = runfile_open_read(path, &err);
    if (!rf)
        coord_subcmd_fail(s, 1, "%s", err.msg);
    return rf;
}
