/* Iterators: creation order, changes during iteration, the end, seeking, misuse. */
#include "test.h"
#include "object/object.h"

#include <lmdb.h>
#include <stdlib.h>

/* Creates count people; age holds the creation index. Person is keyed by its int
 * primary key, so the keys, and the iteration order, follow the primary keys, which
 * here grow with creation. */
static void create_people(lar_env *env, const person_schema *p, int count)
{
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < count; i++) person_create(txn, p, 1000 + i, "someone", i, i);
    commit_txn(txn);
}

/* Walks the class; returns the ages seen, in order (the caller frees them). */
static int64_t *walk_ages(lar_txn *txn, const person_schema *p, size_t *count)
{
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, p->cls, &iter));
    size_t n = 0, capacity = 16;
    int64_t *ages = malloc(capacity * sizeof *ages);
    lar_obj obj, previous = {0, 0};
    int rc;
    while ((rc = lar_iter_next(iter, &obj)) == LAR_OK) {
        CHECK_EQ(obj.cls, p->cls);
        CHECK(n == 0 || obj.key > previous.key);
        previous = obj;
        if (n == capacity) ages = realloc(ages, (capacity *= 2) * sizeof *ages);
        ages[n++] = get_value(txn, obj, p->age).as.integer;
    }
    CHECK_EQ(rc, LAR_ENOTFOUND);
    lar_iter_close(iter);
    *count = n;
    return ages;
}

TEST(iter_visits_in_creation_order)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    create_people(env, &p, 100);
    lar_txn *txn = begin_read(env);
    size_t n, again_n;
    int64_t *ages = walk_ages(txn, &p, &n);
    CHECK_EQ(n, 100);
    for (size_t i = 0; i < n; i++) CHECK_EQ(ages[i], (int64_t)i);
    /* Stable: a second walk, in the same and in another transaction, is the same. */
    int64_t *again = walk_ages(txn, &p, &again_n);
    CHECK_EQ(again_n, n);
    CHECK_MEM(again, ages, n * sizeof *ages);
    free(again);
    commit_txn(txn);
    txn = begin_read(env);
    again = walk_ages(txn, &p, &again_n);
    CHECK_EQ(again_n, n);
    CHECK_MEM(again, ages, n * sizeof *ages);
    free(again);
    free(ages);
    commit_txn(txn);
    close_env(env);
}

/* A class keyed by its int primary key iterates in primary-key order (negative keys
 * first); another class, in creation order. */
TEST(iter_visits_a_keyed_class_in_primary_key_order)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    const int64_t ids[] = {7, -3, INT64_MAX, 0, INT64_MIN + 1, 12};
    for (int i = 0; i < 6; i++) person_create(txn, &p, ids[i], "someone", i, i);
    commit_txn(txn);
    txn = begin_read(env);
    size_t n;
    int64_t *ages = walk_ages(txn, &p, &n);
    const int64_t by_key[] = {4, 1, 3, 0, 5, 2};
    CHECK_EQ(n, 6);
    for (size_t i = 0; i < n; i++) CHECK_EQ(ages[i], by_key[i]);
    free(ages);
    commit_txn(txn);
    close_env(env);
}

/* A bound stamp is each object's lar_obj_stamp() after every kind of step (one per
 * object of a batch, at its stride), in a read and in a write; 0 in a class whose
 * primary key is not an int; NULL unbinds. */
