/* Schema: declaring classes, what is refused, what may change on reopen, and the lookups. */
#include "test.h"

#include <stdlib.h>

/* Applies one class built from props; returns the code. */
static int apply_one(lar_env *env, const char *name, const lar_property_def *props, size_t count,
                     uint64_t version)
{
    lar_class_def cls = {name, props, count, 0};
    return lar_schema_apply(env, &cls, 1, version);
}

TEST(schema_accepts_every_scalar_type_required_and_optional)
{
    lar_env *env = open_env(test_db_path(NULL));
    all_types_schema a = all_types_setup(env);
    lar_class_info info;
    CHECK_OK(lar_class_info_get(env, a.cls, &info));
    CHECK_STR(info.name, "AllTypes");
    CHECK_EQ(info.property_count, 2 * SCALAR_TYPE_COUNT);
    CHECK_EQ(info.primary_key, -1);
    CHECK_EQ(info.flags, 0);
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        lar_property_def def;
        CHECK_OK(lar_property_info_get(env, a.cls, a.req[t], &def));
        CHECK_STR(def.name, scalar_type_names[t]);
        CHECK_EQ(def.type, t);
        CHECK_EQ(def.collection, LAR_COLLECTION_NONE);
        CHECK_EQ(def.flags, 0);
        CHECK(def.target_class == NULL && def.origin_property == NULL);
        CHECK_OK(lar_property_info_get(env, a.cls, a.opt[t], &def));
        CHECK_EQ(def.type, t);
        CHECK_EQ(def.flags, LAR_PROP_OPTIONAL);
    }
    close_env(env);
}

/* "The property is the class's primary key (int, string, ObjectId or UUID)." */
TEST(schema_accepts_primary_keys_of_each_key_type)
{
    lar_env *env = open_env(test_db_path(NULL));
    static const lar_type key_types[] = {LAR_TYPE_INT, LAR_TYPE_STRING, LAR_TYPE_OBJECT_ID, LAR_TYPE_UUID};
    for (size_t k = 0; k < COUNT_OF(key_types); k++) {
        for (int optional = 0; optional <= 1; optional++) {
            char name[64];
            snprintf(name, sizeof name, "Key_%s%s", scalar_type_names[key_types[k]], optional ? "_opt" : "");
            /* The key is not the first property, so its index is worth checking. */
            lar_property_def props[] = {
                PROP("payload", LAR_TYPE_STRING, 0),
                PROP("key", key_types[k], LAR_PROP_PRIMARY_KEY | (optional ? LAR_PROP_OPTIONAL : 0)),
            };
            CHECK_OK(apply_one(env, name, props, 2, 1));
            lar_class cls = class_id(env, name);
            lar_class_info info;
            CHECK_OK(lar_class_info_get(env, cls, &info));
            CHECK_EQ(info.primary_key, (int32_t)prop_id(env, cls, "key"));
            lar_property_def def;
            CHECK_OK(lar_property_info_get(env, cls, prop_id(env, cls, "key"), &def));
            CHECK(def.flags & LAR_PROP_PRIMARY_KEY);
            CHECK_EQ((def.flags & LAR_PROP_OPTIONAL) != 0, optional);
        }
    }
    CHECK_EQ(env_info(env).class_count, 8);
    close_env(env);
}

TEST(schema_refuses_primary_keys_of_other_types)
{
    lar_env *env = open_env(test_db_path(NULL));
    static const lar_type bad[] = {LAR_TYPE_BOOL, LAR_TYPE_FLOAT, LAR_TYPE_DOUBLE, LAR_TYPE_BINARY,
                                   LAR_TYPE_TIMESTAMP, LAR_TYPE_DECIMAL128};
    for (size_t i = 0; i < COUNT_OF(bad); i++) {
        lar_property_def props[] = {PROP("key", bad[i], LAR_PROP_PRIMARY_KEY)};
        CHECK_RC(apply_one(env, "Bad", props, 1, 1), LAR_EINVAL);
    }
    CHECK_EQ(env_info(env).class_count, 0);
    close_env(env);
}

