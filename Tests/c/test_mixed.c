/* Mixed values (Realm's AnyRealmValue): every scalar and typed links to two classes
 * through a mixed property, a list, a set and a map of mixed, across a reopen; type
 * changes; deletes of link targets; set uniqueness by numeric value and order; errors
 * that change nothing; the schema's rules. */
#include "test.h"

#include <lmdb.h>
#include <math.h>

/* Box {any: mixed, name: string, list: [mixed], set: set<mixed>, map: map<mixed>, other: set<mixed>};
 * Dog {name: string}; Cat {age: int}. */
typedef struct boxes {
    lar_class box, dog, cat;
    uint32_t any, name, list, set, map, other;
} boxes;

static void boxes_apply(lar_env *env)
{
    lar_property_def box_props[] = {
        {"any", LAR_TYPE_MIXED, LAR_COLLECTION_NONE, 0, NULL, NULL},
        {"name", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, NULL, NULL},
        {"list", LAR_TYPE_MIXED, LAR_COLLECTION_LIST, 0, NULL, NULL},
        {"set", LAR_TYPE_MIXED, LAR_COLLECTION_SET, 0, NULL, NULL},
        {"map", LAR_TYPE_MIXED, LAR_COLLECTION_MAP, 0, NULL, NULL},
        {"other", LAR_TYPE_MIXED, LAR_COLLECTION_SET, 0, NULL, NULL},
    };
    lar_property_def dog_props[] = {PROP("name", LAR_TYPE_STRING, 0)};
    lar_property_def cat_props[] = {PROP("age", LAR_TYPE_INT, 0)};
    lar_class_def classes[] = {CLASS_DEF("Box", box_props), CLASS_DEF("Dog", dog_props), CLASS_DEF("Cat", cat_props)};
    CHECK_OK(lar_schema_apply(env, classes, 3, 1));
}

static boxes boxes_lookup(lar_env *env)
{
    boxes b;
    b.box = class_id(env, "Box");
    b.dog = class_id(env, "Dog");
    b.cat = class_id(env, "Cat");
    b.any = prop_id(env, b.box, "any");
    b.name = prop_id(env, b.box, "name");
    b.list = prop_id(env, b.box, "list");
    b.set = prop_id(env, b.box, "set");
    b.map = prop_id(env, b.box, "map");
    b.other = prop_id(env, b.box, "other");
    return b;
}

static lar_obj make(lar_txn *txn, lar_class cls)
{
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, cls, NULL, 0, &obj));
    return obj;
}

static lar_value link_to(lar_obj obj)
{
    lar_value v = {.type = LAR_TYPE_LINK};
    v.as.link = obj;
    return v;
}

static lar_value map_value(lar_txn *txn, lar_obj obj, uint32_t prop, const char *key)
{
    lar_string k = {key, strlen(key)};
    lar_value v;
    CHECK_OK(lar_map_get(txn, obj, prop, &k, &v));
    return v;
}

static size_t map_count(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    size_t n;
    CHECK_OK(lar_map_count(txn, obj, prop, &n));
    return n;
}

static size_t list_count(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    size_t n;
    CHECK_OK(lar_list_count(txn, obj, prop, &n));
    return n;
}

static size_t set_count(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    size_t n;
    CHECK_OK(lar_set_count(txn, obj, prop, &n));
    return n;
}

static size_t set_read(lar_txn *txn, lar_obj obj, uint32_t prop, lar_value *out, size_t capacity)
{
    size_t n = 0;
    int rc = lar_set_list(txn, obj, prop, NULL, out, capacity, &n);
    CHECK(rc == LAR_OK || (rc == LAR_ENOTFOUND && n == 0));
    return n;
}

static uint64_t backlinks(lar_txn *txn, lar_obj target, lar_class origin_cls, uint32_t prop)
{
    uint64_t n;
    CHECK_OK(lar_backlinks_count(txn, target, origin_cls, prop, &n));
    return n;
}

static int set_insert(lar_txn *txn, lar_obj obj, uint32_t prop, lar_value v)
{
    int inserted = -1;
    CHECK_OK(lar_set_insert(txn, obj, prop, &v, &inserted));
    return inserted;
}

