/* Index probes: the objects a comparison on a primary key or an indexed property can
 * match, read from the primary-key or index table instead of the class table.
 *
 * Keys in both tables are order-preserving and compared by memcmp (codec/keys.c), so
 * equality is one lookup (a seek plus a walk of the duplicates in an index) and a
 * range is one walk between two encoded bounds. The probe gives candidates, a superset
 * of the matches (index strings are cut short to fit a key, and a range walk includes
 * its bounds): the caller checks the whole predicate on each.
 *
 * A class keyed by its int primary key (object/object.c) keeps most of its objects
 * under the key their primary key gives, with no primary-key entry: equality there is
 * object_find_primary, and a range is a walk of the class table between the keys its
 * bounds give, beside the walk of the primary-key entries, which only its displaced
 * objects (null, INT64_MIN, a key another object took) have. */
#include "query/results.h"

#include <stdlib.h>
#include <string.h>

typedef struct key_list {
    lar_objkey *items;
    size_t count, capacity;
} key_list;

/* Adds the object keys data holds, one or (a page of an index's duplicates) several. */
static int add_keys(key_list *keys, const kv_val *data)
{
    size_t n = data->mv_size / sizeof(lar_objkey);
    if (n == 0 || data->mv_size % sizeof(lar_objkey)) return lar_fail(LAR_ECORRUPT, "an index entry is not an object key");
    if (keys->capacity - keys->count < n) {
        size_t capacity = keys->capacity ? keys->capacity * 2 : 16;
        while (capacity - keys->count < n) capacity *= 2;
        lar_objkey *grown = big_realloc(keys->items, capacity * sizeof *grown);
        if (!grown) return lar_fail(LAR_ENOMEM, "out of memory probing an index");
        keys->items = grown;
        keys->capacity = capacity;
    }
    memcpy(&keys->items[keys->count], data->mv_data, n * sizeof(lar_objkey));
    keys->count += n;
    return LAR_OK;
}

static int push_key(key_list *keys, lar_objkey key)
{
    kv_val one = {sizeof key, &key};
    return add_keys(keys, &one);
}

static size_t encode(lar_class cls, const probe_term *t, const lar_value *v, uint8_t *out)
{
    return t->primary ? key_encode_primary(cls, v, out) : key_encode_index(cls, t->prop, v, out);
}

/* The bytes every key of the term's property starts with, up to its null-or-value tag. */
static size_t prefix_of(lar_class cls, const probe_term *t, uint8_t *out)
{
    lar_value null = {.type = LAR_TYPE_NULL};
    return encode(cls, t, &null, out) - 1; /* the tag byte is the last of a null's key */
}

static int byte_order(const kv_val *key, const uint8_t *bound, size_t size)
{
    int c = memcmp(key->mv_data, bound, key->mv_size < size ? key->mv_size : size);
    return c ? c : (key->mv_size > size) - (key->mv_size < size);
}

/* Walks table from the key `from` while keys are at most `to` (to_size bytes; or, when
 * to is NULL, while they start with prefix), adding each entry's object key. */
static int walk(lar_txn *txn, kv_table table, const uint8_t *from, size_t from_size, const uint8_t *to,
                size_t to_size, const uint8_t *prefix, size_t prefix_size, key_list *keys)
{
    kv_cursor *cursor;
    int rc = kv_cursor_open(txn, table, &cursor);
    if (rc) return lar_fail_mdb(rc, "cannot probe an index");
    kv_val key = {from_size, (void *)from}, data;
    int err = LAR_OK;
    for (rc = kv_cursor_step(cursor, &key, &data, KV_SEEK); !rc && !err; rc = kv_cursor_step(cursor, &key, &data, KV_NEXT)) {
        if (to ? byte_order(&key, to, to_size) > 0
               : key.mv_size < prefix_size || memcmp(key.mv_data, prefix, prefix_size) != 0)
            break;
        err = add_keys(keys, &data);
    }
    kv_cursor_close(cursor);
    if (!err && rc && rc != KV_NOTFOUND) err = lar_fail_mdb(rc, "cannot probe an index");
    return err;
}

