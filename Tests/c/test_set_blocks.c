/* Sets stored in blocks (format 2): splits and merges at block boundaries, thousands of
 * random inserts and removes checked against a plain in-memory model for ints, optional
 * ints, optional strings (long ones fill a block with two) and mixed values (ints and
 * the doubles and floats equal to them, which are one element whose first-inserted
 * type reads back; strings, null, links), the set algebra on sets spanning many
 * blocks, and clears and deletes that free every block. */
#include "test.h"
#include "catalog/catalog.h"
#include "kv/kv.h"

#include <lmdb.h>
#include <stdlib.h>

/* Box {ints: set<int>, more: set<int>, maybe: set<int?>, words: set<string?>,
 *      texts: set<string?>, dogs: set<Dog>, anys: set<mixed>}; Dog {name}. */
typedef struct boxes {
    lar_class box, dog;
    uint32_t ints, more, maybe, words, texts, dogs, anys;
} boxes;

static boxes boxes_setup(lar_env *env)
{
    lar_property_def box_props[] = {
        {"ints", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, NULL, NULL},
        {"more", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, NULL, NULL},
        {"maybe", LAR_TYPE_INT, LAR_COLLECTION_SET, LAR_PROP_OPTIONAL, NULL, NULL},
        {"words", LAR_TYPE_STRING, LAR_COLLECTION_SET, LAR_PROP_OPTIONAL, NULL, NULL},
        {"texts", LAR_TYPE_STRING, LAR_COLLECTION_SET, LAR_PROP_OPTIONAL, NULL, NULL},
        {"dogs", LAR_TYPE_LINK, LAR_COLLECTION_SET, 0, "Dog", NULL},
        {"anys", LAR_TYPE_MIXED, LAR_COLLECTION_SET, 0, NULL, NULL},
    };
    lar_property_def dog_props[] = {PROP("name", LAR_TYPE_STRING, 0)};
    lar_class_def classes[] = {CLASS_DEF("Box", box_props), CLASS_DEF("Dog", dog_props)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 1));
    boxes b;
    b.box = class_id(env, "Box");
    b.dog = class_id(env, "Dog");
    b.ints = prop_id(env, b.box, "ints");
    b.more = prop_id(env, b.box, "more");
    b.maybe = prop_id(env, b.box, "maybe");
    b.words = prop_id(env, b.box, "words");
    b.texts = prop_id(env, b.box, "texts");
    b.dogs = prop_id(env, b.box, "dogs");
    b.anys = prop_id(env, b.box, "anys");
    return b;
}

static lar_obj make(lar_txn *txn, lar_class cls)
{
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, cls, NULL, 0, &obj));
    return obj;
}

/* ---- a pool of candidate elements, in the set's order, and a model over it ---- */

#define POOL_MAX 3100
#define TEXT_MAX LAR_SET_ELEMENT_MAX

/* An element may have a second form that is the same element (a mixed set's int 3 and
 * double 3.0): the model then records which form the set holds, 1 or 2 (0: absent). */
typedef struct pool {
    lar_value values[POOL_MAX];
    lar_value alts[POOL_MAX];
    bool has_alt[POOL_MAX];
    size_t count;
    char (*texts)[TEXT_MAX + 1];
} pool;

