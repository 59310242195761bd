#include "coord_sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "array.h"
#include "coord_log.h"
#include "rng.h"

/* The first bad opening is the error; the count of the others goes with it. */
typedef struct {
    char first[COORD_PATH_MAX + 200];
    int bad;
} BadOpenings;

static void note_bad_opening(void *ctx, const char *msg)
{
    BadOpenings *b = ctx;
    if (b->bad++ == 0)
        snprintf(b->first, sizeof b->first, "%s", msg);
}

uint64_t coord_sched_pairs_for_games(uint64_t games)
{
    return games / 2 + games % 2;
}

static bool is_pgn(const CoordConfig *cfg)
{
    if (cfg->opening_format[0])
        return !strcmp(cfg->opening_format, "pgn");
    size_t n = strlen(cfg->openings);
    return n >= 4 && !strcasecmp(cfg->openings + n - 4, ".pgn");
}

static bool load_openings(Schedule *s, const CoordConfig *cfg, SchedError *err)
{
    OpeningError oerr;
    BadOpenings bad = {"", 0};
    int got = is_pgn(cfg)
                  ? opening_list_load_pgn(&s->list, cfg->openings, cfg->opening_plies,
                                          note_bad_opening, &bad, &oerr)
                  : opening_list_load(&s->list, cfg->openings, note_bad_opening, &bad, &oerr);
    if (got < 0) {
        snprintf(err->msg, sizeof err->msg, "openings: %s", oerr.msg);
        return false;
    }
    if (bad.bad > 0) {
        snprintf(err->msg, sizeof err->msg, "openings: %s%s", bad.first,
                 bad.bad > 1 ? " (and more bad openings after it)" : "");
        return false;
    }
    if (s->list.count == 0) {
        snprintf(err->msg, sizeof err->msg, "openings: %s: no opening in the file", cfg->openings);
        return false;
    }
    uint64_t n = (uint64_t)s->list.count;
    if (cfg->opening_start > 0 && (uint64_t)cfg->opening_start > n) {
        snprintf(err->msg, sizeof err->msg,
                 "openings: --opening-start %d, but %s has %llu openings", cfg->opening_start,
                 cfg->openings, (unsigned long long)n);
        return false;
    }
    s->first = cfg->opening_start > 0 ? (uint64_t)cfg->opening_start - 1 : 0;
    if (!strcmp(cfg->opening_order, "random")) {
        /* Fisher-Yates from the run seed: the same order on every restart */
        s->order = malloc(n * sizeof *s->order);
        if (!s->order)
            COORD_FATAL("out of memory for %llu openings", (unsigned long long)n);
        for (uint64_t i = 0; i < n; i++)
            s->order[i] = (uint32_t)i;
        uint64_t state = cfg->seed ^ 0x6f70656e696e6773ULL; /* "openings" */
        for (uint64_t i = n - 1; i > 0; i--) {
            uint64_t j = rng_below(&state, i + 1);
            uint32_t t = s->order[i];
            s->order[i] = s->order[j];
            s->order[j] = t;
        }
    }
    return true;
}

bool coord_sched_init(Schedule *s, const CoordConfig *cfg, SchedError *err)
{
    memset(s, 0, sizeof *s);
    position_init(); /* openings are parsed and played: the move tables must exist */
    opening_list_init(&s->list);
    s->target = coord_sched_pairs_for_games(cfg->games);
    s->issue_below = UINT64_MAX;
    s->seed = cfg->seed;
    s->engines = cfg->engines;
    s->kind = TOUR_ROUNDROBIN;
    s->per_round = !strcmp(cfg->opening_policy, "round");
    if (cfg->tournament[0] && !coord_tournament_kind_parse(cfg->tournament, &s->kind)) {
        snprintf(err->msg, sizeof err->msg, "unknown tournament '%s'", cfg->tournament);
        return false;
    }
    if (coord_tournament_pairings(s->kind, s->engines) == 0) {
        snprintf(err->msg, sizeof err->msg, "%d engines: 2 to %d are possible", s->engines,
                 TOUR_MAX_ENGINES);
        return false;
    }
    if (cfg->openings[0]) {
        if (load_openings(s, cfg, err))
            return true;
        opening_list_free(&s->list);
        free(s->order);
        s->order = NULL;
        return false;
    }
    s->spec.fen = NULL;
    s->spec.plies = cfg->random_plies;
    s->spec.max_score = cfg->opening_max_score;
    if (cfg->opening_max_score > 0) {
        s->engine = engine_new();
        if (!s->engine) {
            snprintf(err->msg, sizeof err->msg, "out of memory for the opening engine");
            return false;
        }
        s->spec.engine = s->engine;
    }
    return true;
}

