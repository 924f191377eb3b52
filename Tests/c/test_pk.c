/* Primary keys: lookup by every key type, uniqueness, immutability, reuse after delete. */
#include "test.h"

/* A class "K_<type>" with a primary key "key" of the given type and a payload "n". */
typedef struct key_class {
    lar_class cls;
    uint32_t key, n;
    lar_type type;
} key_class;

static key_class key_class_setup(lar_env *env, lar_type type, bool optional)
{
    char name[64];
    snprintf(name, sizeof name, "K_%s%s", scalar_type_names[type], optional ? "_opt" : "");
    lar_property_def props[] = {
        PROP("n", LAR_TYPE_INT, 0),
        PROP("key", type, LAR_PROP_PRIMARY_KEY | (optional ? LAR_PROP_OPTIONAL : 0)),
    };
    lar_class_def def = CLASS_DEF(name, props);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    key_class k = {class_id(env, name), 0, 0, type};
    k.key = prop_id(env, k.cls, "key");
    k.n = prop_id(env, k.cls, "n");
    return k;
}

/* The i-th key of a type; keys of different i differ. */
static lar_value nth_key(lar_type type, int i, char text[64], uint8_t bytes[16])
{
    memset(bytes, 0, 16);
    bytes[0] = (uint8_t)(i >> 8);
    bytes[15] = bytes[11] = (uint8_t)i;
    switch (type) {
    case LAR_TYPE_INT: return val_int((int64_t)(i - 100) * 1000003); /* negative and positive */
    case LAR_TYPE_STRING:
        snprintf(text, 64, "k\xc3\xa9y-%d", i);
        return val_str(text);
    case LAR_TYPE_OBJECT_ID: return val_oid(bytes);
    default: return val_uuid(bytes);
    }
}

static lar_obj create_keyed(lar_txn *txn, const key_class *k, lar_value key, int64_t n)
{
    lar_value values[2];
    values[k->key] = key;
    values[k->n] = val_int(n);
    lar_obj obj;
    CHECK_OK(lar_obj_create(txn, k->cls, values, 2, &obj));
    return obj;
}

static void check_find(lar_txn *txn, const key_class *k, lar_value key, lar_obj expected, int64_t n)
{
    lar_obj found = {UINT32_MAX, 0};
    CHECK_OK(lar_obj_find(txn, k->cls, &key, &found));
    CHECK_EQ(found.cls, expected.cls);
    CHECK_EQ(found.key, expected.key);
    CHECK_VALUE(get_value(txn, found, k->n), val_int(n));
    CHECK_VALUE(get_value(txn, found, k->key), key);
}

TEST(pk_find_by_each_key_type)
{
    lar_env *env = open_env_with(test_db_path(NULL), (size_t)8 << 20, LAR_ENV_NOSYNC);
    static const lar_type types[] = {LAR_TYPE_INT, LAR_TYPE_STRING, LAR_TYPE_OBJECT_ID, LAR_TYPE_UUID};
    char text[64];
    uint8_t bytes[16];
    for (size_t t = 0; t < COUNT_OF(types); t++) {
        for (int optional = 0; optional <= 1; optional++) {
            key_class k = key_class_setup(env, types[t], optional);
            lar_obj objs[200];
            lar_txn *txn = begin_write(env);
            for (int i = 0; i < 200; i++) objs[i] = create_keyed(txn, &k, nth_key(k.type, i, text, bytes), i);
            commit_txn(txn);

            txn = begin_read(env);
            for (int i = 0; i < 200; i++) check_find(txn, &k, nth_key(k.type, i, text, bytes), objs[i], i);
            lar_obj found;
            lar_value missing = nth_key(k.type, 500, text, bytes);
            CHECK_RC(lar_obj_find(txn, k.cls, &missing, &found), LAR_ENOTFOUND);
            /* "LAR_ETYPE (wrong key type)" */
            lar_value wrong = k.type == LAR_TYPE_INT ? val_str("1") : val_int(1);
            CHECK_RC(lar_obj_find(txn, k.cls, &wrong, &found), LAR_ETYPE);
            lar_value dbl = val_double(1.0);
            CHECK_RC(lar_obj_find(txn, k.cls, &dbl, &found), LAR_ETYPE);
            if (optional) {
                lar_value null = val_null();
                CHECK_RC(lar_obj_find(txn, k.cls, &null, &found), LAR_ENOTFOUND); /* no null key yet */
            }
            commit_txn(txn);
        }
    }
    close_env(env);
}

