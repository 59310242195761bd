/*
 * The inputs of a run as the run file keeps them: the root attribute "inputs", text that
 * its writer gives when the run begins (the coordinator: each input and a hash of it,
 * coordinator/coord_inputs.h) and reads back on a resume. A file from before the
 * attribute has none.
 */
#include <string.h>

#include "error.h"
#include "runcols.h"
#include "runfence.h"
#include "runhandle.h"

static const char INPUTS_ATTR[] = "inputs";

bool runfile_inputs_set(RunFile *rf, const char *text, RunError *err)
{
    if (!rf->writable || rf->broken)
        return ERROR_SET(err, "%s: not writable", rf->path);
    if (strlen(text) > RUNFILE_CONFIG_MAX)
        return ERROR_SET(err, "%s: inputs of %zu bytes exceed %d", rf->path, strlen(text),
                         RUNFILE_CONFIG_MAX);
    RunQuiet q = runcols_quiet_begin();
    bool untouched = true;
    bool ok = runfence_begin(rf->file, strlen(text), &untouched, rf->path, err);
    htri_t had = ok ? H5Aexists(rf->file, INPUTS_ATTR) : 0;
    if (ok && (had < 0 || (had > 0 && H5Adelete(rf->file, INPUTS_ATTR) < 0)))
        ok = runcols_hdf5_error(err, rf->path, "cannot replace the attribute %s", INPUTS_ATTR);
    ok = ok && runcols_attr_write_string(rf->file, INPUTS_ATTR, text, rf->path, err) &&
         runfence_end(rf->file, rf->path, err);
    runcols_quiet_end(q);
    if (!ok)
        rf->broken = !untouched;
    return ok;
}

bool runfile_inputs_get(RunFile *rf, char **text, RunError *err)
{
    *text = NULL;
    RunQuiet q = runcols_quiet_begin();
    htri_t has = H5Aexists(rf->file, INPUTS_ATTR);
    bool ok = has >= 0 ? true
                       : runcols_hdf5_error(err, rf->path, "cannot look for the attribute %s",
                                            INPUTS_ATTR);
    if (ok && has > 0)
        ok = runcols_attr_read_string(rf->file, INPUTS_ATTR, text, rf->path, err);
    runcols_quiet_end(q);
    return ok;
}