static uint64_t rng_state;
static uint32_t next_random(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

/* Ints ascending: n values, spaced by 7, with the extremes at both ends; null first when optional. */
static void pool_ints(pool *p, size_t n, bool optional)
{
    p->count = 0;
    p->texts = NULL;
    memset(p->has_alt, 0, sizeof p->has_alt);
    if (optional) p->values[p->count++] = val_null();
    p->values[p->count++] = val_int(INT64_MIN);
    for (size_t i = 0; i < n; i++) p->values[p->count++] = val_int((int64_t)i * 7 - 5000);
    p->values[p->count++] = val_int(INT64_MAX);
}

static int compare_texts(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* Distinct strings of every length from 0 to LAR_SET_ELEMENT_MAX (many of the longest:
 * two fill a block), sorted bytewise; null first. */
static void pool_texts(pool *p, size_t n)
{
    memset(p->has_alt, 0, sizeof p->has_alt);
    p->texts = calloc(n, sizeof *p->texts);
    CHECK(p->texts);
    for (size_t i = 0; i < n; i++) {
        size_t length = i % 5 == 0 ? TEXT_MAX : i % 5 == 1 ? 1 + i % 40 : (i * 37) % (TEXT_MAX + 1);
        char head[32];
        int h = snprintf(head, sizeof head, "%c%05zu", 'a' + (int)(i % 26), i);
        for (size_t j = 0; j < length; j++) p->texts[i][j] = j < (size_t)h ? head[j] : (char)('a' + (i + j) % 26);
        p->texts[i][length] = 0;
    }
    qsort(p->texts, n, sizeof *p->texts, compare_texts);
    size_t kept = 0; /* short prefixes may repeat: keep them distinct */
    for (size_t i = 0; i < n; i++)
        if (!kept || strcmp(p->texts[kept - 1], p->texts[i])) memmove(p->texts[kept++], p->texts[i], TEXT_MAX + 1);
    p->count = 0;
    p->values[p->count++] = val_null();
    for (size_t i = 0; i < kept; i++) p->values[p->count++] = val_str(p->texts[i]);
}

static void pool_free(pool *p)
{
    free(p->texts);
    p->texts = NULL;
}

/* Reads the whole set in pages of random sizes, each after the last element read, and
 * checks it holds exactly the pool's elements marked in `in` (in the form marked), in
 * order; and its count. */
static void check_forms(lar_txn *txn, lar_obj obj, uint32_t prop, const pool *p, const uint8_t *in)
{
    size_t expected = 0, at = 0, count = 999, n;
    for (size_t i = 0; i < p->count; i++) expected += in[i] != 0;
    CHECK_OK(lar_set_count(txn, obj, prop, &count));
    CHECK_EQ(count, expected);
    lar_value page[7], last;
    bool started = false;
    int rc;
    while ((rc = lar_set_list(txn, obj, prop, started ? &last : NULL, page, 1 + next_random() % 7, &n)) == LAR_OK) {
        for (size_t i = 0; i < n; i++) {
            while (at < p->count && !in[at]) at++;
            CHECK(at < p->count);
            const lar_value *form = in[at] == 2 ? &p->alts[at] : &p->values[at];
            if (!value_same(&page[i], form)) {
                char got[96], want[96];
                value_describe(&page[i], got, sizeof got);
                value_describe(form, want, sizeof want);
                test_fail(__FILE__, __LINE__, "element %zu: got %s, expected %s", at, got, want);
            }
            at++;
        }
        last = page[n - 1];
        started = true;
    }
    CHECK_EQ(rc, LAR_ENOTFOUND);
    while (at < p->count && !in[at]) at++;
    CHECK_EQ(at, p->count);
    /* Listing after an element that is not in the set starts at the next one that is. */
    size_t probe = next_random() % p->count;
    if (!in[probe]) {
        size_t next = probe;
        while (next < p->count && !in[next]) next++;
        rc = lar_set_list(txn, obj, prop, &p->values[probe], page, 1, &n);
        if (next == p->count) {
            CHECK_EQ(rc, LAR_ENOTFOUND);
        } else {
            CHECK_EQ(rc, LAR_OK);
            CHECK(value_same(&page[0], in[next] == 2 ? &p->alts[next] : &p->values[next]));
        }
    }
}

static void check_model(lar_txn *txn, lar_obj obj, uint32_t prop, const pool *p, const bool *in)
{
    uint8_t *forms = malloc(p->count);
    CHECK(forms);
    for (size_t i = 0; i < p->count; i++) forms[i] = in[i];
    check_forms(txn, obj, prop, p, forms);
    free(forms);
}

/* One of an element's forms, at random when it has two (*form tells which). */
static const lar_value *pick_form(const pool *p, size_t i, uint8_t *form)
{
    *form = p->has_alt[i] && next_random() % 2 ? 2 : 1;
    return *form == 2 ? &p->alts[i] : &p->values[i];
}

static int set_has(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *v)
{
    int found = -1;
    CHECK_OK(lar_set_contains(txn, obj, prop, v, &found));
    return found;
}

/* Random inserts, removes, lookups, algebra and clears on a (and some on b), with
 * commits and aborts, against the model. */
static void run_random(lar_env *env, lar_obj a, lar_obj b, uint32_t prop, const pool *p, int ops, uint64_t seed)
{
    rng_state = seed;
    uint8_t *in_a = calloc(p->count, 1), *in_b = calloc(p->count, 1), *saved_a = calloc(p->count, 1),
            *saved_b = calloc(p->count, 1);
    CHECK(in_a && in_b && saved_a && saved_b);
    lar_txn *txn = begin_write(env);
    size_t window = 0;
    for (int op = 1; op <= ops; op++) {
        if (next_random() % 64 == 0) window = next_random() % p->count;
        /* Mostly near a moving window, so blocks fill, split and empty; sometimes anywhere. */
        size_t i = next_random() % 4 ? (window + next_random() % 120) % p->count : next_random() % p->count;
        uint32_t dice = next_random() % 1000;
        bool on_b = dice >= 930;
        lar_obj obj = on_b ? b : a;
        uint8_t *in = on_b ? in_b : in_a, form;
        int flag = -1;
        if (dice < 480 || (on_b && dice < 975)) {
            CHECK_OK(lar_set_insert(txn, obj, prop, pick_form(p, i, &form), &flag));
            CHECK_EQ(flag, !in[i]);
            if (!in[i]) in[i] = form; /* the set keeps the form first inserted */
        } else if (dice < 860 || on_b) {
            CHECK_OK(lar_set_remove(txn, obj, prop, pick_form(p, i, &form), &flag));
            CHECK_EQ(flag, in[i] != 0);
            in[i] = 0;
        } else if (dice < 900) {
            CHECK_EQ(set_has(txn, a, prop, pick_form(p, i, &form)), in_a[i] != 0);
        } else if (dice < 925) {
            bool subset = true, common = false;
            for (size_t k = 0; k < p->count; k++) {
                if (in_a[k] && !in_b[k]) subset = false;
                if (in_a[k] && in_b[k]) common = true;
            }
            int out = -1;
            CHECK_OK(lar_set_is_subset(txn, a, prop, b, prop, &out));
            CHECK_EQ(out, subset);
            CHECK_OK(lar_set_intersects(txn, a, prop, b, prop, &out));
            CHECK_EQ(out, common);
            int which = (int)(next_random() % 3);
            if (which == 0) CHECK_OK(lar_set_union(txn, a, prop, b, prop));
            if (which == 1) CHECK_OK(lar_set_intersect(txn, a, prop, b, prop));
            if (which == 2) CHECK_OK(lar_set_subtract(txn, a, prop, b, prop));
            for (size_t k = 0; k < p->count; k++) /* a keeps its own form of what both hold */
                in_a[k] = which == 0 ? (in_a[k] ? in_a[k] : in_b[k]) : which == 1 ? (in_b[k] ? in_a[k] : 0)
                                                                        : (in_b[k] ? 0 : in_a[k]);
            check_forms(txn, a, prop, p, in_a);
        } else if (dice < 928) {
            CHECK_OK(lar_set_clear(txn, a, prop));
            memset(in_a, 0, p->count);
        } else {
            CHECK_EQ(set_has(txn, b, prop, pick_form(p, i, &form)), in_b[i] != 0);
        }
        if (op % 400 == 0) {
            check_forms(txn, a, prop, p, in_a);
            check_forms(txn, b, prop, p, in_b);
            if (next_random() % 4 == 0) { /* an abort restores the last commit */
                CHECK_OK(lar_txn_abort(txn));
                lar_txn_free(txn);
                memcpy(in_a, saved_a, p->count);
                memcpy(in_b, saved_b, p->count);
                lar_txn *read = begin_read(env);
                check_forms(read, a, prop, p, in_a);
                check_forms(read, b, prop, p, in_b);
                lar_txn_free(read);
            } else {
                commit_txn(txn);
                memcpy(saved_a, in_a, p->count);
                memcpy(saved_b, in_b, p->count);
            }
            txn = begin_write(env);
        }
    }
    check_forms(txn, a, prop, p, in_a);
    check_forms(txn, b, prop, p, in_b);
    commit_txn(txn);
    free(in_a);
    free(in_b);
    free(saved_a);
    free(saved_b);
}

TEST(set_blocks_random_ints_against_a_model)
{
    lar_env *env = open_env(test_db_path(NULL));
    boxes bx = boxes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj a = make(txn, bx.box), b = make(txn, bx.box);
    commit_txn(txn);
    static pool p;
    pool_ints(&p, 3000, false);
    run_random(env, a, b, bx.ints, &p, 6000, 0x5E7B10C5ull);
    pool_ints(&p, 800, true);
    run_random(env, a, b, bx.maybe, &p, 4000, 0xB10C5ull);
    close_env(env);
}

TEST(set_blocks_random_strings_against_a_model)
{
    lar_env *env = open_env(test_db_path(NULL));
    boxes bx = boxes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj a = make(txn, bx.box), b = make(txn, bx.box);
    commit_txn(txn);
    static pool p;
    pool_texts(&p, 700);
    run_random(env, a, b, bx.words, &p, 5000, 0x7E875ull);
    pool_free(&p);
    close_env(env);
}

/* Mixed values in their set order: null, false, true; numbers by value (INT64_MIN with
 * double -2^63; ints with the double or float equal to them as their second form,
 * halves between them; INT64_MAX, then double 2^63 above it, infinity); strings of
 * every length up to LAR_SET_ELEMENT_MAX (bytewise); binaries; timestamps; links to
 * dogs by key. */
static void pool_mixed(pool *p, size_t numbers, size_t texts, const lar_obj *dogs, size_t dog_count)
{
    static const uint8_t bytes[] = {0, 1, 'a', 'b'};
    pool_texts(p, texts); /* null, then the strings: moved to their place below */
    size_t text_count = p->count - 1;
    static lar_value strings[POOL_MAX];
    memcpy(strings, p->values + 1, text_count * sizeof *strings);
    memset(p->has_alt, 0, sizeof p->has_alt);
    p->count = 0;
    p->values[p->count++] = val_null();
    p->values[p->count++] = (lar_value){.type = LAR_TYPE_BOOL, .as.boolean = 0};
    p->values[p->count++] = (lar_value){.type = LAR_TYPE_BOOL, .as.boolean = 1};
    p->values[p->count] = val_int(INT64_MIN);
    p->alts[p->count] = (lar_value){.type = LAR_TYPE_DOUBLE, .as.float64 = -9223372036854775808.0};
    p->has_alt[p->count++] = true;
    for (size_t i = 0; i < numbers; i++) {
        int64_t v = (int64_t)i * 3 - (int64_t)numbers;
        p->values[p->count] = val_int(v);
        p->alts[p->count] = i % 3 ? (lar_value){.type = LAR_TYPE_DOUBLE, .as.float64 = (double)v}
                                  : (lar_value){.type = LAR_TYPE_FLOAT, .as.float32 = (float)v};
        p->has_alt[p->count++] = i % 5 != 4; /* some ints have no second form in play */
        if (i % 4 == 0) p->values[p->count++] = (lar_value){.type = LAR_TYPE_DOUBLE, .as.float64 = (double)v + 0.5};
    }
    p->values[p->count++] = val_int(INT64_MAX);
    p->values[p->count++] = (lar_value){.type = LAR_TYPE_DOUBLE, .as.float64 = 9223372036854775808.0};
    p->values[p->count++] = (lar_value){.type = LAR_TYPE_DOUBLE, .as.float64 = 1.0 / 0.0};
    memcpy(p->values + p->count, strings, text_count * sizeof *strings);
    p->count += text_count;
    size_t binaries[][2] = {{0, 0}, {0, 1}, {0, 2}, {2, 2}}; /* "", "\0", "\0\1", "ab" */
    for (size_t i = 0; i < 4; i++)
        p->values[p->count++] = (lar_value){.type = LAR_TYPE_BINARY, .as.binary = {bytes + binaries[i][0], binaries[i][1]}};
    p->values[p->count++] = (lar_value){.type = LAR_TYPE_TIMESTAMP, .as.timestamp = {-5, -7}};
    p->values[p->count++] = (lar_value){.type = LAR_TYPE_TIMESTAMP, .as.timestamp = {1700000000, 0}};
    for (size_t i = 0; i < dog_count; i++) {
        p->values[p->count] = (lar_value){.type = LAR_TYPE_LINK};
        p->values[p->count++].as.link = dogs[i];
    }
    CHECK(p->count <= POOL_MAX);
}

/* A set of mixed values in blocks against the model, with each element's form; then
 * deleting linked dogs takes them out of both sets and the backlinks stay right, and
 * deleting the boxes frees every block and backlink. */
TEST(set_blocks_random_mixed_against_a_model)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    boxes bx = boxes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj a = make(txn, bx.box), b = make(txn, bx.box);
    enum { DOGS = 400 };
    static lar_obj dogs[DOGS];
    for (size_t i = 0; i < DOGS; i++) dogs[i] = make(txn, bx.dog);
    commit_txn(txn);
    for (size_t i = 1; i < DOGS; i++) CHECK(dogs[i - 1].key < dogs[i].key);
    static pool p;
    pool_mixed(&p, 900, 400, dogs, DOGS);
    run_random(env, a, b, bx.anys, &p, 8000, 0x313CEDull);
    { /* every element, over a hundred blocks: b gets each in a random form, a the union */
        static uint8_t in_a[POOL_MAX], in_b[POOL_MAX];
        txn = begin_write(env);
        CHECK_OK(lar_set_clear(txn, b, bx.anys));
        memset(in_a, 0, sizeof in_a);
        for (size_t i = 0; i < p.count; i++) { /* what a holds, in which form */
            if (!set_has(txn, a, bx.anys, &p.values[i])) continue;
            uint8_t form;
            CHECK_OK(lar_set_remove(txn, a, bx.anys, &p.values[i], NULL)); /* re-inserted in a known form */
            CHECK_OK(lar_set_insert(txn, a, bx.anys, pick_form(&p, i, &form), NULL));
            in_a[i] = form;
        }
        for (size_t i = 0; i < p.count; i++) {
            uint8_t form;
            int flag;
            CHECK_OK(lar_set_insert(txn, b, bx.anys, pick_form(&p, i, &form), &flag));
            CHECK_EQ(flag, 1);
            in_b[i] = form;
        }
        check_forms(txn, b, bx.anys, &p, in_b);
        CHECK_OK(lar_set_union(txn, a, bx.anys, b, bx.anys));
        for (size_t i = 0; i < p.count; i++)
            if (!in_a[i]) in_a[i] = in_b[i];
        check_forms(txn, a, bx.anys, &p, in_a);
        commit_txn(txn);
        lar_txn *read = begin_read(env);
        check_forms(read, a, bx.anys, &p, in_a);
        lar_txn_free(read);
        txn = begin_write(env);
        for (size_t i = 0; i < p.count; i += 3) { /* b loses a third; a minus b keeps those, in a's form */
            uint8_t form;
            CHECK_OK(lar_set_remove(txn, b, bx.anys, pick_form(&p, i, &form), NULL));
            in_b[i] = 0;
        }
        CHECK_OK(lar_set_subtract(txn, a, bx.anys, b, bx.anys));
        for (size_t i = 0; i < p.count; i++)
            if (in_b[i]) in_a[i] = 0;
        check_forms(txn, a, bx.anys, &p, in_a);
        CHECK_OK(lar_set_union(txn, a, bx.anys, b, bx.anys)); /* all again: a's third in a's form */
        for (size_t i = 0; i < p.count; i++)
            if (!in_a[i]) in_a[i] = in_b[i];
        check_forms(txn, a, bx.anys, &p, in_a);
        CHECK_OK(lar_set_intersect(txn, b, bx.anys, a, bx.anys)); /* b keeps its forms */
        check_forms(txn, b, bx.anys, &p, in_b);
        commit_txn(txn);
    }
    pool_free(&p);

    txn = begin_write(env);
    lar_value link = {.type = LAR_TYPE_LINK};
    size_t in_a = 0, in_b = 0, count;
    for (size_t i = 0; i < DOGS; i++) { /* more links, beside what the random run left */
        link.as.link = dogs[i];
        if (i % 3 == 0) CHECK_OK(lar_set_insert(txn, a, bx.anys, &link, NULL));
        if (i % 4 == 0) CHECK_OK(lar_set_insert(txn, b, bx.anys, &link, NULL));
    }
    for (size_t i = 0; i < DOGS; i++) {
        link.as.link = dogs[i];
        int has_a = set_has(txn, a, bx.anys, &link), has_b = set_has(txn, b, bx.anys, &link);
        uint64_t links;
        CHECK_OK(lar_backlinks_count(txn, dogs[i], bx.box, bx.anys, &links));
        CHECK_EQ(links, (uint64_t)(has_a + has_b));
        if (i % 2 == 0) {
            in_a += (size_t)has_a;
            in_b += (size_t)has_b;
        }
    }
    size_t before_a, before_b;
    CHECK_OK(lar_set_count(txn, a, bx.anys, &before_a));
    CHECK_OK(lar_set_count(txn, b, bx.anys, &before_b));
    CHECK(in_a > 20);
    for (size_t i = 0; i < DOGS; i += 2) CHECK_OK(lar_obj_delete(txn, dogs[i]));
    CHECK_OK(lar_set_count(txn, a, bx.anys, &count));
    CHECK_EQ(count, before_a - in_a);
    CHECK_OK(lar_set_count(txn, b, bx.anys, &count));
    CHECK_EQ(count, before_b - in_b);
    link.as.link = dogs[0];
    CHECK_EQ(set_has(txn, a, bx.anys, &link), 0);
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, a));
    CHECK_OK(lar_obj_delete(txn, b));
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "keyed"), 0);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
}

