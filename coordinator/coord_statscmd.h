/*
 * The `stats` subcommand: its command line (the counts given as text, --penta and --wdl,
 * an optional SPRT whose words contracts/stats.h reads), the usage text and the command
 * itself. The numbers come from contracts/stats.
 */
#ifndef CHUHE_COORD_STATSCMD_H
#define CHUHE_COORD_STATSCMD_H

#include <stdbool.h>

#include "contracts/stats.h"

/* The `stats` subcommand's arguments, parsed. */
typedef struct {
    StatsCounts counts;
    StatsKind kind; /* pentanomial for --penta, trinomial for --wdl */
    bool has_sprt;
    SprtParams sprt;
} StatsCmdArgs;

/* "LL,LD,WL+DD,WD,WW" (five numbers; bin 2 may be written "WL+DD") or
 * "LL,LD,WL,DD,WD,WW" (six). Non-negative integers, commas, optional blanks. Fills
 * penta, its split when known, and tri when the split is known. */
bool coord_statscmd_parse_penta(const char *text, StatsCounts *out, StatsError *err);
/* "W,D,L": games, so tri only. On failure of either, *out is unchanged. */
bool coord_statscmd_parse_wdl(const char *text, StatsCounts *out, StatsError *err);

/*
 * Parses the arguments that follow "stats" (the shared parser, engine/cliopt.h):
 *   (--penta LIST | --wdl W,D,L) [-sprt elo0=X elo1=Y [alpha=A] [beta=B] [model=M]]
 * (--sprt also accepted; its words run to the next option; alpha and beta default to
 * 0.05, model to normalized; elo0 and elo1 are required). False with err set on any
 * error, *out then unchanged.
 */
bool coord_statscmd_parse_args(int argc, char *const argv[], StatsCmdArgs *out, StatsError *err);
/* The usage text of those arguments, lines ending in '\n'. */
const char *coord_statscmd_usage(void);

/* `chuhe-coordinator stats ...`: the match statistics of the counts given, as the live
 * report prints them; argv is what follows "stats". Returns the process exit status. */
int coord_statscmd_run(int argc, char **argv);

#endif
