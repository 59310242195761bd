/*
 * The run file's public entry points for writing: creating a file, adding players and
 * games, flushing them durably and closing. Opening an existing file is runload.c's,
 * reading runread.c's; runhandle.h lists the modules.
 */
#include "runfile.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "error.h"
#include "movegen.h"
#include "notation.h"
#include "runcols.h"
#include "runfence.h"
#include "runhandle.h"
#include "runload.h"
#include "runlock.h"

/* ------------------------------------------------------------------------------------
 * Creating and opening
 * ------------------------------------------------------------------------------------ */

static bool random_id(uint64_t *id)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, id, sizeof *id);
    close(fd);
    return n == (ssize_t)sizeof *id;
}

static bool create_impl(RunFile *rf, const char *config, const char *version, RunError *err)
{
    if (strlen(config) > RUNFILE_CONFIG_MAX)
        return ERROR_SET(err, "%s: run_config of %zu bytes exceeds %d", rf->path, strlen(config),
                         RUNFILE_CONFIG_MAX);
    if (!random_id(&rf->run_id))
        return ERROR_SET(err, "%s: cannot read /dev/urandom for a run id", rf->path);
    time_t now = time(NULL);
    struct tm tm;
    char created[32];
    if (!gmtime_r(&now, &tm) || !strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm))
        return ERROR_SET(err, "%s: cannot format the time", rf->path);
    if (!(rf->config = strdup(config)) || !(rf->engine_version = strdup(version)) ||
        !(rf->created = strdup(created)))
        return ERROR_SET(err, "%s: out of memory", rf->path);

    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (fcpl < 0 || H5Pset_file_space_strategy(fcpl, H5F_FSPACE_STRATEGY_NONE, 0, 1) < 0) {
        runcols_close_id(&fcpl, H5Pclose);
        return runcols_hdf5_error(err, rf->path, "cannot set up the file creation properties");
    }
    /* the empty file runfile_create made for it */
    rf->file = H5Fcreate(rf->path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    if (rf->file < 0)
        return runcols_hdf5_error(err, rf->path, "cannot create the HDF5 file");
    uint32_t schema = RUNFILE_SCHEMA_VERSION;
    if (!runcols_attr_write_scalar(rf->file, "schema_version", H5T_STD_U32LE, H5T_NATIVE_UINT32,
                                   &schema, rf->path, err) ||
        !runcols_attr_write_scalar(rf->file, "run_id", H5T_STD_U64LE, H5T_NATIVE_UINT64,
                                   &rf->run_id, rf->path, err) ||
        !runcols_attr_write_string(rf->file, "engine_version", version, rf->path, err) ||
        !runcols_attr_write_string(rf->file, "run_config", config, rf->path, err) ||
        !runcols_attr_write_string(rf->file, "created", created, rf->path, err))
        return false;
    for (int t = 0; t < RUNCOLS_REQUIRED; t++)
        if (!runcols_create(&rf->ds[t], rf->file, rf->path, err))
            return false;
    if (!runcols_attr_write_reasons(rf->ds[RUNCOLS_GAMES].dset, rf->path, err) ||
        !runcols_attr_put_u64(rf->ds[RUNCOLS_GAMES].dset, RUNCOLS_DURABLE_GAMES, 0, rf->path, err))
        return false;
    return runfence_end(rf->file, rf->path, err);
}

/* Makes the new, empty file at path (never over an existing one), so that a refusal
 * names its cause as the system gives it. */
static bool create_empty(const char *path, RunError *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0)
        return close(fd) == 0 || ERROR_SET(err, "%s: cannot create: %s", path, strerror(errno));
    int e = errno;
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
    struct stat st;
    const char *why = strerror(e);
    if (e == EEXIST)
        why = "the file exists (a run file is never overwritten)";
    else if (e == ENOENT && !path[0])
        why = "an empty file name";
    else if (e == ENOENT && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        why = "the folder takes no new files (a system folder such as /proc?)";
    else if (e == ENOENT)
        why = "the folder does not exist";
    return ERROR_SET(err, "%s: cannot create: %s", path, why);
}

