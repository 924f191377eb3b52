/* Objects: rows in their class table, kept in step with the primary-key and index tables. */
#include "object/object.h"

#include "collection/collection.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int values_init(value_array *values, uint32_t count)
{
    values->items = count <= STACK_VALUES ? values->stack : malloc(count * sizeof *values->items);
    return values->items ? LAR_OK : lar_fail(LAR_ENOMEM, "out of memory");
}

static void values_free(value_array *values)
{
    if (values->items && values->items != values->stack) free(values->items);
}

static int open_class(lar_txn *txn, bool write, lar_class cls, const schema_class **out)
{
    int err = txn_check(txn, write);
    if (err) return err;
    *out = schema_class_at(txn->schema, cls);
    return *out ? LAR_OK : lar_fail(LAR_EINVAL, "unknown class %u", cls);
}

static int check_prop(const schema_class *cls, uint32_t prop)
{
    if (prop < cls->property_count) return LAR_OK;
    return lar_fail(LAR_EINVAL, "class '%s' has no property %u (it has %u)", cls->name, prop,
                    cls->property_count);
}

static void describe(const lar_value *value, char *out, size_t size)
{
    switch (value->type) {
    case LAR_TYPE_NULL: snprintf(out, size, "null"); break;
    case LAR_TYPE_INT: snprintf(out, size, "%" PRId64, value->as.integer); break;
    case LAR_TYPE_STRING:
        snprintf(out, size, "'%.*s'", (int)(value->as.string.size > 64 ? 64 : value->as.string.size),
                 value->as.string.data);
        break;
    default: {
        const uint8_t *bytes = value->type == LAR_TYPE_UUID ? value->as.uuid.bytes : value->as.object_id.bytes;
        size_t count = value->type == LAR_TYPE_UUID ? 16 : 12, used = 0;
        for (size_t i = 0; i < count && used + 3 <= size; i++)
            used += (size_t)snprintf(out + used, size - used, "%02x", bytes[i]);
        break;
    }
    }
}

/* ---- primary-key and index entries ---- */

static int duplicate_key(const schema_class *cls, const lar_value *value)
{
    char text[160];
    describe(value, text, sizeof text);
    return lar_fail(LAR_EEXISTS, "an object of class '%s' with primary key %s already exists", cls->name, text);
}

static int put_primary(lar_txn *txn, const schema_class *cls, lar_class cls_id, const lar_value *value,
                       lar_objkey key)
{
    uint8_t buffer[KEY_MAX];
    size_t size = key_encode_primary(cls_id, value, buffer);
    if (!size) return lar_fail(LAR_EINVAL, "primary key of class '%s' is longer than %d bytes", cls->name,
                               LAR_PRIMARY_KEY_MAX);
    kv_val k = {size, buffer}, data = {sizeof key, &key};
    int err = txn_put(txn, txn->env->pk_dbi, &k, &data, KV_NOOVERWRITE);
    return err == LAR_EEXISTS ? duplicate_key(cls, value) : err;
}

static int index_entry(lar_txn *txn, lar_class cls_id, uint32_t prop, const lar_value *value,
                       lar_objkey key, bool add)
{
    uint8_t buffer[KEY_MAX];
    kv_val k = {key_encode_index(cls_id, prop, value, buffer), buffer}, data = {sizeof key, &key};
    int err = add ? txn_put(txn, txn->env->index_dbi, &k, &data, 0)
                  : txn_del(txn, txn->env->index_dbi, &k, &data);
    return err == LAR_EEXISTS || err == LAR_ENOTFOUND ? LAR_OK : err;
}

static bool is_indexed(const schema_class *cls, uint32_t prop)
{
    return (int32_t)prop != cls->primary_key && (cls->properties[prop].def.flags & LAR_PROP_INDEXED);
}

static int add_index_entries(lar_txn *txn, const schema_class *cls, lar_class cls_id,
                             const lar_value *values, lar_objkey key)
{
    int err = LAR_OK;
    for (uint32_t i = 0; cls->has_indexes && !err && i < cls->property_count; i++)
        if (is_indexed(cls, i)) err = index_entry(txn, cls_id, i, &values[i], key, true);
    return err;
}

/* ---- links ---- */

/* A link must point at an existing object (value_check has checked its class). */
static int check_link_target(lar_txn *txn, const schema_class *cls, uint32_t prop, const lar_value *value)
{
    if (value->type != LAR_TYPE_LINK) return LAR_OK;
    const lar_property_def *def = &cls->properties[prop].def;
    return link_check_target(txn, cls, def, "property", false,
                             def->type == LAR_TYPE_MIXED ? EMBEDDED_IN_MIXED : EMBEDDED_IN_LINK, value->as.link);
}

static int check_link_targets_exist(lar_txn *txn, const schema_class *cls, const lar_value *values)
{
    int err = LAR_OK;
    for (uint32_t i = 0; values && !err && i < cls->property_count; i++)
        if (!cls->properties[i].def.collection) err = check_link_target(txn, cls, i, &values[i]);
    return err;
}

/* A new row's links into the backlink table; a link to an embedded object (created in
 * place with its owner) is recorded by that object's row instead. */