/* The longest strings, two to a block: ascending inserts split the last block, descending
 * ones put each element before the first (a new first key); removing every other element,
 * then the first ones of blocks, then from both ends, merges and drops blocks. */
TEST(set_blocks_split_and_merge_at_boundaries)
{
    lar_env *env = open_env(test_db_path(NULL));
    boxes bx = boxes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj a = make(txn, bx.box);
    static pool p;
    pool_texts(&p, 300);
    /* only the longest strings, and null */
    size_t kept = 1;
    for (size_t i = 1; i < p.count; i++)
        if (p.values[i].as.string.size == TEXT_MAX) p.values[kept++] = p.values[i];
    p.count = kept;
    CHECK(p.count > 50);
    bool *in = calloc(p.count, 1);
    CHECK(in);
    rng_state = 42;
    for (size_t i = p.count / 2; i < p.count; i++) { /* ascending, from the middle */
        int flag;
        CHECK_OK(lar_set_insert(txn, a, bx.texts, &p.values[i], &flag));
        CHECK_EQ(flag, 1);
        in[i] = true;
        check_model(txn, a, bx.texts, &p, in);
    }
    for (size_t i = p.count / 2; i-- > 0;) { /* descending: each one first */
        CHECK_OK(lar_set_insert(txn, a, bx.texts, &p.values[i], NULL));
        in[i] = true;
        check_model(txn, a, bx.texts, &p, in);
    }
    commit_txn(txn);
    txn = begin_write(env);
    for (size_t i = 1; i < p.count; i += 2) {
        int flag;
        CHECK_OK(lar_set_remove(txn, a, bx.texts, &p.values[i], &flag));
        CHECK_EQ(flag, 1);
        in[i] = false;
        check_model(txn, a, bx.texts, &p, in);
    }
    for (size_t i = 0; i < p.count; i += 4) {
        CHECK_OK(lar_set_remove(txn, a, bx.texts, &p.values[i], NULL));
        in[i] = false;
        check_model(txn, a, bx.texts, &p, in);
    }
    for (size_t lo = 0, hi = p.count; lo < hi;) {
        size_t i = (lo + hi) % 2 ? lo++ : --hi;
        int flag;
        CHECK_OK(lar_set_remove(txn, a, bx.texts, &p.values[i], &flag));
        CHECK_EQ(flag, in[i]);
        in[i] = false;
        check_model(txn, a, bx.texts, &p, in);
    }
    size_t count = 9;
    CHECK_OK(lar_set_count(txn, a, bx.texts, &count));
    CHECK_EQ(count, 0);
    commit_txn(txn);
    free(in);
    pool_free(&p);
    close_env(env);
}