static const uint8_t oid_bytes[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
static const uint8_t uuid_bytes[16] = {0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

enum { SAMPLE_COUNT = 13 };

/* One value of every kind: null, the ten scalars, links to a Dog and a Cat. */
static void samples(lar_obj dog, lar_obj cat, lar_value out[SAMPLE_COUNT])
{
    out[0] = val_null();
    out[1] = val_int(-7);
    out[2] = val_bool(1);
    out[3] = val_float(2.5f);
    out[4] = val_double(3.25);
    out[5] = val_str("h\xc3\xa9llo");
    out[6] = val_bin("\x00\x01\xff", 3);
    out[7] = val_ts(-5, -250);
    out[8] = val_oid(oid_bytes);
    out[9] = val_uuid(uuid_bytes);
    out[10] = val_dec(0x1234, 0x3040000000000000ull);
    out[11] = link_to(dog);
    out[12] = link_to(cat);
}

static const char *const sample_keys[SAMPLE_COUNT] = {"null", "int", "bool", "float", "double", "string", "binary",
                                                       "timestamp", "objectId", "uuid", "decimal", "dog", "cat"};

TEST(mixed_every_kind_round_trips_through_property_list_set_and_map_across_reopen)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    boxes_apply(env);
    boxes b = boxes_lookup(env);
    lar_txn *txn = begin_write(env);
    lar_obj dog = make(txn, b.dog), cat = make(txn, b.cat);
    lar_value v[SAMPLE_COUNT];
    samples(dog, cat, v);
    lar_obj boxes_made[SAMPLE_COUNT], holder = make(txn, b.box);
    for (int i = 0; i < SAMPLE_COUNT; i++) {
        /* Through lar_obj_create with every property given, and through lar_obj_set. */
        lar_value values[6] = {v[i], val_str("named"), val_null(), val_null(), val_null(), val_null()};
        CHECK_OK(lar_obj_create(txn, b.box, values, 6, &boxes_made[i]));
        CHECK_VALUE(get_value(txn, boxes_made[i], b.any), v[i]);
        CHECK_OK(lar_list_append(txn, holder, b.list, &v[i]));
        CHECK_EQ(set_insert(txn, holder, b.set, v[i]), 1);
        lar_string key = {sample_keys[i], strlen(sample_keys[i])};
        CHECK_OK(lar_map_put(txn, holder, b.map, &key, &v[i]));
    }
    CHECK_OK(lar_obj_set(txn, holder, b.any, &v[5]));
    CHECK_VALUE(get_value(txn, holder, b.any), v[5]);
    commit_txn(txn);
    close_env(env);

    env = open_env(path); /* no schema given: the stored one */
    b = boxes_lookup(env);
    txn = begin_read(env);
    for (int i = 0; i < SAMPLE_COUNT; i++) {
        CHECK_VALUE(get_value(txn, boxes_made[i], b.any), v[i]);
        CHECK_VALUE(get_value(txn, boxes_made[i], b.name), val_str("named"));
        lar_value all[6];
        CHECK_OK(lar_obj_get_all(txn, boxes_made[i], all, 6));
        CHECK_VALUE(all[0], v[i]);
        CHECK_VALUE(all[1], val_str("named"));
        lar_value element;
        CHECK_OK(lar_list_get(txn, holder, b.list, (size_t)i, &element));
        CHECK_VALUE(element, v[i]);
        CHECK_VALUE(map_value(txn, holder, b.map, sample_keys[i]), v[i]);
        int found = 0;
        CHECK_OK(lar_set_contains(txn, holder, b.set, &v[i], &found));
        CHECK_EQ(found, 1);
    }
    CHECK_VALUE(get_value(txn, holder, b.any), v[5]);
    lar_value batch[SAMPLE_COUNT];
    size_t n = 0;
    CHECK_OK(lar_list_get_batch(txn, holder, b.list, 0, batch, SAMPLE_COUNT, &n));
    CHECK_EQ(n, SAMPLE_COUNT);
    for (int i = 0; i < SAMPLE_COUNT; i++) CHECK_VALUE(batch[i], v[i]);
    /* The set reads every kind back with its own type, in kind order: null, bool,
     * numbers, decimal, string, binary, timestamp, ObjectId, UUID, links. */
    lar_value got[SAMPLE_COUNT + 1];
    CHECK_EQ(set_read(txn, holder, b.set, got, SAMPLE_COUNT + 1), SAMPLE_COUNT);
    const int order[SAMPLE_COUNT] = {0, 2, 1, 3, 4, 10, 5, 6, 7, 8, 9, 11, 12};
    for (int i = 0; i < SAMPLE_COUNT; i++) CHECK_VALUE(got[i], v[order[i]]);
    /* Read in pages through `after`. */
    lar_value page[2];
    CHECK_OK(lar_set_list(txn, holder, b.set, &v[4], page, 2, &n));
    CHECK_EQ(n, 2);
    CHECK_VALUE(page[0], v[10]);
    CHECK_VALUE(page[1], v[5]);
    lar_string keys[SAMPLE_COUNT];
    lar_value values[SAMPLE_COUNT];
    CHECK_OK(lar_map_list(txn, holder, b.map, NULL, keys, values, SAMPLE_COUNT, &n));
    CHECK_EQ(n, SAMPLE_COUNT);
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < SAMPLE_COUNT; j++)
            if (!strcmp(keys[i].data, sample_keys[j])) CHECK_VALUE(values[i], v[j]);
    /* Every link written through a mixed value is in the backlink index. */
    CHECK_EQ(backlinks(txn, dog, b.box, b.any), 1);
    CHECK_EQ(backlinks(txn, cat, b.box, b.any), 1);
    CHECK_EQ(backlinks(txn, dog, b.box, b.list), 1);
    CHECK_EQ(backlinks(txn, cat, b.box, b.set), 1);
    CHECK_EQ(backlinks(txn, dog, b.box, b.map), 1);
    commit_txn(txn);
    close_env(env);
}

