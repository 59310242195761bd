#include "searchtest.h"

#include <stdlib.h>
#include <string.h>

#include "timeman.h"

bool searchtest_quick(void)
{
    const char *quick = getenv("CHUHE_TEST_QUICK");
#if defined(CHUHE_DEBUG) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return !(quick && !strcmp(quick, "0"));
#else
    return quick && *quick && strcmp(quick, "0");
#endif
}

SearchLimits searchtest_depth(int depth)
{
    SearchLimits l;
    time_limits_clear(&l);
    l.depth = depth;
    return l;
}

SearchLimits searchtest_nodes(uint64_t nodes)
{
    SearchLimits l;
    time_limits_clear(&l);
    l.nodes = nodes;
    return l;
}

void *searchtest_job_run(void *job)
{
    SearchJob *j = job;
    j->result = engine_search(j->e, &j->limits, NULL);
    atomic_store(&j->done, true);
    return NULL;
}
