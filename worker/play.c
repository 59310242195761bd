#include "play.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "numparse.h"
#include "error.h"
#include "rng.h"

/* An external engine's line worth a log: an informational line of the rank. */
static void note_line(void *ctx, const char *text)
{
    (void)ctx;
    diag_info("%s", text);
}

void play_engines_init(PlayEngines *pe)
{
    memset(pe, 0, sizeof *pe);
    extpool_init(&pe->pool);
    extpool_set_note(&pe->pool, note_line, NULL);
}

void play_engines_free(PlayEngines *pe)
{
    for (int p = 0; p < 2; p++) {
        engine_free(&pe->engine[p]);
        pe->ext[p] = NULL;
    }
    extpool_free(&pe->pool);
}

void play_engines_set_idle(PlayEngines *pe, ExtIdleFn fn, void *ctx)
{
    extpool_set_idle(&pe->pool, fn, ctx);
}

/* An external engine's options followed by the WORK's tuned parameters, each as
 * "Name=Value": a whole number as one (spin options take nothing else), any other with
 * the shortest decimal that reads back as the same number. */
static bool options_with_tuned(const ProtoPlayer *pl, char *buf, size_t size, char *err,
                               size_t err_size)
{
    size_t n = (size_t)snprintf(buf, size, "%s", pl->options);
    for (int k = 0; k < pl->ntuned && n < size; k++) {
        double v = pl->tuned[k].value;
        char text[32];
        for (int digits = 1; digits <= 17; digits++) {
            double back;
            snprintf(text, sizeof text, "%.*g", digits, v);
            if (numparse_double("", text, -DBL_MAX, DBL_MAX, &back, NULL, 0) && back == v)
                break;
        }
        if (v == floor(v))
            snprintf(text, sizeof text, "%.0f", v);
        n += (size_t)snprintf(buf + n, size - n, "%s%s=%s", n ? ";" : "", pl->tuned[k].name, text);
    }
    if (n >= size)
        return error_set(err, err_size, "player %u: options and tuned parameters exceed %zu bytes",
                         pl->player_id, size - 1);
    return true;
}

/* Gives player p the external engine pl asks for, from the pool, started and ready. A
 * start that fails is tried once more: an engine killed while it starts (by a user, the
 * OOM killer) is not a broken engine, and a rank that gives up here plays no more. */
static bool ready_external(PlayEngines *pe, int p, const ProtoPlayer *pl, char *err, size_t size)
{
    ExtEngineConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.proto = (ProtoExtProtocol)pl->protocol; /* range-checked by proto_decode */
    if (cfg.proto == PROTO_EXT_XBOARD && pl->nodes)
        return error_set(err, size,
                         "player %u: an xboard engine has no node limit (use a clock, a "
                         "move time or a depth)",
                         pl->player_id);
    snprintf(cfg.command, sizeof cfg.command, "%s", pl->command);
    if (!options_with_tuned(pl, cfg.options, sizeof cfg.options, err, size))
        return false;
    snprintf(cfg.dir, sizeof cfg.dir, "%s", pl->dir);
    pe->ext[p] = extpool_get(&pe->pool, &cfg, pe->ext[1 - p], err, size);
    if (!pe->ext[p])
        return false;
    if (extengine_start(pe->ext[p], err, size))
        return true;
    diag_warn("%s; starting it once more", err);
    return extengine_start(pe->ext[p], err, size);
}

/* Gives engine p the weights, hash, threads (option.Threads) and search constants pl
 * wants. The built-in weights come back with a fresh
 * engine, the facade having no call to restore them. */
