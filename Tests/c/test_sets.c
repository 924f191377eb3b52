/* Sets: unique elements of every type in their order, the set algebra against plain
 * arrays, sets of objects with their backlinks, deletes that free storage, and errors. */
#include "test.h"

#include <math.h>
#include <stdlib.h>

/* Bag {ints: set<int>, more: set<int>, words: set<string?>, reals: set<double>, dogs: set<Dog>,
 *      list: [int], odd: set<int?>}; Dog {name}. */
typedef struct bags {
    lar_class bag, dog;
    uint32_t ints, more, words, reals, dogs, list, odd;
} bags;

static bags bags_setup(lar_env *env)
{
    lar_property_def bag_props[] = {
        {"ints", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, NULL, NULL},
        {"more", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, NULL, NULL},
        {"words", LAR_TYPE_STRING, LAR_COLLECTION_SET, LAR_PROP_OPTIONAL, NULL, NULL},
        {"reals", LAR_TYPE_DOUBLE, LAR_COLLECTION_SET, 0, NULL, NULL},
        {"dogs", LAR_TYPE_LINK, LAR_COLLECTION_SET, 0, "Dog", NULL},
        {"list", LAR_TYPE_INT, LAR_COLLECTION_LIST, 0, NULL, NULL},
        {"odd", LAR_TYPE_INT, LAR_COLLECTION_SET, LAR_PROP_OPTIONAL, NULL, NULL},
    };
    lar_property_def dog_props[] = {PROP("name", LAR_TYPE_STRING, 0)};
    lar_class_def classes[] = {CLASS_DEF("Bag", bag_props), CLASS_DEF("Dog", dog_props)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 1));
    bags b;
    b.bag = class_id(env, "Bag");
    b.dog = class_id(env, "Dog");
    b.ints = prop_id(env, b.bag, "ints");
    b.more = prop_id(env, b.bag, "more");
    b.words = prop_id(env, b.bag, "words");
    b.reals = prop_id(env, b.bag, "reals");
    b.dogs = prop_id(env, b.bag, "dogs");
    b.list = prop_id(env, b.bag, "list");
    b.odd = prop_id(env, b.bag, "odd");
    return b;
}

static lar_obj make(lar_txn *txn, lar_class cls)
{
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, cls, NULL, 0, &obj));
    return obj;
}

static lar_value val_link(lar_obj obj)
{
    lar_value v = {.type = LAR_TYPE_LINK};
    v.as.link = obj;
    return v;
}

static int insert(lar_txn *txn, lar_obj obj, uint32_t prop, lar_value v)
{
    int inserted = -1;
    CHECK_OK(lar_set_insert(txn, obj, prop, &v, &inserted));
    return inserted;
}

static int contains(lar_txn *txn, lar_obj obj, uint32_t prop, lar_value v)
{
    int found = -1;
    CHECK_OK(lar_set_contains(txn, obj, prop, &v, &found));
    return found;
}

static size_t set_count(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    size_t n = 999;
    CHECK_OK(lar_set_count(txn, obj, prop, &n));
    return n;
}

/* Reads a whole set of ints in pages of 3, each starting after the last element read. */
static size_t read_ints(lar_txn *txn, lar_obj obj, uint32_t prop, int64_t *out, size_t room)
{
    lar_value page[3], last;
    size_t n, total = 0;
    int rc;
    while ((rc = lar_set_list(txn, obj, prop, total ? &last : NULL, page, 3, &n)) == LAR_OK) {
        for (size_t i = 0; i < n; i++) {
            CHECK(total < room);
            CHECK_EQ(page[i].type, LAR_TYPE_INT);
            out[total++] = page[i].as.integer;
        }
        last = page[n - 1];
    }
    CHECK_EQ(rc, LAR_ENOTFOUND);
    CHECK_EQ(n, 0);
    return total;
}

