/* Maps with string keys: values of every type, key order, Realm's key rules, maps of
 * objects whose deleted values become null, storage freed with the owner, and errors. */
#include "test.h"

#include <stdlib.h>

/* Home {scores: map<int>, notes: map<string?>, pets: map<Dog?>, tags: [string]}; Dog {name}. */
typedef struct homes {
    lar_class home, dog;
    uint32_t scores, notes, pets, tags;
} homes;

static homes homes_setup(lar_env *env)
{
    lar_property_def home_props[] = {
        {"scores", LAR_TYPE_INT, LAR_COLLECTION_MAP, 0, NULL, NULL},
        {"notes", LAR_TYPE_STRING, LAR_COLLECTION_MAP, LAR_PROP_OPTIONAL, NULL, NULL},
        {"pets", LAR_TYPE_LINK, LAR_COLLECTION_MAP, LAR_PROP_OPTIONAL, "Dog", NULL},
        {"tags", LAR_TYPE_STRING, LAR_COLLECTION_LIST, 0, NULL, NULL},
    };
    lar_property_def dog_props[] = {PROP("name", LAR_TYPE_STRING, 0)};
    lar_class_def classes[] = {CLASS_DEF("Home", home_props), CLASS_DEF("Dog", dog_props)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 1));
    homes h;
    h.home = class_id(env, "Home");
    h.dog = class_id(env, "Dog");
    h.scores = prop_id(env, h.home, "scores");
    h.notes = prop_id(env, h.home, "notes");
    h.pets = prop_id(env, h.home, "pets");
    h.tags = prop_id(env, h.home, "tags");
    return h;
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

static lar_string key_of(const char *s)
{
    return (lar_string){s, strlen(s)};
}

static void put(lar_txn *txn, lar_obj obj, uint32_t prop, const char *key, lar_value value)
{
    lar_string k = key_of(key);
    CHECK_OK(lar_map_put(txn, obj, prop, &k, &value));
}

static lar_value get(lar_txn *txn, lar_obj obj, uint32_t prop, const char *key)
{
    lar_string k = key_of(key);
    lar_value v;
    CHECK_OK(lar_map_get(txn, obj, prop, &k, &v));
    return v;
}

static size_t map_count(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    size_t n = 999;
    CHECK_OK(lar_map_count(txn, obj, prop, &n));
    return n;
}

TEST(maps_put_get_replace_remove_in_key_order)
{
    lar_env *env = open_env(test_db_path(NULL));
    homes h = homes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj home = make(txn, h.home);
    static const char *const keys[] = {"pear", "apple", "", "apples", "Zebra", "\xc3\xa9t\xc3\xa9", "a b"};
    for (size_t i = 0; i < COUNT_OF(keys); i++) put(txn, home, h.scores, keys[i], val_int((int64_t)i));
    CHECK_EQ(map_count(txn, home, h.scores), COUNT_OF(keys));
    put(txn, home, h.scores, "apple", val_int(100)); /* replaces */
    CHECK_EQ(map_count(txn, home, h.scores), COUNT_OF(keys));
    CHECK_VALUE(get(txn, home, h.scores, "apple"), val_int(100));
    CHECK_VALUE(get(txn, home, h.scores, ""), val_int(2));
    lar_string missing = key_of("appl");
    lar_value v;
    CHECK_RC(lar_map_get(txn, home, h.scores, &missing, &v), LAR_ENOTFOUND);
    CHECK_MSG_HAS("appl");
    commit_txn(txn);

    txn = begin_read(env);
    static const char *const sorted[] = {"", "Zebra", "a b", "apple", "apples", "pear", "\xc3\xa9t\xc3\xa9"};
    lar_string page_keys[3];
    lar_value page_values[3];
    size_t n, total = 0;
    int rc;
    lar_string last;
    while ((rc = lar_map_list(txn, home, h.scores, total ? &last : NULL, page_keys, page_values, 3, &n)) == LAR_OK) {
        for (size_t i = 0; i < n; i++, total++) {
            CHECK_STR(page_keys[i].data, sorted[total]); /* NUL-terminated */
            CHECK_EQ(page_keys[i].size, strlen(sorted[total]));
            CHECK_EQ(page_values[i].type, LAR_TYPE_INT);
        }
        last = page_keys[n - 1];
    }
    CHECK_EQ(rc, LAR_ENOTFOUND);
    CHECK_EQ(total, COUNT_OF(sorted));
    lar_string after = key_of("b"); /* not a key: the list starts at the next one */
    CHECK_OK(lar_map_list(txn, home, h.scores, &after, page_keys, NULL, 1, &n));
    CHECK_STR(page_keys[0].data, "pear");
    commit_txn(txn);

    txn = begin_write(env);
    int removed = -1;
    lar_string apple = key_of("apple");
    CHECK_OK(lar_map_remove(txn, home, h.scores, &apple, &removed));
    CHECK_EQ(removed, 1);
    CHECK_OK(lar_map_remove(txn, home, h.scores, &apple, &removed));
    CHECK_EQ(removed, 0);
    CHECK_EQ(map_count(txn, home, h.scores), COUNT_OF(keys) - 1);
    CHECK_OK(lar_map_clear(txn, home, h.scores));
    CHECK_EQ(map_count(txn, home, h.scores), 0);
    CHECK_END(lar_map_list(txn, home, h.scores, NULL, page_keys, page_values, 3, &n));
    commit_txn(txn);
    close_env(env);
}

