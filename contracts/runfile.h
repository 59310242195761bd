/*
 * The run file: one HDF5 file per run holding every accepted game and every position
 * of those games, written by the coordinator and read by exports and the tuner.
 *
 * Schema version 1 (all integers little-endian; every dataset one-dimensional,
 * chunked, extendible, shuffle + deflate + Fletcher-32 checksums):
 *
 *   / attributes   schema_version u32 (1), run_id u64, engine_version string,
 *                  run_config string (JSON, as the coordinator gave it),
 *                  created string (ISO 8601 UTC, e.g. 2024-05-01T12:00:00Z), inputs
 *                  string (optional: the run's inputs and their hashes, one a line)
 *   /games         one row per game; game_id equals the row number
 *     game_id u64, pair_id u64, game_in_pair u8 (0: players as in the pair's WORK,
 *     1: colours swapped), red_player u16, black_player u16, start_fen string[128],
 *     outcome i8 (1 Red won, 0 draw, -1 Black won), reason u8 (Reason code),
 *     plies u16, first_position u64 (row in /positions), worker_rank u32
 *     attributes: reason_names string[32][n] (name of each reason code, rules.h),
 *     durable_games u64 (games written in full: set inside each flush to the games
 *     stored before it, and to all of them on closing; absent in older files)
 *   /positions     one row per position before each move, rows of a game contiguous
 *                  from its first_position, in ply order (so rows per game == plies)
 *     board u8[48] (PackedPos, record.h), game_id u64, ply u16 (0-based, within the
 *     game), move u16, best u16 (Move: from | to << 7, squares rank * 9 + file),
 *     score i16 (mover's view), depth u8, flags u8 (RECORD_FLAG_*), result i8 (mover's
 *     view: 1 win, 0 draw, -1 loss), nodes u32
 *   /players       one row per player; player_id equals the row number
 *     player_id u16, name string[64], kind string[16] ("builtin"),
 *     weights string[256] ("" for the built-in weights), weights_hash u64
 *   /spsa_params   only in an SPSA run: one row per tuned parameter, param_id = row
 *     param_id u16, name string[64], type string[8] ("int" or "float"), start f64,
 *     min f64, max f64, c_end f64, r_end f64
 *   /spsa          only in an SPSA run: one row per applied iteration, pair_id = row
 *     pair_id u64, result i8 (points of player 0 minus points of player 1 over the
 *     pair, -2..2), delta i8[64] (+1 or -1), plus f64[64] (player 0's values), minus
 *     f64[64] (player 1's), theta f64[64] (after the update); entries past the
 *     parameter count are 0
 * Strings are fixed-size, NUL-terminated ASCII (h5py reads them as bytes).
 *
 * Durability: plain HDF5 (no SWMR), H5Fflush and fsync after each batch. After
 * runfile_flush() returns, every appended game is on disk and survives the writer being
 * killed (SIGKILL, crash, OOM) or the machine stopping, and the file opens with no
 * h5clear. SWMR was not chosen: a killed SWMR writer leaves a file that nothing opens
 * until `h5clear -s --increment`, and flushing partial compressed chunks under SWMR bloats
 * the file. The price is that readers cannot open the file while the writer has it open
 * (HDF5 file locking refuses them); exports and the tuner read finished or stopped runs.
 * HDF5 itself has no atomic commit, so the file is created with the file space strategy
 * NONE and every batch is fenced (runfence.c explains how): in 4000 kills at random
 * moments of back-to-back flushes, no file was lost and no flushed game was missing.
 * A kill inside a flush can leave that batch half written; on reopening, its rows are
 * ignored (read) or dropped (append) and runfile_recovery_note() says so. Rows below
 * durable_games are never taken for such rows: a bad one there is damage, and the file
 * is refused. They were never
 * acknowledged, so the workers send those games again. Rarely (1 in 4000 kills) such a
 * file refuses readers until it has been opened for append once, which repairs it.
 * The file space strategy means that space freed by rewriting a chunk is not reused:
 * flush in batches (see runfile_flush); `h5repack` compacts a finished file.
 *
 * Errors are one line naming the file and what failed. A corrupt file (truncated,
 * overwritten, wrong schema version, missing dataset, wrong member types) is refused at
 * open, and runfile_open_append() validates it read-only before reopening it for
 * writing, so nothing is written to a file it refuses; the one exception is the repair
 * above, tried only on a file whose bytes past its end of allocation mark an
 * interrupted flush. Not thread-safe: one RunFile per thread.
 */
#ifndef CHUHE_RUNFILE_H
#define CHUHE_RUNFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

