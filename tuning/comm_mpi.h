/*
 * The MPI process group of bin/chuhe-tune and bin/chuhe-train (MPI_COMM_WORLD), and
 * their main() around it. Works under mpirun and, as a singleton, without it.
 */
#ifndef CHUHE_COMM_MPI_H
#define CHUHE_COMM_MPI_H

#include "cli.h"
#include "comm.h"

/* MPI_Init and the collectives of c; false when MPI cannot start. */
bool comm_mpi_init(Comm *c, int *argc, char ***argv);
void comm_mpi_finalize(void);

/* The program's run: what it does once its options are read. */
typedef int (*CommMpiRun)(Comm *comm, Cli *c);

/* The main() of either program: MPI started, the options of program which read, run
 * called, MPI ended; returns the exit status (CLI_EXIT_USAGE for a bad command line). */
int comm_mpi_main(int argc, char **argv, CliProgram which, const char *prog, CommMpiRun run);

#endif
