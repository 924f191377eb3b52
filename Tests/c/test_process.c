/* Two processes on one file: snapshots, the one writer across processes, map growth.
 *
 * "Do not use an environment across fork()": every test forks first, and each process
 * then opens the file itself. One-byte messages over pipes order the steps. */
#include "test.h"

#include <unistd.h>

#define WAIT_MS 20000

typedef struct channel {
    int to_child[2], to_parent[2];
} channel;

static channel channel_open(void)
{
    channel c;
    CHECK(pipe(c.to_child) == 0);
    CHECK(pipe(c.to_parent) == 0);
    return c;
}

/* Keeps the ends this side uses: [0] reads, [1] writes. */
static void channel_side(channel *c, bool child)
{
    if (child) {
        close(c->to_child[1]);
        close(c->to_parent[0]);
    } else {
        close(c->to_child[0]);
        close(c->to_parent[1]);
    }
}

static void channel_close(channel *c)
{
    close(c->to_child[1]);
    close(c->to_parent[0]);
}

static void child_writes_while_parent_reads(const char *path, channel *c)
{
    pipe_expect(c->to_child[0], 'R', WAIT_MS); /* the parent holds a snapshot */
    lar_env *env = open_env(path);
    person_schema p = person_lookup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 2, "from child", 2, 2);
    commit_txn(txn);
    pipe_send(c->to_parent[1], 'W');

    pipe_expect(c->to_child[0], 'P', WAIT_MS); /* the parent committed */
    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 3);
    CHECK_VALUE(get_value(txn, person_find(txn, &p, 3), p.name), val_str("from parent"));
    commit_txn(txn);
    close_env(env);
    child_exit_ok();
}

TEST(process_commits_are_seen_by_new_snapshots_only)
{
    const char *path = test_db_path(NULL);
    channel c = channel_open();
    pid_t pid = test_fork();
    if (pid == 0) {
        channel_side(&c, true);
        child_writes_while_parent_reads(path, &c);
    }
    channel_side(&c, false);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "from parent", 1, 1);
    commit_txn(txn);

    lar_txn *snapshot = begin_read(env);
    CHECK_EQ(count_objects(snapshot, p.cls), 1);
    pipe_send(c.to_child[1], 'R');
    pipe_expect(c.to_parent[0], 'W', WAIT_MS);

    /* The child's commit is invisible to the snapshot begun before it... */
    CHECK_EQ(count_objects(snapshot, p.cls), 1);
    lar_value key = val_int(2);
    lar_obj found;
    CHECK_RC(lar_obj_find(snapshot, p.cls, &key, &found), LAR_ENOTFOUND);
    CHECK_EQ(count_by_iteration(snapshot, p.cls), 1);
    /* ...and visible once it is renewed. */
    CHECK_OK(lar_txn_commit(snapshot));
    CHECK_OK(lar_txn_renew(snapshot));
    CHECK_EQ(count_objects(snapshot, p.cls), 2);
    CHECK_VALUE(get_value(snapshot, person_find(snapshot, &p, 2), p.name), val_str("from child"));
    commit_txn(snapshot);

    /* Now the parent writes and the child, in a new snapshot, sees it. */
    txn = begin_write(env);
    lar_obj mine = person_create(txn, &p, 3, "from parent", 3, 3);
    commit_txn(txn);
    pipe_send(c.to_child[1], 'P');
    wait_child_ok(pid, WAIT_MS);
    txn = begin_read(env);
    CHECK(obj_exists(txn, mine));
    CHECK_EQ(count_objects(txn, p.cls), 3);
    commit_txn(txn);
    close_env(env);
    channel_close(&c);
}

