/* Layer query: a result's keys in blocks, so that inserting or removing one key costs a
 * memmove within its block and an update of the blocks' start positions, not a memmove
 * of the whole sequence. A result is put in blocks when lar_results_update first changes
 * it in place (results.h); a query run, sort and distinct use one flat array. */
#ifndef LARDER_KEY_BLOCKS_H
#define LARDER_KEY_BLOCKS_H

#include "base/base.h"

#include <stddef.h>

#define KEY_BLOCK_ROOM 256 /* keys a block holds (2 KiB, and 6 KiB of each value held) */

typedef struct key_blocks {
    lar_objkey **blocks;   /* blocks[i] holds starts[i + 1] - starts[i] keys, at least 1, room of them */
    size_t *starts;        /* count + 1: the position of each block's first key, then the total */
    size_t count, capacity;
    lar_objkey **spare;    /* empty blocks kept for the splits key_blocks_reserve() promised */
    size_t spare_count;
    size_t room;
    /* Per key, values its user keeps beside it (results_update.c: its sort keys, so that a
     * search reads no objects), value_width of them, of no memory they point to: values[i]
     * holds block i's, in its keys' places, spare_values[i] spare[i]'s. They move along with
     * their keys. value_order: value_width words saying what they are of. NULL until
     * key_blocks_hold_values(). */
    lar_value **values;
    lar_value **spare_values;
    lar_value *firsts;        /* block i's first key's values at firsts[i * value_width]: a
                               * search finds its block in one small array */
    uint32_t *value_order;
    size_t value_width;
} key_blocks;

/* Blocks of room keys (at least 4; KEY_BLOCK_ROOM but in tests) holding keys[0..n), each
 * filled to 3/4. NULL when out of memory. */
key_blocks *key_blocks_new(const lar_objkey *keys, size_t n, size_t room);
void key_blocks_free(key_blocks *b);

static inline size_t key_blocks_total(const key_blocks *b)
{
    return b->starts[b->count];
}

/* The block holding position (< the total): a binary search of the starts. */
static inline size_t key_blocks_find(const key_blocks *b, size_t position)
{
    size_t lo = 0, hi = b->count - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (b->starts[mid] <= position) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

static inline lar_objkey key_blocks_at(const key_blocks *b, size_t position)
{
    size_t i = key_blocks_find(b, position);
    return b->blocks[i][position - b->starts[i]];
}

/* The keys from position (< the total) to the end of its block: *n of them. */
const lar_objkey *key_blocks_run(const key_blocks *b, size_t position, size_t *n);
/* Copies the keys [start, start + n) to out. */
void key_blocks_copy(const key_blocks *b, size_t start, size_t n, lar_objkey *out);

/* Makes sure that the next `inserts` key_blocks_insert() calls cannot fail: LAR_ENOMEM
 * (b unchanged) or LAR_OK. */
int key_blocks_reserve(key_blocks *b, size_t inserts);
/* Puts key at position (<= the total), with its values (value_width of them, when the
 * blocks hold values; else ignored); a full block splits in two. Only after
 * key_blocks_reserve() for it. */
void key_blocks_insert(key_blocks *b, size_t position, lar_objkey key, const lar_value *values);
/* Takes out the key at position (< the total); an emptied block goes, one under a
 * quarter full joins a neighbour when they fit in one block. */
void key_blocks_remove(key_blocks *b, size_t position);

/* Has every key hold width values (width >= 1) of what order says (width words): those
 * of position i are values[i * width ...]. LAR_OK, or LAR_ENOMEM holding none. */
int key_blocks_hold_values(key_blocks *b, size_t width, const uint32_t *order, const lar_value *values);
void key_blocks_drop_values(key_blocks *b);
/* The values of the key at position (< the total), when the blocks hold values. */
static inline lar_value *key_blocks_values(const key_blocks *b, size_t position)
{
    size_t i = key_blocks_find(b, position);
    return b->values[i] + (position - b->starts[i]) * b->value_width;
}

/* Keeps the first n keys (n <= the total). */
void key_blocks_truncate(key_blocks *b, size_t n);

#endif
