/*
 * The run-file handle shared by the run file's modules: what an open RunFile holds (the
 * HDF5 file and its three tables, the run's attributes, every game and player in
 * memory, the rows buffered since the last flush), its creation and release, and the
 * index of stored games by (pair_id, game_in_pair).
 *
 *   runcols.c    the HDF5 column layer (types, attributes, datasets, rows)
 *   runfence.c   crash-safe write sections
 *   runload.c    opening and validating an existing file
 *   runheader.c  object headers checked in the file's bytes before HDF5 reads them
 *   runfile.c    creating, appending, flushing, closing
 *   runread.c    counts, stored games and players, reading rows back, verifying
 *   runfile_spsa.c  the SPSA tables: creating, loading, appending, reading
 *   runlock.c    the writer's lock file beside the run file
 *   runfile_inputs.c  the run's inputs and their hashes (an optional attribute)
 */
#ifndef CHUHE_RUNHANDLE_H
#define CHUHE_RUNHANDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "position.h"
#include "runcols.h"
#include "runfile.h"
#include "runlock.h"

struct RunFile {
    char *path;
    bool writable;
    RunLock *lock; /* a writer's lock of the file (runlock.h); NULL for a reader */
    char lock_note[RUNLOCK_TEXT_MAX + 64]; /* "" or the takeover of a stale lock file */
    bool broken; /* a write failed: the file is only as good as the last flush */
    hid_t file;
    RunDataset ds[RUNCOLS_NB]; /* ds[t].stored: rows in the file */

    uint64_t run_id;
    char *config;
    char *engine_version;
    char *created;
    char note[640];
    uint64_t past_eoa; /* bytes past the EOA when opened: an interrupted write section */
    /* /games durable_games as the file holds it: games written in full (runfile.h) */
    uint64_t durable_games;
    char tail_why[160]; /* why the first row past the stored games is not one */

    /* Every game, stored or buffered, by id; and (pair, game_in_pair) -> id + 1. */
    RunGame *games;
    uint64_t ngames;
    size_t games_cap;
    uint64_t *slots;
    size_t nslots; /* a power of two, at least twice ngames */
    uint64_t npositions;
    uint64_t next_pair;

    RunPlayer *players;
    uint64_t nplayers;
    size_t players_cap;

    /* Rows appended since the last flush (players: those past ds[RUNCOLS_PLAYERS].stored). */
    RunGameRow *gbuf;
    uint64_t ngbuf;
    size_t gbuf_cap;
    RunPosition *pbuf;
    uint64_t npbuf;
    size_t pbuf_cap;

    /* SPSA: the tuned parameters (none outside an SPSA run), the iteration rows stored
     * and buffered, and the buffered ones */
    RunSpsaParam sparams[RUNFILE_SPSA_MAX];
    int nsparams;
    uint64_t nspsa;
    RunSpsaRow *sbuf;
    uint64_t nsbuf;
    size_t sbuf_cap;

    Position pos;                          /* replays games */
    RunPosition scratch[RECORD_MAX_PLIES]; /* one game's positions, when reading */
};

/* Initial capacity of the game, player and row arrays. */
enum { RUNHANDLE_ARRAY_FIRST = 64 };

/* A handle with nothing open; NULL with err set when out of memory. */
RunFile *runhandle_new(const char *path, RunError *err);
/* Closes the HDF5 objects in reverse order of opening; false (err set, may be NULL) when
 * a close failed. */
bool runhandle_close_hdf5(RunFile *rf, RunError *err);
/* Closes without flushing and frees; NULL is allowed. */
void runhandle_free(RunFile *rf);

/* Whether (pair_id, gip) is in the index; its game id goes to *id (may be NULL). */
bool runhandle_find(const RunFile *rf, uint64_t pair_id, unsigned gip, uint64_t *id);
/* Adds a game, whose id is the next one, to the games and the index; false when out of
 * memory. */
bool runhandle_add_game(RunFile *rf, const RunGame *g);
/* Keeps the first n games (n <= ngames) and takes the others out of the index. */
void runhandle_keep_games(RunFile *rf, uint64_t n);

/* runfile_spsa.c's part of opening and flushing. Loading reads the parameters and
 * counts the valid rows of the SPSA tables, when the file has them (extent: their rows
 * in the file); writing appends the buffered rows, inside the caller's write section. */
bool runfile_spsa_load(RunFile *rf, const uint64_t extent[RUNCOLS_NB], RunError *err);
uint64_t runfile_spsa_pending_bytes(const RunFile *rf);
bool runfile_spsa_write(RunFile *rf, RunError *err);

#endif