static int add_backlinks(lar_txn *txn, const schema_class *cls, lar_obj obj, const lar_value *values)
{
    int err = LAR_OK;
    for (uint32_t i = 0; !err && i < cls->property_count; i++) {
        const schema_property *p = &cls->properties[i];
        if (values[i].type == LAR_TYPE_LINK && !p->def.collection && !p->embeds)
            err = backlink_add(txn, values[i].as.link, obj, i);
    }
    return err;
}

/* ---- creating ---- */

/* Checks the caller's values; copies them (or builds defaults) into out only when
 * some need converting, and points *use at the values to store. */
static int stage_values(const schema_class *cls, const lar_value *given, value_array *out,
                        const lar_value **use)
{
    out->items = NULL; /* before any return: the caller frees it */
    bool convert = !given;
    for (uint32_t i = 0; given && i < cls->property_count; i++) {
        if (value_is_plain(&cls->properties[i].def, &given[i])) continue; /* the usual case, without a call */
        int err = value_check(cls, i, &given[i]);
        if (err) return err;
        convert |= given[i].type != LAR_TYPE_NULL && given[i].type != cls->properties[i].def.type;
    }
    *use = given;
    if (!convert) return LAR_OK;
    int err = values_init(out, cls->property_count);
    for (uint32_t i = 0; !err && i < cls->property_count; i++) {
        const lar_property_def *def = &cls->properties[i].def;
        out->items[i] = given ? value_normalize(def, &given[i]) : value_default(def);
    }
    *use = out->items;
    return err;
}

/* Gives each mixed value that asks for a new nested collection (values staged: a
 * copy) an id (no write: a failed insert leaves nothing); with obj, after the insert,
 * writes their headers. */
static int stage_nested(lar_txn *txn, const schema_class *cls, lar_value *values, const lar_obj *obj)
{
    int err = LAR_OK;
    for (uint32_t i = 0; !err && i < cls->property_count; i++) {
        if (cls->properties[i].def.type != LAR_TYPE_MIXED || cls->properties[i].def.collection ||
            !value_is_nested(&values[i]))
            continue;
        err = obj ? nested_create(txn, *obj, i, values[i].type, 1, values[i].as.nested) : nested_check_tables(txn);
        if (!err && !obj) err = collection_new_id(txn, &values[i].as.nested);
    }
    return err;
}

/* ---- classes keyed by their primary key ----
 *
 * A class whose primary key is an int (optional or not) keeps each object under the
 * key its primary key gives (object_key_for_primary), so that finding it is one probe
 * of the class table, and writes no primary-key entry. The few objects that cannot
 * have that key are "displaced": a null primary key, INT64_MIN (both would get key 0,
 * which names no object), or one whose key a displaced object holds. They take the
 * lowest free key and a primary-key entry, as every object of other classes does; so
 * an object is displaced exactly when its key is not the one its primary key gives.
 * (realm-core also derives object keys from primary keys, with a table for the keys
 * that collide.) Keys are not handed out in creation order: the class's key sequence
 * only tracks the last key, its created-here range stays empty (txn_created_here
 * must not vouch for a key between two created ones), and an object created with the
 * primary key of a deleted one gets its key: its row's stamp tells them apart. */

/* The object key for an int primary key, 0 for none (null, INT64_MIN: key 0 names no
 * object). The int with its sign bit flipped, so keys sort as the ints do. The one
 * place that maps primary keys to keys: a key bit reserved elsewhere (an embedded
 * object's, say) must be kept out of here, displacing the keys that have it. */
lar_objkey object_key_for_primary(const lar_value *value)
{
    return value->type == LAR_TYPE_INT ? (uint64_t)value->as.integer ^ (1ull << 63) : 0;
}

/* sequence_state.owner_note of a keyed class: whether it has displaced objects. */
enum { DISPLACED_UNKNOWN = 0, DISPLACED_NONE, DISPLACED_SOME };

/* Whether the primary-key table may hold an entry of class cls (looked up once per write). */
static int has_displaced(lar_txn *txn, sequence_state *state, lar_class cls, bool *out)
{
    if (state->owner_note == DISPLACED_UNKNOWN) {
        uint8_t prefix[4];
        size_t size = key_encode_class_prefix(cls, prefix);
        kv_cursor *cursor;
        int rc = kv_cursor_open(txn, txn->env->pk_dbi, &cursor);
        kv_val key = {size, prefix}, data;
        if (!rc) {
            rc = kv_cursor_step(cursor, &key, &data, KV_SEEK);
            kv_cursor_close(cursor);
        }
        if (rc && rc != KV_NOTFOUND) return lar_fail_mdb(rc, "cannot create an object");
        bool some = !rc && key.mv_size >= size && !memcmp(key.mv_data, prefix, size);
        state->owner_note = some ? DISPLACED_SOME : DISPLACED_NONE;
    }
    *out = state->owner_note == DISPLACED_SOME;
    return LAR_OK;
}

/* The displaced object with primary key value, in *out (0: none). */
static int find_displaced(lar_txn *txn, const schema_class *cls, lar_class cls_id, const lar_value *value,
                          lar_objkey *out)
{
    uint8_t buffer[KEY_MAX];
    kv_val k = {key_encode_primary(cls_id, value, buffer), buffer}, data;
    int rc = k.mv_size ? kv_get(txn, txn->env->pk_dbi, &k, &data) : KV_NOTFOUND;
    *out = 0;
    if (rc == KV_NOTFOUND) return LAR_OK;
    if (rc) return lar_fail_mdb(rc, "cannot find an object by primary key");
    if (data.mv_size != sizeof *out) return lar_fail(LAR_ECORRUPT, "bad primary-key entry in class '%s'", cls->name);
    memcpy(out, data.mv_data, sizeof *out);
    return LAR_OK;
}

