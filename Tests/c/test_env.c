/* Environments: opening, sharing, refusing foreign files, files whose first open was cut
 * short, read-only mode (also without a lock file), info, closing. */
#include "test.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <lmdb.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

TEST(env_options_init_fills_defaults)
{
    lar_env_options options;
    memset(&options, 0xFF, sizeof options);
    CHECK_OK(lar_env_options_init(&options));
    CHECK_EQ(options.version, LAR_ENV_OPTIONS_VERSION);
    CHECK_EQ(options.initial_map_size, (size_t)1 << 40); /* "Default: 1 TiB of address space" */
    CHECK_EQ(options.flags, 0);
    CHECK_RC(lar_env_options_init(NULL), LAR_EINVAL);
}

TEST(env_open_creates_file_and_lock_file)
{
    const char *path = test_db_path(NULL);
    char lock[4200];
    snprintf(lock, sizeof lock, "%s-lock", path);
    CHECK(!file_exists(path));
    lar_env *env = open_env(path);
    CHECK(file_exists(path));
    CHECK(file_exists(lock)); /* "together with its lock file <path>-lock" */
    close_env(env);
    CHECK(file_exists(path));

    /* Reopening the file it created works. */
    env = open_env(path);
    close_env(env);
}

TEST(env_open_with_null_options_uses_defaults)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    lar_env_info info = env_info(env);
    CHECK_EQ(info.map_size, (size_t)1 << 40);
    close_env(env);
    /* "address space, not disk": the new file holds its few pages only. */
    struct stat st;
    CHECK(stat(path, &st) == 0);
    CHECK(st.st_size < (off_t)1 << 20);
}

static int create_one_person(lar_txn *txn, void *context)
{
    const person_schema *p = context;
    lar_value values[4];
    values[p->id] = val_int(1);
    values[p->name] = val_str("one");
    values[p->age] = val_int(1);
    values[p->score] = val_double(1);
    return lar_obj_create(txn, p->cls, values, 4, NULL);
}

/* A map too small for even the new file's setup grows the way a write's does (under
 * 16 KiB, the file used to be left as an LMDB file without Larder's metadata). */
TEST(env_open_a_new_file_with_a_map_smaller_than_its_setup)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env_with(path, 4096, LAR_ENV_NOSYNC);
    person_schema p = person_setup(env); /* its own write: it grows the map and tries again */
    write_retrying(env, create_one_person, &p);
    close_env(env);
    env = open_env_with(path, 4096, 0);
    p = person_lookup(env);
    lar_txn *txn = begin_read(env);
    CHECK_VALUE(get_value(txn, person_find(txn, &p, 1), p.name), val_str("one"));
    commit_txn(txn);
    close_env(env);
}

TEST(env_open_honours_initial_map_size)
{
    lar_env *env = open_env_with(test_db_path(NULL), (size_t)4 << 20, 0);
    CHECK_EQ(env_info(env).map_size, (size_t)4 << 20);
    close_env(env);
}

TEST(env_open_refuses_bad_options_version)
{
    const char *path = test_db_path(NULL);
    lar_env_options options;
    CHECK_OK(lar_env_options_init(&options));
    lar_env *env = NULL;
    options.version = 0;
    CHECK_RC(lar_env_open(path, &options, &env), LAR_EINVAL);
    options.version = LAR_ENV_OPTIONS_VERSION + 1;
    CHECK_RC(lar_env_open(path, &options, &env), LAR_EINVAL);
    CHECK(env == NULL);
}

TEST(env_open_refuses_unknown_flags)
{
    const char *path = test_db_path(NULL);
    lar_env_options options;
    CHECK_OK(lar_env_options_init(&options));
    lar_env *env = NULL;
    options.flags = 0x4u;
    CHECK_RC(lar_env_open(path, &options, &env), LAR_EINVAL);
    options.flags = LAR_ENV_NOSYNC | 0x80000000u;
    CHECK_RC(lar_env_open(path, &options, &env), LAR_EINVAL);
    CHECK(env == NULL);
}

TEST(env_open_null_arguments)
{
    lar_env *env = NULL;
    CHECK_RC(lar_env_open(NULL, NULL, &env), LAR_EINVAL);
    CHECK_RC(lar_env_open(test_db_path(NULL), NULL, NULL), LAR_EINVAL);
    CHECK(env == NULL);
}

