/* A query run on objects the caller names (a list's, a set's, the objects linking to
 * one), in their order: each named object's row is read by its key and checked with the
 * compiled plan, so the cost follows the number of keys, not the size of the class. */
#include "query/results.h"
#include "query/order.h"

#include <stdlib.h>
#include <string.h>

/* Whether the object key of cls matches p (1, 0, or an error). A key with no object does
 * not match. In a write, a plan that reads other rows checks a copy of the row: reading
 * them may move the pages the row is on. */
static int key_matches(lar_txn *txn, const schema_class *cls, plan *p, bool copying, byte_buffer *copy,
                       lar_objkey key)
{
    kv_val k = {sizeof key, &key}, row;
    int rc = kv_get(txn, cls->dbi, &k, &row);
    if (rc == KV_NOTFOUND) return 0;
    if (rc) return lar_fail_mdb(rc, "cannot run a query");
    if (copying) {
        copy->size = 0;
        if (buffer_append(copy, row.mv_data, row.mv_size)) return lar_fail(LAR_ENOMEM, "out of memory running a query");
        row.mv_data = copy->data;
    }
    if (!plan_matches_all(p)) return plan_match(p, key, &row);
    return row_shape_ok(cls, &row) ? 1 : row_check_shape(cls, &row);
}

/* The keys of those of keys[0..count) that match p, in their order, into *kept. */
static int keep_matching(lar_txn *txn, const schema_class *cls, plan *p, const lar_objkey *keys, size_t count,
                         lar_objkey *kept, size_t *kept_count)
{
    byte_buffer copy = {0};
    bool copying = txn->write && plan_reads_other_rows(p);
    int err = LAR_OK;
    *kept_count = 0;
    for (size_t i = 0; i < count; i++) {
        int match = key_matches(txn, cls, p, copying, &copy, keys[i]);
        if (match < 0) {
            err = match;
            break;
        }
        if (match) kept[(*kept_count)++] = keys[i];
    }
    buffer_free(&copy);
    return err;
}

int lar_query_run_keys(lar_txn *txn, lar_query *query, const lar_objkey *keys, size_t count, lar_results **out)
{
    if (out) *out = NULL;
    if (!query || !out || (!keys && count)) return lar_fail(LAR_EINVAL, "lar_query_run_keys: NULL argument");
    const schema_class *cls;
    int err = query_check_runnable(txn, query, &cls);
    if (err) return err;
    if (count > SIZE_MAX / sizeof *keys) return lar_fail(LAR_EINVAL, "lar_query_run_keys: %zu keys are too many", count);
    plan *p;
    if ((err = plan_compile(txn, query, &p))) return err;
    lar_objkey *kept = malloc((count ? count : 1) * sizeof *kept);
    size_t kept_count = 0;
    err = kept ? keep_matching(txn, cls, p, keys, count, kept, &kept_count)
               : lar_fail(LAR_ENOMEM, "out of memory running a query on %zu objects", count);
    plan_free(p);
    lar_results *r = NULL;
    if (!err) err = lar_results_from_keys(txn, query->cls, kept, kept_count, &r);
    free(kept);
    for (size_t i = 0; !err && i < query->order_count; i++) /* SORT, DISTINCT, LIMIT, in their order */
        err = results_apply_order(txn, r, &query->orders[i]);
    if (err) {
        lar_results_free(r);
        return err;
    }
    *out = r;
    return LAR_OK;
}