static void child_waits_to_write(const char *path, channel *c)
{
    pipe_expect(c->to_child[0], 'S', WAIT_MS); /* the file is set up */
    lar_env *env = open_env(path);
    person_schema p = person_lookup(env);
    pipe_send(c->to_parent[1], 'O');
    pipe_expect(c->to_child[0], 'B', WAIT_MS); /* the parent holds the write transaction */
    pipe_send(c->to_parent[1], 'T');
    lar_txn *txn = begin_write(env); /* waits for the parent's commit */
    pipe_send(c->to_parent[1], 'G');
    CHECK_EQ(count_objects(txn, p.cls), 1); /* it began after the parent's commit */
    CHECK_VALUE(get_value(txn, person_find(txn, &p, 1), p.name), val_str("held"));
    person_create(txn, &p, 2, "after", 2, 2);
    commit_txn(txn);
    pipe_send(c->to_parent[1], 'C');
    close_env(env);
    child_exit_ok();
}

/* "only one exists at a time per file, across threads and processes, so this call waits for it" */
TEST(process_writer_waits_for_the_other_process)
{
    const char *path = test_db_path(NULL);
    channel c = channel_open();
    pid_t pid = test_fork();
    if (pid == 0) {
        channel_side(&c, true);
        child_waits_to_write(path, &c);
    }
    channel_side(&c, false);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    pipe_send(c.to_child[1], 'S');
    pipe_expect(c.to_parent[0], 'O', WAIT_MS);

    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "held", 1, 1);
    pipe_send(c.to_child[1], 'B');
    pipe_expect(c.to_parent[0], 'T', WAIT_MS);
    /* The child is blocked in lar_txn_begin while this write lives. */
    CHECK(!pipe_readable(c.to_parent[0], 300));
    commit_txn(txn);
    pipe_expect(c.to_parent[0], 'G', WAIT_MS);
    pipe_expect(c.to_parent[0], 'C', WAIT_MS);
    wait_child_ok(pid, WAIT_MS);

    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 2);
    CHECK_VALUE(get_value(txn, person_find(txn, &p, 2), p.name), val_str("after"));
    commit_txn(txn);
    close_env(env);
    channel_close(&c);
}

#define GROWTH_ROWS 5000
#define NAME_SIZE 200

static void long_name(int64_t id, char out[NAME_SIZE + 1])
{
    for (int i = 0; i < NAME_SIZE; i++) out[i] = (char)('a' + (id + i) % 26);
    out[NAME_SIZE] = 0;
}

/* People first ... first+count-1 with long names, for write_retrying(). */
typedef struct people {
    const person_schema *schema;
    int64_t first, count;
} people;

static int create_people(lar_txn *txn, void *context)
{
    const people *r = context;
    char name[NAME_SIZE + 1];
    int rc = LAR_OK;
    for (int64_t id = r->first; !rc && id < r->first + r->count; id++) {
        long_name(id, name);
        lar_value values[4];
        values[r->schema->id] = val_int(id);
        values[r->schema->name] = val_str(name);
        values[r->schema->age] = val_int(id);
        values[r->schema->score] = val_double(0);
        rc = lar_obj_create(txn, r->schema->cls, values, 4, NULL);
    }
    return rc;
}

static void child_grows_the_map(const char *path, channel *c)
{
    pipe_expect(c->to_child[0], 'S', WAIT_MS);
    lar_env *env = open_env_with(path, (size_t)1 << 16, LAR_ENV_NOSYNC);
    person_schema p = person_lookup(env);
    people rows = {&p, 100, GROWTH_ROWS};
    write_retrying(env, create_people, &rows);
    CHECK(env_info(env).map_size > ((size_t)1 << 16));
    close_env(env);
    pipe_send(c->to_parent[1], 'D');
    child_exit_ok();
}

/* Forks a child that, once told, grows the file past a 64 KiB map. */
static pid_t fork_map_grower(const char *path, channel *c)
{
    pid_t pid = test_fork();
    if (pid == 0) {
        channel_side(c, true);
        child_grows_the_map(path, c);
    }
    channel_side(c, false);
    return pid;
}

