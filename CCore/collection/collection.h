/* Layer 6, collection: lists (and later sets and maps) stored in the collection
 * table, with their public functions (lar_list_*). Below object: deleting an
 * object frees its collections and takes deleted targets out of lists. */
#ifndef LARDER_COLLECTION_H
#define LARDER_COLLECTION_H

#include "link/link.h"

/* Frees every collection of obj, whose row is row (and the backlinks of its lists of
 * objects). The row itself is left to the caller, who is deleting it. */
int collections_free(lar_txn *txn, const schema_class *cls, lar_obj obj, const kv_val *row);
/* Empties the collection property prop of obj (null written to a collection). */
int collection_clear(lar_txn *txn, lar_obj obj, uint32_t prop);
/* Takes every occurrence of target out of the collection through which link says
 * link->origin links to it. */
int collection_remove_target(lar_txn *txn, lar_obj target, const backlink *link);

#endif