TEST(mixed_property_changes_type_and_keeps_backlinks_in_step)
{
    lar_env *env = open_env(test_db_path(NULL));
    boxes_apply(env);
    boxes b = boxes_lookup(env);
    lar_txn *txn = begin_write(env);
    lar_obj dog = make(txn, b.dog), cat = make(txn, b.cat), box = make(txn, b.box);
    CHECK_VALUE(get_value(txn, box, b.any), val_null()); /* the default */
    lar_value name = val_str("a name beside the mixed string");
    CHECK_OK(lar_obj_set(txn, box, b.name, &name));
    lar_value steps[] = {val_int(42), val_str("now a string"), link_to(dog), val_str(""), link_to(cat),
                         link_to(dog), val_double(1.5), val_null()};
    for (size_t i = 0; i < COUNT_OF(steps); i++) {
        CHECK_OK(lar_obj_set(txn, box, b.any, &steps[i]));
        CHECK_VALUE(get_value(txn, box, b.any), steps[i]);
        CHECK_VALUE(get_value(txn, box, b.name), name);
        bool to_dog = steps[i].type == LAR_TYPE_LINK && steps[i].as.link.cls == b.dog;
        bool to_cat = steps[i].type == LAR_TYPE_LINK && steps[i].as.link.cls == b.cat;
        CHECK_EQ(backlinks(txn, dog, b.box, b.any), to_dog);
        CHECK_EQ(backlinks(txn, cat, b.box, b.any), to_cat);
    }
    commit_txn(txn);
    /* The same in a new transaction, on the committed row. */
    txn = begin_write(env);
    lar_value link = link_to(cat);
    CHECK_OK(lar_obj_set(txn, box, b.any, &link));
    commit_txn(txn);
    txn = begin_read(env);
    CHECK_VALUE(get_value(txn, box, b.any), link);
    CHECK_EQ(backlinks(txn, cat, b.box, b.any), 1);
    lar_obj origin;
    size_t n;
    CHECK_OK(lar_backlinks_list(txn, cat, b.box, b.any, 0, &origin, 1, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(origin.key, box.key);
    commit_txn(txn);
    /* Deleting the box forgets its link. */
    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, box));
    CHECK_EQ(backlinks(txn, cat, b.box, b.any), 0);
    commit_txn(txn);
    close_env(env);
}

