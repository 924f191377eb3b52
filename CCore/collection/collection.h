/* Layer 6, collection: lists, sets and maps of an object's properties, and nested
 * lists and dictionaries inside mixed values (nested.c), stored beside the object
 * tables, with their public functions (lar_list_*, lar_set_*, lar_map_*, lar_coll_*).
 * Below object: deleting an object frees its collections and takes deleted
 * targets out of them. */
#ifndef LARDER_COLLECTION_H
#define LARDER_COLLECTION_H

#include "link/link.h"

/* ---- for the object layer ---- */

/* Frees every collection of obj, whose row is row (and the backlinks of its
 * collections of objects). The row itself is left to the caller, who is deleting it. */
int collections_free(lar_txn *txn, const schema_class *cls, lar_obj obj, const kv_val *row);
/* Empties the collection property prop of obj (null written to a collection). */
int collection_clear(lar_txn *txn, lar_obj obj, uint32_t prop);
/* Takes target out of the collection through which link says link->origin links to it. */
int collection_remove_target(lar_txn *txn, lar_obj target, const backlink *link);

/* ---- embedded objects (ownership.c) ---- */

/* Where a link to an object is being stored. */
typedef enum embedded_use { EMBEDDED_IN_LINK, EMBEDDED_IN_LIST, EMBEDDED_IN_MAP, EMBEDDED_IN_MIXED } embedded_use;
/* Refuses a link to an object of embedded class target (with Realm's message for use)
 * unless it is txn->placing, the one being created in place; a mixed value never holds one. */
int embedded_check_link(lar_txn *txn, const schema_class *target, lar_obj link, embedded_use use);
/* The checks every write of a link makes, whatever holds it: the target's class exists
 * (a mixed value may name any), an embedded target is linked only as use allows, and
 * the object exists (no lookup when this write created it). holder names what holds the
 * link in messages ("property", "list", ...); a collection "holds" its objects, a
 * property "links to" them. */
int link_check_target(lar_txn *txn, const schema_class *cls, const lar_property_def *def, const char *holder,
                      bool holds, embedded_use use, lar_obj link);
/* Deletes the embedded objects noted in txn->orphans that no link names any more, and
 * their embedded descendants. */
int embedded_sweep(lar_txn *txn);
/* Ends a public call that may have removed links: sweeps after success, forgets the
 * noted objects after a failure. */
static inline int embedded_settle(lar_txn *txn, int err)
{
    if (!txn) return err;
    if (err) {
        txn->orphans.size = 0;
        return err;
    }
    return txn->orphans.size ? embedded_sweep(txn) : LAR_OK;
}

/* Nested collections in mixed values (nested.c), for the object layer's mixed properties. */
static inline bool value_is_nested(const lar_value *value)
{
    return value->type == LAR_TYPE_LIST || value->type == LAR_TYPE_DICTIONARY;
}
/* Where a nested collection's id sits: its owner, the owner's property, and the level
 * of the collection holding the slot (0: the property's own slot or collection), so
 * that the collection must be at level depth + 1. A header that says otherwise is
 * damage (LAR_ECORRUPT): a slot never frees or walks another's collection, nor loops. */
typedef struct nested_parent {
    lar_obj obj;
    uint32_t prop;
    uint32_t depth;
} nested_parent;
/* LAR_ENOTSUP (recorded) in a file without the collection tables (see kv/env.c). */
int nested_check_tables(lar_txn *txn);
/* Writes the header of a new, empty nested collection of type (LIST or DICTIONARY) at
 * level depth, owned by obj's property prop, under id (from collection_new_id()). */
int nested_create(lar_txn *txn, lar_obj obj, uint32_t prop, lar_type type, uint32_t depth, uint64_t id);
/* Frees nested collection id and everything nested in it (and its links' backlinks). */
int nested_free(lar_txn *txn, nested_parent parent, uint64_t id);
/* Takes target out of nested collection id and everything nested in it (backlinks are
 * the caller's: it forgets the property's entry whole). */
int nested_remove_target(lar_txn *txn, nested_parent parent, uint64_t id, lar_obj target);

/* ---- the change log ---- */

/* Ends a public call on obj's collection property prop (or a collection nested in it):
 * one that succeeded and wrote something records the property changed. */
static inline int collection_noted(lar_txn *txn, uint64_t mark, lar_obj obj, uint32_t prop, int err)
{
    return !err && txn && txn->mutations != mark ? changes_modify(txn, obj, prop) : err;
}
static inline int collection_noted_at(lar_txn *txn, uint64_t mark, const lar_coll *coll, int err)
{
    return !err && coll ? collection_noted(txn, mark, coll->obj, coll->prop, err) : err;
}

/* ---- shared by the kinds (collection.c) ---- */

/* One collection: its owner, its property and the id its row slot holds (0: empty); or
 * a nested collection (nested != 0) inside that property's mixed values, whose root is
 * its list's root node (in its header) or its dictionary's keyed id (the nested id). */
typedef struct collection_ref {
    const schema_class *cls;
    const schema_property *prop;
    lar_obj obj;
    uint32_t prop_index;
    uint64_t root;
    uint64_t nested;          /* 0: the property's own collection */
    uint32_t depth;           /* 0 for the property's own; a nested collection's level */
    lar_collection kind;      /* LIST or MAP for a nested one */
} collection_ref;

