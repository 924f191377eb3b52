/* Lists: every element type, positions, the counted tree's splits and merges checked
 * against a plain array, lists of objects with their backlinks, deletes that free
 * storage, and every error. */
#include "test.h"

#include <stdlib.h>

/* Owner {name, ints: [int], names: [string?], dogs: [Dog], tags: set<string>, score};
 * Dog {name}. */
typedef struct owners {
    lar_class owner, dog;
    uint32_t name, ints, names, dogs, tags, score;
} owners;

static owners owners_setup(lar_env *env)
{
    lar_property_def owner_props[] = {
        PROP("name", LAR_TYPE_STRING, 0),
        {"ints", LAR_TYPE_INT, LAR_COLLECTION_LIST, 0, NULL, NULL},
        {"names", LAR_TYPE_STRING, LAR_COLLECTION_LIST, LAR_PROP_OPTIONAL, NULL, NULL},
        {"dogs", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Dog", NULL},
        {"tags", LAR_TYPE_STRING, LAR_COLLECTION_SET, 0, NULL, NULL},
        PROP("score", LAR_TYPE_DOUBLE, 0),
    };
    lar_property_def dog_props[] = {PROP("name", LAR_TYPE_STRING, 0)};
    lar_class_def classes[] = {CLASS_DEF("Owner", owner_props), CLASS_DEF("Dog", dog_props)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 1));
    owners o;
    o.owner = class_id(env, "Owner");
    o.dog = class_id(env, "Dog");
    o.name = prop_id(env, o.owner, "name");
    o.ints = prop_id(env, o.owner, "ints");
    o.names = prop_id(env, o.owner, "names");
    o.dogs = prop_id(env, o.owner, "dogs");
    o.tags = prop_id(env, o.owner, "tags");
    o.score = prop_id(env, o.owner, "score");
    return o;
}

static lar_obj make_owner(lar_txn *txn, const owners *o)
{
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, o->owner, NULL, 0, &obj));
    return obj;
}

static lar_obj make_dog(lar_txn *txn, const owners *o)
{
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, o->dog, NULL, 0, &obj));
    return obj;
}

static lar_value val_link(lar_obj obj)
{
    lar_value v = {.type = LAR_TYPE_LINK};
    v.as.link = obj;
    return v;
}

static size_t list_count(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    size_t count = 12345;
    CHECK_OK(lar_list_count(txn, obj, prop, &count));
    return count;
}

static int64_t list_int(lar_txn *txn, lar_obj obj, uint32_t prop, size_t index)
{
    lar_value v;
    CHECK_OK(lar_list_get(txn, obj, prop, index, &v));
    CHECK_EQ(v.type, LAR_TYPE_INT);
    return v.as.integer;
}

/* The whole list, read in batches of odd sizes, must equal expected. */
static void check_ints(lar_txn *txn, lar_obj obj, uint32_t prop, const int64_t *expected, size_t count)
{
    CHECK_EQ(list_count(txn, obj, prop), count);
    lar_value batch[37];
    size_t at = 0, got;
    int rc;
    while ((rc = lar_list_get_batch(txn, obj, prop, at, batch, 37, &got)) == LAR_OK) {
        CHECK(got >= 1 && got <= 37);
        for (size_t i = 0; i < got; i++) {
            CHECK_EQ(batch[i].type, LAR_TYPE_INT);
            if (batch[i].as.integer != expected[at + i])
                test_fail(__FILE__, __LINE__, "element %zu is %lld, expected %lld", at + i,
                          (long long)batch[i].as.integer, (long long)expected[at + i]);
        }
        at += got;
    }
    CHECK_EQ(rc, LAR_ENOTFOUND);
    CHECK_EQ(got, 0);
    CHECK_EQ(at, count);
}

/* ---- the tree against a plain array ---- */

static uint64_t rng_state = 88172645463325252ull;
static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