TEST(mixed_delete_of_a_target_nulls_the_property_and_leaves_lists_sets_and_map_values)
{
    lar_env *env = open_env(test_db_path(NULL));
    boxes_apply(env);
    boxes b = boxes_lookup(env);
    lar_txn *txn = begin_write(env);
    lar_obj dog = make(txn, b.dog), cat = make(txn, b.cat), box = make(txn, b.box);
    /* Keys of both classes collide (each class counts from its own start): the
     * class must tell them apart. */
    CHECK_EQ(dog.key, cat.key);
    lar_value d = link_to(dog), c = link_to(cat), five = val_int(5), x = val_str("x");
    CHECK_OK(lar_obj_set(txn, box, b.any, &d));
    lar_value list[] = {d, c, d, five, d};
    for (size_t i = 0; i < COUNT_OF(list); i++) CHECK_OK(lar_list_append(txn, box, b.list, &list[i]));
    CHECK_EQ(set_insert(txn, box, b.set, d), 1);
    CHECK_EQ(set_insert(txn, box, b.set, c), 1);
    CHECK_EQ(set_insert(txn, box, b.set, five), 1);
    lar_string ka = {"a", 1}, kb = {"b", 1}, kc = {"c", 1};
    CHECK_OK(lar_map_put(txn, box, b.map, &ka, &d));
    CHECK_OK(lar_map_put(txn, box, b.map, &kb, &c));
    CHECK_OK(lar_map_put(txn, box, b.map, &kc, &x));
    CHECK_EQ(backlinks(txn, dog, b.box, b.list), 1); /* one origin, linking three times */
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, dog));
    commit_txn(txn);
    txn = begin_read(env);
    CHECK_VALUE(get_value(txn, box, b.any), val_null());
    CHECK_EQ(list_count(txn, box, b.list), 2);
    lar_value e;
    CHECK_OK(lar_list_get(txn, box, b.list, 0, &e));
    CHECK_VALUE(e, c);
    CHECK_OK(lar_list_get(txn, box, b.list, 1, &e));
    CHECK_VALUE(e, five);
    lar_value got[4];
    CHECK_EQ(set_read(txn, box, b.set, got, 4), 2);
    CHECK_VALUE(got[0], five);
    CHECK_VALUE(got[1], c);
    CHECK_EQ(map_count(txn, box, b.map), 3);
    CHECK_VALUE(map_value(txn, box, b.map, "a"), val_null());
    CHECK_VALUE(map_value(txn, box, b.map, "b"), c);
    CHECK_VALUE(map_value(txn, box, b.map, "c"), x);
    CHECK_EQ(backlinks(txn, cat, b.box, b.list), 1);
    commit_txn(txn);

    /* The cat next; then the box, whose collections give their backlinks up. */
    txn = begin_write(env);
    lar_obj cat2 = make(txn, b.cat);
    lar_value c2 = link_to(cat2);
    CHECK_OK(lar_obj_set(txn, box, b.any, &c2));
    CHECK_OK(lar_obj_delete(txn, cat));
    CHECK_VALUE(get_value(txn, box, b.any), c2);
    CHECK_EQ(list_count(txn, box, b.list), 1);
    CHECK_EQ(set_count(txn, box, b.set), 1);
    CHECK_VALUE(map_value(txn, box, b.map, "b"), val_null());
    CHECK_OK(lar_list_append(txn, box, b.list, &c2));
    CHECK_EQ(set_insert(txn, box, b.set, c2), 1);
    CHECK_OK(lar_map_put(txn, box, b.map, &kc, &c2));
    CHECK_OK(lar_obj_delete(txn, box));
    CHECK_EQ(backlinks(txn, cat2, b.box, b.any), 0);
    CHECK_EQ(backlinks(txn, cat2, b.box, b.list), 0);
    CHECK_EQ(backlinks(txn, cat2, b.box, b.set), 0);
    CHECK_EQ(backlinks(txn, cat2, b.box, b.map), 0);
    CHECK_OK(lar_obj_delete(txn, cat2));
    commit_txn(txn);
    close_env(env);
}

TEST(mixed_set_is_unique_by_numeric_value_and_ordered_by_kind)
{
    lar_env *env = open_env(test_db_path(NULL));
    boxes_apply(env);
    boxes b = boxes_lookup(env);
    lar_txn *txn = begin_write(env);
    lar_obj box = make(txn, b.box);
    /* Realm's Set<Mixed>: numbers compare by value across int, float and double. */
    CHECK_EQ(set_insert(txn, box, b.set, val_int(1)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_double(1.0)), 0);
    CHECK_EQ(set_insert(txn, box, b.set, val_float(1.0f)), 0);
    CHECK_EQ(set_insert(txn, box, b.set, val_bool(1)), 1);   /* bool is not a number */
    CHECK_EQ(set_insert(txn, box, b.set, val_str("1")), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_bin("1", 1)), 1); /* nor is a binary a string */
    CHECK_EQ(set_insert(txn, box, b.set, val_double(1.5)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_float(1.5f)), 0);
    CHECK_EQ(set_insert(txn, box, b.set, val_int(-3)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_double(-INFINITY)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_double(NAN)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_double(-NAN)), 0);      /* one NaN */
    CHECK_EQ(set_insert(txn, box, b.set, val_double(0.0)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_double(-0.0)), 0);      /* -0.0 is 0.0 */
    CHECK_EQ(set_insert(txn, box, b.set, val_int(0)), 0);
    /* Ints beyond a double's precision stay exact: 2^53 and 2^53 + 1 are two. */
    int64_t big = (int64_t)1 << 53;
    CHECK_EQ(set_insert(txn, box, b.set, val_int(big)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_int(big + 1)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_double((double)big)), 0);
    CHECK_EQ(set_insert(txn, box, b.set, val_double((double)big + 2)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_int(INT64_MAX)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_double(9223372036854775808.0)), 1); /* 2^63: above INT64_MAX */
    CHECK_EQ(set_insert(txn, box, b.set, val_int(INT64_MIN)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_double(-9223372036854775808.0)), 0); /* -2^63 is INT64_MIN */
    CHECK_EQ(set_insert(txn, box, b.set, val_null()), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_null()), 0);
    lar_value expected[] = {val_null(), val_bool(1), val_double(-INFINITY), val_int(INT64_MIN), val_int(-3),
                            val_double(0.0), val_int(1), val_double(1.5), val_int(big), val_int(big + 1),
                            val_double((double)big + 2), val_int(INT64_MAX),
                            val_double(9223372036854775808.0), val_double(NAN), val_str("1"), val_bin("1", 1)};
    lar_value got[32];
    size_t n = set_read(txn, box, b.set, got, 32);
    CHECK_EQ(n, COUNT_OF(expected));
    for (size_t i = 0; i < n; i++) {
        if (expected[i].type == LAR_TYPE_DOUBLE && isnan(expected[i].as.float64)) {
            CHECK(got[i].type == LAR_TYPE_DOUBLE && isnan(got[i].as.float64));
            continue;
        }
        CHECK_VALUE(got[i], expected[i]);
    }
    /* Lookups and removals match by value too; the first type inserted stays. */
    int found = 0, removed = 0;
    lar_value one = val_double(1.0);
    CHECK_OK(lar_set_contains(txn, box, b.set, &one, &found));
    CHECK_EQ(found, 1);
    lar_value two = val_int(2);
    CHECK_OK(lar_set_contains(txn, box, b.set, &two, &found));
    CHECK_EQ(found, 0);
    CHECK_OK(lar_set_remove(txn, box, b.set, &one, &removed));
    CHECK_EQ(removed, 1);
    CHECK_EQ(set_count(txn, box, b.set), COUNT_OF(expected) - 1);
    lar_value int_one = val_int(1);
    CHECK_OK(lar_set_contains(txn, box, b.set, &int_one, &found));
    CHECK_EQ(found, 0);
    commit_txn(txn);
    close_env(env);
}

