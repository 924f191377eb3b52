/* Nested collections inside mixed values (Realm 10.51's nested AnyRealmValue): a list
 * of mixed values or a dictionary (string keys, mixed values) held by a mixed slot (a
 * mixed property, an element of a list of mixed values, a value of a map of mixed
 * values, or an element of another nested collection).
 *
 * Each nested collection has an id from the collection sequence (never reused) and a
 * header record under that id in the collection table, beside the list nodes (their
 * ids come from the same sequence, so they never meet):
 *
 *   header: [u8 kind: 3 list, 4 dictionary][u8 depth][u16 0][u32 property]
 *           [u32 owner class][u32 0][u64 owner key][u64 list root node]   32 bytes
 *
 * The slot holding it stores [type LIST or DICTIONARY][u64 id] (codec/element.c, row.c),
 * which never changes while the collection lives: a list's root moves on splits, and
 * only its header is rewritten, never its parent. Contents reuse the top-level kinds:
 * a nested list is a counted B+tree of nodes (list.c) whose root the header holds; a
 * nested dictionary is keyed entries [id][key][0] -> element with its count at [id]
 * (map.c), keyed by the nested id itself, which it keeps while empty.
 *
 * The owner (object, top-level property) in the header lets a handle be checked: a
 * handle whose header is gone (the collection was replaced or freed, or its owner
 * deleted) or names another owner reports LAR_EDELETED and reads nothing. Links inside
 * nested collections are in the backlink table under the owner and its top-level
 * property, one count per link: deleting a target walks that property's nested tree
 * (nested_remove_target). Depth: a collection in a property's slot or in an element
 * of the property's own list or map is at level 1; one in a level-n collection at
 * level n + 1, up to LAR_NESTED_MAX_DEPTH. */
#include "collection/collection.h"

#include <string.h>

#define HEADER_SIZE 32
#define HEADER_LIST 3
#define HEADER_DICTIONARY 4

typedef struct header {
    uint8_t kind;
    uint8_t depth;
    uint32_t prop;
    lar_obj owner;
    uint64_t root;
} header;

static void header_encode(const header *h, uint8_t *out)
{
    memset(out, 0, HEADER_SIZE);
    out[0] = h->kind;
    out[1] = h->depth;
    memcpy(out + 4, &h->prop, 4);
    memcpy(out + 8, &h->owner.cls, 4);
    memcpy(out + 16, &h->owner.key, 8);
    memcpy(out + 24, &h->root, 8);
}

static int header_write(lar_txn *txn, uint64_t id, const header *h)
{
    uint8_t bytes[HEADER_SIZE];
    header_encode(h, bytes);
    kv_val key = {sizeof id, &id}, data = {sizeof bytes, bytes};
    return txn_put(txn, txn->schema->collection_dbi, &key, &data, 0);
}

/* Reads header id: LAR_ENOTFOUND (not recorded) when there is none. */
static int header_read(lar_txn *txn, uint64_t id, header *out)
{
    if (!id || !txn->schema->has_collections) return LAR_ENOTFOUND;
    kv_val key = {sizeof id, &id}, data;
    int rc = kv_get(txn, txn->schema->collection_dbi, &key, &data);
    if (rc == KV_NOTFOUND) return LAR_ENOTFOUND;
    if (rc) return lar_fail_mdb(rc, "cannot read a nested collection");
    const uint8_t *bytes = data.mv_data;
    /* A list node under that id (kind 1 or 2, another size) is no nested collection. */
    if (data.mv_size != HEADER_SIZE || (bytes[0] != HEADER_LIST && bytes[0] != HEADER_DICTIONARY))
        return LAR_ENOTFOUND;
    out->kind = bytes[0];
    out->depth = bytes[1];
    memcpy(&out->prop, bytes + 4, 4);
    memcpy(&out->owner.cls, bytes + 8, 4);
    memcpy(&out->owner.key, bytes + 16, 8);
    memcpy(&out->root, bytes + 24, 8);
    if (!out->depth || out->depth > LAR_NESTED_MAX_DEPTH || (out->kind == HEADER_DICTIONARY && out->root))
        return lar_fail(LAR_ECORRUPT, "a nested collection's header is undecodable");
    return LAR_OK;
}

