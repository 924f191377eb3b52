/* Sets: one LMDB entry per element in the keyed table, so that a set of any size
 * costs O(log n) per insert, remove or lookup and nothing is ever rewritten whole:
 *
 *   element: key [set id u64 BE][element, order-preserving (codec's key_encode_element)]
 *            value empty
 *   count:   key [set id u64 BE]  value u64 count (sorts before the set's elements)
 *
 * The owner's row slot holds the set id, 0 while the set is empty (an emptied set
 * gives its id up). Elements are unique by their encoding, which is one-to-one, and
 * iterate in its order: numbers, timestamps and strings (bytewise) ascending. The
 * set algebra walks two sets' runs of keys side by side, as a merge of sorted lists.
 * An element's encoding must fit a key: strings and binaries of sets hold at most
 * LAR_SET_ELEMENT_MAX bytes.
 *
 * Sets of mixed values key their elements with codec's key_encode_mixed (ranked by
 * kind, numbers by value, so int 1 and double 1.0 are one element), and keep as the
 * entry's value the element as first inserted, typed (codec/element.c), which reads
 * return: a set that holds double 1.0 reads it back as a double. */
#include "collection/collection.h"

#include <string.h>

#define SET_KEY_MAX KEY_MAX
_Static_assert(LAR_SET_ELEMENT_MAX + 2 <= SET_KEY_MAX - ID_SIZE, "a set's longest element fits a key");

static int corrupt(void)
{
    return lar_fail(LAR_ECORRUPT, "a set's storage is undecodable");
}

/* ---- entries ---- */

typedef struct member_key {
    uint8_t bytes[SET_KEY_MAX];
    size_t size;
} member_key;

static int encode_member(const collection_ref *set, uint64_t id, const lar_value *value, member_key *out)
{
    keyed_prefix(out->bytes, id);
    size_t length = value->type == LAR_TYPE_STRING ? value->as.string.size
                  : value->type == LAR_TYPE_BINARY ? value->as.binary.size : 0;
    bool mixed = set->prop->def.type == LAR_TYPE_MIXED;
    size_t size = length > LAR_SET_ELEMENT_MAX ? 0
                : mixed ? key_encode_mixed(value, out->bytes + ID_SIZE, SET_KEY_MAX - ID_SIZE)
                        : key_encode_element(value, out->bytes + ID_SIZE, SET_KEY_MAX - ID_SIZE);
    if (!size)
        return lar_fail(LAR_EINVAL, "set '%s.%s' holds strings and binaries of at most %d bytes", set->cls->name,
                        set->prop->def.name, LAR_SET_ELEMENT_MAX);
    out->size = ID_SIZE + size;
    return LAR_OK;
}

static bool member_exists(lar_txn *txn, const member_key *key, int *rc)
{
    kv_val k = {key->size, (void *)key->bytes}, data;
    *rc = kv_get(txn, txn->schema->keyed_dbi, &k, &data);
    return *rc == 0;
}

/* Whether an encoded member is a link (every member of a set of links, the links of a
 * set of mixed values), and which. */
static bool member_link(const collection_ref *set, const uint8_t *element, size_t size, lar_obj *out)
{
    if (set->prop->def.type == LAR_TYPE_MIXED) return key_decode_mixed_link(element, size, out);
    if (set->prop->def.type != LAR_TYPE_LINK) return false;
    lar_value value;
    if (!key_decode_element(element, size, LAR_TYPE_LINK, set->prop->target, &value) || value.type != LAR_TYPE_LINK)
        *out = (lar_obj){set->prop->target, 0};
    else
        *out = value.as.link;
    return true;
}

/* What a member's entry holds: nothing, or, in a set of mixed values, the typed
 * element (into buffer, which the caller frees). */
static int member_data(const collection_ref *set, const lar_value *element, byte_buffer *buffer, kv_val *out)
{
    *out = (kv_val){0, NULL};
    if (set->prop->def.type != LAR_TYPE_MIXED) return LAR_OK;
    size_t size = element_encoded_size(element, true);
    buffer->size = 0;
    if (buffer_reserve(buffer, size)) return LAR_ENOMEM;
    element_encode(element, true, buffer->data);
    *out = (kv_val){size, buffer->data};
    return LAR_OK;
}

