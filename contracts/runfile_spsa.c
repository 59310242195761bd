/*
 * The run file's SPSA tables (runfile.h gives their schema): /spsa_params, written once
 * when an SPSA run starts, and /spsa, one row per applied iteration, buffered and
 * written by runfile_flush with the games before it.
 *
 * An iteration row is only ever appended after both games of its pair, so on opening a
 * row whose pair is not stored in full (or that is no row at all: a part of the extent
 * an interrupted flush never wrote) starts the tail of that flush, which reading
 * ignores and appending drops, as for the games.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "runcols.h"
#include "runfence.h"
#include "runfile.h"
#include "textesc.h"
#include "runhandle.h"

enum { SPSA_READ_BLOCK = 256, SPSA_TAIL_MAX = 1 << 20 };

static bool is_spsa(const RunFile *rf)
{
    return rf->ds[RUNCOLS_SPSA].dset >= 0;
}

bool runfile_spsa_name_ok(const char *name)
{
    for (const char *c = name; *c; c++)
        if (*c < 0x20 || *c > 0x7e || *c == '=' || *c == ';' || *c == ',')
            return false;
    return name[0] != '\0' && strlen(name) < RUNFILE_NAME_SIZE;
}

static bool param_ok(const RunSpsaParam *p, int i)
{
    return p->param_id == i && runcols_terminated(p->name, sizeof p->name) &&
           runfile_spsa_name_ok(p->name) && runcols_terminated(p->type, sizeof p->type) &&
           (!strcmp(p->type, "int") || !strcmp(p->type, "float")) && p->min < p->max &&
           p->start >= p->min && p->start <= p->max && p->c_end > 0 && p->r_end > 0;
}

bool runfile_spsa_begin(RunFile *rf, const RunSpsaParam *params, int n, RunError *err)
{
    if (!rf->writable || rf->broken)
        return ERROR_SET(err, "%s: not writable", rf->path);
    if (is_spsa(rf))
        return ERROR_SET(err, "%s: already an SPSA run", rf->path);
    if (n < 1 || n > RUNFILE_SPSA_MAX)
        return ERROR_SET(err, "%s: %d SPSA parameters, not 1..%d", rf->path, n, RUNFILE_SPSA_MAX);
    for (int i = 0; i < n; i++) {
        rf->sparams[i] = params[i];
        rf->sparams[i].param_id = (uint16_t)i;
        if (!param_ok(&rf->sparams[i], i)) {
            char raw[RUNFILE_NAME_SIZE], name[RUNFILE_NAME_SIZE * 4];
            snprintf(raw, sizeof raw, "%.*s", RUNFILE_NAME_SIZE - 1, params[i].name);
            textesc_printable(name, sizeof name, raw);
            return ERROR_SET(err, "%s: SPSA parameter %d (%s) is malformed", rf->path, i, name);
        }
    }
    RunQuiet q = runcols_quiet_begin();
    bool untouched;
    bool ok =
        runfence_begin(rf->file, (uint64_t)n * sizeof *params, &untouched, rf->path, err) &&
        runcols_create(&rf->ds[RUNCOLS_SPSA_PARAMS], rf->file, rf->path, err) &&
        runcols_create(&rf->ds[RUNCOLS_SPSA], rf->file, rf->path, err) &&
        runcols_append(&rf->ds[RUNCOLS_SPSA_PARAMS], rf->sparams, (uint64_t)n, rf->path, err) &&
        runfence_end(rf->file, rf->path, err);
    runcols_quiet_end(q);
    if (!ok) {
        rf->broken = !untouched;
        return false;
    }
    rf->nsparams = n;
    return true;
}

int runfile_spsa_param_count(const RunFile *rf)
{
    return rf->nsparams;
}

const RunSpsaParam *runfile_spsa_param(const RunFile *rf, int i)
{
    return i >= 0 && i < rf->nsparams ? &rf->sparams[i] : NULL;
}

uint64_t runfile_spsa_count(const RunFile *rf)
{
    return rf->nspsa;
}

uint64_t runfile_spsa_flushed_count(const RunFile *rf)
{
    return rf->ds[RUNCOLS_SPSA].stored;
}

/* Whether row i is whole: its own pair id, a possible result, a perturbation of +-1 for
 * every parameter, and both games of its pair stored. */
static bool row_ok(const RunFile *rf, const RunSpsaRow *r, uint64_t i)
{
    if (r->pair_id != i || r->result < -2 || r->result > 2)
        return false;
    for (int k = 0; k < rf->nsparams; k++)
        if (r->delta[k] != 1 && r->delta[k] != -1)
            return false;
    return runhandle_find(rf, i, 0, NULL) && runhandle_find(rf, i, 1, NULL);
}

