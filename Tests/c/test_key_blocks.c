/* A result's keys in blocks (CCore/query/key_blocks.c), with tiny blocks so that every
 * edge is crossed often: inserts and removes at a block's first and last place and at
 * the ends, a block emptied, splits past many blocks, merges, truncation, and index
 * access, runs and copies after thousands of random updates, all against a plain array;
 * the same with values held beside the keys (each key's value here is 3 times the key). */
#include "test.h"

#include "query/key_blocks.h"

#include <stdlib.h>
#include <string.h>

static lar_value value_of(lar_objkey key)
{
    return (lar_value){.type = LAR_TYPE_INT, .as.integer = (int64_t)key * 3};
}

/* b holds exactly model[0..n): every block 1..room keys, starts ascending, and every
 * reader (at, run, copy) agrees; each key's value, when b holds values, is value_of it. */
static void check_blocks(const key_blocks *b, const lar_objkey *model, size_t n)
{
    CHECK_EQ(key_blocks_total(b), n);
    CHECK_EQ(b->starts[0], 0);
    for (size_t i = 0; i < b->count; i++) {
        size_t size = b->starts[i + 1] - b->starts[i];
        CHECK(size >= 1 && size <= b->room);
        CHECK_EQ(memcmp(b->blocks[i], model + b->starts[i], size * sizeof *model), 0);
        if (b->values) CHECK_EQ(b->firsts[i].as.integer, (int64_t)model[b->starts[i]] * 3);
    }
    for (size_t p = 0; p < n; p++) {
        CHECK_EQ(key_blocks_at(b, p), model[p]);
        size_t run;
        const lar_objkey *keys = key_blocks_run(b, p, &run);
        CHECK(run >= 1 && p + run <= n);
        CHECK_EQ(keys[0], model[p]);
        CHECK_EQ(keys[run - 1], model[p + run - 1]);
        if (b->values) {
            CHECK_EQ(key_blocks_values(b, p)->type, LAR_TYPE_INT);
            CHECK_EQ(key_blocks_values(b, p)->as.integer, (int64_t)model[p] * 3);
        }
    }
    lar_objkey *copy = malloc((n + 1) * sizeof *copy);
    for (size_t start = 0; start < n; start += 1 + n / 7) {
        key_blocks_copy(b, start, n - start, copy);
        CHECK_EQ(memcmp(copy, model + start, (n - start) * sizeof *copy), 0);
    }
    free(copy);
}

static void model_insert(lar_objkey *model, size_t *n, size_t at, lar_objkey key)
{
    memmove(model + at + 1, model + at, (*n - at) * sizeof *model);
    model[at] = key;
    ++*n;
}

static void model_remove(lar_objkey *model, size_t *n, size_t at)
{
    memmove(model + at, model + at + 1, (*n - at - 1) * sizeof *model);
    --*n;
}

static void insert(key_blocks *b, lar_objkey *model, size_t *n, size_t at, lar_objkey key)
{
    CHECK_OK(key_blocks_reserve(b, 1));
    lar_value value = value_of(key);
    key_blocks_insert(b, at, key, &value);
    model_insert(model, n, at, key);
}

static void remove_at(key_blocks *b, lar_objkey *model, size_t *n, size_t at)
{
    key_blocks_remove(b, at);
    model_remove(model, n, at);
}

TEST(key_blocks_made_from_keys_hold_them_in_order)
{
    lar_objkey keys[100];
    for (size_t i = 0; i < 100; i++) keys[i] = 1000 + i * 3;
    for (size_t n = 0; n <= 100; n += 1 + n / 3) {
        key_blocks *b = key_blocks_new(keys, n, 8);
        CHECK(b != NULL);
        check_blocks(b, keys, n);
        key_blocks_free(b);
    }
    key_blocks *b = key_blocks_new(keys, 100, 1); /* below 4: 4 */
    CHECK_EQ(b->room, 4);
    check_blocks(b, keys, 100);
    key_blocks_free(b);
}

TEST(key_blocks_insert_and_remove_at_every_block_edge)
{
    lar_objkey model[64];
    size_t n = 12;
    for (size_t i = 0; i < n; i++) model[i] = i + 1;
    key_blocks *b = key_blocks_new(model, n, 4); /* blocks of 3: starts 0 3 6 9 */
    lar_objkey next = 100;
    static const size_t edges[] = {0, 3, 2, 6, 5, 9, 12, 13, 4, 1};
    for (size_t e = 0; e < sizeof edges / sizeof *edges; e++) {
        size_t at = edges[e] <= n ? edges[e] : n;
        insert(b, model, &n, at, next++); /* fills blocks to 4, then splits them */
        check_blocks(b, model, n);
        insert(b, model, &n, at, next++);
        check_blocks(b, model, n);
    }
    for (size_t e = 0; e < sizeof edges / sizeof *edges; e++) {
        size_t at = edges[e] < n ? edges[e] : n - 1;
        remove_at(b, model, &n, at);
        check_blocks(b, model, n);
        remove_at(b, model, &n, n - 1); /* the last key */
        check_blocks(b, model, n);
    }
    key_blocks_free(b);
}

