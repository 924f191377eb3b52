/* A result's keys in blocks (key_blocks.h). Blocks are filled to 3/4 when made, so that
 * inserts find room; a full block splits into halves; an emptied block goes, and one
 * under a quarter full joins a neighbour when both fit in one block, so that the blocks
 * stay few (a binary search of their starts finds a position). */
#include "query/key_blocks.h"

#include <stdlib.h>
#include <string.h>

static size_t fill_of(const key_blocks *b)
{
    return b->room / 4 * 3;
}

/* Room for capacity blocks in the arrays (the starts one more). */
static bool grow_arrays(key_blocks *b, size_t capacity)
{
    if (capacity <= b->capacity) return true;
    lar_objkey **blocks = realloc(b->blocks, capacity * sizeof *blocks);
    if (blocks) b->blocks = blocks;
    size_t *starts = blocks ? realloc(b->starts, (capacity + 1) * sizeof *starts) : NULL;
    if (starts) b->starts = starts;
    lar_objkey **spare = starts ? realloc(b->spare, capacity * sizeof *spare) : NULL;
    if (spare) b->spare = spare;
    if (!spare) return false;
    if (b->values) {
        lar_value **values = realloc(b->values, capacity * sizeof *values);
        if (values) b->values = values;
        lar_value **spare_values = values ? realloc(b->spare_values, capacity * sizeof *spare_values) : NULL;
        if (spare_values) b->spare_values = spare_values;
        lar_value *firsts = spare_values ? realloc(b->firsts, capacity * b->value_width * sizeof *firsts) : NULL;
        if (firsts) b->firsts = firsts;
        if (!firsts) return false;
    }
    b->capacity = capacity;
    return true;
}

/* Room for one block's values. */
static lar_value *new_values(const key_blocks *b)
{
    return malloc(b->room * b->value_width * sizeof(lar_value));
}

void key_blocks_drop_values(key_blocks *b)
{
    if (!b->values) return;
    for (size_t i = 0; i < b->count; i++) free(b->values[i]);
    for (size_t i = 0; i < b->spare_count; i++) free(b->spare_values[i]);
    free(b->values);
    free(b->spare_values);
    free(b->firsts);
    free(b->value_order);
    b->values = NULL;
    b->spare_values = NULL;
    b->firsts = NULL;
    b->value_order = NULL;
    b->value_width = 0;
}

int key_blocks_hold_values(key_blocks *b, size_t width, const uint32_t *order, const lar_value *values)
{
    key_blocks_drop_values(b);
    size_t capacity = b->capacity ? b->capacity : 1;
    b->values = calloc(capacity, sizeof *b->values);
    b->spare_values = calloc(capacity, sizeof *b->spare_values);
    b->firsts = malloc(capacity * width * sizeof *b->firsts);
    b->value_order = malloc(width * sizeof *b->value_order);
    b->value_width = width;
    bool ok = b->values && b->spare_values && b->firsts && b->value_order;
    for (size_t i = 0; ok && i < b->count; i++) ok = (b->values[i] = new_values(b)) != NULL;
    for (size_t i = 0; ok && i < b->spare_count; i++) ok = (b->spare_values[i] = new_values(b)) != NULL;
    if (!ok) { /* the arrays are calloc'd: what is not allocated is NULL */
        key_blocks_drop_values(b);
        return LAR_ENOMEM;
    }
    memcpy(b->value_order, order, width * sizeof *order);
    for (size_t i = 0; i < b->count; i++) {
        memcpy(b->values[i], values + b->starts[i] * width, (b->starts[i + 1] - b->starts[i]) * width * sizeof *values);
        memcpy(b->firsts + i * width, b->values[i], width * sizeof *values);
    }
    return LAR_OK;
}