enum {
    RUNFILE_SCHEMA_VERSION = 1,
    RUNFILE_FEN_SIZE = RECORD_FEN_MAX, /* string sizes include the terminating NUL */
    RUNFILE_NAME_SIZE = 64,
    RUNFILE_KIND_SIZE = 16,
    RUNFILE_WEIGHTS_SIZE = 256,
    RUNFILE_REASON_NAME_SIZE = 32,
    RUNFILE_CONFIG_MAX = 60000, /* bytes of run_config (an attribute: under 64 KiB) */
    RUNFILE_PLAYERS_MAX = 65535,
    /* Rows per chunk. Every flush rewrites the partly filled last chunk of each table,
     * and the old copy stays in the file as dead space (see runfile_flush), so chunks are
     * small: 1024 positions compress almost as well as 8192 (13.6 against 13.4 bytes a
     * position) and a flush recompresses 71 KB instead of 580 KB. */
    RUNFILE_POSITION_CHUNK = 1024, /* 71 KB */
    RUNFILE_GAME_CHUNK = 64,       /* 10.5 KB */
    RUNFILE_PLAYER_CHUNK = 64,     /* 22 KB */
    RUNFILE_SPSA_CHUNK = 16,       /* 26 KB of /spsa, mostly zeros */
    RUNFILE_DEFLATE_LEVEL = 1,     /* level 4: 9% smaller, 1.5-2x slower */
    /* Buffered positions that make runfile_append_game flush by itself. */
    RUNFILE_BATCH_POSITIONS = 16384,
    RUNFILE_SPSA_MAX = 64, /* tuned parameters of an SPSA run */
    RUNFILE_SPSA_TYPE_SIZE = 8,
};

/*
 * Pair ids run densely from 0 (a coordinator hands out each id once, and again after a
 * restart only if no game of it was stored), so game k has a pair id below k plus the
 * pairs in flight. A row whose pair_id passes its game_id by more than this is refused,
 * read or appended: the coordinator's schedule is an array indexed by pair id, and a
 * damaged id must not make it allocate without bound. 2^24 pairs in flight is 16 times
 * 100,000 ranks at the default --max-inflight of 8; the schedule for it is 512 MB.
 */
#define RUNFILE_PAIR_ID_SLACK ((uint64_t)1 << 24)

typedef struct RunFile RunFile;

typedef struct {
    char msg[512];
} RunError;

/* One row of /positions. */
typedef struct {
    PackedPos board;
    uint64_t game_id;
    uint16_t ply;
    Move move;
    Move best;
    int16_t score;
    uint8_t depth;
    uint8_t flags;
    int8_t result;
    uint32_t nodes;
} RunPosition;

/* One row of /games, without its start FEN (runfile_read_game has it). */
typedef struct {
    uint64_t game_id;
    uint64_t pair_id;
    uint64_t first_position;
    uint32_t worker_rank;
    uint16_t red, black;
    uint16_t plies;
    uint8_t game_in_pair;
    int8_t outcome; /* 1 Red won, 0 draw, -1 Black won */
    uint8_t reason; /* Reason */
} RunGame;

/* One row of /players. */
typedef struct {
    uint16_t player_id;
    char name[RUNFILE_NAME_SIZE];
    char kind[RUNFILE_KIND_SIZE];
    char weights[RUNFILE_WEIGHTS_SIZE];
    uint64_t weights_hash;
} RunPlayer;

/* One row of /spsa_params. */
typedef struct {
    uint16_t param_id;
    char name[RUNFILE_NAME_SIZE];
    char type[RUNFILE_SPSA_TYPE_SIZE]; /* "int" or "float" */
    double start, min, max, c_end, r_end;
} RunSpsaParam;

/* One row of /spsa: the iteration of pair pair_id. */
typedef struct {
    uint64_t pair_id;
    int8_t result;
    int8_t delta[RUNFILE_SPSA_MAX];
    double plus[RUNFILE_SPSA_MAX];
    double minus[RUNFILE_SPSA_MAX];
    double theta[RUNFILE_SPSA_MAX];
} RunSpsaRow;

/* ---- Writing (the coordinator) ---- */

/*
 * Every writer holds the run file's own lock (runlock.h: RUN.h5.lock beside it) from
 * runfile_create or runfile_open_append until runfile_close, whether HDF5's file lock is
 * on or not (HDF5_USE_FILE_LOCKING=FALSE): a second writer is refused with one line
 * naming the holder (program, pid, host, since when), and so is a reader while a
 * writer of this host or one seen through fcntl locks has the file.
 */

/* Creates a new run file (never overwrites one) with a fresh random run id. */
RunFile *runfile_create(const char *path, const char *config_json, const char *engine_version,
                        RunError *err);

/*
 * Opens an existing run file to add games, after checking its schema and contents. The
 * stored games, players and ids are then available as below, so a restarted coordinator
 * knows which (pair, game_in_pair) are done without any other state.
 */
