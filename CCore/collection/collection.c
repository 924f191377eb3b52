/* What lists, sets and maps share: finding a collection through its owner's row,
 * checking elements, and dispatching frees and deletes to each kind. */
#include "collection/collection.h"

#include <stdlib.h>
#include <string.h>

/* Reads obj's row, through the transaction's cache of the last row read (consecutive
 * calls on one collection read its owner once). */
static int read_row(lar_txn *txn, const schema_class *cls, lar_obj obj, kv_val *row)
{
    if (obj.key && txn->cache_obj.key == obj.key && txn->cache_obj.cls == obj.cls) {
        *row = txn->cache_row;
        return row_check_shape(cls, row);
    }
    int rc = kv_row_get(txn, cls->dbi, obj.key, row);
    if (rc == KV_NOTFOUND)
        return lar_fail(LAR_EDELETED, "object %llu of class '%s' does not exist or was deleted",
                        (unsigned long long)obj.key, cls->name);
    if (rc) return lar_fail_mdb(rc, "cannot read an object");
    int err = row_check_shape(cls, row);
    if (!err) {
        txn->cache_obj = obj;
        txn->cache_row = *row;
    }
    return err;
}

int collection_read_mixed(lar_txn *txn, const schema_class *cls, lar_obj obj, uint32_t prop, lar_value *out)
{
    kv_val row;
    int err = read_row(txn, cls, obj, &row);
    return err ? err : row_decode_raw(cls, &row, prop, out);
}

uint64_t collection_slot(const schema_property *prop, const kv_val *row)
{
    uint64_t id;
    memcpy(&id, (const uint8_t *)row->mv_data + prop->slot_offset, sizeof id);
    return id;
}

static const char *kind_name(lar_collection kind)
{
    return kind == LAR_COLLECTION_LIST ? "list" : kind == LAR_COLLECTION_SET ? "set" : "map";
}

int collection_open(lar_txn *txn, bool write, lar_obj obj, uint32_t prop, lar_collection kind,
                    collection_ref *out)
{
    int err = txn_check(txn, write);
    if (err) return err;
    out->cls = schema_class_at(txn->schema, obj.cls);
    if (!out->cls) return lar_fail(LAR_EINVAL, "unknown class %u", obj.cls);
    if (prop >= out->cls->property_count)
        return lar_fail(LAR_EINVAL, "class '%s' has no property %u (it has %u)", out->cls->name, prop,
                        out->cls->property_count);
    out->prop = &out->cls->properties[prop];
    if (out->prop->def.collection != kind)
        return lar_fail(LAR_EINVAL, "property '%s.%s' is not a %s", out->cls->name, out->prop->def.name,
                        kind_name(kind));
    out->obj = obj;
    out->prop_index = prop;
    out->nested = 0;
    out->depth = 0;
    out->kind = kind;
    kv_val row;
    err = read_row(txn, out->cls, obj, &row);
    if (!err) out->root = collection_slot(out->prop, &row);
    return err;
}

int collection_write_root(lar_txn *txn, const collection_ref *ref, uint64_t root)
{
    if (root == ref->root) return LAR_OK;
    if (ref->nested) return nested_write_root(txn, ref, root);
    kv_val row;
    int err = read_row(txn, ref->cls, ref->obj, &row);
    txn->row.size = 0;
    if (!err) err = buffer_append(&txn->row, row.mv_data, row.mv_size);
    if (err) return err;
    memcpy(txn->row.data + ref->prop->slot_offset, &root, sizeof root);
    kv_val key = {sizeof ref->obj.key, (void *)&ref->obj.key}, data = {txn->row.size, txn->row.data};
    return txn_put(txn, ref->cls->dbi, &key, &data, 0);
}