TEST(iter_bind_stamp_fills_each_objects_stamp)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_property_def plain_props[] = {PROP("n", LAR_TYPE_INT, 0)};
    lar_class_def plain_def = CLASS_DEF("Plain", plain_props);
    CHECK_OK(lar_schema_apply(env, &plain_def, 1, 2));
    lar_class plain = class_id(env, "Plain");
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < 7; i++) person_create(txn, &p, 40 - i * 7, "someone", i, i);
    lar_value n = val_int(1);
    CHECK_OK(lar_obj_create(txn, plain, &n, 1, NULL));
    commit_txn(txn);
    for (int write = 0; write <= 1; write++) {
        txn = write ? begin_write(env) : begin_read(env);
        lar_iter *iter;
        CHECK_OK(lar_iter_open(txn, p.cls, &iter));
        uint64_t stamps[4][2], seen[8] = {0}; /* stride: two words */
        lar_obj objs[4], obj;
        lar_value values[4];
        size_t count = 0;
        CHECK_OK(lar_iter_bind_stamp(iter, &stamps[0][0]));
        CHECK_OK(lar_iter_next(iter, &objs[0]));
        CHECK_OK(lar_obj_stamp(txn, objs[0], &seen[0]));
        CHECK(seen[0] != 0 && stamps[0][0] == seen[0]);
        CHECK_OK(lar_iter_next_all(iter, &obj, values, 4));
        CHECK_OK(lar_obj_stamp(txn, obj, &seen[1]));
        CHECK(seen[1] != seen[0] && stamps[0][0] == seen[1]);
        CHECK_OK(lar_iter_next_batch(iter, objs, 4, sizeof stamps[0], &count));
        CHECK_EQ(count, 4);
        for (size_t i = 0; i < count; i++) {
            CHECK_OK(lar_obj_stamp(txn, objs[i], &seen[2 + i]));
            CHECK_EQ(stamps[i][0], seen[2 + i]);
        }
        CHECK_OK(lar_iter_bind_stamp(iter, NULL));
        stamps[0][0] = 77;
        CHECK_OK(lar_iter_next(iter, &obj));
        CHECK_EQ(stamps[0][0], 77);
        lar_iter_close(iter);

        CHECK_OK(lar_iter_open(txn, plain, &iter));
        CHECK_OK(lar_iter_bind_stamp(iter, &stamps[0][0]));
        CHECK_OK(lar_iter_next(iter, &obj));
        CHECK_EQ(stamps[0][0], 0);
        lar_iter_close(iter);
        if (write) {
            CHECK_OK(lar_iter_open(txn, p.cls, &iter));
            commit_txn(txn);
            CHECK_RC(lar_iter_bind_stamp(iter, &stamps[0][0]), LAR_EMISUSE);
            lar_iter_close(iter);
        } else {
            lar_txn_free(txn);
        }
    }
    CHECK_RC(lar_iter_bind_stamp(NULL, NULL), LAR_EINVAL);
    close_env(env);
}

TEST(iter_over_an_empty_class)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_read(env);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, p.cls, &iter));
    lar_obj obj;
    CHECK_END(lar_iter_next(iter, &obj));
    CHECK_END(lar_iter_next(iter, &obj)); /* the end stays the end */
    lar_value values[4];
    CHECK_END(lar_iter_next_all(iter, &obj, values, 4));
    lar_iter_close(iter);
    commit_txn(txn);
    close_env(env);
}

/* "Objects deleted during iteration are skipped" */
TEST(iter_skips_objects_deleted_during_iteration)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    create_people(env, &p, 20);
    lar_txn *txn = begin_write(env);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, p.cls, &iter));
    lar_obj obj;
    int64_t seen[20];
    size_t n = 0;
    while (lar_iter_next(iter, &obj) == LAR_OK) {
        int64_t age = get_value(txn, obj, p.age).as.integer;
        seen[n++] = age;
        if (age == 4) {
            /* Delete the current object and two ahead of it (ages 5 and 9). */
            CHECK_OK(lar_obj_delete(txn, obj));
            CHECK_OK(lar_obj_delete(txn, person_find(txn, &p, 1000 + 5)));
            CHECK_OK(lar_obj_delete(txn, person_find(txn, &p, 1000 + 9)));
        }
        CHECK(n < 20);
    }
    lar_iter_close(iter);
    CHECK_EQ(n, 18);
    for (size_t i = 0, expected = 0; i < n; i++, expected++) {
        while (expected == 5 || expected == 9) expected++;
        CHECK_EQ(seen[i], (int64_t)expected);
    }
    commit_txn(txn);
    close_env(env);
}

/* "objects created during a write transaction's iteration are visited" */
TEST(iter_visits_objects_created_during_a_write)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    create_people(env, &p, 5);
    lar_txn *txn = begin_write(env);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, p.cls, &iter));
    lar_obj obj;
    size_t n = 0;
    int64_t ages[20];
    while (lar_iter_next(iter, &obj) == LAR_OK) {
        CHECK(n < 20);
        ages[n++] = get_value(txn, obj, p.age).as.integer;
        if (n <= 3) person_create(txn, &p, 2000 + (int64_t)n, "new", 100 + (int64_t)n, 0); /* 3 new ones */
    }
    lar_iter_close(iter);
    CHECK_EQ(n, 8);
    const int64_t expected[] = {0, 1, 2, 3, 4, 101, 102, 103};
    for (size_t i = 0; i < n; i++) CHECK_EQ(ages[i], expected[i]);
    commit_txn(txn);
    close_env(env);
}