/* Adds an encoded element known to be absent; the set has its id already. */
static int add_member(lar_txn *txn, const collection_ref *set, uint64_t id, const member_key *key,
                      const lar_value *element)
{
    uint64_t count;
    byte_buffer bytes = {0};
    kv_val k = {key->size, (void *)key->bytes}, data;
    lar_obj link;
    int err = member_data(set, element, &bytes, &data);
    if (!err) err = keyed_count(txn, id, &count);
    if (!err) err = txn_put(txn, txn->schema->keyed_dbi, &k, &data, 0);
    if (!err) err = keyed_count_store(txn, id, count + 1);
    if (!err && member_link(set, key->bytes + ID_SIZE, key->size - ID_SIZE, &link))
        err = backlink_add(txn, link, set->obj, set->prop_index);
    buffer_free(&bytes);
    return err;
}

/* Removes an encoded element known to be present; an emptied set gives its id up. */
static int drop_member(lar_txn *txn, const collection_ref *set, const member_key *key)
{
    uint64_t count;
    kv_val k = {key->size, (void *)key->bytes};
    int err = keyed_count(txn, set->root, &count);
    if (!err) err = txn_del(txn, txn->schema->keyed_dbi, &k, NULL);
    if (err == LAR_ENOTFOUND) err = corrupt();
    if (!err) err = keyed_count_store(txn, set->root, count ? count - 1 : 0);
    if (!err && count <= 1) err = collection_write_root(txn, set, 0);
    lar_obj link;
    if (!err && member_link(set, key->bytes + ID_SIZE, key->size - ID_SIZE, &link))
        err = backlink_remove(txn, link, set->obj, set->prop_index);
    return err;
}

/* ---- walking a set's elements ---- */

/* Calls visit with each encoded element of set id after `after` (or from the first),
 * and its entry's value, in order; visit returns LAR_OK to go on, 1 to stop. */
typedef int (*member_visitor)(const uint8_t *element, size_t size, const kv_val *data, void *context);

typedef struct member_walk {
    member_visitor visit;
    void *context;
} member_walk;

static int visit_member(const kv_val *key, const kv_val *data, void *context)
{
    const member_walk *walk = context;
    return walk->visit((const uint8_t *)key->mv_data + ID_SIZE, key->mv_size - ID_SIZE, data, walk->context);
}

static int walk_members(lar_txn *txn, uint64_t id, const member_key *after, member_visitor visit, void *context)
{
    member_walk walk = {visit, context};
    return keyed_walk(txn, id, after ? after->bytes : NULL, after ? after->size : 0, "cannot read a set", visit_member, &walk);
}

/* Encoded elements collected for changes made after a walk: (u32 size, bytes) records. */
static int collect_member(const uint8_t *element, size_t size, const kv_val *data, void *context)
{
    (void)data;
    uint32_t length = (uint32_t)size;
    int err = buffer_append(context, &length, 4);
    return err ? err : buffer_append(context, element, size);
}

/* Drops every element (and its backlink) and the count; the id is given up. */
static int drop_all(lar_txn *txn, const collection_ref *set, uint64_t id)
{
    byte_buffer members = {0};
    int err = walk_members(txn, id, NULL, collect_member, &members);
    for (size_t at = 0; !err && at < members.size;) {
        uint32_t size;
        memcpy(&size, members.data + at, 4);
        member_key key;
        keyed_prefix(key.bytes, id);
        memcpy(key.bytes + ID_SIZE, members.data + at + 4, size);
        key.size = ID_SIZE + size;
        kv_val k = {key.size, key.bytes};
        err = txn_del(txn, txn->schema->keyed_dbi, &k, NULL);
        if (err == LAR_ENOTFOUND) err = LAR_OK;
        lar_obj link;
        if (!err && member_link(set, key.bytes + ID_SIZE, size, &link))
            err = backlink_remove_all(txn, link, set->obj, set->prop_index);
        at += 4 + size;
    }
    if (!err) err = keyed_count_store(txn, id, 0);
    buffer_free(&members);
    return err;
}

int set_free(lar_txn *txn, const schema_property *prop, lar_obj obj, uint32_t prop_index, uint64_t id)
{
    collection_ref set = {schema_class_at(txn->schema, obj.cls), prop, obj, prop_index, id};
    return drop_all(txn, &set, id);
}

