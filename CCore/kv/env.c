/* Environments: opening files, the per-process registry, map growth, and the
 * schema in effect for a snapshot. */
#include "kv/kv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Address space reserved for the map. Without MDB_WRITEMAP the file grows only
 * with its data, so a large reservation costs nothing on 64-bit systems and
 * makes growth, which must wait for every transaction of the process, rare. */
#define DEFAULT_MAP_SIZE (sizeof(size_t) >= 8 ? (size_t)1 << 40 : (size_t)1 << 30)
/* Where the reservation stops halving when the address space is limited (RLIMIT_AS). */
#define SMALLEST_DEFAULT_MAP ((size_t)64 << 20)
#define MAX_READERS 256
/* Pages the file may grow by before a writer looks for dead readers again: one that
 * died holding a snapshot keeps every page freed since from reuse. */
#define DEAD_READER_CHECK_PAGES 256

/* LMDB forbids opening one file twice in a process: every open shares one lar_env. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static lar_env *registry;

int lar_env_options_init(lar_env_options *options)
{
    if (!options) return lar_fail(LAR_EINVAL, "lar_env_options_init: options is NULL");
    options->version = LAR_ENV_OPTIONS_VERSION;
    options->initial_map_size = DEFAULT_MAP_SIZE;
    options->flags = 0;
    return LAR_OK;
}

/* Finds the file's identity, if it exists; refuses what is not a regular file. */
static int identify_file(const char *path, struct stat *st, bool *exists)
{
    *exists = stat(path, st) == 0;
    if (!*exists) return errno == ENOENT ? LAR_OK : lar_fail(LAR_EIO, "cannot open '%s': %s", path, strerror(errno));
    if (!S_ISREG(st->st_mode)) return lar_fail(LAR_EIO, "cannot open '%s': not a regular file", path);
    return LAR_OK;
}

/* Opens the file (creating it when missing and writable) and takes the open lock: a
 * record lock on its first byte, exclusive for a writable open, which may write LMDB's
 * header and Larder's setup, shared for a read-only one, so that no open reads a header
 * another process is still writing. A process's record locks die with it and are not
 * inherited by fork(): a child forked meanwhile cannot hold up later opens. The lock is
 * best effort (where the file system has none, LMDB's own locks serialise most opens);
 * closing any descriptor of the file releases it. */
