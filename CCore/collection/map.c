/* Maps from string keys to values: one LMDB entry per key in the keyed table, so a
 * map of any size costs O(log n) per get, put or remove and is never rewritten whole:
 *
 *   entry: key [map id u64 BE][key, UTF-8][0]   value: the element (codec/element.c;
 *                                               a typed link in a map of mixed values)
 *   count: key [map id u64 BE]                  value: u64 count (sorts first)
 *
 * The trailing NUL keeps keys in bytewise order ("a" before "ab") and lets a key read
 * point into the table. The owner's row slot holds the map id, 0 while it is empty.
 * Keys follow Realm's rules: valid UTF-8, not starting with '$', without '.'; and fit
 * an LMDB key (LAR_MAP_KEY_MAX bytes). Deleting an object that is a map's value
 * leaves its key with null, as Realm does. A nested dictionary (inside a mixed value,
 * collection/nested.c) uses the same entries under its nested id, which it keeps while
 * empty; a value that is a nested collection is freed with its key. */
#include "collection/collection.h"

#include <string.h>

_Static_assert(LAR_MAP_KEY_MAX + 1 <= KEY_MAX - ID_SIZE, "a map's longest key fits an LMDB key");

typedef struct entry_key {
    uint8_t bytes[KEY_MAX];
    size_t size;
} entry_key;

static int corrupt(void)
{
    return lar_fail(LAR_ECORRUPT, "a map's storage is undecodable");
}

static int check_key(const collection_ref *map, const lar_string *key)
{
    const char *cls = map->cls->name, *prop = map->prop->def.name;
    if (!key) return lar_fail(LAR_EINVAL, "the key is NULL");
    if (!key->data && key->size) return lar_fail(LAR_EINVAL, "a key for map '%s.%s' has no data", cls, prop);
    if (key->size > LAR_MAP_KEY_MAX)
        return lar_fail(LAR_EINVAL, "map '%s.%s' takes keys of at most %d bytes", cls, prop, LAR_MAP_KEY_MAX);
    if (!utf8_valid(key->data, key->size))
        return lar_fail(LAR_EINVAL, "a key for map '%s.%s' is not valid UTF-8", cls, prop);
    if (key->size && key->data[0] == '$')
        return lar_fail(LAR_EINVAL, "map '%s.%s': a key must not start with '$'", cls, prop);
    if (key->size && memchr(key->data, '.', key->size))
        return lar_fail(LAR_EINVAL, "map '%s.%s': a key must not contain '.'", cls, prop);
    return LAR_OK;
}

static void encode_key(uint64_t id, const lar_string *key, entry_key *out)
{
    keyed_prefix(out->bytes, id);
    if (key->size) memcpy(out->bytes + ID_SIZE, key->data, key->size);
    out->bytes[ID_SIZE + key->size] = 0;
    out->size = ID_SIZE + key->size + 1;
}

/* Reads the value of a key: *found says whether the map has it. */
static int read_value(lar_txn *txn, const collection_ref *map, const entry_key *key, lar_value *out, bool *found)
{
    kv_val k = {key->size, (void *)key->bytes}, data;
    int rc = map->root ? kv_get(txn, txn->schema->keyed_dbi, &k, &data) : KV_NOTFOUND;
    *found = rc == 0;
    if (rc == KV_NOTFOUND) return LAR_OK;
    if (rc) return lar_fail_mdb(rc, "cannot read a map");
    if (!data.mv_size || element_size(data.mv_data, data.mv_size) != data.mv_size) return corrupt();
    element_decode(data.mv_data, map->prop->target, out);
    return LAR_OK;
}

/* Stores value under key. With KV_NOOVERWRITE, a key already there gives LAR_EEXISTS
 * and its stored value in *old (read in place), and nothing changes. */