void key_blocks_free(key_blocks *b)
{
    if (!b) return;
    key_blocks_drop_values(b);
    for (size_t i = 0; i < b->count; i++) free(b->blocks[i]);
    for (size_t i = 0; i < b->spare_count; i++) free(b->spare[i]);
    free(b->blocks);
    free(b->starts);
    free(b->spare);
    free(b);
}

key_blocks *key_blocks_new(const lar_objkey *keys, size_t n, size_t room)
{
    key_blocks *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->room = room < 4 ? 4 : room;
    size_t fill = fill_of(b), count = (n + fill - 1) / fill;
    if (!grow_arrays(b, count ? count : 1)) {
        key_blocks_free(b);
        return NULL;
    }
    b->starts[0] = 0;
    for (; b->count < count; b->count++) {
        size_t start = b->count * fill, size = n - start < fill ? n - start : fill;
        lar_objkey *block = malloc(b->room * sizeof *block);
        if (!block) {
            key_blocks_free(b);
            return NULL;
        }
        memcpy(block, keys + start, size * sizeof *block);
        b->blocks[b->count] = block;
        b->starts[b->count + 1] = start + size;
    }
    return b;
}

const lar_objkey *key_blocks_run(const key_blocks *b, size_t position, size_t *n)
{
    size_t i = key_blocks_find(b, position);
    *n = b->starts[i + 1] - position;
    return b->blocks[i] + (position - b->starts[i]);
}

void key_blocks_copy(const key_blocks *b, size_t start, size_t n, lar_objkey *out)
{
    while (n) {
        size_t run;
        const lar_objkey *keys = key_blocks_run(b, start, &run);
        if (run > n) run = n;
        memcpy(out, keys, run * sizeof *out);
        out += run;
        start += run;
        n -= run;
    }
}

int key_blocks_reserve(key_blocks *b, size_t inserts)
{
    if (!grow_arrays(b, b->count + b->spare_count + inserts)) return LAR_ENOMEM;
    while (b->spare_count < inserts) {
        lar_objkey *block = malloc(b->room * sizeof *block);
        lar_value *values = block && b->values ? new_values(b) : NULL;
        if (!block || (b->values && !values)) {
            free(block);
            return LAR_ENOMEM;
        }
        if (b->values) b->spare_values[b->spare_count] = values;
        b->spare[b->spare_count++] = block;
    }
    return LAR_OK;
}

/* Opens a slot for a block at index at (its start is start), holding block (and the
 * values of its keys, when the blocks hold values). */
static void add_block(key_blocks *b, size_t at, size_t start, lar_objkey *block, lar_value *values)
{
    memmove(b->blocks + at + 1, b->blocks + at, (b->count - at) * sizeof *b->blocks);
    memmove(b->starts + at + 1, b->starts + at, (b->count + 1 - at) * sizeof *b->starts);
    b->blocks[at] = block;
    b->starts[at] = start;
    if (b->values) {
        size_t w = b->value_width;
        memmove(b->values + at + 1, b->values + at, (b->count - at) * sizeof *b->values);
        memmove(b->firsts + (at + 1) * w, b->firsts + at * w, (b->count - at) * w * sizeof *b->firsts);
        b->values[at] = values; /* its first: set_first() once it has keys */
    }
    b->count++;
}

static void drop_block(key_blocks *b, size_t at)
{
    free(b->blocks[at]);
    memmove(b->blocks + at, b->blocks + at + 1, (b->count - at - 1) * sizeof *b->blocks);
    memmove(b->starts + at, b->starts + at + 1, (b->count - at) * sizeof *b->starts);
    if (b->values) {
        size_t w = b->value_width;
        free(b->values[at]);
        memmove(b->values + at, b->values + at + 1, (b->count - at - 1) * sizeof *b->values);
        memmove(b->firsts + at * w, b->firsts + (at + 1) * w, (b->count - at - 1) * w * sizeof *b->firsts);
    }
    b->count--;
}