/* The object lar_obj_find_stamped() finds is lar_obj_find()'s and its stamp lar_obj_stamp()'s,
 * for keys in place, displaced keys (INT64_MIN, null) and a class not keyed by an int
 * (stamp 0); an object created with a deleted one's key has a new stamp. */
static void check_find_stamped(lar_txn *txn, lar_class cls, lar_value key, bool keyed)
{
    lar_obj found, stamped = {UINT32_MAX, 0};
    uint64_t stamp = 77, want;
    CHECK_OK(lar_obj_find(txn, cls, &key, &found));
    CHECK_OK(lar_obj_find_stamped(txn, cls, &key, &stamped, &stamp));
    CHECK_EQ(stamped.cls, found.cls);
    CHECK_EQ(stamped.key, found.key);
    CHECK_OK(lar_obj_stamp(txn, found, &want));
    CHECK_EQ(stamp, want);
    CHECK_EQ(stamp != 0, keyed);
}

TEST(pk_find_stamped_gives_the_find_and_the_stamp)
{
    lar_env *env = open_env(test_db_path(NULL));
    key_class ints = key_class_setup(env, LAR_TYPE_INT, true);
    key_class strings = key_class_setup(env, LAR_TYPE_STRING, false);
    const lar_value keys[] = {val_int(5), val_int(-9), val_int(INT64_MIN), val_null()};
    lar_txn *txn = begin_write(env);
    for (size_t i = 0; i < COUNT_OF(keys); i++) create_keyed(txn, &ints, keys[i], (int64_t)i);
    create_keyed(txn, &strings, val_str("five"), 5);
    for (size_t i = 0; i < COUNT_OF(keys); i++) check_find_stamped(txn, ints.cls, keys[i], true);
    check_find_stamped(txn, strings.cls, val_str("five"), false);
    commit_txn(txn);

    txn = begin_read(env);
    for (size_t i = 0; i < COUNT_OF(keys); i++) check_find_stamped(txn, ints.cls, keys[i], true);
    lar_obj obj = {UINT32_MAX, 0};
    uint64_t before, stamp = 77;
    lar_value missing = val_int(6), five = val_int(5), wrong = val_str("5");
    CHECK_RC(lar_obj_find_stamped(txn, ints.cls, &missing, &obj, &stamp), LAR_ENOTFOUND);
    CHECK_RC(lar_obj_find_stamped(txn, ints.cls, &wrong, &obj, &stamp), LAR_ETYPE);
    CHECK(obj.cls == UINT32_MAX && stamp == 77); /* nothing written on failure */
    CHECK_RC(lar_obj_find_stamped(NULL, ints.cls, &five, &obj, &stamp), LAR_EINVAL);
    CHECK_RC(lar_obj_find_stamped(txn, ints.cls, NULL, &obj, &stamp), LAR_EINVAL);
    CHECK_RC(lar_obj_find_stamped(txn, ints.cls, &five, NULL, &stamp), LAR_EINVAL);
    CHECK_RC(lar_obj_find_stamped(txn, ints.cls, &five, &obj, NULL), LAR_EINVAL);
    CHECK_RC(lar_obj_find_stamped(txn, UINT32_MAX, &five, &obj, &stamp), LAR_EINVAL);
    CHECK_OK(lar_obj_find_stamped(txn, ints.cls, &five, &obj, &before));
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, obj));
    lar_obj again = create_keyed(txn, &ints, five, 9);
    CHECK_OK(lar_obj_find_stamped(txn, ints.cls, &five, &obj, &stamp));
    CHECK_EQ(obj.key, again.key);
    CHECK(stamp != before);
    commit_txn(txn);
    close_env(env);
}