static int store_value_with(lar_txn *txn, const entry_key *key, const lar_value *value, bool typed,
                            unsigned int flags, kv_val *old)
{
    uint8_t small[64];
    byte_buffer bytes = {0};
    size_t size = element_encoded_size(value, typed);
    int err = size <= sizeof small ? LAR_OK : buffer_reserve(&bytes, size);
    if (!err) {
        uint8_t *at = size <= sizeof small ? small : bytes.data;
        element_encode(value, typed, at);
        kv_val k = {key->size, (void *)key->bytes}, data = {size, at};
        err = txn_put(txn, txn->schema->keyed_dbi, &k, &data, flags);
        if (old) *old = data;
    }
    buffer_free(&bytes);
    return err;
}

static int store_value(lar_txn *txn, const entry_key *key, const lar_value *value, bool typed)
{
    return store_value_with(txn, key, value, typed, 0, NULL);
}

/* A map of mixed values, whose links carry their class. */
static bool is_mixed(const collection_ref *map)
{
    return map->prop->def.type == LAR_TYPE_MIXED;
}

/* Records a change of the map's key (its own map's: a nested one's changes only mark
 * the property changed) in the change log; key NULL: the map was cleared. */
static int log_key(lar_txn *txn, const collection_ref *map, list_op_kind kind, const void *key, size_t size)
{
    if (!changes_logged(txn) || map->nested) return LAR_OK;
    return changes_element(txn, map->obj, map->prop_index, key ? kind : COLL_OP_CLEAR, key, size);
}

/* ---- walking a map's entries ---- */

typedef int (*entry_visitor)(const kv_val *key, const kv_val *value, void *context);

/* Calls visit for each entry of map id after key `after` (or from the first), in key
 * order; visit returns LAR_OK to go on, 1 to stop. */
typedef struct entry_walk {
    entry_visitor visit;
    void *context;
} entry_walk;

/* An entry's key ends with its NUL and its value is one whole element. */
static int visit_entry(const kv_val *key, const kv_val *data, void *context)
{
    const entry_walk *walk = context;
    const uint8_t *bytes = key->mv_data;
    if (bytes[key->mv_size - 1] != 0 || !data->mv_size || element_size(data->mv_data, data->mv_size) != data->mv_size)
        return corrupt();
    return walk->visit(key, data, walk->context);
}

static int walk_entries(lar_txn *txn, uint64_t id, const entry_key *after, entry_visitor visit, void *context)
{
    entry_walk walk = {visit, context};
    return keyed_walk(txn, id, after ? after->bytes : NULL, after ? after->size : 0, "cannot read a map", visit_entry, &walk);
}

/* Entries collected for changes made after a walk: (u32 key size, key, lar_obj link
 * (key 0: none), u64 nested collection id (0: none)). */
typedef struct entry_plan {
    lar_obj only;             /* collect only entries linking to this object (key 0: all) */
    lar_class target;         /* the class of links that do not carry theirs */
    byte_buffer entries;
    byte_buffer nested;       /* with `only`: the u64 ids of the nested collections held */
} entry_plan;

#define PLAN_TAIL (sizeof(lar_obj) + 8)

static int plan_entry(const kv_val *key, const kv_val *value, void *context)
{
    entry_plan *plan = context;
    lar_value element;
    element_decode(value->mv_data, plan->target, &element);
    lar_obj link = element.type == LAR_TYPE_LINK ? element.as.link : (lar_obj){0, 0};
    uint64_t nested = value_is_nested(&element) ? element.as.nested : 0;
    if (plan->only.key && nested) return buffer_append(&plan->nested, &nested, 8);
    if (plan->only.key && (link.key != plan->only.key || link.cls != plan->only.cls)) return LAR_OK;
    uint32_t size = (uint32_t)key->mv_size;
    int err = buffer_append(&plan->entries, &size, 4);
    if (!err) err = buffer_append(&plan->entries, key->mv_data, key->mv_size);
    if (!err) err = buffer_append(&plan->entries, &link, sizeof link);
    if (!err) err = buffer_append(&plan->entries, &nested, 8);
    return err;
}