/* Copies block i's first key's values to the firsts, when the blocks hold values. */
static void set_first(key_blocks *b, size_t i)
{
    if (b->values) memcpy(b->firsts + i * b->value_width, b->values[i], b->value_width * sizeof *b->firsts);
}

/* Takes a spare block (and its values) into index at. */
static void add_spare(key_blocks *b, size_t at, size_t start)
{
    b->spare_count--;
    add_block(b, at, start, b->spare[b->spare_count], b->values ? b->spare_values[b->spare_count] : NULL);
}

/* Copies n keys, and their values, from block `from` at index i to block `to` at index j. */
static void copy_keys(key_blocks *b, size_t to, size_t j, size_t from, size_t i, size_t n)
{
    memcpy(b->blocks[to] + j, b->blocks[from] + i, n * sizeof **b->blocks);
    size_t w = b->value_width;
    if (b->values) memcpy(b->values[to] + j * w, b->values[from] + i * w, n * w * sizeof **b->values);
}

/* Moves the keys of block i from index at on by delta places (+1 or -1) within it. */
static void shift_keys(key_blocks *b, size_t i, size_t at, int delta)
{
    size_t size = b->starts[i + 1] - b->starts[i], w = b->value_width;
    lar_objkey *keys = b->blocks[i];
    memmove(keys + at + delta, keys + at, (size - at) * sizeof *keys);
    if (b->values) memmove(b->values[i] + (at + delta) * w, b->values[i] + at * w, (size - at) * w * sizeof **b->values);
}

/* Moves the upper half of block i into a spare block after it. */
static void split(key_blocks *b, size_t i)
{
    size_t size = b->starts[i + 1] - b->starts[i], half = size / 2;
    add_spare(b, i + 1, b->starts[i] + half);
    copy_keys(b, i + 1, 0, i, half, size - half);
    set_first(b, i + 1);
}

void key_blocks_insert(key_blocks *b, size_t position, lar_objkey key, const lar_value *values)
{
    if (b->count == 0) add_spare(b, 0, 0);
    size_t i = position == key_blocks_total(b) ? b->count - 1 : key_blocks_find(b, position);
    if (b->starts[i + 1] - b->starts[i] == b->room) {
        split(b, i);
        if (position > b->starts[i + 1]) i++; /* at the split itself it ends the lower half */
    }
    size_t at = position - b->starts[i];
    shift_keys(b, i, at, 1);
    b->blocks[i][at] = key;
    if (b->values) memcpy(b->values[i] + at * b->value_width, values, b->value_width * sizeof *values);
    if (at == 0) set_first(b, i);
    for (size_t j = i + 1; j <= b->count; j++) b->starts[j]++;
}

/* Joins block i + 1 into block i. */
static void merge_next(key_blocks *b, size_t i)
{
    size_t size = b->starts[i + 1] - b->starts[i], next = b->starts[i + 2] - b->starts[i + 1];
    copy_keys(b, i, size, i + 1, 0, next);
    drop_block(b, i + 1);
}

void key_blocks_remove(key_blocks *b, size_t position)
{
    size_t i = key_blocks_find(b, position);
    size_t at = position - b->starts[i], size = b->starts[i + 1] - b->starts[i];
    shift_keys(b, i, at + 1, -1);
    for (size_t j = i + 1; j <= b->count; j++) b->starts[j]--;
    if (--size == 0) {
        drop_block(b, i);
        return;
    }
    if (at == 0) set_first(b, i);
    if (size >= b->room / 4) return;
    if (i + 1 < b->count && size + (b->starts[i + 2] - b->starts[i + 1]) <= b->room) merge_next(b, i);
    else if (i > 0 && size + (b->starts[i] - b->starts[i - 1]) <= b->room) merge_next(b, i - 1);
}

void key_blocks_truncate(key_blocks *b, size_t n)
{
    while (b->count && b->starts[b->count - 1] >= n) drop_block(b, b->count - 1);
    b->starts[b->count] = n; /* with no block left, n is 0 */
}
