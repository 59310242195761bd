#include "coord_dispatch.h"

#include <stdio.h>
#include <string.h>

#include "coord_hub.h"
#include "coord_log.h"
#include "coord_spsa.h"

/* Engine i as the WORK message's player, with its own limits. */
static void fill_player(const CoordConfig *cfg, uint16_t id, int i, ProtoPlayer *p)
{
    CoordLimits lim;
    coord_engine_limits(cfg, i, &lim);
    p->player_id = id;
    p->kind = cfg->cmd[i][0] ? PROTO_ENGINE_EXTERNAL : PROTO_ENGINE_BUILTIN;
    p->hash_mb = (uint32_t)cfg->hash_mb;
    p->nodes = lim.nodes;
    p->depth = (uint16_t)lim.depth;
    p->movetime_ms = (uint32_t)lim.movetime;
    p->tc_base_ms = lim.tc_base_ms;
    p->tc_inc_ms = lim.tc_inc_ms;
    p->margin_ms = (uint32_t)cfg->timemargin;
    snprintf(p->options, sizeof p->options, "%s", cfg->options[i]);
    if (p->kind == PROTO_ENGINE_EXTERNAL) {
        ProtoExtProtocol proto = PROTO_EXT_UCI;
        if (cfg->proto[i][0] && !proto_ext_protocol_parse(cfg->proto[i], &proto))
            proto = PROTO_EXT_UCI;
        p->protocol = (uint8_t)proto;
        snprintf(p->command, sizeof p->command, "%s", cfg->cmd[i]);
        snprintf(p->dir, sizeof p->dir, "%s", cfg->dir[i]);
    } else {
        snprintf(p->weights, sizeof p->weights, "%s", cfg->weights[i]);
    }
}

static void send_work(CoordHub *h, int i, uint64_t pair, const Opening *op)
{
    const CoordConfig *cfg = h->cfg;
    ProtoMsg *m = h->msg;
    proto_init(m, PROTO_WORK);
    ProtoWork *w = &m->work;
    w->run_id = runfile_run_id(h->run->rf);
    w->pair_id = pair;
    snprintf(w->opening_fen, sizeof w->opening_fen, "%s", op->fen);
    w->nmoves = (uint16_t)op->nmoves;
    memcpy(w->moves, op->moves, (size_t)op->nmoves * sizeof op->moves[0]);
    int engine[2];
    coord_sched_pair_engines(h->run->sched, pair, &engine[0], &engine[1]);
    for (int p = 0; p < 2; p++) {
        fill_player(cfg, h->run->players[engine[p]], engine[p], &w->players[p]);
        if (h->run->spsa)
            coord_spsa_fill_player(h->run->spsa, pair, engine[p], &w->players[p]);
    }
    w->settings.max_plies = (uint16_t)cfg->max_plies;
    w->settings.resign_moves = (uint16_t)cfg->resign_moves;
    w->settings.resign_score = (uint16_t)cfg->resign_score;
    w->settings.draw_after = (uint16_t)cfg->draw_after;
    w->settings.draw_moves = (uint16_t)cfg->draw_moves;
    w->settings.draw_score = (uint16_t)cfg->draw_score;
    coord_outbox_send(h, i, m);
}

/* The pair worker i holds, asked for again: true when it is sent again (the WORK was
 * lost); otherwise an unfinished one goes back to the queue and the worker holds none. */
static bool resend_held(CoordHub *h, int i)
{
    CoordWorker *w = &h->workers.items[i];
    Schedule *sched = h->run->sched;
    Pair *p = coord_sched_pair(sched, (uint64_t)w->pair);
    if (p && p->state == PAIR_ASSIGNED && p->worker == i) {
        if (p->received == 0) {
            SchedError serr;
            const Opening *op = coord_sched_opening(sched, (uint64_t)w->pair, &serr);
            if (op) {
                coord_sched_reassign(sched, (uint64_t)w->pair, i, h->now);
                send_work(h, i, (uint64_t)w->pair, op);
                return true;
            }
        }
        coord_log("pair %lld is unfinished after %s moved on: back in the queue",
                  (long long)w->pair, w->name);
        coord_sched_release(sched, (uint64_t)w->pair);
        coord_quota_release(&w->limits, (uint64_t)w->pair);
    }
    w->pair = -1;
    return false;
}

/* Whether worker i must wait for ACKs under --max-inflight. Only a worker's first wait
 * is logged: one at its limit waits before nearly every pair, which would be half the
 * log. */
static bool throttled(CoordHub *h, int i)
{
    CoordWorker *w = &h->workers.items[i];
    if (coord_quota_held(&w->limits) < h->cfg->max_inflight || coord_sched_finished(h->run->sched))
        return false;
    if (!w->throttle_logged)
        coord_log("%s holds %d pairs not yet acknowledged (--max-inflight %d): no new pair "
                  "until their ACKs are out (logged once per worker)",
                  w->name, coord_quota_held(&w->limits), h->cfg->max_inflight);
    w->throttle_logged = true;
    return true;
}

void coord_dispatch_request(CoordHub *h, int i)
{
    CoordWorker *w = &h->workers.items[i];
    Schedule *sched = h->run->sched;
    if (h->out.stalled) {
        coord_outbox_send_simple(h, i, PROTO_WAIT);
        return;
    }
    if (w->pair >= 0 && resend_held(h, i))
        return;
    if (throttled(h, i)) {
        coord_outbox_send_simple(h, i, PROTO_WAIT);
        return;
    }
    uint64_t id;
    /* SPSA: a new pair waits until the updates its values depend on are durable */
    if (h->run->spsa)
        sched->issue_below = coord_spsa_issue_below(h->run->spsa, h->run->rf);
    while (coord_sched_assign_next(sched, i, h->now, &id)) {
        SchedError serr;
        const Opening *op = coord_sched_opening(sched, id, &serr);
        if (!op) {
            coord_log("%s; pair dropped", serr.msg);
            coord_sched_drop(sched, id);
            continue;
        }
        w->pair = (int64_t)id;
        coord_quota_hold(&w->limits, id);
        send_work(h, i, id, op);
        return;
    }
    coord_outbox_send_simple(h, i, coord_sched_finished(sched) ? PROTO_DONE : PROTO_WAIT);
}