/* A decimal128 of coefficient * 10^exponent. */
static lar_value dec(bool negative, unsigned __int128 coefficient, int exponent)
{
    return val_dec((uint64_t)coefficient, (negative ? 1ull << 63 : 0) | (uint64_t)(exponent + 6176) << 49 |
                                              (uint64_t)(coefficient >> 64));
}

TEST(mixed_set_compares_decimals_with_other_numbers_by_exact_value)
{
    lar_env *env = open_env(test_db_path(NULL));
    boxes_apply(env);
    boxes b = boxes_lookup(env);
    lar_txn *txn = begin_write(env);
    lar_obj box = make(txn, b.box);
    int64_t big = (int64_t)1 << 53;
    unsigned __int128 ten33 = 1;
    for (int i = 0; i < 33; i++) ten33 *= 10;
    lar_value nan_dec = val_dec(0, 0x7C00000000000000ull), inf_dec = val_dec(0, 0x7800000000000000ull);
    /* Equal values are one element, whatever their types and forms. */
    CHECK_EQ(set_insert(txn, box, b.set, val_int(1)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, dec(false, 1, 0)), 0);
    CHECK_EQ(set_insert(txn, box, b.set, dec(false, 100, -2)), 0);
    CHECK_EQ(set_insert(txn, box, b.set, val_double(1.0)), 0);
    CHECK_EQ(set_insert(txn, box, b.set, dec(false, 5, -1)), 1);       /* 0.5: a double exactly */
    CHECK_EQ(set_insert(txn, box, b.set, val_double(0.5)), 0);
    CHECK_EQ(set_insert(txn, box, b.set, dec(true, 0, 3)), 1);         /* -0E3 is 0 */
    CHECK_EQ(set_insert(txn, box, b.set, val_int(0)), 0);
    CHECK_EQ(set_insert(txn, box, b.set, nan_dec), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_double(NAN)), 0);
    CHECK_EQ(set_insert(txn, box, b.set, inf_dec), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_double(INFINITY)), 0);
    /* Values no int or double is: apart from them, between their neighbours. */
    CHECK_EQ(set_insert(txn, box, b.set, dec(false, 1, -1)), 1);       /* 0.1 */
    CHECK_EQ(set_insert(txn, box, b.set, val_double(0.1)), 1);         /* 0.1000000000000000055... */
    CHECK_EQ(set_insert(txn, box, b.set, dec(false, ten33 + 1, -33)), 1); /* 1 + 10^-33 */
    CHECK_EQ(set_insert(txn, box, b.set, dec(true, 25, -1)), 1);       /* -2.5 */
    CHECK_EQ(set_insert(txn, box, b.set, val_int(-3)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_int(big)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_int(big + 1)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, dec(false, (unsigned __int128)big * 10 + 5, -1)), 1); /* 2^53 + 0.5 */
    CHECK_EQ(set_insert(txn, box, b.set, dec(false, (unsigned __int128)(big + 1), 0)), 0);     /* 2^53 + 1 */
    CHECK_EQ(set_insert(txn, box, b.set, val_int(INT64_MAX)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_double(9223372036854775808.0)), 1); /* 2^63 */
    CHECK_EQ(set_insert(txn, box, b.set, dec(false, (unsigned __int128)INT64_MAX * 10 + 15, -1)), 1); /* 2^63 + 0.5 */
    CHECK_EQ(set_insert(txn, box, b.set, dec(false, 1, 400)), 1);      /* beyond a double's range */
    CHECK_EQ(set_insert(txn, box, b.set, dec(false, 1, -400)), 1);     /* below a double's least */
    CHECK_EQ(set_insert(txn, box, b.set, dec(true, 1, -400)), 1);
    CHECK_EQ(set_insert(txn, box, b.set, val_double(4.9406564584124654e-324)), 1);
    lar_value expected[] = {
        val_int(-3), dec(true, 25, -1), dec(true, 1, -400), dec(true, 0, 3), dec(false, 1, -400),
        val_double(4.9406564584124654e-324), dec(false, 1, -1), val_double(0.1), dec(false, 5, -1), val_int(1),
        dec(false, ten33 + 1, -33), val_int(big), dec(false, (unsigned __int128)big * 10 + 5, -1), val_int(big + 1),
        val_int(INT64_MAX), val_double(9223372036854775808.0), dec(false, (unsigned __int128)INT64_MAX * 10 + 15, -1),
        dec(false, 1, 400), inf_dec, nan_dec};
    lar_value got[32];
    size_t n = set_read(txn, box, b.set, got, 32);
    CHECK_EQ(n, COUNT_OF(expected));
    for (size_t i = 0; i < n; i++) CHECK_VALUE(got[i], expected[i]);
    /* Lookups and removals by value too. */
    int found = 0, removed = 0;
    lar_value half = val_double(0.5), one = dec(false, 10, -1), two_and_a_half = val_double(-2.5);
    CHECK_OK(lar_set_contains(txn, box, b.set, &half, &found));
    CHECK_EQ(found, 1);
    CHECK_OK(lar_set_contains(txn, box, b.set, &two_and_a_half, &found));
    CHECK_EQ(found, 1);
    CHECK_OK(lar_set_remove(txn, box, b.set, &one, &removed));
    CHECK_EQ(removed, 1);
    CHECK_EQ(set_count(txn, box, b.set), COUNT_OF(expected) - 1);
    commit_txn(txn);
    close_env(env);
}

