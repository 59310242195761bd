/*
 * The MPI process group for bin/chuhe-tune (MPI_COMM_WORLD). Works under mpirun and,
 * as a singleton, without it.
 */
#ifndef CHUHE_COMM_MPI_H
#define CHUHE_COMM_MPI_H

#include "comm.h"

/* MPI_Init and the collectives of c; false when MPI cannot start. */
bool comm_mpi_init(Comm *c, int *argc, char ***argv);
void comm_mpi_finalize(void);

#endif