TEST(lists_follow_a_plain_array_through_random_changes)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    owners o = owners_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj owner = make_owner(txn, &o);
    size_t cap = 6000, count = 0;
    int64_t *model = malloc(cap * sizeof *model);
    CHECK(model != NULL);
    /* Grow past a few levels (64 per leaf, 64 children per inner node). */
    for (int64_t i = 0; i < 5000; i++) {
        lar_value v = val_int(i);
        CHECK_OK(lar_list_append(txn, owner, o.ints, &v));
        model[count++] = i;
    }
    check_ints(txn, owner, o.ints, model, count);
    commit_txn(txn);
    /* A list is stored in chunks: neither one record nor one per element. */
    close_env(env);
    uint64_t nodes = count_file_entries(path, "collections");
    CHECK(nodes >= 5000 / 64 && nodes <= 5000 / 16);
    env = open_env(path);

    txn = begin_write(env);
    for (int step = 0; step < 4000; step++) {
        uint64_t r = next_random();
        size_t at = count ? (size_t)(r >> 8) % count : 0;
        int64_t value = (int64_t)(r >> 20) % 100000;
        lar_value v = val_int(value);
        switch (r % 6) {
        case 0: case 1: /* insert, more often near the ends */
            if (r & 0x100) at = (r & 0x200) ? 0 : count;
            CHECK_OK(lar_list_insert(txn, owner, o.ints, at, &v));
            memmove(model + at + 1, model + at, (count - at) * sizeof *model);
            model[at] = value;
            count++;
            break;
        case 2: case 3:
            if (!count) break;
            CHECK_OK(lar_list_remove(txn, owner, o.ints, at));
            memmove(model + at, model + at + 1, (count - at - 1) * sizeof *model);
            count--;
            break;
        case 4:
            if (!count) break;
            CHECK_OK(lar_list_set(txn, owner, o.ints, at, &v));
            model[at] = value;
            break;
        default: {
            if (!count) break;
            size_t to = (size_t)(r >> 40) % count;
            if (r & 0x400) {
                CHECK_OK(lar_list_swap(txn, owner, o.ints, at, to));
                int64_t keep = model[at];
                model[at] = model[to];
                model[to] = keep;
            } else {
                CHECK_OK(lar_list_move(txn, owner, o.ints, at, to));
                int64_t moved = model[at];
                memmove(model + at, model + at + 1, (count - at - 1) * sizeof *model);
                memmove(model + to + 1, model + to, (count - 1 - to) * sizeof *model);
                model[to] = moved;
            }
        }
        }
        if (step % 500 == 0) check_ints(txn, owner, o.ints, model, count);
    }
    check_ints(txn, owner, o.ints, model, count);
    commit_txn(txn);

    /* Remove everything from the front: nodes empty and go, the root gives way. */
    txn = begin_write(env);
    while (count) {
        CHECK_EQ(list_int(txn, owner, o.ints, 0), model[0]);
        CHECK_OK(lar_list_remove(txn, owner, o.ints, 0));
        memmove(model, model + 1, --count * sizeof *model);
    }
    check_ints(txn, owner, o.ints, model, 0);
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "collections"), 0);
    free(model);
}

/* ---- element types ---- */