static bool ready_engine(PlayEngines *pe, int p, const ProtoPlayer *pl, char *err, size_t size)
{
    if (pe->engine[p] && strcmp(pe->weights[p], pl->weights) && !pl->weights[0])
        engine_free(&pe->engine[p]);
    if (!pe->engine[p]) {
        pe->engine[p] = engine_new();
        if (!pe->engine[p])
            return error_set(err, size, "out of memory for an engine");
        pe->weights[p][0] = '\0';
    }
    size_t mb = pl->hash_mb ? pl->hash_mb : ENGINE_HASH_DEFAULT_MB;
    if ((size_t)engine_hash_mb(pe->engine[p]) != mb && !engine_set_hash(pe->engine[p], mb))
        return error_set(err, size, "cannot allocate a %zu MB hash", mb);
    int threads;
    char msg[200];
    if (!proto_builtin_options(pl->options, &threads, msg, sizeof msg))
        return error_set(err, size, "player %u: %s", pl->player_id, msg);
    if (engine_threads(pe->engine[p]) != threads &&
        !engine_set_threads(pe->engine[p], threads, msg, sizeof msg))
        return error_set(err, size, "player %u: option.Threads=%d: %s", pl->player_id, threads,
                         msg);
    if (strcmp(pe->weights[p], pl->weights)) {
        WeightsError werr;
        if (!engine_load_weights(pe->engine[p], pl->weights, &werr))
            return error_set(err, size, "player %u weights: %s", pl->player_id, werr.msg);
        snprintf(pe->weights[p], sizeof pe->weights[p], "%s", pl->weights);
    }
    /* the search constants: the defaults, then the ones this WORK tunes */
    engine_reset_search_params(pe->engine[p]);
    for (int k = 0; k < pl->ntuned; k++) {
        const ProtoTuned *t = &pl->tuned[k];
        int i = spsa_params_find(t->name);
        if (i < 0 || !engine_set_search_param(pe->engine[p], i, llround(t->value)))
            return error_set(err, size, "player %u: %s = %g is not a search parameter in range",
                             pl->player_id, t->name, t->value);
    }
    return true;
}

/* Whether two players tune the same parameters to the same values (SPSA's two sides
 * differ, so their games differ by themselves). */
static bool same_tuned(const ProtoPlayer *a, const ProtoPlayer *b)
{
    if (a->ntuned != b->ntuned)
        return false;
    for (int i = 0; i < a->ntuned; i++)
        if (strcmp(a->tuned[i].name, b->tuned[i].name) || a->tuned[i].value != b->tuned[i].value)
            return false;
    return true;
}

/* Whether the two players are the same deterministic searcher: the built-in engine
 * with equal weights, hash, tuned parameters and limits, limited by nodes (a clock or a
 * move time makes games differ by itself; a bare depth limit gives no count to vary). */
static bool twins(const ProtoPlayer *a, const ProtoPlayer *b)
{
    return a->kind == PROTO_ENGINE_BUILTIN && b->kind == PROTO_ENGINE_BUILTIN && a->nodes > 0 &&
           a->nodes == b->nodes && a->depth == b->depth && a->movetime_ms == b->movetime_ms &&
           a->tc_base_ms == b->tc_base_ms && a->tc_inc_ms == b->tc_inc_ms &&
           a->hash_mb == b->hash_mb && !strcmp(a->weights, b->weights) &&
           !strcmp(a->options, b->options) && same_tuned(a, b);
}

/* A twin's move: the game position, searched with a node count of the game's stream. */
static GameSearchStatus twin_search(void *ctx, const char *start_fen, const char *const *moves,
                                    int nmoves, const SearchLimits *limits, int64_t deadline_ms,
                                    SearchResult *out)
{
    (void)deadline_ms; /* node-limited: the search ends by itself */
    PlayTwin *t = ctx;
    PosError perr;
    if (!engine_set_position(t->engine, start_fen, moves, nmoves, &perr)) {
        diag_warn("the engine refused the game position: %s", perr.msg);
        return GAME_SEARCH_CRASH;
    }
    SearchLimits l = *limits;
    uint64_t spread = l.nodes * PLAY_JITTER_PERCENT / 100;
    uint64_t r = rng_mix(t->seed ^ rng_mix((uint64_t)nmoves + 1));
    l.nodes = l.nodes - spread + r % (2 * spread + 1);
    *out = engine_search(t->engine, &l, NULL);
    return GAME_SEARCH_OK;
}

