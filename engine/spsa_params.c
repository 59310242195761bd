#include "spsa_params.h"

#include <stdio.h>
#include <strings.h>

const SpsaParamInfo SPSA_PARAM_INFO[SPSA_PARAM_NB] = {
#define X(name, def, lo, hi, c_end, r_end) \
    {#name, def, lo, hi, c_end, r_end, offsetof(SearchParams, name)},
    SPSA_PARAMS(X)
#undef X
};

const SearchParams SPSA_PARAMS_DEFAULT = {
#define X(name, def, lo, hi, c_end, r_end) .name = def,
    SPSA_PARAMS(X)
#undef X
};

/* Every default inside its own range: checked where the table is compiled. */
#define X(name, def, lo, hi, c_end, r_end) \
    _Static_assert((lo) <= (def) && (def) <= (hi), #name ": default outside min..max");
SPSA_PARAMS(X)
#undef X

int spsa_params_find(const char *name)
{
    for (int i = 0; i < SPSA_PARAM_NB; i++)
        if (!strcasecmp(SPSA_PARAM_INFO[i].name, name))
            return i;
    return -1;
}

static int *field(SearchParams *p, int i)
{
    return (int *)((char *)p + SPSA_PARAM_INFO[i].offset);
}

int spsa_params_get(const SearchParams *p, int i)
{
    return *(const int *)((const char *)p + SPSA_PARAM_INFO[i].offset);
}

bool spsa_params_set(SearchParams *p, int i, long long v)
{
    if (v < SPSA_PARAM_INFO[i].min || v > SPSA_PARAM_INFO[i].max)
        return false;
    *field(p, i) = (int)v;
    return true;
}

void spsa_params_line(const SearchParams *p, int i, char *buf, size_t size)
{
    const SpsaParamInfo *in = &SPSA_PARAM_INFO[i];
    snprintf(buf, size, "%s, int, %d, %d, %d, %g, %g", in->name, spsa_params_get(p, i), in->min,
             in->max, in->c_end, in->r_end);
}
