/* Transactions: snapshots, commit and abort, misuse, renewal, state, and the one writer. */
#include "test.h"

#include "catalog/catalog.h"
#include "kv/kv.h"

#include <stdatomic.h>
#include <stdlib.h>

TEST(txn_read_is_a_snapshot)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ada = person_create(txn, &p, 1, "Ada", 36, 9.5);
    commit_txn(txn);

    lar_txn *snapshot = begin_read(env);
    txn = begin_write(env);
    person_create(txn, &p, 2, "Grace", 45, 8.25);
    lar_value older = val_int(37);
    CHECK_OK(lar_obj_set(txn, ada, p.age, &older));
    commit_txn(txn);

    /* "A read transaction sees the last commit at the time it began, and nothing after." */
    CHECK_EQ(count_objects(snapshot, p.cls), 1);
    CHECK_VALUE(get_value(snapshot, ada, p.age), val_int(36));
    lar_value key = val_int(2);
    lar_obj obj;
    CHECK_RC(lar_obj_find(snapshot, p.cls, &key, &obj), LAR_ENOTFOUND);
    CHECK_EQ(count_by_iteration(snapshot, p.cls), 1);

    /* Renewed, it sees the newest commit. */
    CHECK_OK(lar_txn_commit(snapshot));
    CHECK_OK(lar_txn_renew(snapshot));
    CHECK_EQ(count_objects(snapshot, p.cls), 2);
    CHECK_VALUE(get_value(snapshot, ada, p.age), val_int(37));
    commit_txn(snapshot);

    /* So does a new one. */
    txn = begin_read(env);
    CHECK_VALUE(get_value(txn, person_find(txn, &p, 2), p.name), val_str("Grace"));
    commit_txn(txn);
    close_env(env);
}

TEST(txn_write_sees_its_own_changes)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ada = person_create(txn, &p, 1, "Ada", 36, 9.5);
    CHECK_EQ(count_objects(txn, p.cls), 1);
    CHECK(obj_exists(txn, ada));
    lar_value name = val_str("Ada Lovelace");
    CHECK_OK(lar_obj_set(txn, ada, p.name, &name));
    CHECK_VALUE(get_value(txn, person_find(txn, &p, 1), p.name), val_str("Ada Lovelace"));
    /* A reader begun meanwhile sees none of it. */
    lar_txn *reader = begin_read(env);
    CHECK_EQ(count_objects(reader, p.cls), 0);
    CHECK(!obj_exists(reader, ada));
    commit_txn(reader);
    commit_txn(txn);
    close_env(env);
}

TEST(txn_abort_discards_writes)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj kept = person_create(txn, &p, 1, "Ada", 36, 9.5);
    commit_txn(txn);

    txn = begin_write(env);
    lar_obj dropped = person_create(txn, &p, 2, "Grace", 45, 8.25);
    lar_value age = val_null();
    CHECK_OK(lar_obj_set(txn, kept, p.age, &age));
    CHECK_OK(lar_obj_delete(txn, kept));
    CHECK_OK(lar_txn_abort(txn));
    int active = -1;
    CHECK_OK(lar_txn_state(txn, &active, NULL));
    CHECK_EQ(active, 0);
    CHECK_OK(lar_txn_abort(txn)); /* "an ended one is ignored" */
    lar_txn_free(txn);
    CHECK_OK(lar_txn_abort(NULL));

    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 1);
    CHECK(!obj_exists(txn, dropped));
    CHECK_VALUE(get_value(txn, kept, p.age), val_int(36));
    commit_txn(txn);
    close_env(env);
}

TEST(txn_commit_persists_across_reopen)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "Ada", 36, 9.5);
    commit_txn(txn);
    close_env(env);

    env = open_env(path);
    p = person_lookup(env);
    txn = begin_read(env);
    lar_obj ada = person_find(txn, &p, 1);
    CHECK_VALUE(get_value(txn, ada, p.score), val_double(9.5));
    commit_txn(txn);
    close_env(env);
}