TEST(mixed_set_algebra_keeps_types_and_backlinks)
{
    lar_env *env = open_env(test_db_path(NULL));
    boxes_apply(env);
    boxes b = boxes_lookup(env);
    lar_txn *txn = begin_write(env);
    lar_obj box = make(txn, b.box), dog = make(txn, b.dog);
    set_insert(txn, box, b.set, val_int(1));
    set_insert(txn, box, b.set, val_str("a"));
    set_insert(txn, box, b.other, val_double(1.0));
    set_insert(txn, box, b.other, val_double(2.5));
    set_insert(txn, box, b.other, link_to(dog));
    CHECK_OK(lar_set_union(txn, box, b.set, box, b.other));
    lar_value got[8];
    CHECK_EQ(set_read(txn, box, b.set, got, 8), 4);
    CHECK_VALUE(got[0], val_int(1)); /* kept as inserted */
    CHECK_VALUE(got[1], val_double(2.5));
    CHECK_VALUE(got[2], val_str("a"));
    CHECK_VALUE(got[3], link_to(dog));
    CHECK_EQ(backlinks(txn, dog, b.box, b.set), 1);
    int yes = 0;
    CHECK_OK(lar_set_is_subset(txn, box, b.other, box, b.set, &yes));
    CHECK_EQ(yes, 1);
    CHECK_OK(lar_set_subtract(txn, box, b.set, box, b.other));
    CHECK_EQ(set_read(txn, box, b.set, got, 8), 1);
    CHECK_VALUE(got[0], val_str("a"));
    CHECK_EQ(backlinks(txn, dog, b.box, b.set), 0);
    CHECK_EQ(backlinks(txn, dog, b.box, b.other), 1);
    commit_txn(txn);
    close_env(env);
}