RunFile *runfile_open_append(const char *path, RunError *err);

/* Adds a player; its id (the row number) goes to *id. Durable at the next flush. */
bool runfile_add_player(RunFile *rf, const char *name, const char *kind, const char *weights,
                        uint64_t weights_hash, uint16_t *id, RunError *err);

/*
 * Buffers a finished game (outcome set) and its positions; the game id goes to *game_id
 * (may be NULL). The caller has validated the record (record_validate: its fields are in
 * range, game_in_pair is 0 or 1; asserted here); the run file replays it to pack the
 * boards and refuses illegal moves, unknown players, pair ids past the file's dense run
 * and a (pair_id, game_in_pair) already stored. Nothing is buffered on failure. When the
 * buffer reaches RUNFILE_BATCH_POSITIONS it is written and flushed as by runfile_flush;
 * if that flush fails the game stays buffered and the next runfile_flush reports it.
 */
bool runfile_append_game(RunFile *rf, const GameRecord *rec, uint64_t pair_id,
                         unsigned game_in_pair, uint16_t red, uint16_t black, uint32_t rank,
                         uint64_t *game_id, RunError *err);

/*
 * runfile_append_game for a record that record_validate_boards accepted, with the boards
 * it packed: they are stored as given rather than replayed again (the caller vouches
 * that they are rec's), and the caller has found that (pair_id, game_in_pair) is not
 * stored (runfile_find_game; asserted here); the players and the pair id are checked as
 * above. The coordinator's way in: each game is replayed once, by the validation, and
 * looked up once, by its judging.
 */
bool runfile_append_validated(RunFile *rf, const GameRecord *rec, const PackedPos *boards,
                              uint64_t pair_id, unsigned game_in_pair, uint16_t red, uint16_t black,
                              uint32_t rank, uint64_t *game_id, RunError *err);

/*
 * Writes the buffered rows, then H5Fflush and fsync: on return every appended game is
 * durable. Acknowledge games to workers only after this succeeds. The space a batch
 * needs is allocated before anything is written, so a full disk, a quota or a file size
 * limit fails with the file as the last flush left it and the rows still buffered: call
 * again later. Any other failure breaks the run file (runfile_broken): it keeps what
 * was flushed before and refuses further writes.
 * Each flush costs a few ms (3.7 ms here, the fsync included) and leaves the old copy of
 * the last chunk of /positions and /games in the file (~7 KB): flushing after every game
 * makes the file about 4 times larger than flushing every 64 games. Group commits: flush
 * when a second has passed or a few dozen games wait, then acknowledge all of them.
 */
bool runfile_flush(RunFile *rf, RunError *err);

/*
 * Forgets the games appended since the last successful flush, with their positions and
 * the SPSA rows buffered with them, as if they had never been appended: for a writer
 * that stops while they cannot be written, so that runfile_close does not write games
 * nobody was told of, and the counts (runfile_game_count) are those of the file. Returns
 * how many games were dropped. Players stay.
 */
uint64_t runfile_drop_unflushed(RunFile *rf);

/* Whether a write failed part-way: the file holds what the last good flush wrote and
 * takes no more writes until it is opened again. */
bool runfile_broken(const RunFile *rf);

/* Flushes (when writing) and closes; *rf becomes NULL. False when the final flush or
 * close failed: the games buffered since the last successful flush may be lost. */
bool runfile_close(RunFile **rf, RunError *err);

/* ---- Reading (exports, the tuner, a restarted coordinator) ---- */

/* Opens read-only; fails while a writer has the file open (HDF5 file locking).
 * Several readers (e.g. MPI ranks, each reading a shard) may open it at once. */
RunFile *runfile_open_read(const char *path, RunError *err);

/* Counts include games buffered but not yet flushed. */
uint64_t runfile_game_count(const RunFile *rf);
uint64_t runfile_position_count(const RunFile *rf);
/* Games on disk: the count at the last successful flush. */
uint64_t runfile_flushed_game_count(const RunFile *rf);
uint16_t runfile_player_count(const RunFile *rf);
/* One more than the highest stored pair id (0 for an empty file). */
uint64_t runfile_next_pair_id(const RunFile *rf);

/* Stored game by id (0 .. runfile_game_count - 1), NULL outside; the pointer is valid
 * until the next append. Iterate over ids to rebuild statistics after a restart. */
const RunGame *runfile_game(const RunFile *rf, uint64_t game_id);
/* Whether (pair_id, game_in_pair) is stored; its game id goes to *game_id (may be NULL). */
bool runfile_find_game(const RunFile *rf, uint64_t pair_id, unsigned game_in_pair,
                       uint64_t *game_id);
/* Player by id, NULL outside. */
const RunPlayer *runfile_player(const RunFile *rf, uint16_t player_id);