/* The lowest key no object of the class has (never 0). */
static int lowest_free_key(lar_txn *txn, const schema_class *cls, lar_objkey *out)
{
    kv_cursor *cursor;
    int rc = kv_cursor_open(txn, cls->dbi, &cursor);
    if (rc) return lar_fail_mdb(rc, "cannot create an object");
    lar_objkey free_key = 1;
    kv_val key, data;
    for (rc = kv_cursor_step(cursor, &key, &data, KV_FIRST); !rc; rc = kv_cursor_step(cursor, &key, &data, KV_NEXT)) {
        lar_objkey used;
        if (key.mv_size != sizeof used) continue;
        memcpy(&used, key.mv_data, sizeof used);
        if (used > free_key) break;
        if (used == free_key) free_key++;
    }
    kv_cursor_close(cursor);
    if (rc && rc != KV_NOTFOUND) return lar_fail_mdb(rc, "cannot create an object");
    *out = free_key;
    return LAR_OK;
}

/* Stores the encoded row (txn->row) of an object of a keyed class with primary key pk
 * under the key pk gives, or, displaced, under the lowest free key. */
static int put_keyed(lar_txn *txn, const schema_class *cls, lar_class cls_id, sequence_state *state,
                     const lar_value *pk, lar_objkey *out)
{
    lar_objkey key = object_key_for_primary(pk);
    bool displaced = false;
    int err = key ? has_displaced(txn, state, cls_id, &displaced) : LAR_OK;
    lar_objkey elsewhere = 0;
    if (!err && displaced) err = find_displaced(txn, cls, cls_id, pk, &elsewhere);
    if (!err && elsewhere) return duplicate_key(cls, pk);
    if (!err && key) {
        /* next is 1 + the last key (0 once the last key is the highest): past it, append. */
        bool append = state->next && key >= state->next;
        kv_val row = {txn->row.size, NULL};
        /* Reserved, then filled: the row's place in the map, which the read cache keeps. */
        err = txn_row_put(txn, cls->dbi, key, &row, KV_NOOVERWRITE | KV_RESERVE | (append ? KV_APPEND : 0));
        if (err == LAR_EEXISTS && append) { /* next was off */
            row = (kv_val){txn->row.size, NULL};
            err = txn_row_put(txn, cls->dbi, key, &row, KV_NOOVERWRITE | KV_RESERVE);
        }
        if (!err) {
            memcpy(row.mv_data, txn->row.data, txn->row.size);
            txn->cache_obj = (lar_obj){cls_id, key};
            txn->cache_row = row; /* valid until the next write, which empties the cache */
        }
        if (err == LAR_EEXISTS) { /* row now holds the object that has the key */
            lar_value holder;
            err = row_decode_raw(cls, &row, (uint32_t)cls->primary_key, &holder);
            if (!err && value_equal(&holder, pk)) return duplicate_key(cls, pk);
            key = 0;
        }
    }
    if (!err && !key) err = lowest_free_key(txn, cls, &key);
    if (!err && key != object_key_for_primary(pk)) { /* displaced */
        err = put_primary(txn, cls, cls_id, pk, key);
        kv_val row = {txn->row.size, txn->row.data};
        if (!err) err = txn_row_put(txn, cls->dbi, key, &row, KV_NOOVERWRITE);
        if (!err) state->owner_note = DISPLACED_SOME;
    }
    if (err) return err;
    if (state->next && key >= state->next) state->next = key + 1; /* 0 past the highest key */
    state->first = state->next;
    *out = key;
    return LAR_OK;
}

static int insert(lar_txn *txn, const schema_class *cls, lar_class cls_id, const lar_value *values,
                  const row_owner *owner, lar_obj *out)
{
    /* A keyed class's rows take stamps; other classes' objects take keys from their sequence. Stamps
     * first: loading the sequence of the highest id may move the others. */
    sequence_state *stamps = cls->keyed_by_primary ? txn_sequence(txn, SEQUENCE_ROW_STAMPS, txn->env->meta_dbi)
                                                   : NULL;
    sequence_state *state = txn_sequence(txn, cls_id, cls->dbi);
    if (!state || (cls->keyed_by_primary && !stamps)) return LAR_ENOMEM;
    lar_objkey key = state->next;
    /* Everything that can fail without LMDB comes before the first write. */
    int err = row_encode(cls, values, &txn->row);
    if (!err && owner) row_owner_write(txn->row.data, txn->row.size, owner); /* never keyed: no primary key */
    if (!err && stamps) {
        row_set_stamp(cls, &txn->row, stamps->next);
        err = put_keyed(txn, cls, cls_id, state, &values[cls->primary_key], &key);
    } else if (!err) {
        if (cls->primary_key >= 0) err = put_primary(txn, cls, cls_id, &values[cls->primary_key], key);
        kv_val row = {txn->row.size, txn->row.data};
        if (!err) err = txn_row_put(txn, cls->dbi, key, &row, KV_APPEND);
    }
    if (!err) err = add_index_entries(txn, cls, cls_id, values, key);
    if (!err && cls->has_links) err = add_backlinks(txn, cls, (lar_obj){cls_id, key}, values);
    if (err) return err;
    if (stamps) state = stamps;
    state->next++;
    state->dirty = true;
    if (out) *out = (lar_obj){cls_id, key};
    return changes_insert(txn, (lar_obj){cls_id, key});
}

