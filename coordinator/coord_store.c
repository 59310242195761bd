#include "coord_store.h"

#include <stdio.h>
#include <stdlib.h>

#include "array.h"
#include "coord_accept.h"
#include "coord_hub.h"
#include "coord_log.h"
#include "coord_spsa.h"

static void send_ack(CoordHub *h, int i, const ProtoGame *g, ProtoAckStatus status, uint64_t id)
{
    ProtoMsg m;
    proto_init(&m, PROTO_ACK);
    m.ack = (ProtoAck){.run_id = g->run_id,
                       .pair_id = g->pair_id,
                       .game_in_pair = g->game_in_pair,
                       .status = (uint8_t)status,
                       .game_id = id};
    coord_outbox_send(h, i, &m);
}

static uint64_t record_nodes(const GameRecord *r)
{
    uint64_t n = 0;
    for (int i = 0; i < r->nplies; i++)
        n += r->plies[i].nodes;
    return n;
}

/* A game coord_accept refused (why says why). */
static void reject(CoordHub *h, int i, const ProtoGame *g, const char *why)
{
    CoordRun *run = h->run;
    CoordWorker *w = &h->workers.items[i];
    coord_log("rejected game %u of pair %llu from %s (rank %u): %s", g->game_in_pair,
              (unsigned long long)g->pair_id, w->name, g->worker_rank, why);
    run->stats->rejected++;
    w->rejected++;
    if (coord_sched_game_rejected(run->sched, g->pair_id)) {
        coord_log("pair %llu dropped after %d rejected games", (unsigned long long)g->pair_id,
                  SCHED_MAX_REJECTS);
        /* SPSA applies updates in pair order: without this pair's, none follows */
        if (run->spsa) {
            coord_log("SPSA: no update from pair %llu, so none after it: no new pairs",
                      (unsigned long long)g->pair_id);
            coord_sched_stop(run->sched);
        }
    }
    send_ack(h, i, g, PROTO_ACK_REJECTED, 0);
}

/* Appends g, with the boards its validation packed, to the run file as *id, between the
 * engines its judging found; false when it is not stored (rejected, or the run file
 * failed: then the server stalls and the game is not acknowledged). */
static bool append(CoordHub *h, int i, const ProtoGame *g, const PackedPos *boards,
                   const CoordAccepted *acc, uint64_t *id)
{
    CoordRun *run = h->run;
    RunError rerr;
    if (runfile_append_validated(run->rf, &g->rec, boards, g->pair_id, g->game_in_pair,
                                 run->players[acc->red], run->players[acc->black], g->worker_rank,
                                 id, &rerr))
        return true;
    if (runfile_broken(run->rf)) {
        coord_outbox_stall(h, rerr.msg); /* not the game's fault: it is not acknowledged */
        return false;
    }
    coord_log("rejected game %u of pair %llu from %s (rank %u): run file: %s", g->game_in_pair,
              (unsigned long long)g->pair_id, h->workers.items[i].name, g->worker_rank, rerr.msg);
    run->stats->rejected++;
    send_ack(h, i, g, PROTO_ACK_REJECTED, 0);
    return false;
}

/* A durable game in the statistics: the SPRT may stop the run, the ratings are logged
 * every --rating-interval games. */
static void count(CoordHub *h, const CoordUnflushedGame *u)
{
    CoordRun *run = h->run;
    CoordWorker *w = &h->workers.items[u->worker];
    const RunGame *g = runfile_game(run->rf, u->id);
    if (!g)
        return;
    w->stored++;
    coord_runstats_worker_game(run->stats, w->hello ? w->host : "?", g->worker_rank,
                               (Reason)g->reason);
    if (coord_runstats_add_stored(run->stats, run->rf, u->id, u->nodes, true, &u->key)) {
        double llr;
        SprtState ss = coord_runstats_sprt(run->stats, &llr);
        if (ss != SPRT_CONTINUE && !run->sched->stopped) {
            char text[160];
            sprt_format(text, sizeof text, &run->stats->sprt, llr);
            coord_log("SPRT: %s: %s; no new pairs, the workers finish their games", text,
                      sprt_state_name(ss));
            coord_sched_stop(run->sched);
        }
    }
    if (h->cfg->rating_interval > 0 && run->stats->games % (uint64_t)h->cfg->rating_interval == 0) {
        char text[1024];
        coord_runstats_rating_text(run->stats, text, sizeof text);
        coord_log("after %llu games: %s", (unsigned long long)run->stats->games, text);
    }
}

