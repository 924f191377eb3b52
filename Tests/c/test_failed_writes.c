/* Failed writes: a write transaction in which a mutation failed is poisoned, as LMDB's
 * MDB_TXN_ERROR is, so half an operation can never commit. Failures are injected with
 * txn_fail_after(), compiled into the test build only (LARDER_FAULT_INJECTION). */
#include "test.h"

void txn_fail_after(long mutations); /* CCore/kv/kv.h, tests only */

/* "A failed insert leaves nothing": with its second mutation failing (the primary key
 * was stored, the row was not), the write refuses everything but abort, and the file
 * holds neither the row nor a primary-key entry without it. */
TEST(failed_writes_an_insert_that_fails_midway_poisons_the_write)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "kept", 1, 1);
    commit_txn(txn);

    txn = begin_write(env);
    lar_value values[4];
    values[p.id] = val_int(INT64_MIN); /* displaced (see object.c): a primary-key entry, then the row */
    values[p.name] = val_str("half");
    values[p.age] = val_int(2);
    values[p.score] = val_double(2);
    txn_fail_after(2);
    CHECK_RC(lar_obj_create(txn, p.cls, values, 4, NULL), LAR_ENOMEM);
    values[p.id] = val_int(3);
    CHECK_RC(lar_obj_create(txn, p.cls, values, 4, NULL), LAR_EMISUSE);
    CHECK_RC(lar_txn_commit(txn), LAR_EMISUSE);
    lar_txn_free(txn);

    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 1);
    lar_value key = val_int(INT64_MIN);
    lar_obj obj;
    CHECK_RC(lar_obj_find(txn, p.cls, &key, &obj), LAR_ENOTFOUND);
    commit_txn(txn);
    /* The same insert works in the next write: no primary-key entry was left behind. */
    txn = begin_write(env);
    person_create(txn, &p, INT64_MIN, "whole", 2, 2);
    commit_txn(txn);
    close_env(env);
}

/* Every mutation of a set, a delete and a delete-all, failing in turn, leaves the file
 * as it was before the write. */
TEST(failed_writes_each_failing_mutation_leaves_the_last_commit)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    for (int64_t id = 1; id <= 3; id++) person_create(txn, &p, id, "x", id, 1);
    commit_txn(txn);
    for (long nth = 1; nth <= 3; nth++) { /* the set, the delete (Person keeps no primary-key entries), the drop */
        txn = begin_write(env);
        lar_obj one = person_find(txn, &p, 1), two = person_find(txn, &p, 2);
        txn_fail_after(nth);
        lar_value name = val_str("changed");
        int rc = lar_obj_set(txn, one, p.name, &name);
        if (!rc) rc = lar_obj_delete(txn, two);
        if (!rc) rc = lar_objects_delete_all(txn, p.cls);
        txn_fail_after(0);
        CHECK_EQ(rc, LAR_ENOMEM);
        CHECK_RC(lar_txn_commit(txn), LAR_EMISUSE);
        lar_txn_free(txn);
        txn = begin_read(env);
        CHECK_EQ(count_objects(txn, p.cls), 3);
        CHECK_VALUE(get_value(txn, person_find(txn, &p, 1), p.name), val_str("x"));
        CHECK(obj_exists(txn, person_find(txn, &p, 2)));
        commit_txn(txn);
    }
    close_env(env);
}

/* A schema change inside the caller's write that fails after storing the schema but
 * before creating its table must not commit: the file would then not open. */
TEST(failed_writes_a_schema_change_that_fails_midway_poisons_the_callers_write)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    static const lar_property_def props[] = {PROP("n", LAR_TYPE_INT, 0)};
    lar_class_def extra = CLASS_DEF("Extra", props);
    for (long nth = 1; nth <= 3; nth++) { /* the set, the delete (Person keeps no primary-key entries), the drop */ /* schema, generation, version, then the table */
        lar_txn *txn = begin_write(env);
        person_create(txn, &p, nth, "in the same write", 1, 1);
        txn_fail_after(nth);
        CHECK_RC(lar_schema_apply(env, &extra, 1, 2), LAR_ENOMEM);
        txn_fail_after(0);
        CHECK_RC(lar_txn_commit(txn), LAR_EMISUSE);
        lar_txn_free(txn);
    }
    close_env(env);

    env = open_env(path);
    lar_class cls;
    CHECK_RC(lar_class_find(env, "Extra", &cls), LAR_ENOTFOUND);
    p = person_lookup(env);
    lar_txn *txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 0);
    commit_txn(txn);
    CHECK_OK(lar_schema_apply(env, &extra, 1, 2)); /* and the change itself still works */
    CHECK_OK(lar_class_find(env, "Extra", &cls));
    close_env(env);
}

/* "its strings live until env closes", also for a class that an aborted write added
 * (the aborted write used to free them: a use after free under ASan). */