TEST(mixed_bad_values_are_refused_and_change_nothing)
{
    lar_env *env = open_env(test_db_path(NULL));
    boxes_apply(env);
    boxes b = boxes_lookup(env);
    lar_txn *txn = begin_write(env);
    lar_obj dog = make(txn, b.dog), gone = make(txn, b.dog), box = make(txn, b.box);
    CHECK_OK(lar_obj_delete(txn, gone));
    lar_value keep = val_str("kept"), one = val_int(1);
    CHECK_OK(lar_obj_set(txn, box, b.any, &keep));
    CHECK_OK(lar_list_append(txn, box, b.list, &one));
    CHECK_EQ(set_insert(txn, box, b.set, one), 1);
    lar_string key = {"k", 1};
    CHECK_OK(lar_map_put(txn, box, b.map, &key, &one));

    lar_value deleted = link_to(gone), unknown = link_to((lar_obj){77, dog.key}), missing = link_to((lar_obj){b.dog, 999});
    lar_value bad_utf8 = val_strn("\xc3\x28", 2), kind = {.type = LAR_TYPE_MIXED};
    struct { lar_value *value; int rc; const char *says; } cases[] = {
        {&deleted, LAR_EINVAL, "does not exist"}, {&missing, LAR_EINVAL, "does not exist"},
        {&unknown, LAR_EINVAL, "no such class"}, {&bad_utf8, LAR_EINVAL, "UTF-8"},
        {&kind, LAR_ETYPE, "mixed"},
    };
    for (size_t i = 0; i < COUNT_OF(cases); i++) {
        CHECK_RC(lar_obj_set(txn, box, b.any, cases[i].value), cases[i].rc);
        CHECK_MSG_HAS(cases[i].says);
        CHECK_MSG_HAS("Box.any");
        CHECK_RC(lar_list_append(txn, box, b.list, cases[i].value), cases[i].rc);
        CHECK_MSG_HAS(cases[i].says);
        CHECK_RC(lar_list_set(txn, box, b.list, 0, cases[i].value), cases[i].rc);
        int inserted = -1;
        CHECK_RC(lar_set_insert(txn, box, b.set, cases[i].value, &inserted), cases[i].rc);
        CHECK_MSG_HAS(cases[i].says);
        CHECK_RC(lar_map_put(txn, box, b.map, &key, cases[i].value), cases[i].rc);
        CHECK_MSG_HAS(cases[i].says);
        lar_value values[6] = {*cases[i].value, val_str(""), val_null(), val_null(), val_null(), val_null()};
        CHECK_RC(lar_obj_create(txn, b.box, values, 6, NULL), cases[i].rc);
    }
    /* Null still empties a list of mixed values. */
    lar_value list_value = val_null();
    CHECK_OK(lar_obj_set(txn, box, b.list, &list_value)); /* null empties the list: allowed */
    CHECK_EQ(list_count(txn, box, b.list), 0);
    CHECK_OK(lar_list_append(txn, box, b.list, &one));
    commit_txn(txn); /* the transaction stayed usable */

    txn = begin_read(env);
    CHECK_VALUE(get_value(txn, box, b.any), keep);
    CHECK_EQ(list_count(txn, box, b.list), 1);
    CHECK_EQ(set_count(txn, box, b.set), 1);
    CHECK_EQ(map_count(txn, box, b.map), 1);
    CHECK_VALUE(map_value(txn, box, b.map, "k"), one);
    uint64_t boxes_count = 0;
    CHECK_OK(lar_objects_count(txn, b.box, &boxes_count));
    CHECK_EQ(boxes_count, 1);
    CHECK_EQ(backlinks(txn, dog, b.box, b.any), 0);
    commit_txn(txn);
    close_env(env);
}

TEST(mixed_schema_rules_and_stored_schema)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    /* Realm: AnyRealmValue cannot be Optional; nor a primary key; nor (here) indexed. */
    struct { unsigned int flags; lar_collection collection; const char *says; } cases[] = {
        {LAR_PROP_OPTIONAL, LAR_COLLECTION_NONE, "cannot be optional"},
        {LAR_PROP_OPTIONAL, LAR_COLLECTION_LIST, "cannot be optional"},
        {LAR_PROP_OPTIONAL, LAR_COLLECTION_SET, "cannot be optional"},
        {LAR_PROP_OPTIONAL, LAR_COLLECTION_MAP, "cannot be optional"},
        {LAR_PROP_PRIMARY_KEY, LAR_COLLECTION_NONE, "primary key"},
        {LAR_PROP_INDEXED, LAR_COLLECTION_NONE, "indexed"},
    };
    for (size_t i = 0; i < COUNT_OF(cases); i++) {
        lar_property_def props[] = {{"value", LAR_TYPE_MIXED, cases[i].collection, cases[i].flags, NULL, NULL}};
        lar_class_def cls = CLASS_DEF("Holder", props);
        CHECK_RC(lar_schema_apply(env, &cls, 1, 1), LAR_EINVAL);
        CHECK_MSG_HAS("Holder.value");
        CHECK_MSG_HAS(cases[i].says);
    }
    lar_property_def target[] = {{"value", LAR_TYPE_MIXED, LAR_COLLECTION_NONE, 0, "Holder", NULL}};
    lar_class_def with_target = CLASS_DEF("Holder", target);
    CHECK_RC(lar_schema_apply(env, &with_target, 1, 1), LAR_EINVAL);
    CHECK_MSG_HAS("target_class");
    CHECK_EQ(env_info(env).class_count, 0);

    /* A file with plain classes gains a mixed property's class later: every class
     * becomes a possible link target. */
    lar_property_def dog_props[] = {PROP("name", LAR_TYPE_STRING, 0)};
    lar_class_def dog_class = CLASS_DEF("Dog", dog_props);
    CHECK_OK(lar_schema_apply(env, &dog_class, 1, 1));
    lar_txn *txn = begin_write(env);
    lar_obj dog = make(txn, class_id(env, "Dog"));
    commit_txn(txn);
    boxes_apply(env);
    close_env(env);

    env = open_env(path);
    boxes b = boxes_lookup(env);
    lar_property_def def;
    CHECK_OK(lar_property_info_get(env, b.box, b.any, &def));
    CHECK_EQ(def.type, LAR_TYPE_MIXED);
    CHECK_EQ(def.collection, LAR_COLLECTION_NONE);
    CHECK_EQ(def.flags, 0);
    CHECK(def.target_class == NULL);
    CHECK_OK(lar_property_info_get(env, b.box, b.set, &def));
    CHECK_EQ(def.type, LAR_TYPE_MIXED);
    CHECK_EQ(def.collection, LAR_COLLECTION_SET);
    boxes_apply(env); /* the same schema again: no difference */
    txn = begin_write(env);
    lar_obj box = make(txn, b.box);
    lar_value d = link_to(dog);
    CHECK_OK(lar_obj_set(txn, box, b.any, &d));
    CHECK_OK(lar_obj_delete(txn, dog));
    CHECK_VALUE(get_value(txn, box, b.any), val_null());
    commit_txn(txn);
    close_env(env);
}