/* A read snapshot's iterator does not see a later commit. */
TEST(iter_in_a_read_snapshot_ignores_later_commits)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    create_people(env, &p, 5);
    lar_txn *snapshot = begin_read(env);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(snapshot, p.cls, &iter));
    lar_obj obj;
    CHECK_OK(lar_iter_next(iter, &obj));
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "later", 50, 0);
    CHECK_OK(lar_obj_delete(txn, person_find(txn, &p, 1000 + 3)));
    commit_txn(txn);
    size_t n = 1;
    while (lar_iter_next(iter, &obj) == LAR_OK) n++;
    CHECK_EQ(n, 5);
    lar_iter_close(iter);
    commit_txn(snapshot);
    close_env(env);
}

/* "(the iterator then returns LAR_EMISUSE)" once its transaction ended, however it ended. */
TEST(iter_after_its_transaction_ended)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    create_people(env, &p, 3);
    lar_obj obj;
    lar_value values[4];
    for (int how = 0; how < 5; how++) {
        bool write = how >= 3;
        lar_txn *txn = write ? begin_write(env) : begin_read(env);
        lar_iter *iter;
        CHECK_OK(lar_iter_open(txn, p.cls, &iter));
        CHECK_OK(lar_iter_next(iter, &obj));
        switch (how) {
        case 0: CHECK_OK(lar_txn_commit(txn)); break;
        case 1: CHECK_OK(lar_txn_abort(txn)); break;
        case 2: /* renewed: a new snapshot, the old iterator still belongs to the ended one */
            CHECK_OK(lar_txn_commit(txn));
            CHECK_OK(lar_txn_renew(txn));
            break;
        case 3: CHECK_OK(lar_txn_commit(txn)); break;
        case 4: CHECK_OK(lar_txn_abort(txn)); break;
        }
        CHECK_RC(lar_iter_next(iter, &obj), LAR_EMISUSE);
        CHECK_RC(lar_iter_next_all(iter, &obj, values, 4), LAR_EMISUSE);
        CHECK_RC(lar_iter_seek(iter, 0), LAR_EMISUSE);
        lar_iter_close(iter);
        lar_txn_free(txn);
    }
    /* Freed (so aborted) while the iterator lives. */
    lar_txn *txn = begin_read(env);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, p.cls, &iter));
    lar_txn_free(txn);
    CHECK_RC(lar_iter_next(iter, &obj), LAR_EMISUSE);
    lar_iter_close(iter);
    close_env(env);
}

/* "LAR_ENOTFOUND at the end (the last error is not set)" */
TEST(iter_end_leaves_the_last_error_alone)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    create_people(env, &p, 2);
    lar_txn *txn = begin_read(env);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, p.cls, &iter));
    lar_obj obj;
    lar_value values[4];

    /* An earlier failure's error survives the end of an iteration. */
    lar_value v;
    lar_obj first = person_find(txn, &p, 1000);
    CHECK_RC(lar_obj_get(txn, first, 99, &v), LAR_EINVAL);
    char message[512];
    snprintf(message, sizeof message, "%s", lar_error_last()->message);
    CHECK_OK(lar_iter_next(iter, &obj));
    CHECK_OK(lar_iter_next_all(iter, &obj, values, 4));
    CHECK_END(lar_iter_next(iter, &obj));
    CHECK_END(lar_iter_next_all(iter, &obj, values, 4));
    CHECK_EQ(lar_error_last()->code, LAR_EINVAL);
    CHECK_STR(lar_error_last()->message, message);

    /* And a cleared error stays cleared. */
    lar_error_clear();
    CHECK_OK(lar_iter_seek(iter, 0));
    while (lar_iter_next(iter, &obj) == LAR_OK) {}
    CHECK_EQ(lar_error_last()->code, LAR_OK);
    lar_iter_close(iter);
    commit_txn(txn);
    close_env(env);
}

