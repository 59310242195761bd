#include "coord_tools.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "contracts/runfile.h"

enum { VERIFY_MAX_REPORTS = 20 };

static RunFile *open_or_say(const char *path)
{
    RunError err;
    RunFile *rf = runfile_open_read(path, &err);
    if (!rf)
        fprintf(stderr, "chuhe-coordinator: %s\n", err.msg);
    return rf;
}

static int export_plain_cmd(RunFile *rf, int argc, char **argv)
{
    ExportFilter f = {false, false, false, 0};
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--skip-opening"))
            f.skip_opening = true;
        else if (!strcmp(argv[i], "--skip-in-check"))
            f.skip_in_check = true;
        else if (!strcmp(argv[i], "--skip-captures"))
            f.skip_captures = true;
        else if (!strcmp(argv[i], "--max-score") && i + 1 < argc)
            f.max_score = atoi(argv[++i]);
        else {
            fprintf(stderr, "chuhe-coordinator: export plain: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    ExportStats st;
    RunError err;
    if (!export_plain(rf, 0, UINT64_MAX, &f, stdout, &st, &err)) {
        fprintf(stderr, "chuhe-coordinator: %s\n", err.msg);
        return 1;
    }
    fprintf(stderr, "exported %" PRIu64 " games, %" PRIu64 " positions (%" PRIu64 " skipped)\n",
            st.games, st.positions, st.skipped);
    return 0;
}

static int export_pgn_cmd(RunFile *rf, int argc, char **argv)
{
    bool comments = true;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--no-comments"))
            comments = false;
        else {
            fprintf(stderr, "chuhe-coordinator: export pgn: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    ExportStats st;
    RunError err;
    if (!export_pgn(rf, 0, UINT64_MAX, comments, stdout, &st, &err)) {
        fprintf(stderr, "chuhe-coordinator: %s\n", err.msg);
        return 1;
    }
    fprintf(stderr, "exported %" PRIu64 " games, %" PRIu64 " moves\n", st.games, st.positions);
    return 0;
}

int coord_tool_export(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[0], "plain") && strcmp(argv[0], "pgn"))) {
        fprintf(stderr, "usage: chuhe-coordinator export plain|pgn RUN.h5 [options]\n");
        return 2;
    }
    RunFile *rf = open_or_say(argv[1]);
    if (!rf)
        return 1;
    int status = !strcmp(argv[0], "plain") ? export_plain_cmd(rf, argc - 2, argv + 2)
                                           : export_pgn_cmd(rf, argc - 2, argv + 2);
    RunError err;
    if (!runfile_close(&rf, &err)) {
        fprintf(stderr, "chuhe-coordinator: %s\n", err.msg);
        status = status ? status : 1;
    }
    return status;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    uint64_t games, positions, invalid, duplicates, full_pairs, half_pairs;
    uint64_t repeated; /* games playing the moves of another from its start position */
    uint64_t outcome[3]; /* red wins, draws, black wins */
} VerifyCounts;

static void problem(VerifyCounts *c, uint64_t id, const char *what, const char *detail)
{
    if (c->invalid++ < VERIFY_MAX_REPORTS)
        fprintf(stderr, "verify: game %" PRIu64 ": %s%s\n", id, what, detail);
}

/* Replays every game and checks the bookkeeping of the /games table. */
/* Games whose move-list key (runfile_record_key) an earlier one in sorted order has. */
static uint64_t count_repeated(uint64_t *moves, uint64_t n)
{
    uint64_t repeated = 0;
    qsort(moves, n, sizeof *moves, cmp_u64);
    for (uint64_t i = 1; i < n; i++)
        repeated += moves[i] == moves[i - 1];
    return repeated;
}

static void verify_games(RunFile *rf, GameRecord *rec, uint64_t *keys, uint64_t *moves,
                         VerifyCounts *c)
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

int coord_tool_verify(int argc, char **argv)
{
    if (argc != 1) {
        fprintf(stderr, "usage: chuhe-coordinator verify RUN.h5\n");
        return 2;
    }
    RunFile *rf = open_or_say(argv[0]);
    if (!rf)
        return 1;
    VerifyCounts c;
    memset(&c, 0, sizeof c);
    RunError err;
    bool table_ok = runfile_verify(rf, &err);
    if (!table_ok)
        fprintf(stderr, "verify: %s\n", err.msg);
    uint64_t n = runfile_game_count(rf);
    GameRecord *rec = malloc(sizeof *rec);
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    uint64_t *moves = malloc((n ? n : 1) * sizeof *moves);
    if (!rec || !keys || !moves) {
        fprintf(stderr, "chuhe-coordinator: out of memory\n");
        free(rec);
        free(keys);
        free(moves);
        runfile_close(&rf, &err);
        return 1;
    }
    verify_games(rf, rec, keys, moves, &c);
    free(rec);
    free(keys);
    free(moves);
    bool ok = table_ok && c.invalid == 0 && c.duplicates == 0;
    printf("verify %s: %s\n", argv[0], ok ? "OK" : "FAILED");
    printf("games %" PRIu64 "\npositions %" PRIu64 "\nplayers %u\nfull_pairs %" PRIu64
           "\nhalf_pairs %" PRIu64 "\nduplicates %" PRIu64 "\nrepeated %" PRIu64
           "\ninvalid %" PRIu64 "\nred_wins %" PRIu64 "\ndraws %" PRIu64 "\nblack_wins %" PRIu64
           "\n",
           c.games, c.positions, runfile_player_count(rf), c.full_pairs, c.half_pairs, c.duplicates,
           c.repeated, c.invalid + !table_ok, c.outcome[0], c.outcome[1], c.outcome[2]);
    if (!runfile_close(&rf, &err)) {
        fprintf(stderr, "chuhe-coordinator: %s\n", err.msg);
        ok = false;
    }
    return ok ? 0 : 1;
}
