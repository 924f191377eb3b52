/* Recording a write's changes as it makes them, and storing them at its commit: one
 * entry of the log table keyed by the commit's version, after which the entries no
 * reader can still need are deleted, so the log stays as long as the oldest snapshot
 * in use is old. */
#include "changes/changes.h"

#include <stdlib.h>
#include <string.h>

static int flush(lar_txn *txn);
static void drop(lar_txn *txn);
static void destroy(lar_txn *txn);
static const txn_cache_ops record_ops = {flush, drop, destroy};

static change_notes *notes_of(lar_txn *txn)
{
    txn_cache *cache = &txn->caches[TXN_CACHE_CHANGES];
    if (!cache->ops) {
        cache->data = calloc(1, sizeof(change_notes));
        if (!cache->data) return NULL;
        cache->ops = &record_ops;
    }
    return cache->data;
}

static int settle(lar_txn *txn, int err)
{
    if (!err) return LAR_OK;
    txn_poison(txn);
    return lar_fail(LAR_ENOMEM, "out of memory recording changes");
}

/* The notes of class cls in txn's write (poisoning txn when out of memory); *out NULL
 * without a log to write them to. */
static int class_of(lar_txn *txn, lar_class cls, class_notes **out)
{
    *out = NULL;
    if (!txn->env->has_history) return LAR_OK;
    change_notes *all = notes_of(txn);
    if (all && cls < all->class_capacity && all->classes[cls]) {
        *out = all->classes[cls];
        return LAR_OK;
    }
    const schema_class *c = schema_class_at(txn->schema, cls);
    *out = all ? notes_class(all, cls, c ? c->property_count : 0) : NULL;
    return settle(txn, *out ? LAR_OK : LAR_ENOMEM);
}

int changes_insert(lar_txn *txn, lar_obj obj)
{
    /* The bulk insert's case, first: the key after the class's last run extends it. */
    change_notes *all = txn->caches[TXN_CACHE_CHANGES].data;
    class_notes *c = all && obj.cls < all->class_capacity ? all->classes[obj.cls] : NULL;
    if (c && !c->note_count && c->run_count && obj.key == c->runs[c->run_count - 1].hi) {
        c->runs[c->run_count - 1].hi++;
        return LAR_OK;
    }
    int err = class_of(txn, obj.cls, &c);
    return err || !c ? err : settle(txn, notes_insert(c, obj.key));
}

int changes_delete(lar_txn *txn, lar_obj obj)
{
    class_notes *c;
    int err = class_of(txn, obj.cls, &c);
    return err || !c ? err : settle(txn, notes_delete(c, obj.key));
}

int changes_modify(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    class_notes *c;
    int err = class_of(txn, obj.cls, &c);
    return err || !c ? err : settle(txn, notes_modify(c, obj.key, prop));
}

int changes_list(lar_txn *txn, lar_obj obj, uint32_t prop, list_op_kind kind, uint64_t index, uint64_t arg)
{
    class_notes *c;
    int err = class_of(txn, obj.cls, &c);
    list_op op = {index, arg, kind};
    return err || !c ? err : settle(txn, notes_list(c, obj.key, prop, &op));
}

int changes_element(lar_txn *txn, lar_obj obj, uint32_t prop, list_op_kind kind, const void *bytes, size_t size)
{
    class_notes *c;
    int err = class_of(txn, obj.cls, &c);
    return err || !c ? err : settle(txn, notes_element(c, obj.key, prop, kind, bytes, size));
}

/* Deletes the entries up to version limit (never the floor), and raises the floor to
 * the last one deleted: the log still holds every commit after it (a commit without
 * an entry changed nothing). */
static int trim(lar_txn *txn, kv_table table, uint64_t limit)
{
    kv_cursor *cursor;
    int rc = kv_cursor_open(txn, table, &cursor);
    if (rc) return lar_fail_mdb(rc, "cannot trim the change log");
    uint64_t first = HISTORY_FLOOR_KEY + 1, deleted = 0, version;
    kv_val key = {sizeof first, &first}, data;
    int err = LAR_OK;
    for (rc = kv_cursor_step(cursor, &key, &data, KV_SEEK); !rc; rc = kv_cursor_step(cursor, &key, &data, KV_NEXT)) {
        if (key.mv_size != sizeof version) {
            err = lar_fail(LAR_ECORRUPT, "a change log key is damaged");
            break;
        }
        memcpy(&version, key.mv_data, sizeof version);
        if (version > limit) break;
        if ((err = txn_cursor_del(txn, cursor))) break;
        deleted = version;
    }
    if (!err && rc && rc != KV_NOTFOUND) err = lar_fail_mdb(rc, "cannot trim the change log");
    kv_cursor_close(cursor);
    uint64_t floor_key = HISTORY_FLOOR_KEY;
    key = (kv_val){sizeof floor_key, &floor_key};
    data = (kv_val){sizeof deleted, &deleted};
    return err || !deleted ? err : txn_put(txn, table, &key, &data, 0);
}

static int flush(lar_txn *txn)
{
    change_notes *all = txn->caches[TXN_CACHE_CHANGES].data;
    lar_env *env = txn->env;
    if (!all->any) return LAR_OK;
    byte_buffer entry = {0};
    int err = entry_encode(all, &entry);
    uint64_t version = kv_txn_id(txn);
    kv_val key = {sizeof version, &version}, data = {entry.size, entry.data};
    if (!err && entry.size) err = txn_put(txn, env->history_dbi, &key, &data, 0);
    buffer_free(&entry);
    uint64_t oldest;
    bool any;
    if (!err) err = kv_oldest_reader(env, &oldest, &any);
    /* A reader at version v needs the entries after v; without readers, only this one. */
    if (!err) err = trim(txn, env->history_dbi, any && oldest < version ? oldest : version - 1);
    return err;
}

static void drop(lar_txn *txn)
{
    notes_clear(txn->caches[TXN_CACHE_CHANGES].data);
}

static void destroy(lar_txn *txn)
{
    change_notes *all = txn->caches[TXN_CACHE_CHANGES].data;
    notes_free(all);
    free(all);
}
