/*
 * The coordinator's offline subcommands on a finished run file: exports (plain training
 * text and PGN, both through coord_export.h) and a full check that replays every stored game.
 * Each returns the process exit status.
 */
#ifndef CHUHE_COORD_TOOLS_H
#define CHUHE_COORD_TOOLS_H

/* export plain|pgn RUN.h5 [options] [-o FILE [--force]]: to FILE (checked first with
 * outpath_check: never the run file or another HDF5 file, an existing file only with
 * --force) or to the standard output (refused when it is the run file or an HDF5 file).
 * argv[0] is "plain" or "pgn". */
int coord_tool_export(int argc, char **argv);

/* verify RUN.h5: the run settings read as a resumed coordinator reads them, the run
 * file's own check, then every game replayed with record_validate and its row held to
 * the run's rules (players, move limit, opening moves first); prints the counts and
 * "OK" or the first problems. */
int coord_tool_verify(int argc, char **argv);

#endif
