/* Embedded objects (LAR_CLASS_EMBEDDED, Realm's EmbeddedObject): objects that exist only
 * inside the one object that links to them, created in place by the functions below.
 *
 * Layout (file format 3): an embedded object is a row in its class's object table, like
 * any object (key u64 -> row, keys ascending, so creation appends), and its owner holds
 * an ordinary link to it: a to-one link slot, a list element or a map value. The owner
 * (origin, property, count) ends the object's row (row_owner, codec/row.c) instead of
 * taking an entry in the backlink table: the link layer reads and changes it there for
 * every caller, so "who owns this" is the object's own row, and a delete of the owner
 * finds its embedded objects the way it finds any link. An object created in place
 * through a to-one link is written with its owner, so inserting an object with one
 * embedded object costs two row appends and a patch of the owner's link slot, each
 * through the transaction's cursor on its table (kv/row_cursor.c), or only the two
 * appends when both are created at once (lar_obj_create_with_embedded); reading it through
 * its owner costs one cursor step, as the rows of consecutive owners' objects are
 * consecutive. The schema stores the class flag. (Format 2 kept the owner in the
 * backlink table; LARDER_FORMAT_VERSION refuses its files.)
 *
 * Rules, enforced in C for every language:
 *  - An embedded class has no primary key and no index; its link properties may link
 *    only to embedded classes; no set holds embedded objects, nor does a mixed value
 *    (nor a list or dictionary nested in one).
 *  - lar_obj_create() refuses an embedded class ("Embedded objects cannot be created
 *    directly"); the functions below create the object and link it from its owner in
 *    one call. A link write naming an existing embedded object is refused with Realm's
 *    messages (collection/ownership.c), except setting a to-one link to the object it
 *    already holds, which changes nothing.
 *  - An embedded object is deleted when its owning link goes away: overwritten or set to
 *    null, removed from its list or map (remove, set, clear, a null collection), or its
 *    owner deleted; recursively through its own embedded objects (collection/ownership.c).
 *    Deleting an embedded object directly (lar_obj_delete) nulls or removes the owner's
 *    link, as with any object. */
#include "object/object.h"

#include "collection/collection.h"

#include <stdlib.h>

/* Checks that prop of cls is a link property of kind to an embedded class; *target
 * receives the embedded class. */
static int check_owning_prop(lar_txn *txn, const schema_class *cls, uint32_t prop, lar_collection kind,
                             const char *function, lar_class *target)
{
    if (prop >= cls->property_count)
        return lar_fail(LAR_EINVAL, "%s: class '%s' has no property %u (it has %u)", function, cls->name, prop,
                        cls->property_count);
    const schema_property *p = &cls->properties[prop];
    const schema_class *t = p->def.type == LAR_TYPE_LINK ? schema_class_at(txn->schema, p->target) : NULL;
    if (!t || !(t->flags & LAR_CLASS_EMBEDDED) || p->def.collection != kind) {
        static const char *const kinds[] = {"a to-one link", "a list", "a set", "a map"};
        return lar_fail(LAR_EINVAL, "%s: property '%s.%s' is not %s of an embedded class", function, cls->name,
                        p->def.name, kinds[kind]);
    }
    *target = p->target;
    return LAR_OK;
}

/* Checks that prop of parent is a link property of kind to an embedded class and that
 * parent exists; *target receives the embedded class. */
static int open_owner(lar_txn *txn, lar_obj parent, uint32_t prop, lar_collection kind, const char *function,
                      lar_class *target)
{
    int err = txn_check(txn, true);
    if (err) return err;
    const schema_class *cls = schema_class_at(txn->schema, parent.cls);
    if (!cls) return lar_fail(LAR_EINVAL, "%s: unknown class %u", function, parent.cls);
    err = check_owning_prop(txn, cls, prop, kind, function, target);
    kv_val row;
    return err ? err : object_read_row(txn, cls, parent, &row);
}

/* Creates the embedded object and lets place() link it, with txn->placing naming it. */
typedef struct placement {
    lar_obj parent;
    uint32_t prop;
    size_t index;
    const lar_string *key;
    int (*place)(lar_txn *txn, const struct placement *at, const lar_value *link);
} placement;

static int place_link(lar_txn *txn, const placement *at, const lar_value *link);