static void let_the_child_grow_the_map(channel *c, pid_t pid)
{
    pipe_send(c->to_child[1], 'S');
    pipe_expect(c->to_parent[0], 'D', 60000);
    wait_child_ok(pid, WAIT_MS);
}

/* "Its map grows on demand": another process grew it; this one must follow. */
TEST(process_map_grown_by_another_process)
{
    const char *path = test_db_path(NULL);
    channel c = channel_open();
    pid_t pid = fork_map_grower(path, &c);
    lar_env *env = open_env_with(path, (size_t)1 << 16, LAR_ENV_NOSYNC);
    person_schema p = person_setup(env);
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "first", 1, 1);
    commit_txn(txn);
    lar_txn *snapshot = begin_read(env); /* open while the other process grows the file */
    let_the_child_grow_the_map(&c, pid);

    CHECK_EQ(count_objects(snapshot, p.cls), 1);
    CHECK_OK(lar_txn_commit(snapshot));
    CHECK_OK(lar_txn_renew(snapshot));
    CHECK_EQ(count_objects(snapshot, p.cls), 1 + GROWTH_ROWS);
    commit_txn(snapshot);

    txn = begin_read(env);
    char name[NAME_SIZE + 1];
    for (int64_t id = 100; id < 100 + GROWTH_ROWS; id += 97) {
        long_name(id, name);
        CHECK_VALUE(get_value(txn, person_find(txn, &p, id), p.name), val_str(name));
    }
    commit_txn(txn);
    /* This process writes more on top of the grown file. */
    people more = {&p, 10000, 1000};
    write_retrying(env, create_people, &more);
    txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 1 + GROWTH_ROWS + 1000);
    commit_txn(txn);
    CHECK(env_info(env).map_size > ((size_t)1 << 16));
    close_env(env);
    channel_close(&c);
}

/* A thread holding a snapshot, after another process grew the file past this process's
 * map: the map cannot follow while the snapshot lives, but nothing waits. The schema
 * lookups answer from the schema this process knows (they used to wait 30 s on their
 * own thread's lock and fail), a new transaction fails at once with LAR_EMAPFULL, and
 * once the snapshot ends the map follows. */
TEST(process_lookups_beside_a_snapshot_never_wait_for_the_map)
{
    const char *path = test_db_path(NULL);
    channel c = channel_open();
    pid_t pid = fork_map_grower(path, &c);
    lar_env *env = open_env_with(path, (size_t)1 << 16, LAR_ENV_NOSYNC);
    person_schema p = person_setup(env);
    lar_txn *snapshot = begin_read(env);
    let_the_child_grow_the_map(&c, pid);

    int64_t started = now_ms();
    lar_class cls;
    CHECK_OK(lar_class_find(env, "Person", &cls));
    CHECK_EQ(cls, p.cls);
    lar_class_info info;
    CHECK_OK(lar_class_info_get(env, cls, &info));
    uint32_t prop;
    CHECK_OK(lar_property_find(env, cls, "name", &prop));
    lar_txn *other;
    CHECK_RC(lar_txn_begin(env, LAR_TXN_READ, &other), LAR_EMAPFULL);
    CHECK(now_ms() - started < 1000);
    CHECK_EQ(count_objects(snapshot, p.cls), 0); /* the snapshot reads on */
    commit_txn(snapshot);

    lar_txn *txn = begin_read(env); /* no transaction was live: the map followed */
    CHECK_EQ(count_objects(txn, p.cls), GROWTH_ROWS);
    commit_txn(txn);
    close_env(env);
    channel_close(&c);
}

/* Two processes writing at the same time, on a tiny map that both keep growing: every
 * commit of both lands once. A writer that grows the map begins its LMDB transaction
 * again, so this also checks that the other process cannot slip in between. */
static void write_rounds(lar_env *env, int64_t first_id)
{
    person_schema p = person_lookup(env);
    for (int round = 0; round < 50; round++) {
        people rows = {&p, first_id + round * 10, 10};
        write_retrying(env, create_people, &rows);
    }
}

