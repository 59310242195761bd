/*
 * What the search and move-generation tests share: how much work to do, search limits
 * of one kind, and a search on a thread of its own.
 */
#ifndef CHUHE_TESTS_SEARCHTEST_H
#define CHUHE_TESTS_SEARCHTEST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "search.h"

/* Whether to shrink the work: CHUHE_TEST_QUICK set and not "0"; by default in debug and
 * sanitizer builds, where CHUHE_TEST_QUICK=0 asks for the full run. */
bool searchtest_quick(void);

/* Limits of a fixed depth, or a fixed node count, and nothing else. */
SearchLimits searchtest_depth(int depth);
SearchLimits searchtest_nodes(uint64_t nodes);

/* A search of e with limits, run by searchtest_job_run (a pthread start routine): the
 * result, and done once it is there. */
typedef struct {
    Engine *e;
    SearchLimits limits;
    SearchResult result;
    atomic_bool done;
} SearchJob;

void *searchtest_job_run(void *job);

#endif
