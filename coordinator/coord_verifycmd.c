#include "coord_verifycmd.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_config.h"
#include "coord_export.h"
#include "numparse.h"
#include "contracts/outpath.h"
#include "coord_subcmd.h"
#include "coord_tournament.h"
#include "contracts/runfile.h"

enum { VERIFY_MAX_REPORTS = 20 };

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    uint64_t games, positions, invalid, duplicates, full_pairs, half_pairs;
    uint64_t repeated;   /* games playing the moves of another from its start position */
    uint64_t outcome[3]; /* red wins, draws, black wins */
} VerifyCounts;

static void problem(VerifyCounts *c, uint64_t id, const char *what, const char *detail)
{
    if (c->invalid++ < VERIFY_MAX_REPORTS)
        fprintf(stderr, "verify: game %" PRIu64 ": %s%s\n", id, what, detail);
}

/* The run's settings as a resumed coordinator reads them, and the players they need;
 * false (said) when the coordinator would not resume the file. */
static bool verify_config(RunFile *rf, CoordConfig *cfg)
{
    CoordError err;
    if (!coord_config_stored(cfg, runfile_config(rf), &err)) {
        fprintf(stderr, "verify: %s: %s\n", runfile_path(rf), err.msg);
        return false;
    }
    if (runfile_player_count(rf) != cfg->engines) {
        fprintf(stderr, "verify: %s: the run file has %u players, its run_config %d engines\n",
                runfile_path(rf), runfile_player_count(rf), cfg->engines);
        return false;
    }
    return true;
}

/* The rules of a stored game's row and record that the replay does not see: its players
 * are its pair's engines (player p is engine p, Red first in game 0), it stays within the
 * run's move limit, and its opening moves come first. cfg is NULL when the run's
 * settings are unreadable. */
static void verify_rows(const CoordConfig *cfg, const RunGame *g, const GameRecord *rec,
                        VerifyCounts *c)
{
    char detail[160];
    if (g->red == g->black) {
        snprintf(detail, sizeof detail, "%u", g->red);
        problem(c, g->game_id, "red_player and black_player are both player ", detail);
    } else if (cfg) {
        TourKind kind = TOUR_ROUNDROBIN;
        if (cfg->tournament[0])
            coord_tournament_kind_parse(cfg->tournament, &kind);
        int first, second;
        coord_tournament_pair_engines(kind, cfg->engines, g->pair_id, &first, &second);
        int red = g->game_in_pair ? second : first, black = g->game_in_pair ? first : second;
        snprintf(detail, sizeof detail, "red %u, black %u; pair %" PRIu64 " game %u is %d-%d",
                 g->red, g->black, g->pair_id, g->game_in_pair, red, black);
        if (g->red != red || g->black != black)
            problem(c, g->game_id, "players are not the pair's engines: ", detail);
    }
    if (cfg && rec->nplies > cfg->max_plies) {
        snprintf(detail, sizeof detail, "%d plies, the run's --max-plies is %d", rec->nplies,
                 cfg->max_plies);
        problem(c, g->game_id, "too long: ", detail);
    }
    for (int i = 1; i < rec->nplies; i++)
        if ((rec->plies[i].flags & RECORD_FLAG_OPENING) &&
            !(rec->plies[i - 1].flags & RECORD_FLAG_OPENING)) {
            snprintf(detail, sizeof detail, "ply %d", i + 1);
            problem(c, g->game_id,
                    "the opening flag is set on a move after a searched one: ", detail);
            break;
        }
}

/* Games whose move-list key (runfile_record_key) an earlier one in sorted order has. */
static uint64_t count_repeated(uint64_t *moves, uint64_t n)
{
    uint64_t repeated = 0;
    qsort(moves, n, sizeof *moves, cmp_u64);
    for (uint64_t i = 1; i < n; i++)
        repeated += moves[i] == moves[i - 1];
    return repeated;
}

