#include "loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "qresolve.h"
#include "record.h"
#include "rng.h"
#include "contracts/runfile.h"
#include "trace.h"
#include "weights.h"

/* Rows per hyperslab read: 8192 x 72 bytes. */
enum { READ_BLOCK = 8192, TRACE_TOLERANCE = 1 };

void load_options_default(LoadOptions *o)
{
    /* the positions kept: past the opening, scores a search settled, duplicates once */
    *o = (LoadOptions){.skip_plies = 16, .max_score = 2000, .dedup = true, .seed = 1};
    o->valid_frac = 0.1; /* for validation */
    o->check = 10000;    /* traces held against evaluate() */
}

/* Keys and places of the positions of one set, in the set's order. */
typedef struct {
    uint64_t *key, *place;
    uint64_t n, cap;
} KeyList;

typedef struct {
    Comm *comm;
    const LoadOptions *opt;
    const LoadSink *sink;
    KeyList keys[2];
    uint64_t kept[2]; /* positions added to each set */
    LoadStats st;
    Position *pos;
    QResolve *qr; /* with qresolve */
    RunPosition *rows;
    RunPosition game_rows[RECORD_MAX_PLIES];
    uint64_t game_row_no[RECORD_MAX_PLIES];
    LoadError *err;
} Loader;

/* The tuner's store: traced coefficients in a Dataset per set, the first check_quota
 * of them compared with evaluate(). */
typedef struct {
    Dataset *set[2];
    const EvalParams *params;
    TracedPos *tp;
    int8_t coef8[EVAL_PARAM_NB];
    uint64_t checked, check_quota;
} TraceSink;

/* A position's or game's place in the input: file index and row (position) or game id.
 * Every random choice of the load is a hash of the seed and of such a place, never of
 * the rank that holds it, so a run gives the same data on any number of ranks. */
static uint64_t place_of(uint64_t file, uint64_t row)
{
    return file << 40 | row;
}

/* Room for cap keys in k; false (k unchanged but for a larger array) when out of memory. */
static bool keys_reserve(KeyList *k, uint64_t cap)
{
    if (cap <= k->cap)
        return true;
    uint64_t *a = realloc(k->key, cap * sizeof *a);
    if (!a)
        return false;
    k->key = a;
    uint64_t *b = realloc(k->place, cap * sizeof *b);
    if (!b)
        return false;
    k->place = b;
    k->cap = cap;
    return true;
}

static bool keys_push(KeyList *k, uint64_t key, uint64_t place)
{
    if (k->n == k->cap && !keys_reserve(k, k->cap < 1024 ? 1024 : k->cap + k->cap / 2))
        return false;
    k->key[k->n] = key;
    k->place[k->n] = place;
    k->n++;
    return true;
}

static void keys_free(KeyList *k)
{
    free(k->key);
    free(k->place);
    memset(k, 0, sizeof *k);
}

static bool trace_add(void *ctx, int set, const Position *pos, int score, int result, uint32_t uid,
                      LoadError *err)
{
    TraceSink *ts = ctx;
    TracedPos *tp = ts->tp;
    trace_position(pos, ts->params, tp);
    for (int k = 0; k < tp->n; k++) {
        if (tp->coef[k] < INT8_MIN || tp->coef[k] > INT8_MAX) {
            char name[48];
            weights_param_name(tp->idx[k], name, sizeof name);
            return ERROR_SET(err,
                             "%s is used %d times, more than the stored coefficients hold (int8)",
                             name, tp->coef[k]);
        }
        ts->coef8[k] = (int8_t)tp->coef[k];
    }
    if (ts->checked < ts->check_quota) {
        TraceMismatch m;
        ts->checked++;
        if (!trace_check(pos, ts->params, tp->idx, ts->coef8, tp->n, tp->phase, TRACE_TOLERANCE,
                         &m))
            return ERROR_SET(
                err,
                "%s: the tuner's linear form does not reproduce the engine's evaluation: "
                "evaluate() %d, reconstruction %d (Red's view, phase %d). The trace build of "
                "engine/evaluate.c and the library disagree: rebuild both (make clean; make), "
                "and check that every term goes through ADD",
                m.fen, m.engine, m.reconstructed, m.phase);
    }
    if (!dataset_add(ts->set[set], tp->idx, ts->coef8, tp->n, tp->phase, score, result, uid))
        return ERROR_SET(err, "out of memory");
    return true;
}

