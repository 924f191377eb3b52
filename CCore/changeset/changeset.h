/* Layer changeset, above query: the change sets of query results between two versions,
 * computed from the change log (changes/) and the query's plan and order (query/). */
#ifndef LARDER_CHANGESET_H
#define LARDER_CHANGESET_H

#include "changes/changes.h"
#include "collection/collection.h"
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

/* ---- sets' and maps' element changes, netted over the range (element_log.c) ---- */

/* What a set's or a map's elements did between the range's ends, each part in the
 * collection's order: removed (at the start, not at the end), inserted, and (maps)
 * kept: keys at both ends whose value was set or that were removed and put again. */
typedef struct element_net {
    logged_element *removed, *inserted, *kept;
    size_t removed_count, inserted_count, kept_count;
} element_net;
/* NOT_ITEMIZED: the log marks the property changed without listing every change (a
 * clear, a change inside a nested collection, an entry written before sets and maps
 * had element changes). */
#define NOT_ITEMIZED 1
/* Nets the element changes of obj's set (map false) or map property prop: LAR_OK,
 * NOT_ITEMIZED, or an error. Free *out with element_net_free whatever the result. */
int element_net_of(const lar_changes *changes, lar_obj obj, uint32_t prop, bool map, element_net *out);
void element_net_free(element_net *net);

/* A map's changes (collections.c): keys copied as they are kept, then sealed. */
struct lar_map_changes {
    lar_string *parts[3];     /* deletions, insertions, modifications: keys copied into text */
    size_t counts[3], capacities[3];
    byte_buffer text;
};
int map_changes_keep(lar_map_changes *mc, int part, const lar_string *key);
/* Turns the keys' offsets into pointers once the text is complete. */
void map_changes_seal(lar_map_changes *mc);

#endif