/* "key: The key value; LAR_TYPE_NULL for an optional key's null." */
TEST(pk_optional_key_may_be_null_once)
{
    lar_env *env = open_env(test_db_path(NULL));
    static const lar_type types[] = {LAR_TYPE_INT, LAR_TYPE_STRING, LAR_TYPE_OBJECT_ID, LAR_TYPE_UUID};
    for (size_t t = 0; t < COUNT_OF(types); t++) {
        key_class k = key_class_setup(env, types[t], true);
        lar_txn *txn = begin_write(env);
        lar_obj null_obj = create_keyed(txn, &k, val_null(), 1);
        char text[64];
        uint8_t bytes[16];
        lar_obj other = create_keyed(txn, &k, nth_key(k.type, 0, text, bytes), 2);
        lar_value values[2];
        values[k.key] = val_null();
        values[k.n] = val_int(3);
        CHECK_RC(lar_obj_create(txn, k.cls, values, 2, NULL), LAR_EEXISTS);
        commit_txn(txn);

        txn = begin_read(env);
        check_find(txn, &k, val_null(), null_obj, 1);
        check_find(txn, &k, nth_key(k.type, 0, text, bytes), other, 2);
        CHECK_EQ(count_objects(txn, k.cls), 2);
        commit_txn(txn);
    }
    close_env(env);
}

/* Keys that are close to each other stay distinct: "" vs null, prefixes, embedded NULs. */
TEST(pk_similar_keys_are_distinct)
{
    lar_env *env = open_env(test_db_path(NULL));
    key_class s = key_class_setup(env, LAR_TYPE_STRING, true);
    const lar_value strings[] = {val_null(), val_str(""), val_str("a"), val_str("ab"), val_strn("a\0", 2),
                                 val_strn("\0", 1), val_str("A"), val_str("\xc3\xa9"), val_str("e\xcc\x81")};
    key_class i = key_class_setup(env, LAR_TYPE_INT, false);
    const lar_value ints[] = {val_int(0), val_int(-1), val_int(1), val_int(INT64_MIN), val_int(INT64_MAX),
                              val_int(256), val_int(-256)};
    lar_txn *txn = begin_write(env);
    lar_obj s_objs[COUNT_OF(strings)], i_objs[COUNT_OF(ints)];
    for (size_t n = 0; n < COUNT_OF(strings); n++) s_objs[n] = create_keyed(txn, &s, strings[n], (int64_t)n);
    for (size_t n = 0; n < COUNT_OF(ints); n++) i_objs[n] = create_keyed(txn, &i, ints[n], (int64_t)n);
    commit_txn(txn);
    txn = begin_read(env);
    for (size_t n = 0; n < COUNT_OF(strings); n++) check_find(txn, &s, strings[n], s_objs[n], (int64_t)n);
    for (size_t n = 0; n < COUNT_OF(ints); n++) check_find(txn, &i, ints[n], i_objs[n], (int64_t)n);
    commit_txn(txn);
    close_env(env);
}

TEST(pk_find_on_a_class_without_key)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def props[] = {PROP("x", LAR_TYPE_INT, 0)};
    lar_class_def def = CLASS_DEF("Plain", props);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class cls = class_id(env, "Plain");
    lar_txn *txn = begin_write(env);
    lar_value x = val_int(1);
    CHECK_OK(lar_obj_create(txn, cls, &x, 1, NULL));
    CHECK_OK(lar_obj_create(txn, cls, &x, 1, NULL)); /* no key: equal values are fine */
    lar_obj found;
    CHECK_RC(lar_obj_find(txn, cls, &x, &found), LAR_EINVAL);
    CHECK_RC(lar_obj_find(txn, cls, NULL, &found), LAR_EINVAL);
    CHECK_RC(lar_obj_find(txn, cls, &x, NULL), LAR_EINVAL);
    CHECK_RC(lar_obj_find(NULL, cls, &x, &found), LAR_EINVAL);
    commit_txn(txn);
    close_env(env);
}

/* "LAR_EEXISTS (the primary key is taken; the transaction stays usable)" */
TEST(pk_duplicate_leaves_the_transaction_usable)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ada = person_create(txn, &p, 1, "Ada", 36, 9.5);
    lar_value values[4];
    values[p.id] = val_int(1);
    values[p.name] = val_str("Impostor");
    values[p.age] = val_int(99);
    values[p.score] = val_double(0);
    lar_obj out = {UINT32_MAX, 12345};
    CHECK_RC(lar_obj_create(txn, p.cls, values, 4, &out), LAR_EEXISTS);
    CHECK_EQ(count_objects(txn, p.cls), 1);
    lar_obj grace = person_create(txn, &p, 2, "Grace", 45, 8.25);
    commit_txn(txn);

    /* Also against a key committed earlier. */
    txn = begin_write(env);
    CHECK_RC(lar_obj_create(txn, p.cls, values, 4, NULL), LAR_EEXISTS);
    person_create(txn, &p, 3, "Linus", -1, 7);
    commit_txn(txn);

    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 3);
    CHECK_EQ(count_by_iteration(txn, p.cls), 3);
    lar_obj found = person_find(txn, &p, 1);
    CHECK_EQ(found.key, ada.key);
    CHECK_VALUE(get_value(txn, found, p.name), val_str("Ada")); /* the duplicate stored nothing */
    CHECK_VALUE(get_value(txn, found, p.age), val_int(36));
    CHECK_EQ(person_find(txn, &p, 2).key, grace.key);
    commit_txn(txn);
    close_env(env);
}