/* A refusal by HDF5's own file lock, said in words: the other process has the file open
 * (a writer holds chuhe's lock too and is named before HDF5 is asked). */
static void hdf5_lock_refusal(const char *path, bool writing, RunError *err)
{
    if (!err || !strstr(err->msg, "unable to lock file"))
        return;
    if (writing)
        ERROR_SET(err,
                  "%s: another process has the file open (a reader such as verify, export, "
                  "report or chuhe-tune, or an HDF5 tool such as h5dump or h5py): try again once "
                  "it has closed the file",
                  path);
    else
        ERROR_SET(err,
                  "%s: another process is writing the file (HDF5's file lock): read it once that "
                  "process has closed it",
                  path);
}

RunFile *runfile_create(const char *path, const char *config_json, const char *engine_version,
                        RunError *err)
{
    RunQuiet q = runcols_quiet_begin();
    char note[sizeof((RunFile *)0)->lock_note];
    int sys_errno;
    RunLock *lock = runlock_take(path, note, sizeof note, &sys_errno, err);
    /* a lock file that cannot be made beside it: the run file's own refusal, in words */
    if (!lock && sys_errno && create_empty(path, err) && unlink(path) == 0)
        ERROR_SET(err, "%s: cannot create its lock file %s.lock: %s", path, path,
                  strerror(sys_errno));
    RunFile *rf = lock ? runhandle_new(path, err) : NULL;
    if (rf && !create_empty(path, err)) {
        runhandle_free(rf);
        rf = NULL;
    }
    if (rf) {
        rf->writable = true;
        if (!create_impl(rf, config_json ? config_json : "", engine_version ? engine_version : "",
                         err)) {
            hdf5_lock_refusal(path, true, err);
            unlink(path); /* while the lock is held: nobody opens the half-made file */
            runhandle_free(rf);
            rf = NULL;
        }
    }
    if (rf) {
        rf->lock = lock;
        snprintf(rf->lock_note, sizeof rf->lock_note, "%s", note);
    } else {
        runlock_release(&lock);
    }
    runcols_quiet_end(q);
    return rf;
}

RunFile *runfile_open_append(const char *path, RunError *err)
{
    char note[sizeof((RunFile *)0)->lock_note];
    int sys_errno;
    RunLock *lock = runlock_take(path, note, sizeof note, &sys_errno, err);
    if (!lock)
        return NULL;
    RunFile *rf = runload_open(path, true, err);
    if (!rf) {
        hdf5_lock_refusal(path, true, err);
        runlock_release(&lock);
        return NULL;
    }
    rf->lock = lock;
    snprintf(rf->lock_note, sizeof rf->lock_note, "%s", note);
    return rf;
}

RunFile *runfile_open_read(const char *path, RunError *err)
{
    char who[RUNLOCK_TEXT_MAX];
    if (runlock_holder(path, who, sizeof who)) {
        ERROR_SET(err, "%s: being written by %s: read it once that program has stopped", path, who);
        return NULL;
    }
    RunFile *rf = runload_open(path, false, err);
    if (!rf)
        hdf5_lock_refusal(path, false, err);
    return rf;
}

const char *runfile_lock_note(const RunFile *rf)
{
    return rf->lock_note;
}

/* ------------------------------------------------------------------------------------
 * Writing
 * ------------------------------------------------------------------------------------ */

static bool writable(RunFile *rf, RunError *err)
{
    if (!rf->writable)
        return ERROR_SET(err, "%s: opened read-only", rf->path);
    if (rf->broken)
        return ERROR_SET(err, "%s: an earlier write failed; reopen the file to go on", rf->path);
    return true;
}

static bool copy_text(char *dst, size_t size, const char *src)
{
    if (!src)
        src = "";
    size_t n = strlen(src);
    if (n >= size)
        return false;
    memcpy(dst, src, n + 1);
    return true;
}

