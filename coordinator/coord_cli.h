/*
 * The tournament command line in the style of cutechess-cli and fastchess: one more
 * option table read by the shared parser (engine/cliopt.h) beside the coordinator's own
 * long options (coord_options.h), which stay valid with it. Each tournament option sets
 * the long options it stands for, which name it in messages as the user wrote it:
 *
 *   -engine name=N cmd=PROG [args=A] [dir=D] [proto=uci|uci1|ucci|xboard] [option.X=Y]...
 *           [ponder] [tc=B+I] [st=S] [nodes=N] [depth=N]  (its own limits: time odds)
 *   -engine name=N builtin [weights=FILE] [option.Threads=N] [tc=..] [st=..] [nodes=..] ..
 *   -each tc=10+0.1 | st=0.5 | nodes=N | depth=N [timemargin=MS] [proto=..] [option.X=Y]
 *         [ponder]                                     (ponder: option.Ponder=true)
 *   -tournament round-robin|gauntlet                   (more than two engines)
 *   -openings file=F [format=epd|pgn] [order=sequential|random] [seed=S] [start=N]
 *             [plies=N] [policy=pair|round]
 *   -rounds N [-games 2] | -games N      (games are played in pairs)
 *   -sprt elo0=X elo1=Y [alpha=A] [beta=B] [model=normalized|logistic]   (two engines)
 *   -spsa params=F [pairs=N] [A=X] [alpha=X] [gamma=X] [window=W] [seed=S] [out=F] [plot=F]
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
#include <stdio.h>

#include "coord_config.h"

/* The command line as the coordinator reads it: the long options and the tournament
 * options, into c (on its defaults or whatever c holds). given records what the user
 * typed for each option (coord_options_say), and err names the options so. */
bool coord_cli_parse(CoordConfig *c, CoordGiven *given, int argc, char **argv, CoordError *err);

/* The tournament options for --help. */
void coord_cli_usage(FILE *f);

#endif