TEST(lists_of_every_scalar_type_required_and_optional)
{
    lar_env *env = open_env(test_db_path(NULL));
    static const uint8_t oid[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    static const uint8_t uuid[16] = {0xfe, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xff};
    static const uint8_t bytes[3] = {0, 0xff, 7};
    lar_value samples[SCALAR_TYPE_COUNT + 1];
    samples[LAR_TYPE_INT] = val_int(-42);
    samples[LAR_TYPE_BOOL] = val_bool(1);
    samples[LAR_TYPE_FLOAT] = val_float(1.5f);
    samples[LAR_TYPE_DOUBLE] = val_double(-2.25);
    samples[LAR_TYPE_STRING] = val_str("h\xc3\xa9llo");
    samples[LAR_TYPE_BINARY] = val_bin(bytes, sizeof bytes);
    samples[LAR_TYPE_TIMESTAMP] = val_ts(-5, -7);
    samples[LAR_TYPE_OBJECT_ID] = val_oid(oid);
    samples[LAR_TYPE_UUID] = val_uuid(uuid);
    samples[LAR_TYPE_DECIMAL128] = val_dec(99, 0x3040000000000000ull);
    lar_property_def props[2 * SCALAR_TYPE_COUNT];
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        props[2 * (t - 1)] = (lar_property_def){scalar_type_names[t], (lar_type)t, LAR_COLLECTION_LIST, 0, NULL, NULL};
        props[2 * (t - 1) + 1] = (lar_property_def){scalar_type_names[t] + 0, (lar_type)t, LAR_COLLECTION_LIST,
                                                    LAR_PROP_OPTIONAL, NULL, NULL};
    }
    char optional_names[SCALAR_TYPE_COUNT][32];
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        snprintf(optional_names[t - 1], sizeof optional_names[t - 1], "opt_%s", scalar_type_names[t]);
        props[2 * (t - 1) + 1].name = optional_names[t - 1];
    }
    lar_class_def def = {"Lists", props, COUNT_OF(props), 0};
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class cls = class_id(env, "Lists");
    lar_txn *txn = begin_write(env);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, cls, NULL, 0, &obj));
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        uint32_t req = (uint32_t)(2 * (t - 1)), opt = req + 1;
        lar_value null = val_null();
        CHECK_OK(lar_list_append(txn, obj, req, &samples[t]));
        CHECK_OK(lar_list_append(txn, obj, req, &samples[t]));
        CHECK_RC(lar_list_append(txn, obj, req, &null), LAR_ETYPE);
        CHECK_OK(lar_list_append(txn, obj, opt, &null));
        CHECK_OK(lar_list_insert(txn, obj, opt, 0, &samples[t]));
    }
    commit_txn(txn);
    txn = begin_read(env);
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        uint32_t req = (uint32_t)(2 * (t - 1)), opt = req + 1;
        lar_value v;
        CHECK_EQ(list_count(txn, obj, req), 2);
        CHECK_OK(lar_list_get(txn, obj, req, 1, &v));
        CHECK_VALUE(v, samples[t]);
        CHECK_OK(lar_list_get(txn, obj, opt, 0, &v));
        CHECK_VALUE(v, samples[t]);
        CHECK_OK(lar_list_get(txn, obj, opt, 1, &v));
        CHECK_EQ(v.type, LAR_TYPE_NULL);
        if (t == LAR_TYPE_STRING) {
            CHECK_OK(lar_list_get(txn, obj, req, 0, &v));
            CHECK_EQ(v.as.string.data[v.as.string.size], 0); /* strings end with their NUL */
        }
    }
    commit_txn(txn);
    close_env(env);
}

TEST(lists_convert_ints_and_refuse_bad_values)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def props[] = {{"doubles", LAR_TYPE_DOUBLE, LAR_COLLECTION_LIST, 0, NULL, NULL},
                                {"floats", LAR_TYPE_FLOAT, LAR_COLLECTION_LIST, 0, NULL, NULL},
                                {"texts", LAR_TYPE_STRING, LAR_COLLECTION_LIST, 0, NULL, NULL},
                                {"times", LAR_TYPE_TIMESTAMP, LAR_COLLECTION_LIST, 0, NULL, NULL}};
    lar_class_def def = CLASS_DEF("Numbers", props);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class cls = class_id(env, "Numbers");
    lar_txn *txn = begin_write(env);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, cls, NULL, 0, &obj));
    lar_value three = val_int(3), v;
    CHECK_OK(lar_list_append(txn, obj, 0, &three));
    CHECK_OK(lar_list_append(txn, obj, 1, &three));
    CHECK_OK(lar_list_get(txn, obj, 0, 0, &v));
    CHECK_VALUE(v, val_double(3.0));
    CHECK_OK(lar_list_get(txn, obj, 1, 0, &v));
    CHECK_VALUE(v, val_float(3.0f));
    lar_value invalid = val_str("\xff\xfe"), no_data = val_strn(NULL, 3), bad_time = val_ts(1, -1);
    CHECK_RC(lar_list_append(txn, obj, 2, &invalid), LAR_EINVAL);
    CHECK_RC(lar_list_append(txn, obj, 2, &no_data), LAR_EINVAL);
    CHECK_RC(lar_list_append(txn, obj, 2, &three), LAR_ETYPE);
    CHECK_MSG_HAS("Numbers.texts");
    CHECK_RC(lar_list_append(txn, obj, 3, &bad_time), LAR_EINVAL);
    CHECK_EQ(list_count(txn, obj, 2), 0);
    CHECK_EQ(list_count(txn, obj, 3), 0);
    /* Long strings fill leaves by bytes before by count. */
    char long_text[3000];
    memset(long_text, 'x', sizeof long_text);
    for (int i = 0; i < 20; i++) {
        lar_value text = val_strn(long_text, (size_t)(i * 150));
        CHECK_OK(lar_list_append(txn, obj, 2, &text));
    }
    for (int i = 0; i < 20; i++) {
        CHECK_OK(lar_list_get(txn, obj, 2, (size_t)i, &v));
        CHECK_EQ(v.as.string.size, i * 150);
    }
    commit_txn(txn);
    close_env(env);
}