int object_prepare(lar_txn *txn, lar_class cls, const lar_value *values, size_t value_count, bool embedded,
                   prepared_object *out)
{
    out->staged.items = NULL; /* before any return: object_prepared_free frees it */
    const schema_class *c;
    int err = open_class(txn, true, cls, &c);
    if (err) return err;
    if (!embedded && (c->flags & LAR_CLASS_EMBEDDED))
        return lar_fail(LAR_EINVAL, "Embedded objects cannot be created directly (class '%s')", c->name);
    if (value_count ? (!values || value_count != c->property_count) : false)
        return lar_fail(LAR_EINVAL, "lar_obj_create: class '%s' has %u properties; got %zu values%s",
                        c->name, c->property_count, value_count, values ? "" : " and a NULL array");
    out->cls = c;
    out->cls_id = cls;
    err = stage_values(c, value_count ? values : NULL, &out->staged, &out->use);
    if (!err && c->has_links) err = check_link_targets_exist(txn, c, out->use);
    out->nested = c->has_links && out->use == out->staged.items;
    if (!err && out->nested) err = stage_nested(txn, c, out->staged.items, NULL);
    return err;
}

int object_prepared_link(prepared_object *object, uint32_t prop, lar_obj link)
{
    if (object->use != object->staged.items) { /* the caller's values: copy them first */
        int err = values_init(&object->staged, object->cls->property_count);
        if (err) return err;
        memcpy(object->staged.items, object->use, object->cls->property_count * sizeof *object->use);
        object->use = object->staged.items;
    }
    object->staged.items[prop] = (lar_value){.type = LAR_TYPE_LINK, .as.link = link};
    return LAR_OK;
}

int object_insert_prepared(lar_txn *txn, prepared_object *object, const row_owner *owner, lar_obj *out)
{
    lar_obj created;
    int err = insert(txn, object->cls, object->cls_id, object->use, owner, &created);
    if (!err && object->nested) err = stage_nested(txn, object->cls, object->staged.items, &created);
    if (!err && out) *out = created;
    return err;
}

void object_prepared_free(prepared_object *object)
{
    values_free(&object->staged);
    object->staged.items = NULL;
}

int object_create(lar_txn *txn, lar_class cls, const lar_value *values, size_t value_count, bool embedded,
                  const row_owner *owner, lar_obj *out)
{
    prepared_object object;
    int err = object_prepare(txn, cls, values, value_count, embedded, &object);
    if (!err) err = object_insert_prepared(txn, &object, embedded ? owner : NULL, out);
    object_prepared_free(&object);
    return err;
}

int lar_obj_create(lar_txn *txn, lar_class cls, const lar_value *values, size_t value_count, lar_obj *out)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, object_create(txn, cls, values, value_count, false, NULL, out));
}

/* ---- reading ---- */

int object_read_row(lar_txn *txn, const schema_class *cls, lar_obj obj, kv_val *row)
{
    if (obj.key && txn->cache_obj.key == obj.key && txn->cache_obj.cls == obj.cls) {
        *row = txn->cache_row;
        return LAR_OK;
    }
    int rc = kv_row_get(txn, cls->dbi, obj.key, row);
    if (rc == KV_NOTFOUND)
        return lar_fail(LAR_EDELETED, "object %llu of class '%s' does not exist or was deleted",
                        (unsigned long long)obj.key, cls->name);
    if (rc) return lar_fail_mdb(rc, "cannot read an object");
    txn->cache_obj = obj;
    txn->cache_row = *row;
    return LAR_OK;
}

static int open_object(lar_txn *txn, bool write, lar_obj obj, const schema_class **cls, kv_val *row)
{
    int err = open_class(txn, write, obj.cls, cls);
    return err ? err : object_read_row(txn, *cls, obj, row);
}

int lar_obj_get(lar_txn *txn, lar_obj obj, uint32_t prop, lar_value *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_obj_get: out is NULL");
    const schema_class *cls;
    kv_val row;
    int err = open_object(txn, false, obj, &cls, &row);
    if (!err) err = check_prop(cls, prop);
    return err ? err : row_decode(txn, cls, &row, prop, out);
}

int lar_obj_get_all(lar_txn *txn, lar_obj obj, lar_value *out, size_t count)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_obj_get_all: out is NULL");
    const schema_class *cls;
    kv_val row;
    int err = open_object(txn, false, obj, &cls, &row);
    if (err) return err;
    if (count != cls->property_count)
        return lar_fail(LAR_EINVAL, "lar_obj_get_all: class '%s' has %u properties, not %zu", cls->name,
                        cls->property_count, count);
    return row_decode_all(txn, cls, &row, out);
}

int lar_obj_exists(lar_txn *txn, lar_obj obj, int *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_obj_exists: out is NULL");
    const schema_class *cls;
    int err = open_class(txn, false, obj.cls, &cls);
    if (err) return err;
    kv_val key = {sizeof obj.key, &obj.key}, row;
    int rc = kv_get(txn, cls->dbi, &key, &row);
    if (rc && rc != KV_NOTFOUND) return lar_fail_mdb(rc, "lar_obj_exists");
    *out = rc == 0;
    return LAR_OK;
}