TEST(txn_commit_nosync_is_visible_and_synced_by_env_sync)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    /* A group: two commits without their fsyncs, each visible at once, then one sync. */
    for (int64_t id = 1; id <= 2; id++) {
        lar_txn *txn = begin_write(env);
        person_create(txn, &p, id, "Ada", 36, 9.5);
        CHECK_OK(lar_txn_commit_flags(txn, LAR_COMMIT_NOSYNC));
        lar_txn_free(txn);
        lar_txn *reader = begin_read(env);
        CHECK_EQ(count_objects(reader, p.cls), (size_t)id);
        commit_txn(reader);
    }
    CHECK_OK(lar_env_sync(env));
    /* A commit without the flag after them is an ordinary one. */
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 3, "Grace", 45, 8.25);
    CHECK_OK(lar_txn_commit_flags(txn, 0));
    lar_txn_free(txn);
    close_env(env);

    env = open_env(path);
    p = person_lookup(env);
    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 3);
    /* Flags mean nothing to a read transaction. */
    CHECK_OK(lar_txn_commit_flags(txn, LAR_COMMIT_NOSYNC));
    lar_txn_free(txn);
    close_env(env);
}

TEST(txn_commit_flags_and_env_sync_refuse_bad_input)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    CHECK_RC(lar_txn_commit_flags(NULL, 0), LAR_EINVAL);
    CHECK_RC(lar_env_sync(NULL), LAR_EINVAL);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "Ada", 36, 9.5);
    /* An unknown flag leaves the write active: it still commits. */
    CHECK_RC(lar_txn_commit_flags(txn, 0x80), LAR_EINVAL);
    CHECK_OK(lar_txn_commit_flags(txn, LAR_COMMIT_NOSYNC));
    CHECK_RC(lar_txn_commit_flags(txn, LAR_COMMIT_NOSYNC), LAR_EMISUSE);
    lar_txn_free(txn);
    close_env(env);

    env = open_env_with(path, (size_t)1 << 30, LAR_ENV_READONLY);
    CHECK_RC(lar_env_sync(env), LAR_EREADONLY);
    close_env(env);
    /* On an environment that never syncs at commit, the sync is the only one. */
    env = open_env_with(path, (size_t)1 << 30, LAR_ENV_NOSYNC);
    txn = begin_write(env);
    person_create(txn, &p, 2, "Grace", 45, 8.25);
    CHECK_OK(lar_txn_commit_flags(txn, LAR_COMMIT_NOSYNC));
    lar_txn_free(txn);
    CHECK_OK(lar_env_sync(env));
    close_env(env);
}

TEST(txn_writes_in_a_read_transaction_are_misuse)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ada = person_create(txn, &p, 1, "Ada", 36, 9.5);
    commit_txn(txn);

    txn = begin_read(env);
    lar_value values[4];
    values[p.id] = val_int(2);
    values[p.name] = val_str("Grace");
    values[p.age] = val_null();
    values[p.score] = val_double(1);
    CHECK_RC(lar_obj_create(txn, p.cls, values, 4, NULL), LAR_EMISUSE);
    CHECK_RC(lar_obj_create(txn, p.cls, NULL, 0, NULL), LAR_EMISUSE);
    lar_value age = val_int(1);
    CHECK_RC(lar_obj_set(txn, ada, p.age, &age), LAR_EMISUSE);
    CHECK_RC(lar_obj_delete(txn, ada), LAR_EMISUSE);
    CHECK_RC(lar_objects_delete_all(txn, p.cls), LAR_EMISUSE);
    /* Still a working snapshot. */
    CHECK_EQ(count_objects(txn, p.cls), 1);
    CHECK_VALUE(get_value(txn, ada, p.age), val_int(36));
    commit_txn(txn);
    close_env(env);
}