TEST(iter_next_all_reads_every_property)
{
    lar_env *env = open_env(test_db_path(NULL));
    all_types_schema a = all_types_setup(env);
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < 10; i++) {
        lar_obj obj;
        CHECK_OK(lar_obj_create(txn, a.cls, NULL, 0, &obj));
        lar_value n = val_int(i), s = val_str(i % 2 ? "odd" : "even");
        CHECK_OK(lar_obj_set(txn, obj, a.req[LAR_TYPE_INT], &n));
        CHECK_OK(lar_obj_set(txn, obj, a.opt[LAR_TYPE_STRING], &s));
    }
    commit_txn(txn);

    for (int write = 0; write <= 1; write++) {
        txn = write ? begin_write(env) : begin_read(env);
        lar_iter *iter;
        CHECK_OK(lar_iter_open(txn, a.cls, &iter));
        lar_value values[2 * SCALAR_TYPE_COUNT], expected[2 * SCALAR_TYPE_COUNT];
        lar_obj obj;
        CHECK_RC(lar_iter_next_all(iter, &obj, values, a.count - 1), LAR_EINVAL);
        CHECK_RC(lar_iter_next_all(iter, &obj, values, a.count + 1), LAR_EINVAL);
        CHECK_RC(lar_iter_next_all(iter, &obj, NULL, a.count), LAR_EINVAL);
        CHECK_RC(lar_iter_next_all(iter, NULL, values, a.count), LAR_EINVAL);
        for (int i = 0; i < 10; i++) {
            CHECK_OK(lar_iter_next_all(iter, &obj, values, a.count));
            CHECK_OK(lar_obj_get_all(txn, obj, expected, a.count));
            for (uint32_t prop = 0; prop < a.count; prop++) CHECK_VALUE(values[prop], expected[prop]);
            CHECK_VALUE(values[a.req[LAR_TYPE_INT]], val_int(i)); /* the failed calls did not step */
            CHECK_VALUE(values[a.opt[LAR_TYPE_STRING]], val_str(i % 2 ? "odd" : "even"));
        }
        CHECK_END(lar_iter_next_all(iter, &obj, values, a.count));
        lar_iter_close(iter);
        commit_txn(txn);
    }
    close_env(env);
}

/* Rows of required ints and doubles take a scan's fast path: every step, seek and end must agree
 * with lar_obj_get_all, in read and write transactions alike. */
