/* Watching for commits: another process's commit wakes a watch (its fd and its wait),
 * and the change log tells what it did. */
#include "test.h"

#include <poll.h>
#include <unistd.h>

#define WAIT_MS 20000

TEST(watch_sees_a_commit_of_another_process)
{
    const char *path = test_db_path(NULL);
    int go[2];
    CHECK(pipe(go) == 0);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    pid_t pid = test_fork();
    if (pid == 0) {
        close(go[1]);
        pipe_expect(go[0], 'G', WAIT_MS);
        lar_env *child = open_env(path);
        lar_txn *txn = begin_write(child);
        person_create(txn, &p, 7, "from the child", 7, 7);
        commit_txn(txn);
        close_env(child);
        child_exit_ok();
    }
    close(go[0]);
    lar_watch *w;
    CHECK_OK(lar_watch_open(env, &w));
    uint64_t before, version = 0;
    CHECK_OK(lar_env_version(env, &before));
    CHECK_END(lar_watch_wait(w, 0, &version)); /* nothing yet */
    int fd;
    CHECK_OK(lar_watch_fd(w, &fd));
    pipe_send(go[1], 'G');
    struct pollfd pfd = {fd, POLLIN, 0};
    CHECK(poll(&pfd, 1, WAIT_MS) == 1);
    CHECK_OK(lar_watch_wait(w, WAIT_MS, &version)); /* the write may come before the commit: it waits for it */
    CHECK(version > before);
    wait_child_ok(pid, WAIT_MS);
    lar_txn *txn = begin_read(env);
    lar_obj child_obj = person_find(txn, &p, 7);
    lar_changes *ch;
    CHECK_OK(lar_changes_read(txn, before, &ch));
    int state;
    size_t count;
    CHECK_OK(lar_changes_object(ch, child_obj, &state, NULL, 0, &count));
    CHECK_EQ(state, LAR_OBJECT_INSERTED);
    lar_changes_free(ch);
    commit_txn(txn);
    CHECK_END(lar_watch_wait(w, 0, &version)); /* reported once */
    lar_watch_close(w);
    close(go[1]);
    close_env(env);
}

TEST(watch_times_out_and_sees_this_process_commits)
{
    lar_env *env = open_env(test_db_path(NULL));
    person_schema p = person_setup(env);
    lar_watch *w;
    CHECK_OK(lar_watch_open(env, &w));
    uint64_t version;
    CHECK_END(lar_watch_wait(w, 30, &version));
    lar_txn *txn = begin_write(env);
    person_create(txn, &p, 1, "a", 1, 1);
    uint64_t written;
    CHECK_OK(lar_txn_version(txn, &written));
    commit_txn(txn);
    CHECK_OK(lar_watch_wait(w, 0, &version));
    CHECK_EQ(version, written);
    txn = begin_write(env); /* a write that does not commit wakes nothing */
    person_create(txn, &p, 2, "b", 2, 2);
    CHECK_OK(lar_txn_abort(txn));
    lar_txn_free(txn);
    CHECK_END(lar_watch_wait(w, 30, &version));

    lar_watch *none = w;
    CHECK_RC(lar_watch_open(NULL, &none), LAR_EINVAL);
    CHECK(none == NULL);
    CHECK_RC(lar_watch_open(env, NULL), LAR_EINVAL);
    int fd;
    CHECK_RC(lar_watch_fd(NULL, &fd), LAR_EINVAL);
    CHECK_RC(lar_watch_fd(w, NULL), LAR_EINVAL);
    CHECK_RC(lar_watch_wait(NULL, 0, &version), LAR_EINVAL);
    CHECK_RC(lar_watch_wait(w, 0, NULL), LAR_EINVAL);
    lar_watch_close(w);
    lar_watch_close(NULL);
    close_env(env);
}

/* LMDB writes a commit's meta page (the last write a watch sees) a moment before it
 * lets new readers use the commit (in the lock file, which wakes no watch): a wait must
 * report each commit, and only once a read transaction begun right after sees it. */
TEST(watch_reports_each_commit_once_a_new_reader_sees_it)
{
    enum { COMMITS = 300, COMMIT_MS = 2000 };
    const char *path = test_db_path(NULL);
    int go[2];
    CHECK(pipe(go) == 0);
    lar_env *env = open_env(path);
    person_schema p = person_setup(env);
    lar_watch *w;
    CHECK_OK(lar_watch_open(env, &w));
    uint64_t start;
    CHECK_OK(lar_env_version(env, &start));
    pid_t pid = test_fork();
    if (pid == 0) {
        close(go[1]);
        lar_env *child = open_env(path);
        for (int64_t i = 0; i < COMMITS; i++) {
            pipe_expect(go[0], 'N', WAIT_MS);
            lar_txn *txn = begin_write(child);
            person_create(txn, &p, i, "committer", i, i);
            commit_txn(txn);
        }
        close_env(child);
        child_exit_ok();
    }
    close(go[0]);
    for (uint64_t i = 1; i <= COMMITS; i++) {
        pipe_send(go[1], 'N');
        uint64_t version = 0, seen;
        CHECK_OK(lar_watch_wait(w, COMMIT_MS, &version)); /* LAR_ENOTFOUND: the commit was missed */
        CHECK_EQ(version, start + i);
        lar_txn *txn = begin_read(env);
        CHECK_OK(lar_txn_version(txn, &seen));
        commit_txn(txn);
        CHECK(seen >= version);
    }
    wait_child_ok(pid, WAIT_MS);
    lar_watch_close(w);
    close(go[1]);
    close_env(env);
}