static int compare_ints(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Sorted, unique. */
static size_t normalize(int64_t *values, size_t count)
{
    qsort(values, count, sizeof *values, compare_ints);
    size_t kept = 0;
    for (size_t i = 0; i < count; i++)
        if (!kept || values[kept - 1] != values[i]) values[kept++] = values[i];
    return kept;
}

static void check_set(lar_txn *txn, lar_obj obj, uint32_t prop, const int64_t *expected, size_t count)
{
    int64_t got[600];
    CHECK_EQ(set_count(txn, obj, prop), count);
    CHECK_EQ(read_ints(txn, obj, prop, got, 600), count);
    for (size_t i = 0; i < count; i++) CHECK_EQ(got[i], expected[i]);
}

/* ---- elements ---- */

TEST(sets_hold_unique_ints_in_order)
{
    lar_env *env = open_env(test_db_path(NULL));
    bags b = bags_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj bag = make(txn, b.bag);
    int64_t model[500];
    size_t count = 0;
    uint64_t r = 12345;
    for (int i = 0; i < 500; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        int64_t v = (int64_t)(r >> 33) % 300 - 150; /* repeats and negatives */
        bool fresh = true;
        for (size_t k = 0; k < count; k++) fresh &= model[k] != v;
        CHECK_EQ(insert(txn, bag, b.ints, val_int(v)), fresh);
        if (fresh) model[count++] = v;
    }
    count = normalize(model, count);
    check_set(txn, bag, b.ints, model, count);
    CHECK_EQ(contains(txn, bag, b.ints, val_int(model[3])), 1);
    CHECK_EQ(contains(txn, bag, b.ints, val_int(1000)), 0);
    commit_txn(txn);

    txn = begin_write(env);
    int removed = -1;
    lar_value v = val_int(model[0]), absent = val_int(1000);
    CHECK_OK(lar_set_remove(txn, bag, b.ints, &v, &removed));
    CHECK_EQ(removed, 1);
    CHECK_OK(lar_set_remove(txn, bag, b.ints, &v, &removed));
    CHECK_EQ(removed, 0);
    CHECK_OK(lar_set_remove(txn, bag, b.ints, &absent, NULL));
    check_set(txn, bag, b.ints, model + 1, count - 1);
    /* Listing after a value the set does not hold starts at the next one. */
    lar_value page[2], between = val_int(model[5] + 1);
    size_t n;
    if (model[6] != model[5] + 1) {
        CHECK_OK(lar_set_list(txn, bag, b.ints, &between, page, 2, &n));
        CHECK_EQ(page[0].as.integer, model[6]);
    }
    commit_txn(txn);
    close_env(env);
}

TEST(sets_of_doubles_strings_and_nulls_follow_their_order)
{
    lar_env *env = open_env(test_db_path(NULL));
    bags b = bags_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj bag = make(txn, b.bag);
    static const double reals[] = {3.5, -0.0, 0.0, -INFINITY, 1e300, -2.25, INFINITY, 1e-300, -1e-300};
    for (size_t i = 0; i < COUNT_OF(reals); i++) insert(txn, bag, b.reals, val_double(reals[i]));
    CHECK_EQ(insert(txn, bag, b.reals, val_double(NAN)), 1);
    CHECK_EQ(insert(txn, bag, b.reals, val_double(-NAN)), 0); /* every NaN is one element */
    CHECK_EQ(insert(txn, bag, b.reals, val_int(3)), 1);        /* ints are accepted for doubles */
    CHECK_EQ(contains(txn, bag, b.reals, val_double(-0.0)), 1);
    static const double ordered[] = {-INFINITY, -2.25, -1e-300, 0.0, 1e-300, 3.0, 3.5, 1e300, INFINITY};
    lar_value page[16];
    size_t n;
    CHECK_OK(lar_set_list(txn, bag, b.reals, NULL, page, 16, &n));
    CHECK_EQ(n, COUNT_OF(ordered) + 1);
    for (size_t i = 0; i < COUNT_OF(ordered); i++) CHECK(page[i].as.float64 == ordered[i]);
    CHECK(isnan(page[COUNT_OF(ordered)].as.float64));

    static const char *const words[] = {"pear", "apple", "", "apples", "Zebra", "\xc3\xa9t\xc3\xa9", "apple"};
    for (size_t i = 0; i < COUNT_OF(words); i++) insert(txn, bag, b.words, val_str(words[i]));
    CHECK_EQ(insert(txn, bag, b.words, val_null()), 1);
    CHECK_EQ(insert(txn, bag, b.words, val_null()), 0);
    static const char *const sorted[] = {"", "Zebra", "apple", "apples", "pear", "\xc3\xa9t\xc3\xa9"};
    CHECK_OK(lar_set_list(txn, bag, b.words, NULL, page, 16, &n));
    CHECK_EQ(n, COUNT_OF(sorted) + 1);
    CHECK_EQ(page[0].type, LAR_TYPE_NULL); /* null first */
    for (size_t i = 0; i < COUNT_OF(sorted); i++) {
        CHECK_STR(page[i + 1].as.string.data, sorted[i]); /* NUL-terminated */
        CHECK_EQ(page[i + 1].as.string.size, strlen(sorted[i]));
    }
    commit_txn(txn);

    txn = begin_read(env);
    CHECK_EQ(set_count(txn, bag, b.words), 7);
    CHECK_EQ(contains(txn, bag, b.words, val_str("apples")), 1);
    CHECK_EQ(contains(txn, bag, b.words, val_str("appl")), 0);
    CHECK_EQ(contains(txn, bag, b.words, val_null()), 1);
    lar_value after = val_str("apple");
    CHECK_OK(lar_set_list(txn, bag, b.words, &after, page, 1, &n));
    CHECK_STR(page[0].as.string.data, "apples");
    commit_txn(txn);
    close_env(env);
}

TEST(sets_of_every_scalar_type)
{
    lar_env *env = open_env(test_db_path(NULL));
    static const uint8_t oid[12] = {9, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    static const uint8_t uuid[16] = {0xfe, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xff};
    static const uint8_t bytes[3] = {0, 0xff, 0};
    lar_value samples[SCALAR_TYPE_COUNT + 1];
    samples[LAR_TYPE_INT] = val_int(INT64_MIN);
    samples[LAR_TYPE_BOOL] = val_bool(1);
    samples[LAR_TYPE_FLOAT] = val_float(-1.5f);
    samples[LAR_TYPE_DOUBLE] = val_double(2.25);
    samples[LAR_TYPE_STRING] = val_str("h\xc3\xa9");
    samples[LAR_TYPE_BINARY] = val_bin(bytes, sizeof bytes);
    samples[LAR_TYPE_TIMESTAMP] = val_ts(-5, -7);
    samples[LAR_TYPE_OBJECT_ID] = val_oid(oid);
    samples[LAR_TYPE_UUID] = val_uuid(uuid);
    samples[LAR_TYPE_DECIMAL128] = val_dec(99, 0x3040000000000000ull);
    lar_property_def props[SCALAR_TYPE_COUNT];
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++)
        props[t - 1] = (lar_property_def){scalar_type_names[t], (lar_type)t, LAR_COLLECTION_SET, LAR_PROP_OPTIONAL,
                                          NULL, NULL};
    lar_class_def def = {"Sets", props, COUNT_OF(props), 0};
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class cls = class_id(env, "Sets");
    lar_txn *txn = begin_write(env);
    lar_obj obj = make(txn, cls);
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        uint32_t prop = (uint32_t)(t - 1);
        CHECK_EQ(insert(txn, obj, prop, samples[t]), 1);
        CHECK_EQ(insert(txn, obj, prop, samples[t]), 0);
        CHECK_EQ(insert(txn, obj, prop, val_null()), 1);
    }
    commit_txn(txn);
    txn = begin_read(env);
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        uint32_t prop = (uint32_t)(t - 1);
        lar_value page[4];
        size_t n;
        CHECK_OK(lar_set_list(txn, obj, prop, NULL, page, 4, &n));
        CHECK_EQ(n, 2);
        CHECK_EQ(page[0].type, LAR_TYPE_NULL);
        CHECK_VALUE(page[1], samples[t]);
        CHECK_EQ(contains(txn, obj, prop, samples[t]), 1);
    }
    commit_txn(txn);
    close_env(env);
}