TEST(txn_second_write_on_one_thread_is_misuse)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *first = begin_write(env);
    lar_txn *second = NULL;
    CHECK_RC(lar_txn_begin(env, LAR_TXN_WRITE, &second), LAR_EMISUSE);
    CHECK(second == NULL);
    /* Also through a second handle of the same file: it is the same environment. */
    lar_env *again = open_env(path);
    CHECK_RC(lar_txn_begin(again, LAR_TXN_WRITE, &second), LAR_EMISUSE);
    /* Reads are fine next to the write. */
    lar_txn *reader = begin_read(env);
    commit_txn(reader);
    /* The first write is unharmed. */
    person_create(first, &p, 1, "Ada", 36, 9.5);
    commit_txn(first);
    second = begin_write(again);
    CHECK_EQ(count_objects(second, p.cls), 1);
    commit_txn(second);
    close_env(again);
    close_env(env);
}

/* Every call on an ended transaction is LAR_EMISUSE. */
static void check_ended(lar_txn *txn, const person_schema *p, lar_obj obj)
{
    lar_value v;
    lar_value values[4];
    uint64_t n;
    int exists;
    lar_obj found;
    lar_iter *iter = NULL;
    lar_value key = val_int(1), age = val_int(3);
    CHECK_RC(lar_obj_get(txn, obj, p->age, &v), LAR_EMISUSE);
    CHECK_RC(lar_obj_get_all(txn, obj, values, 4), LAR_EMISUSE);
    CHECK_RC(lar_obj_set(txn, obj, p->age, &age), LAR_EMISUSE);
    CHECK_RC(lar_obj_delete(txn, obj), LAR_EMISUSE);
    CHECK_RC(lar_obj_exists(txn, obj, &exists), LAR_EMISUSE);
    CHECK_RC(lar_obj_find(txn, p->cls, &key, &found), LAR_EMISUSE);
    CHECK_RC(lar_objects_count(txn, p->cls, &n), LAR_EMISUSE);
    CHECK_RC(lar_objects_delete_all(txn, p->cls), LAR_EMISUSE);
    CHECK_RC(lar_obj_create(txn, p->cls, NULL, 0, NULL), LAR_EMISUSE);
    CHECK_RC(lar_iter_open(txn, p->cls, &iter), LAR_EMISUSE);
    CHECK(iter == NULL);
    CHECK_RC(lar_txn_commit(txn), LAR_EMISUSE); /* "already ended" */
    CHECK_OK(lar_txn_abort(txn));               /* "an ended one is ignored" */
}

TEST(txn_use_after_end_is_misuse)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ada = person_create(txn, &p, 1, "Ada", 36, 9.5);
    CHECK_OK(lar_txn_commit(txn));
    check_ended(txn, &p, ada);
    lar_txn_free(txn);

    txn = begin_write(env);
    CHECK_OK(lar_txn_abort(txn));
    check_ended(txn, &p, ada);
    lar_txn_free(txn);

    txn = begin_read(env);
    CHECK_OK(lar_txn_commit(txn));
    check_ended(txn, &p, ada);
    lar_txn_free(txn);

    txn = begin_read(env);
    CHECK_OK(lar_txn_abort(txn));
    check_ended(txn, &p, ada);
    lar_txn_free(txn);

    /* The ended writes released the writer: a new one begins at once. */
    commit_txn(begin_write(env));
    close_env(env);
}