/* Fills ref from header id (read into h). */
static int ref_from_header(lar_txn *txn, uint64_t id, const header *h, collection_ref *out)
{
    const schema_class *cls = schema_class_at(txn->schema, h->owner.cls);
    if (!cls || h->prop >= cls->property_count || cls->properties[h->prop].def.type != LAR_TYPE_MIXED ||
        cls->properties[h->prop].def.collection == LAR_COLLECTION_SET)
        return lar_fail(LAR_ECORRUPT, "a nested collection's header names no mixed property");
    out->cls = cls;
    out->prop = &cls->properties[h->prop];
    out->obj = h->owner;
    out->prop_index = h->prop;
    out->nested = id;
    out->depth = h->depth;
    out->kind = h->kind == HEADER_LIST ? LAR_COLLECTION_LIST : LAR_COLLECTION_MAP;
    out->root = h->kind == HEADER_LIST ? h->root : id;
    return LAR_OK;
}

static const char *kind_word(lar_collection kind)
{
    return kind == LAR_COLLECTION_LIST ? "list" : "dictionary";
}

int collection_open_at(lar_txn *txn, bool write, const lar_coll *coll, lar_collection kind, collection_ref *out)
{
    if (!coll) return lar_fail(LAR_EINVAL, "the collection handle is NULL");
    if (!coll->id) {
        int err = collection_open(txn, write, coll->obj, coll->prop, kind, out);
        if (!err && coll->kind != kind)
            err = lar_fail(LAR_EINVAL, "the handle names a %s, not a %s", coll->kind == LAR_COLLECTION_LIST ?
                           "list" : "map", kind == LAR_COLLECTION_LIST ? "list" : "map");
        return err;
    }
    int err = txn_check(txn, write);
    if (err) return err;
    if (coll->kind != kind)
        return lar_fail(LAR_EINVAL, "the handle names a nested %s, not a %s", kind_word(coll->kind),
                        kind_word(kind));
    const schema_class *cls = schema_class_at(txn->schema, coll->obj.cls);
    if (!cls) return lar_fail(LAR_EINVAL, "unknown class %u", coll->obj.cls);
    if (coll->prop >= cls->property_count)
        return lar_fail(LAR_EINVAL, "class '%s' has no property %u (it has %u)", cls->name, coll->prop,
                        cls->property_count);
    header h;
    err = header_read(txn, coll->id, &h);
    if (!err && (h.owner.cls != coll->obj.cls || h.owner.key != coll->obj.key || h.prop != coll->prop))
        err = LAR_ENOTFOUND; /* another owner's: never read through this handle */
    if (!err && (h.kind == HEADER_LIST) != (kind == LAR_COLLECTION_LIST))
        return lar_fail(LAR_EINVAL, "nested collection %llu is a %s, not a %s", (unsigned long long)coll->id,
                        kind_word(h.kind == HEADER_LIST ? LAR_COLLECTION_LIST : LAR_COLLECTION_MAP),
                        kind_word(kind));
    if (err == LAR_ENOTFOUND)
        return lar_fail(LAR_EDELETED, "nested %s %llu of '%s.%s' (object %llu) no longer exists: it was replaced "
                        "or removed, or its owner was deleted", kind_word(kind), (unsigned long long)coll->id,
                        cls->name, cls->properties[coll->prop].def.name, (unsigned long long)coll->obj.key);
    return err ? err : ref_from_header(txn, coll->id, &h, out);
}

int nested_write_root(lar_txn *txn, const collection_ref *ref, uint64_t root)
{
    if (ref->kind != LAR_COLLECTION_LIST) return LAR_OK; /* a dictionary keeps its id */
    header h = {HEADER_LIST, (uint8_t)ref->depth, ref->prop_index, ref->obj, root};
    return header_write(txn, ref->nested, &h);
}

int nested_create(lar_txn *txn, lar_obj obj, uint32_t prop, lar_type type, uint32_t depth, uint64_t id)
{
    header h = {type == LAR_TYPE_LIST ? HEADER_LIST : HEADER_DICTIONARY, (uint8_t)depth, prop, obj, 0};
    return header_write(txn, id, &h);
}

int nested_check_tables(lar_txn *txn)
{
    if (txn->schema->has_collections) return LAR_OK;
    return lar_fail(LAR_ENOTSUP, "this file was written before mixed values could hold nested lists and "
                    "dictionaries, and has no table for them (adding a class with a collection creates it)");
}