/* The rows before the first that is not whole. */
static bool count_rows(RunFile *rf, uint64_t n, uint64_t *valid, RunError *err)
{
    RunSpsaRow *buf = malloc(SPSA_READ_BLOCK * sizeof *buf);
    if (!buf)
        return ERROR_SET(err, "%s: out of memory", rf->path);
    bool ok = true;
    *valid = n;
    for (uint64_t start = 0; ok && start < *valid; start += SPSA_READ_BLOCK) {
        uint64_t cnt = n - start < SPSA_READ_BLOCK ? n - start : SPSA_READ_BLOCK;
        ok = runcols_read(&rf->ds[RUNCOLS_SPSA], start, cnt, buf, rf->path, err);
        for (uint64_t j = 0; ok && j < cnt; j++)
            if (!row_ok(rf, &buf[j], start + j)) {
                *valid = start + j;
                break;
            }
    }
    free(buf);
    return ok;
}

bool runfile_spsa_load(RunFile *rf, const uint64_t extent[RUNCOLS_NB], RunError *err)
{
    bool params = rf->ds[RUNCOLS_SPSA_PARAMS].dset >= 0;
    if (params != is_spsa(rf))
        return ERROR_SET(err, "%s: /spsa_params and /spsa go together; one is missing", rf->path);
    if (!params)
        return true;
    uint64_t n = extent[RUNCOLS_SPSA_PARAMS];
    if (n < 1 || n > RUNFILE_SPSA_MAX)
        return ERROR_SET(err, "%s: /spsa_params has %llu rows, not 1..%d", rf->path,
                         (unsigned long long)n, RUNFILE_SPSA_MAX);
    if (!runcols_read(&rf->ds[RUNCOLS_SPSA_PARAMS], 0, n, rf->sparams, rf->path, err))
        return false;
    for (int i = 0; i < (int)n; i++)
        if (!param_ok(&rf->sparams[i], i))
            return ERROR_SET(err, "%s: /spsa_params row %d is damaged", rf->path, i);
    rf->nsparams = (int)n;
    rf->ds[RUNCOLS_SPSA_PARAMS].stored = n;
    uint64_t rows;
    if (!count_rows(rf, extent[RUNCOLS_SPSA], &rows, err))
        return false;
    if (extent[RUNCOLS_SPSA] - rows > SPSA_TAIL_MAX)
        return ERROR_SET(err,
                         "%s: %llu /spsa rows past the stored ones: more than an interrupted "
                         "write leaves",
                         rf->path, (unsigned long long)(extent[RUNCOLS_SPSA] - rows));
    rf->ds[RUNCOLS_SPSA].stored = rf->nspsa = rows;
    return true;
}

bool runfile_spsa_append(RunFile *rf, const RunSpsaRow *row, RunError *err)
{
    if (!rf->writable || rf->broken)
        return ERROR_SET(err, "%s: not writable", rf->path);
    if (!is_spsa(rf))
        return ERROR_SET(err, "%s: not an SPSA run", rf->path);
    if (row->pair_id != rf->nspsa)
        return ERROR_SET(err, "%s: SPSA iteration of pair %llu, expected pair %llu", rf->path,
                         (unsigned long long)row->pair_id, (unsigned long long)rf->nspsa);
    if (!row_ok(rf, row, rf->nspsa))
        return ERROR_SET(err,
                         "%s: SPSA iteration of pair %llu: malformed, or its games are not "
                         "both stored",
                         rf->path, (unsigned long long)row->pair_id);
    if (!array_reserve((void **)&rf->sbuf, &rf->sbuf_cap, rf->nsbuf + 1, sizeof *rf->sbuf,
                       RUNHANDLE_ARRAY_FIRST))
        return ERROR_SET(err, "%s: out of memory", rf->path);
    rf->sbuf[rf->nsbuf++] = *row;
    rf->nspsa++;
    return true;
}

uint64_t runfile_spsa_pending_bytes(const RunFile *rf)
{
    return rf->nsbuf * sizeof(RunSpsaRow);
}

bool runfile_spsa_write(RunFile *rf, RunError *err)
{
    if (!runcols_append(&rf->ds[RUNCOLS_SPSA], rf->sbuf, rf->nsbuf, rf->path, err))
        return false;
    rf->nsbuf = 0;
    return true;
}

bool runfile_spsa_read(RunFile *rf, uint64_t start, uint64_t n, RunSpsaRow *out, RunError *err)
{
    if (start > rf->nspsa || n > rf->nspsa - start)
        return ERROR_SET(err, "%s: SPSA rows %llu..+%llu: only %llu exist", rf->path,
                         (unsigned long long)start, (unsigned long long)n,
                         (unsigned long long)rf->nspsa);
    /* zeroed first: HDF5 writes the members, not the padding between them, and callers
     * compare whole rows */
    memset(out, 0, (size_t)n * sizeof *out);
    uint64_t stored = rf->ds[RUNCOLS_SPSA].stored;
    uint64_t from_file = start < stored ? (stored - start < n ? stored - start : n) : 0;
    RunQuiet q = runcols_quiet_begin();
    bool ok = runcols_read(&rf->ds[RUNCOLS_SPSA], start, from_file, out, rf->path, err);
    runcols_quiet_end(q);
    if (ok && n > from_file)
        memcpy(out + from_file, rf->sbuf + (start + from_file - stored),
               (size_t)(n - from_file) * sizeof *out);
    return ok;
}
