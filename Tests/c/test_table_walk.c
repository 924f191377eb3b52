/* Scans read LMDB's leaf pages in place in read transactions (kv/table_walk.c): the
 * same rows in the same order as a write's cursor steps give, across many pages, with
 * rows on overflow pages between them, and after deletes leave pages part empty. */
#include "test.h"

#include <stdlib.h>

static lar_class blob_schema(lar_env *env)
{
    lar_property_def props[] = {PROP("n", LAR_TYPE_INT, 0), PROP("pick", LAR_TYPE_BOOL, 0),
                                PROP("blob", LAR_TYPE_BINARY, 0)};
    lar_class_def classes[] = {CLASS_DEF("Blob", props)};
    CHECK_OK(lar_schema_apply(env, classes, 1, 1));
    return class_id(env, "Blob");
}

/* The count, the sum of n and of the blobs' sizes of the objects text matches in txn,
 * checking that the result is in key order and that a fold of n agrees. */
static void run(lar_env *env, lar_txn *txn, lar_class cls, const char *text, int64_t out[3])
{
    lar_query *q;
    CHECK_OK(lar_query_parse(env, cls, text, &q));
    lar_results *r;
    CHECK_OK(lar_query_run(txn, q, &r));
    size_t count;
    CHECK_OK(lar_results_count(r, &count));
    out[0] = (int64_t)count;
    out[1] = out[2] = 0;
    lar_objkey last = 0;
    for (size_t i = 0; i < count; i++) {
        lar_obj obj;
        CHECK_OK(lar_results_get(r, i, &obj));
        CHECK(obj.key > last);
        last = obj.key;
        out[1] += get_value(txn, obj, 0).as.integer;
        lar_value blob = get_value(txn, obj, 2);
        for (size_t b = 0; b < blob.as.binary.size; b++) CHECK_EQ(((const uint8_t *)blob.as.binary.data)[b], (uint8_t)b);
        out[2] += (int64_t)blob.as.binary.size;
    }
    lar_value sum;
    CHECK_OK(lar_query_run_aggregate(txn, q, "n", LAR_AGGREGATE_SUM, &sum));
    CHECK_EQ(sum.as.integer, out[1]);
    lar_results_free(r);
    lar_query_free(q);
}

TEST(table_walk_reads_pages_in_place_as_the_cursor_would)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class cls = blob_schema(env);
    static uint8_t big[6000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)i;
    lar_txn *txn = begin_write(env);
    lar_obj objs[3000];
    int64_t want[3] = {0, 0, 0};
    for (int i = 0; i < 3000; i++) {
        size_t size = i % 97 == 0 ? sizeof big - (size_t)i : (size_t)(i % 13); /* some rows on overflow pages */
        lar_value v[] = {val_int(i), val_bool(i % 3 == 0), val_bin(big, size)};
        CHECK_OK(lar_obj_create(txn, cls, v, 3, &objs[i]));
        if (i % 5 == 0 || i % 3 != 0) continue;
        want[0]++;
        want[1] += i;
        want[2] += (int64_t)size;
    }
    for (int i = 0; i < 3000; i += 5) CHECK_OK(lar_obj_delete(txn, objs[i])); /* pages part empty */
    int64_t in_write[3], in_read[3];
    run(env, txn, cls, "pick == true", in_write); /* a write's cursor steps */
    commit_txn(txn);
    txn = begin_read(env);
    run(env, txn, cls, "pick == true", in_read); /* read in place */
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(in_write[i], want[i]);
        CHECK_EQ(in_read[i], want[i]);
    }
    int64_t all[3];
    run(env, txn, cls, "TRUEPREDICATE", all);
    CHECK_EQ(all[0], 3000 - 600);
    lar_txn_free(txn);
    close_env(env);
}

/* The n of every object an iterator walks in txn, by single steps and batches in turn,
 * seeking to key seek_to (0: none) once 100 objects are read; *sought: how many were read then. */