int set_remove_target(lar_txn *txn, const collection_ref *set, lar_obj target)
{
    lar_value link = {.type = LAR_TYPE_LINK};
    link.as.link = target;
    member_key key;
    int rc, err = set->root ? encode_member(set, set->root, &link, &key) : LAR_OK;
    if (err || !set->root) return err;
    if (!member_exists(txn, &key, &rc)) return rc == KV_NOTFOUND ? LAR_OK : lar_fail_mdb(rc, "cannot read a set");
    return drop_member(txn, set, &key);
}

/* ---- the public functions ---- */

static int open_set(lar_txn *txn, bool write, lar_obj obj, uint32_t prop, collection_ref *out)
{
    return collection_open(txn, write, obj, prop, LAR_COLLECTION_SET, out);
}

/* Checks an element's type (not whether a link's target exists: a deleted object
 * is in no set) and encodes it for the set. */
static int encode_query(const collection_ref *set, const lar_value *value, member_key *out)
{
    if (!value) return lar_fail(LAR_EINVAL, "the value is NULL");
    int err = value_check_element(set->cls, set->prop_index, value);
    lar_value normalized = value_normalize(&set->prop->def, value);
    return err ? err : encode_member(set, set->root, &normalized, out);
}

int lar_set_count(lar_txn *txn, lar_obj obj, uint32_t prop, size_t *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_set_count: out is NULL");
    collection_ref set;
    uint64_t count;
    int err = open_set(txn, false, obj, prop, &set);
    if (!err) err = keyed_count(txn, set.root, &count);
    if (!err) *out = (size_t)count;
    return err;
}

int lar_set_contains(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value, int *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_set_contains: out is NULL");
    collection_ref set;
    member_key key;
    int rc, err = open_set(txn, false, obj, prop, &set);
    if (!err) err = encode_query(&set, value, &key);
    if (err) return err;
    bool found = set.root && member_exists(txn, &key, &rc);
    if (set.root && !found && rc != KV_NOTFOUND) return lar_fail_mdb(rc, "cannot read a set");
    *out = found;
    return LAR_OK;
}

static int insert_member(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value, int *inserted)
{
    collection_ref set;
    lar_value element;
    member_key key;
    int rc, err = open_set(txn, true, obj, prop, &set);
    if (!err) err = collection_check_element(txn, &set, value, &element);
    if (!err) err = encode_member(&set, set.root, &element, &key); /* its size, before any write */
    if (err) return err;
    if (set.root && member_exists(txn, &key, &rc)) {
        if (inserted) *inserted = 0;
        return LAR_OK;
    }
    if (set.root && rc != KV_NOTFOUND) return lar_fail_mdb(rc, "cannot read a set");
    uint64_t id = set.root;
    if (!id) {
        err = collection_new_id(txn, &id);
        if (!err) err = collection_write_root(txn, &set, id);
        if (!err) err = encode_member(&set, id, &element, &key);
    }
    if (!err) err = add_member(txn, &set, id, &key, &element);
    if (!err && inserted) *inserted = 1;
    return err;
}

int lar_set_insert(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value, int *inserted)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, insert_member(txn, obj, prop, value, inserted));
}

static int remove_member(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value, int *removed)
{
    collection_ref set;
    member_key key;
    int rc, err = open_set(txn, true, obj, prop, &set);
    if (!err) err = encode_query(&set, value, &key);
    if (err) return err;
    bool found = set.root && member_exists(txn, &key, &rc);
    if (set.root && !found && rc != KV_NOTFOUND) return lar_fail_mdb(rc, "cannot read a set");
    if (found) err = drop_member(txn, &set, &key);
    if (!err && removed) *removed = found;
    return err;
}

int lar_set_remove(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value, int *removed)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, remove_member(txn, obj, prop, value, removed));
}

static int clear_set(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    collection_ref set;
    int err = open_set(txn, true, obj, prop, &set);
    if (!err && set.root) err = drop_all(txn, &set, set.root);
    return err ? err : collection_write_root(txn, &set, 0);
}

int lar_set_clear(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, clear_set(txn, obj, prop));
}