TEST(failed_writes_class_names_outlive_the_aborted_write_that_added_them)
{
    lar_env *env = open_env(test_db_path(NULL));
    static const lar_property_def props[] = {PROP("number", LAR_TYPE_INT, 0)};
    lar_class_def def = CLASS_DEF("Ephemeral", props);
    lar_txn *txn = begin_write(env);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class cls = class_id(env, "Ephemeral");
    lar_class_info info;
    lar_property_def prop;
    CHECK_OK(lar_class_info_get(env, cls, &info));
    CHECK_OK(lar_property_info_get(env, cls, 0, &prop));
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, cls, &iter));
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    CHECK(strcmp(info.name, "Ephemeral") == 0);
    CHECK(strcmp(prop.name, "number") == 0);
    lar_obj obj;
    CHECK_RC(lar_iter_next(iter, &obj), LAR_EMISUSE);
    lar_iter_close(iter);
    CHECK_RC(lar_class_find(env, "Ephemeral", &cls), LAR_ENOTFOUND);
    close_env(env);
}

/* Links and collections: each mutation of a list insert that splits nodes, a set
 * insert, a map put, and deletes that free collections and null links, failing in
 * turn, poisons the write; after the abort the file holds the last commit. */
typedef struct holder_state {
    size_t list, set, map;
    uint64_t backlinks, dogs;
} holder_state;

static holder_state read_state(lar_env *env, lar_obj holder, lar_obj dog, lar_class dog_cls)
{
    holder_state s;
    lar_txn *txn = begin_read(env);
    CHECK_OK(lar_list_count(txn, holder, 1, &s.list));
    CHECK_OK(lar_set_count(txn, holder, 2, &s.set));
    CHECK_OK(lar_map_count(txn, holder, 3, &s.map));
    CHECK_OK(lar_backlinks_count(txn, dog, holder.cls, 0, &s.backlinks));
    s.dogs = count_objects(txn, dog_cls);
    commit_txn(txn);
    return s;
}

TEST(failed_writes_in_links_and_collections_leave_the_last_commit)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def holder_props[] = {
        {"pet", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Dog", NULL},
        {"ints", LAR_TYPE_INT, LAR_COLLECTION_LIST, 0, NULL, NULL},
        {"tags", LAR_TYPE_STRING, LAR_COLLECTION_SET, 0, NULL, NULL},
        {"pets", LAR_TYPE_LINK, LAR_COLLECTION_MAP, LAR_PROP_OPTIONAL, "Dog", NULL},
    };
    lar_property_def dog_props[] = {PROP("name", LAR_TYPE_STRING, 0)};
    lar_class_def classes[] = {CLASS_DEF("Holder", holder_props), CLASS_DEF("Dog", dog_props)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 1));
    lar_class holder_cls = class_id(env, "Holder"), dog_cls = class_id(env, "Dog");
    lar_txn *txn = begin_write(env);
    lar_obj dog, holder;
    CHECK_OK(lar_obj_create(txn, dog_cls, NULL, 0, &dog));
    lar_value values[4] = {{.type = LAR_TYPE_LINK, .as.link = dog}, val_null(), val_null(), val_null()};
    CHECK_OK(lar_obj_create(txn, holder_cls, values, 4, &holder));
    for (int i = 0; i < 64; i++) { /* one full leaf: the next insert splits it */
        lar_value v = val_int(i);
        CHECK_OK(lar_list_append(txn, holder, 1, &v));
    }
    lar_value tag = val_str("t"), link = values[0];
    lar_string key = {"k", 1};
    CHECK_OK(lar_set_insert(txn, holder, 2, &tag, NULL));
    CHECK_OK(lar_map_put(txn, holder, 3, &key, &link));
    commit_txn(txn);
    holder_state before = read_state(env, holder, dog, dog_cls);

    for (int op = 0; op < 5; op++) {
        int failures = 0;
        for (long nth = 1;; nth++) {
            txn = begin_write(env);
            txn_fail_after(nth);
            lar_value v = val_int(-1), other = val_str("u");
            lar_string other_key = {"j", 1};
            int rc = op == 0 ? lar_list_insert(txn, holder, 1, 10, &v)
                   : op == 1 ? lar_set_insert(txn, holder, 2, &other, NULL)
                   : op == 2 ? lar_map_put(txn, holder, 3, &other_key, &link)
                   : op == 3 ? lar_obj_delete(txn, holder)
                             : lar_obj_delete(txn, dog);
            txn_fail_after(0);
            if (rc == LAR_OK) {
                lar_txn_free(txn); /* aborted: the next op starts from the same commit */
                break;
            }
            failures++;
            CHECK_EQ(rc, LAR_ENOMEM);
            CHECK_RC(lar_list_append(txn, holder, 1, &v), LAR_EMISUSE);
            CHECK_RC(lar_txn_commit(txn), LAR_EMISUSE);
            lar_txn_free(txn);
            holder_state after = read_state(env, holder, dog, dog_cls);
            CHECK(!memcmp(&after, &before, sizeof after));
            CHECK(nth < 200);
        }
        CHECK(failures >= 2); /* each operation makes several mutations */
    }
    close_env(env);
}
