/* Layer query: sorting, distinct and limit over a lar_results, and its aggregates.
 *
 *   value_sort_order.c  realm-core's order of values: the one rule sort, distinct, min and max use
 *   keypath.c      key paths for them: text -> checked steps, and one object's value
 *   decimal128.c   decimal128 comparison and sums (decimal128.h)
 *   radix_sort.c   the fast path of a one-key sort
 *   order.c        sort, distinct, limit and the SORT/DISTINCT/LIMIT suffixes
 *   aggregate.c    count, min, max, sum, average */
#ifndef LARDER_ORDER_H
#define LARDER_ORDER_H

#include "query/results.h"

/* -1, 0 or 1 as a sorts before, with or after b in Realm's order: null first; then bools,
 * numbers (int, float, double, decimal128, by value, NaN before every other number),
 * strings (by code point), binaries, timestamps, ObjectIds, UUIDs, links, nested lists
 * and dictionaries. 0 means equal for distinct. */
int value_sort_order(const lar_value *a, const lar_value *b);

/* A key path checked for sorting, distinct or aggregates: only properties, through
 * to-one links and embedded objects, ending at a scalar. */
#define KEY_PATH_MAX 32
typedef struct key_path {
    size_t count;
    lar_class root;        /* the first step's class */
    const schema_class *classes[KEY_PATH_MAX];
    uint32_t props[KEY_PATH_MAX];
    lar_type type;         /* the last property's */
} key_path;

/* verb: what the key path serves, for messages ("sort on", "distinct on").
 * Checks a resolved key path expression e (from a query's suffix or a parsed text). */
int key_path_from_expr(lar_txn *txn, const expr *e, const char *verb, key_path *out);
/* Parses and resolves text on class cls of env, then checks it. */
int key_path_parse(lar_txn *txn, lar_env *env, lar_class cls, const char *text, const char *verb, key_path *out);
/* What a key path reads when a link on its way is null: not a null value, as realm-core
 * sorts it apart (after every value ascending, before them descending), and distinct drops
 * its object. Never passed to value_sort_order(); aggregates skip it as null. */
#define VALUE_NULL_LINK ((lar_type)0x7F)

/* The value path reads from object key of the path's first class, or VALUE_NULL_LINK.
 * Strings and binaries point into the transaction's memory. */
int key_path_read(lar_txn *txn, const key_path *path, lar_objkey key, lar_value *out);
/* The same from the object's row, already read (row: of the path's first class). */
int key_path_read_row(lar_txn *txn, const key_path *path, const kv_val *row, lar_value *out);
/* The same for n objects: out[i * stride] receives the value of keys[i]. Rows are read in
 * key order, whatever the order of keys. */
int key_path_read_many(lar_txn *txn, const key_path *path, const lar_objkey *keys, size_t n, lar_value *out,
                       size_t stride);

/* The same from n rows of the path's first class, already read (in a read transaction). */
int key_path_read_rows(lar_txn *txn, const key_path *path, const kv_val *rows, size_t n, lar_value *out,
                       size_t stride);

/* Sorts count positions of a run stably by their values (the general comparison). */
typedef void (*radix_refine)(void *context, size_t *run, size_t count);
/* Sorts positions 0..n-1 of values (one key per object) stably in Realm's order, into
 * positions (of n): *sorted is positions then, or NULL when the values are not of one kind
 * the radix sort keys (mixed numbers, decimal128s...) and need the general sort. Runs of
 * equal keys that need comparing (strings sharing 12 bytes) go to refine. spare: NULL, or
 * values itself when the caller reads them no more: when their keys decide the order, the
 * sort works in their memory instead of fresh pages (the values are then overwritten). */
int radix_sort(const lar_value *values, size_t n, bool descending, lar_value *spare, size_t *positions,
               size_t **sorted, radix_refine refine, void *context);

/* Positions 0..n-1 sorted stably by keys[position], into positions or scratch (both of n):
 * returns which. */
size_t *radix_sort_u64(const uint64_t *keys, size_t n, size_t *positions, size_t *scratch);

/* -1, 0 or 1 as the keys x sort before, with or after the keys y (width of each, read
 * by key paths; descending: width flags, or NULL for all ascending), null links apart. */
int order_compare(const lar_value *x, const lar_value *y, const bool *descending, size_t width);

/* LAR_OK when r can be read in txn (active, of r's environment); function names the caller. */
int results_check(lar_txn *txn, const lar_results *r, const char *function);

/* Applies one SORT, DISTINCT or LIMIT suffix of a resolved query to r. */
int results_apply_order(lar_txn *txn, lar_results *r, const order *o);

#endif