/* ---- errors ---- */

TEST(lists_refuse_bad_arguments_and_change_nothing)
{
    lar_env *env = open_env(test_db_path(NULL));
    owners o = owners_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj owner = make_owner(txn, &o), gone = make_owner(txn, &o);
    lar_obj dog = make_dog(txn, &o), dead_dog = make_dog(txn, &o);
    CHECK_OK(lar_obj_delete(txn, gone));
    CHECK_OK(lar_obj_delete(txn, dead_dog));
    int64_t model[3] = {10, 20, 30};
    for (int i = 0; i < 3; i++) {
        lar_value v = val_int(model[i]);
        CHECK_OK(lar_list_append(txn, owner, o.ints, &v));
    }
    lar_value v = val_int(1), text = val_str("t"), out;
    size_t n;
    lar_obj unknown = {99, owner.key};
    /* NULL pointers. */
    CHECK_RC(lar_list_count(txn, owner, o.ints, NULL), LAR_EINVAL);
    CHECK_RC(lar_list_get(txn, owner, o.ints, 0, NULL), LAR_EINVAL);
    CHECK_RC(lar_list_get_batch(txn, owner, o.ints, 0, NULL, 2, &n), LAR_EINVAL);
    CHECK_RC(lar_list_get_batch(txn, owner, o.ints, 0, &out, 1, NULL), LAR_EINVAL);
    CHECK_RC(lar_list_get_batch(txn, owner, o.ints, 0, &out, 0, &n), LAR_EINVAL);
    CHECK_RC(lar_list_insert(txn, owner, o.ints, 0, NULL), LAR_EINVAL);
    CHECK_RC(lar_list_append(txn, owner, o.ints, NULL), LAR_EINVAL);
    CHECK_RC(lar_list_set(txn, owner, o.ints, 0, NULL), LAR_EINVAL);
    CHECK_RC(lar_list_count(NULL, owner, o.ints, &n), LAR_EINVAL);
    CHECK_RC(lar_list_append(NULL, owner, o.ints, &v), LAR_EINVAL);
    /* Unknown class, property out of range, properties that are not lists. */
    CHECK_RC(lar_list_count(txn, unknown, o.ints, &n), LAR_EINVAL);
    CHECK_RC(lar_list_append(txn, owner, 6, &v), LAR_EINVAL);
    CHECK_RC(lar_list_append(txn, owner, UINT32_MAX, &v), LAR_EINVAL);
    CHECK_RC(lar_list_append(txn, owner, o.score, &v), LAR_EINVAL);
    CHECK_MSG_HAS("Owner.score");
    CHECK_RC(lar_list_append(txn, owner, o.tags, &text), LAR_EINVAL);
    CHECK_MSG_HAS("not a list");
    /* Positions out of range, for each function. */
    CHECK_RC(lar_list_get(txn, owner, o.ints, 3, &out), LAR_EINVAL);
    CHECK_MSG_HAS("out of bounds");
    CHECK_RC(lar_list_get(txn, owner, o.ints, SIZE_MAX, &out), LAR_EINVAL);
    CHECK_RC(lar_list_insert(txn, owner, o.ints, 4, &v), LAR_EINVAL);
    CHECK_RC(lar_list_set(txn, owner, o.ints, 3, &v), LAR_EINVAL);
    CHECK_RC(lar_list_remove(txn, owner, o.ints, 3), LAR_EINVAL);
    CHECK_RC(lar_list_move(txn, owner, o.ints, 3, 0), LAR_EINVAL);
    CHECK_RC(lar_list_move(txn, owner, o.ints, 0, 3), LAR_EINVAL);
    CHECK_RC(lar_list_swap(txn, owner, o.ints, 0, 3), LAR_EINVAL);
    CHECK_RC(lar_list_swap(txn, owner, o.ints, 5, 0), LAR_EINVAL);
    CHECK_END(lar_list_get_batch(txn, owner, o.ints, 3, &out, 1, &n));
    /* Wrong element types, null in a required list, links. */
    CHECK_RC(lar_list_append(txn, owner, o.ints, &text), LAR_ETYPE);
    lar_value null = val_null();
    CHECK_RC(lar_list_set(txn, owner, o.ints, 0, &null), LAR_ETYPE);
    CHECK_RC(lar_list_append(txn, owner, o.dogs, &null), LAR_ETYPE);
    lar_value owner_link = val_link(owner), dead_link = val_link(dead_dog), dog_link = val_link(dog);
    CHECK_RC(lar_list_append(txn, owner, o.dogs, &owner_link), LAR_ETYPE);
    CHECK_RC(lar_list_append(txn, owner, o.dogs, &dead_link), LAR_EINVAL);
    CHECK_MSG_HAS("deleted");
    CHECK_RC(lar_list_append(txn, owner, o.ints, &dog_link), LAR_ETYPE);
    /* A deleted owner. */
    CHECK_RC(lar_list_count(txn, gone, o.ints, &n), LAR_EDELETED);
    CHECK_RC(lar_list_append(txn, gone, o.ints, &v), LAR_EDELETED);
    CHECK_RC(lar_list_clear(txn, gone, o.ints), LAR_EDELETED);
    check_ints(txn, owner, o.ints, model, 3);
    CHECK_EQ(list_count(txn, owner, o.dogs), 0);
    commit_txn(txn);

    /* A read transaction reads but changes nothing; an ended one does neither. */
    txn = begin_read(env);
    CHECK_EQ(list_int(txn, owner, o.ints, 2), 30);
    CHECK_RC(lar_list_append(txn, owner, o.ints, &v), LAR_EMISUSE);
    CHECK_RC(lar_list_insert(txn, owner, o.ints, 0, &v), LAR_EMISUSE);
    CHECK_RC(lar_list_set(txn, owner, o.ints, 0, &v), LAR_EMISUSE);
    CHECK_RC(lar_list_remove(txn, owner, o.ints, 0), LAR_EMISUSE);
    CHECK_RC(lar_list_move(txn, owner, o.ints, 0, 1), LAR_EMISUSE);
    CHECK_RC(lar_list_swap(txn, owner, o.ints, 0, 1), LAR_EMISUSE);
    CHECK_RC(lar_list_clear(txn, owner, o.ints), LAR_EMISUSE);
    lar_txn_abort(txn);
    CHECK_RC(lar_list_count(txn, owner, o.ints, &n), LAR_EMISUSE);
    CHECK_RC(lar_list_get(txn, owner, o.ints, 0, &out), LAR_EMISUSE);
    CHECK_RC(lar_list_get_batch(txn, owner, o.ints, 0, &out, 1, &n), LAR_EMISUSE);
    lar_txn_free(txn);
    txn = begin_read(env);
    check_ints(txn, owner, o.ints, model, 3);
    commit_txn(txn);
    close_env(env);
}