/* Deletes every entry and count of map id, with the backlinks of its objects (one by
 * one when counted: a nested dictionary's property may link elsewhere too) and the
 * nested collections its values hold. */
static int drop_all(lar_txn *txn, const schema_property *prop, lar_obj obj, uint32_t prop_index, uint64_t id,
                    uint32_t depth)
{
    bool counted = depth != 0;
    entry_plan plan = {{0, 0}, prop->target, {0}, {0}};
    int err = walk_entries(txn, id, NULL, plan_entry, &plan);
    for (size_t at = 0; !err && at < plan.entries.size;) {
        uint32_t size;
        lar_obj link;
        uint64_t nested;
        memcpy(&size, plan.entries.data + at, 4);
        memcpy(&link, plan.entries.data + at + 4 + size, sizeof link);
        memcpy(&nested, plan.entries.data + at + 4 + size + sizeof link, 8);
        kv_val key = {size, plan.entries.data + at + 4};
        err = txn_del(txn, txn->schema->keyed_dbi, &key, NULL);
        if (err == LAR_ENOTFOUND) err = LAR_OK;
        if (!err && link.key)
            err = counted ? backlink_remove(txn, link, obj, prop_index) : backlink_remove_all(txn, link, obj, prop_index);
        if (!err && nested) err = nested_free(txn, (nested_parent){obj, prop_index, depth}, nested);
        at += 4 + size + PLAN_TAIL;
    }
    if (!err) err = keyed_count_store(txn, id, 0);
    buffer_free(&plan.entries);
    return err;
}

int map_free(lar_txn *txn, const schema_property *prop, lar_obj obj, uint32_t prop_index, uint64_t id)
{
    return drop_all(txn, prop, obj, prop_index, id, 0);
}

int map_free_nested(lar_txn *txn, const collection_ref *map)
{
    return drop_all(txn, map->prop, map->obj, map->prop_index, map->root, map->depth);
}

int map_remove_target(lar_txn *txn, const collection_ref *map, lar_obj target)
{
    entry_plan plan = {target, target.cls, {0}, {0}};
    int err = walk_entries(txn, map->root, NULL, plan_entry, &plan);
    lar_value null = {.type = LAR_TYPE_NULL};
    for (size_t at = 0; !err && at < plan.entries.size;) {
        uint32_t size;
        memcpy(&size, plan.entries.data + at, 4);
        entry_key key;
        memcpy(key.bytes, plan.entries.data + at + 4, size);
        key.size = size;
        err = store_value(txn, &key, &null, false); /* the key stays, with null */
        if (!err) err = log_key(txn, map, MAP_OP_SET, key.bytes + ID_SIZE, size - ID_SIZE - 1);
        at += 4 + size + PLAN_TAIL;
    }
    for (size_t at = 0; !err && at < plan.nested.size; at += 8) { /* and out of what it nests */
        uint64_t nested;
        memcpy(&nested, plan.nested.data + at, 8);
        err = nested_remove_target(txn, nested_parent_of(map), nested, target);
    }
    buffer_free(&plan.entries);
    buffer_free(&plan.nested);
    return err;
}

/* ---- the public functions ---- */

static int open_map(lar_txn *txn, bool write, const lar_coll *coll, const lar_string *key, collection_ref *out)
{
    int err = collection_open_at(txn, write, coll, LAR_COLLECTION_MAP, out);
    return err || !key ? err : check_key(out, key);
}

#define TOP(obj, prop) (&(lar_coll){(obj), (prop), LAR_COLLECTION_MAP, 0})

int lar_map_count_at(lar_txn *txn, const lar_coll *coll, size_t *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_map_count: out is NULL");
    collection_ref map;
    uint64_t count;
    int err = collection_open_at(txn, false, coll, LAR_COLLECTION_MAP, &map);
    if (!err) err = keyed_count(txn, map.root, &count);
    if (!err) *out = (size_t)count;
    return err;
}

int lar_map_count(lar_txn *txn, lar_obj obj, uint32_t prop, size_t *out)
{
    return lar_map_count_at(txn, TOP(obj, prop), out);
}

