/*
 * `chuhe-coordinator verify RUN.h5`: the run settings read as a resumed coordinator
 * reads them, the run file's own check, then every game replayed with record_validate
 * and its row held to the run's rules (players, move limit, opening moves first); prints
 * the counts and "OK" or the first problems. Returns the process exit status.
 */
#ifndef CHUHE_COORD_VERIFYCMD_H
#define CHUHE_COORD_VERIFYCMD_H

/* argv: what follows "verify". */
int coord_verifycmd_run(int argc, char **argv);

#endif