TEST(txn_version_counts_commits)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def props[] = {PROP("x", LAR_TYPE_INT, 0)};
    lar_class_def def = CLASS_DEF("A", props);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    uint64_t before = 0, after = 0, writing = 0, old = 0;
    lar_txn *pinned = begin_read(env);
    CHECK_OK(lar_txn_version(pinned, &before));
    lar_txn *txn = begin_write(env);
    CHECK_OK(lar_txn_version(txn, &writing));
    CHECK_EQ(writing, before + 1);
    lar_value v = val_int(1);
    CHECK_OK(lar_obj_create(txn, class_id(env, "A"), &v, 1, NULL));
    CHECK_OK(lar_txn_commit(txn));
    lar_txn_free(txn);
    txn = begin_read(env);
    CHECK_OK(lar_txn_version(txn, &after));
    CHECK_EQ(after, before + 1);
    CHECK_OK(lar_txn_version(pinned, &old));
    CHECK_EQ(old, before); /* an older reader keeps its version */
    CHECK_OK(lar_txn_commit(txn));
    CHECK_RC(lar_txn_version(txn, &after), LAR_EMISUSE);
    CHECK_RC(lar_txn_version(NULL, &after), LAR_EINVAL);
    CHECK_RC(lar_txn_version(pinned, NULL), LAR_EINVAL);
    lar_txn_free(txn);
    lar_txn_free(pinned);
    close_env(env);
}

/* Freed read transactions are kept reset for the next begins (kv.h, SPARE_READERS):
 * each renewed one sees the newest commit, several live at once each get their own,
 * and a file closes with some kept (LeakSanitizer would report them otherwise). */
TEST(txn_read_handles_begun_after_others_were_freed_see_each_new_commit)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_property_def props[] = {PROP("x", LAR_TYPE_INT, 0)};
    lar_class_def def = CLASS_DEF("A", props);
    CHECK_OK(lar_schema_apply(env, &def, 1, 1));
    lar_class cls = class_id(env, "A");
    for (int round = 1; round <= 6; round++) {
        lar_txn *txn = begin_write(env);
        lar_value v = val_int(round);
        CHECK_OK(lar_obj_create(txn, cls, &v, 1, NULL));
        commit_txn(txn);
        lar_txn *readers[4];
        uint64_t expected = 0;
        for (int r = 0; r < 4; r++) { /* more than are kept: some begin afresh */
            readers[r] = begin_read(env);
            uint64_t count = 0, version = 0;
            CHECK_OK(lar_objects_count(readers[r], cls, &count));
            CHECK_EQ(count, (uint64_t)round);
            CHECK_OK(lar_txn_version(readers[r], &version));
            if (r == 0) expected = version;
            CHECK_EQ(version, expected);
        }
        for (int r = 0; r < 4; r++) lar_txn_free(readers[r]);
    }
    close_env(env);
}

TEST(txn_state_reports_activity_and_kind)
{
    lar_env *env = open_env(test_db_path(NULL));
    int active = -1, write = -1;
    lar_txn *txn = begin_read(env);
    CHECK_OK(lar_txn_state(txn, &active, &write));
    CHECK(active == 1 && write == 0);
    CHECK_OK(lar_txn_commit(txn));
    CHECK_OK(lar_txn_state(txn, &active, &write));
    CHECK(active == 0 && write == 0);
    CHECK_OK(lar_txn_renew(txn));
    CHECK_OK(lar_txn_state(txn, &active, NULL));
    CHECK_EQ(active, 1);
    lar_txn_free(txn);

    txn = begin_write(env);
    CHECK_OK(lar_txn_state(txn, &active, &write));
    CHECK(active == 1 && write == 1);
    CHECK_OK(lar_txn_state(txn, NULL, NULL));
    CHECK_OK(lar_txn_abort(txn));
    CHECK_OK(lar_txn_state(txn, &active, &write));
    CHECK(active == 0 && write == 1);
    lar_txn_free(txn);

    CHECK_RC(lar_txn_state(NULL, &active, &write), LAR_EINVAL);
    close_env(env);
}

