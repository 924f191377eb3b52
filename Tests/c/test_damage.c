/* Damaged files: truncated, or with damaged LMDB header (meta) pages. Each must be
 * refused with LAR_ECORRUPT (LAR_ENOTLARDER once LMDB's magic is gone), left as it
 * was, and never crash the process (a crash fails the test: each runs in a child).
 *
 * White-box: the offsets below are LMDB 0.9's meta page layout on 64-bit machines
 * (a 16-byte page header, then MDB_meta); good_file() checks them on a real file. */
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#define META_MAGIC_AT 16
#define META_PAGE_SIZE_AT 40 /* mm_dbs[FREE_DBI].md_pad */
#define META_MAIN_ROOT_AT 128
#define META_LAST_PAGE_AT 136
#define LMDB_MAGIC 0xBEEFC0DEu

typedef struct file_bytes {
    uint8_t *data;
    size_t size;
    uint32_t page_size;
} file_bytes;

static int create_people(lar_txn *txn, void *context)
{
    const person_schema *p = context;
    char name[200];
    for (int64_t id = 1; id <= 300; id++) {
        snprintf(name, sizeof name, "person %lld, with a name long enough to need pages of its own",
                 (long long)id);
        lar_value values[4];
        values[p->id] = val_int(id);
        values[p->name] = val_str(name);
        values[p->age] = val_int(id % 90);
        values[p->score] = val_double((double)id / 4);
        int err = lar_obj_create(txn, p->cls, values, 4, NULL);
        if (err) return err;
    }
    return LAR_OK;
}

/* A Larder file of many pages, read back whole. */
static file_bytes good_file(void)
{
    const char *path = test_db_path("good");
    lar_env *env = open_env_with(path, (size_t)16 << 20, LAR_ENV_NOSYNC);
    person_schema p = person_setup(env);
    write_retrying(env, create_people, &p);
    close_env(env);
    file_bytes f;
    f.data = file_read(path, &f.size);
    uint32_t magic;
    memcpy(&magic, f.data + META_MAGIC_AT, sizeof magic);
    memcpy(&f.page_size, f.data + META_PAGE_SIZE_AT, sizeof f.page_size);
    CHECK_EQ(magic, LMDB_MAGIC); /* the layout this test assumes */
    CHECK_EQ(f.page_size, sysconf(_SC_PAGESIZE));
    CHECK(f.size >= 8 * (size_t)f.page_size);
    return f;
}

/* Writes size bytes of f as a file of its own and checks that opening it, writable or
 * read-only, fails with code and leaves its bytes as they were. */
static void check_refused(const uint8_t *bytes, size_t size, int code, const char *what)
{
    const char *path = test_db_path("damaged");
    file_write(path, bytes, size);
    lar_env *env = NULL;
    CHECK_RC(lar_env_open(path, NULL, &env), code);
    CHECK(env == NULL);
    CHECK_MSG_HAS(what);
    CHECK_RC(lar_env_open(path, &(lar_env_options){LAR_ENV_OPTIONS_VERSION, 1 << 20, LAR_ENV_READONLY}, &env),
             code);
    size_t after_size;
    uint8_t *after = file_read(path, &after_size);
    CHECK_EQ(after_size, size);
    CHECK_MEM(after, bytes, size);
    free(after);
}

static void put_u32(uint8_t *at, uint32_t value)
{
    memcpy(at, &value, sizeof value);
}

static void put_u64(uint8_t *at, uint64_t value)
{
    memcpy(at, &value, sizeof value);
}

TEST(damage_truncated_files_are_refused)
{
    file_bytes f = good_file();
    size_t page = f.page_size;
    /* Cut inside the first meta: no LMDB header left to trust. */
    check_refused(f.data, 100, LAR_ENOTLARDER, "not a Larder database");
    /* Cut after the first meta, before or inside the second. */
    check_refused(f.data, page, LAR_ECORRUPT, "truncated");
    check_refused(f.data, page + 100, LAR_ECORRUPT, "truncated");
    /* Both metas whole, data pages missing: at page boundaries and mid-page. */
    size_t lengths[] = {2 * page, 2 * page + 1, 3 * page + page / 2, f.size / 2, f.size / 2 + 7,
                        f.size - page, f.size - page / 2, f.size - 1};
    for (size_t i = 0; i < COUNT_OF(lengths); i++) check_refused(f.data, lengths[i], LAR_ECORRUPT, "truncated");
    free(f.data);
}

