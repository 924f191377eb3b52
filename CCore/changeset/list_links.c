/* The change set of a list of objects, as Realm reports it: the list's own element
 * changes (from the log), plus, as modifications, the elements that stayed whose
 * objects were modified. The list is read at the new version for that. */
#include "changeset/changeset.h"

#include <stdlib.h>

#define BATCH 64

static bool object_modified(const lar_changes *changes, const lar_value *element)
{
    int state;
    size_t count;
    return element->type == LAR_TYPE_LINK &&
           !lar_changes_object(changes, element->as.link, &state, NULL, 0, &count) && state == LAR_OBJECT_MODIFIED;
}

/* Marks the survivors whose objects changed, reading the list at txn. */
static int mark_modified_objects(lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop, list_replay *r)
{
    size_t count;
    int err = lar_list_count(txn, obj, prop, &count);
    if (!err && count != r->count)
        err = lar_fail(LAR_EINVAL, "the list has %zu elements at the transaction's version, the changes make %zu: "
                       "the changes and the transaction do not end at one version", count, r->count);
    lar_value batch[BATCH];
    for (size_t start = 0; !err && start < count; start += BATCH) {
        size_t got;
        err = lar_list_get_batch(txn, obj, prop, start, batch, BATCH, &got);
        for (size_t i = 0; !err && i < got; i++) {
            uint64_t tag = r->tags[start + i];
            if (tag != LIST_INSERTED && object_modified(changes, &batch[i])) r->modified[tag] = true;
        }
    }
    return err;
}

int lar_list_changeset_objects(lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop, size_t old_count,
                               lar_changeset **out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_list_changeset_objects: out is NULL");
    *out = NULL;
    int err = txn_check(txn, false);
    if (err) return err;
    list_replay r;
    err = list_replay_run(changes, obj, prop, old_count, &r);
    if (!err) err = mark_modified_objects(txn, changes, obj, prop, &r);
    return list_replay_finish(&r, err, out);
}