TEST(iter_next_all_reads_rows_of_numbers)
{
    static const lar_property_def props[] = {
        PROP("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY),
        PROP("ratio", LAR_TYPE_DOUBLE, 0),
        PROP("count", LAR_TYPE_INT, 0),
    };
    lar_class_def def = CLASS_DEF("Point", props);
    lar_env *env = open_env(test_db_path(NULL));
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class cls = class_id(env, "Point");
    lar_txn *txn = begin_write(env);
    lar_obj objs[20];
    for (int i = 0; i < 20; i++) {
        lar_value values[3] = {val_int(i), val_double(i / 4.0), val_int(-i)};
        CHECK_OK(lar_obj_create(txn, cls, values, 3, &objs[i]));
    }
    commit_txn(txn);

    for (int write = 0; write <= 1; write++) {
        txn = write ? begin_write(env) : begin_read(env);
        lar_iter *iter;
        CHECK_OK(lar_iter_open(txn, cls, &iter));
        lar_value values[3], expected[3];
        lar_obj obj;
        int seen = 0;
        for (int i = 0; i < 20; i++, seen++) {
            if (i == 12) CHECK_OK(lar_iter_seek(iter, objs[i = 16].key)); /* skip mid-walk; next_all steps next */
            CHECK_OK(i % 3 ? lar_iter_next_all(iter, &obj, values, 3) : lar_iter_next(iter, &obj));
            if (i % 3 == 0) CHECK_OK(lar_obj_get_all(txn, obj, values, 3));
            CHECK_EQ(obj.key, objs[i].key);
            CHECK_OK(lar_obj_get_all(txn, obj, expected, 3));
            for (int prop = 0; prop < 3; prop++) CHECK_VALUE(values[prop], expected[prop]);
            CHECK_VALUE(values[1], val_double(i / 4.0));
        }
        CHECK_EQ(seen, 16);
        CHECK_END(lar_iter_next_all(iter, &obj, values, 3));
        CHECK_END(lar_iter_next_all(iter, &obj, values, 3)); /* and stays at the end */
        CHECK_OK(lar_iter_seek(iter, 0));
        CHECK_OK(lar_iter_next_all(iter, &obj, values, 3));
        CHECK_EQ(obj.key, objs[0].key);
        CHECK_VALUE(values[2], val_int(0));
        lar_iter_close(iter);
        commit_txn(txn);
    }
    close_env(env);
}

/* "After each successful lar_iter_next() or lar_iter_next_all(), *dest holds the property's
 * value": ints and doubles bound to a struct's fields (one copy run) and apart, values of any
 * type, rebinding and unbinding mid-walk, the end, in read and write transactions. */
TEST(iter_bindings_fill_on_every_step)
{
    static const lar_property_def props[] = {
        PROP("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY),
        PROP("ratio", LAR_TYPE_DOUBLE, 0),
        PROP("count", LAR_TYPE_INT, 0),
        PROP("label", LAR_TYPE_STRING, LAR_PROP_OPTIONAL),
    };
    lar_class_def def = CLASS_DEF("Tagged", props);
    lar_env *env = open_env(test_db_path(NULL));
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class cls = class_id(env, "Tagged");
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < 10; i++) {
        lar_value values[4] = {val_int(i), val_double(i / 2.0), val_int(-i), i % 2 ? val_str("odd") : val_null()};
        CHECK_OK(lar_obj_create(txn, cls, values, 4, NULL));
    }
    commit_txn(txn);

    for (int write = 0; write <= 1; write++) {
        txn = write ? begin_write(env) : begin_read(env);
        lar_iter *iter;
        CHECK_OK(lar_iter_open(txn, cls, &iter));
        struct { int64_t id; double ratio; int64_t count; } row = {-1, -1, -1};
        int64_t count_apart = 0;
        lar_value label;
        CHECK_OK(lar_iter_bind_int(iter, 0, &row.id));
        CHECK_OK(lar_iter_bind_double(iter, 1, &row.ratio));
        CHECK_OK(lar_iter_bind_int(iter, 2, &row.count));
        CHECK_OK(lar_iter_bind_value(iter, 3, &label));
        lar_obj obj;
        lar_value values[4];
        for (int i = 0; i < 10; i++) {
            if (i == 4) CHECK_OK(lar_iter_bind_int(iter, 2, &count_apart)); /* rebinding moves it */
            if (i == 7) CHECK_OK(lar_iter_bind_int(iter, 2, NULL));        /* and this removes it */
            CHECK_OK(i % 2 ? lar_iter_next(iter, &obj) : lar_iter_next_all(iter, &obj, values, 4));
            CHECK_EQ(row.id, i);
            CHECK(row.ratio == i / 2.0);
            if (i < 4) CHECK_EQ(row.count, -i);
            else CHECK_EQ(row.count, -3);
            CHECK_EQ(count_apart, i < 4 ? 0 : i < 7 ? -i : -6);
            CHECK_VALUE(label, i % 2 ? val_str("odd") : val_null());
            lar_value got;
            CHECK_OK(lar_obj_get(txn, obj, 0, &got)); /* reads after a bound step see the same object */
            CHECK_VALUE(got, val_int(i));
        }
        CHECK_END(lar_iter_next(iter, &obj));
        CHECK_EQ(row.id, 9); /* the end leaves the variables alone */
        CHECK_OK(lar_iter_seek(iter, 0));
        CHECK_OK(lar_iter_next(iter, &obj));
        CHECK_EQ(row.id, 0);
        lar_iter_close(iter);
        commit_txn(txn);
    }
    close_env(env);
}

TEST(iter_bind_errors)
{
    lar_env *env = open_env(test_db_path(NULL));
    all_types_schema a = all_types_setup(env);
    lar_txn *txn = begin_read(env);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, a.cls, &iter));
    int64_t n;
    double d;
    lar_value v;
    CHECK_RC(lar_iter_bind_int(NULL, a.req[LAR_TYPE_INT], &n), LAR_EINVAL);
    CHECK_RC(lar_iter_bind_int(iter, a.count, &n), LAR_EINVAL);
    CHECK_RC(lar_iter_bind_value(iter, a.count, &v), LAR_EINVAL);
    CHECK_RC(lar_iter_bind_int(iter, a.opt[LAR_TYPE_INT], &n), LAR_ETYPE);  /* may be null */
    CHECK_RC(lar_iter_bind_int(iter, a.req[LAR_TYPE_BOOL], &n), LAR_ETYPE);
    CHECK_RC(lar_iter_bind_double(iter, a.req[LAR_TYPE_INT], &d), LAR_ETYPE);
    CHECK_RC(lar_iter_bind_double(iter, a.req[LAR_TYPE_FLOAT], &d), LAR_ETYPE);
    CHECK_MSG_HAS("float");
    CHECK_OK(lar_iter_bind_value(iter, a.opt[LAR_TYPE_INT], &v));
    CHECK_OK(lar_iter_bind_double(iter, a.req[LAR_TYPE_DOUBLE], &d));
    CHECK_OK(lar_iter_bind_int(iter, a.req[LAR_TYPE_INT], NULL)); /* removing no binding is fine */
    commit_txn(txn);
    CHECK_RC(lar_iter_bind_int(iter, a.req[LAR_TYPE_INT], &n), LAR_EMISUSE);
    lar_iter_close(iter);
    close_env(env);
}