typedef struct element_list {
    lar_txn *txn;
    const collection_ref *set;
    lar_value *out;
    size_t capacity, count;
} element_list;

static int list_member(const uint8_t *element, size_t size, const kv_val *data, void *context)
{
    element_list *list = context;
    lar_value *value = &list->out[list->count];
    if (list->set->prop->def.type == LAR_TYPE_MIXED) { /* the typed element beside the key */
        if (!data->mv_size || element_size(data->mv_data, data->mv_size) != data->mv_size) return corrupt();
        element_decode(data->mv_data, 0, value);
    } else if (!key_decode_element(element, size, list->set->prop->def.type, list->set->prop->target, value))
        return corrupt();
    int err = collection_keep(list->txn, value);
    if (err) return err;
    return ++list->count == list->capacity ? 1 : LAR_OK;
}

int lar_set_list(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *after, lar_value *out, size_t capacity,
                 size_t *count)
{
    if (count) *count = 0;
    if (!out || !count || !capacity)
        return lar_fail(LAR_EINVAL, "lar_set_list: out and count must not be NULL, capacity not 0");
    collection_ref set;
    member_key from;
    int err = open_set(txn, false, obj, prop, &set);
    if (!err && after) err = encode_query(&set, after, &from);
    if (err) return err;
    element_list list = {txn, &set, out, capacity, 0};
    err = walk_members(txn, set.root, after ? &from : NULL, list_member, &list);
    *count = list.count;
    if (!err && !list.count) return LAR_ENOTFOUND; /* the end, as iterators report it */
    return err;
}

/* ---- two sets ---- */

/* Two sets hold the same elements when their properties have one type, target and nullability. */
static int open_pair(lar_txn *txn, bool write, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop,
                     collection_ref *a, collection_ref *b)
{
    int err = open_set(txn, write, obj, prop, a);
    if (!err) err = open_set(txn, false, other, other_prop, b);
    if (err) return err;
    const lar_property_def *x = &a->prop->def, *y = &b->prop->def;
    if (x->type != y->type || (x->flags & LAR_PROP_OPTIONAL) != (y->flags & LAR_PROP_OPTIONAL) ||
        (x->type == LAR_TYPE_LINK && a->prop->target != b->prop->target))
        return lar_fail(LAR_EINVAL, "sets '%s.%s' and '%s.%s' hold different elements", a->cls->name, x->name,
                        b->cls->name, y->name);
    return LAR_OK;
}

/* Where an element is: in the first set only, the second only, or both. */
enum { IN_FIRST = 1, IN_SECOND = 2, IN_BOTH = 3 };
typedef int (*merge_visitor)(int where, const uint8_t *element, size_t size, void *context);

static bool next_member(kv_cursor *cursor, const uint8_t *prefix, kv_val *key, bool first, int *rc)
{
    kv_val data;
    if (first) {
        key->mv_size = ID_SIZE;
        key->mv_data = (void *)prefix;
    }
    for (*rc = kv_cursor_step(cursor, key, &data, first ? KV_SEEK : KV_NEXT); !*rc;
         *rc = kv_cursor_step(cursor, key, &data, KV_NEXT)) {
        if (key->mv_size < ID_SIZE || memcmp(key->mv_data, prefix, ID_SIZE)) return false;
        if (key->mv_size > ID_SIZE) return true;
    }
    return false;
}

static int compare_members(const kv_val *a, const kv_val *b)
{
    size_t as = a->mv_size - ID_SIZE, bs = b->mv_size - ID_SIZE;
    int order = memcmp((const uint8_t *)a->mv_data + ID_SIZE, (const uint8_t *)b->mv_data + ID_SIZE, as < bs ? as : bs);
    return order ? order : (as > bs) - (as < bs);
}