uint64_t runfile_run_id(const RunFile *rf);
const char *runfile_path(const RunFile *rf);
const char *runfile_config(const RunFile *rf);
const char *runfile_engine_version(const RunFile *rf);
const char *runfile_created(const RunFile *rf);
/* "" unless a writer took over a stale lock file (left by a process of this host that no
 * longer runs); then one line to log. */
const char *runfile_lock_note(const RunFile *rf);
/* "" unless opening met the traces of an interrupted flush (rows ignored or dropped, the
 * end of allocation moved); then one line saying what was done. */
const char *runfile_recovery_note(const RunFile *rf);

/* Reads positions [start, start + count) with one hyperslab read, so that MPI ranks can
 * each read their own shard. Only flushed positions can be read. */
bool runfile_read_positions(RunFile *rf, uint64_t start, uint64_t count, RunPosition *out,
                            RunError *err);

/* Rebuilds a stored game's record (start FEN, moves, scores, depths, flags, nodes,
 * outcome, reason; out->game_id = game_id). Only flushed games can be read. */
bool runfile_read_game(RunFile *rf, uint64_t game_id, GameRecord *out, RunError *err);

/* A game's identity as a move list: a hash of its start FEN and its moves, equal for
 * two games exactly when they play the same moves from the same position (up to hash
 * collisions, 2^-64 a pair). Counts games that repeat others (self-play of two equal
 * deterministic players, an opening played twice by the same engines). From a record,
 * or from the run file (flushed or buffered: a game just appended has its key). */
uint64_t runfile_record_key(const GameRecord *rec);
/* The key of what a game was started from: its start FEN and the opening's moves (a book
 * line or random moves, stored as plies flagged RECORD_FLAG_OPENING). Two games have the
 * same opening key exactly when they began from the same position with the same opening
 * moves (up to hash collisions), whatever was played after. */
uint64_t runfile_record_opening_key(const GameRecord *rec);
bool runfile_game_key(RunFile *rf, uint64_t game_id, uint64_t *key, RunError *err);

/* How many reads of stored rows (any table) the handle has made since it was opened:
 * for tests that show a path (storing a game) reads nothing back from the file. */
uint64_t runfile_read_count(const RunFile *rf);

/* Reads every position and checks it against its game (game id, ply, result): the full
 * check that opening skips for speed. */
bool runfile_verify(RunFile *rf, RunError *err);

/* ---- Inputs (runfile_inputs.c): what the run reads, as its writer describes it ---- */

/*
 * Stores text (at most RUNFILE_CONFIG_MAX bytes) as the root attribute "inputs",
 * replacing an earlier one, durably before returning: the coordinator's list of a run's
 * inputs with their hashes (coordinator/coord_inputs.h), compared when it resumes.
 */
bool runfile_inputs_set(RunFile *rf, const char *text, RunError *err);

/* The stored inputs in *text (malloc'd: the caller frees it), or NULL for a file from
 * before the attribute. */
bool runfile_inputs_get(RunFile *rf, char **text, RunError *err);

/* ---- SPSA (runfile_spsa.c): the tables of a run that tunes parameters ---- */

/*
 * Makes a new run file an SPSA run: creates /spsa_params and /spsa and writes the n
 * parameters (1..RUNFILE_SPSA_MAX; param_id is set here), durably, before returning.
 * Once per file.
 */
bool runfile_spsa_begin(RunFile *rf, const RunSpsaParam *params, int n, RunError *err);

/* Whether name can name a tuned parameter: 1 to 63 bytes of printable ASCII without '=',
 * ';' or ',' (it becomes an engine option, a column of the values file and a plot's
 * key). A file whose /spsa_params holds another is refused as damaged. */
bool runfile_spsa_name_ok(const char *name);

/* The tuned parameters; 0 outside an SPSA run. */
int runfile_spsa_param_count(const RunFile *rf);
const RunSpsaParam *runfile_spsa_param(const RunFile *rf, int i);

/* Iteration rows stored and buffered. On opening, a row counts only with both games of
 * its pair stored: rows of an interrupted flush are ignored (read) or dropped (append),
 * as games are. */
uint64_t runfile_spsa_count(const RunFile *rf);
/* The rows on disk: the count at the last successful flush. */
uint64_t runfile_spsa_flushed_count(const RunFile *rf);

/* Buffers the next iteration row (its pair_id must be runfile_spsa_count()); durable at
 * the next flush, with the games buffered before it. */
bool runfile_spsa_append(RunFile *rf, const RunSpsaRow *row, RunError *err);

/* Reads rows [start, start + n), stored or buffered. */
bool runfile_spsa_read(RunFile *rf, uint64_t start, uint64_t n, RunSpsaRow *out, RunError *err);

#endif
