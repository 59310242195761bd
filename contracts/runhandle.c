#include "runhandle.h"

#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "rng.h"

RunFile *runhandle_new(const char *path, RunError *err)
{
    position_init();
    RunFile *rf = calloc(1, sizeof *rf);
    if (!rf || !(rf->path = strdup(path))) {
        free(rf);
        ERROR_SET(err, "%s: out of memory", path);
        return NULL;
    }
    rf->file = H5I_INVALID_HID;
    for (int t = 0; t < RUNCOLS_NB; t++)
        runcols_init(&rf->ds[t], (RunTableId)t);
    return rf;
}

bool runhandle_close_hdf5(RunFile *rf, RunError *err)
{
    bool ok = true;
    for (int t = RUNCOLS_NB - 1; t >= 0; t--)
        if (!runcols_close(&rf->ds[t], rf->path, err))
            ok = false;
    if (rf->file >= 0 && H5Fclose(rf->file) < 0 && ok)
        ok = runcols_hdf5_error(err, rf->path, "cannot close the file");
    rf->file = H5I_INVALID_HID;
    return ok;
}

void runhandle_free(RunFile *rf)
{
    if (!rf)
        return;
    runhandle_close_hdf5(rf, NULL);
    runlock_release(&rf->lock);
    free(rf->pbuf);
    free(rf->gbuf);
    free(rf->sbuf);
    free(rf->players);
    free(rf->slots);
    free(rf->games);
    free(rf->created);
    free(rf->engine_version);
    free(rf->config);
    free(rf->path);
    free(rf);
}

/* ------------------------------------------------------------------------------------
 * The game index: (pair_id, game_in_pair) -> game id, open addressing
 * ------------------------------------------------------------------------------------ */

static uint64_t slot_of(uint64_t pair_id, unsigned gip, uint64_t nslots)
{
    return rng_mix(pair_id * 2 + gip) & (nslots - 1);
}

bool runhandle_find(const RunFile *rf, uint64_t pair_id, unsigned gip, uint64_t *id)
{
    if (!rf->nslots)
        return false;
    for (uint64_t s = slot_of(pair_id, gip, rf->nslots);; s = (s + 1) & (rf->nslots - 1)) {
        uint64_t v = rf->slots[s];
        if (!v)
            return false;
        const RunGame *g = &rf->games[v - 1];
        if (g->pair_id == pair_id && g->game_in_pair == gip) {
            if (id)
                *id = v - 1;
            return true;
        }
    }
}

static void index_place(uint64_t *slots, uint64_t nslots, const RunGame *g)
{
    uint64_t s = slot_of(g->pair_id, g->game_in_pair, nslots);
    while (slots[s])
        s = (s + 1) & (nslots - 1);
    slots[s] = g->game_id + 1;
}

bool runhandle_add_game(RunFile *rf, const RunGame *g)
{
    if (!array_reserve((void **)&rf->games, &rf->games_cap, rf->ngames + 1, sizeof *rf->games,
                       RUNHANDLE_ARRAY_FIRST))
        return false;
    /* The slots double (from 1024) and every game is placed again. */
    if (2 * (rf->ngames + 1) > rf->nslots) {
        if (!array_reserve((void **)&rf->slots, &rf->nslots, 2 * (rf->ngames + 1),
                           sizeof *rf->slots, 1024))
            return false;
        memset(rf->slots, 0, rf->nslots * sizeof *rf->slots);
        for (uint64_t i = 0; i < rf->ngames; i++)
            index_place(rf->slots, rf->nslots, &rf->games[i]);
    }
    rf->games[rf->ngames] = *g;
    index_place(rf->slots, rf->nslots, g);
    rf->ngames++;
    if (g->pair_id >= rf->next_pair)
        rf->next_pair = g->pair_id + 1;
    return true;
}

void runhandle_keep_games(RunFile *rf, uint64_t n)
{
    if (n >= rf->ngames)
        return;
    /* open addressing has no simple removal: the index is built again */
    rf->ngames = n;
    rf->next_pair = 0;
    if (rf->nslots)
        memset(rf->slots, 0, rf->nslots * sizeof *rf->slots);
    for (uint64_t i = 0; i < n; i++) {
        index_place(rf->slots, rf->nslots, &rf->games[i]);
        if (rf->games[i].pair_id >= rf->next_pair)
            rf->next_pair = rf->games[i].pair_id + 1;
    }
}