TEST(lists_read_through_objects_and_cleared_by_null)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    owners o = owners_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj owner = make_owner(txn, &o);
    lar_value name = val_str("Ann"), v = val_int(7), null = val_null();
    CHECK_OK(lar_obj_set(txn, owner, o.name, &name));
    for (int i = 0; i < 100; i++) CHECK_OK(lar_list_append(txn, owner, o.ints, &v));
    /* Writing another property keeps the list: the row keeps its root. */
    CHECK_OK(lar_obj_set(txn, owner, o.name, &name));
    CHECK_EQ(list_count(txn, owner, o.ints), 100);
    CHECK_EQ(get_value(txn, owner, o.ints).type, LAR_TYPE_NULL); /* read through its own functions */
    CHECK_RC(lar_obj_set(txn, owner, o.ints, &v), LAR_ETYPE);
    commit_txn(txn);
    close_env(env);

    env = open_env(path);
    txn = begin_write(env);
    CHECK_EQ(list_count(txn, owner, o.ints), 100);
    CHECK_OK(lar_obj_set(txn, owner, o.ints, &null)); /* null empties it, as Realm does */
    CHECK_EQ(list_count(txn, owner, o.ints), 0);
    CHECK_STR(get_value(txn, owner, o.name).as.string.data, "Ann");
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "collections"), 0);
}