TEST(maps_of_every_scalar_type_with_nulls)
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
    lar_property_def props[2 * SCALAR_TYPE_COUNT];
    char names[SCALAR_TYPE_COUNT][32];
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        snprintf(names[t - 1], sizeof names[t - 1], "opt_%s", scalar_type_names[t]);
        props[2 * (t - 1)] = (lar_property_def){scalar_type_names[t], (lar_type)t, LAR_COLLECTION_MAP, 0, NULL, NULL};
        props[2 * (t - 1) + 1] = (lar_property_def){names[t - 1], (lar_type)t, LAR_COLLECTION_MAP, LAR_PROP_OPTIONAL,
                                                    NULL, NULL};
    }
    lar_class_def def = {"Maps", props, COUNT_OF(props), 0};
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class cls = class_id(env, "Maps");
    lar_txn *txn = begin_write(env);
    lar_obj obj = make(txn, cls);
    lar_string k = key_of("k");
    lar_value null = val_null();
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        uint32_t req = (uint32_t)(2 * (t - 1)), opt = req + 1;
        put(txn, obj, req, "k", samples[t]);
        CHECK_RC(lar_map_put(txn, obj, req, &k, &null), LAR_ETYPE);
        put(txn, obj, opt, "k", null);
        put(txn, obj, opt, "v", samples[t]);
    }
    commit_txn(txn);
    txn = begin_read(env);
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        uint32_t req = (uint32_t)(2 * (t - 1)), opt = req + 1;
        CHECK_VALUE(get(txn, obj, req, "k"), samples[t]);
        CHECK_EQ(get(txn, obj, opt, "k").type, LAR_TYPE_NULL);
        CHECK_VALUE(get(txn, obj, opt, "v"), samples[t]);
        CHECK_EQ(map_count(txn, obj, opt), 2);
    }
    commit_txn(txn);
    close_env(env);
}

