/* Dead readers: a process killed (SIGKILL) while it holds a snapshot leaves its slot
 * in LMDB's reader table. Larder clears such slots at open, when the table is full,
 * and as a writer's file grows; otherwise they would fill the table, so that no
 * process could read, and keep every page freed since their snapshot from reuse. */
#include "test.h"

#include "kv/kv.h"

#include <errno.h>
#include <lmdb.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define WAIT_MS 20000

/* White-box: the reader table's capacity, as LMDB reports it to another process of the
 * file (the lock file's size sets it, whatever the opener asks for). */
static int reader_capacity(const char *path)
{
    int report[2];
    CHECK(pipe(report) == 0);
    pid_t pid = test_fork();
    if (pid == 0) {
        MDB_env *mdb;
        MDB_envinfo info;
        CHECK(mdb_env_create(&mdb) == 0);
        CHECK(mdb_env_open(mdb, path, MDB_NOSUBDIR | MDB_RDONLY, 0644) == 0);
        CHECK(mdb_env_info(mdb, &info) == 0);
        int capacity = (int)info.me_maxreaders;
        CHECK(write(report[1], &capacity, sizeof capacity) == sizeof capacity);
        mdb_env_close(mdb);
        child_exit_ok();
    }
    wait_child_ok(pid, WAIT_MS);
    int capacity = 0;
    CHECK(read(report[0], &capacity, sizeof capacity) == sizeof capacity);
    close(report[0]);
    close(report[1]);
    CHECK(capacity >= 126);
    return capacity;
}

/* A child that takes a reader slot, says 'R' (or 'F' when it cannot), and waits to be killed. */
typedef void (*reader_fn)(const char *path, int report);

static void larder_reader(const char *path, int report)
{
    lar_env *env = NULL;
    lar_txn *txn = NULL;
    bool ok = lar_env_open(path, NULL, &env) == LAR_OK && lar_txn_begin(env, LAR_TXN_READ, &txn) == LAR_OK;
    pipe_send(report, ok ? 'R' : 'F');
    for (;;) pause();
}

/* Another program's reader (raw LMDB): it clears no dead readers of its own. */
static void lmdb_reader(const char *path, int report)
{
    MDB_env *mdb;
    MDB_txn *txn;
    bool ok = mdb_env_create(&mdb) == 0 && mdb_env_set_maxdbs(mdb, 8) == 0 &&
              mdb_env_open(mdb, path, MDB_NOSUBDIR | MDB_RDONLY | MDB_NOTLS, 0644) == 0 &&
              mdb_txn_begin(mdb, NULL, MDB_RDONLY, &txn) == 0;
    pipe_send(report, ok ? 'R' : 'F');
    for (;;) pause();
}

/* Starts a reader child, waits for its answer, kills it with SIGKILL. Returns the answer. */
static char kill_a_reader(const char *path, reader_fn reader)
{
    int report[2];
    CHECK(pipe(report) == 0);
    pid_t pid = test_fork();
    if (pid == 0) reader(path, report[1]);
    char answer = 0;
    CHECK(pipe_readable(report[0], WAIT_MS));
    CHECK(read(report[0], &answer, 1) == 1);
    CHECK(kill(pid, SIGKILL) == 0);
    CHECK(waitpid(pid, NULL, 0) == pid);
    close(report[0]);
    close(report[1]);
    return answer;
}

/* A new process opens the file and reads. */
static void check_another_process_reads(const char *path)
{
    pid_t pid = test_fork();
    if (pid == 0) {
        lar_env *env = open_env(path);
        person_schema p = person_lookup(env);
        lar_txn *txn = begin_read(env);
        CHECK(obj_exists(txn, person_find(txn, &p, 1)));
        commit_txn(txn);
        close_env(env);
        child_exit_ok();
    }
    wait_child_ok(pid, WAIT_MS);
}

static off_t file_size(const char *path)
{
    struct stat st;
    CHECK(stat(path, &st) == 0);
    return st.st_size;
}

/* Each round creates an object in one write and deletes it in the next: every commit frees
 * the pages it copied, which a live snapshot would pin. */
static void create_and_delete(lar_env *env, const person_schema *p, int rounds)
{
    char name[1500];
    memset(name, 'x', sizeof name - 1);
    name[sizeof name - 1] = 0;
    for (int i = 0; i < rounds; i++) {
        lar_txn *txn = begin_write(env);
        lar_obj obj = person_create(txn, p, 1000 + i, name, i, i);
        commit_txn(txn);
        txn = begin_write(env);
        CHECK_OK(lar_obj_delete(txn, obj));
        commit_txn(txn);
    }
}

