/*
 * Writes a small run file as another program could: the project's own writer, but with
 * player names, run settings or SPSA parameters that chuhe's coordinator would never
 * store, so that tests can check what the readers (verify, export, report, spsa-report)
 * do with hostile text.
 *
 *   runfile_forge OUT.h5 [--name NAME]... [--config TEXT] [--spsa NAME]
 *     --name NAME     the next player of /players (default: two, "red" and "black"; at
 *                     most 8)
 *     --config TEXT   run_config as given, byte for byte (default: the settings of
 *                     `--games 4 --nodes 1000 --seed 1`, as the coordinator stores them)
 *     --spsa NAME     make it an SPSA run of one parameter NAME (the writer's own checks
 *                     apply: a name it refuses is reported, exit status 1)
 *
 * The file holds game pairs of random legal moves from the start position, the players
 * of each pair Red in turn: two pairs of players 0 and 1, or with N > 2 players, N pairs
 * of players k and k + 1 (mod N), so that each has a place in a tournament's ranking. Exit status 0
 * when the file was written, 1 on a refusal or failure, 2 on a usage error.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"
#include "tests/tools/toolargs.h"
#include "coordinator/coord_config.h"
#include "contracts/runfile.h"
#include "error.h"
#include "movegen.h"
#include "rng.h"
#include "rules.h"

enum { FORGE_MAX_PLAYERS = 8, FORGE_MAX_PLIES = 60 };

/* A random legal game from the start position, ended by the rules or drawn by the move
 * limit; false when it does not validate. */
static bool random_game(GameRecord *r, uint64_t seed)
{
    static Position pos;
    PosError err;
    memset(r, 0, sizeof *r);
    snprintf(r->start_fen, sizeof r->start_fen, "%s", START_FEN);
    if (!pos_set_fen(&pos, START_FEN, &err))
        return false;
    r->outcome = OUTCOME_DRAW;
    r->reason = REASON_MOVE_LIMIT;
    for (int i = 0; i < FORGE_MAX_PLIES; i++) {
        MoveList list;
        gen_legal(&pos, &list);
        RecordPly *p = &r->plies[r->nplies++];
        p->move = list.moves[rng_next(&seed) % (unsigned)list.count];
        p->best = p->move;
        p->depth = 1;
        p->flags = (uint8_t)record_move_flags(&pos, p->move);
        pos_do_move(&pos, p->move);
        Verdict v = rules_judge_game(&pos);
        if (v.result != RESULT_NONE) {
            r->outcome = record_outcome_from(pos.side, v.result);
            r->reason = v.reason;
            break;
        }
    }
    return record_validate(r, &err);
}

static bool default_config(char *buf, size_t size)
{
    static CoordConfig c;
    CoordGiven given;
    CoordError err;
    char *argv[] = {"--games", "4", "--nodes", "1000", "--seed", "1"};
    coord_config_defaults(&c);
    if (!coord_config_parse(&c, &given, 6, argv, &err) ||
        !coord_config_finish_new(&c, &given, &err) || !coord_config_to_json(&c, buf, size)) {
        fprintf(stderr, "runfile_forge: settings: %s\n", err.msg);
        return false;
    }
    return true;
}

static bool forge(const char *path, const char **names, int n, const char *config, const char *spsa)
{
    static GameRecord rec;
    RunError err;
    RunFile *rf = runfile_create(path, config, "chuhe forged", &err);
    bool ok = rf != NULL;
    for (int p = 0; ok && p < n; p++)
        ok = runfile_add_player(rf, names[p], "builtin", "", 0, NULL, &err);
    if (ok && spsa) {
        RunSpsaParam param = {
            .type = "int", .start = 5, .min = 0, .max = 10, .c_end = 1, .r_end = 0.002};
        snprintf(param.name, sizeof param.name, "%s", spsa);
        ok = runfile_spsa_begin(rf, &param, 1, &err);
    }
    int pairs = n == 2 ? 2 : n;
    for (int g = 0; ok && g < 2 * pairs; g++) {
        unsigned in_pair = (unsigned)g & 1;
        uint16_t first = (uint16_t)(n == 2 ? 0 : g / 2), second = (uint16_t)((first + 1) % n);
        ok = random_game(&rec, 1000 + (uint64_t)g);
        if (!ok)
            snprintf(err.msg, sizeof err.msg, "game %d does not validate", g);
        ok = ok && runfile_append_game(rf, &rec, (uint64_t)g / 2, in_pair, in_pair ? second : first,
                                       in_pair ? first : second, 0, NULL, &err);
    }
    if (rf && !runfile_close(&rf, &err))
        ok = false;
    if (!ok)
        fprintf(stderr, "runfile_forge: %s\n", err.msg);
    return ok;
}

typedef struct {
    const char *names[FORGE_MAX_PLAYERS], *config, *spsa;
    int n;
} ForgeArgs;

/* --name, given once per player. */
static bool add_name(void *ctx, const CliOpt *o, const char *label, int n, char **words, char *msg,
                     size_t size)
{
    ForgeArgs *a = ctx;
    (void)o, (void)n;
    if (a->n == FORGE_MAX_PLAYERS)
        return error_set(msg, size, "%s: at most %d players", label, FORGE_MAX_PLAYERS);
    a->names[a->n++] = words[0];
    return true;
}

#define AT(f) offsetof(ForgeArgs, f), sizeof(((ForgeArgs *)0)->f)
static const CliOpt OPTS[] = {
    {"--name", NULL, CLIOPT_CALL, 0, 0, 0, 0, 0, 0, "NAME", "a player (any bytes)", NULL},
    {"--config", NULL, CLIOPT_ARG, AT(config), 0, 0, 0, 0, "TEXT", "run_config", NULL},
    {"--spsa", NULL, CLIOPT_ARG, AT(spsa), 0, 0, 0, 0, "NAME", "an SPSA parameter", NULL},
};
#undef AT

int main(int argc, char **argv)
{
    ForgeArgs a = {.names = {"red", "black"}};
    CliOptSpec spec = {.prog = "runfile_forge",
                       .opts = OPTS,
                       .nopts = sizeof OPTS / sizeof OPTS[0],
                       .dest = &a,
                       .call = add_name,
                       .ctx = &a};
    char *out[1];
    toolargs_parse(&spec, argc, argv, out, 1, "give OUT.h5",
                   "runfile_forge OUT.h5 [--name NAME]... [--config TEXT] [--spsa NAME]");
    static char json[RUNFILE_CONFIG_MAX];
    if (!a.config) {
        if (!default_config(json, sizeof json))
            return 1;
        a.config = json;
    }
    return forge(out[0], a.names, a.n < 2 ? 2 : a.n, a.config, a.spsa) ? 0 : 1;
}