/* "A primary key can be written only with the value it already has." */
TEST(pk_cannot_be_changed)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    key_class s = key_class_setup(env, LAR_TYPE_STRING, true);
    lar_txn *txn = begin_write(env);
    lar_obj ada = person_create(txn, &p, 1, "Ada", 36, 9.5);
    lar_obj named = create_keyed(txn, &s, val_str("name"), 1);
    lar_obj nameless = create_keyed(txn, &s, val_null(), 2);

    lar_value same = val_int(1), other = val_int(2);
    CHECK_OK(lar_obj_set(txn, ada, p.id, &same));
    CHECK_RC(lar_obj_set(txn, ada, p.id, &other), LAR_EINVAL);
    lar_value same_s = val_str("name"), other_s = val_str("other"), null = val_null();
    CHECK_OK(lar_obj_set(txn, named, s.key, &same_s));
    CHECK_RC(lar_obj_set(txn, named, s.key, &other_s), LAR_EINVAL);
    CHECK_RC(lar_obj_set(txn, named, s.key, &null), LAR_EINVAL);
    CHECK_OK(lar_obj_set(txn, nameless, s.key, &null));
    CHECK_RC(lar_obj_set(txn, nameless, s.key, &other_s), LAR_EINVAL);
    commit_txn(txn);

    txn = begin_read(env);
    CHECK_VALUE(get_value(txn, ada, p.id), val_int(1));
    CHECK_EQ(person_find(txn, &p, 1).key, ada.key);
    lar_obj found;
    CHECK_RC(lar_obj_find(txn, p.cls, &other, &found), LAR_ENOTFOUND);
    check_find(txn, &s, val_str("name"), named, 1);
    check_find(txn, &s, val_null(), nameless, 2);
    CHECK_RC(lar_obj_find(txn, s.cls, &other_s, &found), LAR_ENOTFOUND);
    commit_txn(txn);
    close_env(env);
}

TEST(pk_can_be_reused_after_delete)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj first = person_create(txn, &p, 5, "first", 1, 1);
    uint64_t first_stamp = 0, second_stamp = 0;
    CHECK_OK(lar_obj_stamp(txn, first, &first_stamp));
    CHECK_OK(lar_obj_delete(txn, first));
    CHECK_RC(lar_obj_stamp(txn, first, &second_stamp), LAR_EDELETED);
    lar_obj second = person_create(txn, &p, 5, "second", 2, 2); /* same transaction */
    /* Person is keyed by its int primary key: the new object takes the deleted one's key,
     * with another stamp (which the deleted one's holders kept). */
    CHECK_EQ(second.key, first.key);
    CHECK_OK(lar_obj_stamp(txn, second, &second_stamp));
    CHECK(second_stamp != first_stamp && first_stamp != 0);
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, second));
    commit_txn(txn);
    txn = begin_write(env);
    lar_obj third = person_create(txn, &p, 5, "third", 3, 3); /* a later transaction */
    commit_txn(txn);

    txn = begin_read(env);
    lar_obj found = person_find(txn, &p, 5);
    CHECK_EQ(found.key, third.key);
    uint64_t third_stamp = 0;
    CHECK_OK(lar_obj_stamp(txn, found, &third_stamp));
    CHECK(third_stamp != second_stamp && third_stamp != first_stamp && third_stamp != 0);
    CHECK_VALUE(get_value(txn, found, p.name), val_str("third"));
    CHECK_EQ(count_objects(txn, p.cls), 1);
    commit_txn(txn);
    close_env(env);
}

TEST(pk_lookup_in_a_snapshot)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ada = person_create(txn, &p, 1, "Ada", 36, 9.5);
    commit_txn(txn);
    lar_txn *snapshot = begin_read(env);
    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, ada));
    person_create(txn, &p, 2, "Grace", 45, 8.25);
    commit_txn(txn);
    CHECK_EQ(person_find(snapshot, &p, 1).key, ada.key);
    lar_value key = val_int(2);
    lar_obj found;
    CHECK_RC(lar_obj_find(snapshot, p.cls, &key, &found), LAR_ENOTFOUND);
    commit_txn(snapshot);
    close_env(env);
}