/* Replays every game and checks the bookkeeping of the /games table. */
static void verify_games(RunFile *rf, const CoordConfig *cfg, GameRecord *rec, uint64_t *keys,
                         uint64_t *moves, VerifyCounts *c)
{
    uint64_t nmoves = 0;
    uint64_t n = runfile_game_count(rf);
    uint64_t next_position = 0;
    for (uint64_t id = 0; id < n; id++) {
        const RunGame *g = runfile_game(rf, id);
        RunError err;
        PosError perr;
        if (!g) {
            problem(c, id, "missing", "");
            continue;
        }
        keys[id] = g->pair_id << 1 | g->game_in_pair;
        if (g->first_position != next_position)
            problem(c, id, "its positions do not follow the previous game's", "");
        next_position = g->first_position + g->plies;
        if (!runfile_read_game(rf, id, rec, &err)) {
            problem(c, id, "", err.msg);
            continue;
        }
        if (rec->nplies != g->plies)
            problem(c, id, "plies differ from its positions", "");
        if (!record_validate(rec, &perr))
            problem(c, id, "replay: ", perr.msg);
        verify_rows(cfg, g, rec, c);
        moves[nmoves++] = runfile_record_key(rec);
        c->games++;
        c->positions += (uint64_t)rec->nplies;
        if (g->outcome >= -1 && g->outcome <= 1)
            c->outcome[1 - g->outcome]++;
    }
    c->repeated = count_repeated(moves, nmoves);
    qsort(keys, n, sizeof *keys, cmp_u64);
    for (uint64_t i = 0; i < n; i++) {
        if (i + 1 < n && keys[i] == keys[i + 1]) {
            c->duplicates++;
            continue;
        }
        bool pair_of_two = i + 1 < n && (keys[i] >> 1) == (keys[i + 1] >> 1);
        if (pair_of_two) {
            c->full_pairs++;
            i++;
        } else {
            c->half_pairs++;
        }
    }
    if (next_position != runfile_position_count(rf) && c->invalid++ < VERIFY_MAX_REPORTS)
        fprintf(stderr, "verify: /positions holds rows no game owns\n");
}

static const CliOpt OPTS[] = {COORD_SUBCMD_HELP};
static const CoordSubcmd VERIFY = COORD_SUBCMD_ONE("verify", "verify RUN.h5", "RUN.h5", OPTS, NULL);

int coord_verifycmd_run(int argc, char **argv)
{
    int status;
    const char *path = coord_subcmd_word(&VERIFY, argc, argv, &status);
    if (!path)
        return status;
    RunFile *rf = coord_subcmd_open(&VERIFY, path);
    if (!rf)
        return 1;
    VerifyCounts c;
    memset(&c, 0, sizeof c);
    RunError err;
    uint64_t n = runfile_game_count(rf);
    GameRecord *rec = malloc(sizeof *rec);
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    uint64_t *moves = malloc((n ? n : 1) * sizeof *moves);
    CoordConfig *cfg = malloc(sizeof *cfg);
    if (!rec || !keys || !moves || !cfg) {
        fprintf(stderr, "chuhe-coordinator: out of memory\n");
        free(rec);
        free(keys);
        free(moves);
        free(cfg);
        runfile_close(&rf, &err);
        return 1;
    }
    if (runfile_recovery_note(rf)[0])
        fprintf(stderr, "verify: %s\n", runfile_recovery_note(rf));
    bool config_ok = verify_config(rf, cfg);
    bool table_ok = runfile_verify(rf, &err);
    if (!table_ok)
        fprintf(stderr, "verify: %s\n", err.msg);
    verify_games(rf, config_ok ? cfg : NULL, rec, keys, moves, &c);
    free(rec);
    free(keys);
    free(moves);
    free(cfg);
    bool ok = config_ok && table_ok && c.invalid == 0 && c.duplicates == 0;
    printf("verify %s: %s\n", path, ok ? "OK" : "FAILED");
    printf(
        "games %" PRIu64 "\npositions %" PRIu64 "\nplayers %u\nfull_pairs %" PRIu64
        "\nhalf_pairs %" PRIu64 "\nduplicates %" PRIu64 "\nrepeated %" PRIu64 "\ninvalid %" PRIu64
        "\nred_wins %" PRIu64 "\ndraws %" PRIu64 "\nblack_wins %" PRIu64 "\n",
        c.games, c.positions, runfile_player_count(rf), c.full_pairs, c.half_pairs, c.duplicates,
        c.repeated, c.invalid + !table_ok + !config_ok, c.outcome[0], c.outcome[1], c.outcome[2]);
    if (!runfile_close(&rf, &err)) {
        fprintf(stderr, "chuhe-coordinator: %s\n", err.msg);
        ok = false;
    }
    return ok ? 0 : 1;
}