TEST(txn_renew_rules)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_txn *read = begin_read(env);
    CHECK_RC(lar_txn_renew(read), LAR_EMISUSE); /* still active */
    CHECK_OK(lar_txn_commit(read));
    CHECK_OK(lar_txn_renew(read));
    CHECK_OK(lar_txn_abort(read));
    CHECK_OK(lar_txn_renew(read)); /* ended by abort: renewable too */
    lar_txn_free(read);            /* active: freeing aborts it */

    lar_txn *write = begin_write(env);
    CHECK_RC(lar_txn_renew(write), LAR_EMISUSE); /* a write transaction, active */
    CHECK_OK(lar_txn_commit(write));
    CHECK_RC(lar_txn_renew(write), LAR_EMISUSE); /* a write transaction, ended */
    lar_txn_free(write);

    CHECK_RC(lar_txn_renew(NULL), LAR_EINVAL);
    close_env(env); /* no transaction is left active */
}

TEST(txn_free_of_an_active_transaction_aborts_it)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "Ada", 36, 9.5);
    lar_txn_free(txn);
    /* Nothing stored, and the writer is free again. */
    txn = begin_write(env);
    CHECK_EQ(count_objects(txn, p.cls), 0);
    commit_txn(txn);

    lar_txn *read = begin_read(env);
    lar_txn_free(read);
    lar_txn_free(NULL);
    close_env(env); /* would be LAR_EMISUSE if the freed transactions were still active */
}

TEST(txn_begin_argument_errors)
{
    lar_env *env = open_env(test_db_path(NULL));
    lar_txn *txn = NULL;
    CHECK_RC(lar_txn_begin(env, 0x2u, &txn), LAR_EINVAL);
    CHECK_RC(lar_txn_begin(env, LAR_TXN_WRITE | 0x100u, &txn), LAR_EINVAL);
    CHECK_RC(lar_txn_begin(NULL, LAR_TXN_READ, &txn), LAR_EINVAL);
    CHECK_RC(lar_txn_begin(env, LAR_TXN_READ, NULL), LAR_EINVAL);
    CHECK(txn == NULL);
    CHECK_RC(lar_txn_commit(NULL), LAR_EINVAL);
    close_env(env);
}

/* ---- threads ---- */

typedef struct writer_args {
    lar_env *env;
    person_schema p;
    latch *about_to_begin;
    atomic_int acquired;
    atomic_llong seen_count;
    atomic_int saw_first_writer;
} writer_args;

/* Thread B: begins the write transaction (waiting for A's) and checks what it sees. */
static void *second_writer(void *arg)
{
    writer_args *w = arg;
    latch_open(w->about_to_begin);
    lar_txn *txn = begin_write(w->env);
    atomic_store(&w->acquired, 1);
    atomic_store(&w->seen_count, (long long)count_objects(txn, w->p.cls));
    lar_value key = val_int(2);
    lar_obj obj;
    atomic_store(&w->saw_first_writer, lar_obj_find(txn, w->p.cls, &key, &obj) == LAR_OK);
    person_create(txn, &w->p, 3, "from B", 30, 3);
    commit_txn(txn);
    return NULL;
}

/* "only one exists at a time per file, across threads and processes, so this call waits for it" */
TEST(txn_write_of_another_thread_waits_for_the_first)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    writer_args w = {.env = env, .p = p, .about_to_begin = latch_new()};
    atomic_init(&w.acquired, 0);
    atomic_init(&w.seen_count, -1);
    atomic_init(&w.saw_first_writer, 0);

    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "from A", 40, 1);
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, second_writer, &w) == 0);
    CHECK(latch_wait(w.about_to_begin, 10000));
    sleep_ms(200);
    CHECK_EQ(atomic_load(&w.acquired), 0); /* B waits while A writes */
    person_create(txn, &p, 2, "from A too", 41, 2);
    commit_txn(txn);
    join_thread(thread, 10000);

    CHECK_EQ(atomic_load(&w.acquired), 1);
    CHECK_EQ(atomic_load(&w.seen_count), 2); /* B began after A's commit and saw all of it */
    CHECK_EQ(atomic_load(&w.saw_first_writer), 1);
    latch_free(w.about_to_begin);
    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 3);
    commit_txn(txn);
    close_env(env);
}