TEST(env_close_null_is_ignored)
{
    CHECK_OK(lar_env_close(NULL));
}

/* "Opening one path twice in a process returns the same environment, reference counted." */
TEST(env_open_twice_shares_one_environment)
{
    const char *path = test_db_path(NULL);
    lar_env *first = open_env(path);
    person_schema p = person_setup(first);

    /* Another spelling of the same file, and options that must be ignored. */
    char other_spelling[4200];
    snprintf(other_spelling, sizeof other_spelling, "%s/./%s", test_data_dir(), strrchr(path, '/') + 1);
    lar_env *second = open_env_with(other_spelling, (size_t)1 << 20, LAR_ENV_READONLY);
    CHECK(second == first);

    /* Both handles work: write through one, read through the other. */
    lar_txn *txn = begin_write(second); /* writable: the READONLY option was ignored */
    person_create(txn, &p, 1, "Ada", 36, 9.5);
    commit_txn(txn);
    txn = begin_read(first);
    CHECK_EQ(count_objects(txn, p.cls), 1);
    commit_txn(txn);

    /* Closing one reference keeps the other usable, for reads and writes. */
    close_env(first);
    txn = begin_write(second);
    person_create(txn, &p, 2, "Grace", 45, 8.25);
    commit_txn(txn);
    txn = begin_read(second);
    CHECK_EQ(count_objects(txn, p.cls), 2);
    CHECK_VALUE(get_value(txn, person_find(txn, &p, 1), p.name), val_str("Ada"));
    commit_txn(txn);
    close_env(second);

    /* After the last close the file opens afresh, with everything stored. */
    lar_env *again = open_env(path);
    txn = begin_read(again);
    CHECK_EQ(count_objects(txn, person_lookup(again).cls), 2);
    commit_txn(txn);
    close_env(again);
}

/* Checks that opening path fails with code and leaves its bytes as they were. */
static void check_refused_untouched(const char *path, int code)
{
    size_t before_size, after_size;
    uint8_t *before = file_read(path, &before_size);
    lar_env *env = NULL;
    CHECK_RC(lar_env_open(path, NULL, &env), code);
    CHECK(env == NULL);
    /* A read-only open must refuse it too. */
    lar_env_options options;
    CHECK_OK(lar_env_options_init(&options));
    options.flags = LAR_ENV_READONLY;
    CHECK_RC(lar_env_open(path, &options, &env), code);
    uint8_t *after = file_read(path, &after_size);
    CHECK_EQ(after_size, before_size);
    CHECK_MEM(after, before, before_size);
    free(before);
    free(after);
}

TEST(env_refuses_text_file_and_leaves_it_untouched)
{
    const char *path = test_db_path(NULL);
    const char text[] = "This is a plain text file, not a database.\nIt has two lines.\n";
    file_write(path, text, sizeof text - 1);
    check_refused_untouched(path, LAR_ENOTLARDER);
}

TEST(env_refuses_short_and_binary_files)
{
    /* Shorter than any database header. */
    const char *tiny = test_db_path("tiny");
    file_write(tiny, "hi", 2);
    check_refused_untouched(tiny, LAR_ENOTLARDER);

    /* Page-sized garbage. */
    const char *junk = test_db_path("junk");
    uint8_t bytes[8192];
    for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (uint8_t)(i * 131 + 7);
    file_write(junk, bytes, sizeof bytes);
    check_refused_untouched(junk, LAR_ENOTLARDER);
}

/* Writes an LMDB environment at path, as another program would; with a record when with_data. */
static void write_plain_lmdb(const char *path, bool with_data)
{
    MDB_env *mdb;
    MDB_txn *txn;
    MDB_dbi dbi;
    CHECK(mdb_env_create(&mdb) == 0);
    CHECK(mdb_env_set_mapsize(mdb, (size_t)1 << 20) == 0);
    CHECK(mdb_env_open(mdb, path, MDB_NOSUBDIR, 0644) == 0);
    CHECK(mdb_txn_begin(mdb, NULL, 0, &txn) == 0);
    CHECK(mdb_dbi_open(txn, NULL, 0, &dbi) == 0);
    if (with_data) {
        MDB_val key = {5, "hello"}, data = {5, "world"};
        CHECK(mdb_put(txn, dbi, &key, &data, 0) == 0);
    }
    CHECK(mdb_txn_commit(txn) == 0);
    mdb_env_close(mdb);
}