/* White-box: elements are packed (far fewer table entries than elements), and removes
 * merge emptied-out blocks back together. */
TEST(set_blocks_pack_elements_and_merge_as_they_go)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    boxes bx = boxes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj a = make(txn, bx.box);
    for (int64_t i = 0; i < 10000; i++) {
        lar_value v = val_int(i);
        CHECK_OK(lar_set_insert(txn, a, bx.ints, &v, NULL));
    }
    commit_txn(txn);
    close_env(env);
    uint64_t entries = count_file_entries(path, "keyed");
    CHECK(entries > 10);
    CHECK(entries < 10000 / 20);

    env = open_env(path);
    txn = begin_write(env);
    for (int64_t i = 0; i < 10000; i++) {
        if (i % 1000 == 500) continue; /* keep ten, one per thousand */
        lar_value v = val_int(i);
        int flag;
        CHECK_OK(lar_set_remove(txn, a, bx.ints, &v, &flag));
        CHECK_EQ(flag, 1);
    }
    size_t count;
    CHECK_OK(lar_set_count(txn, a, bx.ints, &count));
    CHECK_EQ(count, 10);
    lar_value page[16];
    size_t n;
    CHECK_OK(lar_set_list(txn, a, bx.ints, NULL, page, 16, &n));
    CHECK_EQ(n, 10);
    for (size_t i = 0; i < n; i++) CHECK_EQ(page[i].as.integer, (int64_t)i * 1000 + 500);
    commit_txn(txn);
    close_env(env);
    CHECK(count_file_entries(path, "keyed") <= 4); /* the count and a block or few */
}