static int primary_entry(lar_txn *txn, const uint8_t *key, size_t size, key_list *keys)
{
    kv_val k = {size, (void *)key}, data;
    int rc = kv_get(txn, txn->env->pk_dbi, &k, &data);
    if (rc == KV_NOTFOUND) return LAR_OK;
    return rc ? lar_fail_mdb(rc, "cannot probe a primary key") : add_keys(keys, &data);
}

/* The objects an index key names: its duplicates, read a page at a time through the
 * index's kept cursor (no cursor to allocate per probe). */
static int index_entries(lar_txn *txn, const uint8_t *key, size_t size, key_list *keys)
{
    kv_cursor *cursor = kv_kept_cursor(txn, txn->env->index_dbi);
    if (!cursor) return lar_fail(LAR_ENOMEM, "cannot probe an index: out of memory");
    kv_val k = {size, (void *)key}, data;
    int err = LAR_OK;
    int rc = kv_cursor_step(cursor, &k, &data, KV_SEEK_EXACT);
    if (!rc) rc = kv_cursor_step(cursor, &k, &data, KV_DUPS);
    for (; !rc && !err; rc = kv_cursor_step(cursor, &k, &data, KV_NEXT_DUPS)) err = add_keys(keys, &data);
    if (!err && rc && rc != KV_NOTFOUND) err = lar_fail_mdb(rc, "cannot probe an index");
    return err;
}

/* Whether the key of v (size bytes) holds all of v: an index cuts long strings short. */
static bool key_is_whole(lar_class cls, const probe_term *t, const lar_value *v, size_t size)
{
    if (v->type != LAR_TYPE_STRING || t->primary) return true;
    uint8_t prefix[KEY_MAX];
    return size == prefix_of(cls, t, prefix) + 1 + v->as.string.size;
}

static int probe_equal(lar_txn *txn, lar_class cls, const probe_term *t, key_list *keys, bool *exact)
{
    for (size_t i = 0; i < t->count; i++) {
        uint8_t key[KEY_MAX];
        size_t size = encode(cls, t, &t->values[i], key);
        if (!size) continue; /* a primary key too long to be stored: no object has it */
        if (!key_is_whole(cls, t, &t->values[i], size)) *exact = false;
        int err = t->primary ? primary_entry(txn, key, size, keys) : index_entries(txn, key, size, keys);
        if (err) return err;
    }
    return LAR_OK;
}

/* A range: from the lower bound (or the first non-null value) to the upper bound (or
 * the last key of the property). */
static int probe_range(lar_txn *txn, lar_class cls, const probe_term *t, key_list *keys)
{
    const lar_value *low = NULL, *high = NULL;
    switch (t->op) {
    case OP_GT: case OP_GE: low = &t->values[0]; break;
    case OP_LT: case OP_LE: high = &t->values[0]; break;
    default: low = &t->values[0], high = &t->values[1]; break;
    }
    uint8_t prefix[KEY_MAX], from[KEY_MAX], to[KEY_MAX];
    size_t prefix_size = prefix_of(cls, t, prefix);
    memcpy(from, prefix, prefix_size);
    from[prefix_size] = 1; /* past the nulls */
    size_t from_size = low ? encode(cls, t, low, from) : prefix_size + 1;
    size_t to_size = high ? encode(cls, t, high, to) : 0;
    prefix[prefix_size] = 1;
    kv_table table = t->primary ? txn->env->pk_dbi : txn->env->index_dbi;
    return walk(txn, table, from, from_size, high ? to : NULL, to_size, prefix, prefix_size + 1, keys);
}

/* ---- classes keyed by their int primary key ---- */

static int probe_keyed_equal(lar_txn *txn, const schema_class *c, lar_class cls, const probe_term *t,
                             key_list *keys)
{
    bool optional = c->properties[t->prop].def.flags & LAR_PROP_OPTIONAL;
    for (size_t i = 0; i < t->count; i++) {
        if (t->values[i].type == LAR_TYPE_NULL && !optional) continue; /* no object has it */
        lar_objkey found;
        int err = object_find_primary(txn, cls, &t->values[i], &found);
        if (err == LAR_ENOTFOUND) continue;
        if (!err) err = push_key(keys, found);
        if (err) return err;
    }
    return LAR_OK;
}