TEST(maps_refuse_bad_keys_and_arguments_and_change_nothing)
{
    lar_env *env = open_env(test_db_path(NULL));
    homes h = homes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj home = make(txn, h.home), gone = make(txn, h.home);
    lar_obj dead = make(txn, h.dog);
    CHECK_OK(lar_obj_delete(txn, gone));
    CHECK_OK(lar_obj_delete(txn, dead));
    put(txn, home, h.scores, "a", val_int(1));
    lar_value one = val_int(1), text = val_str("x"), null = val_null(), v;
    lar_string good = key_of("b"), dollar = key_of("$set"), dot = key_of("a.b"), invalid = key_of("\xff"),
               no_data = {NULL, 2};
    char long_key[LAR_MAP_KEY_MAX + 1];
    memset(long_key, 'k', sizeof long_key);
    lar_string too_long = {long_key, LAR_MAP_KEY_MAX + 1}, longest = {long_key, LAR_MAP_KEY_MAX};
    CHECK_RC(lar_map_put(txn, home, h.scores, &dollar, &one), LAR_EINVAL);
    CHECK_MSG_HAS("must not start with '$'");
    CHECK_MSG_HAS("Home.scores");
    CHECK_RC(lar_map_put(txn, home, h.scores, &dot, &one), LAR_EINVAL);
    CHECK_MSG_HAS("must not contain '.'");
    CHECK_RC(lar_map_put(txn, home, h.scores, &invalid, &one), LAR_EINVAL);
    CHECK_MSG_HAS("UTF-8");
    CHECK_RC(lar_map_put(txn, home, h.scores, &no_data, &one), LAR_EINVAL);
    CHECK_RC(lar_map_put(txn, home, h.scores, &too_long, &one), LAR_EINVAL);
    CHECK_RC(lar_map_put(txn, home, h.scores, NULL, &one), LAR_EINVAL);
    CHECK_RC(lar_map_put(txn, home, h.scores, &good, NULL), LAR_EINVAL);
    CHECK_RC(lar_map_put(txn, home, h.scores, &good, &text), LAR_ETYPE);
    CHECK_RC(lar_map_put(txn, home, h.scores, &good, &null), LAR_ETYPE);
    CHECK_RC(lar_map_get(txn, home, h.scores, &dollar, &v), LAR_EINVAL);
    CHECK_RC(lar_map_get(txn, home, h.scores, &good, NULL), LAR_EINVAL);
    CHECK_RC(lar_map_get(txn, home, h.scores, NULL, &v), LAR_EINVAL);
    CHECK_RC(lar_map_remove(txn, home, h.scores, &dot, NULL), LAR_EINVAL);
    CHECK_RC(lar_map_remove(txn, home, h.scores, NULL, NULL), LAR_EINVAL);
    CHECK_RC(lar_map_count(txn, home, h.scores, NULL), LAR_EINVAL);
    lar_string keys[2];
    size_t n;
    CHECK_RC(lar_map_list(txn, home, h.scores, NULL, NULL, NULL, 2, &n), LAR_EINVAL);
    CHECK_RC(lar_map_list(txn, home, h.scores, NULL, keys, NULL, 2, NULL), LAR_EINVAL);
    CHECK_RC(lar_map_list(txn, home, h.scores, NULL, keys, NULL, 0, &n), LAR_EINVAL);
    CHECK_RC(lar_map_list(txn, home, h.scores, &dot, keys, NULL, 2, &n), LAR_EINVAL);
    CHECK_RC(lar_map_count(NULL, home, h.scores, &n), LAR_EINVAL);
    CHECK_RC(lar_map_put(txn, (lar_obj){99, home.key}, h.scores, &good, &one), LAR_EINVAL);
    CHECK_RC(lar_map_put(txn, home, 9, &good, &one), LAR_EINVAL);
    CHECK_RC(lar_map_put(txn, home, h.tags, &good, &text), LAR_EINVAL);
    CHECK_MSG_HAS("not a map");
    CHECK_RC(lar_map_put(txn, gone, h.scores, &good, &one), LAR_EDELETED);
    CHECK_RC(lar_map_clear(txn, gone, h.scores), LAR_EDELETED);
    lar_value to_home = val_link(home), to_dead = val_link(dead);
    CHECK_RC(lar_map_put(txn, home, h.pets, &good, &to_home), LAR_ETYPE);
    CHECK_RC(lar_map_put(txn, home, h.pets, &good, &to_dead), LAR_EINVAL);
    CHECK_MSG_HAS("deleted");
    CHECK_EQ(map_count(txn, home, h.scores), 1);
    CHECK_EQ(map_count(txn, home, h.pets), 0);
    CHECK_OK(lar_map_put(txn, home, h.scores, &longest, &one)); /* the longest key fits */
    CHECK_OK(lar_map_remove(txn, home, h.scores, &longest, NULL));
    commit_txn(txn);

    txn = begin_read(env);
    CHECK_RC(lar_map_put(txn, home, h.scores, &good, &one), LAR_EMISUSE);
    CHECK_RC(lar_map_remove(txn, home, h.scores, &good, NULL), LAR_EMISUSE);
    CHECK_RC(lar_map_clear(txn, home, h.scores), LAR_EMISUSE);
    lar_txn_abort(txn);
    CHECK_RC(lar_map_count(txn, home, h.scores, &n), LAR_EMISUSE);
    CHECK_RC(lar_map_get(txn, home, h.scores, &good, &v), LAR_EMISUSE);
    CHECK_RC(lar_map_list(txn, home, h.scores, NULL, keys, NULL, 2, &n), LAR_EMISUSE);
    lar_txn_free(txn);
    txn = begin_read(env);
    CHECK_EQ(map_count(txn, home, h.scores), 1);
    CHECK_VALUE(get(txn, home, h.scores, "a"), val_int(1));
    commit_txn(txn);
    close_env(env);
}