/* "The property has an index (int, bool, string, timestamp, ObjectId, UUID)." */
TEST(schema_indexed_flag_on_indexable_types_only)
{
    lar_env *env = open_env(test_db_path(NULL));
    static const lar_type good[] = {LAR_TYPE_INT, LAR_TYPE_BOOL, LAR_TYPE_STRING, LAR_TYPE_TIMESTAMP,
                                    LAR_TYPE_OBJECT_ID, LAR_TYPE_UUID};
    lar_property_def props[COUNT_OF(good) * 2];
    for (size_t i = 0; i < COUNT_OF(good); i++) {
        props[2 * i] = PROP(scalar_type_names[good[i]], good[i], LAR_PROP_INDEXED);
        props[2 * i + 1] = PROP(scalar_type_names[good[i]], good[i], LAR_PROP_INDEXED | LAR_PROP_OPTIONAL);
    }
    char names[COUNT_OF(good)][32];
    for (size_t i = 0; i < COUNT_OF(good); i++) {
        snprintf(names[i], sizeof names[i], "opt_%s", scalar_type_names[good[i]]);
        props[2 * i + 1].name = names[i];
    }
    CHECK_OK(apply_one(env, "Indexed", props, COUNT_OF(props), 1));
    lar_class cls = class_id(env, "Indexed");
    lar_property_def def;
    CHECK_OK(lar_property_info_get(env, cls, prop_id(env, cls, "string"), &def));
    CHECK_EQ(def.flags, LAR_PROP_INDEXED);

    static const lar_type bad[] = {LAR_TYPE_FLOAT, LAR_TYPE_DOUBLE, LAR_TYPE_BINARY, LAR_TYPE_DECIMAL128};
    for (size_t i = 0; i < COUNT_OF(bad); i++) {
        lar_property_def one[] = {PROP("x", bad[i], LAR_PROP_INDEXED)};
        CHECK_RC(apply_one(env, "BadIndex", one, 1, 1), LAR_EINVAL);
    }
    CHECK_EQ(env_info(env).class_count, 1);
    close_env(env);
}

TEST(schema_refuses_invalid_definitions)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def ok_props[] = {PROP("x", LAR_TYPE_INT, 0)};
    lar_class_def good = CLASS_DEF("Good", ok_props);

    CHECK_RC(lar_schema_apply(NULL, &good, 1, 1), LAR_EINVAL);
    CHECK_RC(lar_schema_apply(env, NULL, 1, 1), LAR_EINVAL);

    lar_class_def no_name = CLASS_DEF(NULL, ok_props);
    CHECK_RC(lar_schema_apply(env, &no_name, 1, 1), LAR_EINVAL);
    lar_class_def empty_name = CLASS_DEF("", ok_props);
    CHECK_RC(lar_schema_apply(env, &empty_name, 1, 1), LAR_EINVAL);
    lar_class_def bad_utf8 = CLASS_DEF("Caf\xc3", ok_props); /* truncated sequence */
    CHECK_RC(lar_schema_apply(env, &bad_utf8, 1, 1), LAR_EINVAL);
    lar_class_def overlong = CLASS_DEF("\xc0\xafslash", ok_props);
    CHECK_RC(lar_schema_apply(env, &overlong, 1, 1), LAR_EINVAL);

    lar_class_def twice[] = {CLASS_DEF("Same", ok_props), CLASS_DEF("Same", ok_props)};
    CHECK_RC(lar_schema_apply(env, twice, 2, 1), LAR_EINVAL);

    lar_property_def dup[] = {PROP("x", LAR_TYPE_INT, 0), PROP("x", LAR_TYPE_STRING, 0)};
    CHECK_RC(apply_one(env, "Dup", dup, 2, 1), LAR_EINVAL);
    lar_property_def unnamed[] = {PROP(NULL, LAR_TYPE_INT, 0)};
    CHECK_RC(apply_one(env, "Unnamed", unnamed, 1, 1), LAR_EINVAL);
    lar_property_def empty[] = {PROP("", LAR_TYPE_INT, 0)};
    CHECK_RC(apply_one(env, "Empty", empty, 1, 1), LAR_EINVAL);
    lar_property_def utf8[] = {PROP("na\xffme", LAR_TYPE_INT, 0)};
    CHECK_RC(apply_one(env, "Utf8", utf8, 1, 1), LAR_EINVAL);
    lar_property_def surrogate[] = {PROP("\xed\xa0\x80", LAR_TYPE_INT, 0)};
    CHECK_RC(apply_one(env, "Surrogate", surrogate, 1, 1), LAR_EINVAL);
    lar_property_def two_keys[] = {PROP("a", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY),
                                   PROP("b", LAR_TYPE_STRING, LAR_PROP_PRIMARY_KEY)};
    CHECK_RC(apply_one(env, "TwoKeys", two_keys, 2, 1), LAR_EINVAL);
    lar_property_def double_key[] = {PROP("d", LAR_TYPE_DOUBLE, LAR_PROP_PRIMARY_KEY)};
    CHECK_RC(apply_one(env, "DoubleKey", double_key, 1, 1), LAR_EINVAL);
    /* "type: Value or element type; never LAR_TYPE_NULL." */
    lar_property_def null_type[] = {PROP("n", LAR_TYPE_NULL, 0)};
    CHECK_RC(apply_one(env, "NullType", null_type, 1, 1), LAR_EINVAL);

    /* A valid class next to an invalid one: nothing of the call is stored. */
    lar_class_def mixed[] = {good, CLASS_DEF("Dup", dup)};
    CHECK_RC(lar_schema_apply(env, mixed, 2, 1), LAR_EINVAL);
    CHECK_EQ(env_info(env).class_count, 0);
    lar_class cls;
    CHECK_RC(lar_class_find(env, "Good", &cls), LAR_ENOTFOUND);
    close_env(env);
}