TEST(process_concurrent_writers)
{
    const char *path = test_db_path(NULL);
    lar_env *setup = open_env(path);
    person_setup(setup);
    close_env(setup); /* closed before fork: nothing of it crosses */

    channel c = channel_open();
    pid_t pid = test_fork();
    if (pid == 0) {
        channel_side(&c, true);
        lar_env *env = open_env_with(path, (size_t)1 << 16, LAR_ENV_NOSYNC);
        pipe_send(c.to_parent[1], 'O');
        pipe_expect(c.to_child[0], 'G', WAIT_MS);
        write_rounds(env, 100000);
        close_env(env);
        child_exit_ok();
    }
    channel_side(&c, false);
    /* Both open before either writes: opening during a growth is another test's subject. */
    lar_env *mine = open_env_with(path, (size_t)1 << 16, LAR_ENV_NOSYNC);
    pipe_expect(c.to_parent[0], 'O', WAIT_MS);
    pipe_send(c.to_child[1], 'G');
    write_rounds(mine, 0);
    close_env(mine);
    wait_child_ok(pid, 60000);

    lar_env *env = open_env(path);
    person_schema p = person_lookup(env);
    lar_txn *txn = begin_read(env);
    CHECK_EQ(count_objects(txn, p.cls), 1000);
    char name[NAME_SIZE + 1];
    for (int64_t id = 0; id < 500; id++) {
        long_name(id, name);
        CHECK_VALUE(get_value(txn, person_find(txn, &p, id), p.name), val_str(name));
        long_name(100000 + id, name);
        CHECK_VALUE(get_value(txn, person_find(txn, &p, 100000 + id), p.name), val_str(name));
    }
    CHECK_EQ(count_by_iteration(txn, p.cls), 1000);
    commit_txn(txn);
    close_env(env);
    channel_close(&c);
}

/* Keeps writing long rows on a tiny map until told to stop, so the file keeps growing. */
static void grow_until_stopped(const char *path, channel *c)
{
    lar_env *env = open_env_with(path, (size_t)1 << 16, LAR_ENV_NOSYNC);
    person_schema p = person_lookup(env);
    pipe_send(c->to_parent[1], 'O');
    int64_t id = 1;
    while (!pipe_readable(c->to_child[0], 0) && id < 200000) {
        people rows = {&p, id, 20};
        write_retrying(env, create_people, &rows);
        id += 20;
    }
    /* Past the cap, wait for the parent: it writes to us when its time is up. */
    pipe_expect(c->to_child[0], 'X', WAIT_MS);
    close_env(env);
    child_exit_ok();
}

/* Opening a file whose map another process is growing at that moment must work, whatever
 * the initial_map_size: "Its map grows on demand". */
TEST(process_open_while_another_process_grows_the_map)
{
    const char *path = test_db_path(NULL);
    lar_env *setup = open_env(path);
    person_setup(setup);
    close_env(setup);

    channel c = channel_open();
    pid_t pid = test_fork();
    if (pid == 0) {
        channel_side(&c, true);
        grow_until_stopped(path, &c);
    }
    channel_side(&c, false);
    pipe_expect(c.to_parent[0], 'O', WAIT_MS);
    int64_t until = now_ms() + 1500;
    int opens = 0;
    while (now_ms() < until) {
        lar_env *env = open_env_with(path, (size_t)1 << 16, 0);
        person_schema p = person_lookup(env);
        lar_txn *txn = begin_read(env);
        uint64_t n = count_objects(txn, p.cls);
        if (n > 0) person_find(txn, &p, 1);
        commit_txn(txn);
        close_env(env);
        opens++;
    }
    pipe_send(c.to_child[1], 'X');
    wait_child_ok(pid, 60000);
    CHECK(opens > 0);
    channel_close(&c);
}