int nested_materialize(lar_txn *txn, const collection_ref *ref, lar_value *element)
{
    if (!value_is_nested(element)) return LAR_OK;
    if (ref->depth + 1 > LAR_NESTED_MAX_DEPTH)
        return lar_fail(LAR_EINVAL, "'%s.%s': a nested %s would sit at level %u, deeper than the %d levels "
                        "a mixed value may nest", ref->cls->name, ref->prop->def.name,
                        element->type == LAR_TYPE_LIST ? "list" : "dictionary", ref->depth + 1,
                        LAR_NESTED_MAX_DEPTH);
    uint64_t id;
    int err = collection_new_id(txn, &id);
    if (!err) err = nested_create(txn, ref->obj, ref->prop_index, element->type, ref->depth + 1, id);
    if (!err) element->as.nested = id;
    return err;
}

/* Reads the header of the nested collection a slot of parent holds, into ref. */
static int open_held(lar_txn *txn, nested_parent parent, uint64_t id, collection_ref *ref)
{
    header h;
    int err = header_read(txn, id, &h);
    if (err == LAR_ENOTFOUND)
        return lar_fail(LAR_ECORRUPT, "a mixed value holds nested collection %llu, which has no header",
                        (unsigned long long)id);
    if (!err && (h.owner.cls != parent.obj.cls || h.owner.key != parent.obj.key || h.prop != parent.prop ||
                 h.depth != parent.depth + 1))
        return lar_fail(LAR_ECORRUPT, "a mixed value holds nested collection %llu, whose header names another "
                        "owner or level", (unsigned long long)id);
    return err ? err : ref_from_header(txn, id, &h, ref);
}

int nested_free(lar_txn *txn, nested_parent parent, uint64_t id)
{
    collection_ref ref;
    int err = open_held(txn, parent, id, &ref);
    if (!err) err = ref.kind == LAR_COLLECTION_LIST ? list_free_nested(txn, &ref) : map_free_nested(txn, &ref);
    if (!err) {
        kv_val key = {sizeof id, &id};
        err = txn_del(txn, txn->schema->collection_dbi, &key, NULL);
    }
    return err;
}

int nested_remove_target(lar_txn *txn, nested_parent parent, uint64_t id, lar_obj target)
{
    collection_ref ref;
    int err = open_held(txn, parent, id, &ref);
    if (err) return err;
    return ref.kind == LAR_COLLECTION_LIST ? list_remove_target(txn, &ref, target)
                                           : map_remove_target(txn, &ref, target);
}

/* ---- handles ---- */

int lar_coll_open(lar_txn *txn, lar_obj obj, uint32_t prop, lar_coll *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_coll_open: out is NULL");
    int err = txn_check(txn, false);
    if (err) return err;
    const schema_class *cls = schema_class_at(txn->schema, obj.cls);
    if (!cls) return lar_fail(LAR_EINVAL, "unknown class %u", obj.cls);
    if (prop >= cls->property_count)
        return lar_fail(LAR_EINVAL, "class '%s' has no property %u (it has %u)", cls->name, prop,
                        cls->property_count);
    const lar_property_def *def = &cls->properties[prop].def;
    if (def->collection == LAR_COLLECTION_LIST || def->collection == LAR_COLLECTION_MAP) {
        collection_ref ref; /* checks the owner */
        err = collection_open(txn, false, obj, prop, def->collection, &ref);
        if (!err) *out = (lar_coll){obj, prop, def->collection, 0};
        return err;
    }
    if (def->collection || def->type != LAR_TYPE_MIXED)
        return lar_fail(LAR_EINVAL, "property '%s.%s' is neither a list, a map nor a mixed value", cls->name,
                        def->name);
    lar_value value;
    err = collection_read_mixed(txn, cls, obj, prop, &value);
    if (!err && !value_is_nested(&value))
        err = lar_fail(LAR_ETYPE, "property '%s.%s' holds no nested list or dictionary (it holds %s)", cls->name,
                       def->name, type_name(value.type));
    if (!err) *out = (lar_coll){obj, prop, value.type == LAR_TYPE_LIST ? LAR_COLLECTION_LIST : LAR_COLLECTION_MAP,
                                value.as.nested};
    return err;
}

int lar_coll_child(const lar_coll *parent, const lar_value *value, lar_coll *out)
{
    if (!parent || !value || !out) return lar_fail(LAR_EINVAL, "lar_coll_child: NULL argument");
    if (!value_is_nested(value) || !value->as.nested)
        return lar_fail(LAR_ETYPE, "the value is not a nested list or dictionary (it is %s)", type_name(value->type));
    *out = (lar_coll){parent->obj, parent->prop,
                      value->type == LAR_TYPE_LIST ? LAR_COLLECTION_LIST : LAR_COLLECTION_MAP, value->as.nested};
    return LAR_OK;
}
