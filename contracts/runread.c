/*
 * The run file's public entry points for reading: the counts, the stored games and
 * players held in memory, rows read back from the file, and the full verification.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "runcols.h"
#include "runfile.h"
#include "runhandle.h"

uint64_t runfile_game_count(const RunFile *rf)
{
    return rf->ngames;
}
uint64_t runfile_flushed_game_count(const RunFile *rf)
{
    return rf->ds[RUNCOLS_GAMES].stored;
}

uint64_t runfile_position_count(const RunFile *rf)
{
    return rf->npositions;
}
uint16_t runfile_player_count(const RunFile *rf)
{
    return (uint16_t)rf->nplayers;
}
uint64_t runfile_next_pair_id(const RunFile *rf)
{
    return rf->next_pair;
}
uint64_t runfile_run_id(const RunFile *rf)
{
    return rf->run_id;
}
const char *runfile_path(const RunFile *rf)
{
    return rf->path;
}
const char *runfile_config(const RunFile *rf)
{
    return rf->config;
}
const char *runfile_engine_version(const RunFile *rf)
{
    return rf->engine_version;
}
const char *runfile_created(const RunFile *rf)
{
    return rf->created;
}
const char *runfile_recovery_note(const RunFile *rf)
{
    return rf->note;
}

const RunGame *runfile_game(const RunFile *rf, uint64_t game_id)
{
    return game_id < rf->ngames ? &rf->games[game_id] : NULL;
}

bool runfile_find_game(const RunFile *rf, uint64_t pair_id, unsigned game_in_pair,
                       uint64_t *game_id)
{
    return game_in_pair <= 1 && runhandle_find(rf, pair_id, game_in_pair, game_id);
}

const RunPlayer *runfile_player(const RunFile *rf, uint16_t player_id)
{
    return player_id < rf->nplayers ? &rf->players[player_id] : NULL;
}

uint64_t runfile_read_count(const RunFile *rf)
{
    uint64_t n = 0;
    for (int t = 0; t < RUNCOLS_NB; t++)
        n += rf->ds[t].reads;
    return n;
}

bool runfile_read_positions(RunFile *rf, uint64_t start, uint64_t count, RunPosition *out,
                            RunError *err)
{
    uint64_t n = rf->ds[RUNCOLS_POSITIONS].stored;
    if (start > n || count > n - start)
        return ERROR_SET(err, "%s: positions %llu..+%llu: only %llu are stored", rf->path,
                         (unsigned long long)start, (unsigned long long)count,
                         (unsigned long long)n);
    RunQuiet q = runcols_quiet_begin();
    bool ok = runcols_read(&rf->ds[RUNCOLS_POSITIONS], start, count, out, rf->path, err);
    runcols_quiet_end(q);
    return ok;
}

static Outcome outcome_from_code(int8_t c)
{
    return c > 0 ? OUTCOME_RED_WIN : c < 0 ? OUTCOME_BLACK_WIN : OUTCOME_DRAW;
}

static bool read_game_impl(RunFile *rf, uint64_t id, GameRecord *out, RunError *err)
{
    if (id >= rf->ds[RUNCOLS_GAMES].stored)
        return ERROR_SET(err, "%s: game %llu: only %llu games are stored", rf->path,
                         (unsigned long long)id, (unsigned long long)rf->ds[RUNCOLS_GAMES].stored);
    const RunGame *g = &rf->games[id];
    RunGameRow row;
    if (!runcols_read(&rf->ds[RUNCOLS_GAMES], id, 1, &row, rf->path, err) ||
        !runcols_read(&rf->ds[RUNCOLS_POSITIONS], g->first_position, g->plies, rf->scratch,
                      rf->path, err))
        return false;
    if (row.game_id != id || row.first_position != g->first_position || row.plies != g->plies)
        return ERROR_SET(err, "%s: /games row %llu changed on disk", rf->path,
                         (unsigned long long)id);
    memset(out, 0, offsetof(GameRecord, plies));
    out->game_id = id;
    memcpy(out->start_fen, row.start_fen, sizeof out->start_fen);
    out->start_fen[sizeof out->start_fen - 1] = '\0';
    out->nplies = g->plies;
    for (int i = 0; i < g->plies; i++) {
        const RunPosition *p = &rf->scratch[i];
        if (p->game_id != id || p->ply != i)
            return ERROR_SET(err, "%s: /positions row %llu is not ply %d of game %llu", rf->path,
                             (unsigned long long)(g->first_position + (uint64_t)i), i,
                             (unsigned long long)id);
        RecordPly *r = &out->plies[i];
        r->move = p->move;
        r->best = p->best;
        r->score = p->score;
        r->depth = p->depth;
        r->flags = p->flags;
        r->nodes = p->nodes;
    }
    out->outcome = outcome_from_code(g->outcome);
    out->reason = (Reason)g->reason;
    return true;
}

bool runfile_read_game(RunFile *rf, uint64_t game_id, GameRecord *out, RunError *err)
{
    RunQuiet q = runcols_quiet_begin();
    bool ok = read_game_impl(rf, game_id, out, err);
    runcols_quiet_end(q);
    return ok;
}

/* FNV-1a, 64 bits: the move-list key's hash. */
static uint64_t key_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

enum { KEY_START = 0xcbf29ce484222325ULL };