static void twin_new_game(void *ctx)
{
    engine_new_game(((PlayTwin *)ctx)->engine);
}

void play_twin_game(PlayEngines *pe, uint64_t pair_id, int game, int attempt)
{
    uint64_t seed = rng_mix(rng_mix(pair_id + 1) ^ (uint64_t)(game * PLAY_TWIN_ATTEMPTS + attempt));
    for (int p = 0; p < 2; p++)
        pe->twin[p].seed = rng_mix(seed + (uint64_t)p);
}

void play_remember_first(PlayEngines *pe, const GameRecord *rec)
{
    pe->first_plies = rec->nplies;
    for (int i = 0; i < rec->nplies; i++)
        pe->first[i] = rec->plies[i].move;
}

bool play_repeats(const PlayEngines *pe, const GameRecord *rec)
{
    if (rec->nplies != pe->first_plies)
        return false;
    for (int i = 0; i < rec->nplies; i++)
        if (rec->plies[i].move != pe->first[i])
            return false;
    return true;
}

bool play_prepare(PlayEngines *pe, const ProtoWork *w, GamePlayer players[2], char *err,
                  size_t size)
{
    /* the engines of the last WORK are the pool's again, and idle there */
    for (int p = 0; p < 2; p++)
        if (pe->ext[p])
            extengine_quiet(pe->ext[p]);
    pe->ext[0] = pe->ext[1] = NULL;
    for (int p = 0; p < 2; p++) {
        const ProtoPlayer *pl = &w->players[p];
        memset(&players[p], 0, sizeof players[p]);
        if (pl->kind == PROTO_ENGINE_EXTERNAL) {
            if (!ready_external(pe, p, pl, err, size))
                return false;
            players[p].search = extengine_search;
            players[p].new_game = extengine_new_game;
            players[p].search_ctx = pe->ext[p];
        } else if (pl->kind == PROTO_ENGINE_BUILTIN) {
            if (!ready_engine(pe, p, pl, err, size))
                return false;
            players[p].engine = pe->engine[p];
        } else {
            return error_set(err, size, "player %u: engine kind %s is not supported by this worker",
                             pl->player_id, proto_engine_kind_name((ProtoEngineKind)pl->kind));
        }
        players[p].clock_base_ms = pl->tc_base_ms;
        players[p].clock_inc_ms = pl->tc_inc_ms;
        players[p].margin_ms = pl->margin_ms;
        time_limits_clear(&players[p].limits);
        players[p].limits.nodes = pl->nodes;
        players[p].limits.depth = pl->depth;
        players[p].limits.movetime = pl->movetime_ms;
    }
    pe->twins = twins(&w->players[0], &w->players[1]);
    for (int p = 0; pe->twins && p < 2; p++) {
        pe->twin[p].engine = pe->engine[p];
        players[p].search = twin_search;
        players[p].new_game = twin_new_game;
        players[p].search_ctx = &pe->twin[p];
    }
    return true;
}

void play_last_move(const PlayEngines *pe, int p, char *buf, size_t size)
{
    const char *m = pe->ext[p] ? extengine_last_move(pe->ext[p]) : "";
    if (m[0])
        snprintf(buf, size, "the illegal move '%s'", m);
    else
        snprintf(buf, size, "%s", pe->ext[p] ? "no move" : "no legal move");
}

void play_opening(const ProtoWork *w, Opening *op)
{
    memset(op, 0, sizeof *op);
    snprintf(op->fen, sizeof op->fen, "%s", w->opening_fen[0] ? w->opening_fen : START_FEN);
    op->nmoves = w->nmoves;
    memcpy(op->moves, w->moves, (size_t)w->nmoves * sizeof w->moves[0]);
}

void play_settings(const ProtoWork *w, GameSettings *s)
{
    game_settings_default(s);
    s->max_plies = w->settings.max_plies;
    s->resign_moves = w->settings.resign_moves;
    s->resign_score = w->settings.resign_score;
    s->draw_after = w->settings.draw_after;
    s->draw_moves = w->settings.draw_moves;
    s->draw_score = w->settings.draw_score;
}