TEST(env_refuses_lmdb_file_without_larder_metadata)
{
    const char *path = test_db_path(NULL);
    write_plain_lmdb(path, true);
    check_refused_untouched(path, LAR_ENOTLARDER);

    /* The other program's data is still there. */
    MDB_env *mdb;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_val key = {5, "hello"}, data;
    CHECK(mdb_env_create(&mdb) == 0);
    CHECK(mdb_env_open(mdb, path, MDB_NOSUBDIR | MDB_RDONLY, 0644) == 0);
    CHECK(mdb_txn_begin(mdb, NULL, MDB_RDONLY, &txn) == 0);
    CHECK(mdb_dbi_open(txn, NULL, 0, &dbi) == 0);
    CHECK(mdb_get(txn, dbi, &key, &data) == 0);
    CHECK(data.mv_size == 5 && memcmp(data.mv_data, "world", 5) == 0);
    mdb_txn_abort(txn);
    mdb_env_close(mdb);
}

/* LMDB's header without Larder's metadata: what a process killed during a file's first
 * open leaves (LMDB writes its header before Larder's setup commits). */
static void write_lmdb_header_only(const char *path)
{
    MDB_env *mdb;
    CHECK(mdb_env_create(&mdb) == 0);
    CHECK(mdb_env_open(mdb, path, MDB_NOSUBDIR, 0644) == 0);
    mdb_env_close(mdb);
}

static void check_usable_larder_file(const char *path, size_t initial_map_size)
{
    lar_env *env = open_env_with(path, initial_map_size, 0);
    person_schema p = person_setup(env);
    write_retrying(env, create_one_person, &p);
    close_env(env);
    env = open_env(path);
    p = person_lookup(env);
    lar_txn *txn = begin_read(env);
    CHECK_VALUE(get_value(txn, person_find(txn, &p, 1), p.name), val_str("one"));
    commit_txn(txn);
    close_env(env);
}

/* "An LMDB file whose main database is empty is new, whatever its size." */
TEST(env_open_sets_up_a_file_whose_first_open_was_cut_short)
{
    const char *path = test_db_path(NULL);
    write_lmdb_header_only(path);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size > 0);
    check_usable_larder_file(path, (size_t)1 << 20);
}

/* The same with a map smaller than the setup: it grows as every write's does. */
TEST(env_open_sets_up_a_cut_short_file_with_a_tiny_map)
{
    const char *path = test_db_path(NULL);
    write_lmdb_header_only(path);
    check_usable_larder_file(path, 4096);
}

/* A setup killed after LMDB wrote its header, by a real kill -9. */
TEST(env_open_sets_up_a_file_whose_creator_was_killed)
{
    const char *path = test_db_path(NULL);
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t pid = test_fork();
    if (pid == 0) {
        MDB_env *mdb;
        CHECK(mdb_env_create(&mdb) == 0);
        CHECK(mdb_env_open(mdb, path, MDB_NOSUBDIR, 0644) == 0);
        pipe_send(ready[1], 'H');
        for (;;) pause();
    }
    pipe_expect(ready[0], 'H', 20000);
    CHECK(kill(pid, SIGKILL) == 0);
    CHECK(waitpid(pid, NULL, 0) == pid);
    close(ready[0]);
    close(ready[1]);
    check_usable_larder_file(path, (size_t)1 << 20);
}

/* A kill can cut LMDB's first write short after the first of its two header pages. */
TEST(env_open_sets_up_a_file_whose_header_write_was_cut_short)
{
    const char *path = test_db_path(NULL);
    write_lmdb_header_only(path);
    CHECK(truncate(path, sysconf(_SC_PAGESIZE)) == 0);
    size_t size;
    uint8_t *before = file_read(path, &size);
    lar_env *env = NULL;
    CHECK_RC(lar_env_open(path, &(lar_env_options){LAR_ENV_OPTIONS_VERSION, 1 << 20, LAR_ENV_READONLY}, &env),
             LAR_ENOTLARDER);
    CHECK_MSG_HAS("never set up");
    size_t after_size;
    uint8_t *after = file_read(path, &after_size);
    CHECK_EQ(after_size, size);
    CHECK_MEM(after, before, size);
    free(before);
    free(after);
    check_usable_larder_file(path, (size_t)1 << 20);
}

/* White-box: a writable open holds a record lock on the file's first byte while it
 * creates and sets the file up. This test takes it, writes the first page of a
 * Larder file, and checks that a read-only open in another process waits for the rest. */