static int create_in_place(lar_txn *txn, const placement *at, lar_class target, const lar_value *values,
                           size_t value_count, lar_obj *out)
{
    lar_obj obj;
    /* A to-one link's object is created with its owner; a list or map records its own. */
    row_owner owner = {at->parent.key, at->parent.cls, at->prop, 1};
    int err = object_create(txn, target, values, value_count, true, at->place == place_link ? &owner : NULL, &obj);
    if (err) return err;
    lar_value link = {.type = LAR_TYPE_LINK, .as.link = obj};
    txn->placing = obj;
    err = at->place(txn, at, &link);
    txn->placing.key = 0;
    if (!err && out) *out = obj;
    return err;
}

static int place_link(lar_txn *txn, const placement *at, const lar_value *link)
{
    return object_link_placed(txn, at->parent, at->prop, link->as.link);
}

static int place_list_insert(lar_txn *txn, const placement *at, const lar_value *link)
{
    return lar_list_insert(txn, at->parent, at->prop, at->index, link);
}

static int place_list_set(lar_txn *txn, const placement *at, const lar_value *link)
{
    return lar_list_set(txn, at->parent, at->prop, at->index, link);
}

static int place_map(lar_txn *txn, const placement *at, const lar_value *link)
{
    return lar_map_put(txn, at->parent, at->prop, at->key, link);
}

int lar_obj_create_embedded(lar_txn *txn, lar_obj parent, uint32_t prop, const lar_value *values,
                            size_t value_count, lar_obj *out)
{
    uint64_t mark = txn_mark(txn);
    lar_class target;
    int err = open_owner(txn, parent, prop, LAR_COLLECTION_NONE, "lar_obj_create_embedded", &target);
    placement at = {parent, prop, 0, NULL, place_link};
    if (!err) err = create_in_place(txn, &at, target, values, value_count, out);
    return txn_settle(txn, mark, embedded_settle(txn, err));
}

/* ---- an owner created with its to-one embedded objects ---- */

/* Checks embedded[at] against the owner prepared (and the inits before it): a to-one
 * link to an embedded class, named once. */
static int check_init(lar_txn *txn, const prepared_object *owner, const lar_embedded_init *embedded, size_t at,
                      lar_class *target)
{
    static const char function[] = "lar_obj_create_with_embedded";
    uint32_t prop = embedded[at].prop;
    int err = check_owning_prop(txn, owner->cls, prop, LAR_COLLECTION_NONE, function, target);
    if (err) return err;
    for (size_t i = 0; i < at; i++)
        if (embedded[i].prop == prop)
            return lar_fail(LAR_EINVAL, "%s: property '%s.%s' is named twice", function, owner->cls->name,
                            owner->cls->properties[prop].def.name);
    return LAR_OK; /* its value in the owner's row is null: object_prepare refused any link there */
}

/* The key the prepared embedded object at will take: its class's next, past those of
 * the same class before it (created first, in order). */
static int reserve_key(lar_txn *txn, const prepared_object *children, size_t at, lar_objkey *out)
{
    const sequence_state *state = txn_sequence(txn, children[at].cls_id, children[at].cls->dbi);
    if (!state) return LAR_ENOMEM;
    lar_objkey key = state->next;
    for (size_t i = 0; i < at; i++) key += children[i].cls_id == children[at].cls_id;
    *out = key;
    return LAR_OK;
}

/* Every check first (each object's values, each init), then the owner's row holding
 * links to the keys its embedded objects will take, then their rows naming their owner:
 * one write per object, and none at all when something is wrong. */
