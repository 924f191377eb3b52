/* Persistence: everything written comes back after closing and reopening the file. */
#include "test.h"

#include <stdio.h>

/* Values of object i for every property of AllTypes; odd objects leave optionals null. */
static void fill_values(const all_types_schema *a, int i, lar_value *values, char *text, uint8_t *bytes)
{
    snprintf(text, 64, "object %d \xe2\x9c\x93", i);
    for (int b = 0; b < 16; b++) bytes[b] = (uint8_t)(i * 16 + b);
    lar_value v[LAR_TYPE_DECIMAL128 + 1];
    v[LAR_TYPE_INT] = val_int((int64_t)i * -1000000007LL);
    v[LAR_TYPE_BOOL] = val_bool(i % 2);
    v[LAR_TYPE_FLOAT] = val_float((float)i / 4);
    v[LAR_TYPE_DOUBLE] = val_double((double)i / 3);
    v[LAR_TYPE_STRING] = val_str(text);
    v[LAR_TYPE_BINARY] = val_bin(bytes, (size_t)(i % 17));
    v[LAR_TYPE_TIMESTAMP] = val_ts(-(int64_t)i * 86400, -(int32_t)i * 1000);
    v[LAR_TYPE_OBJECT_ID] = val_oid(bytes);
    v[LAR_TYPE_UUID] = val_uuid(bytes);
    v[LAR_TYPE_DECIMAL128] = val_dec((uint64_t)i, 0x3040000000000000ULL);
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        values[a->req[t]] = v[t];
        values[a->opt[t]] = i % 2 ? val_null() : v[t];
    }
}

TEST(persistence_everything_survives_reopen)
{
    const char *path = test_db_path(NULL);
    const int count = 300;
    lar_env *env = open_env(path);
    all_types_schema a = all_types_setup(env);
    person_schema p = person_setup(env);
    lar_obj objs[300];
    char text[64];
    uint8_t bytes[16];
    lar_value values[2 * SCALAR_TYPE_COUNT];
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < count; i++) {
        fill_values(&a, i, values, text, bytes);
        CHECK_OK(lar_obj_create(txn, a.cls, values, a.count, &objs[i]));
    }
    person_create(txn, &p, 1, "Ada", 36, 9.5);
    person_create(txn, &p, 3, "Linus", -1, 7.0);
    commit_txn(txn);
    /* A second transaction deletes some and changes some. */
    txn = begin_write(env);
    for (int i = 0; i < count; i += 10) CHECK_OK(lar_obj_delete(txn, objs[i]));
    lar_value changed = val_str("changed");
    for (int i = 5; i < count; i += 10) CHECK_OK(lar_obj_set(txn, objs[i], a.req[LAR_TYPE_STRING], &changed));
    commit_txn(txn);
    lar_env_info before = env_info(env);
    close_env(env);

    /* Reopen without declaring anything: the stored schema is used. */
    env = open_env(path);
    lar_env_info after = env_info(env);
    CHECK_EQ(after.class_count, before.class_count);
    CHECK_EQ(after.schema_version, before.schema_version);
    all_types_schema b = all_types_lookup(env);
    CHECK_EQ(b.cls, a.cls);
    person_schema q = person_lookup(env);
    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, b.cls), count - count / 10);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, b.cls, &iter));
    lar_value got[2 * SCALAR_TYPE_COUNT];
    lar_obj obj;
    for (int i = 0; i < count; i++) {
        if (i % 10 == 0) {
            CHECK(!obj_exists(txn, objs[i]));
            continue;
        }
        CHECK_OK(lar_iter_next_all(iter, &obj, got, b.count));
        CHECK_EQ(obj.key, objs[i].key); /* creation order survives too */
        fill_values(&b, i, values, text, bytes);
        if (i % 10 == 5) values[b.req[LAR_TYPE_STRING]] = changed;
        for (uint32_t prop = 0; prop < b.count; prop++) CHECK_VALUE(got[prop], values[prop]);
    }
    CHECK_END(lar_iter_next(iter, &obj));
    lar_iter_close(iter);
    CHECK_VALUE(get_value(txn, person_find(txn, &q, 1), q.name), val_str("Ada"));
    CHECK_VALUE(get_value(txn, person_find(txn, &q, 3), q.age), val_null());
    commit_txn(txn);

    /* The same schema applies cleanly, and new objects get new keys. */
    all_types_setup(env);
    person_setup(env);
    txn = begin_write(env);
    lar_obj fresh;
    CHECK_OK(lar_obj_create(txn, b.cls, NULL, 0, &fresh));
    CHECK(fresh.key > objs[count - 1].key);
    commit_txn(txn);
    close_env(env);
}

/* A read-only open of a file written earlier sees all of it. */
TEST(persistence_readonly_reopen_reads_everything)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < 100; i++) person_create(txn, &p, i, "x", i, i);
    commit_txn(txn);
    close_env(env);

    env = open_env_with(path, (size_t)64 << 20, LAR_ENV_READONLY);
    p = person_lookup(env);
    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 100);
    for (int i = 0; i < 100; i++) CHECK_VALUE(get_value(txn, person_find(txn, &p, i), p.age), val_int(i));
    commit_txn(txn);
    close_env(env);
}