int lar_map_get_at(lar_txn *txn, const lar_coll *coll, const lar_string *key, lar_value *out)
{
    if (!key || !out) return lar_fail(LAR_EINVAL, "lar_map_get: key and out must not be NULL");
    collection_ref map;
    entry_key k;
    bool found;
    int err = open_map(txn, false, coll, key, &map);
    if (err) return err;
    encode_key(map.root, key, &k);
    err = read_value(txn, &map, &k, out, &found);
    if (!err && !found)
        return lar_fail(LAR_ENOTFOUND, "map '%s.%s' has no key '%.*s'", map.cls->name, map.prop->def.name,
                        (int)(key->size > 64 ? 64 : key->size), key->data);
    return err ? err : collection_keep(txn, out);
}

int lar_map_get(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_string *key, lar_value *out)
{
    return lar_map_get_at(txn, TOP(obj, prop), key, out);
}

static int put_entry(lar_txn *txn, const lar_coll *coll, const lar_string *key, const lar_value *value)
{
    if (!key) return lar_fail(LAR_EINVAL, "lar_map_put: key is NULL");
    collection_ref map;
    lar_value element, old = {.type = LAR_TYPE_NULL};
    entry_key k;
    bool found;
    int err = open_map(txn, true, coll, key, &map);
    if (!err) err = collection_check_element(txn, &map, value, &element);
    if (!err) err = nested_materialize(txn, &map, &element);
    if (err) return err;
    lar_obj obj = map.obj;
    uint32_t prop = map.prop_index;
    uint64_t id = map.root, count = 0;
    if (!id) {
        err = collection_new_id(txn, &id);
        if (!err) err = collection_write_root(txn, &map, id);
    }
    if (!err) encode_key(id, key, &k);
    /* A new key (the usual case) is one put; an existing one hands its value back. */
    kv_val stored;
    if (!err) err = store_value_with(txn, &k, &element, is_mixed(&map), KV_NOOVERWRITE, &stored);
    found = err == LAR_EEXISTS;
    if (found) {
        err = stored.mv_size && element_size(stored.mv_data, stored.mv_size) == stored.mv_size ? LAR_OK : corrupt();
        if (!err) element_decode(stored.mv_data, map.prop->target, &old); /* a link is all it keeps */
        if (!err) err = store_value(txn, &k, &element, is_mixed(&map));
    }
    if (!err && !found) err = keyed_count(txn, id, &count);
    if (!err && !found) err = keyed_count_store(txn, id, count + 1);
    if (!err && found && old.type == LAR_TYPE_LINK) err = backlink_remove(txn, old.as.link, obj, prop);
    if (!err && element.type == LAR_TYPE_LINK) err = backlink_add(txn, element.as.link, obj, prop);
    if (!err && found) err = nested_release(txn, nested_parent_of(&map), &old); /* what the key held */
    if (!err) err = log_key(txn, &map, found ? MAP_OP_SET : MAP_OP_INSERT, key->data, key->size);
    return err;
}

int lar_map_put_at(lar_txn *txn, const lar_coll *coll, const lar_string *key, const lar_value *value)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, embedded_settle(txn, collection_noted_at(txn, mark, coll, put_entry(txn, coll, key, value))));
}

int lar_map_put(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_string *key, const lar_value *value)
{
    return lar_map_put_at(txn, TOP(obj, prop), key, value);
}