typedef struct ending_args {
    lar_txn *txn;
    int commit_rc, abort_rc, last_code, active_after;
} ending_args;

static void *end_from_other_thread(void *arg)
{
    ending_args *e = arg;
    lar_error_clear();
    e->commit_rc = lar_txn_commit(e->txn);
    e->last_code = lar_error_last()->code;
    e->abort_rc = lar_txn_abort(e->txn);
    CHECK_OK(lar_txn_state(e->txn, &e->active_after, NULL));
    return NULL;
}

/* "a write transaction must end on the thread that began it" */
TEST(txn_write_ends_only_on_its_own_thread)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "Ada", 36, 9.5);
    ending_args e = {txn, 1, 1, 1, -1};
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, end_from_other_thread, &e) == 0);
    join_thread(thread, 10000);
    CHECK_EQ(e.commit_rc, LAR_EMISUSE);
    CHECK_EQ(e.last_code, LAR_EMISUSE);
    CHECK_EQ(e.abort_rc, LAR_EMISUSE);
    CHECK_EQ(e.active_after, 1); /* "it is then left active" */
    /* The owner goes on and commits. */
    person_create(txn, &p, 2, "Grace", 45, 8.25);
    commit_txn(txn);
    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 2);
    commit_txn(txn);
    close_env(env);
}

typedef struct reader_args {
    lar_txn *txn;
    person_schema p;
    long long count;
    int commit_rc;
} reader_args;

static void *use_read_elsewhere(void *arg)
{
    reader_args *r = arg;
    r->count = (long long)count_objects(r->txn, r->p.cls);
    CHECK_VALUE(get_value(r->txn, person_find(r->txn, &r->p, 1), r->p.name), val_str("Ada"));
    r->commit_rc = lar_txn_commit(r->txn);
    return NULL;
}

/* "Read transactions are not tied to a thread" */
TEST(txn_read_may_move_between_threads)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "Ada", 36, 9.5);
    commit_txn(txn);

    reader_args r = {begin_read(env), p, -1, 1};
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, use_read_elsewhere, &r) == 0);
    join_thread(thread, 10000);
    CHECK_EQ(r.count, 1);
    CHECK_EQ(r.commit_rc, LAR_OK);
    CHECK_OK(lar_txn_renew(r.txn)); /* and back on this thread */
    CHECK_EQ(count_objects(r.txn, p.cls), 1);
    commit_txn(r.txn);
    close_env(env);
}

typedef struct parallel_args {
    lar_env *env;
    person_schema p;
    int64_t first_id;
} parallel_args;

static void *write_batch(void *arg)
{
    parallel_args *a = arg;
    for (int t = 0; t < 20; t++) {
        lar_txn *txn = begin_write(a->env);
        for (int i = 0; i < 10; i++) person_create(txn, &a->p, a->first_id + t * 10 + i, "w", 1, 1);
        commit_txn(txn);
    }
    return NULL;
}

/* Four threads writing at once through one environment: every commit lands once. */
TEST(txn_concurrent_writers_of_one_environment)
{
    lar_env *env = open_env_with(test_db_path(NULL), (size_t)1 << 20, LAR_ENV_NOSYNC);
    person_schema p = person_setup(env);
    parallel_args args[4];
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (parallel_args){env, p, (int64_t)i * 1000};
        CHECK(pthread_create(&threads[i], NULL, write_batch, &args[i]) == 0);
    }
    for (int i = 0; i < 4; i++) join_thread(threads[i], 30000);
    lar_txn *txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 4 * 200);
    for (int i = 0; i < 4; i++)
        for (int64_t id = 0; id < 200; id++) person_find(txn, &p, (int64_t)i * 1000 + id);
    commit_txn(txn);
    close_env(env);
}

/* txn_row_put rewrites a row in place (MDB_CURRENT) only when the table's kept cursor is on
 * that very row: MDB_CURRENT replaces whatever entry the cursor is on. A put of another row
 * right after a read must write that row and leave the one read alone. */