TEST(lists_aborted_changes_leave_the_list)
{
    lar_env *env = open_env(test_db_path(NULL));
    owners o = owners_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj owner = make_owner(txn, &o);
    int64_t model[200];
    for (int i = 0; i < 200; i++) {
        lar_value v = val_int(i);
        model[i] = i;
        CHECK_OK(lar_list_append(txn, owner, o.ints, &v));
    }
    commit_txn(txn);
    txn = begin_write(env);
    lar_value v = val_int(-1);
    for (int i = 0; i < 300; i++) CHECK_OK(lar_list_insert(txn, owner, o.ints, 100, &v));
    CHECK_OK(lar_list_clear(txn, owner, o.ints));
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    txn = begin_read(env);
    check_ints(txn, owner, o.ints, model, 200);
    commit_txn(txn);
    close_env(env);
}

/* ---- lists of objects ---- */

TEST(lists_of_objects_keep_backlinks_with_repeats)
{
    lar_env *env = open_env(test_db_path(NULL));
    owners o = owners_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ann = make_owner(txn, &o), bob = make_owner(txn, &o);
    lar_obj rex = make_dog(txn, &o), fido = make_dog(txn, &o);
    lar_value to_rex = val_link(rex), to_fido = val_link(fido);
    CHECK_OK(lar_list_append(txn, ann, o.dogs, &to_rex));
    CHECK_OK(lar_list_append(txn, ann, o.dogs, &to_rex)); /* twice */
    CHECK_OK(lar_list_append(txn, bob, o.dogs, &to_rex));
    uint64_t count;
    CHECK_OK(lar_backlinks_count(txn, rex, o.owner, o.dogs, &count));
    CHECK_EQ(count, 2); /* Ann and Bob */
    lar_value got;
    CHECK_OK(lar_list_get(txn, ann, o.dogs, 1, &got));
    CHECK_EQ(got.type, LAR_TYPE_LINK);
    CHECK_EQ(got.as.link.cls, o.dog);
    CHECK_EQ(got.as.link.key, rex.key);
    CHECK_OK(lar_list_remove(txn, ann, o.dogs, 0)); /* one of Ann's two links goes */
    CHECK_OK(lar_backlinks_count(txn, rex, o.owner, o.dogs, &count));
    CHECK_EQ(count, 2);
    CHECK_OK(lar_list_set(txn, ann, o.dogs, 0, &to_fido)); /* the other too */
    lar_obj origins[4];
    size_t n;
    CHECK_OK(lar_backlinks_list(txn, rex, o.owner, o.dogs, 0, origins, 4, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(origins[0].key, bob.key);
    CHECK_OK(lar_backlinks_count(txn, fido, o.owner, o.dogs, &count));
    CHECK_EQ(count, 1);
    CHECK_OK(lar_list_append(txn, ann, o.dogs, &to_rex));
    CHECK_OK(lar_list_move(txn, ann, o.dogs, 1, 0));
    CHECK_OK(lar_list_swap(txn, ann, o.dogs, 0, 1));
    CHECK_OK(lar_backlinks_count(txn, rex, o.owner, o.dogs, &count));
    CHECK_EQ(count, 2);
    CHECK_OK(lar_list_clear(txn, ann, o.dogs));
    CHECK_OK(lar_backlinks_count(txn, rex, o.owner, o.dogs, &count));
    CHECK_EQ(count, 1);
    CHECK_OK(lar_backlinks_count(txn, fido, o.owner, o.dogs, &count));
    CHECK_EQ(count, 0);
    commit_txn(txn);
    close_env(env);
}

TEST(lists_lose_deleted_targets)
{
    lar_env *env = open_env(test_db_path(NULL));
    owners o = owners_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ann = make_owner(txn, &o);
    lar_obj dogs[3];
    for (int i = 0; i < 3; i++) dogs[i] = make_dog(txn, &o);
    /* rex fido rex mia rex ... over several leaves */
    for (int i = 0; i < 300; i++) {
        lar_value link = val_link(dogs[i % 2 ? 1 + (i / 2) % 2 : 0]);
        CHECK_OK(lar_list_append(txn, ann, o.dogs, &link));
    }
    commit_txn(txn);
    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, dogs[0]));
    CHECK_EQ(list_count(txn, ann, o.dogs), 150);
    for (size_t i = 0; i < 150; i++) {
        lar_value got;
        CHECK_OK(lar_list_get(txn, ann, o.dogs, i, &got));
        CHECK_EQ(got.as.link.key, dogs[1 + (i % 2)].key);
    }
    CHECK_OK(lar_objects_delete_all(txn, o.dog));
    CHECK_EQ(list_count(txn, ann, o.dogs), 0);
    commit_txn(txn);
    close_env(env);
}