TEST(env_open_waits_for_another_process_creating_the_file)
{
    const char *model_path = test_db_path("model");
    lar_env *env = open_env(model_path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "Ada", 36, 9.5);
    commit_txn(txn);
    close_env(env);
    size_t size;
    uint8_t *bytes = file_read(model_path, &size);

    const char *path = test_db_path(NULL);
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    CHECK(fd >= 0);
    struct flock range = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
    CHECK(fcntl(fd, F_SETLK, &range) == 0);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    CHECK(pwrite(fd, bytes, page, 0) == (ssize_t)page);

    int opened[2];
    CHECK(pipe(opened) == 0);
    pid_t pid = test_fork();
    if (pid == 0) {
        lar_env *reader = open_env_with(path, (size_t)1 << 20, LAR_ENV_READONLY);
        pipe_send(opened[1], 'O');
        person_schema rp = person_lookup(reader);
        lar_txn *read = begin_read(reader);
        CHECK_VALUE(get_value(read, person_find(read, &rp, 1), rp.name), val_str("Ada"));
        commit_txn(read);
        close_env(reader);
        child_exit_ok();
    }
    CHECK(!pipe_readable(opened[0], 300)); /* waiting for the lock */
    CHECK(pwrite(fd, bytes + page, size - page, (off_t)page) == (ssize_t)(size - page));
    close(fd); /* releases the lock */
    pipe_expect(opened[0], 'O', 20000);
    wait_child_ok(pid, 20000);
    close(opened[0]);
    close(opened[1]);
    free(bytes);
}

/* Read-only, a file never set up cannot be: a clear refusal, and the file left as it was. */
TEST(env_readonly_open_of_a_file_never_set_up_is_refused)
{
    const char *path = test_db_path(NULL);
    write_lmdb_header_only(path);
    size_t before_size, after_size;
    uint8_t *before = file_read(path, &before_size);
    lar_env *env = NULL;
    CHECK_RC(lar_env_open(path, &(lar_env_options){LAR_ENV_OPTIONS_VERSION, 1 << 20, LAR_ENV_READONLY}, &env),
             LAR_ENOTLARDER);
    CHECK_MSG_HAS("never set up");
    CHECK(env == NULL);
    uint8_t *after = file_read(path, &after_size);
    CHECK_EQ(after_size, before_size);
    CHECK_MEM(after, before, before_size);
    free(before);
    free(after);

    /* An empty file too. */
    const char *empty = test_db_path("empty");
    file_write(empty, "", 0);
    CHECK_RC(lar_env_open(empty, &(lar_env_options){LAR_ENV_OPTIONS_VERSION, 1 << 20, LAR_ENV_READONLY}, &env),
             LAR_ENOTLARDER);
    CHECK_MSG_HAS("empty");
    struct stat st;
    CHECK(stat(empty, &st) == 0 && st.st_size == 0);
}

/* White-box: writes format into a new file where the library keeps it (the "format" record
 * of the "larder" table), since no public call makes a file of another format. */
static void write_format(const char *path, uint32_t format)
{
    lar_env *env = open_env(path);
    person_setup(env);
    close_env(env);

    MDB_env *mdb;
    MDB_txn *txn;
    MDB_dbi dbi;
    CHECK(mdb_env_create(&mdb) == 0);
    CHECK(mdb_env_set_maxdbs(mdb, 64) == 0);
    CHECK(mdb_env_open(mdb, path, MDB_NOSUBDIR, 0644) == 0);
    CHECK(mdb_txn_begin(mdb, NULL, 0, &txn) == 0);
    CHECK(mdb_dbi_open(txn, "larder", 0, &dbi) == 0);
    uint32_t stored;
    MDB_val key = {6, "format"}, data = {sizeof format, &format}, old;
    CHECK(mdb_get(txn, dbi, &key, &old) == 0 && old.mv_size == sizeof stored); /* the layout this assumes */
    memcpy(&stored, old.mv_data, sizeof stored);
    CHECK_EQ(stored, LARDER_FORMAT_VERSION);
    CHECK(mdb_put(txn, dbi, &key, &data, 0) == 0);
    CHECK(mdb_txn_commit(txn) == 0);
    mdb_env_close(mdb);
}