/* "Linking objects and embedded classes return LAR_ENOTSUP." (Mixed: test_mixed.c.) */
TEST(schema_refuses_unsupported_features)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def target_props[] = {PROP("x", LAR_TYPE_INT, 0)};
    lar_class_def target = CLASS_DEF("Target", target_props);

    lar_property_def backlinks = {"from", LAR_TYPE_LINKING_OBJECTS, LAR_COLLECTION_LIST, 0, "Source", "to"};
    const lar_property_def *cases[] = {&backlinks};
    for (size_t i = 0; i < COUNT_OF(cases); i++) {
        lar_property_def props[] = {PROP("id", LAR_TYPE_INT, 0), *cases[i]};
        lar_class_def classes[] = {target, CLASS_DEF("Source", props)};
        CHECK_RC(lar_schema_apply(env, classes, 2, 1), LAR_ENOTSUP);
        CHECK_MSG_HAS("Source");
    }
    lar_class_def unknown = CLASS_DEF("Unknown", target_props);
    unknown.flags = 0x80;
    CHECK_RC(lar_schema_apply(env, &unknown, 1, 1), LAR_EINVAL);
    CHECK_MSG_HAS("unknown flags");
    CHECK_EQ(env_info(env).class_count, 0);
    close_env(env);
}

TEST(schema_reopen_with_same_schema)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "Ada", 36, 9.5);
    commit_txn(txn);
    close_env(env);

    env = open_env(path);
    person_schema again = person_setup(env);
    CHECK_EQ(again.cls, p.cls); /* "A class identifier, stable for the life of the file." */
    CHECK_EQ(again.name, p.name);
    CHECK_EQ(env_info(env).class_count, 1);
    CHECK_EQ(env_info(env).schema_version, 1);
    txn = begin_read(env);
    CHECK_VALUE(get_value(txn, person_find(txn, &again, 1), again.name), val_str("Ada"));
    commit_txn(txn);
    close_env(env);
}

TEST(schema_reopen_adding_a_class)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "Ada", 36, 9.5);
    commit_txn(txn);
    close_env(env);

    env = open_env(path);
    lar_property_def person_props[] = {
        PROP("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY), PROP("name", LAR_TYPE_STRING, 0),
        PROP("age", LAR_TYPE_INT, LAR_PROP_OPTIONAL), PROP("score", LAR_TYPE_DOUBLE, 0)};
    lar_property_def dog_props[] = {PROP("name", LAR_TYPE_STRING, LAR_PROP_PRIMARY_KEY)};
    lar_class_def classes[] = {CLASS_DEF("Person", person_props), CLASS_DEF("Dog", dog_props)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 2));
    CHECK_EQ(env_info(env).class_count, 2);
    CHECK_EQ(env_info(env).schema_version, 2);
    CHECK_EQ(class_id(env, "Person"), p.cls);
    lar_class dog = class_id(env, "Dog");
    CHECK(dog != p.cls);

    /* A class left out of the call is kept as it is. */
    lar_property_def cat_props[] = {PROP("lives", LAR_TYPE_INT, 0)};
    lar_class_def cat = CLASS_DEF("Cat", cat_props);
    CHECK_OK(lar_schema_apply(env, &cat, 1, 2));
    CHECK_EQ(env_info(env).class_count, 3);
    CHECK_EQ(class_id(env, "Person"), p.cls);
    CHECK_EQ(class_id(env, "Dog"), dog);

    txn = begin_write(env);
    lar_value name = val_str("Rex");
    CHECK_OK(lar_obj_create(txn, dog, &name, 1, NULL));
    CHECK_VALUE(get_value(txn, person_find(txn, &p, 1), p.name), val_str("Ada"));
    commit_txn(txn);
    close_env(env);

    env = open_env(path);
    CHECK_EQ(env_info(env).class_count, 3);
    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, class_id(env, "Dog")), 1);
    CHECK_EQ(count_objects(txn, class_id(env, "Person")), 1);
    commit_txn(txn);
    close_env(env);
}