static int remove_entry(lar_txn *txn, const lar_coll *coll, const lar_string *key, int *removed)
{
    if (!key) return lar_fail(LAR_EINVAL, "lar_map_remove: key is NULL");
    collection_ref map;
    lar_value old;
    entry_key k;
    bool found;
    uint64_t count;
    int err = open_map(txn, true, coll, key, &map);
    if (err) return err;
    lar_obj obj = map.obj;
    uint32_t prop = map.prop_index;
    encode_key(map.root, key, &k);
    err = read_value(txn, &map, &k, &old, &found);
    if (!err && found) {
        kv_val victim = {k.size, k.bytes};
        err = keyed_count(txn, map.root, &count);
        if (!err) err = txn_del(txn, txn->schema->keyed_dbi, &victim, NULL);
        if (!err) err = keyed_count_store(txn, map.root, count ? count - 1 : 0);
        if (!err && count <= 1) err = collection_write_root(txn, &map, 0); /* an emptied map gives its id up */
        if (!err && old.type == LAR_TYPE_LINK) err = backlink_remove(txn, old.as.link, obj, prop);
        if (!err) err = nested_release(txn, nested_parent_of(&map), &old); /* what the key held */
        if (!err) err = log_key(txn, &map, MAP_OP_REMOVE, key->data, key->size);
    }
    if (!err && removed) *removed = found;
    return err;
}

int lar_map_remove_at(lar_txn *txn, const lar_coll *coll, const lar_string *key, int *removed)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, embedded_settle(txn, collection_noted_at(txn, mark, coll, remove_entry(txn, coll, key, removed))));
}

int lar_map_remove(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_string *key, int *removed)
{
    return lar_map_remove_at(txn, TOP(obj, prop), key, removed);
}

static int clear_map(lar_txn *txn, const lar_coll *coll)
{
    collection_ref map;
    int err = collection_open_at(txn, true, coll, LAR_COLLECTION_MAP, &map);
    if (!err && map.root) err = drop_all(txn, map.prop, map.obj, map.prop_index, map.root, map.depth);
    if (!err && map.root) err = log_key(txn, &map, COLL_OP_CLEAR, NULL, 0);
    return err ? err : collection_write_root(txn, &map, 0);
}

int lar_map_clear_at(lar_txn *txn, const lar_coll *coll)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, embedded_settle(txn, collection_noted_at(txn, mark, coll, clear_map(txn, coll))));
}

int lar_map_clear(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    return lar_map_clear_at(txn, TOP(obj, prop));
}

typedef struct entry_list {
    lar_txn *txn;
    const collection_ref *map;
    lar_string *keys;
    lar_value *values;
    size_t capacity, count;
} entry_list;

static int list_entry(const kv_val *key, const kv_val *value, void *context)
{
    entry_list *list = context;
    lar_string *out_key = &list->keys[list->count];
    lar_value key_value = {.type = LAR_TYPE_STRING};
    key_value.as.string = (lar_string){(const char *)key->mv_data + ID_SIZE, key->mv_size - ID_SIZE - 1};
    int err = collection_keep(list->txn, &key_value); /* keeps its NUL too */
    if (!err) *out_key = key_value.as.string;
    if (!err && list->values) {
        element_decode(value->mv_data, list->map->prop->target, &list->values[list->count]);
        err = collection_keep(list->txn, &list->values[list->count]);
    }
    if (err) return err;
    return ++list->count == list->capacity ? 1 : LAR_OK;
}

int lar_map_list_at(lar_txn *txn, const lar_coll *coll, const lar_string *after, lar_string *keys,
                    lar_value *values, size_t capacity, size_t *count)
{
    if (count) *count = 0;
    if (!keys || !count || !capacity)
        return lar_fail(LAR_EINVAL, "lar_map_list: keys and count must not be NULL, capacity not 0");
    collection_ref map;
    entry_key from;
    int err = open_map(txn, false, coll, after, &map);
    if (err) return err;
    if (after) encode_key(map.root, after, &from);
    entry_list list = {txn, &map, keys, values, capacity, 0};
    err = walk_entries(txn, map.root, after ? &from : NULL, list_entry, &list);
    *count = list.count;
    if (!err && !list.count) return LAR_ENOTFOUND; /* the end, as iterators report it */
    return err;
}

int lar_map_list(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_string *after, lar_string *keys,
                 lar_value *values, size_t capacity, size_t *count)
{
    return lar_map_list_at(txn, TOP(obj, prop), after, keys, values, capacity, count);
}