/* "Deleting an object frees all of its collections' storage": every table's entries
 * are counted before and after. */
TEST(lists_deleting_the_owner_frees_everything)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    owners o = owners_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj keep = make_dog(txn, &o);
    commit_txn(txn);
    close_env(env);
    uint64_t before = count_file_entries(path, NULL);

    env = open_env(path);
    txn = begin_write(env);
    lar_obj ann = make_owner(txn, &o), bob = make_owner(txn, &o);
    lar_value to_keep = val_link(keep), text = val_str("some text");
    for (int i = 0; i < 3000; i++) {
        lar_value v = val_int(i);
        CHECK_OK(lar_list_append(txn, ann, o.ints, &v));
        CHECK_OK(lar_list_insert(txn, ann, o.names, (size_t)i / 2, &text));
        CHECK_OK(lar_list_append(txn, ann, o.dogs, &to_keep));
    }
    CHECK_OK(lar_list_append(txn, bob, o.dogs, &to_keep));
    commit_txn(txn);
    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, ann));
    CHECK_OK(lar_objects_delete_all(txn, o.owner));
    uint64_t count;
    CHECK_OK(lar_backlinks_count(txn, keep, o.owner, o.dogs, &count));
    CHECK_EQ(count, 0);
    commit_txn(txn);
    close_env(env);
    /* Only two counters were added, so that keys are never reused: the Owner
     * class's next object key and the next list node id. */
    CHECK_EQ(count_file_entries(path, NULL), before + 2);
    CHECK_EQ(count_file_entries(path, "collections"), 0);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
}

/* ---- the write-back cache of nodes (list.c): what a write keeps in memory ---- */

/* Appends interleaved over many lists (more nodes than the cache holds, so it writes
 * out midway), with removes, inserts and reads between them, match a model before
 * and after the commit; an aborted write that appended leaves the committed lists. */
