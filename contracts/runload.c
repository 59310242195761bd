#include "runload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "array.h"
#include "error.h"
#include "runfence.h"
#include "runhandle.h"
#include "runheader.h"

enum { GAME_READ_BLOCK = 4096 }; /* /games rows read at once while opening */

/* The most rows one flush can add: positions stay below RUNFILE_BATCH_POSITIONS until
 * the game that reaches it; games have no such bound (a game may have no plies), but the
 * coordinator flushes every second or few dozen games, so a million is generous. */
enum { TAIL_POSITIONS_MAX = RUNFILE_BATCH_POSITIONS + RECORD_MAX_PLIES, TAIL_GAMES_MAX = 1 << 20 };

/* Opens the datasets of an open file and checks their member types and shapes. The
 * SPSA tables are opened when the file has them (extent 0 when not). */
static bool open_tables(RunFile *rf, uint64_t extent[RUNCOLS_NB], RunError *err)
{
    for (int t = 0; t < RUNCOLS_NB; t++) {
        extent[t] = 0;
        if (t >= RUNCOLS_REQUIRED) {
            htri_t ex = H5Lexists(rf->file, RUNCOLS_TABLES[t].name + 1, H5P_DEFAULT);
            if (ex < 0)
                return runcols_hdf5_error(err, rf->path, "cannot look for %s",
                                          RUNCOLS_TABLES[t].name);
            if (!ex)
                continue;
        }
        if (!runcols_open(&rf->ds[t], rf->file, &extent[t], rf->path, err))
            return false;
    }
    return true;
}

static bool load_players(RunFile *rf, uint64_t n, RunError *err)
{
    if (n > RUNFILE_PLAYERS_MAX)
        return ERROR_SET(err, "%s: /players has %llu rows, more than %d", rf->path,
                         (unsigned long long)n, RUNFILE_PLAYERS_MAX);
    if (!array_reserve((void **)&rf->players, &rf->players_cap, n, sizeof *rf->players,
                       RUNHANDLE_ARRAY_FIRST))
        return ERROR_SET(err, "%s: out of memory", rf->path);
    if (!runcols_read(&rf->ds[RUNCOLS_PLAYERS], 0, n, rf->players, rf->path, err))
        return false;
    for (uint64_t i = 0; i < n; i++) {
        const RunPlayer *p = &rf->players[i];
        if (p->player_id != i || !runcols_terminated(p->name, sizeof p->name) ||
            !runcols_terminated(p->kind, sizeof p->kind) ||
            !runcols_terminated(p->weights, sizeof p->weights))
            return ERROR_SET(err, "%s: /players row %llu is damaged", rf->path,
                             (unsigned long long)i);
    }
    rf->nplayers = rf->ds[RUNCOLS_PLAYERS].stored = n;
    return true;
}

/* Checks a stored game row (its id is already known to be the row number): every field
 * in range; the error names the field, its value and what was expected. */
static bool check_game_row(const RunFile *rf, const RunGameRow *r, RunError *err)
{
    char why[160] = "";
    unsigned long long pair = (unsigned long long)r->pair_id;
    if (r->game_in_pair > 1)
        snprintf(why, sizeof why, "game_in_pair %u, expected 0 or 1", r->game_in_pair);
    else if (r->outcome < -1 || r->outcome > 1)
        snprintf(why, sizeof why, "outcome %d, expected 1, 0 or -1", r->outcome);
    else if (r->reason >= REASON_NB)
        snprintf(why, sizeof why, "reason %u, expected a code below %d", r->reason, REASON_NB);
    else if (r->red_player >= rf->nplayers || r->black_player >= rf->nplayers)
        snprintf(why, sizeof why, "%s %u, expected a player below %llu",
                 r->red_player >= rf->nplayers ? "red_player" : "black_player",
                 r->red_player >= rf->nplayers ? r->red_player : r->black_player,
                 (unsigned long long)rf->nplayers);
    else if (r->plies > RECORD_MAX_PLIES)
        snprintf(why, sizeof why, "plies %u, expected at most %d", r->plies, RECORD_MAX_PLIES);
    else if (r->pair_id == UINT64_MAX) /* runfile_next_pair_id would wrap to 0 */
        snprintf(why, sizeof why, "pair_id has no next one (%llu)", pair);
    else if (r->pair_id > r->game_id && r->pair_id - r->game_id > RUNFILE_PAIR_ID_SLACK)
        snprintf(why, sizeof why,
                 "pair_id %llu is more than 2^24 past its game_id (pair ids run densely)", pair);
    else if (!runcols_terminated(r->start_fen, sizeof r->start_fen) || !r->start_fen[0])
        snprintf(why, sizeof why, "start_fen is %s", r->start_fen[0] ? "unterminated" : "empty");
    else if (runhandle_find(rf, r->pair_id, r->game_in_pair, NULL))
        snprintf(why, sizeof why, "(pair_id %llu, game_in_pair %u) is stored twice", pair,
                 r->game_in_pair);
    return why[0] ? ERROR_SET(err, "%s: /games row %llu: %s", rf->path,
                              (unsigned long long)r->game_id, why)
                  : true;
}

