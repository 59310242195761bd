/*
 * The tournament command line in the style of cutechess-cli and fastchess, rewritten
 * into the coordinator's own long options (coord_config.h), which stay valid beside it:
 *
 *   -engine name=N cmd=PROG [args=A] [dir=D] [proto=uci|uci1|ucci|xboard] [option.X=Y]...
 *           [ponder] [tc=B+I] [st=S] [nodes=N] [depth=N]  (its own limits: time odds)
 *   -engine name=N builtin [weights=FILE] [option.Threads=N] [tc=..] [st=..] [nodes=..] ..
 *   -each tc=10+0.1 | st=0.5 | nodes=N | depth=N [timemargin=MS] [proto=..] [option.X=Y]
 *         [ponder]                                     (ponder: option.Ponder=true)
 *   -tournament round-robin|gauntlet                   (more than two engines)
 *   -openings file=F [format=epd|pgn] [order=sequential|random] [seed=S] [start=N]
 *             [plies=N]
 *   -rounds N [-games 2] | -games N      (games are played in pairs)
 *   -sprt elo0=X elo1=Y [alpha=A] [beta=B] [model=normalized|logistic]   (two engines)
 *   -resign movecount=N score=CP   -draw movenumber=N movecount=M score=CP
 *   -maxmoves N   -pgnout FILE   -ratinginterval N   -repeat   -recover (accepted)
 *
 * The engines are numbered in command-line order from 0; with two, engine 0 is player 0
 * (engine A of the statistics). -rounds N plays N cycles of every pairing of the
 * tournament, -games G games (G / 2 pairs) per pairing and cycle: a round robin of E
 * engines plays N G E (E - 1) / 2 games, a gauntlet N G (E - 1).
 */
#ifndef CHUHE_COORD_CLI_H
#define CHUHE_COORD_CLI_H

#include <stdbool.h>

#include "coord_config.h"

typedef struct {
    int argc;
    char **argv; /* owned; NULL-terminated */
    /* said[i]: what the user typed for the long option argv[i] when a tournament option
     * gave it ("-each nodes"), else NULL; owned */
    char **said;
} CoordArgs;

/* Rewrites argv[0..argc-1]; false with err set on a malformed tournament option. */
bool coord_cli_translate(int argc, char **argv, CoordArgs *out, CoordError *err);
void coord_args_free(CoordArgs *a);

/* The command line as the coordinator reads it: translated, then parsed into c (on its
 * defaults or whatever c holds) by coord_config_parse. given records what the user
 * typed for each option (coord_options_say), and err names the options so. */
bool coord_cli_parse(CoordConfig *c, CoordGiven *given, int argc, char **argv, CoordError *err);

#endif