/* Union, intersection and difference of sets of thousands of elements (hundreds of
 * blocks), into empty sets and down to empty ones, against the arithmetic. */
TEST(set_blocks_algebra_across_many_blocks)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    boxes bx = boxes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj a = make(txn, bx.box), b = make(txn, bx.box), empty = make(txn, bx.box);
    enum { N = 20000 };
    for (int64_t i = 0; i < N; i++) {
        lar_value x = val_int(2 * i), y = val_int(3 * i);
        CHECK_OK(lar_set_insert(txn, a, bx.ints, &x, NULL));
        CHECK_OK(lar_set_insert(txn, b, bx.ints, &y, NULL));
    }
    commit_txn(txn);

    /* the expected contents, as flags over 0 ..< 3N */
    static bool in_a[3 * N], in_b[3 * N];
    for (int64_t i = 0; i < N; i++) in_a[2 * i] = in_b[3 * i] = true;

    int ops[] = {0, 1, 2};
    for (size_t o = 0; o < 3; o++) {
        txn = begin_write(env);
        int out = -1;
        CHECK_OK(lar_set_is_subset(txn, a, bx.ints, b, bx.ints, &out));
        CHECK_EQ(out, 0);
        CHECK_OK(lar_set_intersects(txn, a, bx.ints, b, bx.ints, &out));
        CHECK_EQ(out, 1);
        if (ops[o] == 0) CHECK_OK(lar_set_union(txn, a, bx.ints, b, bx.ints));
        if (ops[o] == 1) CHECK_OK(lar_set_intersect(txn, a, bx.ints, b, bx.ints));
        if (ops[o] == 2) CHECK_OK(lar_set_subtract(txn, a, bx.ints, b, bx.ints));
        size_t expected = 0;
        for (int64_t v = 0; v < 3 * N; v++) {
            bool want = ops[o] == 0 ? in_a[v] || in_b[v] : ops[o] == 1 ? in_a[v] && in_b[v] : in_a[v] && !in_b[v];
            expected += want;
        }
        size_t count;
        CHECK_OK(lar_set_count(txn, a, bx.ints, &count));
        CHECK_EQ(count, expected);
        lar_value page[256], last;
        size_t n, seen = 0;
        int64_t v = -1;
        while (lar_set_list(txn, a, bx.ints, seen ? &last : NULL, page, 256, &n) == LAR_OK) {
            for (size_t i = 0; i < n; i++) {
                for (v++; v < 3 * N; v++) {
                    bool want = ops[o] == 0 ? in_a[v] || in_b[v] : ops[o] == 1 ? in_a[v] && in_b[v] : in_a[v] && !in_b[v];
                    if (want) break;
                }
                CHECK_EQ(page[i].as.integer, v);
            }
            seen += n;
            last = page[n - 1];
        }
        CHECK_EQ(seen, expected);
        CHECK_OK(lar_txn_abort(txn)); /* each op starts from the same a */
        lar_txn_free(txn);
    }

    txn = begin_write(env);
    /* a union into an empty set copies; then subset both ways */
    CHECK_OK(lar_set_union(txn, empty, bx.ints, b, bx.ints));
    size_t count;
    CHECK_OK(lar_set_count(txn, empty, bx.ints, &count));
    CHECK_EQ(count, N);
    int out;
    CHECK_OK(lar_set_is_subset(txn, empty, bx.ints, b, bx.ints, &out));
    CHECK_EQ(out, 1);
    CHECK_OK(lar_set_is_subset(txn, b, bx.ints, empty, bx.ints, &out));
    CHECK_EQ(out, 1);
    /* a difference down to nothing gives every block up */
    CHECK_OK(lar_set_subtract(txn, empty, bx.ints, b, bx.ints));
    CHECK_OK(lar_set_count(txn, empty, bx.ints, &count));
    CHECK_EQ(count, 0);
    /* an intersection with a disjoint set too */
    lar_value odd = val_int(1);
    CHECK_OK(lar_set_insert(txn, empty, bx.more, &odd, NULL));
    CHECK_OK(lar_set_intersect(txn, a, bx.ints, empty, bx.more));
    CHECK_OK(lar_set_count(txn, a, bx.ints, &count));
    CHECK_EQ(count, 0);
    CHECK_OK(lar_set_clear(txn, b, bx.ints));
    CHECK_OK(lar_set_clear(txn, empty, bx.more));
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "keyed"), 0);
}