/* Whether row (of a keyed class) is that of the object with primary key value. */
static bool row_has_primary(const schema_class *cls, const kv_val *row, const lar_value *value)
{
    lar_value held;
    return !row_decode_raw(cls, row, (uint32_t)cls->primary_key, &held) && value_equal(&held, value);
}

/* object_find_primary, also giving the found object's stamp when stamp is not NULL:
 * read from the row the probe found, or from the displaced object's row. */
static int find_primary(lar_txn *txn, lar_class cls, const lar_value *key, lar_objkey *out, uint64_t *stamp)
{
    const schema_class *c;
    int err = open_class(txn, false, cls, &c);
    if (err) return err;
    if (c->primary_key < 0) return lar_fail(LAR_EINVAL, "class '%s' has no primary key", c->name);
    const lar_property_def *def = &c->properties[c->primary_key].def;
    if (key->type != def->type && !(key->type == LAR_TYPE_NULL && (def->flags & LAR_PROP_OPTIONAL)))
        return lar_fail(LAR_ETYPE, "the primary key of class '%s' is of type %s, not %s", c->name,
                        type_name(def->type), type_name(key->type));
    lar_objkey found = c->keyed_by_primary ? object_key_for_primary(key) : 0;
    if (found) { /* one probe: the row under the key the primary key gives */
        kv_val row;
        int rc = kv_row_get(txn, c->dbi, found, &row);
        if (rc && rc != KV_NOTFOUND) return lar_fail_mdb(rc, "cannot find an object by primary key");
        if (!rc && (err = row_check_shape(c, &row))) return err; /* damage, not "no such object" */
        if (!rc && row_has_primary(c, &row, key)) {
            /* The caller reads the row next (its stamp, at the row's end): start
             * fetching the row's last cache line while the lookup returns. */
            __builtin_prefetch((const uint8_t *)row.mv_data + row.mv_size - 1);
            txn->cache_obj = (lar_obj){cls, found};
            txn->cache_row = row;
            if (stamp) *stamp = row_stamp(c, &row);
            *out = found;
            return LAR_OK;
        }
    }
    err = c->keyed_by_primary ? LAR_OK : value_check(c, (uint32_t)c->primary_key, key); /* a string's bytes */
    if (!err) err = find_displaced(txn, c, cls, key, &found);
    if (err) return err;
    if (!found) return lar_fail(LAR_ENOTFOUND, "no object of class '%s' has that primary key", c->name);
    if (stamp) {
        kv_val row;
        err = object_read_row(txn, c, (lar_obj){cls, found}, &row);
        if (!err) err = row_check_shape(c, &row);
        if (err) return err;
        *stamp = row_stamp(c, &row);
    }
    *out = found;
    return LAR_OK;
}

int object_find_primary(lar_txn *txn, lar_class cls, const lar_value *key, lar_objkey *out)
{
    return find_primary(txn, cls, key, out, NULL);
}

int lar_obj_find(lar_txn *txn, lar_class cls, const lar_value *key, lar_obj *out)
{
    if (!key || !out) return lar_fail(LAR_EINVAL, "lar_obj_find: key and out must not be NULL");
    lar_objkey found;
    int err = object_find_primary(txn, cls, key, &found);
    if (!err) *out = (lar_obj){cls, found};
    return err;
}

int lar_obj_find_stamped(lar_txn *txn, lar_class cls, const lar_value *key, lar_obj *out, uint64_t *stamp)
{
    if (!key || !out || !stamp) return lar_fail(LAR_EINVAL, "lar_obj_find_stamped: key, out and stamp must not be NULL");
    lar_objkey found;
    int err = find_primary(txn, cls, key, &found, stamp);
    if (!err) *out = (lar_obj){cls, found};
    return err;
}

int lar_obj_stamp(lar_txn *txn, lar_obj obj, uint64_t *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_obj_stamp: out is NULL");
    const schema_class *cls;
    kv_val row;
    int err = open_object(txn, false, obj, &cls, &row);
    if (!err) err = row_check_shape(cls, &row);
    if (!err) *out = row_stamp(cls, &row);
    return err;
}

int lar_objects_count(lar_txn *txn, lar_class cls, uint64_t *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_objects_count: out is NULL");
    const schema_class *c;
    int err = open_class(txn, false, cls, &c);
    if (err) return err;
    int rc = kv_count(txn, c->dbi, out);
    return rc ? lar_fail_mdb(rc, "lar_objects_count") : LAR_OK;
}

/* ---- changing ---- */

/* set_value for a fixed-width property that no index holds: the row is copied with
 * the one slot changed, and a link's backlinks follow it. */
static int patch_value(lar_txn *txn, const schema_class *cls, lar_obj obj, const kv_val *row,
                       uint32_t prop, const lar_value *value, bool owner_recorded)
{
    lar_value old_link;
    int err = row_decode_raw(cls, row, prop, &old_link);
    if (!err) err = row_patch(cls, row, prop, value, &txn->row);
    if (!err) {
        kv_val encoded = {txn->row.size, txn->row.data};
        err = txn_row_put(txn, cls->dbi, obj.key, &encoded, 0);
    }
    if (!err && old_link.type == LAR_TYPE_LINK) err = backlink_remove(txn, old_link.as.link, obj, prop);
    if (!err && value->type == LAR_TYPE_LINK && !owner_recorded) err = backlink_add(txn, value->as.link, obj, prop);
    return err ? err : changes_modify(txn, obj, prop);
}