TEST(env_refuses_newer_format_and_leaves_it_untouched)
{
    const char *path = test_db_path(NULL);
    write_format(path, LARDER_FORMAT_VERSION + 1);
    check_refused_untouched(path, LAR_EVERSION);
}

/* Format 1 stored a set's elements one entry each; format 2 packs them into blocks; format 3
 * keys decimals among the numbers of sets of mixed values (format 2 ranked them apart),
 * keeps an embedded object's owner in its row (format 2: in the backlink table) and keys
 * the objects of a class with an int primary key by that key (format 2: a `pk` entry for
 * each). A file of an older format is refused, untouched, rather than misread. */
TEST(env_refuses_an_older_format_and_leaves_it_untouched)
{
    for (uint32_t older = 1; older < LARDER_FORMAT_VERSION; older++) {
        char suffix[16];
        snprintf(suffix, sizeof suffix, "format%u", older);
        const char *path = test_db_path(suffix);
        write_format(path, older);
        check_refused_untouched(path, LAR_EVERSION);
        lar_env *env;
        CHECK_RC(lar_env_open(path, NULL, &env), LAR_EVERSION);
        char expected[32];
        snprintf(expected, sizeof expected, "format version %u", older);
        CHECK_MSG_HAS(expected);
        CHECK_MSG_HAS("older");
    }
}

TEST(env_open_fails_when_the_file_cannot_be_created)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/no-such-directory/db.larder", test_data_dir());
    lar_env *env = NULL;
    CHECK_RC(lar_env_open(path, NULL, &env), LAR_EIO);
    CHECK(env == NULL);
}

TEST(env_open_of_a_directory_is_an_io_error)
{
    const char *path = test_db_path(NULL);
    CHECK(mkdir(path, 0755) == 0);
    lar_env *env = NULL;
    CHECK_RC(lar_env_open(path, NULL, &env), LAR_EIO);
    CHECK(env == NULL);
}

TEST(env_readonly_open_of_missing_file_fails)
{
    const char *path = test_db_path(NULL);
    lar_env_options options;
    CHECK_OK(lar_env_options_init(&options));
    options.flags = LAR_ENV_READONLY;
    lar_env *env = NULL;
    int rc = lar_env_open(path, &options, &env);
    CHECK(rc != LAR_OK);
    CHECK_EQ(lar_error_last()->code, rc);
    CHECK(env == NULL);
    CHECK(!file_exists(path)); /* "A missing file is created (unless LAR_ENV_READONLY)" */
    CHECK_RC(lar_env_open(path, &options, &env), LAR_EIO); /* "the file cannot be opened" */
}

TEST(env_readonly_reads_but_refuses_writes)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "Ada", 36, 9.5);
    commit_txn(txn);
    close_env(env);

    env = open_env_with(path, (size_t)64 << 20, LAR_ENV_READONLY);
    p = person_lookup(env);
    txn = begin_read(env);
    CHECK_VALUE(get_value(txn, person_find(txn, &p, 1), p.name), val_str("Ada"));
    commit_txn(txn);

    lar_txn *write = NULL;
    CHECK_RC(lar_txn_begin(env, LAR_TXN_WRITE, &write), LAR_EREADONLY);
    CHECK(write == NULL);
    lar_property_def props[] = {PROP("x", LAR_TYPE_INT, 0)};
    lar_class_def other = CLASS_DEF("Other", props);
    CHECK_RC(lar_schema_apply(env, &other, 1, 2), LAR_EREADONLY);
    CHECK_EQ(env_info(env).class_count, 1);
    close_env(env);
}

TEST(env_info_reports_schema_and_sizes)
{
    lar_env *env = open_env_with(test_db_path(NULL), (size_t)8 << 20, 0);
    lar_env_info info = env_info(env);
    CHECK_EQ(info.map_size, (size_t)8 << 20);
    CHECK(info.used_size > 0 && info.used_size <= info.map_size);
    CHECK_EQ(info.schema_version, 0); /* nothing declared yet */
    CHECK_EQ(info.format_version, LARDER_FORMAT_VERSION);
    CHECK_EQ(info.class_count, 0);

    lar_property_def a_props[] = {PROP("x", LAR_TYPE_INT, 0)};
    lar_property_def b_props[] = {PROP("y", LAR_TYPE_STRING, 0)};
    lar_class_def classes[] = {CLASS_DEF("A", a_props), CLASS_DEF("B", b_props)};
    CHECK_OK(lar_schema_apply(env, classes, 2, 3));
    info = env_info(env);
    CHECK_EQ(info.schema_version, 3);
    CHECK_EQ(info.class_count, 2);
    size_t used_before = info.used_size;

    /* Writing data makes more of the file used. */
    lar_class a = class_id(env, "A");
    lar_txn *txn = begin_write(env);
    for (int i = 0; i < 2000; i++) {
        lar_value v = val_int(i);
        CHECK_OK(lar_obj_create(txn, a, &v, 1, NULL));
    }
    commit_txn(txn);
    info = env_info(env);
    CHECK(info.used_size > used_before);
    CHECK(info.used_size <= info.map_size);

    CHECK_RC(lar_env_info_get(NULL, &info), LAR_EINVAL);
    CHECK_RC(lar_env_info_get(env, NULL), LAR_EINVAL);
    close_env(env);
}