bool runfile_add_player(RunFile *rf, const char *name, const char *kind, const char *weights,
                        uint64_t weights_hash, uint16_t *id, RunError *err)
{
    if (!writable(rf, err))
        return false;
    if (rf->nplayers >= RUNFILE_PLAYERS_MAX)
        return ERROR_SET(err, "%s: more than %d players", rf->path, RUNFILE_PLAYERS_MAX);
    if (!array_reserve((void **)&rf->players, &rf->players_cap, rf->nplayers + 1,
                       sizeof *rf->players, RUNHANDLE_ARRAY_FIRST))
        return ERROR_SET(err, "%s: out of memory", rf->path);
    RunPlayer *p = &rf->players[rf->nplayers];
    memset(p, 0, sizeof *p);
    if (!copy_text(p->name, sizeof p->name, name) || !copy_text(p->kind, sizeof p->kind, kind) ||
        !copy_text(p->weights, sizeof p->weights, weights))
        return ERROR_SET(err, "%s: player %s: name, kind or weights path too long", rf->path,
                         name ? name : "");
    p->player_id = (uint16_t)rf->nplayers;
    p->weights_hash = weights_hash;
    if (id)
        *id = p->player_id;
    rf->nplayers++;
    return true;
}

static int8_t outcome_code(Outcome o)
{
    return o == OUTCOME_RED_WIN ? 1 : o == OUTCOME_BLACK_WIN ? -1 : 0;
}

/*
 * The position rows of rec at rf->pbuf[rf->npbuf...], not yet counted as buffered. The
 * boards come from a replay that validated the record (boards given), or from replaying
 * its moves here, which refuses an illegal one. On failure, why says what is wrong.
 */
static bool pack_positions(RunFile *rf, const GameRecord *rec, const PackedPos *boards,
                           uint64_t game_id, char *why, size_t size)
{
    PosError perr;
    if (!boards && !pos_set_fen(&rf->pos, rec->start_fen, &perr)) {
        snprintf(why, size, "bad start FEN: %s", perr.msg);
        return false;
    }
    int8_t red_result = outcome_code(rec->outcome);
    /* no buffer yet when no game with plies came before (a game of 0 plies) */
    RunPosition *row = rf->pbuf ? rf->pbuf + rf->npbuf : NULL;
    for (int i = 0; i < rec->nplies; i++, row++) {
        const RecordPly *p = &rec->plies[i];
        if (boards) {
            row->board = boards[i];
        } else {
            if (!move_is_legal(&rf->pos, p->move)) {
                char text[5];
                move_to_text(p->move, text);
                snprintf(why, size, "ply %d: %s is not legal", i, text);
                return false;
            }
            record_pack(&rf->pos, &row->board);
            pos_do_move(&rf->pos, p->move);
            if (pos_history_full(&rf->pos))
                pos_trim_history(&rf->pos);
        }
        row->game_id = game_id;
        row->ply = (uint16_t)i;
        row->move = p->move;
        row->best = p->best;
        row->score = p->score;
        row->depth = p->depth;
        row->flags = p->flags;
        row->result = (int8_t)(packed_side(&row->board) == RED ? red_result : -red_result);
        row->nodes = p->nodes;
    }
    return true;
}