int collection_check_element(lar_txn *txn, const collection_ref *ref, const lar_value *value, lar_value *out)
{
    if (!value) return lar_fail(LAR_EINVAL, "the value is NULL");
    int err = value_check_element(ref->cls, ref->prop_index, value);
    if (err) return err;
    *out = value_normalize(&ref->prop->def, value);
    if (value->type != LAR_TYPE_LINK) return LAR_OK;
    embedded_use use = ref->prop->def.type == LAR_TYPE_MIXED ? EMBEDDED_IN_MIXED
                     : ref->prop->def.collection == LAR_COLLECTION_MAP ? EMBEDDED_IN_MAP : EMBEDDED_IN_LIST;
    return link_check_target(txn, ref->cls, &ref->prop->def, kind_name(ref->prop->def.collection), true, use,
                             value->as.link);
}

int link_check_target(lar_txn *txn, const schema_class *cls, const lar_property_def *def, const char *holder,
                      bool holds, embedded_use use, lar_obj link)
{
    const schema_class *target = schema_class_at(txn->schema, link.cls); /* checked, unless mixed */
    if (!target)
        return lar_fail(LAR_EINVAL, "%s '%s.%s' cannot %s an object of class %u: the schema has no such class",
                        holder, cls->name, def->name, holds ? "hold a link to" : "link to", link.cls);
    if (target->flags & LAR_CLASS_EMBEDDED) {
        int err = embedded_check_link(txn, target, link, use);
        if (err) return err;
    }
    if (txn_created_here(txn, link.cls, target->dbi, link.key)) return LAR_OK;
    kv_val key = {sizeof link.key, (void *)&link.key}, row;
    int rc = kv_get(txn, target->dbi, &key, &row);
    if (rc == KV_NOTFOUND)
        return lar_fail(LAR_EINVAL, "%s '%s.%s' cannot %s object %llu of class '%s': it does not exist or was "
                        "deleted", holder, cls->name, def->name, holds ? "hold" : "link to",
                        (unsigned long long)link.key, target->name);
    return rc ? lar_fail_mdb(rc, "cannot read a link's target") : LAR_OK;
}

int collection_keep(lar_txn *txn, lar_value *value)
{
    if (!txn->write) return LAR_OK;
    if (value->type == LAR_TYPE_STRING) {
        value->as.string.data = txn_keep(txn, value->as.string.data, value->as.string.size + 1);
        return value->as.string.data ? LAR_OK : LAR_ENOMEM;
    }
    if (value->type == LAR_TYPE_BINARY && value->as.binary.size) {
        value->as.binary.data = txn_keep(txn, value->as.binary.data, value->as.binary.size);
        return value->as.binary.data ? LAR_OK : LAR_ENOMEM;
    }
    return LAR_OK;
}

int collection_new_id(lar_txn *txn, uint64_t *out)
{
    sequence_state *state = txn_sequence(txn, SEQUENCE_COLLECTION_NODES, txn->schema->collection_dbi);
    if (!state) return LAR_ENOMEM;
    *out = state->next++;
    state->dirty = true;
    return LAR_OK;
}

/* ---- the keyed table ---- */

void keyed_prefix(uint8_t *out, uint64_t id)
{
    for (int i = ID_SIZE - 1; i >= 0; i--, id >>= 8) out[i] = (uint8_t)id;
}

/* The counts of the sets and maps a write changed last (COUNT_SLOTS of them) stay in
 * memory until it needs the slot for another or commits: consecutive inserts into a
 * few sets or maps store each count once. */
#define COUNT_SLOTS 8

typedef struct count_cache {
    uint64_t id[COUNT_SLOTS];   /* 0: free */
    uint64_t count[COUNT_SLOTS];
    uint32_t next;              /* the slot given up next when all are taken */
} count_cache;

#define COUNTS(txn) ((txn)->caches[TXN_CACHE_KEYED_COUNT])

static int count_write(lar_txn *txn, uint64_t id, uint64_t count)
{
    uint8_t prefix[ID_SIZE];
    keyed_prefix(prefix, id);
    kv_val key = {sizeof prefix, prefix}, data = {sizeof count, &count};
    if (count) return txn_put(txn, txn->schema->keyed_dbi, &key, &data, 0);
    int err = txn_del(txn, txn->schema->keyed_dbi, &key, NULL);
    return err == LAR_ENOTFOUND ? LAR_OK : err;
}