TEST(key_blocks_drop_an_emptied_block_and_become_empty)
{
    lar_objkey model[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    size_t n = 9;
    key_blocks *b = key_blocks_new(model, n, 4); /* three blocks of 3 */
    CHECK_EQ(b->count, 3);
    for (int i = 0; i < 3; i++) remove_at(b, model, &n, 3); /* the middle block, key by key */
    check_blocks(b, model, n);
    CHECK_EQ(b->count, 2);
    while (n) {
        remove_at(b, model, &n, 0);
        check_blocks(b, model, n);
    }
    CHECK_EQ(b->count, 0);
    insert(b, model, &n, 0, 42); /* an empty sequence takes a key again */
    insert(b, model, &n, 1, 43);
    insert(b, model, &n, 0, 41);
    check_blocks(b, model, n);
    key_blocks_free(b);
}

TEST(key_blocks_merge_a_block_under_a_quarter_full_with_a_neighbour)
{
    lar_objkey model[64];
    size_t n = 24;
    for (size_t i = 0; i < n; i++) model[i] = i;
    key_blocks *b = key_blocks_new(model, n, 8); /* four blocks of 6 */
    CHECK_EQ(b->count, 4);
    for (int i = 0; i < 4; i++) remove_at(b, model, &n, 6); /* block 1 down to 2 keys: a quarter */
    check_blocks(b, model, n);
    CHECK_EQ(b->count, 4);
    remove_at(b, model, &n, 6); /* down to 1: joins block 2 (1 + 6 fit in 8) */
    check_blocks(b, model, n);
    CHECK_EQ(b->count, 3);
    for (int i = 0; i < 5; i++) remove_at(b, model, &n, n - 1); /* the last block down to 1: joins the one before */
    check_blocks(b, model, n);
    CHECK_EQ(b->count, 2);
    CHECK_EQ(b->starts[1], 6);
    key_blocks_free(b);
}

/* Has b hold values for its keys (model[0..n)). */
static void hold_values(key_blocks *b, const lar_objkey *model, size_t n)
{
    lar_value *values = malloc((n + 1) * sizeof *values);
    for (size_t i = 0; i < n; i++) values[i] = value_of(model[i]);
    uint32_t order = 7;
    CHECK_OK(key_blocks_hold_values(b, 1, &order, values));
    CHECK_EQ(b->value_width, 1);
    CHECK_EQ(b->value_order[0], 7);
    free(values);
}

static void random_updates(bool with_values)
{
    size_t rooms[] = {4, 8, 64};
    for (size_t r = 0; r < 3; r++) {
        size_t cap = 6000, n = 0;
        lar_objkey *model = malloc(cap * sizeof *model);
        key_blocks *b = key_blocks_new(NULL, 0, rooms[r]);
        lar_objkey next = 1;
        for (int i = 0; i < 1500; i++) insert(b, model, &n, (size_t)rand() % (n + 1), next++); /* grows */
        if (with_values) hold_values(b, model, n);
        for (int i = 0; i < 1500; i++) insert(b, model, &n, (size_t)rand() % (n + 1), next++);
        check_blocks(b, model, n);
        CHECK(b->count >= 3000 / rooms[r]);
        for (int round = 0; round < 40; round++) {
            for (int i = 0; i < 100; i++) { /* moves, inserts and removes at random places */
                size_t from = (size_t)rand() % n;
                lar_objkey key = key_blocks_at(b, from);
                int kind = rand() % 3;
                if (kind != 1) remove_at(b, model, &n, from);
                if (kind != 2 || n == 0) insert(b, model, &n, (size_t)rand() % (n + 1), kind == 1 ? next++ : key);
            }
            check_blocks(b, model, n);
        }
        while (n > 10) remove_at(b, model, &n, (size_t)rand() % n); /* shrinks: blocks merge */
        check_blocks(b, model, n);
        CHECK(b->count <= 10);
        key_blocks_truncate(b, 4);
        check_blocks(b, model, 4);
        CHECK_EQ(b->values != NULL, with_values);
        key_blocks_free(b);
        free(model);
    }
}

TEST(key_blocks_grow_past_many_blocks_and_read_by_index_after_random_updates)
{
    srand(2024);
    random_updates(false);
}

TEST(key_blocks_keep_held_values_beside_their_keys_through_random_updates)
{
    srand(2025);
    random_updates(true);
}

TEST(key_blocks_drop_held_values_and_hold_them_again)
{
    lar_objkey model[64];
    for (size_t i = 0; i < 40; i++) model[i] = i + 1;
    key_blocks *b = key_blocks_new(model, 40, 8);
    hold_values(b, model, 40);
    check_blocks(b, model, 40);
    key_blocks_drop_values(b);
    CHECK(b->values == NULL && b->value_width == 0);
    size_t n = 40;
    insert(b, model, &n, 3, 99); /* no values: the one given is ignored */
    check_blocks(b, model, n);
    hold_values(b, model, n);
    insert(b, model, &n, 0, 98);
    check_blocks(b, model, n);
    key_blocks_truncate(b, 0);
    n = 0;
    check_blocks(b, model, n);
    insert(b, model, &n, 0, 5); /* an emptied sequence with values takes a key and its value */
    check_blocks(b, model, n);
    key_blocks_free(b);
}

TEST(key_blocks_truncate_at_and_inside_blocks)
{
    lar_objkey model[40];
    for (size_t i = 0; i < 40; i++) model[i] = i * 7;
    static const size_t lengths[] = {40, 39, 30, 28, 27, 1, 0};
    key_blocks *b = key_blocks_new(model, 40, 8);
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) {
        key_blocks_truncate(b, lengths[i]);
        check_blocks(b, model, lengths[i]);
    }
    size_t n = 0;
    insert(b, model, &n, 0, 5);
    check_blocks(b, model, n);
    key_blocks_free(b);
}