static void trace_filter(void *ctx, int set, const uint8_t *keep)
{
    TraceSink *ts = ctx;
    dataset_filter(ts->set[set], keep);
}

static void trace_finish(void *ctx, LoadStats *st)
{
    TraceSink *ts = ctx;
    st->checked = ts->checked;
    st->entries = ts->set[0]->nent + ts->set[1]->nent;
    dataset_trim(ts->set[0]);
    dataset_trim(ts->set[1]);
}

/* Hands one selected row (qresolve first if asked) to the store. */
static bool take(Loader *L, const char *path, uint64_t file, const RunPosition *r, uint64_t row,
                 int set)
{
    const LoadOptions *o = L->opt;
    PosError pe;
    if (!record_unpack(&r->board, L->pos, &pe))
        return ERROR_SET(L->err, "%s: /positions row %llu: %s", path, (unsigned long long)row,
                         pe.msg);
    if (o->qresolve) {
        int plies = qresolve_run(L->qr, L->pos);
        if (plies) {
            L->st.resolved++;
            L->st.resolved_plies += (uint64_t)plies;
        }
    }
    int red = packed_side(&r->board) == RED;
    int score = red ? r->score : -r->score, result = red ? r->result : -r->result;
    uint64_t place = place_of(file, row);
    LoadError why;
    if (!L->sink->add(L->sink->ctx, set, L->pos, score, result, (uint32_t)(rng_mix(place) >> 32),
                      &why))
        return ERROR_SET(L->err, "%s: /positions row %llu: %s (after %llu positions)", path,
                         (unsigned long long)row, why.msg,
                         (unsigned long long)(L->kept[0] + L->kept[1]));
    L->kept[set]++;
    if (L->opt->dedup && !keys_push(&L->keys[set], pos_key(L->pos), place))
        return ERROR_SET(L->err, "out of memory after %llu positions",
                         (unsigned long long)(L->kept[0] + L->kept[1]));
    return true;
}

/* The opening a game was played from, for the validation split: the position its
 * first searched move was made in (board and side to move), so that every game of an
 * opening, in a pair or in another pair that drew the same opening, and whatever the
 * order of the opening moves, falls on the same side. A game without opening moves
 * (every game from one start position) is named by its pair instead. */
static uint64_t opening_key(uint64_t file, const RunGame *g, const RunPosition *first_searched)
{
    if (first_searched->ply == 0)
        return rng_mix(place_of(file, g->pair_id) ^ 0x70616972ULL);
    uint64_t h = 0x6f70656eULL;
    for (int i = 0; i <= PACKED_SIDE; i++)
        h = rng_mix(h ^ first_searched->board.b[i]);
    return h;
}

/* Samples a finished game's eligible rows (n of them) and takes the chosen ones; the
 * game goes to the validation set when its opening does. */
