#include "coord_tools.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coord_config.h"
#include "coord_export.h"
#include "numparse.h"
#include "contracts/outpath.h"
#include "coord_tournament.h"
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

/* ---- export ---- */

typedef struct {
    bool pgn;
    const char *run;
    ExportFilter filter;
    bool comments;
    const char *out; /* -o FILE; NULL: the standard output */
    bool force;
} ExportArgs;

/* The options after "export plain|pgn RUN.h5"; 0 to go on, else the exit status. */
static int export_args(int argc, char **argv, ExportArgs *a)
{
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        char msg[200];
        long long v;
        if (!strcmp(o, "-o") || !strcmp(o, "--output")) {
            if (!value) {
                fprintf(stderr, "chuhe-coordinator: export: %s needs a file name\n", o);
                return 2;
            }
            a->out = value;
            i++;
        } else if (!strcmp(o, "--force")) {
            a->force = true;
        } else if (a->pgn && !strcmp(o, "--no-comments")) {
            a->comments = false;
        } else if (!a->pgn && !strcmp(o, "--skip-opening")) {
            a->filter.skip_opening = true;
        } else if (!a->pgn && !strcmp(o, "--skip-in-check")) {
            a->filter.skip_in_check = true;
        } else if (!a->pgn && !strcmp(o, "--skip-captures")) {
            a->filter.skip_captures = true;
        } else if (!a->pgn && !strcmp(o, "--max-score")) {
            if (!numparse_int(o, value, 0, 32767, &v, msg, sizeof msg)) {
                fprintf(stderr, "chuhe-coordinator: export plain: %s\n", msg);
                return 2;
            }
            /* 0 is no limit, as in chuhe-tune --max-score */
            a->filter.limit_score = v > 0;
            a->filter.max_score = (int)v;
            i++;
        } else {
            fprintf(stderr, "chuhe-coordinator: export %s: unknown option '%s'\n",
                    a->pgn ? "pgn" : "plain", o);
            return 2;
        }
    }
    return 0;
}

/* The standard output is written unchecked by the shell's redirection, which may point
 * it at the run file itself (">> run.h5") or at another run file: refused. */
static bool stdout_usable(const char *run)
{
    struct stat out, in;
    if (fstat(STDOUT_FILENO, &out) != 0 || !S_ISREG(out.st_mode))
        return true;
    const char *why = NULL;
    if (stat(run, &in) == 0 && out.st_dev == in.st_dev && out.st_ino == in.st_ino)
        why = "is the run file being exported";
    else if (outpath_is_hdf5("/dev/stdout"))
        why = "is an HDF5 run file; chuhe never writes over one";
    if (why)
        fprintf(stderr,
                "chuhe-coordinator: export: the standard output %s (give another file: "
                "-o FILE or > FILE)\n",
                why);
    return why == NULL;
}

int coord_tool_export(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[0], "plain") && strcmp(argv[0], "pgn"))) {
        fprintf(stderr, "usage: chuhe-coordinator export plain|pgn RUN.h5 [options] "
                        "[-o FILE [--force]]\n");
        return 2;
    }
    ExportArgs a = {.pgn = !strcmp(argv[0], "pgn"), .run = argv[1], .comments = true};
    int status = export_args(argc - 2, argv + 2, &a);
    if (status)
        return status;
    char msg[COORD_PATH_MAX * 2 + 200];
    const char *inputs[] = {a.run};
    if (a.out &&
        !outpath_check("-o", a.out, OUTPATH_REPLACE, a.force, inputs, 1, msg, sizeof msg)) {
        fprintf(stderr, "chuhe-coordinator: export: %s\n", msg);
        return 2;
    }
    if (!a.out && !stdout_usable(a.run))
        return 2;
    RunFile *rf = open_or_say(a.run);
    if (!rf)
        return 1;
    FILE *out = a.out ? fopen(a.out, "w") : stdout;
    ExportStats st;
    RunError err;
    bool ok = out != NULL;
    if (!out)
        snprintf(err.msg, sizeof err.msg, "-o %s: %s", a.out, strerror(errno));
    else if (a.pgn)
        ok = coord_export_pgn(rf, 0, UINT64_MAX, a.comments, out, &st, &err);
    else
        ok = coord_export_plain(rf, 0, UINT64_MAX, &a.filter, out, &st, &err);
    if (out && out != stdout && fclose(out) != 0 && ok) {
        ok = false;
        snprintf(err.msg, sizeof err.msg, "-o %s: %s", a.out, strerror(errno));
    }
    if (!ok)
        fprintf(stderr, "chuhe-coordinator: %s\n", err.msg);
    else if (a.pgn)
        fprintf(stderr, "exported %" PRIu64 " games, %" PRIu64 " moves\n", st.games, st.positions);
    else
        fprintf(stderr, "exported %" PRIu64 " games, %" PRIu64 " positions (%" PRIu64 " skipped)\n",
                st.games, st.positions, st.skipped);
    status = ok ? 0 : 1;
    if (!runfile_close(&rf, &err)) {
        fprintf(stderr, "chuhe-coordinator: %s\n", err.msg);
        status = status ? status : 1;
    }
    return status;
}

/* ---- verify ---- */

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
    printf("verify %s: %s\n", argv[0], ok ? "OK" : "FAILED");
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
