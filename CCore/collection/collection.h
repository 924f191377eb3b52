/* Layer 6, collection: lists, sets and maps of an object's properties, stored
 * beside the object tables, with their public functions (lar_list_*, lar_set_*).
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

/* ---- shared by the kinds (collection.c) ---- */

/* One collection: its owner, its property and the id its row slot holds (0: empty). */
typedef struct collection_ref {
    const schema_class *cls;
    const schema_property *prop;
    lar_obj obj;
    uint32_t prop_index;
    uint64_t root;
} collection_ref;

/* Checks the transaction (writable when write), the owner and that prop is a collection
 * of kind; reads the id from the owner's row. */
int collection_open(lar_txn *txn, bool write, lar_obj obj, uint32_t prop, lar_collection kind,
                    collection_ref *out);
/* Stores a new id in the owner's row, when it changed. */
int collection_write_root(lar_txn *txn, const collection_ref *ref, uint64_t root);
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
int list_remove_target(lar_txn *txn, const collection_ref *list, lar_obj target);
int set_free(lar_txn *txn, const schema_property *prop, lar_obj obj, uint32_t prop_index, uint64_t id);
int set_remove_target(lar_txn *txn, const collection_ref *set, lar_obj target);
int map_free(lar_txn *txn, const schema_property *prop, lar_obj obj, uint32_t prop_index, uint64_t id);
int map_remove_target(lar_txn *txn, const collection_ref *map, lar_obj target);

#endif
