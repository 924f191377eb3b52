/* Sort, distinct and limit over a lar_results, as realm-core's descriptors: each object's
 * keys are read once (in key order), then the positions are sorted, stably (objects with
 * equal keys keep their order): radix-sorted for one key of a kind radix_sort.c keys,
 * else merge-sorted by compare_rows(); the keys are rearranged once. Distinct keeps the
 * first object, in the current order, of each combination of values (value_sort_order() == 0:
 * numbers by value, nulls alike). On failure the results are unchanged. */
#include "query/order.h"

#include <stdlib.h>
#include <string.h>

/* More key paths in one call than this are refused (Realm has no such limit; no use needs it). */
#define MAX_KEY_PATHS 256

typedef struct sorter {
    const lar_value *values;   /* count × width: each object's keys */
    size_t width;
    const bool *descending;    /* width, or NULL */
} sorter;

static int compare_rows(const sorter *s, size_t a, size_t b)
{
    return order_compare(s->values + a * s->width, s->values + b * s->width, s->descending, s->width);
}

int order_compare(const lar_value *x, const lar_value *y, const bool *descending_by, size_t width)
{
    for (size_t d = 0; d < width; d++) {
        bool descending = descending_by && descending_by[d];
        bool x_link = x[d].type == VALUE_NULL_LINK, y_link = y[d].type == VALUE_NULL_LINK;
        if (x_link || y_link) { /* realm-core: null links after every value ascending, before descending */
            if (x_link && y_link) continue;
            return (x_link ? 1 : -1) * (descending ? -1 : 1);
        }
        int c = value_sort_order(&x[d], &y[d]);
        if (c) return descending ? -c : c;
    }
    return 0;
}

static bool has_null_link(const sorter *s, size_t row)
{
    for (size_t d = 0; d < s->width; d++)
        if (s->values[row * s->width + d].type == VALUE_NULL_LINK) return true;
    return false;
}

static void merge(const sorter *s, const size_t *from, size_t *to, size_t start, size_t middle, size_t end)
{
    size_t i = start, j = middle, k = start;
    while (i < middle && j < end) to[k++] = compare_rows(s, from[j], from[i]) < 0 ? from[j++] : from[i++];
    while (i < middle) to[k++] = from[i++];
    while (j < end) to[k++] = from[j++];
}

/* Stable: sorts index[0..n) by the rows they name; scratch has room for n. Returns the sorted array. */
static size_t *merge_sort(const sorter *s, size_t *index, size_t *scratch, size_t n)
{
    size_t *from = index, *to = scratch;
    for (size_t run = 1; run < n; run *= 2) {
        for (size_t start = 0; start < n; start += 2 * run) {
            size_t middle = start + run < n ? start + run : n;
            size_t end = start + 2 * run < n ? start + 2 * run : n;
            merge(s, from, to, start, middle, end);
        }
        size_t *t = from;
        from = to;
        to = t;
    }
    return from;
}

int results_check(lar_txn *txn, const lar_results *r, const char *function)
{
    if (!r) return lar_fail(LAR_EINVAL, "%s: results is NULL", function);
    int rc = txn_check(txn, false);
    if (rc != LAR_OK) return rc;
    if (txn->env != r->env) return lar_fail(LAR_EINVAL, "%s: the transaction is of another environment", function);
    if (r->count && !r->keys && !r->blocks) return lar_fail(LAR_EINVAL, "%s: results with no keys", function);
    return LAR_OK;
}

/* Reads every object's keys: count × width values, freed by the caller. */
static int read_rows(lar_txn *txn, const lar_results *r, const key_path *paths, size_t width, lar_value **out)
{
    *out = NULL;
    if (r->count > SIZE_MAX / sizeof(lar_value) / width) return lar_fail(LAR_ENOMEM, "out of memory");
    lar_value *values = big_alloc(r->count * width * sizeof *values);
    if (!values) return lar_fail(LAR_ENOMEM, "out of memory");
    const kv_val *rows = results_rows(r, txn);
    for (size_t d = 0; d < width; d++) {
        int rc = rows ? key_path_read_rows(txn, &paths[d], rows, r->count, values + d, width)
                      : key_path_read_many(txn, &paths[d], r->keys, r->count, values + d, width);
        if (rc != LAR_OK) {
            big_free(values);
            return rc;
        }
    }
    *out = values;
    return LAR_OK;
}

/* The runs the radix sort hands back, merge-sorted with scratch room allocated at the
 * first (most sorts have none: fewer fresh pages to fault in). */
typedef struct refiner {
    const sorter *s;
    size_t n;
    size_t *scratch;
    int rc;
} refiner;