TEST(txn_row_put_after_reading_another_row_writes_the_row_named)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    lar_obj ada = person_create(txn, &p, 1, "Ada", 36, 9.5);
    lar_obj grace = person_create(txn, &p, 2, "Grace", 45, 8.25);
    const schema_class *cls = schema_class_at(txn->schema, p.cls);
    CHECK(cls != NULL);
    kv_val ada_row, grace_row;
    CHECK_EQ(kv_row_get(txn, cls->dbi, grace.key, &grace_row), 0);
    uint8_t grace_bytes[256];
    CHECK(grace_row.mv_size <= sizeof grace_bytes);
    memcpy(grace_bytes, grace_row.mv_data, grace_row.mv_size);
    kv_val grace_copy = {grace_row.mv_size, grace_bytes};
    CHECK_EQ(kv_row_get(txn, cls->dbi, ada.key, &ada_row), 0); /* the cursor is on Ada */
    CHECK_OK(txn_row_put(txn, cls->dbi, grace.key, &grace_copy, 0)); /* Grace's row, rewritten as it was */
    CHECK_VALUE(get_value(txn, ada, p.name), val_str("Ada"));
    CHECK_VALUE(get_value(txn, grace, p.name), val_str("Grace"));
    /* And the rewrite of the row the cursor is on. */
    lar_value older = val_int(37);
    CHECK_OK(lar_obj_set(txn, ada, p.age, &older));
    CHECK_VALUE(get_value(txn, ada, p.age), val_int(37));
    CHECK_VALUE(get_value(txn, grace, p.age), val_int(45));
    commit_txn(txn);
    close_env(env);
}

/* Rewrites of rows through the kept cursor (MDB_CURRENT) across every change of size: a
 * row growing onto overflow pages, shrinking back onto its leaf, growing again, beside
 * neighbours that must not move; then the file is reopened and read again. */
TEST(txn_row_rewrites_across_overflow_sizes_keep_every_row)
{
    const char *path = test_db_path(NULL);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    static const size_t sizes[] = {5, 3000, 9000, 40, 70000, 4090, 0, 12000, 7};
    enum { PEOPLE = 40 };
    char *text = malloc(70000);
    CHECK(text != NULL);
    lar_txn *txn = begin_write(env);
    lar_obj people[PEOPLE];
    for (int i = 0; i < PEOPLE; i++) people[i] = person_create(txn, &p, i + 1, "neighbour", i, 1.0);
    for (size_t round = 0; round < COUNT_OF(sizes); round++) {
        for (int i = 0; i < PEOPLE; i += 3) { /* every third row changes; the others stay */
            size_t size = sizes[(round + (size_t)i) % COUNT_OF(sizes)];
            memset(text, 'a' + (int)((round + (size_t)i) % 26), size);
            lar_value name = val_strn(text, size);
            CHECK_OK(lar_obj_set(txn, people[i], p.name, &name));
            CHECK_VALUE(get_value(txn, people[i], p.name), name);
        }
    }
    commit_txn(txn);
    close_env(env);

    env = open_env(path);
    p = person_lookup(env);
    txn = begin_read(env);
    size_t last = COUNT_OF(sizes) - 1;
    for (int i = 0; i < PEOPLE; i++) {
        lar_obj found = person_find(txn, &p, i + 1);
        CHECK_VALUE(get_value(txn, found, p.age), val_int(i));
        if (i % 3) {
            CHECK_VALUE(get_value(txn, found, p.name), val_str("neighbour"));
            continue;
        }
        size_t size = sizes[(last + (size_t)i) % COUNT_OF(sizes)];
        memset(text, 'a' + (int)((last + (size_t)i) % 26), size);
        CHECK_VALUE(get_value(txn, found, p.name), val_strn(text, size));
    }
    lar_txn_free(txn);
    close_env(env);
    free(text);
}