static int open_locked(const char *path, bool readonly, int *fd)
{
    *fd = open(path, (readonly ? O_RDONLY : O_RDWR | O_CREAT) | O_NONBLOCK | O_CLOEXEC, 0644);
    if (*fd < 0) {
        int code = !readonly && (errno == EACCES || errno == EROFS || errno == EPERM) ? LAR_EREADONLY : LAR_EIO;
        return lar_fail(code, "cannot open '%s'%s: %s", path, readonly ? "" : " for writing", strerror(errno));
    }
    struct flock range = {.l_type = readonly ? F_RDLCK : F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
    while (fcntl(*fd, F_SETLKW, &range) != 0 && errno == EINTR) continue;
    return LAR_OK;
}

/* Checks the locked file before LMDB maps it. A file of no bytes is new: LMDB writes its
 * header. So is one holding only the start of a new header (a kill cut LMDB's first
 * write short): LMDB would refuse it, and no process can have it open, so a writable
 * open empties it. */
static int check_locked(const char *path, int fd, bool readonly, struct stat *st)
{
    if (fstat(fd, st) != 0) return lar_fail(LAR_EIO, "cannot stat '%s': %s", path, strerror(errno));
    if (!S_ISREG(st->st_mode)) return lar_fail(LAR_EIO, "cannot open '%s': not a regular file", path);
    int err = st->st_size == 0 ? KV_NEW_HEADER_CUT_SHORT : kv_check_file(path, fd);
    if (err != KV_NEW_HEADER_CUT_SHORT) return err;
    if (readonly)
        return lar_fail(LAR_ENOTLARDER, "'%s' was never set up as a Larder database (it is empty, or its "
                        "first open did not finish): open it once without LAR_ENV_READONLY", path);
    if (st->st_size > 0 && ftruncate(fd, 0) != 0)
        return lar_fail(LAR_EIO, "cannot empty '%s': %s", path, strerror(errno));
    return LAR_OK;
}

static int put_meta_u64(MDB_txn *txn, MDB_dbi meta, const char *name, uint64_t value)
{
    MDB_val key = {strlen(name), (void *)name}, data = {sizeof value, &value};
    return mdb_put(txn, meta, &key, &data, 0);
}

void env_clear_dead_readers(lar_env *env)
{
    int dead;
    (void)mdb_reader_check(env->mdb, &dead); /* best effort: on failure the slots stay as they were */
}

void env_clear_dead_readers_on_growth(lar_env *env)
{
    MDB_envinfo info;
    if (mdb_env_info(env->mdb, &info) != 0) return;
    if (info.me_last_pgno < env->readers_checked_at + DEAD_READER_CHECK_PAGES) return;
    env_clear_dead_readers(env);
    env->readers_checked_at = info.me_last_pgno;
}

int env_begin_mdb(lar_env *env, unsigned int flags, MDB_txn **out)
{
    int rc = mdb_txn_begin(env->mdb, NULL, flags, out);
    if (rc == MDB_READERS_FULL) {
        env_clear_dead_readers(env);
        rc = mdb_txn_begin(env->mdb, NULL, flags, out);
    }
    return rc;
}

/* Begins a transaction of an environment not yet shared with other threads,
 * adopting the map when another process has grown it. */
int env_begin_private(lar_env *env, unsigned int flags, MDB_txn **txn)
{
    int rc;
    while ((rc = env_begin_mdb(env, flags, txn)) == MDB_MAP_RESIZED) {
        rc = mdb_env_set_mapsize(env->mdb, 0);
        if (rc) break;
    }
    return rc;
}

/* Doubles the map. No transaction of this process may be live: the caller holds
 * the map lock exclusively, or the environment is not shared yet. */
static int grow_map(lar_env *env)
{
    MDB_envinfo info;
    int rc = mdb_env_info(env->mdb, &info);
    if (!rc) rc = mdb_env_set_mapsize(env->mdb, info.me_mapsize * 2);
    return rc ? lar_fail_mdb(rc, "cannot grow the map") : LAR_OK;
}

/* Writes the empty metadata of a new file, unless another process just did. */
static int write_metadata(lar_env *env)
{
    MDB_txn *txn;
    int rc = env_begin_private(env, 0, &txn);
    if (rc) return rc;
    MDB_dbi main_dbi, meta;
    MDB_stat stat;
    rc = mdb_dbi_open(txn, NULL, 0, &main_dbi);
    if (!rc) rc = mdb_stat(txn, main_dbi, &stat);
    if (!rc && stat.ms_entries > 0) { /* initialized meanwhile, or foreign */
        mdb_txn_abort(txn);
        return 0;
    }
    uint32_t format = LARDER_FORMAT_VERSION;
    MDB_val key = {strlen(META_FORMAT), META_FORMAT}, data = {sizeof format, &format};
    if (!rc) rc = mdb_dbi_open(txn, "larder", MDB_CREATE, &meta);
    if (!rc) rc = mdb_put(txn, meta, &key, &data, 0);
    if (!rc) rc = put_meta_u64(txn, meta, META_GENERATION, 0);
    if (!rc) rc = put_meta_u64(txn, meta, META_SCHEMA_VERSION, 0);
    if (!rc) rc = mdb_dbi_open(txn, "pk", MDB_CREATE, &env->pk_dbi);
    if (!rc) rc = mdb_dbi_open(txn, "index", MDB_CREATE | MDB_DUPSORT | MDB_DUPFIXED | MDB_INTEGERDUP,
                               &env->index_dbi);
    if (rc) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn);
}

/* Sets up a new file; a map too small for even that grows as every write's does. */
static int initialize_file(lar_env *env)
{
    int rc;
    while ((rc = write_metadata(env)) == MDB_MAP_FULL) {
        int err = grow_map(env);
        if (err) return err;
    }
    return rc ? lar_fail_mdb(rc, "cannot initialize the database") : LAR_OK;
}