/* Walks two sets side by side in element order (a merge of two sorted runs). */
static int merge_sets(lar_txn *txn, uint64_t first, uint64_t second, merge_visitor visit, void *context)
{
    uint8_t prefix_a[ID_SIZE], prefix_b[ID_SIZE];
    keyed_prefix(prefix_a, first);
    keyed_prefix(prefix_b, second);
    kv_cursor *a = NULL, *b = NULL;
    int rc = kv_cursor_open(txn, txn->schema->keyed_dbi, &a);
    if (!rc) rc = kv_cursor_open(txn, txn->schema->keyed_dbi, &b);
    if (rc) {
        if (a) kv_cursor_close(a);
        return lar_fail_mdb(rc, "cannot read a set");
    }
    kv_val ka, kb;
    int rca = 0, rcb = 0, err = LAR_OK;
    bool has_a = first && next_member(a, prefix_a, &ka, true, &rca);
    bool has_b = second && next_member(b, prefix_b, &kb, true, &rcb);
    while (!err && (has_a || has_b)) {
        int order = !has_a ? 1 : !has_b ? -1 : compare_members(&ka, &kb);
        const kv_val *at = order <= 0 ? &ka : &kb;
        err = visit(order < 0 ? IN_FIRST : order > 0 ? IN_SECOND : IN_BOTH, (const uint8_t *)at->mv_data + ID_SIZE,
                    at->mv_size - ID_SIZE, context);
        if (order <= 0) has_a = next_member(a, prefix_a, &ka, false, &rca);
        if (order >= 0) has_b = next_member(b, prefix_b, &kb, false, &rcb);
    }
    kv_cursor_close(a);
    kv_cursor_close(b);
    if (err == 1) return LAR_OK;
    if (!err && ((rca && rca != KV_NOTFOUND) || (rcb && rcb != KV_NOTFOUND))) err = lar_fail_mdb(rca ? rca : rcb, "cannot read a set");
    return err;
}

typedef struct change_plan {
    int wanted;               /* the elements to collect: IN_FIRST, IN_SECOND or IN_BOTH */
    byte_buffer members;
} change_plan;

static int plan_member(int where, const uint8_t *element, size_t size, void *context)
{
    change_plan *plan = context;
    return where == plan->wanted ? collect_member(element, size, NULL, &plan->members) : LAR_OK;
}

/* Bytewise order of two keys, as the keyed table sorts them. */
static int compare_keys(const kv_val *a, const kv_val *b)
{
    size_t as = a->mv_size, bs = b->mv_size;
    int order = memcmp(a->mv_data, b->mv_data, as < bs ? as : bs);
    return order ? order : (as > bs) - (as < bs);
}

/* Adds (add) or drops the planned elements from set a (elements known to be absent,
 * or present). The count is read once and stored once; an emptied set gives its id up. */
static int apply_plan(lar_txn *txn, collection_ref *a, const change_plan *plan, bool add, uint64_t from)
{
    if (!plan->members.size) return LAR_OK;
    int err = LAR_OK;
    if (add && !a->root) {
        uint64_t id;
        err = collection_new_id(txn, &id);
        if (!err) err = collection_write_root(txn, a, id);
        if (!err) a->root = id;
    }
    uint64_t count = 0;
    byte_buffer copy = {0};
    if (!err) err = keyed_count(txn, a->root, &count);
    bool mixed = a->prop->def.type == LAR_TYPE_MIXED;
    /* Drops go through one cursor walking a forward: the planned elements are in order. */
    kv_cursor *cursor = NULL;
    bool positioned = false;
    if (!err && !add) {
        int rc = kv_cursor_open(txn, txn->schema->keyed_dbi, &cursor);
        if (rc) err = lar_fail_mdb(rc, "cannot read a set");
    }
    for (size_t at = 0; !err && at < plan->members.size;) {
        uint32_t size;
        memcpy(&size, plan->members.data + at, 4);
        member_key key;
        keyed_prefix(key.bytes, a->root);
        memcpy(key.bytes + ID_SIZE, plan->members.data + at + 4, size);
        key.size = ID_SIZE + size;
        kv_val k = {key.size, key.bytes}, value = {0, NULL};
        lar_obj target;
        bool links = member_link(a, key.bytes + ID_SIZE, size, &target);
        if (add && mixed) { /* the element as the other set (id from) keeps it; copied: the put may move it */
            member_key theirs = key;
            keyed_prefix(theirs.bytes, from);
            kv_val tk = {theirs.size, theirs.bytes};
            int rc = kv_get(txn, txn->schema->keyed_dbi, &tk, &value);
            if (rc) err = rc == KV_NOTFOUND ? corrupt() : lar_fail_mdb(rc, "cannot read a set");
            if (!err) err = buffer_append(&copy, value.mv_data, value.mv_size) ? LAR_ENOMEM : LAR_OK;
            value = (kv_val){copy.size, copy.data};
        }
        if (add) {
            if (!err) err = txn_put(txn, txn->schema->keyed_dbi, &k, &value, 0);
            copy.size = 0;
            count++;
            if (!err && links) err = backlink_add(txn, target, a->obj, a->prop_index);
        } else {
            kv_val found = k, data;
            int rc = kv_cursor_step(cursor, &found, &data, positioned ? KV_NEXT : KV_SEEK);
            while (!rc && compare_keys(&found, &k) < 0) rc = kv_cursor_step(cursor, &found, &data, KV_NEXT);
            positioned = true;
            if (rc && rc != KV_NOTFOUND) err = lar_fail_mdb(rc, "cannot read a set");
            else if (rc || compare_keys(&found, &k)) err = corrupt();
            else err = txn_cursor_del(txn, cursor);
            count = count ? count - 1 : 0;
            if (!err && links) err = backlink_remove(txn, target, a->obj, a->prop_index);
        }
        at += 4 + size;
    }
    if (cursor) kv_cursor_close(cursor);
    buffer_free(&copy);
    if (!err) err = keyed_count_store(txn, a->root, count);
    if (!err && !count) {
        err = collection_write_root(txn, a, 0);
        if (!err) a->root = 0;
    }
    return err;
}