/* "Row-wise binding ... row i's variables lie i * stride bytes after them." */
TEST(iter_next_batch_fills_a_row_per_object)
{
    static const lar_property_def props[] = {
        PROP("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY),
        PROP("ratio", LAR_TYPE_DOUBLE, 0),
        PROP("label", LAR_TYPE_STRING, LAR_PROP_OPTIONAL),
    };
    lar_class_def def = CLASS_DEF("Batched", props);
    lar_env *env = open_env(test_db_path(NULL));
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class cls = class_id(env, "Batched");
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < 10; i++) {
        lar_value values[3] = {val_int(i), val_double(i / 4.0), i % 3 ? val_str("kept") : val_null()};
        CHECK_OK(lar_obj_create(txn, cls, values, 3, NULL));
    }
    commit_txn(txn);

    for (int write = 0; write <= 1; write++) {
        txn = write ? begin_write(env) : begin_read(env);
        lar_iter *iter;
        CHECK_OK(lar_iter_open(txn, cls, &iter));
        struct row { int64_t id; double ratio; lar_value label; } rows[4];
        CHECK_OK(lar_iter_bind_int(iter, 0, &rows[0].id));
        CHECK_OK(lar_iter_bind_double(iter, 1, &rows[0].ratio));
        CHECK_OK(lar_iter_bind_value(iter, 2, &rows[0].label));
        lar_obj objs[4];
        int64_t seen = 0;
        size_t got, batches = 0;
        int rc;
        for (;;) {
            memset(rows, 0xAB, sizeof rows);
            if ((rc = lar_iter_next_batch(iter, objs, 4, sizeof rows[0], &got)) != LAR_OK) break;
            CHECK_EQ(got, batches++ < 2 ? 4 : 2); /* 4, 4, then the last 2 */
            for (size_t i = 0; i < got; i++, seen++) {
                CHECK_EQ(rows[i].id, seen);
                CHECK(rows[i].ratio == seen / 4.0);
                CHECK_VALUE(rows[i].label, seen % 3 ? val_str("kept") : val_null());
                CHECK_EQ(objs[i].cls, cls);
                CHECK_VALUE(get_value(txn, objs[i], 0), val_int(seen));
            }
            if (got < 4) CHECK_EQ(rows[got].id, (int64_t)0xABABABABABABABABull); /* rows past got untouched */
        }
        CHECK_EQ(rc, LAR_ENOTFOUND);
        CHECK_EQ(got, 0);
        CHECK_EQ(seen, 10);

        /* Single steps and batches mix; without objs, capacity 1 needs no stride. */
        CHECK_OK(lar_iter_seek(iter, 0));
        lar_obj obj;
        CHECK_OK(lar_iter_next(iter, &obj));
        CHECK_EQ(rows[0].id, 0);
        CHECK_OK(lar_iter_next_batch(iter, NULL, 1, 0, &got));
        CHECK_EQ(got, 1);
        CHECK_EQ(rows[0].id, 1);
        CHECK_OK(lar_iter_next_batch(iter, NULL, 4, sizeof rows[0], &got));
        CHECK_EQ(got, 4);
        CHECK_EQ(rows[3].id, 5);
        CHECK_OK(lar_iter_next(iter, &obj));
        CHECK_EQ(rows[0].id, 6);
        lar_iter_close(iter);
        commit_txn(txn);
    }
    close_env(env);
}

TEST(iter_next_batch_errors)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    create_people(env, &p, 3);
    lar_txn *txn = begin_read(env);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, p.cls, &iter));
    lar_obj objs[2];
    size_t got = 7;
    CHECK_RC(lar_iter_next_batch(NULL, objs, 2, 0, &got), LAR_EINVAL);
    CHECK_RC(lar_iter_next_batch(iter, objs, 2, 0, NULL), LAR_EINVAL);
    CHECK_RC(lar_iter_next_batch(iter, objs, 0, 0, &got), LAR_EINVAL);
    CHECK_EQ(got, 0);
    CHECK_MSG_HAS("capacity");
    commit_txn(txn);
    got = 7;
    CHECK_RC(lar_iter_next_batch(iter, objs, 2, 0, &got), LAR_EMISUSE);
    CHECK_EQ(got, 0);
    lar_iter_close(iter);
    close_env(env);
}