/* Opens the metadata tables, checks the format and loads the schema. */
static int attach_file(lar_env *env)
{
    MDB_txn *txn;
    int rc = env_begin_private(env, MDB_RDONLY, &txn);
    if (rc) return lar_fail_mdb(rc, "cannot read the database");
    int checked = kv_check_tables(txn, env->path);
    if (checked) {
        mdb_txn_abort(txn);
        return checked;
    }
    rc = mdb_dbi_open(txn, "larder", 0, &env->meta_dbi);
    if (rc == MDB_NOTFOUND || rc == MDB_INCOMPATIBLE) {
        mdb_txn_abort(txn);
        return lar_fail(LAR_ENOTLARDER, "'%s' is not a Larder database", env->path);
    }
    uint32_t format = 0;
    MDB_val key = {strlen(META_FORMAT), META_FORMAT}, data;
    if (!rc) {
        rc = mdb_get(txn, env->meta_dbi, &key, &data);
        if (rc == MDB_NOTFOUND || (!rc && data.mv_size != sizeof format)) {
            mdb_txn_abort(txn);
            return lar_fail(LAR_ENOTLARDER, "'%s' has no Larder format version", env->path);
        }
        if (!rc) memcpy(&format, data.mv_data, sizeof format);
    }
    if (!rc && format > LARDER_FORMAT_VERSION) {
        mdb_txn_abort(txn);
        return lar_fail(LAR_EVERSION, "'%s' has format version %u; this library reads up to %u",
                        env->path, format, LARDER_FORMAT_VERSION);
    }
    if (!rc && format < LARDER_FORMAT_VERSION) { /* its layout changed since: it would be misread */
        mdb_txn_abort(txn);
        return lar_fail(LAR_EVERSION, "'%s' has format version %u, an older layout this library no longer reads "
                        "(it reads format %u)", env->path, format, LARDER_FORMAT_VERSION);
    }
    if (!rc) rc = mdb_dbi_open(txn, "pk", 0, &env->pk_dbi);
    if (!rc) rc = mdb_dbi_open(txn, "index", MDB_DUPSORT | MDB_DUPFIXED | MDB_INTEGERDUP, &env->index_dbi);
    if (rc) {
        mdb_txn_abort(txn);
        return lar_fail_mdb(rc, "cannot read the database metadata");
    }
    int err = schema_load(txn, env->meta_dbi, &env->schema);
    if (err) {
        mdb_txn_abort(txn);
        return err;
    }
    rc = mdb_txn_commit(txn); /* a read commit keeps the opened DBI handles */
    return rc ? lar_fail_mdb(rc, "cannot read the database") : LAR_OK;
}

static bool file_is_empty_lmdb(lar_env *env)
{
    MDB_txn *txn;
    MDB_dbi main_dbi;
    MDB_stat stat;
    if (env_begin_private(env, MDB_RDONLY, &txn)) return false;
    bool empty = !mdb_dbi_open(txn, NULL, 0, &main_dbi) && !mdb_stat(txn, main_dbi, &stat) &&
                 stat.ms_entries == 0;
    mdb_txn_abort(txn);
    return empty;
}

static void env_destroy(lar_env *env)
{
    txn_detach_all(env);
    txn_drop_spares(env);
    if (env->mdb) mdb_env_close(env->mdb);
    if (env->lock_fd >= 0) close(env->lock_fd);
    schema_free(env->schema);
    schema_free(env->retired);
    pthread_mutex_destroy(&env->mutex);
    pthread_cond_destroy(&env->writer_done);
    pthread_rwlock_destroy(&env->map_lock);
    free(env->path);
    free(env);
}

static int env_create(const char *path, const lar_env_options *options, lar_env **out)
{
    lar_env *env = calloc(1, sizeof *env);
    if (!env || !(env->path = strdup(path))) {
        free(env);
        return lar_fail(LAR_ENOMEM, "out of memory opening '%s'", path);
    }
    env->flags = options->flags;
    env->refcount = 1;
    env->lock_fd = -1;
    pthread_mutex_init(&env->mutex, NULL);
    pthread_cond_init(&env->writer_done, NULL);
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    /* A growing writer must not starve behind a stream of new readers. */
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&env->map_lock, &attr);
    pthread_rwlockattr_destroy(&attr);
    *out = env;
    return LAR_OK;
}