static bool finish_game(Loader *L, const char *path, uint64_t file, const RunGame *g, int n,
                        uint64_t opening)
{
    const LoadOptions *o = L->opt;
    L->st.eligible += (uint64_t)n;
    int k = o->per_game > 0 && o->per_game < n ? o->per_game : n;
    int pick[RECORD_MAX_PLIES];
    for (int i = 0; i < n; i++)
        pick[i] = i;
    if (k < n) {
        /* partial Fisher-Yates, then back into ply order */
        uint64_t s = rng_mix(o->seed ^ rng_mix(place_of(file, g->game_id) ^ 0x5a4d504c45ULL));
        for (int i = 0; i < k; i++) {
            int j = i + (int)rng_below(&s, (uint64_t)(n - i));
            int t = pick[i];
            pick[i] = pick[j];
            pick[j] = t;
        }
        for (int i = 1; i < k; i++)
            for (int j = i; j > 0 && pick[j - 1] > pick[j]; j--) {
                int t = pick[j];
                pick[j] = pick[j - 1];
                pick[j - 1] = t;
            }
    }
    double u = rng_unit(rng_mix(o->seed ^ rng_mix(opening ^ 0x56414c4944ULL)));
    int set = u < o->valid_frac ? 1 : 0;
    L->st.sampled += (uint64_t)k;
    for (int i = 0; i < k; i++)
        if (!take(L, path, file, &L->game_rows[pick[i]], L->game_row_no[pick[i]], set))
            return false;
    return true;
}

/* Whether row r (number row) can be used; counts why not. */
static bool eligible(Loader *L, const RunPosition *r)
{
    const LoadOptions *o = L->opt;
    if (r->ply < o->skip_plies)
        return L->st.early++, false;
    if (r->flags & RECORD_FLAG_OPENING)
        return L->st.opening++, false;
    if ((r->flags & RECORD_FLAG_IN_CHECK) && !o->keep_in_check)
        return L->st.in_check++, false;
    if (o->max_score > 0 && (r->score > o->max_score || r->score < -o->max_score))
        return L->st.big_score++, false;
    if (!o->qresolve && !o->keep_captures &&
        ((r->flags & RECORD_FLAG_CAPTURE) ||
         (r->best != MOVE_NONE && packed_piece(&r->board, move_to(r->best)))))
        return L->st.capture++, false;
    return true;
}

/* The checks that tie a row to its game. */
static bool check_row(Loader *L, const char *path, uint64_t row, const RunPosition *r,
                      const RunGame *g, int ply)
{
    const char *why = NULL;
    int side = packed_side(&r->board);
    if (r->game_id != g->game_id)
        why = "its game_id is not the game whose rows these are";
    else if (r->ply != ply)
        why = "its ply is out of sequence";
    else if (side > 1)
        why = "side to move is not 0 or 1";
    else if (r->result != (side == 0 ? g->outcome : -g->outcome))
        why = "its result disagrees with its game's outcome";
    else if (move_from(r->move) >= SQUARE_NB || move_to(r->move) >= SQUARE_NB ||
             (r->best != MOVE_NONE &&
              (move_from(r->best) >= SQUARE_NB || move_to(r->best) >= SQUARE_NB)))
        why = "a move names a point off the board";
    else if (r->flags & ~RECORD_FLAGS_ALL)
        why = "unknown flag bits";
    if (why)
        return ERROR_SET(L->err, "%s: /positions row %llu (game %llu, ply %d): %s", path,
                         (unsigned long long)row, (unsigned long long)g->game_id, ply, why);
    return true;
}

