#include "runcheck.h"

#include <stdlib.h>
#include <string.h>

bool runcheck_message(const RunError *err, const char *path)
{
    return memchr(err->msg, '\0', sizeof err->msg) && !strncmp(err->msg, path, strlen(path)) &&
           !strchr(err->msg, '\n');
}

/* The root attributes and the players: within their limits, ids the row numbers. */
static const char *read_players(RunFile *rf)
{
    uint16_t players = runfile_player_count(rf);
    if (strlen(runfile_config(rf)) > RUNFILE_CONFIG_MAX)
        return "run_config longer than its limit";
    (void)strlen(runfile_engine_version(rf));
    (void)strlen(runfile_created(rf));
    (void)strlen(runfile_recovery_note(rf));
    for (uint16_t p = 0; p < players; p++) {
        const RunPlayer *pl = runfile_player(rf, p);
        if (!pl || pl->player_id != p)
            return "player ids are not row numbers";
        (void)(strlen(pl->name) + strlen(pl->kind) + strlen(pl->weights));
    }
    return runfile_player(rf, players) ? "a player past the count" : NULL;
}

/* Every game: indexed as stored, read back with its plies (or refused in one line),
 * replayed. */
static const char *read_games(RunFile *rf, const char *path, GameRecord *rec)
{
    uint64_t games = runfile_game_count(rf), sum = 0;
    uint16_t players = runfile_player_count(rf);
    RunError err = {{0}};
    for (uint64_t id = 0; id < games; id++) {
        const RunGame *g = runfile_game(rf, id);
        uint64_t found = UINT64_MAX;
        if (!g || g->game_id != id || g->red >= players || g->black >= players ||
            !runfile_find_game(rf, g->pair_id, g->game_in_pair, &found) || found != id)
            return "a loaded game is not indexed as stored";
        sum += g->plies;
        if (!runfile_read_game(rf, id, rec, &err)) {
            if (!runcheck_message(&err, path))
                return "read_game refused: the error message is not one line naming the file";
            continue;
        }
        if (rec->nplies != g->plies || rec->game_id != id)
            return "a game reads back with other plies";
        PosError perr;
        (void)record_validate(rec, &perr);
    }
    if (runfile_game(rf, games))
        return "a game past the count";
    return sum != runfile_position_count(rf) ? "the games' plies do not add up to the positions"
                                             : NULL;
}

const char *runcheck_read_all(RunFile *rf, const char *path, GameRecord *scratch, bool *verified)
{
    *verified = false;
    const char *bad = read_players(rf);
    if (!bad)
        bad = read_games(rf, path, scratch);
    if (bad)
        return bad;
    uint64_t positions = runfile_position_count(rf);
    RunPosition *rows = malloc((size_t)(positions + 1) * sizeof *rows);
    if (!rows)
        return "out of memory";
    RunError err = {{0}};
    if (!runfile_read_positions(rf, 0, positions, rows, &err) && !runcheck_message(&err, path))
        bad = "read_positions refused: the error message is not one line naming the file";
    else if (runfile_read_positions(rf, 0, positions + 1, rows, &err))
        bad = "read_positions read past the stored positions";
    free(rows);
    if (bad)
        return bad;
    *verified = runfile_verify(rf, &err);
    if (!*verified && !runcheck_message(&err, path))
        return "verify refused: the error message is not one line naming the file";
    return NULL;
}