/* Sets of links over many blocks: backlinks follow inserts, algebra and deletes of
 * targets; deleting the owners frees every block and backlink. */
TEST(set_blocks_of_links_keep_backlinks_and_free_everything)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    boxes bx = boxes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj a = make(txn, bx.box), b = make(txn, bx.box);
    enum { DOGS = 3000 };
    static lar_obj dogs[DOGS];
    for (size_t i = 0; i < DOGS; i++) dogs[i] = make(txn, bx.dog);
    for (size_t i = 0; i < DOGS; i++) {
        lar_value link = {.type = LAR_TYPE_LINK};
        link.as.link = dogs[i];
        if (i % 2 == 0) CHECK_OK(lar_set_insert(txn, a, bx.dogs, &link, NULL));
        if (i % 3 == 0) CHECK_OK(lar_set_insert(txn, b, bx.dogs, &link, NULL));
    }
    for (size_t i = 0; i < 300; i++) { /* strings too, long ones */
        char text[LAR_SET_ELEMENT_MAX + 1];
        size_t length = 6 + (i * 97) % (LAR_SET_ELEMENT_MAX - 5);
        memset(text, 'a' + (int)(i % 26), length);
        text[length] = 0;
        memcpy(text, "w", 1);
        char digits[8];
        snprintf(digits, sizeof digits, "%05zu", i);
        memcpy(text + 1, digits, 5);
        lar_value v = val_str(text);
        CHECK_OK(lar_set_insert(txn, a, bx.words, &v, NULL));
    }
    CHECK_OK(lar_set_union(txn, a, bx.dogs, b, bx.dogs));
    commit_txn(txn);

    txn = begin_write(env);
    for (size_t i = 0; i < DOGS; i += 7) {
        uint64_t count;
        CHECK_OK(lar_backlinks_count(txn, dogs[i], bx.box, bx.dogs, &count));
        CHECK_EQ(count, (uint64_t)(i % 2 == 0 || i % 3 == 0) + (i % 3 == 0));
    }
    CHECK_OK(lar_set_intersect(txn, a, bx.dogs, b, bx.dogs)); /* a = multiples of 3 */
    for (size_t i = 0; i < DOGS; i += 5) {
        uint64_t count;
        CHECK_OK(lar_backlinks_count(txn, dogs[i], bx.box, bx.dogs, &count));
        CHECK_EQ(count, (uint64_t)(i % 3 == 0) * 2);
    }
    /* deleting targets takes them out of both sets */
    for (size_t i = 0; i < DOGS; i += 2) CHECK_OK(lar_obj_delete(txn, dogs[i]));
    size_t count;
    CHECK_OK(lar_set_count(txn, a, bx.dogs, &count));
    CHECK_EQ(count, DOGS / 6);
    CHECK_OK(lar_set_count(txn, b, bx.dogs, &count));
    CHECK_EQ(count, DOGS / 6);
    lar_value link = {.type = LAR_TYPE_LINK};
    link.as.link = dogs[3];
    CHECK_EQ(set_has(txn, a, bx.dogs, &link), 1);
    link.as.link = dogs[6];
    CHECK_EQ(set_has(txn, a, bx.dogs, &link), 0);
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, a));
    CHECK_OK(lar_obj_delete(txn, b));
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "keyed"), 0);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
}