/* The objects of c's table with keys from `from` to *to (to NULL: to the end). */
static int walk_class(lar_txn *txn, const schema_class *c, lar_objkey from, const lar_objkey *to, key_list *keys)
{
    kv_cursor *cursor;
    int rc = kv_cursor_open(txn, c->dbi, &cursor);
    if (rc) return lar_fail_mdb(rc, "cannot run a query");
    kv_val key = {sizeof from, &from}, data;
    int err = LAR_OK;
    for (rc = kv_cursor_step(cursor, &key, &data, KV_SEEK); !rc && !err; rc = kv_cursor_step(cursor, &key, &data, KV_NEXT)) {
        lar_objkey at;
        if (key.mv_size != sizeof at) {
            err = lar_fail(LAR_ECORRUPT, "the table of class '%s' holds a key of %zu bytes", c->name, key.mv_size);
            break;
        }
        memcpy(&at, key.mv_data, sizeof at);
        if (to && at > *to) break;
        err = push_key(keys, at);
    }
    kv_cursor_close(cursor);
    if (!err && rc && rc != KV_NOTFOUND) err = lar_fail_mdb(rc, "cannot run a query");
    return err;
}

/* The keys the range's bounds give (key order is primary-key order), and the displaced
 * objects' entries in the primary-key table. */
static int probe_keyed_range(lar_txn *txn, const schema_class *c, lar_class cls, const probe_term *t,
                             key_list *keys)
{
    bool low = t->op != OP_LT && t->op != OP_LE, high = t->op != OP_GT && t->op != OP_GE;
    lar_objkey from = low ? object_key_for_primary(&t->values[0]) : 0; /* 0 (INT64_MIN): from the first */
    lar_objkey to = high ? object_key_for_primary(&t->values[t->op == OP_BETWEEN ? 1 : 0]) : 0;
    int err = walk_class(txn, c, from, high ? &to : NULL, keys);
    return err ? err : probe_range(txn, cls, t, keys);
}

static int probe_term_candidates(lar_txn *txn, const schema_class *c, lar_class cls, const probe_term *t,
                                 key_list *keys, bool *exact)
{
    bool equal = t->op == OP_EQ || t->op == OP_IN;
    if (!equal) *exact = false; /* a range walk includes its bounds */
    if (t->primary && c->keyed_by_primary)
        return equal ? probe_keyed_equal(txn, c, cls, t, keys) : probe_keyed_range(txn, c, cls, t, keys);
    return equal ? probe_equal(txn, cls, t, keys, exact) : probe_range(txn, cls, t, keys);
}

static int compare_keys(const void *a, const void *b)
{
    lar_objkey x = *(const lar_objkey *)a, y = *(const lar_objkey *)b;
    return (x > y) - (x < y);
}

int probe_candidates(lar_txn *txn, lar_class cls, const probe_term *terms, size_t term_count, lar_objkey **out,
                     size_t *count, bool *exact)
{
    key_list keys = {0};
    const schema_class *c = schema_class_at(txn->schema, cls);
    int err = c ? LAR_OK : lar_fail(LAR_EINVAL, "the query's class %u is not in this transaction's schema", cls);
    *exact = true;
    for (size_t i = 0; !err && i < term_count; i++) err = probe_term_candidates(txn, c, cls, &terms[i], &keys, exact);
    if (err) {
        big_free(keys.items);
        return err;
    }
    size_t sorted = 1;
    while (sorted < keys.count && keys.items[sorted - 1] < keys.items[sorted]) sorted++;
    if (sorted < keys.count) qsort(keys.items, keys.count, sizeof *keys.items, compare_keys); /* one index key's: in order */
    size_t unique = 0;
    for (size_t i = 0; i < keys.count; i++)
        if (unique == 0 || keys.items[unique - 1] != keys.items[i]) keys.items[unique++] = keys.items[i];
    *out = keys.items;
    *count = unique;
    return LAR_OK;
}