static uint64_t version_count(lar_env *env)
{
    uint64_t count = 0;
    CHECK_OK(lar_env_version_count(env, &count));
    return count;
}

static void commit_one_object(lar_env *env)
{
    lar_txn *txn = begin_write(env);
    lar_class a = class_id(env, "A");
    lar_value v = val_int(1);
    CHECK_OK(lar_obj_create(txn, a, &v, 1, NULL));
    commit_txn(txn);
}

TEST(env_version_count_counts_pinned_versions_once)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def props[] = {PROP("x", LAR_TYPE_INT, 0)};
    lar_class_def def = CLASS_DEF("A", props);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    CHECK_EQ(version_count(env), 1);
    lar_txn *old = begin_read(env), *same = begin_read(env);
    CHECK_EQ(version_count(env), 1); /* readers of the newest version add nothing */
    commit_one_object(env);
    CHECK_EQ(version_count(env), 2); /* two readers of one old version count once */
    lar_txn *middle = begin_read(env);
    commit_one_object(env);
    CHECK_EQ(version_count(env), 3);
    lar_txn_free(old);
    lar_txn_free(same);
    CHECK_OK(lar_txn_commit(middle)); /* an ended reader pins nothing */
    CHECK_EQ(version_count(env), 1);
    lar_txn_free(middle);
    uint64_t count;
    CHECK_RC(lar_env_version_count(NULL, &count), LAR_EINVAL);
    CHECK_RC(lar_env_version_count(env, NULL), LAR_EINVAL);
    close_env(env);
}

TEST(env_close_with_live_transaction_is_refused)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);

    lar_txn *read = begin_read(env);
    CHECK_RC(lar_env_close(env), LAR_EMISUSE);
    /* The environment stayed open: the transaction still works. */
    CHECK_EQ(count_objects(read, p.cls), 0);
    commit_txn(read);

    lar_txn *write = begin_write(env);
    CHECK_RC(lar_env_close(env), LAR_EMISUSE);
    person_create(write, &p, 1, "Ada", 36, 9.5);
    commit_txn(write);

    close_env(env);
}

/* Only active transactions block the close; an ended handle may be freed afterwards:
 * "The handle stays allocated: free it with lar_txn_free()". */
TEST(env_close_with_ended_unfreed_transaction)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_setup(env);
    lar_txn *read = begin_read(env);
    lar_txn *write = begin_write(env);
    CHECK_OK(lar_txn_commit(read));
    CHECK_OK(lar_txn_abort(write));
    close_env(env);
    lar_txn_free(read);
    lar_txn_free(write);
}

TEST(env_close_of_a_shared_reference_with_live_transaction)
{
    const char *path = test_db_path(NULL);
    lar_env *first = open_env(path);
    lar_env *second = open_env(path);
    person_schema p = person_setup(first);
    lar_txn *txn = begin_read(first);
    /* Not the last reference: it is released. */
    CHECK_OK(lar_env_close(first));
    /* The last one refuses while the transaction lives. */
    CHECK_RC(lar_env_close(second), LAR_EMISUSE);
    CHECK_EQ(count_objects(txn, p.cls), 0);
    commit_txn(txn);
    close_env(second);
}

TEST(env_nosync_still_stores_commits)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env_with(path, (size_t)1 << 20, LAR_ENV_NOSYNC);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 7, "Ada", 36, 9.5);
    commit_txn(txn);
    close_env(env);

    env = open_env(path);
    p = person_lookup(env);
    txn = begin_read(env);
    CHECK_VALUE(get_value(txn, person_find(txn, &p, 7), p.age), val_int(36));
    commit_txn(txn);
    close_env(env);
}