/* A set comparison that meets a damaged block fails with LAR_ECORRUPT and leaves no LMDB
 * cursor open: in a read transaction nothing else would close it (LeakSanitizer reports
 * the cursor at exit; found by fuzz_api's damage). */
TEST(set_blocks_comparing_a_damaged_set_fails_and_leaks_nothing)
{
    lar_env *env = open_env(test_db_path(NULL));
    boxes bx = boxes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj a = make(txn, bx.box), b = make(txn, bx.box);
    for (int64_t i = 1; i <= 3; i++) {
        lar_value x = val_int(i);
        CHECK_OK(lar_set_insert(txn, a, bx.ints, &x, NULL));
        CHECK_OK(lar_set_insert(txn, b, bx.more, &x, NULL));
    }
    lar_value four = val_int(4);
    CHECK_OK(lar_set_insert(txn, b, bx.more, &four, NULL));
    commit_txn(txn);

    /* Every block of every set (this file holds no other keyed entries) gets a count of 0. */
    txn = begin_write(env);
    MDB_cursor *cursor;
    CHECK_EQ(mdb_cursor_open(txn->mdb, txn->schema->keyed_dbi, &cursor), 0);
    MDB_val key, data;
    int damaged = 0;
    for (int rc = mdb_cursor_get(cursor, &key, &data, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cursor, &key, &data, MDB_NEXT)) {
        uint8_t bytes[512];
        CHECK(data.mv_size <= sizeof bytes && data.mv_size >= 2);
        memcpy(bytes, data.mv_data, data.mv_size);
        bytes[0] = bytes[1] = 0;
        MDB_val broken = {data.mv_size, bytes};
        CHECK_EQ(mdb_cursor_put(cursor, &key, &broken, MDB_CURRENT), 0);
        damaged++;
    }
    mdb_cursor_close(cursor);
    CHECK(damaged >= 2);
    commit_txn(txn);

    txn = begin_read(env);
    int out = -1;
    CHECK_RC(lar_set_is_subset(txn, a, bx.ints, b, bx.more, &out), LAR_ECORRUPT);
    CHECK_RC(lar_set_is_subset(txn, b, bx.more, a, bx.ints, &out), LAR_ECORRUPT);
    CHECK_RC(lar_set_intersects(txn, a, bx.ints, b, bx.more, &out), LAR_ECORRUPT);
    CHECK_EQ(out, -1);
    lar_txn_free(txn);
    close_env(env);
}
