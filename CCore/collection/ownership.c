/* Ownership of embedded objects: the links that may name one, and the deletion of those
 * that lost their owner. The layout and the rules are described in object/embedded.c.
 *
 * When a link into an object of an embedded class goes away (a to-one link overwritten or
 * nulled, a list element or map value removed, replaced or cleared, the owner deleted),
 * the backlink layer notes the object in txn->orphans. At the end of the public call that
 * removed the link, embedded_sweep() deletes every noted object that no link names any
 * more (a list move, which takes an element out and puts it back, leaves it linked):
 * its row, the backlinks of its own links and its collections. Its own embedded objects
 * lose their owner in turn and are noted, so the sweep runs until none is left: the
 * recursion through embedded descendants is a worklist, whatever its depth. */
#include "collection/collection.h"

#include <string.h>

int embedded_check_link(lar_txn *txn, const schema_class *target, lar_obj link, embedded_use use)
{
    if (!(target->flags & LAR_CLASS_EMBEDDED)) return LAR_OK;
    if (use == EMBEDDED_IN_MIXED)
        return lar_fail(LAR_EINVAL, "an embedded object (class '%s') cannot be stored in a mixed value",
                        target->name);
    if (txn->placing.key == link.key && txn->placing.cls == link.cls && link.key) return LAR_OK;
    switch (use) {
    case EMBEDDED_IN_LIST:
        return lar_fail(LAR_EINVAL, "Cannot add an existing managed embedded object to a List.");
    case EMBEDDED_IN_MAP:
        return lar_fail(LAR_EINVAL, "Cannot add an existing managed embedded object to a Dictionary.");
    default:
        return lar_fail(LAR_EINVAL, "Can't set link to existing managed embedded object");
    }
}

typedef struct owner_search {
    bool owned;
} owner_search;

static int found_owner(const backlink *link, void *context)
{
    (void)link;
    ((owner_search *)context)->owned = true;
    return BACKLINK_STOP;
}

/* Deletes one embedded object that no link names: its own links, collections and row. */
static int delete_orphan(lar_txn *txn, const schema_class *cls, lar_obj obj, const kv_val *stored)
{
    byte_buffer copy = {0}; /* writes below may move the row */
    int err = buffer_append(&copy, stored->mv_data, stored->mv_size);
    if (err) return lar_fail(LAR_ENOMEM, "out of memory deleting an embedded object");
    kv_val row = {copy.size, copy.data};
    for (uint32_t i = 0; !err && cls->has_links && i < cls->property_count; i++) {
        const lar_property_def *def = &cls->properties[i].def;
        if (def->collection || !property_may_link(def)) continue;
        lar_value value;
        err = row_decode_raw(cls, &row, i, &value);
        if (!err && value.type == LAR_TYPE_LINK) err = backlink_remove_all(txn, value.as.link, obj, i);
    }
    if (!err && cls->has_collections) err = collections_free(txn, cls, obj, &row);
    if (!err) {
        kv_val k = {sizeof obj.key, &obj.key};
        err = txn_del(txn, cls->dbi, &k, NULL);
        if (!err) err = changes_delete(txn, obj);
        if (err == LAR_ENOTFOUND) err = LAR_OK;
    }
    if (txn->cache_obj.key == obj.key && txn->cache_obj.cls == obj.cls) txn->cache_obj.key = 0;
    buffer_free(&copy);
    return err;
}

int embedded_sweep(lar_txn *txn)
{
    int err = LAR_OK;
    while (!err && txn->orphans.size >= sizeof(lar_obj)) {
        lar_obj obj;
        txn->orphans.size -= sizeof obj;
        memcpy(&obj, txn->orphans.data + txn->orphans.size, sizeof obj);
        const schema_class *cls = schema_class_at(txn->schema, obj.cls);
        if (!cls) continue;
        kv_val key = {sizeof obj.key, &obj.key}, row;
        int rc = kv_get(txn, cls->dbi, &key, &row);
        if (rc == KV_NOTFOUND) continue; /* deleted already (the object deleted directly, or noted twice) */
        if (rc) {
            err = lar_fail_mdb(rc, "cannot read an embedded object");
            break;
        }
        uint8_t prefix[32];
        size_t size = backlink_prefix(obj, 0, 0, false, prefix);
        owner_search search = {false};
        err = backlink_walk(txn, prefix, size, 0, found_owner, &search);
        if (err || search.owned) continue;
        /* backlink_walk may have written gathered backlinks: read the row again. */
        rc = kv_get(txn, cls->dbi, &key, &row);
        if (rc) {
            err = lar_fail_mdb(rc, "cannot read an embedded object");
            break;
        }
        err = delete_orphan(txn, cls, obj, &row);
    }
    txn->orphans.size = 0;
    return err;
}
