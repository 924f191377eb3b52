/* Writes <data dir>/shared.larder for the Python FFI test (Tests/ffi/test_ffi.py), and
 * checks it. Its content is a contract with that test: schema version 1, one class
 * "Person" with properties in this order: "id" (INT, primary key), "name" (STRING),
 * "age" (INT, optional), "score" (DOUBLE); and the objects (1, "Ada", 36, 9.5),
 * (2, "Grace", 45, 8.25), (3, "Linus", null, 7.0). */
#include "test.h"

#include <unistd.h>

typedef struct person_row {
    int64_t id;
    const char *name;
    int64_t age; /* -1: null */
    double score;
} person_row;

static const person_row ROWS[] = {{1, "Ada", 36, 9.5}, {2, "Grace", 45, 8.25}, {3, "Linus", -1, 7.0}};

static void verify_shared(lar_env *env)
{
    lar_env_info info = env_info(env);
    CHECK_EQ(info.schema_version, 1);
    CHECK_EQ(info.class_count, 1);
    lar_class cls = class_id(env, "Person");
    lar_class_info cinfo;
    CHECK_OK(lar_class_info_get(env, cls, &cinfo));
    CHECK_STR(cinfo.name, "Person");
    CHECK_EQ(cinfo.property_count, 4);
    CHECK_EQ(cinfo.primary_key, 0);
    /* The FFI test expects the declared order to be the stored order. */
    static const struct { const char *name; lar_type type; unsigned flags; } props[] = {
        {"id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY}, {"name", LAR_TYPE_STRING, 0},
        {"age", LAR_TYPE_INT, LAR_PROP_OPTIONAL}, {"score", LAR_TYPE_DOUBLE, 0}};
    for (uint32_t i = 0; i < 4; i++) {
        lar_property_def def;
        CHECK_OK(lar_property_info_get(env, cls, i, &def));
        CHECK_STR(def.name, props[i].name);
        CHECK_EQ(def.type, props[i].type);
        CHECK_EQ(def.flags, props[i].flags);
        CHECK_EQ(prop_id(env, cls, props[i].name), i);
    }

    lar_txn *txn = begin_read(env);
    CHECK_EQ(count_objects(txn, cls), 3);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, cls, &iter));
    lar_obj obj;
    lar_value values[4];
    for (size_t r = 0; r < COUNT_OF(ROWS); r++) {
        CHECK_OK(lar_iter_next_all(iter, &obj, values, 4));
        CHECK_VALUE(values[0], val_int(ROWS[r].id));
        CHECK_VALUE(values[1], val_str(ROWS[r].name));
        CHECK_VALUE(values[2], ROWS[r].age < 0 ? val_null() : val_int(ROWS[r].age));
        CHECK_VALUE(values[3], val_double(ROWS[r].score));
        lar_value key = val_int(ROWS[r].id);
        lar_obj found;
        CHECK_OK(lar_obj_find(txn, cls, &key, &found));
        CHECK_EQ(found.key, obj.key);
    }
    CHECK_END(lar_iter_next(iter, &obj));
    lar_iter_close(iter);
    commit_txn(txn);
}

TEST(shared_file_for_the_ffi_test)
{
    const char *path = test_data_path("shared.larder");
    char lock[4200];
    snprintf(lock, sizeof lock, "%s-lock", path);
    unlink(path);
    unlink(lock);

    lar_env *env = open_env(path);
    const lar_property_def props[] = {
        PROP("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY),
        PROP("name", LAR_TYPE_STRING, 0),
        PROP("age", LAR_TYPE_INT, LAR_PROP_OPTIONAL),
        PROP("score", LAR_TYPE_DOUBLE, 0),
    };
    lar_class_def person = CLASS_DEF("Person", props);
    CHECK_OK(lar_schema_apply(env, &person, 1, 1));
    lar_class cls = class_id(env, "Person");
    uint32_t id = prop_id(env, cls, "id"), name = prop_id(env, cls, "name");
    uint32_t age = prop_id(env, cls, "age"), score = prop_id(env, cls, "score");
    lar_txn *txn = begin_write(env);
    for (size_t r = 0; r < COUNT_OF(ROWS); r++) {
        lar_value values[4];
        values[id] = val_int(ROWS[r].id);
        values[name] = val_str(ROWS[r].name);
        values[age] = ROWS[r].age < 0 ? val_null() : val_int(ROWS[r].age);
        values[score] = val_double(ROWS[r].score);
        CHECK_OK(lar_obj_create(txn, cls, values, 4, NULL));
    }
    commit_txn(txn);
    close_env(env);

    /* Read it back as the FFI test will: a fresh, read-only open. */
    env = open_env_with(path, (size_t)64 << 20, LAR_ENV_READONLY);
    verify_shared(env);
    close_env(env);
}