static int open_mdb(lar_env *env, unsigned int flags, size_t map_size)
{
    int rc = mdb_env_create(&env->mdb);
    if (!rc) rc = mdb_env_set_maxdbs(env->mdb, MAX_CLASSES + 8);
    if (!rc) rc = mdb_env_set_maxreaders(env->mdb, MAX_READERS);
    if (!rc) rc = mdb_env_set_mapsize(env->mdb, map_size);
    if (!rc) rc = mdb_env_open(env->mdb, env->path, flags, 0644);
    if (rc && env->mdb) {
        mdb_env_close(env->mdb); /* LMDB's rule after a failed open */
        env->mdb = NULL;
    }
    return rc;
}

/* Whether the lock file is there, or may be (when that cannot be told). */
static bool lock_file_exists(const lar_env *env)
{
    size_t size = strlen(env->path) + sizeof "-lock";
    char *lock = malloc(size);
    if (!lock) return true;
    snprintf(lock, size, "%s-lock", env->path);
    struct stat st;
    bool exists = stat(lock, &st) == 0 || errno != ENOENT;
    free(lock);
    return exists;
}

/* A read-only open in a directory where the lock file can be neither found nor created
 * (a bundled database) goes on without one, as LMDB itself does on a read-only file
 * system. No process has the file open through LMDB then, since each would have made
 * the lock file; one that starts writing later would not see this process's readers. */
static bool may_open_without_lock(const lar_env *env, unsigned int flags, int rc)
{
    return (flags & MDB_RDONLY) && !(flags & MDB_NOLOCK) && (rc == EACCES || rc == EPERM) &&
           !lock_file_exists(env);
}

/* An LMDB file whose main database is empty is new, whatever its size: a process
 * killed during a first open leaves LMDB's header without Larder's metadata. */
static int set_up_if_new(lar_env *env, bool readonly)
{
    if (!file_is_empty_lmdb(env)) return LAR_OK;
    if (readonly)
        return lar_fail(LAR_ENOTLARDER, "'%s' was never set up as a Larder database (its first open did "
                        "not finish): open it once without LAR_ENV_READONLY", env->path);
    return initialize_file(env);
}

static int env_start(lar_env *env, const lar_env_options *options)
{
    bool readonly = options->flags & LAR_ENV_READONLY;
    unsigned int flags = MDB_NOSUBDIR | MDB_NOTLS | (readonly ? MDB_RDONLY : 0) |
                         ((options->flags & LAR_ENV_NOSYNC) ? MDB_NOSYNC : 0);
    size_t map_size = options->initial_map_size;
    int rc = open_mdb(env, flags, map_size);
    /* The default reservation halves where address space is limited (ENOMEM; valgrind
     * refuses a map larger than it manages with EINVAL); a size the caller chose does not. */
    bool reservation = options->initial_map_size == DEFAULT_MAP_SIZE;
    while ((rc == ENOMEM || rc == EINVAL) && reservation && map_size > SMALLEST_DEFAULT_MAP) {
        map_size /= 2;
        rc = open_mdb(env, flags, map_size);
    }
    if (rc && may_open_without_lock(env, flags, rc)) {
        flags |= MDB_NOLOCK;
        rc = open_mdb(env, flags, map_size);
    }
    if (rc) return lar_fail_mdb(rc, env->path);
    MDB_stat stat;
    env->page_size = mdb_env_stat(env->mdb, &stat) == 0 && stat.ms_psize ? stat.ms_psize : 4096;
    env_clear_dead_readers(env);
    MDB_envinfo info;
    if (mdb_env_info(env->mdb, &info) == 0) env->readers_checked_at = info.me_last_pgno;
    int err = set_up_if_new(env, readonly);
    if (!err) err = attach_file(env);
    if (!err) err = env_attach_history(env, !readonly);
    if (err) return err;
    env->lock_fd = open(env->path, O_RDONLY | O_CLOEXEC);
    if (env->lock_fd < 0) return lar_fail(LAR_EIO, "cannot open '%s': %s", env->path, strerror(errno));
    return LAR_OK;
}

