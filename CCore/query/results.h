/* Layer query: a query's result, the keys of the objects it selected, in order. */
#ifndef LARDER_RESULTS_H
#define LARDER_RESULTS_H

#include "query/query.h"

struct lar_results {
    lar_env *env;
    lar_class cls;
    lar_objkey *keys;      /* malloc'd: count used of capacity, in result order */
    size_t count, capacity;
};

#endif
