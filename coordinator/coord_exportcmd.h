/*
 * `chuhe-coordinator export plain|pgn RUN.h5 [options] [-o FILE [--force]]`: a finished
 * run file as plain training text or as PGN (the formats: coord_export.h), to FILE
 * (checked first with outpath_check: never the run file or another HDF5 file, an
 * existing file only with --force) or to the standard output (refused when it is the
 * run file or an HDF5 file). Returns the process exit status.
 */
#ifndef CHUHE_COORD_EXPORTCMD_H
#define CHUHE_COORD_EXPORTCMD_H

/* argv: what follows "export" ("plain" or "pgn" first). */
int coord_exportcmd_run(int argc, char **argv);

#endif
