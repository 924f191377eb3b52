/* A result made from object keys the caller already has (a list's objects, the
 * intersection of several queries' results), so that sort, distinct, limit and
 * aggregates run on them as on a query's result. */
#include "query/results.h"

#include <stdlib.h>
#include <string.h>

int lar_results_from_keys(lar_txn *txn, lar_class cls, const lar_objkey *keys, size_t count, lar_results **out)
{
    if (out) *out = NULL;
    if (!out || (!keys && count)) return lar_fail(LAR_EINVAL, "lar_results_from_keys: NULL argument");
    int err = txn_check(txn, false);
    if (err) return err;
    if (!schema_class_at(txn->schema, cls))
        return lar_fail(LAR_EINVAL, "lar_results_from_keys: class %u is not in this transaction's schema", cls);
    if (count > SIZE_MAX / sizeof *keys)
        return lar_fail(LAR_EINVAL, "lar_results_from_keys: %zu keys are too many", count);
    lar_results *r = calloc(1, sizeof *r);
    lar_objkey *copy = count ? big_alloc(count * sizeof *copy) : NULL;
    if (!r || (count && !copy)) {
        free(r);
        big_free(copy);
        return lar_fail(LAR_ENOMEM, "out of memory making a result of %zu keys", count);
    }
    if (count) memcpy(copy, keys, count * sizeof *copy);
    r->env = txn->env;
    r->cls = cls;
    r->keys = copy;
    r->count = r->capacity = count;
    record_version(txn, r);
    *out = r;
    return LAR_OK;
}