static int create_with_embedded(lar_txn *txn, lar_class cls, const lar_value *values, size_t value_count,
                                const lar_embedded_init *embedded, size_t embedded_count, lar_obj *out,
                                lar_obj *embedded_out)
{
    if (embedded_count && !embedded)
        return lar_fail(LAR_EINVAL, "lar_obj_create_with_embedded: embedded is NULL");
    prepared_object owner, stack_children[2], *children = stack_children;
    size_t prepared = 0; /* children to free */
    int err = object_prepare(txn, cls, values, value_count, false, &owner);
    if (!err && embedded_count > owner.cls->property_count)
        err = lar_fail(LAR_EINVAL, "lar_obj_create_with_embedded: %zu embedded objects for class '%s' of %u properties",
                       embedded_count, owner.cls->name, owner.cls->property_count);
    bool on_stack = embedded_count <= sizeof stack_children / sizeof *stack_children;
    if (!err && !on_stack && !(children = malloc(embedded_count * sizeof *children)))
        err = lar_fail(LAR_ENOMEM, "out of memory");
    for (; !err && prepared < embedded_count; prepared++) {
        lar_class target;
        err = check_init(txn, &owner, embedded, prepared, &target);
        children[prepared].staged.items = NULL; /* freed below even when its check fails */
        if (!err) err = object_prepare(txn, target, embedded[prepared].values, embedded[prepared].value_count, true,
                                       &children[prepared]);
    }
    for (size_t i = 0; !err && i < embedded_count; i++) {
        lar_objkey key;
        err = reserve_key(txn, children, i, &key);
        if (!err) err = object_prepared_link(&owner, embedded[i].prop, (lar_obj){children[i].cls_id, key});
    }
    lar_obj created;
    if (!err) err = object_insert_prepared(txn, &owner, NULL, &created);
    for (size_t i = 0; !err && i < embedded_count; i++) {
        row_owner recorded = {created.key, cls, embedded[i].prop, 1};
        lar_obj child;
        err = object_insert_prepared(txn, &children[i], &recorded, &child);
        if (!err && child.key != owner.use[embedded[i].prop].as.link.key) /* reserve_key's promise */
            err = lar_fail(LAR_ECORRUPT, "lar_obj_create_with_embedded: an embedded object took an unexpected key");
        if (!err && embedded_out) embedded_out[i] = child;
    }
    if (!err && out) *out = created;
    for (size_t i = 0; children && i < prepared; i++) object_prepared_free(&children[i]);
    if (children != stack_children) free(children);
    object_prepared_free(&owner);
    return err;
}

int lar_obj_create_with_embedded(lar_txn *txn, lar_class cls, const lar_value *values, size_t value_count,
                                 const lar_embedded_init *embedded, size_t embedded_count, lar_obj *out,
                                 lar_obj *embedded_out)
{
    uint64_t mark = txn_mark(txn);
    int err = create_with_embedded(txn, cls, values, value_count, embedded, embedded_count, out, embedded_out);
    return txn_settle(txn, mark, embedded_settle(txn, err));
}

static int open_list_position(lar_txn *txn, lar_obj parent, uint32_t prop, size_t index, bool insert,
                              const char *function, lar_class *target)
{
    int err = open_owner(txn, parent, prop, LAR_COLLECTION_LIST, function, target);
    size_t count = 0;
    if (!err) err = lar_list_count(txn, parent, prop, &count);
    if (!err && (insert ? index > count : index >= count))
        err = lar_fail(LAR_EINVAL, "%s: position %zu is out of range (the list has %zu elements)", function, index,
                       count);
    return err;
}

int lar_list_insert_embedded(lar_txn *txn, lar_obj parent, uint32_t prop, size_t index, const lar_value *values,
                             size_t value_count, lar_obj *out)
{
    uint64_t mark = txn_mark(txn);
    lar_class target;
    int err = open_list_position(txn, parent, prop, index, true, "lar_list_insert_embedded", &target);
    placement at = {parent, prop, index, NULL, place_list_insert};
    if (!err) err = create_in_place(txn, &at, target, values, value_count, out);
    return txn_settle(txn, mark, embedded_settle(txn, err));
}

int lar_list_set_embedded(lar_txn *txn, lar_obj parent, uint32_t prop, size_t index, const lar_value *values,
                          size_t value_count, lar_obj *out)
{
    uint64_t mark = txn_mark(txn);
    lar_class target;
    int err = open_list_position(txn, parent, prop, index, false, "lar_list_set_embedded", &target);
    placement at = {parent, prop, index, NULL, place_list_set};
    if (!err) err = create_in_place(txn, &at, target, values, value_count, out);
    return txn_settle(txn, mark, embedded_settle(txn, err));
}

int lar_map_put_embedded(lar_txn *txn, lar_obj parent, uint32_t prop, const lar_string *key,
                         const lar_value *values, size_t value_count, lar_obj *out)
{
    uint64_t mark = txn_mark(txn);
    lar_class target;
    int err = open_owner(txn, parent, prop, LAR_COLLECTION_MAP, "lar_map_put_embedded", &target);
    if (!err) { /* the key's rules, checked before anything changes */
        lar_value current;
        err = lar_map_get(txn, parent, prop, key, &current);
        if (err == LAR_ENOTFOUND) err = LAR_OK;
    }
    placement at = {parent, prop, 0, key, place_map};
    if (!err) err = create_in_place(txn, &at, target, values, value_count, out);
    return txn_settle(txn, mark, embedded_settle(txn, err));
}