/* Keeps the owner that ends an embedded object's old row in its new one (in txn->row). */
static void keep_owner(lar_txn *txn, const schema_class *cls, const kv_val *old_row)
{
    if (!row_trailer_size(cls)) return;
    row_owner owner;
    row_owner_read(old_row, &owner);
    row_owner_write(txn->row.data, txn->row.size, &owner);
}

static int set_value(lar_txn *txn, const schema_class *cls, lar_obj obj, const kv_val *row,
                     uint32_t prop, const lar_value *value)
{
    if (row_can_patch(&cls->properties[prop].def) && !is_indexed(cls, prop))
        return patch_value(txn, cls, obj, row, prop, value, false);
    value_array values;
    int err = values_init(&values, cls->property_count);
    if (!err) err = row_decode_for_rewrite(cls, row, values.items);
    lar_value old_link = {.type = LAR_TYPE_NULL};
    if (!err) old_link = values.items[prop];
    uint8_t old_key[KEY_MAX];
    kv_val old = {0, old_key}, data = {sizeof obj.key, &obj.key};
    bool indexed = is_indexed(cls, prop);
    /* Encode everything that points into the old row before the first write moves it. */
    if (!err && indexed) old.mv_size = key_encode_index(obj.cls, prop, &values.items[prop], old_key);
    if (!err) values.items[prop] = *value;
    if (!err) err = row_encode(cls, values.items, &txn->row);
    if (!err) keep_owner(txn, cls, row);
    if (!err) row_set_stamp(cls, &txn->row, row_stamp(cls, row));
    if (!err) {
        kv_val encoded = {txn->row.size, txn->row.data};
        err = txn_row_put(txn, cls->dbi, obj.key, &encoded, 0);
    }
    if (!err && indexed) {
        err = txn_del(txn, txn->env->index_dbi, &old, &data);
        if (err == LAR_ENOTFOUND) err = LAR_OK;
        if (!err) err = index_entry(txn, obj.cls, prop, value, obj.key, true);
    }
    if (!err && old_link.type == LAR_TYPE_LINK) err = backlink_remove(txn, old_link.as.link, obj, prop);
    if (!err && value->type == LAR_TYPE_LINK) err = backlink_add(txn, value->as.link, obj, prop);
    if (!err) err = changes_modify(txn, obj, prop);
    values_free(&values);
    return err;
}

int object_link_placed(lar_txn *txn, lar_obj parent, uint32_t prop, lar_obj placed)
{
    const schema_class *cls = schema_class_at(txn->schema, parent.cls);
    kv_val row;
    int err = cls ? object_read_row(txn, cls, parent, &row) : lar_fail(LAR_EINVAL, "unknown class %u", parent.cls);
    lar_value link = {.type = LAR_TYPE_LINK, .as.link = placed};
    return err ? err : patch_value(txn, cls, parent, &row, prop, &link, true); /* a link: patched in place */
}

/* set_value for a mixed property: a new nested collection gets its header, and the
 * one the property held before is freed, whole. */
static int set_mixed(lar_txn *txn, const schema_class *cls, lar_obj obj, const kv_val *row, uint32_t prop,
                     const lar_value *value)
{
    lar_value old, stored = *value;
    int err = row_decode_raw(cls, row, prop, &old);
    if (err) return err;
    if (value_is_nested(&stored)) err = nested_check_tables(txn);
    if (!err && value_is_nested(&stored)) err = collection_new_id(txn, &stored.as.nested); /* no write: row stays */
    if (!err) err = set_value(txn, cls, obj, row, prop, &stored);
    if (!err && value_is_nested(&stored)) err = nested_create(txn, obj, prop, stored.type, 1, stored.as.nested);
    if (!err) err = nested_release(txn, (nested_parent){obj, prop, 0}, &old);
    return err;
}

static int set_property(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value)
{
    if (!value) return lar_fail(LAR_EINVAL, "lar_obj_set: value is NULL");
    const schema_class *cls;
    int err = open_class(txn, true, obj.cls, &cls);
    if (!err) err = check_prop(cls, prop);
    if (!err) err = value_check(cls, prop, value);
    kv_val row;
    if (!err) err = object_read_row(txn, cls, obj, &row);
    if (!err && value->type == LAR_TYPE_LINK && !cls->properties[prop].def.collection) {
        lar_value current; /* setting the embedded object a link holds already changes nothing */
        err = row_decode_raw(cls, &row, prop, &current);
        if (!err && current.type == LAR_TYPE_LINK && current.as.link.cls == value->as.link.cls &&
            current.as.link.key == value->as.link.key) {
            const schema_class *target = schema_class_at(txn->schema, current.as.link.cls);
            if (target && (target->flags & LAR_CLASS_EMBEDDED)) return LAR_OK;
        }
    }
    if (!err) err = check_link_target(txn, cls, prop, value);
    if (!err) err = object_read_row(txn, cls, obj, &row); /* the check may have written gathered backlinks */
    if (err) return err;
    lar_value normalized = value_normalize(&cls->properties[prop].def, value);
    if (cls->properties[prop].def.collection) return collection_clear(txn, obj, prop); /* null empties it */
    if (cls->properties[prop].def.type == LAR_TYPE_MIXED) return set_mixed(txn, cls, obj, &row, prop, &normalized);
    if ((int32_t)prop == cls->primary_key) {
        lar_value current;
        err = row_decode_raw(cls, &row, prop, &current);
        if (err || value_equal(&current, &normalized)) return err;
        return lar_fail(LAR_EINVAL, "the primary key of an object of class '%s' cannot be changed", cls->name);
    }
    return set_value(txn, cls, obj, &row, prop, &normalized);
}