void coord_store_game(CoordHub *h, int i)
{
    CoordWorker *w = &h->workers.items[i];
    CoordRun *run = h->run;
    const ProtoGame *g = &h->msg->game;
    uint64_t held_back;
    if (h->out.stalled) {
        /* not acknowledged: the worker sends it again */
        if (coord_log_gate(&h->gate, h->now, &held_back))
            coord_log("game %u of pair %llu from %s not taken: the run file cannot be written%s",
                      g->game_in_pair, (unsigned long long)g->pair_id, w->name,
                      held_back ? " (and more lines like this)" : "");
        return;
    }
    Pair *held = coord_sched_pair(run->sched, g->pair_id);
    if (held && held->state == PAIR_ASSIGNED && held->worker == i)
        held->received++;

    char why[600];
    /* the game is replayed once, by its validation, which packs the rows stored */
    PackedPos *boards = malloc((size_t)(g->rec.nplies > 0 ? g->rec.nplies : 1) * sizeof *boards);
    if (!boards)
        COORD_FATAL("out of memory for a game");
    CoordAccepted acc;
    AcceptVerdict v =
        coord_accept_game(h->cfg, run->rf, run->sched, g, boards, &acc, why, sizeof why);
    if (v == ACCEPT_DUPLICATE || v == ACCEPT_REJECT) {
        free(boards);
        if (v == ACCEPT_DUPLICATE) {
            run->stats->duplicates++;
            send_ack(h, i, g, PROTO_ACK_DUPLICATE, acc.game_id);
        } else {
            reject(h, i, g, why);
        }
        return;
    }
    if (v == ACCEPT_ADOPT) {
        coord_log("pair %llu adopted from %s (handed out before a restart)",
                  (unsigned long long)g->pair_id, w->name);
        coord_sched_adopt(run->sched, g->pair_id, i, h->now);
        if (w->pair < 0)
            w->pair = (int64_t)g->pair_id;
    }
    uint64_t id;
    bool stored = append(h, i, g, boards, &acc, &id);
    free(boards);
    if (!stored)
        return;
    coord_outbox_appended(h);
    CoordUnflushed *u = &h->unflushed;
    if (!array_reserve((void **)&u->items, &u->cap, u->count + 1, sizeof *u->items, 64))
        COORD_FATAL("out of memory for a game");
    u->items[u->count++] =
        (CoordUnflushedGame){.id = id, .nodes = record_nodes(&g->rec), .key = acc.key, .worker = i};
    CoordError serr;
    if (coord_sched_game_stored(run->sched, g->pair_id, g->game_in_pair) && run->spsa &&
        !coord_spsa_catch_up(run->spsa, run->rf, &serr))
        coord_log("SPSA: %s", serr.msg); /* the flush before the ACK reports a broken file */
    send_ack(h, i, g, PROTO_ACK_STORED, id);
}

uint64_t coord_store_pairs_waiting(const CoordHub *h)
{
    const CoordUnflushed *u = &h->unflushed;
    uint64_t n = 0, other;
    /* a pair completes with its later game, and the games are flushed in id order */
    for (size_t k = 0; k < u->count; k++) {
        const RunGame *g = runfile_game(h->run->rf, u->items[k].id);
        if (g && runfile_find_game(h->run->rf, g->pair_id, 1u - g->game_in_pair, &other) &&
            other < g->game_id)
            n++;
    }
    return n;
}

void coord_store_flushed(CoordHub *h)
{
    CoordUnflushed *u = &h->unflushed;
    uint64_t durable = runfile_flushed_game_count(h->run->rf);
    size_t kept = 0;
    /* in id order, as they were appended; a batch the run file wrote by itself when its
     * buffer was full is durable before the flush of the group commit */
    for (size_t k = 0; k < u->count; k++) {
        if (u->items[k].id < durable)
            count(h, &u->items[k]);
        else
            u->items[kept++] = u->items[k];
    }
    u->count = kept;
}

uint64_t coord_store_drop_unflushed(CoordHub *h)
{
    CoordRun *run = h->run;
    coord_store_flushed(h);
    h->unflushed.count = 0;
    uint64_t n = runfile_game_count(run->rf);
    for (uint64_t id = runfile_flushed_game_count(run->rf); id < n; id++) {
        const RunGame *g = runfile_game(run->rf, id);
        coord_sched_game_lost(run->sched, g->pair_id, g->game_in_pair);
    }
    return runfile_drop_unflushed(run->rf);
}

void coord_store_free(CoordUnflushed *u)
{
    free(u->items);
    u->items = NULL;
    u->count = u->cap = 0;
}