/* Changes obj's set by other's: IN_SECOND elements are added (union); IN_FIRST
 * (intersection) or IN_BOTH (difference) elements are dropped. */
static int change_by(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop, int wanted)
{
    collection_ref a, b;
    int err = open_pair(txn, true, obj, prop, other, other_prop, &a, &b);
    if (err) return err;
    change_plan plan = {wanted, {0}};
    err = merge_sets(txn, a.root, a.root == b.root ? 0 : b.root, plan_member, &plan);
    if (!err && a.root && a.root == b.root && wanted == IN_BOTH) { /* a set minus itself */
        err = drop_all(txn, &a, a.root);
        if (!err) err = collection_write_root(txn, &a, 0);
    } else if (!err && a.root != b.root) {
        err = apply_plan(txn, &a, &plan, wanted == IN_SECOND, b.root);
    }
    buffer_free(&plan.members);
    return err;
}

static int unite(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop)
{
    return change_by(txn, obj, prop, other, other_prop, IN_SECOND);
}

int lar_set_union(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, unite(txn, obj, prop, other, other_prop));
}

static int intersect(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop)
{
    return change_by(txn, obj, prop, other, other_prop, IN_FIRST);
}

int lar_set_intersect(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, intersect(txn, obj, prop, other, other_prop));
}

static int subtract(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop)
{
    return change_by(txn, obj, prop, other, other_prop, IN_BOTH);
}

int lar_set_subtract(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, subtract(txn, obj, prop, other, other_prop));
}

/* Stops at the first element found in `where`, noting it. */
typedef struct finding {
    int where;
    bool found;
} finding;

static int find_member(int where, const uint8_t *element, size_t size, void *context)
{
    (void)element;
    (void)size;
    finding *f = context;
    f->found = where == f->where;
    return f->found ? 1 : LAR_OK;
}

static int test_pair(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop, int where,
                     bool *found)
{
    collection_ref a, b;
    int err = open_pair(txn, false, obj, prop, other, other_prop, &a, &b);
    if (err) return err;
    finding f = {where, false};
    if (a.root == b.root) f.found = where == IN_BOTH && a.root; /* one set: all in both */
    else err = merge_sets(txn, a.root, b.root, find_member, &f);
    *found = f.found;
    return err;
}

int lar_set_is_subset(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop, int *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_set_is_subset: out is NULL");
    bool outside;
    int err = test_pair(txn, obj, prop, other, other_prop, IN_FIRST, &outside);
    if (!err) *out = !outside;
    return err;
}

int lar_set_intersects(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop, int *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_set_intersects: out is NULL");
    bool common;
    int err = test_pair(txn, obj, prop, other, other_prop, IN_BOTH, &common);
    if (!err) *out = common;
    return err;
}