/* Reopens path and applies Person with one property replaced (or removed when
 * replacement is NULL, or added when name is NULL); expects LAR_ESCHEMA naming it. */
static void expect_schema_change_refused(const char *path, const char *name,
                                         const lar_property_def *replacement, const char *mentioned)
{
    lar_property_def props[5] = {
        PROP("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY), PROP("name", LAR_TYPE_STRING, 0),
        PROP("age", LAR_TYPE_INT, LAR_PROP_OPTIONAL), PROP("score", LAR_TYPE_DOUBLE, 0)};
    size_t count = 4;
    if (!name) {
        props[count++] = *replacement;
    } else {
        for (size_t i = 0; i < count; i++) {
            if (strcmp(props[i].name, name) != 0) continue;
            if (replacement) {
                props[i] = *replacement;
            } else {
                props[i] = props[count - 1];
                count--;
            }
            break;
        }
    }
    lar_env *env = open_env(path);
    CHECK_RC(apply_one(env, "Person", props, count, 1), LAR_ESCHEMA);
    CHECK_MSG_HAS("Person");
    CHECK_MSG_HAS(mentioned);
    /* Nothing changed: the stored class is the original one. */
    person_schema p = person_lookup(env);
    lar_class_info info;
    CHECK_OK(lar_class_info_get(env, p.cls, &info));
    CHECK_EQ(info.property_count, 4);
    lar_property_def def;
    CHECK_OK(lar_property_info_get(env, p.cls, p.age, &def));
    CHECK_EQ(def.type, LAR_TYPE_INT);
    CHECK_EQ(def.flags, LAR_PROP_OPTIONAL);
    close_env(env);
}

TEST(schema_reopen_with_changed_class_is_refused)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "Ada", 36, 9.5);
    commit_txn(txn);
    close_env(env);

    lar_property_def age_string = PROP("age", LAR_TYPE_STRING, LAR_PROP_OPTIONAL);
    expect_schema_change_refused(path, "age", &age_string, "age");            /* type */
    expect_schema_change_refused(path, "age", NULL, "age");                   /* removed */
    lar_property_def email = PROP("email", LAR_TYPE_STRING, 0);
    expect_schema_change_refused(path, NULL, &email, "email");                /* added */
    lar_property_def age_required = PROP("age", LAR_TYPE_INT, 0);
    expect_schema_change_refused(path, "age", &age_required, "age");          /* no longer optional */
    lar_property_def name_optional = PROP("name", LAR_TYPE_STRING, LAR_PROP_OPTIONAL);
    expect_schema_change_refused(path, "name", &name_optional, "name");       /* became optional */
    lar_property_def name_indexed = PROP("name", LAR_TYPE_STRING, LAR_PROP_INDEXED);
    expect_schema_change_refused(path, "name", &name_indexed, "name");        /* became indexed */
    lar_property_def id_plain = PROP("id", LAR_TYPE_INT, 0);
    expect_schema_change_refused(path, "id", &id_plain, "id");                /* lost its key flag */
    lar_property_def score_float = PROP("score", LAR_TYPE_FLOAT, 0);
    expect_schema_change_refused(path, "score", &score_float, "score");       /* double -> float */

    /* After all the refusals the data is intact. */
    env = open_env(path);
    p = person_setup(env);
    txn = begin_read(env);
    CHECK_VALUE(get_value(txn, person_find(txn, &p, 1), p.age), val_int(36));
    commit_txn(txn);
    close_env(env);
}

/* "The message names each one": two differences, both named. */
TEST(schema_refusal_names_every_difference)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_setup(env);
    lar_property_def props[] = {
        PROP("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY), PROP("name", LAR_TYPE_BINARY, 0),
        PROP("age", LAR_TYPE_INT, LAR_PROP_OPTIONAL), PROP("score", LAR_TYPE_DOUBLE, 0),
        PROP("nickname", LAR_TYPE_STRING, 0)};
    CHECK_RC(apply_one(env, "Person", props, COUNT_OF(props), 1), LAR_ESCHEMA);
    CHECK_MSG_HAS("Person");
    CHECK_MSG_HAS("name");
    CHECK_MSG_HAS("nickname");
    close_env(env);
}