TEST(damage_bad_page_sizes_are_refused)
{
    file_bytes f = good_file();
    uint32_t bad[] = {0, 1, 1000, 4095, 4097, 6144, 65536, 1u << 31, 0xFFFFFFFFu};
    for (size_t i = 0; i < COUNT_OF(bad); i++) {
        uint8_t *copy = malloc(f.size);
        memcpy(copy, f.data, f.size);
        put_u32(copy + META_PAGE_SIZE_AT, bad[i]);
        check_refused(copy, f.size, LAR_ECORRUPT, "page size");
        free(copy);
    }
    /* The second meta's page size disagreeing with the first's. */
    uint8_t *copy = malloc(f.size);
    memcpy(copy, f.data, f.size);
    put_u32(copy + f.page_size + META_PAGE_SIZE_AT, f.page_size * 2);
    check_refused(copy, f.size, LAR_ECORRUPT, "page size");
    free(copy);
    free(f.data);
}

/* The last page each meta names, damaged in both (and in one: LMDB may read either). */
TEST(damage_last_page_beyond_the_file_is_refused)
{
    file_bytes f = good_file();
    size_t pages = f.size / f.page_size;
    uint64_t bad[] = {pages, pages + 1, (uint64_t)1 << 40, UINT64_MAX / 2, UINT64_MAX - 1, UINT64_MAX, 0};
    for (size_t i = 0; i < COUNT_OF(bad); i++) {
        for (int metas = 1; metas <= 3; metas++) { /* first, second, both */
            uint8_t *copy = malloc(f.size);
            memcpy(copy, f.data, f.size);
            if (metas & 1) put_u64(copy + META_LAST_PAGE_AT, bad[i]);
            if (metas & 2) put_u64(copy + f.page_size + META_LAST_PAGE_AT, bad[i]);
            check_refused(copy, f.size, LAR_ECORRUPT, "damaged");
            free(copy);
        }
    }
    free(f.data);
}

TEST(damage_root_page_outside_the_file_is_refused)
{
    file_bytes f = good_file();
    uint64_t bad[] = {0, 1, f.size / f.page_size, (uint64_t)1 << 50};
    for (size_t i = 0; i < COUNT_OF(bad); i++) {
        uint8_t *copy = malloc(f.size);
        memcpy(copy, f.data, f.size);
        put_u64(copy + META_MAIN_ROOT_AT, bad[i]);
        put_u64(copy + f.page_size + META_MAIN_ROOT_AT, bad[i]);
        check_refused(copy, f.size, LAR_ECORRUPT, "root page");
        free(copy);
    }
    free(f.data);
}

TEST(damage_second_meta_without_magic_is_refused)
{
    file_bytes f = good_file();
    f.data[f.page_size + META_MAGIC_AT] ^= 0xFF;
    check_refused(f.data, f.size, LAR_ECORRUPT, "second header page");
    free(f.data);
}

/* The check reads; it never refuses a sound file, even one that grew since it was made. */
TEST(damage_check_accepts_sound_files_of_every_size)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env_with(path, (size_t)16 << 20, LAR_ENV_NOSYNC);
    person_schema p = person_setup(env);
    close_env(env);
    for (int round = 0; round < 5; round++) {
        env = open_env_with(path, (size_t)16 << 20, LAR_ENV_NOSYNC);
        lar_txn *txn = begin_write(env);
        for (int64_t i = 0; i < 200; i++) person_create(txn, &p, round * 1000 + i, "someone", 30, 1.5);
        commit_txn(txn);
        close_env(env);
    }
    env = open_env(path);
    lar_txn *txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 1000);
    commit_txn(txn);
    close_env(env);
}

/* Opens path read-only and reads every object; any result is fine but a crash. */
static void open_and_read_everything(const char *path)
{
    lar_env *env = NULL;
    if (lar_env_open(path, &(lar_env_options){LAR_ENV_OPTIONS_VERSION, 1 << 20, LAR_ENV_READONLY}, &env))
        return;
    lar_env_info info;
    lar_txn *txn = NULL;
    if (lar_env_info_get(env, &info) == LAR_OK && lar_txn_begin(env, LAR_TXN_READ, &txn) == LAR_OK) {
        for (lar_class cls = 0; cls < info.class_count; cls++) {
            lar_iter *iter;
            if (lar_iter_open(txn, cls, &iter)) continue;
            lar_obj obj;
            lar_value values[8];
            while (lar_iter_next_all(iter, &obj, values, 4) == LAR_OK) continue;
            lar_iter_close(iter);
        }
        lar_txn_free(txn);
    }
    lar_env_close(env);
}