/* The FEN's length first, so that no FEN and moves read as another FEN and moves. */
static uint64_t key_start(const char *start_fen)
{
    uint32_t n = (uint32_t)strnlen(start_fen, RUNFILE_FEN_SIZE);
    return key_bytes(key_bytes(KEY_START, &n, sizeof n), start_fen, n);
}

static uint64_t key_move(uint64_t h, Move m)
{
    uint16_t v = (uint16_t)m;
    return key_bytes(h, &v, sizeof v);
}

/* The key of the start FEN and the first nplies moves. */
static uint64_t record_key(const GameRecord *rec, int nplies)
{
    uint64_t h = key_start(rec->start_fen);
    for (int i = 0; i < nplies; i++)
        h = key_move(h, rec->plies[i].move);
    return h;
}

uint64_t runfile_record_key(const GameRecord *rec)
{
    return record_key(rec, rec->nplies);
}

uint64_t runfile_record_opening_key(const GameRecord *rec)
{
    int n = 0;
    while (n < rec->nplies && (rec->plies[n].flags & RECORD_FLAG_OPENING))
        n++;
    return record_key(rec, n);
}

bool runfile_game_key(RunFile *rf, uint64_t game_id, uint64_t *key, RunError *err)
{
    if (game_id >= rf->ngames)
        return ERROR_SET(err, "%s: game %llu: only %llu games are stored", rf->path,
                         (unsigned long long)game_id, (unsigned long long)rf->ngames);
    const RunGame *g = &rf->games[game_id];
    uint64_t games_on_disk = rf->ds[RUNCOLS_GAMES].stored;
    uint64_t rows_on_disk = rf->ds[RUNCOLS_POSITIONS].stored;
    RunGameRow row;
    RunPosition *rows = malloc((g->plies ? g->plies : 1) * sizeof *rows);
    if (!rows)
        return ERROR_SET(err, "%s: out of memory", rf->path);
    RunQuiet q = runcols_quiet_begin();
    /* the rows on disk first, then those still buffered */
    uint64_t first = g->first_position, end = first + g->plies;
    uint64_t disk = end <= rows_on_disk    ? g->plies
                    : first < rows_on_disk ? rows_on_disk - first
                                           : 0;
    bool ok = true;
    if (game_id < games_on_disk)
        ok = runcols_read(&rf->ds[RUNCOLS_GAMES], game_id, 1, &row, rf->path, err);
    else
        row = rf->gbuf[game_id - games_on_disk];
    if (ok && disk)
        ok = runcols_read(&rf->ds[RUNCOLS_POSITIONS], first, disk, rows, rf->path, err);
    runcols_quiet_end(q);
    if (ok) {
        for (uint64_t i = disk; i < g->plies; i++)
            rows[i] = rf->pbuf[first + i - rows_on_disk];
        uint64_t h = key_start(row.start_fen);
        for (uint64_t i = 0; i < g->plies; i++)
            h = key_move(h, rows[i].move);
        *key = h;
    }
    free(rows);
    return ok;
}

/* Every stored position against its game: id, ply, side to move, result, board. */
static bool verify_impl(RunFile *rf, RunError *err)
{
    uint64_t n = rf->ds[RUNCOLS_POSITIONS].stored, g = 0;
    RunPosition *buf = malloc(RUNFILE_BATCH_POSITIONS * sizeof *buf);
    if (!buf)
        return ERROR_SET(err, "%s: out of memory", rf->path);
    bool ok = true;
    for (uint64_t start = 0; ok && start < n; start += RUNFILE_BATCH_POSITIONS) {
        uint64_t cnt = n - start < RUNFILE_BATCH_POSITIONS ? n - start : RUNFILE_BATCH_POSITIONS;
        if (!(ok = runcols_read(&rf->ds[RUNCOLS_POSITIONS], start, cnt, buf, rf->path, err)))
            break;
        for (uint64_t j = 0; ok && j < cnt; j++) {
            uint64_t row = start + j;
            while (g < rf->ds[RUNCOLS_GAMES].stored &&
                   row >= rf->games[g].first_position + rf->games[g].plies)
                g++;
            if (g >= rf->ds[RUNCOLS_GAMES].stored) {
                ok = ERROR_SET(err, "%s: /positions row %llu belongs to no game", rf->path,
                               (unsigned long long)row);
                break;
            }
            const RunGame *game = &rf->games[g];
            const RunPosition *p = &buf[j];
            uint64_t ply = row - game->first_position;
            int8_t want = (int8_t)(p->board.b[45] == RED ? game->outcome : -game->outcome);
            PosError perr;
            if (p->game_id != g || p->ply != ply)
                ok = ERROR_SET(err, "%s: /positions row %llu is not ply %llu of game %llu",
                               rf->path, (unsigned long long)row, (unsigned long long)ply,
                               (unsigned long long)g);
            else if (p->result != want)
                ok = ERROR_SET(err, "%s: /positions row %llu: result %d, the game says %d",
                               rf->path, (unsigned long long)row, p->result, want);
            else if (!record_unpack(&p->board, &rf->pos, &perr))
                ok = ERROR_SET(err, "%s: /positions row %llu: bad board: %s", rf->path,
                               (unsigned long long)row, perr.msg);
        }
    }
    free(buf);
    return ok;
}

bool runfile_verify(RunFile *rf, RunError *err)
{
    RunQuiet q = runcols_quiet_begin();
    bool ok = verify_impl(rf, err);
    runcols_quiet_end(q);
    return ok;
}