TEST(schema_version_may_not_go_down)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    lar_property_def props[] = {PROP("x", LAR_TYPE_INT, 0)};
    CHECK_OK(apply_one(env, "A", props, 1, 5));
    CHECK_EQ(env_info(env).schema_version, 5);
    CHECK_RC(apply_one(env, "A", props, 1, 4), LAR_ESCHEMA);
    CHECK_EQ(env_info(env).schema_version, 5);
    CHECK_OK(apply_one(env, "A", props, 1, 5));
    CHECK_OK(apply_one(env, "A", props, 1, 6)); /* "a higher one is stored" */
    CHECK_EQ(env_info(env).schema_version, 6);
    close_env(env);

    env = open_env(path);
    CHECK_EQ(env_info(env).schema_version, 6);
    CHECK_RC(apply_one(env, "A", props, 1, 5), LAR_ESCHEMA);
    /* Also refused when the call would add a class. */
    lar_property_def b_props[] = {PROP("y", LAR_TYPE_INT, 0)};
    lar_class_def classes[] = {CLASS_DEF("A", props), CLASS_DEF("B", b_props)};
    CHECK_RC(lar_schema_apply(env, classes, 2, 1), LAR_ESCHEMA);
    CHECK_EQ(env_info(env).class_count, 1);
    close_env(env);
}

/* "A class already in the file must have the same properties (in any order)" and
 * "Property indexes ... follow the stored order: look them up with lar_property_find()." */
TEST(schema_property_order_in_definition_is_irrelevant)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    lar_property_def props[] = {PROP("a", LAR_TYPE_INT, 0), PROP("b", LAR_TYPE_STRING, 0),
                                PROP("c", LAR_TYPE_BOOL, LAR_PROP_OPTIONAL)};
    CHECK_OK(apply_one(env, "Thing", props, 3, 1));
    lar_class cls = class_id(env, "Thing");
    uint32_t a = prop_id(env, cls, "a"), b = prop_id(env, cls, "b"), c = prop_id(env, cls, "c");
    lar_txn *txn = begin_write(env);
    lar_value values[3];
    values[a] = val_int(42);
    values[b] = val_str("forty-two");
    values[c] = val_bool(1);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, cls, values, 3, &obj));
    commit_txn(txn);
    close_env(env);

    env = open_env(path);
    lar_property_def reordered[] = {props[2], props[0], props[1]};
    CHECK_OK(apply_one(env, "Thing", reordered, 3, 1));
    CHECK_EQ(prop_id(env, cls, "a"), a);
    CHECK_EQ(prop_id(env, cls, "b"), b);
    CHECK_EQ(prop_id(env, cls, "c"), c);
    txn = begin_read(env);
    CHECK_VALUE(get_value(txn, obj, a), val_int(42));
    CHECK_VALUE(get_value(txn, obj, b), val_str("forty-two"));
    CHECK_VALUE(get_value(txn, obj, c), val_bool(1));
    commit_txn(txn);
    close_env(env);
}