/* Writes a row straight into a class's table, as a damaged file would hold it. */
static void put_raw_row(const char *path, lar_class cls, lar_objkey key, const void *bytes, size_t size)
{
    MDB_env *mdb;
    MDB_txn *txn;
    MDB_dbi dbi;
    char table[16];
    snprintf(table, sizeof table, "c%u", cls);
    CHECK(mdb_env_create(&mdb) == 0);
    CHECK(mdb_env_set_maxdbs(mdb, 16) == 0);
    CHECK(mdb_env_open(mdb, path, MDB_NOSUBDIR, 0644) == 0);
    CHECK(mdb_txn_begin(mdb, NULL, 0, &txn) == 0);
    CHECK(mdb_dbi_open(txn, table, MDB_INTEGERKEY, &dbi) == 0);
    MDB_val k = {sizeof key, &key}, data = {size, (void *)bytes};
    CHECK(mdb_put(txn, dbi, &k, &data, 0) == 0);
    CHECK(mdb_txn_commit(txn) == 0);
    mdb_env_close(mdb);
}

/* Holder {value: mixed}: a row is the 17-byte slot [type][16 bytes], then the variable area. */
TEST(mixed_damaged_slots_read_as_corrupt)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    lar_property_def props[] = {PROP("value", LAR_TYPE_MIXED, 0)};
    lar_class_def cls = CLASS_DEF("Holder", props);
    CHECK_OK(lar_schema_apply(env, &cls, 1, 1));
    lar_class holder = class_id(env, "Holder");
    lar_txn *txn = begin_write(env);
    lar_obj obj = make(txn, holder);
    lar_value text = val_str("abc");
    CHECK_OK(lar_obj_set(txn, obj, 0, &text));
    commit_txn(txn);
    close_env(env);

    struct { uint8_t type; uint32_t offset, length; const char *tail; size_t tail_size; int rc; } cases[] = {
        {LAR_TYPE_STRING, 17, 3, "abc", 4, LAR_OK},              /* sound: "abc" and its NUL */
        {99, 17, 3, "abc", 4, LAR_ECORRUPT},                     /* no such type */
        {LAR_TYPE_MIXED, 17, 3, "abc", 4, LAR_ECORRUPT},         /* mixed is not a value type */
        {LAR_TYPE_STRING, 3, 3, "abc", 4, LAR_ECORRUPT},         /* inside the slot */
        {LAR_TYPE_STRING, 17, 9, "abc", 4, LAR_ECORRUPT},        /* past the row */
        {LAR_TYPE_STRING, 17, 3, "abcd", 4, LAR_ECORRUPT},       /* no NUL */
        {LAR_TYPE_BINARY, 17, 4, "abcd", 4, LAR_OK},
    };
    for (size_t i = 0; i < COUNT_OF(cases); i++) {
        uint8_t row[32] = {0};
        row[0] = cases[i].type;
        memcpy(row + 1, &cases[i].offset, 4);
        memcpy(row + 5, &cases[i].length, 4);
        memcpy(row + 17, cases[i].tail, cases[i].tail_size);
        put_raw_row(path, holder, obj.key, row, 17 + cases[i].tail_size);
        env = open_env(path);
        txn = begin_read(env);
        lar_value got;
        CHECK_RC(lar_obj_get(txn, obj, 0, &got), cases[i].rc);
        if (cases[i].rc) CHECK_MSG_HAS("undecodable");
        else CHECK_EQ(got.type, cases[i].type);
        lar_value all[1];
        CHECK_RC(lar_obj_get_all(txn, obj, all, 1), cases[i].rc);
        commit_txn(txn);
        close_env(env);
    }
}
