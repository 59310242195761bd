/*
 * The run file's HDF5 layer (runfile.h gives the schema): the column tables of /games,
 * /positions, /players and the SPSA tables, from which both the file types (packed, explicit
 * little-endian) and the in-memory types (the C structs) are built and against which an
 * opened file is checked, so that the layout is written down once; the file's
 * attributes; datasets created, opened, appended to and read with one hyperslab each;
 * and the error text of a failed HDF5 call.
 *
 * Nothing here knows the RunFile handle: every function takes the path that its errors
 * name. Errors are one line, the file first, then what failed, then HDF5's own reason.
 */
#ifndef CHUHE_RUNCOLS_H
#define CHUHE_RUNCOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "runfile.h"

/* A /games row in memory. */
typedef struct {
    uint64_t game_id;
    uint64_t pair_id;
    uint8_t game_in_pair;
    uint16_t red_player;
    uint16_t black_player;
    char start_fen[RUNFILE_FEN_SIZE];
    int8_t outcome;
    uint8_t reason;
    uint16_t plies;
    uint64_t first_position;
    uint32_t worker_rank;
} RunGameRow;

/* The tables before RUNCOLS_REQUIRED are in every run file; the SPSA ones only in a run
 * that tunes parameters (runfile_spsa.c). */
typedef enum {
    RUNCOLS_GAMES,
    RUNCOLS_POSITIONS,
    RUNCOLS_PLAYERS,
    RUNCOLS_SPSA_PARAMS,
    RUNCOLS_SPSA,
    RUNCOLS_NB,
    RUNCOLS_REQUIRED = RUNCOLS_SPSA_PARAMS
} RunTableId;

typedef struct RunColumn RunColumn; /* one member of a row: runcols.c */

/* A table: its dataset name, columns, in-memory row size, rows per chunk and the
 * description attribute written with it. */
typedef struct {
    const char *name;
    const RunColumn *cols;
    int ncols;
    size_t mem_size;
    hsize_t chunk;
    const char *description;
} RunTable;

extern const RunTable RUNCOLS_TABLES[RUNCOLS_NB];

/* The /games attribute that counts the games written in full (runfile.h). */
#define RUNCOLS_DURABLE_GAMES "durable_games"

/* An open table: the dataset, the in-memory row type, the rows in the file, the
 * transfer list of its reads and writes with its conversion buffers (made at the first
 * read or write), and how many reads it made (runfile_read_count). The ids are
 * H5I_INVALID_HID while closed or not made. */
typedef struct {
    RunTableId id;
    hid_t dset;
    hid_t memtype;
    uint64_t stored;
    hid_t dxpl;
    void *convert;
    uint64_t reads;
} RunDataset;

/* ---- Errors and HDF5's own error printing ---- */

/* A failed HDF5 call: "path: what: HDF5's innermost message", and HDF5's error stack
 * cleared. Returns false. (Failures of the run file's own checks use ERROR_SET.) */
bool runcols_hdf5_error(RunError *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* HDF5 prints its error stack to stderr by default; the run file reports errors itself,
 * so each public call turns printing off at its start and back on at its end. */
typedef struct {
    H5E_auto2_t func;
    void *data;
} RunQuiet;

RunQuiet runcols_quiet_begin(void);
void runcols_quiet_end(RunQuiet q);

/* Closes *id with closer when it is valid; *id becomes H5I_INVALID_HID. */
void runcols_close_id(hid_t *id, herr_t (*closer)(hid_t));

/* ---- Rows ---- */

/* Whether a fixed-size string field holds its terminating NUL. */
bool runcols_terminated(const char *s, size_t size);
/* A /games row as the handle keeps it. */
RunGame runcols_game(const RunGameRow *r);

/* ---- Attributes (obj: the file or a dataset) ---- */

bool runcols_attr_write_scalar(hid_t obj, const char *name, hid_t ftype, hid_t mtype,
                               const void *value, const char *path, RunError *err);
/* A scalar u64, created or overwritten. */
bool runcols_attr_put_u64(hid_t obj, const char *name, uint64_t v, const char *path, RunError *err);
/* A scalar fixed-length string, as long as s. */
bool runcols_attr_write_string(hid_t obj, const char *name, const char *s, const char *path,
                               RunError *err);
/* reason_names: the name of every Reason code, indexed by code. */
bool runcols_attr_write_reasons(hid_t obj, const char *path, RunError *err);
bool runcols_attr_read_u64(hid_t obj, const char *name, uint64_t *v, const char *path,
                           RunError *err);
/* A scalar fixed-length string attribute into a new string (*out, to free). */
bool runcols_attr_read_string(hid_t obj, const char *name, char **out, const char *path,
                              RunError *err);
/* The stored reason names must be this build's names for the same codes. A file with
 * fewer names (from a build with fewer reasons) is fine; a different name is not. */
bool runcols_check_reasons(hid_t games, const char *path, RunError *err);
/* How many reason names /games holds; -1 when that cannot be read. */
int64_t runcols_reason_count(hid_t games);

/* ---- Datasets ---- */

/* A closed table. */
void runcols_init(RunDataset *d, RunTableId id);
/* Creates the table's empty dataset in file: chunked, extendible, shuffle + deflate +
 * Fletcher-32, with its description. */
bool runcols_create(RunDataset *d, hid_t file, const char *path, RunError *err);
/* Opens the table's dataset in file, checks its member types and shape, and puts its
 * rows (the extent) in *extent; d->stored is left to the caller. */
bool runcols_open(RunDataset *d, hid_t file, uint64_t *extent, const char *path, RunError *err);
/* Closes the dataset and the row type; false (err set) when closing the dataset fails. */
bool runcols_close(RunDataset *d, const char *path, RunError *err);

/* Appends n rows after the stored ones with one hyperslab write; d->stored grows by n. */
bool runcols_append(RunDataset *d, const void *rows, uint64_t n, const char *path, RunError *err);
/* Reads rows [start, start + n) with one hyperslab read. */
bool runcols_read(RunDataset *d, uint64_t start, uint64_t n, void *out, const char *path,
                  RunError *err);

#endif