static bool append_impl(RunFile *rf, const GameRecord *rec, const PackedPos *boards,
                        uint64_t pair_id, unsigned gip, uint16_t red, uint16_t black, uint32_t rank,
                        uint64_t *game_id, RunError *err)
{
    uint64_t id = rf->ngames, stored_as;
    /* the ranges a decoded GAME has (proto_decode) and record_validate assumes */
    assert(gip <= 1 && rec->nplies >= 0 && rec->nplies <= RECORD_MAX_PLIES);
    assert(rec->outcome > OUTCOME_NONE && rec->outcome <= OUTCOME_BLACK_WIN);
    assert((unsigned)rec->reason < REASON_NB);
    assert(runcols_terminated(rec->start_fen, sizeof rec->start_fen));
    if (!writable(rf, err))
        return false;
    if (pair_id == UINT64_MAX)
        return ERROR_SET(err, "%s: pair %llu has no next one", rf->path,
                         (unsigned long long)pair_id);
    if (pair_id > id && pair_id - id > RUNFILE_PAIR_ID_SLACK)
        return ERROR_SET(err,
                         "%s: pair %llu is more than 2^24 past game %llu (pair ids run densely)",
                         rf->path, (unsigned long long)pair_id, (unsigned long long)id);
    /* the coordinator looked the game up before it validated it (boards given) */
    assert(!boards || !runhandle_find(rf, pair_id, gip, NULL));
    if (!boards && runhandle_find(rf, pair_id, gip, &stored_as))
        return ERROR_SET(err, "%s: pair %llu game %u is already stored as game %llu", rf->path,
                         (unsigned long long)pair_id, gip, (unsigned long long)stored_as);
    if (red >= rf->nplayers || black >= rf->nplayers)
        return ERROR_SET(err, "%s: pair %llu game %u: unknown player %u", rf->path,
                         (unsigned long long)pair_id, gip, red >= rf->nplayers ? red : black);
    if (!array_reserve((void **)&rf->pbuf, &rf->pbuf_cap, rf->npbuf + (uint64_t)rec->nplies,
                       sizeof *rf->pbuf, RUNHANDLE_ARRAY_FIRST) ||
        !array_reserve((void **)&rf->gbuf, &rf->gbuf_cap, rf->ngbuf + 1, sizeof *rf->gbuf,
                       RUNHANDLE_ARRAY_FIRST))
        return ERROR_SET(err, "%s: out of memory", rf->path);
    char why[200];
    if (!pack_positions(rf, rec, boards, id, why, sizeof why))
        return ERROR_SET(err, "%s: pair %llu game %u: %s", rf->path, (unsigned long long)pair_id,
                         gip, why);
    RunGameRow *row = &rf->gbuf[rf->ngbuf];
    memset(row, 0, sizeof *row);
    row->game_id = id;
    row->pair_id = pair_id;
    row->game_in_pair = (uint8_t)gip;
    row->red_player = red;
    row->black_player = black;
    memcpy(row->start_fen, rec->start_fen, sizeof row->start_fen);
    row->outcome = outcome_code(rec->outcome);
    row->reason = (uint8_t)rec->reason;
    row->plies = (uint16_t)rec->nplies;
    row->first_position = rf->npositions;
    row->worker_rank = rank;
    RunGame g = runcols_game(row);
    if (!runhandle_add_game(rf, &g))
        return ERROR_SET(err, "%s: out of memory", rf->path);
    rf->ngbuf++;
    rf->npbuf += (uint64_t)rec->nplies;
    rf->npositions += (uint64_t)rec->nplies;
    if (game_id)
        *game_id = id;
    return true;
}

/* Records in the file, inside a write section, that its stored games are written in
 * full: the rows a later opening never drops as the rest of an interrupted write. */
static bool record_durable(RunFile *rf, RunError *err)
{
    uint64_t n = rf->ds[RUNCOLS_GAMES].stored;
    if (n == rf->durable_games)
        return true;
    if (!runcols_attr_put_u64(rf->ds[RUNCOLS_GAMES].dset, RUNCOLS_DURABLE_GAMES, n, rf->path, err))
        return false;
    rf->durable_games = n;
    return true;
}

static bool flush_impl(RunFile *rf, RunError *err)
{
    if (!rf->writable)
        return true;
    if (!writable(rf, err))
        return false;
    if (!rf->ngbuf && !rf->nsbuf && rf->ds[RUNCOLS_PLAYERS].stored == rf->nplayers)
        return true;
    /* Positions before the games that point at them, SPSA rows after the games they
     * follow from, and one flush for all. */
    uint64_t p0 = rf->ds[RUNCOLS_PLAYERS].stored;
    uint64_t bytes = (rf->nplayers - p0) * sizeof(RunPlayer) + rf->npbuf * sizeof(RunPosition) +
                     rf->ngbuf * sizeof(RunGameRow) + runfile_spsa_pending_bytes(rf);
    bool untouched;
    bool ok = runfence_begin(rf->file, bytes, &untouched, rf->path, err) &&
              record_durable(rf, err) &&
              runcols_append(&rf->ds[RUNCOLS_PLAYERS], rf->players + p0, rf->nplayers - p0,
                             rf->path, err) &&
              runcols_append(&rf->ds[RUNCOLS_POSITIONS], rf->pbuf, rf->npbuf, rf->path, err) &&
              runcols_append(&rf->ds[RUNCOLS_GAMES], rf->gbuf, rf->ngbuf, rf->path, err) &&
              runfile_spsa_write(rf, err) && runfence_end(rf->file, rf->path, err);
    if (!ok) {
        /* with nothing written the rows stay buffered for the next try */
        rf->broken = !untouched;
        return false;
    }
    rf->ngbuf = rf->npbuf = 0;
    return true;
}