/* ---- the set algebra ---- */

static void fill(lar_txn *txn, lar_obj obj, uint32_t prop, int64_t from, int64_t to, int64_t step)
{
    for (int64_t v = from; v < to; v += step) insert(txn, obj, prop, val_int(v));
}

TEST(sets_union_intersection_difference_subset_intersects)
{
    lar_env *env = open_env(test_db_path(NULL));
    bags b = bags_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj x = make(txn, b.bag), y = make(txn, b.bag), empty = make(txn, b.bag);
    fill(txn, x, b.ints, 0, 300, 2);   /* evens below 300 */
    fill(txn, y, b.more, 0, 300, 3);   /* multiples of 3: another property of another object */
    int64_t expected[600];
    size_t n = 0;
    for (int64_t v = 0; v < 300; v++) if (v % 2 == 0 || v % 3 == 0) expected[n++] = v;

    int answer = -1;
    CHECK_OK(lar_set_intersects(txn, x, b.ints, y, b.more, &answer));
    CHECK_EQ(answer, 1);
    CHECK_OK(lar_set_is_subset(txn, x, b.ints, y, b.more, &answer));
    CHECK_EQ(answer, 0);
    CHECK_OK(lar_set_is_subset(txn, empty, b.ints, y, b.more, &answer));
    CHECK_EQ(answer, 1);
    CHECK_OK(lar_set_intersects(txn, empty, b.ints, y, b.more, &answer));
    CHECK_EQ(answer, 0);
    CHECK_OK(lar_set_is_subset(txn, x, b.ints, x, b.ints, &answer));
    CHECK_EQ(answer, 1);
    CHECK_OK(lar_set_intersects(txn, x, b.ints, x, b.ints, &answer));
    CHECK_EQ(answer, 1);

    CHECK_OK(lar_set_union(txn, x, b.ints, y, b.more));
    check_set(txn, x, b.ints, expected, n);
    CHECK_OK(lar_set_is_subset(txn, y, b.more, x, b.ints, &answer));
    CHECK_EQ(answer, 1);
    CHECK_OK(lar_set_subtract(txn, x, b.ints, y, b.more)); /* evens that are not multiples of 3 */
    n = 0;
    for (int64_t v = 0; v < 300; v++) if (v % 2 == 0 && v % 3 != 0) expected[n++] = v;
    check_set(txn, x, b.ints, expected, n);
    CHECK_OK(lar_set_intersects(txn, x, b.ints, y, b.more, &answer));
    CHECK_EQ(answer, 0);
    fill(txn, x, b.ints, 0, 300, 6);
    CHECK_OK(lar_set_intersect(txn, x, b.ints, y, b.more)); /* multiples of 6 */
    n = 0;
    for (int64_t v = 0; v < 300; v += 6) expected[n++] = v;
    check_set(txn, x, b.ints, expected, n);
    CHECK_EQ(set_count(txn, y, b.more), 100); /* the other set is only read */
    commit_txn(txn);
    close_env(env);
}