/* Every 8-byte field of the metas (either, or both) set to values LMDB would trust:
 * opening and reading never crashes (it did inside LMDB with a zero page size, and
 * with page numbers past the end). A crash fails the test, which runs in a process
 * of its own. */
TEST(damage_any_meta_field_never_crashes)
{
    file_bytes f = good_file();
    const char *path = test_db_path("damaged");
    uint64_t values[] = {0, 1, 3, UINT64_MAX};
    int cases = 0;
    for (size_t at = 16; at < 152; at += 8) {
        for (size_t v = 0; v < COUNT_OF(values); v++) {
            for (int metas = 1; metas <= 3; metas++) {
                uint8_t *copy = malloc(f.size);
                memcpy(copy, f.data, f.size);
                if (metas & 1) put_u64(copy + at, values[v]);
                if (metas & 2) put_u64(copy + f.page_size + at, values[v]);
                file_write(path, copy, f.size);
                free(copy);
                open_and_read_everything(path);
                cases++;
            }
        }
    }
    CHECK_EQ(cases, 17 * 4 * 3);
    free(f.data);
}

/* The check reads the metas before the file's size, and confirms a verdict by reading
 * again: a file that grows with every commit of another process is never refused. The
 * races this guards against are narrow (microseconds per commit), so this test catches
 * gross mistakes, not every one: reading the size first passed it three runs in three. */
TEST(damage_check_never_refuses_a_file_another_process_is_writing)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env_with(path, (size_t)64 << 20, LAR_ENV_NOSYNC);
    person_schema p = person_setup(env);
    close_env(env);
    int stop[2];
    CHECK(pipe(stop) == 0);
    pid_t pid = test_fork();
    if (pid == 0) {
        lar_env *writer = open_env_with(path, (size_t)64 << 20, LAR_ENV_NOSYNC);
        for (int64_t id = 1; !pipe_readable(stop[0], 0); id++) {
            lar_txn *txn = begin_write(writer);
            person_create(txn, &p, id, "a name that fills pages as the file grows", id, 1);
            commit_txn(txn);
        }
        close_env(writer);
        child_exit_ok();
    }
    for (int i = 0; i < 300; i++) {
        lar_env *reader = open_env_with(path, (size_t)64 << 20, LAR_ENV_READONLY);
        close_env(reader);
    }
    pipe_send(stop[1], 'S');
    wait_child_ok(pid, 20000);
    close(stop[0]);
    close(stop[1]);
}

/* White-box: LMDB keeps each table's record (48 bytes: flags, depth, page counts, entries,
 * root) in its main database, a leaf node of an 8-byte header (data size, flags, key size)
 * then the key and the record. Sets the root of every copy of table name's record. */
static int set_table_roots(uint8_t *bytes, size_t size, const char *name, uint64_t root)
{
    size_t name_size = strlen(name);
    uint8_t header[8] = {48, 0, 0, 0, 0x02 /* F_SUBDATA */, 0, (uint8_t)name_size, 0};
    int found = 0;
    for (size_t at = 0; at + sizeof header + name_size + 48 <= size; at++) {
        if (memcmp(bytes + at, header, sizeof header) || memcmp(bytes + at + 8, name, name_size)) continue;
        put_u64(bytes + at + 8 + name_size + 40, root);
        found++;
    }
    return found;
}

/* A table whose root is a header page failed an LMDB assertion (abort); one past the
 * file's pages read past its end (SIGBUS). */
TEST(damage_table_root_outside_the_file_is_refused)
{
    file_bytes f = good_file();
    const char *tables[] = {"larder", "pk", "c0"};
    uint64_t bad[] = {0, 1, f.size / f.page_size + 5};
    for (size_t t = 0; t < COUNT_OF(tables); t++) {
        for (size_t i = 0; i < COUNT_OF(bad); i++) {
            uint8_t *copy = malloc(f.size);
            memcpy(copy, f.data, f.size);
            CHECK(set_table_roots(copy, f.size, tables[t], bad[i]) > 0);
            check_refused(copy, f.size, LAR_ECORRUPT, tables[t]);
            free(copy);
        }
    }
    free(f.data);
}