/* Why row i, the first of the tail, is not a stored game: its game_id is not its row
 * number, or its plies run past the positions. */
static void tail_reason(const RunGameRow *r, uint64_t i, uint64_t pos_rows, char *why, size_t size)
{
    if (r->game_id != i)
        snprintf(why, size, "/games row %llu: game_id %llu, expected %llu", (unsigned long long)i,
                 (unsigned long long)r->game_id, (unsigned long long)i);
    else
        snprintf(why, size,
                 "/games row %llu: plies %u take positions up to row %llu, /positions has %llu "
                 "rows",
                 (unsigned long long)i, r->plies,
                 (unsigned long long)(r->first_position + r->plies - 1),
                 (unsigned long long)pos_rows);
}

/*
 * Reads /games into the index. Rows of an interrupted flush (a kill inside
 * runfile_flush) form the tail: the first row whose positions are missing or whose
 * game_id is not its row number (a row the extent covers but that was never written),
 * and everything after it. *games and *positions get the rows before that tail.
 */
static bool load_games(RunFile *rf, uint64_t n, uint64_t pos_rows, uint64_t *games,
                       uint64_t *positions, RunError *err)
{
    RunGameRow *buf = malloc(GAME_READ_BLOCK * sizeof *buf);
    if (!buf)
        return ERROR_SET(err, "%s: out of memory", rf->path);
    uint64_t expect = 0, tail = n;
    bool ok = true;
    for (uint64_t start = 0; ok && start < tail; start += GAME_READ_BLOCK) {
        uint64_t cnt = n - start < GAME_READ_BLOCK ? n - start : GAME_READ_BLOCK;
        if (!(ok = runcols_read(&rf->ds[RUNCOLS_GAMES], start, cnt, buf, rf->path, err)))
            break;
        for (uint64_t j = 0; ok && j < cnt; j++) {
            const RunGameRow *r = &buf[j];
            uint64_t i = start + j;
            if (r->game_id != i ||
                (r->first_position == expect && r->first_position + r->plies > pos_rows)) {
                tail = i;
                tail_reason(r, i, pos_rows, rf->tail_why, sizeof rf->tail_why);
                /* rows the file records as written in full are damaged, never dropped */
                if (i < rf->durable_games)
                    ok = ERROR_SET(err,
                                   "%s: %s; the file records %llu games as written in full, so "
                                   "this is damage, not an interrupted write",
                                   rf->path, rf->tail_why, (unsigned long long)rf->durable_games);
                break;
            }
            if (r->first_position != expect)
                ok = ERROR_SET(err, "%s: /games row %llu: first_position %llu, expected %llu",
                               rf->path, (unsigned long long)i,
                               (unsigned long long)r->first_position, (unsigned long long)expect);
            else if ((ok = check_game_row(rf, r, err))) {
                RunGame g = runcols_game(r);
                if (!(ok = runhandle_add_game(rf, &g)))
                    ERROR_SET(err, "%s: out of memory", rf->path);
                expect += r->plies;
            }
        }
    }
    free(buf);
    *games = tail;
    *positions = expect;
    return ok;
}

/* The games the file records as written in full (0 in a file of a build before the
 * count): no more than /games has. */
static bool load_durable(RunFile *rf, uint64_t games, RunError *err)
{
    hid_t d = rf->ds[RUNCOLS_GAMES].dset;
    htri_t ex = H5Aexists(d, RUNCOLS_DURABLE_GAMES);
    rf->durable_games = 0;
    if (ex < 0)
        return runcols_hdf5_error(err, rf->path, "cannot look for /games %s",
                                  RUNCOLS_DURABLE_GAMES);
    if (ex && !runcols_attr_read_u64(d, RUNCOLS_DURABLE_GAMES, &rf->durable_games, rf->path, err))
        return false;
    if (rf->durable_games > games)
        return ERROR_SET(err, "%s: /games %s is %llu, but /games has %llu rows (damaged)", rf->path,
                         RUNCOLS_DURABLE_GAMES, (unsigned long long)rf->durable_games,
                         (unsigned long long)games);
    return true;
}

