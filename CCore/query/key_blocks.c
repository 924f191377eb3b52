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
    if (b->fence_valid) {
        bool *valid = realloc(b->fence_valid, capacity * sizeof *valid);
        if (valid) b->fence_valid = valid;
        lar_value *values = valid ? realloc(b->fence_values, capacity * b->fence_width * sizeof *values) : NULL;
        if (values) b->fence_values = values;
        if (!values) return false;
    }
    b->capacity = capacity;
    return true;
}

static void drop_fences(key_blocks *b)
{
    free(b->fence_valid);
    free(b->fence_values);
    free(b->fence_order);
    b->fence_valid = NULL;
    b->fence_values = NULL;
    b->fence_order = NULL;
    b->fence_width = 0;
}

int key_blocks_fence(key_blocks *b, size_t width, const uint32_t *order)
{
    drop_fences(b);
    size_t capacity = b->capacity ? b->capacity : 1;
    b->fence_valid = calloc(capacity, sizeof *b->fence_valid);
    b->fence_values = malloc(capacity * (width ? width : 1) * sizeof *b->fence_values);
    b->fence_order = malloc((width ? width : 1) * sizeof *b->fence_order);
    if (!b->fence_valid || !b->fence_values || !b->fence_order) {
        drop_fences(b);
        return LAR_ENOMEM;
    }
    if (width) memcpy(b->fence_order, order, width * sizeof *order);
    b->fence_width = width;
    return LAR_OK;
}

void key_blocks_free(key_blocks *b)
{
    if (!b) return;
    for (size_t i = 0; i < b->count; i++) free(b->blocks[i]);
    for (size_t i = 0; i < b->spare_count; i++) free(b->spare[i]);
    free(b->blocks);
    free(b->starts);
    free(b->spare);
    drop_fences(b);
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
        if (!block) return LAR_ENOMEM;
        b->spare[b->spare_count++] = block;
    }
    return LAR_OK;
}

/* Opens a slot for a block at index at (its start is start), holding block. */
static void add_block(key_blocks *b, size_t at, size_t start, lar_objkey *block)
{
    memmove(b->blocks + at + 1, b->blocks + at, (b->count - at) * sizeof *b->blocks);
    memmove(b->starts + at + 1, b->starts + at, (b->count + 1 - at) * sizeof *b->starts);
    b->blocks[at] = block;
    b->starts[at] = start;
    if (b->fence_valid) {
        size_t w = b->fence_width;
        memmove(b->fence_valid + at + 1, b->fence_valid + at, (b->count - at) * sizeof *b->fence_valid);
        memmove(b->fence_values + (at + 1) * w, b->fence_values + at * w, (b->count - at) * w * sizeof *b->fence_values);
        b->fence_valid[at] = false;
    }
    b->count++;
}

static void drop_block(key_blocks *b, size_t at)
{
    free(b->blocks[at]);
    memmove(b->blocks + at, b->blocks + at + 1, (b->count - at - 1) * sizeof *b->blocks);
    memmove(b->starts + at, b->starts + at + 1, (b->count - at) * sizeof *b->starts);
    if (b->fence_valid) {
        size_t w = b->fence_width;
        memmove(b->fence_valid + at, b->fence_valid + at + 1, (b->count - at - 1) * sizeof *b->fence_valid);
        memmove(b->fence_values + at * w, b->fence_values + (at + 1) * w, (b->count - at - 1) * w * sizeof *b->fence_values);
    }
    b->count--;
}

/* Moves the upper half of block i into a spare block after it. */
static void split(key_blocks *b, size_t i)
{
    size_t size = b->starts[i + 1] - b->starts[i], half = size / 2;
    lar_objkey *upper = b->spare[--b->spare_count];
    memcpy(upper, b->blocks[i] + half, (size - half) * sizeof *upper);
    add_block(b, i + 1, b->starts[i] + half, upper);
}

void key_blocks_insert(key_blocks *b, size_t position, lar_objkey key)
{
    if (b->count == 0) add_block(b, 0, 0, b->spare[--b->spare_count]);
    size_t i = position == key_blocks_total(b) ? b->count - 1 : key_blocks_find(b, position);
    if (b->starts[i + 1] - b->starts[i] == b->room) {
        split(b, i);
        if (position > b->starts[i + 1]) i++; /* at the split itself it ends the lower half */
    }
    lar_objkey *block = b->blocks[i];
    size_t at = position - b->starts[i], size = b->starts[i + 1] - b->starts[i];
    memmove(block + at + 1, block + at, (size - at) * sizeof *block);
    block[at] = key;
    if (at == 0 && b->fence_valid) b->fence_valid[i] = false; /* another first key */
    for (size_t j = i + 1; j <= b->count; j++) b->starts[j]++;
}

/* Joins block i + 1 into block i. */
static void merge_next(key_blocks *b, size_t i)
{
    size_t size = b->starts[i + 1] - b->starts[i], next = b->starts[i + 2] - b->starts[i + 1];
    memcpy(b->blocks[i] + size, b->blocks[i + 1], next * sizeof *b->blocks[i]);
    drop_block(b, i + 1);
}

void key_blocks_remove(key_blocks *b, size_t position)
{
    size_t i = key_blocks_find(b, position);
    lar_objkey *block = b->blocks[i];
    size_t at = position - b->starts[i], size = b->starts[i + 1] - b->starts[i];
    memmove(block + at, block + at + 1, (size - at - 1) * sizeof *block);
    if (at == 0 && b->fence_valid) b->fence_valid[i] = false;
    for (size_t j = i + 1; j <= b->count; j++) b->starts[j]--;
    if (--size == 0) {
        drop_block(b, i);
        return;
    }
    if (size >= b->room / 4) return;
    if (i + 1 < b->count && size + (b->starts[i + 2] - b->starts[i + 1]) <= b->room) merge_next(b, i);
    else if (i > 0 && size + (b->starts[i] - b->starts[i - 1]) <= b->room) merge_next(b, i - 1);
}

void key_blocks_truncate(key_blocks *b, size_t n)
{
    while (b->count && b->starts[b->count - 1] >= n) {
        free(b->blocks[b->count - 1]);
        b->count--;
    }
    if (b->count) b->starts[b->count] = n;
}