/* The environment already open on path in this process, or NULL. The caller holds the registry lock. */
static lar_env *registered(const struct stat *st)
{
    for (lar_env *env = registry; env; env = env->next)
        if (env->device == st->st_dev && env->inode == st->st_ino) return env;
    return NULL;
}

/* Opens a new environment on the locked file. The caller holds the registry lock. */
static int env_open_new(const char *path, const lar_env_options *options, lar_env **out)
{
    bool readonly = options->flags & LAR_ENV_READONLY;
    int fd;
    struct stat st;
    int err = open_locked(path, readonly, &fd);
    if (err) return err;
    err = check_locked(path, fd, readonly, &st);
    lar_env *env = NULL;
    if (!err) err = env_create(path, options, &env);
    if (!err) {
        env->device = st.st_dev;
        env->inode = st.st_ino;
        err = env_start(env, options);
        if (err) env_destroy(env);
    }
    close(fd); /* after the setup: releases the open lock */
    if (!err) {
        env->next = registry;
        registry = env;
        *out = env;
    }
    return err;
}

/* Shares the environment this process has open on path, or opens one. The caller holds the registry lock. */
static int env_open_locked(const char *path, const lar_env_options *options, lar_env **out)
{
    struct stat st;
    bool exists;
    int err = identify_file(path, &st, &exists);
    if (err) return err;
    lar_env *env = exists ? registered(&st) : NULL;
    if (env) {
        env->refcount++;
        *out = env;
        return LAR_OK;
    }
    return env_open_new(path, options, out);
}

int lar_env_open(const char *path, const lar_env_options *options, lar_env **out)
{
    if (!path || !out) return lar_fail(LAR_EINVAL, "lar_env_open: path and out must not be NULL");
    lar_env_options defaults;
    lar_env_options_init(&defaults);
    if (!options) options = &defaults;
    if (options->version != LAR_ENV_OPTIONS_VERSION)
        return lar_fail(LAR_EINVAL, "lar_env_open: unknown options version %u", options->version);
    if (options->flags & ~(LAR_ENV_READONLY | LAR_ENV_NOSYNC))
        return lar_fail(LAR_EINVAL, "lar_env_open: unknown flags 0x%x", options->flags);

    pthread_mutex_lock(&registry_lock);
    lar_env *env = NULL;
    int err = env_open_locked(path, options, &env);
    pthread_mutex_unlock(&registry_lock);
    if (!err) *out = env;
    return err;
}

int lar_env_close(lar_env *env)
{
    if (!env) return LAR_OK;
    pthread_mutex_lock(&registry_lock);
    if (env->refcount == 1) {
        pthread_mutex_lock(&env->mutex);
        int live = env->live_txns;
        pthread_mutex_unlock(&env->mutex);
        if (live > 0) {
            pthread_mutex_unlock(&registry_lock);
            return lar_fail(LAR_EMISUSE, "lar_env_close: %d transaction(s) still active on '%s'",
                            live, env->path);
        }
        for (lar_env **link = &registry; *link; link = &(*link)->next) {
            if (*link == env) {
                *link = env->next;
                break;
            }
        }
        pthread_mutex_unlock(&registry_lock);
        env_destroy(env);
        return LAR_OK;
    }
    env->refcount--;
    pthread_mutex_unlock(&registry_lock);
    return LAR_OK;
}

int lar_env_info_get(lar_env *env, lar_env_info *out)
{
    if (!env || !out) return lar_fail(LAR_EINVAL, "lar_env_info_get: env and out must not be NULL");
    MDB_envinfo info;
    MDB_stat stat;
    int rc = mdb_env_info(env->mdb, &info);
    if (!rc) rc = mdb_env_stat(env->mdb, &stat);
    if (rc) return lar_fail_mdb(rc, "lar_env_info_get");
    out->map_size = info.me_mapsize;
    out->used_size = (info.me_last_pgno + 1) * (size_t)stat.ms_psize;
    out->format_version = LARDER_FORMAT_VERSION;
    lar_schema *schema;
    int err = env_current_schema(env, &schema);
    if (err) return err;
    out->schema_version = schema->version;
    out->class_count = schema->class_count;
    return LAR_OK;
}

/* The versions mdb_reader_list() prints, one reader a line ("pid thread txnid",
 * txnid "-" for an idle slot), gathered without duplicates. */