/* Many keys: every one is found (the O(log n) claim is not timed; this checks the
 * lookup stays right as the key table spans many pages). */
TEST(pk_find_among_many_objects)
{
    lar_env *env = open_env_with(test_db_path(NULL), (size_t)32 << 20, LAR_ENV_NOSYNC);
    key_class k = key_class_setup(env, LAR_TYPE_STRING, false);
    char text[64];
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < 20000; i++) {
        snprintf(text, sizeof text, "key-%d", (i * 7919) % 20000); /* not in creation order */
        create_keyed(txn, &k, val_str(text), (i * 7919) % 20000);
    }
    commit_txn(txn);
    txn = begin_read(env);
    int64_t start = now_ms();
    for (int i = 0; i < 20000; i++) {
        snprintf(text, sizeof text, "key-%d", i);
        lar_value key = val_str(text);
        lar_obj found;
        CHECK_OK(lar_obj_find(txn, k.cls, &key, &found));
        CHECK_VALUE(get_value(txn, found, k.n), val_int(i));
    }
    CHECK(now_ms() - start < 10000);
    commit_txn(txn);
    close_env(env);
}

/* ---- classes keyed by their int primary key (object.c) ---- */

static void check_duplicate(lar_txn *txn, const key_class *k, lar_value key, const char *described)
{
    lar_value values[2];
    values[k->key] = key;
    values[k->n] = val_int(-1);
    CHECK_RC(lar_obj_create(txn, k->cls, values, 2, NULL), LAR_EEXISTS);
    char expected[128];
    snprintf(expected, sizeof expected, "an object of class '%s' with primary key %s already exists",
             "K_int_opt", described);
    CHECK_MSG_HAS(expected);
}

/* Null and INT64_MIN cannot have the key their primary key gives (0), and INT64_MIN + 1
 * finds its key (1) taken by the first of them: all three are displaced, found, refused
 * twice with the usual message, and deleted and created again, in any order. */
TEST(pk_keyed_class_displaced_objects)
{
    lar_env *env = open_env(test_db_path(NULL));
    key_class k = key_class_setup(env, LAR_TYPE_INT, true);
    lar_txn *txn = begin_write(env);
    lar_obj null_obj = create_keyed(txn, &k, val_null(), 1);
    lar_obj plain = create_keyed(txn, &k, val_int(7), 2);
    lar_obj lowest = create_keyed(txn, &k, val_int(INT64_MIN), 3);
    lar_obj second = create_keyed(txn, &k, val_int(INT64_MIN + 1), 4);
    CHECK_EQ(plain.key, (lar_objkey)7 ^ (1ull << 63));
    CHECK(null_obj.key != lowest.key && lowest.key != second.key && second.key != 1);
    check_duplicate(txn, &k, val_null(), "null");
    check_duplicate(txn, &k, val_int(INT64_MIN), "-9223372036854775808");
    check_duplicate(txn, &k, val_int(INT64_MIN + 1), "-9223372036854775807");
    check_duplicate(txn, &k, val_int(7), "7");
    commit_txn(txn);

    for (int write = 0; write <= 1; write++) {
        txn = write ? begin_write(env) : begin_read(env);
        check_find(txn, &k, val_null(), null_obj, 1);
        check_find(txn, &k, val_int(7), plain, 2);
        check_find(txn, &k, val_int(INT64_MIN), lowest, 3);
        check_find(txn, &k, val_int(INT64_MIN + 1), second, 4);
        lar_value missing = val_int(INT64_MIN + 2);
        lar_obj found;
        CHECK_RC(lar_obj_find(txn, k.cls, &missing, &found), LAR_ENOTFOUND);
        if (write) {
            /* The null object held INT64_MIN + 1's key: with it gone, that object is still
             * found where it is, and its primary key is still taken. */
            CHECK_OK(lar_obj_delete(txn, null_obj));
            check_find(txn, &k, val_int(INT64_MIN + 1), second, 4);
            check_duplicate(txn, &k, val_int(INT64_MIN + 1), "-9223372036854775807");
            CHECK_OK(lar_obj_delete(txn, second));
            CHECK_RC(lar_obj_find(txn, k.cls, &missing, &found), LAR_ENOTFOUND);
            lar_obj again = create_keyed(txn, &k, val_int(INT64_MIN + 1), 5); /* now under its own key */
            CHECK_EQ(again.key, (lar_objkey)1);
            check_find(txn, &k, val_int(INT64_MIN + 1), again, 5);
            lar_obj null_again = create_keyed(txn, &k, val_null(), 6);
            check_find(txn, &k, val_null(), null_again, 6);
            CHECK_EQ(count_objects(txn, k.cls), 4);
        }
        commit_txn(txn);
    }
    close_env(env);
}