void coord_sched_pair_engines(const Schedule *s, uint64_t id, int *first, int *second)
{
    coord_tournament_pair_engines(s->kind, s->engines, id, first, second);
}

uint64_t coord_sched_pairings(const Schedule *s)
{
    return coord_tournament_pairings(s->kind, s->engines);
}

void coord_sched_free(Schedule *s)
{
    for (uint64_t i = 0; i < s->cap; i++)
        free(s->pairs[i].opening);
    free(s->pairs);
    free(s->queue);
    free(s->order);
    opening_list_free(&s->list);
    engine_free(&s->engine);
    memset(s, 0, sizeof *s);
}

/* Makes pairs[id] exist. */
static Pair *slot(Schedule *s, uint64_t id)
{
    if (id >= s->cap) {
        size_t old = s->cap;
        if (!array_reserve((void **)&s->pairs, &s->cap, (size_t)id + 1, sizeof *s->pairs, 1024))
            COORD_FATAL("out of memory for %llu pairs", (unsigned long long)id + 1);
        for (size_t i = old; i < s->cap; i++)
            s->pairs[i] = (Pair){.state = PAIR_UNISSUED, .worker = -1};
    }
    return &s->pairs[id];
}

Pair *coord_sched_pair(Schedule *s, uint64_t id)
{
    return id < s->cap && s->pairs[id].state != PAIR_UNISSUED ? &s->pairs[id] : NULL;
}

/* Queue ring: push at the back (restore) or the front (release). */
static void queue_grow(Schedule *s)
{
    if (s->qlen < s->qcap)
        return;
    size_t old = s->qcap;
    if (!array_reserve((void **)&s->queue, &s->qcap, s->qlen + 1, sizeof *s->queue, 256))
        COORD_FATAL("out of memory for the pair queue");
    /* The ring was full: its part that wrapped to the front (before qhead) moves up to
     * follow the rest, which now has room after it. */
    memcpy(s->queue + old, s->queue, s->qhead * sizeof *s->queue);
}

static void queue_push(Schedule *s, uint64_t id, bool front)
{
    queue_grow(s);
    if (front) {
        s->qhead = (s->qhead + s->qcap - 1) % s->qcap;
        s->queue[s->qhead] = id;
    } else {
        s->queue[(s->qhead + s->qlen) % s->qcap] = id;
    }
    s->qlen++;
}

static void set_queued(Schedule *s, uint64_t id, bool front)
{
    Pair *p = &s->pairs[id];
    p->state = PAIR_QUEUED;
    p->worker = -1;
    p->received = 0;
    queue_push(s, id, front);
}

void coord_sched_restore_game(Schedule *s, uint64_t pair_id, unsigned game_in_pair)
{
    Pair *p = slot(s, pair_id);
    p->stored |= (uint8_t)(1u << game_in_pair);
    if (p->stored == 3 && p->state != PAIR_DONE) {
        p->state = PAIR_DONE;
        s->complete++;
    } else if (p->state == PAIR_UNISSUED) {
        p->state = PAIR_DROPPED; /* a placeholder until coord_sched_restore_end queues it */
    }
}

void coord_sched_restore_end(Schedule *s, uint64_t next_pair_id)
{
    if (next_pair_id)
        slot(s, next_pair_id - 1);
    for (uint64_t id = 0; id < next_pair_id; id++) {
        Pair *p = &s->pairs[id];
        if (p->state == PAIR_DONE)
            continue;
        /* a half-stored pair, or an id handed out before the restart with no game stored */
        set_queued(s, id, false);
        s->outstanding++;
    }
    s->next_new = next_pair_id;
}

static void assign(Schedule *s, uint64_t id, int worker, double now)
{
    Pair *p = &s->pairs[id];
    p->state = PAIR_ASSIGNED;
    p->worker = worker;
    p->received = 0;
    p->assigned_at = now;
}

bool coord_sched_assign_next(Schedule *s, int worker, double now, uint64_t *id)
{
    if (s->stopped || coord_sched_finished(s))
        return false;
    while (s->qlen > 0) {
        uint64_t q = s->queue[s->qhead];
        s->qhead = (s->qhead + 1) % s->qcap;
        s->qlen--;
        if (s->pairs[q].state == PAIR_QUEUED) { /* else stale: done or taken meanwhile */
            assign(s, q, worker, now);
            *id = q;
            return true;
        }
    }
    if (s->complete + s->outstanding >= s->target)
        return false;
    uint64_t n = s->next_new;
    while (slot(s, n)->state != PAIR_UNISSUED)
        n++;
    if (n >= s->issue_below)
        return false;
    s->next_new = n + 1;
    assign(s, n, worker, now);
    s->outstanding++;
    *id = n;
    return true;
}