typedef struct version_set {
    uint64_t *versions;
    size_t count, capacity;
} version_set;

static void version_set_add(version_set *set, uint64_t version)
{
    for (size_t i = 0; i < set->count; i++)
        if (set->versions[i] == version) return;
    if (set->count < set->capacity) set->versions[set->count++] = version;
}

static int collect_reader_version(const char *line, void *ctx)
{
    int pid;
    size_t thread;
    char txnid[32];
    if (sscanf(line, "%d %zx %31s", &pid, &thread, txnid) != 3 || txnid[0] == '-') return 0;
    char *end;
    unsigned long long version = strtoull(txnid, &end, 10);
    if (*end == '\0') version_set_add(ctx, version);
    return 0;
}

int lar_env_version_count(lar_env *env, uint64_t *out)
{
    if (!env || !out) return lar_fail(LAR_EINVAL, "lar_env_version_count: env and out must not be NULL");
    unsigned int readers = 0;
    MDB_envinfo info;
    int rc = mdb_env_get_maxreaders(env->mdb, &readers);
    if (!rc) rc = mdb_env_info(env->mdb, &info);
    if (rc) return lar_fail_mdb(rc, "lar_env_version_count");
    version_set set = {malloc(((size_t)readers + 1) * sizeof(uint64_t)), 0, (size_t)readers + 1};
    if (!set.versions) return lar_fail(LAR_ENOMEM, "lar_env_version_count: out of memory");
    version_set_add(&set, (uint64_t)info.me_last_txnid); /* the newest is always kept */
    rc = mdb_reader_list(env->mdb, collect_reader_version, &set);
    *out = set.count;
    free(set.versions);
    return rc < 0 ? lar_fail_mdb(rc, "lar_env_version_count") : LAR_OK;
}

int lar_env_sync(lar_env *env)
{
    if (!env) return lar_fail(LAR_EINVAL, "lar_env_sync: env is NULL");
    if (env->flags & LAR_ENV_READONLY) return lar_fail(LAR_EREADONLY, "lar_env_sync: the environment is read-only");
    int rc = mdb_env_sync(env->mdb, 1);
    return rc ? lar_fail_mdb(rc, "lar_env_sync") : LAR_OK;
}

size_t env_map_size(lar_env *env)
{
    MDB_envinfo info;
    return mdb_env_info(env->mdb, &info) ? 0 : info.me_mapsize;
}

size_t env_request_growth(lar_env *env)
{
    pthread_mutex_lock(&env->mutex);
    env->grow_wanted = true;
    pthread_mutex_unlock(&env->mutex);
    return env_map_size(env);
}

/* Every live transaction read-holds the map lock, so holding it exclusively
 * means none is live. Trying, never waiting: a snapshot held by an idle thread
 * must not stall a write or the reads queued behind it. */
void env_try_grow(lar_env *env)
{
    if (pthread_rwlock_trywrlock(&env->map_lock) != 0) return; /* the last one to end tries again */
    pthread_mutex_lock(&env->mutex);
    bool wanted = env->grow_wanted;
    pthread_mutex_unlock(&env->mutex);
    if (wanted && grow_map(env) == LAR_OK) {
        pthread_mutex_lock(&env->mutex);
        env->grow_wanted = false;
        pthread_mutex_unlock(&env->mutex);
    }
    pthread_rwlock_unlock(&env->map_lock);
}

int env_adopt_map(lar_env *env)
{
    if (pthread_rwlock_trywrlock(&env->map_lock) != 0)
        return lar_fail(LAR_EMAPFULL, "another process grew '%s' beyond this process's map, which can "
                        "follow only once this process's other transactions on it have ended", env->path);
    int rc = mdb_env_set_mapsize(env->mdb, 0);
    pthread_rwlock_unlock(&env->map_lock);
    return rc ? lar_fail_mdb(rc, "cannot adopt the grown map") : LAR_OK;
}

void env_retire_schema(lar_env *env, lar_schema *schema)
{
    lar_schema *oldest = schema;
    while (oldest->older) oldest = oldest->older;
    pthread_mutex_lock(&env->mutex);
    oldest->older = env->retired;
    env->retired = schema;
    pthread_mutex_unlock(&env->mutex);
}