/* Stores slot i's count and frees the slot. */
static int count_write_slot(lar_txn *txn, count_cache *cache, uint32_t i)
{
    uint64_t id = cache->id[i];
    cache->id[i] = 0;
    int err = id ? count_write(txn, id, cache->count[i]) : LAR_OK;
    if (err) txn_poison(txn);
    return err;
}

static int count_flush(lar_txn *txn)
{
    count_cache *cache = COUNTS(txn).data;
    int err = LAR_OK;
    for (uint32_t i = 0; !err && i < COUNT_SLOTS; i++) err = count_write_slot(txn, cache, i);
    return err;
}

static void count_drop(lar_txn *txn)
{
    memset(COUNTS(txn).data, 0, sizeof(count_cache));
}

static void count_destroy(lar_txn *txn)
{
    free(COUNTS(txn).data);
    COUNTS(txn).data = NULL;
    COUNTS(txn).ops = NULL;
}

static const txn_cache_ops count_ops = {count_flush, count_drop, count_destroy};

static count_cache *counts_of(lar_txn *txn)
{
    return txn->write && COUNTS(txn).ops == &count_ops ? COUNTS(txn).data : NULL;
}

static int count_slot(const count_cache *cache, uint64_t id)
{
    for (int i = 0; i < COUNT_SLOTS; i++)
        if (cache->id[i] == id) return i;
    return -1;
}

int keyed_count(lar_txn *txn, uint64_t id, uint64_t *out)
{
    count_cache *cache = counts_of(txn);
    int slot = id && cache ? count_slot(cache, id) : -1;
    if (slot >= 0) {
        *out = cache->count[slot];
        return LAR_OK;
    }
    uint8_t prefix[ID_SIZE];
    keyed_prefix(prefix, id);
    kv_val key = {sizeof prefix, prefix}, data;
    int rc = id ? kv_get(txn, txn->schema->keyed_dbi, &key, &data) : KV_NOTFOUND;
    *out = 0;
    if (rc == KV_NOTFOUND) return LAR_OK;
    if (rc) return lar_fail_mdb(rc, "cannot read a collection");
    if (data.mv_size != sizeof *out) return lar_fail(LAR_ECORRUPT, "a collection's count is undecodable");
    memcpy(out, data.mv_data, sizeof *out);
    return LAR_OK;
}

int keyed_count_store(lar_txn *txn, uint64_t id, uint64_t count)
{
    if (!COUNTS(txn).ops) {
        COUNTS(txn).data = calloc(1, sizeof(count_cache));
        if (!COUNTS(txn).data) return lar_fail(LAR_ENOMEM, "out of memory counting a collection");
        COUNTS(txn).ops = &count_ops;
    }
    count_cache *cache = counts_of(txn);
    if (!cache) return count_write(txn, id, count);
    int err = LAR_OK, slot = count_slot(cache, id);
    if (slot < 0) slot = count_slot(cache, 0);
    if (slot < 0) {
        slot = (int)(cache->next++ % COUNT_SLOTS);
        err = count_write_slot(txn, cache, (uint32_t)slot);
    }
    if (!err) err = txn_note_mutation(txn);
    if (err) return err;
    cache->id[slot] = id;
    cache->count[slot] = count;
    return LAR_OK;
}

int keyed_walk(lar_txn *txn, uint64_t id, const uint8_t *after, size_t after_size, const char *what,
               keyed_visitor visit, void *context)
{
    if (!id) return LAR_OK;
    uint8_t prefix[ID_SIZE];
    keyed_prefix(prefix, id);
    kv_cursor *cursor;
    int rc = kv_cursor_open(txn, txn->schema->keyed_dbi, &cursor);
    if (rc) return lar_fail_mdb(rc, what);
    kv_val key = after ? (kv_val){after_size, (void *)after} : (kv_val){sizeof prefix, prefix}, data;
    int err = LAR_OK;
    for (rc = kv_cursor_step(cursor, &key, &data, KV_SEEK); !rc && !err; rc = kv_cursor_step(cursor, &key, &data, KV_NEXT)) {
        if (key.mv_size < ID_SIZE || memcmp(key.mv_data, prefix, ID_SIZE)) break;
        if (key.mv_size == ID_SIZE) continue; /* the count */
        if (after && key.mv_size == after_size && !memcmp(key.mv_data, after, after_size)) continue;
        err = visit(&key, &data, context);
    }
    kv_cursor_close(cursor);
    if (err == 1) return LAR_OK;
    if (!err && rc && rc != KV_NOTFOUND) err = lar_fail_mdb(rc, what);
    return err;
}