static void refine_run(void *context, size_t *run, size_t count)
{
    refiner *r = context;
    if (!r->scratch && r->rc == LAR_OK) {
        r->scratch = big_alloc(r->n * sizeof *r->scratch);
        if (!r->scratch) r->rc = lar_fail(LAR_ENOMEM, "out of memory");
    }
    if (!r->scratch) return;
    size_t *sorted = merge_sort(r->s, run, r->scratch, count);
    if (sorted != run) memcpy(run, sorted, count * sizeof *run);
}

/* The positions of r's objects sorted by their keys (stable): radix-sorted when one key
 * allows, else merge-sorted. *out is freed by the caller. spare: s's values when the caller
 * no longer needs them after the sort (the radix sort may use their memory), or NULL. */
static int sorted_positions(const sorter *s, size_t n, lar_value *spare, size_t **out)
{
    *out = NULL;
    size_t *index = big_alloc(n * sizeof *index), *scratch = NULL, *sorted = NULL;
    int rc = index ? LAR_OK : lar_fail(LAR_ENOMEM, "out of memory");
    if (rc == LAR_OK && s->width == 1) {
        refiner context = {s, n, NULL, LAR_OK};
        rc = radix_sort(s->values, n, s->descending && s->descending[0], spare, index, &sorted, refine_run, &context);
        if (rc == LAR_OK) rc = context.rc;
        big_free(context.scratch);
    }
    if (rc == LAR_OK && !sorted) {
        scratch = big_alloc(n * sizeof *scratch);
        if (!scratch) rc = lar_fail(LAR_ENOMEM, "out of memory");
        for (size_t i = 0; rc == LAR_OK && i < n; i++) index[i] = i;
        if (rc == LAR_OK) sorted = merge_sort(s, index, scratch, n);
    }
    if (sorted != index) big_free(index);
    if (sorted != scratch) big_free(scratch);
    if (rc == LAR_OK) *out = sorted;
    return rc;
}

/* Each object's keys read and its position sorted by them: what sort and distinct share. */
typedef struct ordering {
    sorter s;
    lar_value *values;
    size_t *sorted;            /* the positions in order */
} ordering;

/* values_after: whether the values are read after the sort (distinct compares them). */
static int ordering_open(lar_txn *txn, const lar_results *r, const key_path *paths, const bool *descending,
                         size_t width, bool values_after, ordering *o)
{
    *o = (ordering){.s = {NULL, width, descending}};
    int rc = read_rows(txn, r, paths, width, &o->values);
    o->s.values = o->values;
    return rc == LAR_OK ? sorted_positions(&o->s, r->count, values_after ? NULL : o->values, &o->sorted) : rc;
}

static void ordering_close(ordering *o)
{
    big_free(o->sorted);
    big_free(o->values);
}

/* Puts r's keys and rows in the order of sorted, through room (at least a key and a row
 * per object: the sort's values, no longer needed). */
static void rearrange(lar_results *r, const size_t *sorted, void *room)
{
    lar_objkey *keys = room;
    for (size_t i = 0; i < r->count; i++) keys[i] = r->keys[sorted[i]];
    memcpy(r->keys, keys, r->count * sizeof *keys);
    if (!r->rows) return;
    kv_val *rows = room;
    for (size_t i = 0; i < r->count; i++) rows[i] = r->rows[sorted[i]];
    memcpy(r->rows, rows, r->count * sizeof *rows);
}

static int sort_by(lar_txn *txn, lar_results *r, const key_path *paths, const bool *descending, size_t width)
{
    if (r->count < 2 || width == 0) return LAR_OK;
    int rc = results_flatten(r);
    if (rc != LAR_OK) return rc;
    ordering o;
    rc = ordering_open(txn, r, paths, descending, width, false, &o);
    _Static_assert(sizeof(lar_value) >= sizeof(lar_objkey) && sizeof(lar_value) >= sizeof(kv_val),
                   "the values' room holds the keys and the rows");
    if (rc == LAR_OK) rearrange(r, o.sorted, o.values);
    ordering_close(&o);
    return rc;
}

static int distinct_by(lar_txn *txn, lar_results *r, const key_path *paths, size_t width)
{
    if (r->count < 2 || width == 0) return LAR_OK;
    int rc = results_flatten(r);
    if (rc != LAR_OK) return rc;
    ordering o;
    rc = ordering_open(txn, r, paths, NULL, width, true, &o);
    bool *keep = rc == LAR_OK ? calloc(r->count, sizeof *keep) : NULL;
    if (rc == LAR_OK && !keep) rc = lar_fail(LAR_ENOMEM, "out of memory");
    if (rc == LAR_OK) {
        /* The sort is stable: each run of equal rows starts with its first object. An object
         * with a null link on the way to a key is dropped, as realm-core does. */
        for (size_t i = 0; i < r->count; i++)
            if ((i == 0 || compare_rows(&o.s, o.sorted[i - 1], o.sorted[i]) != 0) && !has_null_link(&o.s, o.sorted[i]))
                keep[o.sorted[i]] = true;
        size_t kept = 0;
        for (size_t i = 0; i < r->count; i++) {
            if (!keep[i]) continue;
            if (r->rows) r->rows[kept] = r->rows[i];
            r->keys[kept++] = r->keys[i];
        }
        r->count = kept;
    }
    free(keep);
    ordering_close(&o);
    return rc;
}