void coord_sched_reassign(Schedule *s, uint64_t id, int worker, double now)
{
    if (id < s->cap && s->pairs[id].state == PAIR_ASSIGNED)
        assign(s, id, worker, now);
}

bool coord_sched_can_adopt(const Schedule *s, uint64_t id)
{
    bool unissued = id >= s->cap || s->pairs[id].state == PAIR_UNISSUED;
    return unissued && id < s->next_new + SCHED_ADOPT_WINDOW && !coord_sched_finished(s) &&
           s->complete + s->outstanding < s->target;
}

void coord_sched_adopt(Schedule *s, uint64_t id, int worker, double now)
{
    slot(s, id);
    assign(s, id, worker, now);
    s->outstanding++;
}

void coord_sched_release(Schedule *s, uint64_t id)
{
    if (id >= s->cap || s->pairs[id].state != PAIR_ASSIGNED)
        return;
    set_queued(s, id, true);
    s->requeued++;
}

int coord_sched_release_worker(Schedule *s, int worker)
{
    int n = 0;
    for (uint64_t id = 0; id < s->cap; id++)
        if (s->pairs[id].state == PAIR_ASSIGNED && s->pairs[id].worker == worker) {
            coord_sched_release(s, id);
            n++;
        }
    return n;
}

bool coord_sched_game_stored(Schedule *s, uint64_t id, unsigned game_in_pair)
{
    Pair *p = slot(s, id);
    p->stored |= (uint8_t)(1u << game_in_pair);
    if (p->stored != 3 || p->state == PAIR_DONE)
        return false;
    if (p->state == PAIR_QUEUED || p->state == PAIR_ASSIGNED)
        s->outstanding--;
    if (p->state == PAIR_DROPPED)
        s->dropped--;
    p->state = PAIR_DONE;
    p->worker = -1;
    free(p->opening);
    p->opening = NULL;
    s->complete++;
    return true;
}

void coord_sched_game_lost(Schedule *s, uint64_t id, unsigned game_in_pair)
{
    if (id >= s->cap)
        return;
    Pair *p = &s->pairs[id];
    p->stored &= (uint8_t) ~(1u << game_in_pair);
    if (p->state != PAIR_DONE)
        return;
    s->complete--;
    s->outstanding++;
    set_queued(s, id, true);
}

void coord_sched_drop(Schedule *s, uint64_t id)
{
    Pair *p = slot(s, id);
    if (p->state == PAIR_QUEUED || p->state == PAIR_ASSIGNED)
        s->outstanding--;
    if (p->state != PAIR_DROPPED && p->state != PAIR_DONE) {
        p->state = PAIR_DROPPED;
        p->worker = -1;
        s->dropped++;
    }
}

bool coord_sched_game_rejected(Schedule *s, uint64_t id)
{
    Pair *p = coord_sched_pair(s, id);
    if (!p || p->state == PAIR_DONE || p->state == PAIR_DROPPED)
        return false;
    if (++p->rejects < SCHED_MAX_REJECTS)
        return false;
    coord_sched_drop(s, id);
    return true;
}

const Opening *coord_sched_opening(Schedule *s, uint64_t id, SchedError *err)
{
    Pair *p = slot(s, id);
    if (p->opening)
        return p->opening;
    Opening *op = malloc(sizeof *op);
    if (!op)
        COORD_FATAL("out of memory for an opening");
    /* the opening's number: the pair's, or under the round policy its round's, so that
     * every pairing of the round gets the same file line or the same random line */
    uint64_t n = s->per_round ? id / coord_tournament_pairings(s->kind, s->engines) : id;
    if (s->list.count > 0) {
        uint64_t k = (s->first + n) % (uint64_t)s->list.count;
        *op = s->list.items[s->order ? s->order[k] : k];
    } else {
        OpeningError oerr;
        if (!opening_random(op, &s->spec, rng_at(s->seed, n + 1), NULL, &oerr)) {
            snprintf(err->msg, sizeof err->msg, "pair %llu: no random opening: %s",
                     (unsigned long long)id, oerr.msg);
            free(op);
            return NULL;
        }
    }
    p->opening = op;
    return op;
}

bool coord_sched_finished(const Schedule *s)
{
    if (s->complete >= s->target)
        return true;
    if (!s->stopped)
        return false;
    for (uint64_t id = 0; id < s->cap; id++)
        if (s->pairs[id].state == PAIR_ASSIGNED)
            return false;
    return true;
}

void coord_sched_stop(Schedule *s)
{
    s->stopped = true;
}