/* Appends under quiet HDF5 errors, and writes a full buffer out. */
static bool append_quiet(RunFile *rf, const GameRecord *rec, const PackedPos *boards,
                         uint64_t pair_id, unsigned gip, uint16_t red, uint16_t black,
                         uint32_t rank, uint64_t *game_id, RunError *err)
{
    RunQuiet q = runcols_quiet_begin();
    bool ok = append_impl(rf, rec, boards, pair_id, gip, red, black, rank, game_id, err);
    RunError ignored;
    if (ok && rf->npbuf >= RUNFILE_BATCH_POSITIONS)
        flush_impl(rf, &ignored); /* a failure shows at the caller's next runfile_flush */
    runcols_quiet_end(q);
    return ok;
}

bool runfile_append_game(RunFile *rf, const GameRecord *rec, uint64_t pair_id,
                         unsigned game_in_pair, uint16_t red, uint16_t black, uint32_t rank,
                         uint64_t *game_id, RunError *err)
{
    return append_quiet(rf, rec, NULL, pair_id, game_in_pair, red, black, rank, game_id, err);
}

bool runfile_append_validated(RunFile *rf, const GameRecord *rec, const PackedPos *boards,
                              uint64_t pair_id, unsigned game_in_pair, uint16_t red, uint16_t black,
                              uint32_t rank, uint64_t *game_id, RunError *err)
{
    return append_quiet(rf, rec, boards, pair_id, game_in_pair, red, black, rank, game_id, err);
}

uint64_t runfile_drop_unflushed(RunFile *rf)
{
    uint64_t dropped = rf->ngbuf;
    runhandle_keep_games(rf, rf->ngames - rf->ngbuf);
    rf->npositions -= rf->npbuf;
    rf->nspsa -= rf->nsbuf;
    rf->ngbuf = rf->npbuf = rf->nsbuf = 0;
    return dropped;
}

bool runfile_flush(RunFile *rf, RunError *err)
{
    RunQuiet q = runcols_quiet_begin();
    bool ok = flush_impl(rf, err);
    runcols_quiet_end(q);
    return ok;
}

bool runfile_close(RunFile **rfp, RunError *err)
{
    RunFile *rf = rfp ? *rfp : NULL;
    if (!rf)
        return true;
    RunQuiet q = runcols_quiet_begin();
    bool ok = rf->broken ? ERROR_SET(err,
                                     "%s: closed after a failed write: the games "
                                     "since the last flush are lost",
                                     rf->path)
                         : flush_impl(rf, err);
    /* The last batch too is recorded as written in full, in a write section of its own.
     * Its games are on disk whatever happens here: on a full disk the count just stays at
     * the batch before, as after a kill. */
    RunError ignored;
    if (ok && rf->writable && rf->durable_games != rf->ds[RUNCOLS_GAMES].stored &&
        runfence_begin(rf->file, 0, NULL, rf->path, &ignored) && record_durable(rf, &ignored))
        runfence_end(rf->file, rf->path, &ignored);
    if (!runhandle_close_hdf5(rf, ok ? err : NULL))
        ok = false;
    runhandle_free(rf);
    *rfp = NULL;
    runcols_quiet_end(q);
    return ok;
}

bool runfile_broken(const RunFile *rf)
{
    return rf->broken;
}