/* ---- the query suffixes ---- */

static int paths_from_order(lar_txn *txn, const order *o, key_path *paths, bool *descending)
{
    const char *verb = o->kind == ORDER_SORT ? "sort on" : "distinct on";
    for (size_t i = 0; i < o->count; i++) {
        int rc = key_path_from_expr(txn, o->items[i].path, verb, &paths[i]);
        if (rc != LAR_OK) return rc;
        descending[i] = !o->items[i].ascending;
    }
    return LAR_OK;
}

int results_apply_order(lar_txn *txn, lar_results *r, const order *o)
{
    int rc = results_check(txn, r, "results_apply_order");
    if (rc != LAR_OK) return rc;
    if (!o) return lar_fail(LAR_EINVAL, "results_apply_order: order is NULL");
    if (o->kind == ORDER_LIMIT) {
        if (o->limit < r->count) results_truncate(r, (size_t)o->limit);
        return LAR_OK;
    }
    if (o->count > MAX_KEY_PATHS) return lar_fail(LAR_EINVAL, "more than %d key paths", MAX_KEY_PATHS);
    key_path *paths = malloc((o->count ? o->count : 1) * sizeof *paths);
    bool *descending = malloc((o->count ? o->count : 1) * sizeof *descending);
    rc = paths && descending ? paths_from_order(txn, o, paths, descending) : lar_fail(LAR_ENOMEM, "out of memory");
    if (rc == LAR_OK)
        rc = o->kind == ORDER_SORT ? sort_by(txn, r, paths, descending, o->count) : distinct_by(txn, r, paths, o->count);
    free(paths);
    free(descending);
    return rc;
}

/* ---- the public functions ---- */

/* Parses count key paths; text(i) gives the i-th. */
typedef const char *(*path_text_fn)(const void *items, size_t i);

static int parse_paths(lar_txn *txn, const lar_results *r, const void *items, size_t count, path_text_fn text,
                       const char *verb, key_path **out)
{
    *out = NULL;
    if (count > MAX_KEY_PATHS) return lar_fail(LAR_EINVAL, "more than %d key paths", MAX_KEY_PATHS);
    if (!items && count) return lar_fail(LAR_EINVAL, "the key paths are NULL");
    key_path *paths = malloc((count ? count : 1) * sizeof *paths);
    if (!paths) return lar_fail(LAR_ENOMEM, "out of memory");
    for (size_t i = 0; i < count; i++) {
        int rc = key_path_parse(txn, r->env, r->cls, text(items, i), verb, &paths[i]);
        if (rc != LAR_OK) {
            free(paths);
            return rc;
        }
    }
    *out = paths;
    return LAR_OK;
}

static const char *descriptor_text(const void *items, size_t i)
{
    return ((const lar_sort_descriptor *)items)[i].keypath;
}

static const char *string_text(const void *items, size_t i)
{
    return ((const char *const *)items)[i];
}

int lar_results_sort(lar_txn *txn, lar_results *results, const lar_sort_descriptor *descriptors, size_t count)
{
    int rc = results_check(txn, results, "lar_results_sort");
    key_path *paths = NULL;
    if (rc == LAR_OK) rc = parse_paths(txn, results, descriptors, count, descriptor_text, "sort on", &paths);
    if (rc != LAR_OK) return rc;
    bool *descending = malloc((count ? count : 1) * sizeof *descending);
    if (!descending) rc = lar_fail(LAR_ENOMEM, "out of memory");
    for (size_t i = 0; i < count && descending; i++) descending[i] = !descriptors[i].ascending;
    if (rc == LAR_OK) rc = sort_by(txn, results, paths, descending, count);
    free(descending);
    free(paths);
    return rc;
}

int lar_results_distinct(lar_txn *txn, lar_results *results, const char *const *keypaths, size_t count)
{
    int rc = results_check(txn, results, "lar_results_distinct");
    key_path *paths = NULL;
    if (rc == LAR_OK) rc = parse_paths(txn, results, keypaths, count, string_text, "distinct on", &paths);
    if (rc == LAR_OK) rc = distinct_by(txn, results, paths, count);
    free(paths);
    return rc;
}

int lar_results_limit(lar_results *results, size_t limit)
{
    if (!results) return lar_fail(LAR_EINVAL, "lar_results_limit: results is NULL");
    if (limit < results->count) results_truncate(results, limit);
    return LAR_OK;
}
