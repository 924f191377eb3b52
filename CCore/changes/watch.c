/* Learning that any process committed, without polling in a loop: inotify on the data
 * file, which every commit writes (LMDB writes pages with pwrite, the meta page last:
 * the environment never maps the file writable), confirmed by the file's last
 * committed version, since a wake-up may come from a commit's first pages before its
 * meta page, or from a write that did not commit. The version reported is the one new
 * readers see: LMDB publishes it in the lock file (which wakes no watch) a moment after
 * it writes the meta page, so a wake-up that finds the page ahead waits for that. */
#include "changes/changes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __linux__
#include <poll.h>
#include <sched.h>
#include <sys/inotify.h>
#include <unistd.h>
#endif

struct lar_watch {
    lar_env *env;
    int fd;
    uint64_t seen;            /* the last version reported (or current at open) */
};

#ifdef __linux__

int lar_watch_open(lar_env *env, lar_watch **out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_watch_open: out is NULL");
    *out = NULL;
    if (!env) return lar_fail(LAR_EINVAL, "lar_watch_open: env is NULL");
    lar_watch *w = calloc(1, sizeof *w);
    if (!w) return lar_fail(LAR_ENOMEM, "out of memory opening a watch");
    w->env = env;
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->fd < 0 || inotify_add_watch(w->fd, env->path, IN_MODIFY) < 0) {
        int code = errno == ENOMEM || errno == EMFILE || errno == ENFILE || errno == ENOSPC ? LAR_EBUSY : LAR_EIO;
        int err = lar_fail(code, "cannot watch '%s': %s", env->path, strerror(errno));
        if (w->fd >= 0) close(w->fd);
        free(w);
        return err;
    }
    int err = kv_env_version(env, &w->seen); /* after the watch: no commit falls between */
    if (err) {
        close(w->fd);
        free(w);
        return err;
    }
    *out = w;
    return LAR_OK;
}

int lar_watch_fd(const lar_watch *watch, int *out)
{
    if (!watch || !out) return lar_fail(LAR_EINVAL, "lar_watch_fd: watch and out must not be NULL");
    *out = watch->fd;
    return LAR_OK;
}

/* Reads every pending event: the next poll() waits for writes after this point. */
static void drain(int fd)
{
    char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    while (read(fd, events, sizeof events) > 0) {}
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* How long a commit whose meta page is written may take to be published to new readers
 * before the watch gives up on it: its writer died in between, and the next commit, which
 * reuses its version, publishes it (and wakes the watch). */
#define PUBLISH_WAIT_MS 1000

/* The version new readers see, once a commit whose meta page is written is published. */
static int readable_version(lar_env *env, uint64_t *out)
{
    int64_t give_up = now_ms() + PUBLISH_WAIT_MS;
    for (int attempt = 0;; attempt++) {
        uint64_t written;
        int err = kv_env_version(env, out); /* first: a commit published after it is seen as written */
        if (!err) err = kv_env_written_version(env, &written);
        if (err || written <= *out || now_ms() >= give_up) return err;
        if (attempt < 100) sched_yield();
        else usleep(100);
    }
}

int lar_watch_wait(lar_watch *watch, int timeout_ms, uint64_t *version)
{
    if (!watch || !version) return lar_fail(LAR_EINVAL, "lar_watch_wait: watch and version must not be NULL");
    int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    for (;;) {
        drain(watch->fd); /* first: a write after this wakes the poll below */
        uint64_t current;
        int err = readable_version(watch->env, &current);
        if (err) return err;
        if (current > watch->seen) {
            watch->seen = *version = current;
            return LAR_OK;
        }
        int wait = deadline < 0 ? -1 : (int)(deadline - now_ms() > 0 ? deadline - now_ms() : 0);
        if (deadline >= 0 && wait == 0) return LAR_ENOTFOUND; /* timed out: not an error */
        struct pollfd pfd = {watch->fd, POLLIN, 0};
        if (poll(&pfd, 1, wait) < 0 && errno != EINTR)
            return lar_fail(LAR_EIO, "cannot wait for commits: %s", strerror(errno));
    }
}

void lar_watch_close(lar_watch *watch)
{
    if (!watch) return;
    close(watch->fd);
    free(watch);
}

#else /* no inotify */

int lar_watch_open(lar_env *env, lar_watch **out)
{
    (void)env;
    if (out) *out = NULL;
    return lar_fail(LAR_ENOTSUP, "lar_watch_open: watching for commits needs inotify (Linux)");
}

int lar_watch_fd(const lar_watch *watch, int *out)
{
    (void)watch;
    (void)out;
    return lar_fail(LAR_EINVAL, "lar_watch_fd: no watch");
}

int lar_watch_wait(lar_watch *watch, int timeout_ms, uint64_t *version)
{
    (void)watch;
    (void)timeout_ms;
    (void)version;
    return lar_fail(LAR_EINVAL, "lar_watch_wait: no watch");
}

void lar_watch_close(lar_watch *watch)
{
    (void)watch;
}

#endif