TEST(env_two_files_are_independent)
{
    lar_env *a = open_env(test_db_path("a"));
    lar_env *b = open_env(test_db_path("b"));
    CHECK(a != b);
    person_schema pa = person_setup(a);
    person_schema pb = person_setup(b);
    /* "a thread may have at most one write transaction per environment": one per file is fine. */
    lar_txn *wa = begin_write(a);
    lar_txn *wb = begin_write(b);
    person_create(wa, &pa, 1, "A", 1, 1);
    person_create(wb, &pb, 1, "B", 2, 2);
    person_create(wb, &pb, 2, "B2", 3, 3);
    commit_txn(wa);
    commit_txn(wb);
    lar_txn *ra = begin_read(a), *rb = begin_read(b);
    CHECK_EQ(count_objects(ra, pa.cls), 1);
    CHECK_EQ(count_objects(rb, pb.cls), 2);
    commit_txn(ra);
    commit_txn(rb);
    close_env(a);
    close_env(b);
}

TEST(env_open_of_a_fifo_is_an_io_error)
{
    const char *path = test_db_path(NULL);
    CHECK(mkfifo(path, 0644) == 0);
    lar_env *env = NULL;
    CHECK_RC(lar_env_open(path, NULL, &env), LAR_EIO); /* at once: a FIFO is never opened */
    CHECK_MSG_HAS("not a regular file");
    CHECK_RC(lar_env_open(path, &(lar_env_options){LAR_ENV_OPTIONS_VERSION, 1 << 20, LAR_ENV_READONLY}, &env),
             LAR_EIO);
    CHECK(env == NULL);
}

/* Makes dir refuse new entries: read-only permissions, or for root (whom permissions do not
 * stop) the immutable attribute. Returns false where neither can be set. */
static bool make_directory_unwritable(const char *dir, bool unwritable)
{
    if (geteuid() != 0) return chmod(dir, unwritable ? 0555 : 0755) == 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return false;
    int attributes = 0;
    bool ok = ioctl(fd, FS_IOC_GETFLAGS, &attributes) == 0;
    attributes = unwritable ? attributes | FS_IMMUTABLE_FL : attributes & ~FS_IMMUTABLE_FL;
    ok = ok && ioctl(fd, FS_IOC_SETFLAGS, &attributes) == 0;
    close(fd);
    return ok;
}

static void read_only_directory_child(const char *path)
{
    lar_env *env = NULL;
    /* Writable, the lock file cannot be made: refused. */
    CHECK_RC(lar_env_open(path, NULL, &env), LAR_EREADONLY);
    env = open_env_with(path, (size_t)1 << 20, LAR_ENV_READONLY);
    person_schema p = person_lookup(env);
    lar_txn *txn = begin_read(env);
    CHECK_VALUE(get_value(txn, person_find(txn, &p, 1), p.name), val_str("Ada"));
    commit_txn(txn);
    close_env(env);
    child_exit_ok();
}

/* "A bundled database": a file in a directory nobody may write, with no lock file. */
TEST(env_readonly_open_in_a_read_only_directory)
{
    char dir[4200], path[4300], lock[4310];
    snprintf(dir, sizeof dir, "%s/%s-dir", test_data_dir(), test_current_name);
    snprintf(path, sizeof path, "%s/bundled.larder", dir);
    snprintf(lock, sizeof lock, "%s-lock", path);
    CHECK(mkdir(dir, 0755) == 0);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "Ada", 36, 9.5);
    commit_txn(txn);
    close_env(env);
    CHECK(unlink(lock) == 0);
    if (!make_directory_unwritable(dir, true)) {
        printf("# skipped: cannot make %s unwritable here\n", dir);
        return;
    }
    int probe = open(lock, O_RDWR | O_CREAT, 0644); /* the premise: no lock file can be made */
    pid_t pid = probe < 0 ? test_fork() : -1;
    if (pid == 0) read_only_directory_child(path);
    int status = -1;
    if (pid > 0) waitpid(pid, &status, 0); /* the child never waits for anything */
    if (probe >= 0) close(probe);
    bool restored = make_directory_unwritable(dir, false); /* before any check can end the test */
    CHECK(restored);
    CHECK(probe < 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(!file_exists(lock));
}