TEST(sets_algebra_with_itself_and_with_empty_sets)
{
    lar_env *env = open_env(test_db_path(NULL));
    bags b = bags_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj x = make(txn, b.bag), empty = make(txn, b.bag);
    fill(txn, x, b.ints, 0, 10, 1);
    int64_t all[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    CHECK_OK(lar_set_union(txn, x, b.ints, x, b.ints));
    CHECK_OK(lar_set_intersect(txn, x, b.ints, x, b.ints));
    check_set(txn, x, b.ints, all, 10);
    CHECK_OK(lar_set_union(txn, x, b.ints, empty, b.more));
    CHECK_OK(lar_set_subtract(txn, x, b.ints, empty, b.more));
    check_set(txn, x, b.ints, all, 10);
    CHECK_OK(lar_set_union(txn, empty, b.more, x, b.ints)); /* an empty set gets an id */
    check_set(txn, empty, b.more, all, 10);
    CHECK_OK(lar_set_subtract(txn, x, b.ints, x, b.ints));
    check_set(txn, x, b.ints, all, 0);
    CHECK_OK(lar_set_intersect(txn, empty, b.more, x, b.ints));
    check_set(txn, empty, b.more, all, 0);
    commit_txn(txn);
    close_env(env);
}

/* ---- errors ---- */

TEST(sets_refuse_bad_arguments_and_change_nothing)
{
    lar_env *env = open_env(test_db_path(NULL));
    bags b = bags_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj bag = make(txn, b.bag), gone = make(txn, b.bag), other = make(txn, b.bag);
    lar_obj dog = make(txn, b.dog), dead = make(txn, b.dog);
    CHECK_OK(lar_obj_delete(txn, gone));
    CHECK_OK(lar_obj_delete(txn, dead));
    int64_t model[3] = {1, 2, 3};
    fill(txn, bag, b.ints, 1, 4, 1);
    lar_value one = val_int(1), text = val_str("x"), null = val_null(), out[2];
    size_t n;
    int flag;
    CHECK_RC(lar_set_count(txn, bag, b.ints, NULL), LAR_EINVAL);
    CHECK_RC(lar_set_contains(txn, bag, b.ints, &one, NULL), LAR_EINVAL);
    CHECK_RC(lar_set_contains(txn, bag, b.ints, NULL, &flag), LAR_EINVAL);
    CHECK_RC(lar_set_insert(txn, bag, b.ints, NULL, &flag), LAR_EINVAL);
    CHECK_RC(lar_set_remove(txn, bag, b.ints, NULL, &flag), LAR_EINVAL);
    CHECK_RC(lar_set_list(txn, bag, b.ints, NULL, NULL, 2, &n), LAR_EINVAL);
    CHECK_RC(lar_set_list(txn, bag, b.ints, NULL, out, 2, NULL), LAR_EINVAL);
    CHECK_RC(lar_set_list(txn, bag, b.ints, NULL, out, 0, &n), LAR_EINVAL);
    CHECK_RC(lar_set_is_subset(txn, bag, b.ints, other, b.more, NULL), LAR_EINVAL);
    CHECK_RC(lar_set_intersects(txn, bag, b.ints, other, b.more, NULL), LAR_EINVAL);
    CHECK_RC(lar_set_count(NULL, bag, b.ints, &n), LAR_EINVAL);
    CHECK_RC(lar_set_insert(txn, (lar_obj){99, bag.key}, b.ints, &one, NULL), LAR_EINVAL);
    CHECK_RC(lar_set_insert(txn, bag, 7, &one, NULL), LAR_EINVAL);
    CHECK_RC(lar_set_insert(txn, bag, b.list, &one, NULL), LAR_EINVAL);
    CHECK_MSG_HAS("Bag.list");
    CHECK_MSG_HAS("not a set");
    CHECK_RC(lar_list_append(txn, bag, b.ints, &one), LAR_EINVAL); /* a set is not a list either */
    CHECK_RC(lar_set_insert(txn, bag, b.ints, &text, NULL), LAR_ETYPE);
    CHECK_RC(lar_set_insert(txn, bag, b.ints, &null, NULL), LAR_ETYPE);
    CHECK_RC(lar_set_contains(txn, bag, b.ints, &text, &flag), LAR_ETYPE);
    CHECK_RC(lar_set_remove(txn, bag, b.ints, &text, &flag), LAR_ETYPE);
    CHECK_RC(lar_set_list(txn, bag, b.ints, &text, out, 2, &n), LAR_ETYPE);
    lar_value invalid = val_str("\xff"), long_text;
    char buffer[LAR_SET_ELEMENT_MAX + 2];
    memset(buffer, 'a', sizeof buffer);
    long_text = val_strn(buffer, LAR_SET_ELEMENT_MAX + 1);
    CHECK_RC(lar_set_insert(txn, bag, b.words, &invalid, NULL), LAR_EINVAL);
    CHECK_RC(lar_set_insert(txn, bag, b.words, &long_text, NULL), LAR_EINVAL);
    CHECK_MSG_HAS("at most");
    long_text.as.string.size = LAR_SET_ELEMENT_MAX; /* the longest fits */
    CHECK_EQ(insert(txn, bag, b.words, long_text), 1);
    lar_value to_bag = val_link(bag), to_dead = val_link(dead), to_dog = val_link(dog);
    CHECK_RC(lar_set_insert(txn, bag, b.dogs, &to_bag, NULL), LAR_ETYPE);
    CHECK_RC(lar_set_insert(txn, bag, b.dogs, &to_dead, NULL), LAR_EINVAL);
    CHECK_MSG_HAS("deleted");
    CHECK_EQ(contains(txn, bag, b.dogs, to_dead), 0);
    CHECK_RC(lar_set_insert(txn, gone, b.ints, &one, NULL), LAR_EDELETED);
    CHECK_RC(lar_set_count(txn, gone, b.ints, &n), LAR_EDELETED);
    CHECK_RC(lar_set_union(txn, bag, b.ints, gone, b.more), LAR_EDELETED);
    /* Sets of different elements do not mix. */
    CHECK_RC(lar_set_union(txn, bag, b.ints, other, b.words), LAR_EINVAL);
    CHECK_MSG_HAS("different elements");
    CHECK_RC(lar_set_union(txn, bag, b.ints, other, b.odd), LAR_EINVAL); /* optional and not */
    CHECK_RC(lar_set_intersects(txn, bag, b.ints, other, b.dogs, &flag), LAR_EINVAL);
    CHECK_RC(lar_set_subtract(txn, bag, b.ints, other, b.list), LAR_EINVAL);
    check_set(txn, bag, b.ints, model, 3);
    CHECK_EQ(set_count(txn, bag, b.dogs), 0);
    (void)to_dog;
    commit_txn(txn);

    txn = begin_read(env);
    CHECK_RC(lar_set_insert(txn, bag, b.ints, &one, NULL), LAR_EMISUSE);
    CHECK_RC(lar_set_remove(txn, bag, b.ints, &one, NULL), LAR_EMISUSE);
    CHECK_RC(lar_set_clear(txn, bag, b.ints), LAR_EMISUSE);
    CHECK_RC(lar_set_union(txn, bag, b.ints, other, b.more), LAR_EMISUSE);
    CHECK_RC(lar_set_intersect(txn, bag, b.ints, other, b.more), LAR_EMISUSE);
    CHECK_RC(lar_set_subtract(txn, bag, b.ints, other, b.more), LAR_EMISUSE);
    CHECK_OK(lar_set_is_subset(txn, bag, b.ints, other, b.more, &flag)); /* reads are fine */
    CHECK_EQ(flag, 0);
    lar_txn_abort(txn);
    CHECK_RC(lar_set_count(txn, bag, b.ints, &n), LAR_EMISUSE);
    CHECK_RC(lar_set_contains(txn, bag, b.ints, &one, &flag), LAR_EMISUSE);
    CHECK_RC(lar_set_list(txn, bag, b.ints, NULL, out, 2, &n), LAR_EMISUSE);
    CHECK_RC(lar_set_intersects(txn, bag, b.ints, other, b.more, &flag), LAR_EMISUSE);
    lar_txn_free(txn);
    txn = begin_read(env);
    check_set(txn, bag, b.ints, model, 3);
    commit_txn(txn);
    close_env(env);
}

/* ---- sets of objects, and storage ---- */

TEST(sets_of_objects_keep_backlinks_and_lose_deleted_targets)
{
    lar_env *env = open_env(test_db_path(NULL));
    bags b = bags_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ann = make(txn, b.bag), bob = make(txn, b.bag);
    lar_obj rex = make(txn, b.dog), fido = make(txn, b.dog);
    CHECK_EQ(insert(txn, ann, b.dogs, val_link(rex)), 1);
    CHECK_EQ(insert(txn, ann, b.dogs, val_link(rex)), 0);
    CHECK_EQ(insert(txn, ann, b.dogs, val_link(fido)), 1);
    CHECK_EQ(insert(txn, bob, b.dogs, val_link(rex)), 1);
    uint64_t count;
    CHECK_OK(lar_backlinks_count(txn, rex, b.bag, b.dogs, &count));
    CHECK_EQ(count, 2);
    lar_value page[4];
    size_t n;
    CHECK_OK(lar_set_list(txn, ann, b.dogs, NULL, page, 4, &n));
    CHECK_EQ(n, 2);
    CHECK_EQ(page[0].type, LAR_TYPE_LINK);
    CHECK_EQ(page[0].as.link.cls, b.dog);
    CHECK_EQ(page[0].as.link.key, rex.key);
    lar_value to_rex = val_link(rex);
    CHECK_OK(lar_set_remove(txn, bob, b.dogs, &to_rex, NULL));
    CHECK_OK(lar_backlinks_count(txn, rex, b.bag, b.dogs, &count));
    CHECK_EQ(count, 1);
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, rex));
    CHECK_EQ(set_count(txn, ann, b.dogs), 1);
    CHECK_EQ(contains(txn, ann, b.dogs, val_link(fido)), 1);
    CHECK_OK(lar_set_clear(txn, ann, b.dogs));
    CHECK_OK(lar_backlinks_count(txn, fido, b.bag, b.dogs, &count));
    CHECK_EQ(count, 0);
    commit_txn(txn);
    close_env(env);
}

TEST(sets_deleting_the_owner_frees_everything)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    bags b = bags_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj keep = make(txn, b.dog);
    commit_txn(txn);
    close_env(env);
    uint64_t before = count_file_entries(path, NULL);

    env = open_env(path);
    txn = begin_write(env);
    lar_obj ann = make(txn, b.bag), bob = make(txn, b.bag);
    fill(txn, ann, b.ints, 0, 2000, 1);
    fill(txn, bob, b.more, 0, 100, 1);
    insert(txn, ann, b.dogs, val_link(keep));
    insert(txn, bob, b.dogs, val_link(keep));
    insert(txn, ann, b.words, val_str("w"));
    lar_value null = val_null();
    CHECK_OK(lar_obj_set(txn, bob, b.more, &null)); /* null empties a set */
    CHECK_EQ(set_count(txn, bob, b.more), 0);
    commit_txn(txn);
    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, ann));
    CHECK_OK(lar_objects_delete_all(txn, b.bag));
    commit_txn(txn);
    close_env(env);
    /* Two counters stay: the Bag class's next key and the next collection id. */
    CHECK_EQ(count_file_entries(path, NULL), before + 2);
    CHECK_EQ(count_file_entries(path, "keyed"), 0);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
}
