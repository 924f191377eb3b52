/* Layer changeset, above query: the change sets of query results between two versions,
 * computed from the change log (changes/) and the query's plan and order (query/). */
#ifndef LARDER_CHANGESET_H
#define LARDER_CHANGESET_H

#include "changes/changes.h"
#include "object/object.h"
#include "query/order.h"

/* The order a result is in: its sort keys, then the object key (a query's result is in
 * key order before any sort, and sorts are stable). width 0: key order alone. */
typedef struct result_order {
    key_path *paths;
    bool *descending;
    size_t width;
    bool own_properties;      /* every path is one property of the class itself */
} result_order;

/* What one update works with. */
typedef struct update {
    lar_txn *old_txn;         /* at the result's version, or NULL */
    lar_txn *txn;             /* at the new version */
    lar_query *query;
    const lar_sort_descriptor *sort;
    size_t sort_count;
    lar_results *results;
    const schema_class *cls;
    result_order order;
    lar_class_changes changes; /* of the result's class */
} update;

/* Marks in kept the longest run of seq[0..n) that increases (the elements that keep
 * their relative order; the others moved). */
int increasing_subsequence(const size_t *seq, size_t n, bool *kept);
/* Whether key is in the sorted array keys[0..n). */
bool keys_contain(const lar_objkey *keys, size_t n, lar_objkey key);

/* Runs the query again at the new version and diffs the keys (results_diff.c). */
int update_by_diff(update *u, lar_changeset *cs);
/* Updates from the changed objects alone (results_update.c): for a query and order that
 * read only the class's own rows. */
int update_in_place(update *u, plan *p, lar_changeset *cs);

#endif