/* "On any other error, the first *count rows were filled before it." */
TEST(iter_next_batch_stops_at_a_corrupt_row)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj made[5];
    for (int i = 0; i < 5; i++) made[i] = person_create(txn, &p, i, "someone", i, i);
    commit_txn(txn);
    close_env(env);
    test_damage_row(path, p.cls, made[2].key);

    env = open_env(path);
    txn = begin_read(env);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, p.cls, &iter));
    int64_t ids[5] = {-1, -1, -1, -1, -1};
    CHECK_OK(lar_iter_bind_int(iter, p.id, &ids[0]));
    size_t got;
    CHECK_RC(lar_iter_next_batch(iter, NULL, 5, sizeof ids[0], &got), LAR_ECORRUPT);
    CHECK_EQ(got, 2);
    CHECK_EQ(ids[0], 0);
    CHECK_EQ(ids[1], 1);
    CHECK_EQ(ids[2], -1);
    lar_iter_close(iter);
    commit_txn(txn);
    close_env(env);
}

/* "Move an iterator so that its next step returns the first object whose key is at least key." */
TEST(iter_seek_positions_the_next_step)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    create_people(env, &p, 10);
    lar_txn *txn = begin_write(env);
    lar_obj gone = person_find(txn, &p, 1000 + 4);
    CHECK_OK(lar_obj_delete(txn, gone)); /* a hole at age 4 */
    commit_txn(txn);

    for (int write = 0; write <= 1; write++) {
        txn = write ? begin_write(env) : begin_read(env);
        lar_obj objs[10];
        for (int i = 0; i < 10; i++) objs[i] = i == 4 ? gone : person_find(txn, &p, 1000 + i);
        lar_iter *iter;
        CHECK_OK(lar_iter_open(txn, p.cls, &iter));
        lar_obj obj;
        CHECK_OK(lar_iter_seek(iter, objs[6].key));
        CHECK_OK(lar_iter_next(iter, &obj));
        CHECK_EQ(obj.key, objs[6].key);
        CHECK_OK(lar_iter_next(iter, &obj));
        CHECK_EQ(obj.key, objs[7].key);
        CHECK_OK(lar_iter_seek(iter, gone.key)); /* a deleted key: the next one after it */
        CHECK_OK(lar_iter_next(iter, &obj));
        CHECK_EQ(obj.key, objs[5].key);
        CHECK_OK(lar_iter_seek(iter, objs[9].key + 1)); /* past the last */
        CHECK_END(lar_iter_next(iter, &obj));
        CHECK_OK(lar_iter_seek(iter, 0)); /* "0 restarts from the first object", also after the end */
        CHECK_OK(lar_iter_next(iter, &obj));
        CHECK_EQ(obj.key, objs[0].key);
        CHECK_OK(lar_iter_seek(iter, objs[2].key)); /* backwards */
        CHECK_OK(lar_iter_next(iter, &obj));
        CHECK_EQ(obj.key, objs[2].key);
        CHECK_RC(lar_iter_seek(NULL, 0), LAR_EINVAL);
        lar_iter_close(iter);
        commit_txn(txn);
    }
    close_env(env);
}

/* "Lets a caller resume a walk in a new transaction ... (pass the last key seen plus one)." */
TEST(iter_seek_resumes_a_walk_in_a_new_transaction)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    create_people(env, &p, 30);
    lar_objkey last = 0;
    int64_t next_age = 0;
    for (int batch = 0; batch < 3; batch++) {
        lar_txn *txn = begin_read(env);
        lar_iter *iter;
        CHECK_OK(lar_iter_open(txn, p.cls, &iter));
        CHECK_OK(lar_iter_seek(iter, batch ? last + 1 : 0));
        lar_obj obj;
        for (int i = 0; i < 10; i++) {
            CHECK_OK(lar_iter_next(iter, &obj));
            CHECK_VALUE(get_value(txn, obj, p.age), val_int(next_age++));
            last = obj.key;
        }
        lar_iter_close(iter);
        commit_txn(txn);
    }
    CHECK_EQ(next_age, 30);
    close_env(env);
}

TEST(iter_several_at_once_are_independent)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    create_people(env, &p, 6);
    lar_txn *txn = begin_read(env);
    lar_iter *a, *b;
    CHECK_OK(lar_iter_open(txn, p.cls, &a));
    CHECK_OK(lar_iter_open(txn, p.cls, &b));
    lar_obj oa, ob;
    for (int i = 0; i < 3; i++) CHECK_OK(lar_iter_next(a, &oa));
    CHECK_OK(lar_iter_next(b, &ob));
    CHECK_VALUE(get_value(txn, oa, p.age), val_int(2));
    CHECK_VALUE(get_value(txn, ob, p.age), val_int(0));
    lar_iter_close(a); /* closing one leaves the other working */
    CHECK_OK(lar_iter_next(b, &ob));
    CHECK_VALUE(get_value(txn, ob, p.age), val_int(1));
    lar_iter_close(b);
    commit_txn(txn);
    close_env(env);
}