int lar_obj_set(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, embedded_settle(txn, set_property(txn, obj, prop, value)));
}

/* Collects the primary-key and index keys of a row, as (u32 dbi, u32 size, bytes) records. */
static int collect_keys(lar_txn *txn, const schema_class *cls, lar_obj obj, const kv_val *row,
                        byte_buffer *keys)
{
    int err = LAR_OK;
    for (uint32_t i = 0; !err && i < cls->property_count; i++) {
        bool primary = (int32_t)i == cls->primary_key;
        if (!primary && !is_indexed(cls, i)) continue;
        lar_value value;
        uint8_t buffer[KEY_MAX];
        err = row_decode_raw(cls, row, i, &value);
        if (err) break;
        if (primary && cls->keyed_by_primary && obj.key == object_key_for_primary(&value)) continue;
        uint32_t size = (uint32_t)(primary ? key_encode_primary(obj.cls, &value, buffer)
                                           : key_encode_index(obj.cls, i, &value, buffer));
        uint32_t dbi = primary ? txn->env->pk_dbi : txn->env->index_dbi;
        err = buffer_append(keys, &dbi, 4);
        if (!err) err = buffer_append(keys, &size, 4);
        if (!err) err = buffer_append(keys, buffer, size);
    }
    return err;
}

static int delete_keys(lar_txn *txn, lar_objkey key, const byte_buffer *keys)
{
    for (size_t at = 0; at < keys->size;) {
        uint32_t dbi, size;
        memcpy(&dbi, keys->data + at, 4);
        memcpy(&size, keys->data + at + 4, 4);
        kv_val k = {size, keys->data + at + 8}, data = {sizeof key, &key};
        int err = txn_del(txn, dbi, &k, &data);
        if (err && err != LAR_ENOTFOUND) return err;
        at += 8 + size;
    }
    return LAR_OK;
}

/* Forgets obj's own links in the backlink table. */
static int remove_outgoing_links(lar_txn *txn, const schema_class *cls, lar_obj obj, const kv_val *row)
{
    int err = LAR_OK;
    for (uint32_t i = 0; !err && i < cls->property_count; i++) {
        lar_value value = {.type = LAR_TYPE_NULL};
        if (property_may_link(&cls->properties[i].def)) err = row_decode_raw(cls, row, i, &value);
        if (!err && value.type == LAR_TYPE_LINK) err = backlink_remove_all(txn, value.as.link, obj, i);
    }
    return err;
}

/* Nulls every link to target (Realm: links to a deleted object become nil). */
static int null_incoming_links(lar_txn *txn, lar_obj target)
{
    byte_buffer links = {0};
    int err = backlinks_collect(txn, target, &links);
    for (size_t at = 0; !err && at + sizeof(backlink) <= links.size; at += sizeof(backlink)) {
        backlink link;
        memcpy(&link, links.data + at, sizeof link);
        const schema_class *origin = schema_class_at(txn->schema, link.origin.cls);
        kv_val row;
        bool holds_links = origin && link.prop < origin->property_count &&
                           property_may_link(&origin->properties[link.prop].def);
        if (!holds_links) {
            err = lar_fail(LAR_ECORRUPT, "a backlink entry names a property that holds no link");
            break;
        }
        if (origin->properties[link.prop].def.collection) {
            err = collection_remove_target(txn, target, &link);
            continue;
        }
        err = object_read_row(txn, origin, link.origin, &row);
        if (err == LAR_EDELETED) { /* a stale entry: only damage leaves one */
            err = backlink_remove_all(txn, target, link.origin, link.prop);
            continue;
        }
        lar_value held = {.type = LAR_TYPE_LINK};
        if (!err && origin->properties[link.prop].def.type == LAR_TYPE_MIXED)
            err = row_decode_raw(origin, &row, link.prop, &held);
        if (!err && value_is_nested(&held)) { /* links inside the nested collections it holds */
            err = nested_remove_target(txn, (nested_parent){link.origin, link.prop, 0}, held.as.nested, target);
            if (!err) err = backlink_remove_all(txn, target, link.origin, link.prop);
            if (!err) err = changes_modify(txn, link.origin, link.prop);
            continue;
        }
        lar_value null = {.type = LAR_TYPE_NULL};
        if (!err && held.type == LAR_TYPE_LINK) err = set_value(txn, origin, link.origin, &row, link.prop, &null);
        else if (!err) err = backlink_remove_all(txn, target, link.origin, link.prop); /* stale: damage */
    }
    buffer_free(&links);
    return err;
}