/* This rank's games of one file: games whose first global row is in [lo, hi). */
static bool load_file(Loader *L, RunFile *rf, const char *path, uint64_t file, uint64_t offset,
                      uint64_t lo, uint64_t hi)
{
    uint64_t ngames = runfile_game_count(rf), g0 = ngames, g1 = ngames;
    for (uint64_t id = 0; id < ngames; id++) {
        uint64_t first = offset + runfile_game(rf, id)->first_position;
        if (g0 == ngames && first >= lo)
            g0 = id;
        if (first >= hi) {
            g1 = id;
            break;
        }
    }
    if (g0 >= g1)
        return true;
    uint64_t row = runfile_game(rf, g0)->first_position;
    uint64_t end = runfile_game(rf, g1 - 1)->first_position + runfile_game(rf, g1 - 1)->plies;
    uint64_t block_start = row, block_n = 0;
    for (uint64_t id = g0; id < g1; id++) {
        const RunGame *g = runfile_game(rf, id);
        L->st.games++;
        int n = 0;
        uint64_t opening = 0;
        bool searched = false;
        for (int ply = 0; ply < g->plies; ply++, row++) {
            if (row >= block_start + block_n) {
                block_start = row;
                block_n = end - row < READ_BLOCK ? end - row : READ_BLOCK;
                RunError re;
                if (!runfile_read_positions(rf, block_start, block_n, L->rows, &re))
                    return ERROR_SET(L->err, "%s", re.msg);
            }
            const RunPosition *r = &L->rows[row - block_start];
            L->st.rows++;
            if (!check_row(L, path, row, r, g, ply))
                return false;
            if (!searched && !(r->flags & RECORD_FLAG_OPENING)) {
                searched = true;
                opening = opening_key(file, g, r);
            }
            if (eligible(L, r)) {
                L->game_rows[n] = *r;
                L->game_row_no[n] = row;
                n++;
            }
        }
        if (!finish_game(L, path, file, g, n, opening))
            return false;
    }
    return true;
}