static int read_generation(MDB_txn *txn, MDB_dbi meta, uint64_t *out)
{
    MDB_val key = {strlen(META_GENERATION), META_GENERATION}, data;
    int rc = mdb_get(txn, meta, &key, &data);
    if (rc) return lar_fail_mdb(rc, "cannot read the schema generation");
    if (data.mv_size != sizeof *out) return lar_fail(LAR_ECORRUPT, "bad schema generation record");
    memcpy(out, data.mv_data, sizeof *out);
    return LAR_OK;
}

int env_schema_for(lar_env *env, MDB_txn *txn, lar_schema **out)
{
    uint64_t generation = 0;
    int err = read_generation(txn, env->meta_dbi, &generation);
    if (err) return err;
    pthread_mutex_lock(&env->mutex);
    /* An older snapshot keeps the schema it was written with. */
    for (lar_schema *known = env->schema; known; known = known->older) {
        if (known->generation == generation) {
            *out = known;
            pthread_mutex_unlock(&env->mutex);
            return LAR_OK;
        }
    }
    if (generation > env->schema->generation) {
        /* Another writer changed the schema: load it in a transaction that commits, so the
         * class tables' handles it opens stay valid for the whole environment. */
        MDB_txn *loader = NULL;
        lar_schema *fresh = NULL;
        int rc = env_begin_mdb(env, MDB_RDONLY, &loader);
        if (rc == MDB_MAP_RESIZED) {
            pthread_mutex_unlock(&env->mutex);
            return ENV_MAP_MOVED;
        }
        if (rc) err = lar_fail_mdb(rc, "cannot reload the schema");
        if (!err) err = schema_load(loader, env->meta_dbi, &fresh);
        if (!err) {
            rc = mdb_txn_commit(loader);
            if (rc) err = lar_fail_mdb(rc, "cannot reload the schema");
        } else if (loader) {
            mdb_txn_abort(loader);
        }
        if (!err) {
            fresh->older = env->schema;
            env->schema = fresh;
        } else {
            schema_free(fresh);
        }
    }
    *out = env->schema;
    pthread_mutex_unlock(&env->mutex);
    return err;
}

static void env_unlock_writer_flag(lar_env *env);

int env_lock_writer(lar_env *env)
{
    pthread_t self = pthread_self();
    pthread_mutex_lock(&env->mutex);
    if (env->writer_active && pthread_equal(env->writer_thread, self)) {
        pthread_mutex_unlock(&env->mutex);
        return lar_fail(LAR_EMISUSE, "this thread already holds a write transaction on '%s'", env->path);
    }
    while (env->writer_active) pthread_cond_wait(&env->writer_done, &env->mutex);
    env->writer_active = true;
    env->writer_thread = self;
    pthread_mutex_unlock(&env->mutex);
    /* flock() excludes other processes; threads of this one share the lock, hence the flag above. */
    while (flock(env->lock_fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            int saved = errno;
            env_unlock_writer_flag(env);
            return lar_fail(LAR_EIO, "cannot lock '%s' for writing: %s", env->path, strerror(saved));
        }
    }
    return LAR_OK;
}

static void env_unlock_writer_flag(lar_env *env)
{
    pthread_mutex_lock(&env->mutex);
    env->writer_active = false;
    pthread_cond_signal(&env->writer_done);
    pthread_mutex_unlock(&env->mutex);
}

void env_unlock_writer(lar_env *env)
{
    flock(env->lock_fd, LOCK_UN);
    env_unlock_writer_flag(env);
}

/* ---- the stored schema ---- */

static int get_meta_u64(MDB_txn *txn, MDB_dbi meta, const char *name, uint64_t *out)
{
    MDB_val key = {strlen(name), (void *)name}, data;
    int rc = mdb_get(txn, meta, &key, &data);
    if (rc) return lar_fail_mdb(rc, "cannot read the database metadata");
    if (data.mv_size != sizeof *out) return lar_fail(LAR_ECORRUPT, "bad metadata record '%s'", name);
    memcpy(out, data.mv_data, sizeof *out);
    return LAR_OK;
}

void class_table_name(lar_class cls, char out[16])
{
    snprintf(out, 16, "c%u", cls);
}