int object_delete_one(lar_txn *txn, lar_obj obj)
{
    const schema_class *cls;
    kv_val row;
    int err = open_object(txn, true, obj, &cls, &row);
    if (err) return err;
    byte_buffer keys = {0}, copy = {0};
    err = collect_keys(txn, cls, obj, &row, &keys);
    if (!err && (cls->has_links || cls->has_collections)) { /* writes below may move the row */
        err = buffer_append(&copy, row.mv_data, row.mv_size);
        row = (kv_val){copy.size, copy.data};
    }
    if (!err && cls->has_links) err = remove_outgoing_links(txn, cls, obj, &row);
    if (!err && cls->has_collections) err = collections_free(txn, cls, obj, &row);
    if (!err) err = delete_keys(txn, obj.key, &keys);
    if (!err && cls->is_link_target) err = null_incoming_links(txn, obj);
    if (!err) {
        kv_val k = {sizeof obj.key, &obj.key};
        err = txn_del(txn, cls->dbi, &k, NULL);
    }
    if (!err) err = changes_delete(txn, obj);
    buffer_free(&keys);
    buffer_free(&copy);
    return err;
}

static int delete_object(lar_txn *txn, lar_obj obj)
{
    const schema_class *cls;
    int err = open_class(txn, true, obj.cls, &cls);
    if (err) return err;
    return cls->has_cascades ? cascade_delete(txn, cls, obj) : object_delete_one(txn, obj);
}

int lar_obj_delete(lar_txn *txn, lar_obj obj)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, embedded_settle(txn, delete_object(txn, obj)));
}

/* Deletes every key of dbi that starts with prefix. */
static int delete_prefix(lar_txn *txn, kv_table dbi, const uint8_t *prefix, size_t prefix_size)
{
    for (;;) {
        kv_cursor *cursor;
        int rc = kv_cursor_open(txn, dbi, &cursor);
        if (rc) return lar_fail_mdb(rc, "cannot delete objects");
        uint8_t copy[KEY_MAX];
        kv_val key = {prefix_size, (void *)prefix}, data;
        rc = kv_cursor_step(cursor, &key, &data, KV_SEEK);
        bool match = !rc && key.mv_size >= prefix_size && key.mv_size <= sizeof copy &&
                     !memcmp(key.mv_data, prefix, prefix_size);
        if (match) memcpy(copy, key.mv_data, key.mv_size); /* the delete may move the page */
        kv_cursor_close(cursor);
        if (rc && rc != KV_NOTFOUND) return lar_fail_mdb(rc, "cannot delete objects");
        if (!match) return LAR_OK;
        kv_val victim = {key.mv_size, copy};
        int err = txn_del(txn, dbi, &victim, NULL);
        if (err) return err;
    }
}

/* Deletes objects one by one, so that each keeps the backlink table in step. */
static int delete_each(lar_txn *txn, const schema_class *c, lar_class cls)
{
    for (;;) {
        kv_cursor *cursor;
        int rc = kv_cursor_open(txn, c->dbi, &cursor);
        if (rc) return lar_fail_mdb(rc, "cannot delete objects");
        kv_val key, data;
        lar_objkey first = 0;
        rc = kv_cursor_step(cursor, &key, &data, KV_FIRST);
        if (!rc && key.mv_size != sizeof first) rc = -1;
        if (!rc) memcpy(&first, key.mv_data, sizeof first);
        kv_cursor_close(cursor);
        if (rc == KV_NOTFOUND) return LAR_OK;
        if (rc == -1) return lar_fail(LAR_ECORRUPT, "class '%s' has a key that is not 8 bytes", c->name);
        if (rc) return lar_fail_mdb(rc, "cannot delete objects");
        int err = lar_obj_delete(txn, (lar_obj){cls, first});
        if (err) return err;
    }
}

/* Records every object of cls deleted, before the table is emptied at once. */
static int note_all_deleted(lar_txn *txn, const schema_class *c, lar_class cls)
{
    kv_cursor *cursor;
    int rc = kv_cursor_open(txn, c->dbi, &cursor);
    if (rc) return lar_fail_mdb(rc, "cannot delete objects");
    kv_val key, data;
    int err = LAR_OK;
    for (rc = kv_cursor_step(cursor, &key, &data, KV_FIRST); !rc && !err;
         rc = kv_cursor_step(cursor, &key, &data, KV_NEXT)) {
        lar_obj obj = {cls, 0};
        if (key.mv_size != sizeof obj.key) {
            err = lar_fail(LAR_ECORRUPT, "class '%s' has a key that is not 8 bytes", c->name);
            break;
        }
        memcpy(&obj.key, key.mv_data, sizeof obj.key);
        err = changes_delete(txn, obj);
    }
    kv_cursor_close(cursor);
    if (!err && rc && rc != KV_NOTFOUND) err = lar_fail_mdb(rc, "cannot delete objects");
    return err;
}

static int delete_class_objects(lar_txn *txn, lar_class cls)
{
    const schema_class *c;
    int err = open_class(txn, true, cls, &c);
    if (err) return err;
    if (c->has_links || c->is_link_target || c->has_collections) return delete_each(txn, c, cls);
    uint8_t prefix[4];
    size_t size = key_encode_class_prefix(cls, prefix);
    err = note_all_deleted(txn, c, cls);
    if (!err) err = txn_drop(txn, c->dbi);
    if (!err && c->primary_key >= 0) err = delete_prefix(txn, txn->env->pk_dbi, prefix, size);
    if (!err && c->has_indexes) err = delete_prefix(txn, txn->env->index_dbi, prefix, size);
    return err;
}

int lar_objects_delete_all(lar_txn *txn, lar_class cls)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, embedded_settle(txn, delete_class_objects(txn, cls)));
}