/* The last stored position must be the last ply of the last game that has plies. Reading
 * it also checks the checksum of the chunk that the next append extends. */
static bool check_last_position(RunFile *rf, RunError *err)
{
    uint64_t n = rf->ds[RUNCOLS_POSITIONS].stored;
    if (!n)
        return true;
    const RunGame *g = &rf->games[rf->ngames - 1];
    while (!g->plies)
        g--;
    RunPosition *p = &rf->scratch[0];
    if (!runcols_read(&rf->ds[RUNCOLS_POSITIONS], n - 1, 1, p, rf->path, err))
        return false;
    if (p->game_id != g->game_id || p->ply != g->plies - 1)
        return ERROR_SET(err, "%s: /positions row %llu is not the last ply of game %llu", rf->path,
                         (unsigned long long)(n - 1), (unsigned long long)g->game_id);
    return true;
}

/* Opens read-only and loads everything a reader or a resuming writer needs. */
static bool load(RunFile *rf, uint64_t extent[RUNCOLS_NB], RunError *err)
{
    struct stat st;
    if (stat(rf->path, &st) < 0)
        return ERROR_SET(err, "%s: %s", rf->path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return ERROR_SET(err, "%s: not a regular file", rf->path);
    rf->file = H5Fopen(rf->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (rf->file < 0)
        return runcols_hdf5_error(err, rf->path, "cannot open as HDF5");
    haddr_t eoa = 0;
    if (H5Fget_eoa(rf->file, &eoa) < 0)
        return runcols_hdf5_error(err, rf->path, "cannot read the end of allocation");
    rf->past_eoa = (uint64_t)st.st_size > eoa ? (uint64_t)st.st_size - eoa : 0;
    uint64_t schema = 0;
    if (!runheader_check(rf->file, "/", rf->path, err) ||
        !runcols_attr_read_u64(rf->file, "schema_version", &schema, rf->path, err))
        return false;
    if (schema != RUNFILE_SCHEMA_VERSION)
        return ERROR_SET(err, "%s: schema version %llu, this build reads version %d", rf->path,
                         (unsigned long long)schema, RUNFILE_SCHEMA_VERSION);
    if (!runcols_attr_read_u64(rf->file, "run_id", &rf->run_id, rf->path, err) ||
        !runcols_attr_read_string(rf->file, "engine_version", &rf->engine_version, rf->path, err) ||
        !runcols_attr_read_string(rf->file, "run_config", &rf->config, rf->path, err) ||
        !runcols_attr_read_string(rf->file, "created", &rf->created, rf->path, err) ||
        !open_tables(rf, extent, err) ||
        !runcols_check_reasons(rf->ds[RUNCOLS_GAMES].dset, rf->path, err) ||
        !load_durable(rf, extent[RUNCOLS_GAMES], err) ||
        !load_players(rf, extent[RUNCOLS_PLAYERS], err))
        return false;
    uint64_t games = 0, positions = 0;
    if (!load_games(rf, extent[RUNCOLS_GAMES], extent[RUNCOLS_POSITIONS], &games, &positions, err))
        return false;
    /* An interrupted flush leaves at most one batch of rows past the stored ones. A longer
     * tail is damage, not a kill, and dropping it on append would keep HDF5 busy for a
     * time that grows with the rows (2^47 of them: for ever). */
    if (extent[RUNCOLS_POSITIONS] - positions > TAIL_POSITIONS_MAX ||
        extent[RUNCOLS_GAMES] - games > TAIL_GAMES_MAX)
        return ERROR_SET(
            err,
            "%s: %llu game rows and %llu position rows past the stored ones: more than "
            "an interrupted write leaves",
            rf->path, (unsigned long long)(extent[RUNCOLS_GAMES] - games),
            (unsigned long long)(extent[RUNCOLS_POSITIONS] - positions));
    rf->ds[RUNCOLS_GAMES].stored = games;
    rf->ds[RUNCOLS_POSITIONS].stored = rf->npositions = positions;
    if (!runfile_spsa_load(rf, extent, err))
        return false;
    if (games < extent[RUNCOLS_GAMES] || positions < extent[RUNCOLS_POSITIONS])
        snprintf(rf->note, sizeof rf->note,
                 "%s: %llu game rows and %llu position rows of an interrupted write %s%s%s",
                 rf->path, (unsigned long long)(extent[RUNCOLS_GAMES] - games),
                 (unsigned long long)(extent[RUNCOLS_POSITIONS] - positions),
                 "are ignored (opening for append drops them)", rf->tail_why[0] ? "; " : "",
                 rf->tail_why);
    return check_last_position(rf, err);
}

/* Reopens a file that load() accepted for writing; drops the rows of an interrupted
 * write and completes a shorter reason_names list. */
static bool reopen_for_append(RunFile *rf, const uint64_t seen[RUNCOLS_NB], RunError *err)
{
    if (!runhandle_close_hdf5(rf, err))
        return false;
    rf->file = H5Fopen(rf->path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (rf->file < 0)
        return runcols_hdf5_error(err, rf->path, "cannot open for writing");
    uint64_t extent[RUNCOLS_NB];
    if (!open_tables(rf, extent, err))
        return false;
    if (memcmp(extent, seen, sizeof extent))
        return ERROR_SET(err, "%s: changed while being opened", rf->path);
    int64_t nnames = runcols_reason_count(rf->ds[RUNCOLS_GAMES].dset);
    if (nnames < 0)
        return runcols_hdf5_error(err, rf->path, "cannot read /games reason_names");
    bool drop = false;
    for (int t = 0; t < RUNCOLS_NB; t++)
        drop |= rf->ds[t].stored != extent[t];
    if (!drop && nnames == REASON_NB && !rf->past_eoa)
        return true;

    if (!runfence_begin(rf->file, 0, NULL, rf->path, err))
        return false;
    for (int t = 0; drop && t < RUNCOLS_NB; t++) {
        hsize_t keep = rf->ds[t].stored;
        if (keep != extent[t] && H5Dset_extent(rf->ds[t].dset, &keep) < 0)
            return runcols_hdf5_error(err, rf->path, "cannot drop the interrupted rows of %s",
                                      RUNCOLS_TABLES[t].name);
    }
    if (drop)
        snprintf(rf->note, sizeof rf->note,
                 "%s: dropped %llu game rows and %llu position rows of an interrupted write%s%s",
                 rf->path,
                 (unsigned long long)(extent[RUNCOLS_GAMES] - rf->ds[RUNCOLS_GAMES].stored),
                 (unsigned long long)(extent[RUNCOLS_POSITIONS] - rf->ds[RUNCOLS_POSITIONS].stored),
                 rf->tail_why[0] ? "; " : "", rf->tail_why);
    if (nnames < REASON_NB &&
        (H5Adelete(rf->ds[RUNCOLS_GAMES].dset, "reason_names") < 0 ||
         !runcols_attr_write_reasons(rf->ds[RUNCOLS_GAMES].dset, rf->path, err)))
        return runcols_hdf5_error(err, rf->path, "cannot replace /games reason_names");
    return runfence_end(rf->file, rf->path, err);
}

static void append_to_error(RunError *err, const char *text)
{
    if (err) {
        size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof err->msg - n, "%s", text);
    }
}

RunFile *runload_open(const char *path, bool writable, RunError *err)
{
    RunQuiet q = runcols_quiet_begin();
    RunFile *rf = runhandle_new(path, err);
    uint64_t extent[RUNCOLS_NB], moved = 0;
    if (rf && !load(rf, extent, err)) {
        moved = rf->past_eoa;
        runhandle_free(rf);
        rf = NULL;
        if (moved && !writable)
            append_to_error(err, " (the file ends in an interrupted write: opening it for "
                                 "append recovers it)");
        if (moved && writable && runfence_recover_eoa(path, err) &&
            (rf = runhandle_new(path, err)) && !load(rf, extent, err)) {
            append_to_error(err, " (after moving the EOA over an interrupted write)");
            runhandle_free(rf);
            rf = NULL;
        }
    }
    if (rf && writable && !reopen_for_append(rf, extent, err)) {
        runhandle_free(rf);
        rf = NULL;
    }
    if (rf) {
        rf->writable = writable;
        if (!moved && writable)
            moved = rf->past_eoa; /* reopen_for_append moved it */
        if (moved && !rf->note[0])
            snprintf(rf->note, sizeof rf->note,
                     "%s: moved the EOA over %llu bytes of an interrupted write", path,
                     (unsigned long long)moved);
    }
    runcols_quiet_end(q);
    return rf;
}
