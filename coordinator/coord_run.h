/*
 * Serving a run: `chuhe-coordinator [run] [options]` (coord_run.c says how). Returns the
 * process exit status: 0 when the run is complete, 1 when it failed, 2 for a command
 * line or settings it refuses, 128 + N when stopped by signal N.
 */
#ifndef CHUHE_COORD_RUN_H
#define CHUHE_COORD_RUN_H

/* argv: the options (what follows "run", or the program's name). */
int coord_run_serve(int argc, char **argv);

#endif