/* collection_open() through a handle: the property's own collection (id 0), or a nested
 * one, whose header must exist and name the handle's owner (else LAR_EDELETED). */
int collection_open_at(lar_txn *txn, bool write, const lar_coll *coll, lar_collection kind, collection_ref *out);
/* For a checked element asking for a new nested collection (LIST or DICTIONARY), held by
 * ref's collection: refuses one deeper than LAR_NESTED_MAX_DEPTH, else creates it and
 * puts its id into element. Nothing for other elements. Call it after every other check. */
int nested_materialize(lar_txn *txn, const collection_ref *ref, lar_value *element);
/* Frees the nested collection an element held (nothing for other elements). */
static inline int nested_release(lar_txn *txn, nested_parent parent, const lar_value *element)
{
    return value_is_nested(element) ? nested_free(txn, parent, element->as.nested) : LAR_OK;
}
/* The slots of ref's collection. */
static inline nested_parent nested_parent_of(const collection_ref *ref)
{
    return (nested_parent){ref->obj, ref->prop_index, ref->depth};
}

/* Checks the transaction (writable when write), the owner and that prop is a collection
 * of kind; reads the id from the owner's row. */
int collection_open(lar_txn *txn, bool write, lar_obj obj, uint32_t prop, lar_collection kind,
                    collection_ref *out);
/* Stores a new id in the owner's row (a nested list's header), when it changed. */
int collection_write_root(lar_txn *txn, const collection_ref *ref, uint64_t root);
int nested_write_root(lar_txn *txn, const collection_ref *ref, uint64_t root);
/* Reads obj's mixed property prop as stored (a nested collection as its id). */
int collection_read_mixed(lar_txn *txn, const schema_class *cls, lar_obj obj, uint32_t prop, lar_value *out);
/* The id a row's slot holds for a collection property. */
uint64_t collection_slot(const schema_property *prop, const kv_val *row);
/* Checks an element (type, null, UTF-8, a link's class and target); normalizes it into out. */
int collection_check_element(lar_txn *txn, const collection_ref *ref, const lar_value *value, lar_value *out);
/* Copies a string or binary read in a write transaction, whose pages move under later writes. */
int collection_keep(lar_txn *txn, lar_value *value);
/* A new id for a list node or a set, from one sequence: never reused. */
int collection_new_id(lar_txn *txn, uint64_t *out);

/* Sets and maps in the keyed table: [id u64 BE] prefixes their entries and, alone,
 * keys their count. */
#define ID_SIZE 8
void keyed_prefix(uint8_t *out, uint64_t id);
/* Reads the count of set or map id (0 when it has none). */
int keyed_count(lar_txn *txn, uint64_t id, uint64_t *out);
/* Stores it; a count of 0 removes the entry. */
int keyed_count_store(lar_txn *txn, uint64_t id, uint64_t count);
/* Calls visit with each entry of set or map id, in key order, after the entry whose key
 * is `after` (after_size bytes; NULL: from the first), skipping the count; visit returns
 * LAR_OK to go on, 1 to stop. `what` is the context of a failed read ("cannot read a set"). */
typedef int (*keyed_visitor)(const kv_val *key, const kv_val *data, void *context);
int keyed_walk(lar_txn *txn, uint64_t id, const uint8_t *after, size_t after_size, const char *what,
               keyed_visitor visit, void *context);

/* ---- each kind's part in freeing and in deletes (list.c, set.c) ---- */

int list_free(lar_txn *txn, const schema_property *prop, lar_obj obj, uint32_t prop_index, uint64_t root);
/* Frees a nested list's nodes and what its elements hold (counted backlinks). */
int list_free_nested(lar_txn *txn, const collection_ref *list);
/* Frees a nested dictionary's entries and what its values hold (counted backlinks). */
int map_free_nested(lar_txn *txn, const collection_ref *map);
int list_remove_target(lar_txn *txn, const collection_ref *list, lar_obj target);
/* The count of a list. */
int list_count(lar_txn *txn, const collection_ref *list, uint64_t *out);
int set_free(lar_txn *txn, const schema_property *prop, lar_obj obj, uint32_t prop_index, uint64_t id);
int set_remove_target(lar_txn *txn, const collection_ref *set, lar_obj target);
int map_free(lar_txn *txn, const schema_property *prop, lar_obj obj, uint32_t prop_index, uint64_t id);
int map_remove_target(lar_txn *txn, const collection_ref *map, lar_obj target);

/* ---- sets' element changes in the change log (set.c) ---- */

/* Orders two logged set entries as the set orders their elements; *bad set when one
 * is malformed. */
int set_entry_compare(const logged_element *a, const logged_element *b, bool *bad);
/* The positions (out[i]) at txn, in set order, of the count elements that entries
 * (logged entries in set order) name in obj's set prop. LAR_ECORRUPT when the set
 * lacks one. Counts the set's blocks from both ends until every entry is placed, and
 * reads the blocks that hold them. */
int set_positions(lar_txn *txn, lar_obj obj, uint32_t prop, const logged_element *entries, size_t count, size_t *out);
/* The value of a logged entry of obj's set prop (a string or binary points into it). */
int set_entry_value(lar_txn *txn, lar_obj obj, uint32_t prop, const logged_element *entry, lar_value *out);

#endif