TEST(maps_of_objects_keep_keys_of_deleted_targets_with_null)
{
    lar_env *env = open_env(test_db_path(NULL));
    homes h = homes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj home = make(txn, h.home), other = make(txn, h.home);
    lar_obj rex = make(txn, h.dog), fido = make(txn, h.dog);
    put(txn, home, h.pets, "first", val_link(rex));
    put(txn, home, h.pets, "second", val_link(rex));
    put(txn, home, h.pets, "third", val_link(fido));
    put(txn, other, h.pets, "only", val_link(rex));
    uint64_t count;
    CHECK_OK(lar_backlinks_count(txn, rex, h.home, h.pets, &count));
    CHECK_EQ(count, 2);
    put(txn, home, h.pets, "second", val_null()); /* one of home's two links to rex goes */
    CHECK_OK(lar_backlinks_count(txn, rex, h.home, h.pets, &count));
    CHECK_EQ(count, 2);
    lar_value got = get(txn, home, h.pets, "first");
    CHECK_EQ(got.type, LAR_TYPE_LINK);
    CHECK_EQ(got.as.link.cls, h.dog);
    CHECK_EQ(got.as.link.key, rex.key);
    commit_txn(txn);

    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, rex));
    CHECK_EQ(map_count(txn, home, h.pets), 3);
    CHECK_EQ(get(txn, home, h.pets, "first").type, LAR_TYPE_NULL);
    CHECK_EQ(get(txn, other, h.pets, "only").type, LAR_TYPE_NULL);
    CHECK_EQ(get(txn, home, h.pets, "third").as.link.key, fido.key);
    lar_string third = key_of("third");
    CHECK_OK(lar_map_remove(txn, home, h.pets, &third, NULL));
    CHECK_OK(lar_backlinks_count(txn, fido, h.home, h.pets, &count));
    CHECK_EQ(count, 0);
    commit_txn(txn);
    close_env(env);
}

TEST(maps_deleting_the_owner_frees_everything)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    homes h = homes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj keep = make(txn, h.dog);
    commit_txn(txn);
    close_env(env);
    uint64_t before = count_file_entries(path, NULL);

    env = open_env(path);
    txn = begin_write(env);
    lar_obj a = make(txn, h.home), b = make(txn, h.home);
    char key[16];
    for (int i = 0; i < 1500; i++) {
        snprintf(key, sizeof key, "k%d", i);
        put(txn, a, h.scores, key, val_int(i));
        put(txn, a, h.notes, key, i % 2 ? val_null() : val_str("note"));
    }
    put(txn, a, h.pets, "p", val_link(keep));
    put(txn, b, h.pets, "p", val_link(keep));
    lar_value null = val_null();
    CHECK_OK(lar_obj_set(txn, b, h.scores, &null)); /* null empties a map */
    commit_txn(txn);
    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, a));
    CHECK_OK(lar_objects_delete_all(txn, h.home));
    commit_txn(txn);
    close_env(env);
    /* Two counters stay: the Home class's next key and the next collection id. */
    CHECK_EQ(count_file_entries(path, NULL), before + 2);
    CHECK_EQ(count_file_entries(path, "keyed"), 0);
    CHECK_EQ(count_file_entries(path, "backlinks"), 0);
}

/* A write keeps the count of the map it changed last in memory (collection.c): puts
 * that alternate between maps, overwrite keys, remove and empty a map, then abort or
 * commit, leave the right counts and values. */
TEST(maps_cached_counts_follow_interleaved_changes)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    homes h = homes_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj a = make(txn, h.home), b = make(txn, h.home), dog = make(txn, h.dog);
    char key[16];
    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof key, "k%d", i);
        put(txn, a, h.scores, key, val_int(i));
        put(txn, b, h.scores, key, val_int(-i));
        if (i % 2) put(txn, a, h.scores, key, val_int(i * 10)); /* an overwrite: no new key */
        put(txn, b, h.pets, key, val_link(dog));
    }
    CHECK_EQ(map_count(txn, a, h.scores), 100);
    CHECK_EQ(map_count(txn, b, h.scores), 100);
    CHECK_EQ(map_count(txn, b, h.pets), 100);
    CHECK_VALUE(get(txn, a, h.scores, "k7"), val_int(70));
    for (int i = 0; i < 100; i++) { /* a empties: its id is given up */
        snprintf(key, sizeof key, "k%d", i);
        lar_string k = key_of(key);
        int removed = 0;
        CHECK_OK(lar_map_remove(txn, a, h.scores, &k, &removed));
        CHECK_EQ(removed, 1);
    }
    CHECK_EQ(map_count(txn, a, h.scores), 0);
    commit_txn(txn);

    txn = begin_write(env);
    put(txn, a, h.scores, "again", val_int(1));
    for (int i = 0; i < 50; i++) {
        snprintf(key, sizeof key, "n%d", i);
        put(txn, b, h.scores, key, val_int(i));
    }
    CHECK_EQ(map_count(txn, b, h.scores), 150);
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    txn = begin_read(env);
    CHECK_EQ(map_count(txn, a, h.scores), 0);
    CHECK_EQ(map_count(txn, b, h.scores), 100);
    CHECK_EQ(map_count(txn, b, h.pets), 100);
    uint64_t links;
    CHECK_OK(lar_backlinks_count(txn, dog, h.home, h.pets, &links));
    CHECK_EQ(links, 1);
    commit_txn(txn);
    txn = begin_write(env);
    CHECK_OK(lar_obj_delete(txn, b));
    commit_txn(txn);
    close_env(env);
    CHECK_EQ(count_file_entries(path, "keyed"), 0);
}