static bool has_collection_property(const lar_schema *schema)
{
    for (uint32_t c = 0; c < schema->class_count; c++)
        for (uint32_t i = 0; i < schema->classes[c].property_count; i++)
            if (schema->classes[c].properties[i].def.collection) return true;
    return false;
}

int schema_load(MDB_txn *txn, MDB_dbi meta, lar_schema **out)
{
    lar_schema *schema = calloc(1, sizeof *schema);
    if (!schema) return lar_fail(LAR_ENOMEM, "out of memory loading the schema");
    int err = get_meta_u64(txn, meta, META_GENERATION, &schema->generation);
    if (!err) err = get_meta_u64(txn, meta, META_SCHEMA_VERSION, &schema->version);
    MDB_val key = {strlen(META_SCHEMA), META_SCHEMA}, blob;
    int rc = err ? 0 : mdb_get(txn, meta, &key, &blob);
    if (!err && rc && rc != MDB_NOTFOUND) err = lar_fail_mdb(rc, "cannot read the schema");
    if (!err && !rc) err = parse(blob.mv_data, blob.mv_size, schema);
    for (uint32_t c = 0; !err && c < schema->class_count; c++) {
        char name[16];
        class_table_name(c, name);
        rc = mdb_dbi_open(txn, name, MDB_INTEGERKEY, &schema->classes[c].dbi);
        if (rc) err = lar_fail_mdb(rc, "cannot open a class table");
    }
    if (!err && schema->has_links) {
        rc = mdb_dbi_open(txn, BACKLINK_TABLE, 0, &schema->backlink_dbi);
        if (rc == MDB_NOTFOUND) err = lar_fail(LAR_ECORRUPT, "the schema has links but the file has no backlink table");
        else if (rc) err = lar_fail_mdb(rc, "cannot open the backlink table");
    }
    if (!err && schema->has_collections) {
        rc = mdb_dbi_open(txn, COLLECTION_TABLE, MDB_INTEGERKEY, &schema->collection_dbi);
        if (rc == MDB_NOTFOUND && !has_collection_property(schema)) {
            /* Mixed properties alone, in a file written before mixed values could nest:
             * it has no nested collections, and gets none (LAR_ENOTSUP) until a schema
             * change creates the tables. */
            schema->has_collections = false;
            rc = 0;
        } else if (rc == MDB_NOTFOUND) err = lar_fail(LAR_ECORRUPT, "the schema has collections but the file has no collection table");
        else if (rc) err = lar_fail_mdb(rc, "cannot open the collection table");
        if (!err && schema->has_collections) rc = mdb_dbi_open(txn, KEYED_TABLE, 0, &schema->keyed_dbi);
        if (!err && rc == MDB_NOTFOUND) err = lar_fail(LAR_ECORRUPT, "the schema has collections but the file has no collection table");
        else if (!err && rc) err = lar_fail_mdb(rc, "cannot open the collection table");
    }
    if (err) {
        schema_free(schema);
        return err;
    }
    *out = schema;
    return LAR_OK;
}

lar_txn *env_own_write(lar_env *env)
{
    pthread_mutex_lock(&env->mutex);
    lar_txn *txn = env->writer_active && pthread_equal(env->writer_thread, pthread_self()) ? env->writer_txn : NULL;
    pthread_mutex_unlock(&env->mutex);
    return txn;
}

int env_current_schema(lar_env *env, lar_schema **out)
{
    lar_txn *own = env_own_write(env); /* it may hold classes not yet committed */
    if (own && own->state == TXN_ACTIVE) {
        *out = own->schema;
        return LAR_OK;
    }
    lar_txn *txn;
    int err = lar_txn_begin(env, LAR_TXN_READ, &txn);
    if (err == LAR_EMAPFULL) {
        /* Another process grew the file past this process's map, which cannot follow while
         * this process holds snapshots: answer from the newest schema this process knows. */
        pthread_mutex_lock(&env->mutex);
        *out = env->schema;
        pthread_mutex_unlock(&env->mutex);
        return LAR_OK;
    }
    if (err) return err;
    *out = txn->schema;
    lar_txn_free(txn);
    return LAR_OK;
}
