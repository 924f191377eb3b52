/* lar_env_copy (CCore/kv/copy.c): a compacted copy of the newest committed version,
 * which opens as a Larder file; an existing file is never written over; every error. */
#include "test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t file_size(const char *path)
{
    struct stat st;
    CHECK(stat(path, &st) == 0);
    return (uint64_t)st.st_size;
}

/* 2,000 dogs with a 500-byte name each, then all but the first 100 deleted: free pages. */
static lar_env *thinned_dogs(const char *path, lar_class *dog)
{
    lar_env *env = open_env(path);
    *dog = query_test_schema(env, LAR_CLASS_EMBEDDED);
    char name[501];
    memset(name, 'n', 500);
    name[500] = '\0';
    lar_txn *txn = begin_write(env);
    lar_obj dogs[2000];
    for (int i = 0; i < 2000; i++) {
        CHECK_OK(lar_obj_create(txn, *dog, NULL, 0, &dogs[i]));
        lar_value v = val_str(name), age = val_int(i);
        CHECK_OK(lar_obj_set(txn, dogs[i], prop_id(env, *dog, "name"), &v));
        CHECK_OK(lar_obj_set(txn, dogs[i], prop_id(env, *dog, "age"), &age));
    }
    commit_txn(txn);
    txn = begin_write(env);
    for (int i = 100; i < 2000; i++) CHECK_OK(lar_obj_delete(txn, dogs[i]));
    commit_txn(txn);
    return env;
}

TEST(env_copy_is_compacted_and_opens)
{
    const char *path = test_db_path(NULL), *copy = test_db_path("copy");
    lar_class dog;
    lar_env *env = thinned_dogs(path, &dog);
    /* An uncommitted write of this thread is not copied, and does not block the copy. */
    lar_txn *write = begin_write(env);
    lar_obj extra;
    CHECK_OK(lar_obj_create(write, dog, NULL, 0, &extra));
    CHECK_OK(lar_env_copy(env, copy));
    CHECK_OK(lar_txn_abort(write));
    lar_txn_free(write);
    CHECK(file_size(copy) < file_size(path) / 2);
    close_env(env);

    lar_env *copied = open_env(copy);
    lar_txn *txn = begin_read(copied);
    lar_class copied_dog;
    CHECK_OK(lar_class_find(copied, "Dog", &copied_dog));
    CHECK_EQ(count_objects(txn, copied_dog), 100);
    lar_query *q;
    CHECK_OK(lar_query_parse(copied, copied_dog, "age >= 50", &q));
    lar_results *r;
    CHECK_OK(lar_query_run(txn, q, &r));
    size_t n;
    CHECK_OK(lar_results_count(r, &n));
    CHECK_EQ(n, 50);
    lar_results_free(r);
    lar_query_free(q);
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    txn = begin_write(copied); /* and takes writes */
    CHECK_OK(lar_obj_create(txn, copied_dog, NULL, 0, &extra));
    commit_txn(txn);
    close_env(copied);
}

TEST(env_copy_never_writes_over_a_file)
{
    const char *path = test_db_path(NULL), *existing = test_data_path("env_copy_existing.bin");
    file_write(existing, "keep", 4);
    lar_env *env = open_env(path);
    CHECK_RC(lar_env_copy(env, existing), LAR_EEXISTS);
    CHECK_MSG_HAS("already exists");
    size_t size;
    uint8_t *bytes = file_read(existing, &size);
    CHECK(size == 4 && memcmp(bytes, "keep", 4) == 0);
    free(bytes);
    CHECK_RC(lar_env_copy(env, path), LAR_EEXISTS); /* itself */
    close_env(env);
    remove(existing);
}

TEST(env_copy_errors)
{
    lar_env *env = open_env(test_db_path(NULL));
    CHECK_RC(lar_env_copy(NULL, "x"), LAR_EINVAL);
    CHECK_RC(lar_env_copy(env, NULL), LAR_EINVAL);
    CHECK_RC(lar_env_copy(env, ""), LAR_EINVAL);
    CHECK_MSG_HAS("empty");
    const char *missing_dir = test_data_path("no-such-dir/copy.larder");
    CHECK_RC(lar_env_copy(env, missing_dir), LAR_EIO);
    CHECK(!file_exists(missing_dir));
    close_env(env);
}

TEST(env_copy_of_a_read_only_environment)
{
    const char *path = test_db_path(NULL), *copy = test_db_path("copy");
    lar_class dog;
    close_env(thinned_dogs(path, &dog));
    lar_env *env = open_env_with(path, 0, LAR_ENV_READONLY);
    CHECK_OK(lar_env_copy(env, copy));
    close_env(env);
    env = open_env(copy);
    lar_txn *txn = begin_read(env);
    CHECK_EQ(count_objects(txn, dog), 100);
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    close_env(env);
}