TEST(iter_argument_errors)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_read(env);
    lar_iter *iter = NULL;
    CHECK_RC(lar_iter_open(NULL, p.cls, &iter), LAR_EINVAL);
    CHECK_RC(lar_iter_open(txn, p.cls, NULL), LAR_EINVAL);
    CHECK_RC(lar_iter_open(txn, p.cls + 1, &iter), LAR_EINVAL);
    CHECK(iter == NULL);
    lar_obj obj;
    lar_value values[4];
    CHECK_RC(lar_iter_next(NULL, &obj), LAR_EINVAL);
    CHECK_RC(lar_iter_next_all(NULL, &obj, values, 4), LAR_EINVAL);
    CHECK_OK(lar_iter_open(txn, p.cls, &iter));
    CHECK_RC(lar_iter_next(iter, NULL), LAR_EINVAL);
    lar_iter_close(iter);
    lar_iter_close(NULL);
    commit_txn(txn);
    close_env(env);
}

/* Strings handed out by an iterator stay valid until the transaction ends, too. */
TEST(iter_strings_stay_valid_until_the_transaction_ends)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    char name[32];
    for (int i = 0; i < 50; i++) {
        snprintf(name, sizeof name, "person number %d", i);
        person_create(txn, &p, i, name, i, i);
    }
    commit_txn(txn);

    txn = begin_write(env);
    lar_iter *iter;
    CHECK_OK(lar_iter_open(txn, p.cls, &iter));
    lar_value kept[50][4];
    lar_obj obj;
    for (int i = 0; i < 50; i++) {
        CHECK_OK(lar_iter_next_all(iter, &obj, kept[i], 4));
        lar_value other = val_str("overwritten with a much longer name than before");
        CHECK_OK(lar_obj_set(txn, obj, p.name, &other)); /* rewrites the row just read */
    }
    lar_iter_close(iter);
    for (int i = 0; i < 50; i++) {
        snprintf(name, sizeof name, "person number %d", i);
        CHECK_VALUE(kept[i][p.name], val_str(name));
    }
    commit_txn(txn);
    close_env(env);
}

/* White-box: the lines a bound step reads, which a key walk prefetches (plan_ahead in
 * object/iter.c). Person's slots: id 0-7, name 8-15, age (optional) 16-23, score 24-31,
 * then the stamp (32-39, keyed by its int primary key) and the null bitmap at 40. */
TEST(iter_prefetches_the_bytes_its_bindings_read)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_read(env);
    lar_iter *it;
    CHECK_OK(lar_iter_open(txn, p.cls, &it));
    CHECK(it->ahead_whole); /* nothing bound: whole rows */
    double score;
    CHECK_OK(lar_iter_bind_double(it, p.score, &score));
    CHECK(!it->ahead_whole && !it->ahead_tail);
    CHECK_EQ(it->ahead_first, 24);
    CHECK_EQ(it->ahead_last, 31);
    lar_value age, name;
    CHECK_OK(lar_iter_bind_value(it, p.age, &age)); /* decoded: its null bit is read */
    CHECK_EQ(it->ahead_first, 16);
    CHECK_EQ(it->ahead_last, 40);
    uint64_t stamp;
    CHECK_OK(lar_iter_bind_stamp(it, &stamp));
    CHECK_EQ(it->ahead_last, 40);
    CHECK_OK(lar_iter_bind_value(it, p.age, NULL));
    CHECK_EQ(it->ahead_first, 24);
    CHECK_EQ(it->ahead_last, 39); /* score and the stamp */
    CHECK(!it->ahead_tail);
    CHECK_OK(lar_iter_bind_value(it, p.name, &name)); /* its bytes are in the variable area */
    CHECK(it->ahead_tail);
    CHECK_EQ(it->ahead_first, 8);
    CHECK_OK(lar_iter_bind_value(it, p.name, NULL));
    CHECK_OK(lar_iter_bind_double(it, p.score, NULL));
    CHECK_OK(lar_iter_bind_stamp(it, NULL));
    CHECK(it->ahead_whole);
    lar_iter_close(it);
    commit_txn(txn);
    close_env(env);
}