/* The process that keeps the file open while readers die: LMDB resets the reader table
 * only when no process has the file open. The test process itself never opens it, so
 * that the readers it forks open the file afresh (an environment is not for fork()). */
typedef struct keeper {
    pid_t pid;
    int commands, replies;
} keeper;

/* Serves commands until 'q': 'r' reads in a new snapshot, 'w' creates and deletes
 * objects; each is answered with 'k'. A failed check ends the keeper with status 1. */
static _Noreturn void keeper_serve(const char *path, int commands, int replies)
{
    lar_env *env = open_env_with(path, (size_t)64 << 20, LAR_ENV_NOSYNC);
    person_schema p = person_lookup(env);
    pipe_send(replies, 'k');
    for (;;) {
        char command = 0;
        CHECK(pipe_readable(commands, WAIT_MS) && read(commands, &command, 1) == 1);
        if (command == 'q') break;
        if (command == 'r') {
            lar_txn *txn = begin_read(env);
            CHECK(obj_exists(txn, person_find(txn, &p, 1)));
            commit_txn(txn);
        } else if (command == 'w') {
            create_and_delete(env, &p, 1500);
        }
        pipe_send(replies, 'k');
    }
    close_env(env);
    child_exit_ok();
}

/* Makes a file holding one Person and starts its keeper. */
static keeper keeper_start(const char *path)
{
    lar_env *env = open_env_with(path, (size_t)64 << 20, LAR_ENV_NOSYNC);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "Ada", 36, 9.5);
    commit_txn(txn);
    close_env(env);
    int commands[2], replies[2];
    CHECK(pipe(commands) == 0 && pipe(replies) == 0);
    keeper k = {test_fork(), commands[1], replies[0]};
    if (k.pid == 0) keeper_serve(path, commands[0], replies[1]);
    close(commands[0]);
    close(replies[1]);
    pipe_expect(k.replies, 'k', WAIT_MS);
    return k;
}

static void keeper_ask(keeper *k, char command)
{
    pipe_send(k->commands, command);
    pipe_expect(k->replies, 'k', WAIT_MS);
}

static void keeper_stop(keeper *k)
{
    pipe_send(k->commands, 'q');
    wait_child_ok(k->pid, WAIT_MS);
    close(k->commands);
    close(k->replies);
}

/* Larder readers clear the dead ones they find at open. */
TEST(readers_killed_one_after_another_never_fill_the_table)
{
    const char *path = test_db_path(NULL);
    keeper k = keeper_start(path);
    int capacity = reader_capacity(path);
    for (int i = 0; i < capacity + 8; i++) {
        char answer = kill_a_reader(path, larder_reader);
        if (answer != 'R') test_fail(__FILE__, __LINE__, "reader %d (of a table of %d) could not read", i + 1,
                                     capacity);
    }
    keeper_ask(&k, 'r');
    check_another_process_reads(path);
    keeper_stop(&k);
}

/* Readers that clear nothing fill the table (but for the keeper's kept slots); the keeper
 * still reads, and another process's open clears them. */
TEST(readers_a_full_table_of_dead_readers_is_cleared)
{
    const char *path = test_db_path(NULL);
    keeper k = keeper_start(path);
    int capacity = reader_capacity(path);
    int killed = 0;
    while (kill_a_reader(path, lmdb_reader) == 'R') {
        killed++;
        CHECK(killed <= capacity);
    }
    /* Full of dead readers, but for the slots of the read transactions the keeper keeps
     * reset for its next snapshots (kv.h, SPARE_READERS), which are live. */
    CHECK(killed >= capacity - SPARE_READERS);
    keeper_ask(&k, 'r');
    check_another_process_reads(path);
    keeper_stop(&k);
}

/* Another process's open clears them too. */
TEST(readers_a_full_table_of_dead_readers_is_cleared_by_a_new_process)
{
    const char *path = test_db_path(NULL);
    keeper k = keeper_start(path);
    while (kill_a_reader(path, lmdb_reader) == 'R') continue;
    check_another_process_reads(path);
    keeper_stop(&k);
}

/* The keeper writes on while a reader it never hears of lies dead. */
TEST(readers_a_dead_reader_does_not_keep_the_file_growing)
{
    const char *path = test_db_path(NULL);
    keeper k = keeper_start(path);
    keeper_ask(&k, 'w'); /* the file settles at the size the loop needs */
    off_t settled = file_size(path);
    CHECK_EQ(kill_a_reader(path, larder_reader), 'R');
    keeper_ask(&k, 'w');
    /* Without clearing: 3000 commits of a few new pages each, over 20 MiB. */
    off_t grown = file_size(path) - settled;
    if (grown > (off_t)4 << 20) test_fail(__FILE__, __LINE__, "the file grew by %lld bytes", (long long)grown);
    keeper_stop(&k);
}