TEST(schema_lookups_and_their_errors)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_class cls = 12345;
    CHECK_RC(lar_class_find(env, "Nobody", &cls), LAR_ENOTFOUND);
    CHECK_RC(lar_class_find(env, "person", &cls), LAR_ENOTFOUND); /* names are case-sensitive */
    CHECK_RC(lar_class_find(NULL, "Person", &cls), LAR_EINVAL);
    CHECK_RC(lar_class_find(env, NULL, &cls), LAR_EINVAL);
    CHECK_RC(lar_class_find(env, "Person", NULL), LAR_EINVAL);

    lar_class_info info;
    CHECK_OK(lar_class_info_get(env, p.cls, &info));
    CHECK_STR(info.name, "Person");
    CHECK_EQ(info.property_count, 4);
    CHECK_EQ(info.primary_key, (int32_t)p.id);
    CHECK_RC(lar_class_info_get(env, p.cls + 1, &info), LAR_EINVAL);
    CHECK_RC(lar_class_info_get(env, UINT32_MAX, &info), LAR_EINVAL);
    CHECK_RC(lar_class_info_get(NULL, p.cls, &info), LAR_EINVAL);
    CHECK_RC(lar_class_info_get(env, p.cls, NULL), LAR_EINVAL);

    uint32_t prop = 999;
    CHECK_RC(lar_property_find(env, p.cls, "nope", &prop), LAR_ENOTFOUND);
    CHECK_RC(lar_property_find(env, p.cls + 7, "name", &prop), LAR_EINVAL);
    CHECK_RC(lar_property_find(NULL, p.cls, "name", &prop), LAR_EINVAL);
    CHECK_RC(lar_property_find(env, p.cls, NULL, &prop), LAR_EINVAL);
    CHECK_RC(lar_property_find(env, p.cls, "name", NULL), LAR_EINVAL);

    lar_property_def def;
    CHECK_OK(lar_property_info_get(env, p.cls, p.score, &def));
    CHECK_STR(def.name, "score");
    CHECK_EQ(def.type, LAR_TYPE_DOUBLE);
    CHECK_RC(lar_property_info_get(env, p.cls, 4, &def), LAR_EINVAL);
    CHECK_RC(lar_property_info_get(env, p.cls, UINT32_MAX, &def), LAR_EINVAL);
    CHECK_RC(lar_property_info_get(env, p.cls + 1, 0, &def), LAR_EINVAL);
    CHECK_RC(lar_property_info_get(NULL, p.cls, 0, &def), LAR_EINVAL);
    CHECK_RC(lar_property_info_get(env, p.cls, 0, NULL), LAR_EINVAL);
    close_env(env);
}

/* "its strings live until env closes": even across later schema changes. */
TEST(schema_info_strings_outlive_schema_changes)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_class_info info;
    CHECK_OK(lar_class_info_get(env, p.cls, &info));
    lar_property_def def;
    CHECK_OK(lar_property_info_get(env, p.cls, p.name, &def));
    for (int i = 0; i < 5; i++) {
        char name[32];
        snprintf(name, sizeof name, "Extra%d", i);
        lar_property_def props[] = {PROP("v", LAR_TYPE_INT, 0)};
        CHECK_OK(apply_one(env, name, props, 1, (uint64_t)(2 + i)));
    }
    CHECK_STR(info.name, "Person");
    CHECK_STR(def.name, "name");
    close_env(env);
}

/* "when the calling thread holds env's write transaction, the change is made inside it
 * (visible to it at once, stored when it commits, gone if it aborts)" */
TEST(schema_apply_inside_the_callers_write_transaction)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    lar_property_def props[] = {PROP("v", LAR_TYPE_INT, 0)};

    lar_txn *txn = begin_write(env);
    CHECK_OK(apply_one(env, "Gone", props, 1, 1));
    lar_class gone = class_id(env, "Gone");
    lar_value v = val_int(1);
    CHECK_OK(lar_obj_create(txn, gone, &v, 1, NULL));
    CHECK_EQ(count_objects(txn, gone), 1);
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    lar_class cls;
    CHECK_RC(lar_class_find(env, "Gone", &cls), LAR_ENOTFOUND);
    CHECK_EQ(env_info(env).class_count, 0);

    txn = begin_write(env);
    CHECK_OK(apply_one(env, "Kept", props, 1, 1));
    lar_class kept = class_id(env, "Kept");
    CHECK_OK(lar_obj_create(txn, kept, &v, 1, NULL));
    commit_txn(txn);
    CHECK_EQ(env_info(env).class_count, 1);
    close_env(env);

    env = open_env(path);
    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, class_id(env, "Kept")), 1);
    commit_txn(txn);
    close_env(env);
}

/* "a file opened without it exposes the classes already stored in it" */
TEST(schema_file_opened_without_apply_exposes_stored_classes)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 3, "Linus", -1, 7.0);
    commit_txn(txn);
    close_env(env);

    env = open_env(path);
    person_schema q = person_lookup(env);
    CHECK_EQ(q.cls, p.cls);
    lar_property_def def;
    CHECK_OK(lar_property_info_get(env, q.cls, q.age, &def));
    CHECK_EQ(def.type, LAR_TYPE_INT);
    CHECK_EQ(def.flags, LAR_PROP_OPTIONAL);
    txn = begin_read(env);
    CHECK_VALUE(get_value(txn, person_find(txn, &q, 3), q.age), val_null());
    commit_txn(txn);
    close_env(env);
}

/* A read snapshot open on the thread does not stop lar_schema_apply() (it begins its own
 * write), and a transaction begun afterwards sees the new class. */
TEST(schema_applied_is_seen_by_new_transactions)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_txn *old = begin_read(env);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 0);
    commit_txn(txn);
    commit_txn(old);
    close_env(env);
}