static size_t walk_all(lar_txn *txn, lar_class cls, lar_objkey seek_to, int64_t *out, size_t room, size_t *sought)
{
    lar_iter *it;
    CHECK_OK(lar_iter_open(txn, cls, &it));
    int64_t n[8];
    CHECK_OK(lar_iter_bind_int(it, 0, &n[0]));
    size_t count = 0;
    lar_obj obj;
    for (;;) {
        if (count >= 100 && seek_to) {
            CHECK_OK(lar_iter_seek(it, seek_to));
            seek_to = 0;
            *sought = count;
        }
        if (count % 3 == 0) {
            int rc = lar_iter_next(it, &obj);
            if (rc == LAR_ENOTFOUND) break;
            CHECK_OK(rc);
            CHECK(count < room);
            out[count++] = n[0];
        } else {
            size_t got;
            int rc = lar_iter_next_batch(it, NULL, 8, sizeof(int64_t), &got);
            if (rc == LAR_ENOTFOUND) break;
            CHECK_OK(rc);
            for (size_t i = 0; i < got; i++) {
                CHECK(count < room);
                out[count++] = n[i];
            }
        }
    }
    lar_iter_close(it);
    return count;
}

TEST(table_walk_iterators_read_pages_in_place_as_the_cursor_would)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_class cls = blob_schema(env);
    static uint8_t big[5000];
    lar_txn *txn = begin_write(env);
    lar_obj objs[2000];
    for (int i = 0; i < 2000; i++) {
        lar_value v[] = {val_int(i), val_bool(0), val_bin(big, i % 89 == 0 ? sizeof big : (size_t)(i % 7))};
        CHECK_OK(lar_obj_create(txn, cls, v, 3, &objs[i]));
    }
    for (int i = 0; i < 2000; i += 4) CHECK_OK(lar_obj_delete(txn, objs[i]));
    static int64_t in_write[2000], in_read[2000];
    size_t sought_in_write = 0, sought = 0;
    size_t written = walk_all(txn, cls, objs[1500].key, in_write, 2000, &sought_in_write);
    commit_txn(txn);
    txn = begin_read(env);
    size_t read = walk_all(txn, cls, objs[1500].key, in_read, 2000, &sought);
    CHECK_EQ(read, written);
    CHECK_EQ(sought, sought_in_write);
    CHECK_MEM(in_read, in_write, read * sizeof *in_read);
    /* The live objects (every fourth is gone) up to the seek, then from object 1500 on. */
    size_t k = 0;
    for (int i = 1; i < 2000 && k < sought; i++)
        if (i % 4) CHECK_EQ(in_read[k++], i);
    for (int i = 1500; i < 2000; i++)
        if (i % 4) CHECK_EQ(in_read[k++], i);
    CHECK_EQ(read, k);
    CHECK_EQ(walk_all(txn, cls, 0, in_read, 2000, &sought), 1500);
    lar_txn_free(txn);
    close_env(env);
}

/* A leaf node of the file whose key size is damaged: LMDB hands back a key of that size
 * and a row pointer past the file's end, which the walk must not read a page at (a read
 * past the end of a mapped file is SIGBUS). The scan reports the damage instead. */
TEST(table_walk_refuses_a_node_whose_key_size_is_damaged)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    lar_class cls = blob_schema(env);
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < 3; i++) {
        lar_value v[] = {val_int(i), val_bool(1), val_bin("WALKMARK", 8)};
        CHECK_OK(lar_obj_create(txn, cls, v, 3, NULL));
    }
    commit_txn(txn);
    close_env(env);

    size_t size;
    uint8_t *file = file_read(path, &size);
    bool damaged = false;
    for (size_t page = 0; page + 4096 <= size && !damaged; page += 4096) {
        uint16_t flags, first;
        memcpy(&flags, file + page + 10, 2);
        if (flags != 0x02 || !memmem(file + page, 4096, "WALKMARK", 8)) continue; /* a leaf of our rows */
        memcpy(&first, file + page + 16, 2);
        uint16_t huge = 0xFFFF;
        memcpy(file + page + first + 6, &huge, 2); /* the first node's key size */
        damaged = true;
    }
    CHECK(damaged);
    file_write(path, file, size);
    free(file);

    env = open_env(path);
    txn = begin_read(env);
    lar_query *q;
    CHECK_OK(lar_query_parse(env, cls, "TRUEPREDICATE", &q));
    lar_results *r;
    CHECK_RC(lar_query_run(txn, q, &r), LAR_ECORRUPT);
    lar_query_free(q);
    lar_iter *it;
    CHECK_OK(lar_iter_open(txn, cls, &it));
    lar_obj obj;
    CHECK_RC(lar_iter_next(it, &obj), LAR_ECORRUPT);
    lar_iter_close(it);
    lar_txn_free(txn);
    close_env(env);
}