/* Objects created in one write under keys their primary keys gave are not vouched for by
 * the write's created-here shortcut: a link to a key between two of them (no object)
 * is refused. */
TEST(pk_keyed_class_link_to_a_missing_key_between_created_ones)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_property_def props[] = {{"owner", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Person", NULL}};
    lar_class_def def = CLASS_DEF("Pet", props);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class pet = class_id(env, "Pet");
    lar_txn *txn = begin_write(env);
    lar_obj one = person_create(txn, &p, 1, "one", 1, 1);
    lar_obj three = person_create(txn, &p, 3, "three", 3, 3);
    lar_value link = {.type = LAR_TYPE_LINK};
    link.as.link = (lar_obj){p.cls, one.key + 1}; /* primary key 2's key: no object */
    CHECK(link.as.link.key < three.key);
    CHECK_RC(lar_obj_create(txn, pet, &link, 1, NULL), LAR_EINVAL);
    CHECK_MSG_HAS("does not exist");
    link.as.link = three;
    CHECK_OK(lar_obj_create(txn, pet, &link, 1, NULL));
    commit_txn(txn);
    close_env(env);
}

/* Upserting through find-then-create, deleting and creating again in one write and in
 * the next, in a large class: every object stays found under its key, and the key
 * order is the primary-key order. */
TEST(pk_keyed_class_many_objects_in_any_order)
{
    lar_env *env = open_env(test_db_path(NULL));
    key_class k = key_class_setup(env, LAR_TYPE_INT, false);
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < 2000; i++) {
        int64_t id = (int64_t)((i * 7919) % 2000) - 1000; /* every id in [-1000, 1000) once, shuffled */
        create_keyed(txn, &k, val_int(id), id * 2);
    }
    commit_txn(txn);
    txn = begin_write(env);
    for (int64_t id = -1000; id < 1000; id += 3) {
        lar_value key = val_int(id);
        lar_obj found;
        CHECK_OK(lar_obj_find(txn, k.cls, &key, &found));
        CHECK_OK(lar_obj_delete(txn, found));
        if (id % 2) create_keyed(txn, &k, key, id * 3);
    }
    commit_txn(txn);
    txn = begin_read(env);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, k.cls, &iter));
    lar_obj obj;
    int64_t previous = INT64_MIN, seen = 0;
    while (lar_iter_next(iter, &obj) == LAR_OK) {
        int64_t id = get_value(txn, obj, k.key).as.integer;
        CHECK(id > previous);
        previous = id;
        bool redone = (id + 1000) % 3 == 0;
        CHECK_VALUE(get_value(txn, obj, k.n), val_int(redone ? id * 3 : id * 2));
        CHECK(!redone || id % 2);
        seen++;
    }
    lar_iter_close(iter);
    CHECK_EQ(seen, count_objects(txn, k.cls));
    commit_txn(txn);
    close_env(env);
}

/* A damaged row under the key an int primary key gives is reported as damage, not as
 * "no such object" (which a caller would answer by creating it again). */
TEST(pk_keyed_class_find_reports_a_damaged_row)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    key_class k = key_class_setup(env, LAR_TYPE_INT, false);
    lar_txn *txn = begin_write(env);
    lar_obj made = create_keyed(txn, &k, val_int(42), 1);
    commit_txn(txn);
    close_env(env);
    test_damage_row(path, k.cls, made.key);

    env = open_env(path);
    txn = begin_read(env);
    lar_value key = val_int(42);
    lar_obj found;
    CHECK_RC(lar_obj_find(txn, k.cls, &key, &found), LAR_ECORRUPT);
    uint64_t stamp;
    CHECK_RC(lar_obj_find_stamped(txn, k.cls, &key, &found, &stamp), LAR_ECORRUPT);
    lar_txn_free(txn);
    close_env(env);
}