/* ---- frees and deletes, by kind ---- */

static int free_one(lar_txn *txn, const schema_property *prop, lar_obj obj, uint32_t prop_index, uint64_t root)
{
    if (!root) return LAR_OK;
    switch (prop->def.collection) {
    case LAR_COLLECTION_LIST: return list_free(txn, prop, obj, prop_index, root);
    case LAR_COLLECTION_SET: return set_free(txn, prop, obj, prop_index, root);
    default: return map_free(txn, prop, obj, prop_index, root);
    }
}

int collections_free(lar_txn *txn, const schema_class *cls, lar_obj obj, const kv_val *row)
{
    int err = LAR_OK;
    for (uint32_t i = 0; !err && i < cls->property_count; i++) {
        if (cls->properties[i].def.collection) {
            err = free_one(txn, &cls->properties[i], obj, i, collection_slot(&cls->properties[i], row));
        } else if (cls->properties[i].def.type == LAR_TYPE_MIXED) { /* a nested collection it holds */
            lar_value value;
            err = row_decode_raw(cls, row, i, &value);
            if (!err) err = nested_release(txn, (nested_parent){obj, i, 0}, &value);
        }
    }
    return err;
}

int collection_clear(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    const schema_class *cls = schema_class_at(txn->schema, obj.cls);
    lar_collection kind = cls && prop < cls->property_count ? cls->properties[prop].def.collection
                                                            : LAR_COLLECTION_LIST;
    collection_ref ref;
    int err = collection_open(txn, true, obj, prop, kind, &ref);
    uint64_t count = 0;
    if (!err && ref.root && kind == LAR_COLLECTION_LIST) err = list_count(txn, &ref, &count);
    if (!err) err = free_one(txn, ref.prop, obj, prop, ref.root);
    if (!err) err = collection_write_root(txn, &ref, 0);
    if (!err && count) err = changes_list(txn, obj, prop, LIST_OP_REMOVE, 0, count);
    if (!err && ref.root && kind != LAR_COLLECTION_LIST && changes_logged(txn))
        err = changes_element(txn, obj, prop, COLL_OP_CLEAR, NULL, 0);
    return !err && ref.root ? changes_modify(txn, obj, prop) : err;
}

int collection_remove_target(lar_txn *txn, lar_obj target, const backlink *link)
{
    const schema_class *cls = schema_class_at(txn->schema, link->origin.cls);
    lar_collection kind = cls && link->prop < cls->property_count ? cls->properties[link->prop].def.collection
                                                                   : LAR_COLLECTION_NONE;
    collection_ref ref;
    int err = kind ? collection_open(txn, true, link->origin, link->prop, kind, &ref)
                   : lar_fail(LAR_ECORRUPT, "a backlink entry names a property that holds no collection");
    if (err == LAR_EDELETED) /* a stale entry: only damage leaves one */
        return backlink_remove_all(txn, target, link->origin, link->prop);
    if (!err && !property_may_link(&ref.prop->def))
        err = lar_fail(LAR_ECORRUPT, "a backlink entry names a collection that holds no links");
    if (!err && kind == LAR_COLLECTION_LIST) err = list_remove_target(txn, &ref, target);
    if (!err && kind == LAR_COLLECTION_SET) err = set_remove_target(txn, &ref, target);
    if (!err && kind == LAR_COLLECTION_MAP) err = map_remove_target(txn, &ref, target);
    if (!err) err = backlink_remove_all(txn, target, link->origin, link->prop);
    return err ? err : changes_modify(txn, link->origin, link->prop);
}