TEST(lists_cached_appends_interleave_remove_and_abort)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    owners o = owners_setup(env);
    enum { LISTS = 90, EACH = 150 };
    static int64_t model[LISTS][EACH * 2];
    size_t counts[LISTS] = {0};
    lar_obj lists[LISTS];
    lar_txn *txn = begin_write(env);
    for (int l = 0; l < LISTS; l++) lists[l] = make_owner(txn, &o);
    for (int i = 0; i < EACH; i++) {
        for (int l = 0; l < LISTS; l++) {
            int64_t value = l * 1000 + i;
            lar_value v = val_int(value);
            CHECK_OK(lar_list_append(txn, lists[l], o.ints, &v));
            model[l][counts[l]++] = value;
            if (i % 17 == 16) { /* a remove in the middle, then appends go on */
                size_t at = counts[l] / 2;
                CHECK_OK(lar_list_remove(txn, lists[l], o.ints, at));
                memmove(model[l] + at, model[l] + at + 1, (counts[l] - at - 1) * sizeof model[l][0]);
                counts[l]--;
            }
            if (i % 23 == 22) {
                CHECK_OK(lar_list_insert(txn, lists[l], o.ints, 1, &v));
                memmove(model[l] + 2, model[l] + 1, (counts[l] - 1) * sizeof model[l][0]);
                model[l][1] = value;
                counts[l]++;
            }
        }
        if (i % 50 == 0) CHECK_EQ(list_int(txn, lists[i % LISTS], o.ints, 0), model[i % LISTS][0]);
    }
    for (int l = 0; l < LISTS; l++) check_ints(txn, lists[l], o.ints, model[l], counts[l]);
    commit_txn(txn);

    txn = begin_read(env);
    for (int l = 0; l < LISTS; l++) check_ints(txn, lists[l], o.ints, model[l], counts[l]);
    commit_txn(txn);

    /* Appends and removes that are aborted leave nothing. */
    txn = begin_write(env);
    for (int i = 0; i < 200; i++) {
        lar_value v = val_int(-i);
        CHECK_OK(lar_list_append(txn, lists[i % 3], o.ints, &v));
        if (i < 100) CHECK_OK(lar_list_remove(txn, lists[3], o.ints, 0));
    }
    CHECK_EQ(list_count(txn, lists[0], o.ints), counts[0] + 67);
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    txn = begin_write(env); /* the next write starts from the commit, not the cache */
    for (int l = 0; l < LISTS; l++) check_ints(txn, lists[l], o.ints, model[l], counts[l]);
    lar_value v = val_int(7);
    CHECK_OK(lar_list_append(txn, lists[0], o.ints, &v));
    model[0][counts[0]++] = 7;
    commit_txn(txn);
    txn = begin_read(env);
    check_ints(txn, lists[0], o.ints, model[0], counts[0]);
    commit_txn(txn);
    close_env(env);
}

/* Deleting the owner of a list whose nodes are cached frees them: a later append to a
 * new owner, the commit and the file hold none of the old nodes. Clearing does too. */
TEST(lists_cached_nodes_go_with_a_deleted_owner)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    owners o = owners_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ann = make_owner(txn, &o), bob = make_owner(txn, &o);
    lar_obj dog = make_dog(txn, &o);
    lar_value link = val_link(dog);
    for (int i = 0; i < 1000; i++) {
        lar_value v = val_int(i);
        CHECK_OK(lar_list_append(txn, ann, o.ints, &v));
        CHECK_OK(lar_list_append(txn, ann, o.dogs, &link));
    }
    CHECK_OK(lar_obj_delete(txn, ann));
    lar_value v = val_int(5);
    CHECK_RC(lar_list_append(txn, ann, o.ints, &v), LAR_EDELETED);
    int64_t one = 5;
    CHECK_OK(lar_list_append(txn, bob, o.ints, &v));
    check_ints(txn, bob, o.ints, &one, 1);
    uint64_t count;
    CHECK_OK(lar_backlinks_count(txn, dog, o.owner, o.dogs, &count));
    CHECK_EQ(count, 0);
    for (int i = 0; i < 500; i++) CHECK_OK(lar_list_append(txn, bob, o.names, &(lar_value){.type = LAR_TYPE_NULL}));
    CHECK_OK(lar_list_clear(txn, bob, o.names));
    CHECK_EQ(list_count(txn, bob, o.names), 0);
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "collections"), 1); /* bob's one leaf */
    env = open_env(path);
    txn = begin_read(env);
    check_ints(txn, bob, o.ints, &one, 1);
    CHECK_EQ(list_count(txn, bob, o.names), 0);
    commit_txn(txn);
    close_env(env);
}

/* Appends fill each leaf before starting the next: 64 elements a record. */
TEST(lists_appends_fill_their_nodes)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    owners o = owners_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj owner = make_owner(txn, &o);
    for (int i = 0; i < 64 * 64; i++) {
        lar_value v = val_int(i);
        CHECK_OK(lar_list_append(txn, owner, o.ints, &v));
    }
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "collections"), 64 + 1); /* 64 full leaves and a root */
}