static int cmp_u64_pair(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/*
 * The keys go through de-duplication in DEDUP_ROUNDS rounds, each over one range of
 * their hashes: the buffers of a round (what goes out, what comes in, its sorted copy
 * and the replies; at most about 40 bytes a key at once) hold a round's share of the
 * keys, so the load's peak stays near the sets and the key list alone. keep[i] holds
 * the round of a key not yet decided, DEDUP_DECIDED | 0 or 1 once its round has run.
 */
enum { DEDUP_ROUNDS = 16, DEDUP_DECIDED = 0x40 };

static uint8_t dedup_round(uint64_t hash)
{
    return (uint8_t)(hash >> 60) % DEDUP_ROUNDS;
}

static int dedup_owner(uint64_t hash, int size)
{
    return (int)(hash % (uint64_t)size);
}

/* One round: the keys whose keep[i] is round go to their owners (a rank chosen by hash)
 * as (key, place) pairs, each owner keeps the first of each key by place, and the
 * answers come back in the order the pairs went. counts has 2 * size entries, fill
 * size + 1. */
static bool dedup_one_round(Comm *comm, const uint64_t *keys, const uint64_t *places, uint64_t n,
                            uint8_t *keep, uint8_t round, uint64_t *counts, uint64_t *fill)
{
    int size = comm->size;
    uint64_t *recv_counts = counts + size, mine = 0, m = 0;
    uint64_t *send = NULL, *recv = NULL, *sorted = NULL, *reply = NULL, *back = NULL;
    memset(counts, 0, 2 * (size_t)size * sizeof *counts);
    for (uint64_t i = 0; i < n; i++)
        if (keep[i] == round) {
            counts[dedup_owner(rng_mix(keys[i]), size)]++;
            mine++;
        }
    send = malloc((mine ? 2 * mine : 1) * sizeof *send);
    bool ok = comm_all_ok(comm, send != NULL);
    if (!ok)
        goto out;
    fill[0] = 0;
    for (int r = 0; r < size; r++)
        fill[r + 1] = fill[r] + counts[r];
    for (uint64_t i = 0; i < n; i++)
        if (keep[i] == round) {
            uint64_t at = fill[dedup_owner(rng_mix(keys[i]), size)]++;
            send[2 * at] = keys[i];
            send[2 * at + 1] = places[i];
        }
    for (int r = 0; r < size; r++)
        counts[r] *= 2;
    ok = comm_all_ok(comm, comm->exchange_u64(comm, send, counts, &recv, recv_counts));
    free(send);
    send = NULL;
    if (!ok)
        goto out;
    for (int r = 0; r < size; r++)
        m += recv_counts[r] / 2;
    /* sort (key, place, arrival) triples; the first of each key is kept */
    sorted = malloc((m ? 3 * m : 1) * sizeof *sorted);
    ok = comm_all_ok(comm, sorted != NULL);
    if (!ok)
        goto out;
    for (uint64_t j = 0; j < m; j++) {
        sorted[3 * j] = recv[2 * j];
        sorted[3 * j + 1] = recv[2 * j + 1];
        sorted[3 * j + 2] = j;
    }
    free(recv);
    recv = NULL;
    qsort(sorted, m, 3 * sizeof *sorted, cmp_u64_pair);
    reply = malloc((m ? m : 1) * sizeof *reply);
    ok = comm_all_ok(comm, reply != NULL);
    if (!ok)
        goto out;
    for (uint64_t j = 0; j < m; j++)
        reply[sorted[3 * j + 2]] = j == 0 || sorted[3 * j] != sorted[3 * (j - 1)];
    free(sorted);
    sorted = NULL;
    for (int r = 0; r < size; r++) {
        counts[r] = recv_counts[r] / 2;
        recv_counts[r] = 0;
    }
    ok = comm_all_ok(comm, comm->exchange_u64(comm, reply, counts, &back, recv_counts));
    if (!ok)
        goto out;
    /* the answers come back grouped by owner, in the order the pairs went */
    fill[0] = 0;
    for (int r = 0; r < size; r++)
        fill[r + 1] = fill[r] + recv_counts[r];
    for (uint64_t i = 0; i < n; i++)
        if (keep[i] == round)
            keep[i] =
                (uint8_t)(DEDUP_DECIDED | (back[fill[dedup_owner(rng_mix(keys[i]), size)]++] & 1));
out:
    free(send);
    free(recv);
    free(sorted);
    free(reply);
    free(back);
    return ok;
}

bool load_dedup(Comm *comm, const uint64_t *keys, const uint64_t *places, uint64_t n, uint8_t *keep)
{
    int size = comm->size;
    uint64_t *counts = calloc(2 * (size_t)size, sizeof *counts);
    uint64_t *fill = calloc((size_t)size + 1, sizeof *fill);
    bool ok = comm_all_ok(comm, counts && fill);
    for (uint64_t i = 0; ok && i < n; i++)
        keep[i] = dedup_round(rng_mix(keys[i]));
    for (uint8_t round = 0; ok && round < DEDUP_ROUNDS; round++)
        ok = dedup_one_round(comm, keys, places, n, keep, round, counts, fill);
    for (uint64_t i = 0; ok && i < n; i++)
        keep[i] &= 1;
    free(counts);
    free(fill);
    return ok;
}

/* Step 5 over both sets, then the sets are compacted. */
static bool dedup_sets(Loader *L)
{
    KeyList *train = &L->keys[0], *valid = &L->keys[1];
    uint64_t n0 = train->n, n1 = valid->n, n = n0 + n1;
    /* the validation keys go on after the training keys, in the same arrays */
    uint8_t *keep = malloc(n ? n : 1);
    bool ok = comm_all_ok(L->comm, keep && keys_reserve(train, n));
    if (ok) {
        if (n1) {
            memcpy(train->key + n0, valid->key, n1 * sizeof *train->key);
            memcpy(train->place + n0, valid->place, n1 * sizeof *train->place);
        }
        keys_free(valid);
        ok = load_dedup(L->comm, train->key, train->place, n, keep);
    }
    keys_free(train);
    if (ok) {
        for (uint64_t i = 0; i < n; i++)
            L->st.duplicates += !keep[i];
        for (uint64_t i = n0; i < n; i++)
            L->st.valid_duplicates += !keep[i];
        L->sink->filter(L->sink->ctx, 0, keep);
        L->sink->filter(L->sink->ctx, 1, keep + n0);
    } else {
        ERROR_SET(L->err, "out of memory or an MPI failure while removing duplicates");
    }
    free(keep);
    return ok;
}

bool load_runfiles_into(Comm *comm, const char *const *paths, int npaths, const LoadOptions *opt,
                        const LoadSink *sink, LoadStats *stats, LoadError *err)
{
    Loader *L = calloc(1, sizeof *L);
    Position *pos = malloc(sizeof *pos);
    QResolve *qr = opt->qresolve ? qresolve_new(opt->params) : NULL;
    RunPosition *rows = malloc(READ_BLOCK * sizeof *rows);
    RunFile **rf = calloc((size_t)(npaths > 0 ? npaths : 1), sizeof *rf);
    uint64_t *offset = calloc((size_t)npaths + 1, sizeof *offset);
    memset(err, 0, sizeof *err);
    bool ok = L && pos && (qr || !opt->qresolve) && rows && rf && offset;
    if (!ok)
        ERROR_SET(err, "out of memory");
    else {
        L->comm = comm;
        L->opt = opt;
        L->sink = sink;
        L->pos = pos;
        L->qr = qr;
        L->rows = rows;
        L->err = err;
    }

    /* every rank opens every file: the game tables decide the shards */
    for (int f = 0; ok && f < npaths; f++) {
        RunError re;
        rf[f] = runfile_open_read(paths[f], &re);
        if (!rf[f])
            ok = ERROR_SET(err, "%s", re.msg);
        else
            offset[f + 1] = offset[f] + runfile_position_count(rf[f]);
    }
    if (comm_agree(comm, ok, err->msg, sizeof err->msg)) {
        uint64_t total = offset[npaths];
        uint64_t lo = total * (uint64_t)comm->rank / (uint64_t)comm->size;
        uint64_t hi = total * (uint64_t)(comm->rank + 1) / (uint64_t)comm->size;
        if (comm->rank == comm->size - 1)
            hi = total + 1;
        for (int f = 0; ok && f < npaths; f++)
            if (offset[f + 1] > lo && offset[f] < hi)
                ok = load_file(L, rf[f], paths[f], (uint64_t)f, offset[f], lo, hi);
        ok = comm_agree(comm, ok, err->msg, sizeof err->msg);
    } else {
        ok = false;
    }
    for (int f = 0; rf && f < npaths; f++)
        if (rf[f]) {
            RunError re;
            runfile_close(&rf[f], &re);
        }
    if (ok && opt->dedup)
        ok = comm_agree(comm, dedup_sets(L), err->msg, sizeof err->msg);
    if (ok) {
        if (sink->finish)
            sink->finish(sink->ctx, &L->st);
        L->st.files = (uint64_t)npaths;
        L->st.train = L->kept[0] - (L->st.duplicates - L->st.valid_duplicates);
        L->st.valid = L->kept[1] - L->st.valid_duplicates;
        *stats = L->st;
        uint64_t files = stats->files;
        ok = comm_sum_u64(comm, (uint64_t *)stats, LOAD_STATS_NB);
        stats->files = files;
        if (!ok)
            ERROR_SET(err, "MPI: a collective failed");
    }
    if (L) {
        keys_free(&L->keys[0]);
        keys_free(&L->keys[1]);
    }
    free(L);
    free(pos);
    qresolve_free(&qr);
    free(rows);
    free(rf);
    free(offset);
    return ok;
}

bool load_runfiles(Comm *comm, const char *const *paths, int npaths, const LoadOptions *opt,
                   Dataset *train, Dataset *valid, LoadStats *stats, LoadError *err)
{
    TraceSink ts = {{train, valid}, opt->params, malloc(sizeof(TracedPos)), {0}, 0, 0};
    ts.check_quota = (opt->check + (uint64_t)comm->size - 1) / (uint64_t)comm->size;
    LoadSink sink = {&ts, trace_add, trace_filter, trace_finish};
    bool ok = comm_all_ok(comm, ts.tp != NULL);
    if (!ok)
        ERROR_SET(err, "out of memory");
    else
        ok = load_runfiles_into(comm, paths, npaths, opt, &sink, stats, err);
    free(ts.tp);
    return ok;
}
