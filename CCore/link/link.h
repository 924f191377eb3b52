/* Layer 5, link: the backlink table, which answers "which objects link to this
 * one, through which property" for LinkingObjects, and lets a delete find and
 * null the links to the object it removes. Every link write above keeps it in step. */
#ifndef LARDER_LINK_H
#define LARDER_LINK_H

#include "changes/changes.h"
#include "codec/codec.h"

/* One link into an object: from origin's property prop. */
typedef struct backlink {
    lar_obj origin;
    uint32_t prop;
    uint32_t count;           /* how many times origin links here through prop (lists repeat) */
} backlink;

/* Records one more link from origin's property prop to target. */
int backlink_add(lar_txn *txn, lar_obj target, lar_obj origin, uint32_t prop);
/* Forgets one link from origin's property prop to target; a missing entry is no error. */
int backlink_remove(lar_txn *txn, lar_obj target, lar_obj origin, uint32_t prop);
/* Forgets every link from origin's property prop to target, whatever its count. */
int backlink_remove_all(lar_txn *txn, lar_obj target, lar_obj origin, uint32_t prop);
/* Decodes a table entry's origin, property and count; false when it is damaged. */
bool backlink_decode(const kv_val *key, const kv_val *data, backlink *out);
/* Encodes the key prefix of the links into target, or (with_property) of those from
 * origin_cls's property prop; returns its size. out has room for 26 bytes. */
size_t backlink_prefix(lar_obj target, lar_class origin_cls, uint32_t prop, bool with_property, uint8_t *out);
/* Calls visit for each link whose key starts with prefix, in key order; a property
 * prefix starts at origin key start. visit returns LAR_OK to go on, BACKLINK_STOP to
 * stop (the walk then returns LAR_OK), or an error the walk returns. */
#define BACKLINK_STOP 1
int backlink_walk(lar_txn *txn, const uint8_t *prefix, size_t prefix_size, lar_objkey start,
                  int (*visit)(const backlink *link, void *context), void *context);
/* Collects every link into target, as backlink records appended to out. */
int backlinks_collect(lar_txn *txn, lar_obj target, byte_buffer *out);

#endif
