/* Helpers shared by the tests: paths, files, environments, schemas, values, threads, processes. */
#include "test.h"

#include <errno.h>
#include <lmdb.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- paths and files ---- */

#define PATH_SLOTS 32
#define PATH_SIZE 4096

/* Paths handed out by a test stay valid for the test: a ring larger than any test uses. */
static char *next_path_slot(void)
{
    static char slots[PATH_SLOTS][PATH_SIZE];
    static unsigned next;
    return slots[next++ % PATH_SLOTS];
}

const char *test_data_path(const char *name)
{
    char *path = next_path_slot();
    snprintf(path, PATH_SIZE, "%s/%s", test_data_dir(), name);
    return path;
}

const char *test_db_path(const char *suffix)
{
    char *path = next_path_slot();
    snprintf(path, PATH_SIZE, "%s/%s%s%s.larder", test_data_dir(), test_current_name, suffix ? "-" : "",
             suffix ? suffix : "");
    char lock[PATH_SIZE + 8];
    snprintf(lock, sizeof lock, "%s-lock", path);
    unlink(path); /* a rerun without a fresh data directory starts clean too */
    unlink(lock);
    return path;
}

bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

uint8_t *file_read(const char *path, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) test_fail(__FILE__, __LINE__, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    CHECK(fstat(fd, &st) == 0);
    uint8_t *bytes = malloc((size_t)st.st_size + 1);
    CHECK(bytes != NULL);
    size_t done = 0;
    while (done < (size_t)st.st_size) {
        ssize_t n = read(fd, bytes + done, (size_t)st.st_size - done);
        if (n < 0 && errno == EINTR) continue;
        CHECK(n > 0);
        done += (size_t)n;
    }
    close(fd);
    *size = done;
    return bytes;
}

void file_write(const char *path, const void *bytes, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) test_fail(__FILE__, __LINE__, "cannot create %s: %s", path, strerror(errno));
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, (const uint8_t *)bytes + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        CHECK(n > 0);
        done += (size_t)n;
    }
    CHECK(close(fd) == 0);
}

/* ---- environments and transactions ---- */

lar_env *open_env(const char *path)
{
    lar_env *env = NULL;
    CHECK_OK(lar_env_open(path, NULL, &env));
    CHECK(env != NULL);
    return env;
}

lar_env *open_env_with(const char *path, size_t initial_map_size, unsigned int flags)
{
    lar_env_options options;
    CHECK_OK(lar_env_options_init(&options));
    options.initial_map_size = initial_map_size;
    options.flags = flags;
    lar_env *env = NULL;
    CHECK_OK(lar_env_open(path, &options, &env));
    CHECK(env != NULL);
    return env;
}

void close_env(lar_env *env)
{
    CHECK_OK(lar_env_close(env));
}

lar_txn *begin_read(lar_env *env)
{
    lar_txn *txn = NULL;
    CHECK_OK(lar_txn_begin(env, LAR_TXN_READ, &txn));
    CHECK(txn != NULL);
    return txn;
}

lar_txn *begin_write(lar_env *env)
{
    lar_txn *txn = NULL;
    CHECK_OK(lar_txn_begin(env, LAR_TXN_WRITE, &txn));
    CHECK(txn != NULL);
    return txn;
}

void commit_txn(lar_txn *txn)
{
    CHECK_OK(lar_txn_commit(txn));
    lar_txn_free(txn);
}

void txn_fail_after(long mutations); /* CCore/kv/kv.h, tests only */

int fail_each_change(lar_env *env, write_fn attempt, read_check_fn check, void *context)
{
    int failures = 0;
    for (long nth = 1;; nth++) {
        lar_txn *txn = begin_write(env);
        txn_fail_after(nth);
        int rc = attempt(txn, context);
        txn_fail_after(0);
        if (rc == LAR_OK) {
            CHECK_OK(lar_txn_abort(txn));
            lar_txn_free(txn);
            return failures;
        }
        failures++;
        CHECK_RC(lar_txn_commit(txn), LAR_EMISUSE);
        lar_txn_free(txn);
        txn = begin_read(env);
        check(txn, context);
        commit_txn(txn);
    }
}

int write_retrying(lar_env *env, write_fn fill, void *context)
{
    for (int full = 0; full < 64; full++) {
        lar_txn *txn = begin_write(env);
        int rc = fill(txn, context);
        if (rc == LAR_OK) rc = lar_txn_commit(txn);
        if (rc == LAR_OK) {
            lar_txn_free(txn);
            return full;
        }
        if (rc != LAR_EMAPFULL || lar_error_last()->code != rc)
            test_fail(__FILE__, __LINE__, "a write failed with %d: %s", rc, lar_error_last()->message);
        CHECK_OK(lar_txn_abort(txn));
        lar_txn_free(txn);
    }
    test_fail(__FILE__, __LINE__, "the map never grew enough for the write");
}

lar_env_info env_info(lar_env *env)
{
    lar_env_info info;
    memset(&info, 0xAB, sizeof info); /* so a field left unset shows */
    CHECK_OK(lar_env_info_get(env, &info));
    return info;
}

lar_class class_id(lar_env *env, const char *name)
{
    lar_class cls = 0;
    CHECK_OK(lar_class_find(env, name, &cls));
    return cls;
}

uint32_t prop_id(lar_env *env, lar_class cls, const char *name)
{
    uint32_t prop = UINT32_MAX;
    CHECK_OK(lar_property_find(env, cls, name, &prop));
    return prop;
}

uint64_t count_objects(lar_txn *txn, lar_class cls)
{
    uint64_t n = UINT64_MAX;
    CHECK_OK(lar_objects_count(txn, cls, &n));
    return n;
}

lar_value get_value(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    lar_value v;
    memset(&v, 0xCD, sizeof v);
    CHECK_OK(lar_obj_get(txn, obj, prop, &v));
    return v;
}

bool obj_exists(lar_txn *txn, lar_obj obj)
{
    int exists = -1;
    CHECK_OK(lar_obj_exists(txn, obj, &exists));
    CHECK(exists == 0 || exists == 1);
    return exists == 1;
}

uint64_t count_by_iteration(lar_txn *txn, lar_class cls)
{
    lar_iter *iter = NULL;
    CHECK_OK(lar_iter_open(txn, cls, &iter));
    uint64_t n = 0;
    lar_obj obj;
    int rc;
    while ((rc = lar_iter_next(iter, &obj)) == LAR_OK) n++;
    CHECK_EQ(rc, LAR_ENOTFOUND);
    lar_iter_close(iter);
    return n;
}

/* ---- schemas ---- */

person_schema person_lookup(lar_env *env)
{
    person_schema p;
    p.cls = class_id(env, "Person");
    p.id = prop_id(env, p.cls, "id");
    p.name = prop_id(env, p.cls, "name");
    p.age = prop_id(env, p.cls, "age");
    p.score = prop_id(env, p.cls, "score");
    p.count = 4;
    return p;
}

person_schema person_setup(lar_env *env)
{
    static const lar_property_def props[] = {
        PROP("id", LAR_TYPE_INT, LAR_PROP_PRIMARY_KEY),
        PROP("name", LAR_TYPE_STRING, 0),
        PROP("age", LAR_TYPE_INT, LAR_PROP_OPTIONAL),
        PROP("score", LAR_TYPE_DOUBLE, 0),
    };
    lar_class_def cls = CLASS_DEF("Person", props);
    CHECK_OK(lar_schema_apply(env, &cls, 1, 1));
    return person_lookup(env);
}

lar_obj person_create(lar_txn *txn, const person_schema *p, int64_t id, const char *name, int64_t age,
                      double score)
{
    lar_value values[4];
    values[p->id] = val_int(id);
    values[p->name] = val_str(name);
    values[p->age] = age < 0 ? val_null() : val_int(age);
    values[p->score] = val_double(score);
    lar_obj obj = {UINT32_MAX, 0};
    CHECK_OK(lar_obj_create(txn, p->cls, values, 4, &obj));
    CHECK_EQ(obj.cls, p->cls);
    return obj;
}

lar_obj person_find(lar_txn *txn, const person_schema *p, int64_t id)
{
    lar_value key = val_int(id);
    lar_obj obj = {UINT32_MAX, 0};
    CHECK_OK(lar_obj_find(txn, p->cls, &key, &obj));
    CHECK_EQ(obj.cls, p->cls);
    return obj;
}

const char *const scalar_type_names[LAR_TYPE_DECIMAL128 + 1] = {
    NULL, "int", "bool", "float", "double", "string", "binary", "timestamp", "objectId", "uuid", "decimal128",
};

static const char *const optional_type_names[LAR_TYPE_DECIMAL128 + 1] = {
    NULL, "opt_int", "opt_bool", "opt_float", "opt_double", "opt_string", "opt_binary", "opt_timestamp",
    "opt_objectId", "opt_uuid", "opt_decimal128",
};

all_types_schema all_types_lookup(lar_env *env)
{
    all_types_schema a;
    memset(&a, 0, sizeof a);
    a.cls = class_id(env, "AllTypes");
    a.count = 2 * SCALAR_TYPE_COUNT;
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        a.req[t] = prop_id(env, a.cls, scalar_type_names[t]);
        a.opt[t] = prop_id(env, a.cls, optional_type_names[t]);
    }
    return a;
}

all_types_schema all_types_setup(lar_env *env)
{
    lar_property_def props[2 * SCALAR_TYPE_COUNT];
    size_t n = 0;
    for (int t = LAR_TYPE_INT; t <= LAR_TYPE_DECIMAL128; t++) {
        props[n++] = PROP(scalar_type_names[t], (lar_type)t, 0);
        props[n++] = PROP(optional_type_names[t], (lar_type)t, LAR_PROP_OPTIONAL);
    }
    lar_class_def cls = CLASS_DEF("AllTypes", props);
    CHECK_OK(lar_schema_apply(env, &cls, 1, 1));
    return all_types_lookup(env);
}

/* ---- values ---- */

static lar_value typed(lar_type type)
{
    lar_value v;
    memset(&v, 0, sizeof v);
    v.type = type;
    return v;
}

lar_value val_null(void) { return typed(LAR_TYPE_NULL); }
lar_value val_int(int64_t i) { lar_value v = typed(LAR_TYPE_INT); v.as.integer = i; return v; }
lar_value val_bool(int b) { lar_value v = typed(LAR_TYPE_BOOL); v.as.boolean = b; return v; }
lar_value val_float(float f) { lar_value v = typed(LAR_TYPE_FLOAT); v.as.float32 = f; return v; }
lar_value val_double(double d) { lar_value v = typed(LAR_TYPE_DOUBLE); v.as.float64 = d; return v; }
lar_value val_str(const char *s) { return val_strn(s, strlen(s)); }

lar_value val_strn(const char *s, size_t size)
{
    lar_value v = typed(LAR_TYPE_STRING);
    v.as.string.data = s;
    v.as.string.size = size;
    return v;
}

lar_value val_bin(const void *data, size_t size)
{
    lar_value v = typed(LAR_TYPE_BINARY);
    v.as.binary.data = data;
    v.as.binary.size = size;
    return v;
}

lar_value val_ts(int64_t seconds, int32_t nanoseconds)
{
    lar_value v = typed(LAR_TYPE_TIMESTAMP);
    v.as.timestamp.seconds = seconds;
    v.as.timestamp.nanoseconds = nanoseconds;
    return v;
}

lar_value val_oid(const uint8_t bytes[12])
{
    lar_value v = typed(LAR_TYPE_OBJECT_ID);
    memcpy(v.as.object_id.bytes, bytes, 12);
    return v;
}

lar_value val_uuid(const uint8_t bytes[16])
{
    lar_value v = typed(LAR_TYPE_UUID);
    memcpy(v.as.uuid.bytes, bytes, 16);
    return v;
}

lar_value val_dec(uint64_t low, uint64_t high)
{
    lar_value v = typed(LAR_TYPE_DECIMAL128);
    v.as.decimal128.low = low;
    v.as.decimal128.high = high;
    return v;
}

bool value_same(const lar_value *a, const lar_value *b)
{
    if (a->type != b->type) return false;
    switch (a->type) {
    case LAR_TYPE_NULL: return true;
    case LAR_TYPE_INT: return a->as.integer == b->as.integer;
    case LAR_TYPE_BOOL: return a->as.boolean == b->as.boolean;
    case LAR_TYPE_FLOAT: return !memcmp(&a->as.float32, &b->as.float32, sizeof(float));
    case LAR_TYPE_DOUBLE: return !memcmp(&a->as.float64, &b->as.float64, sizeof(double));
    case LAR_TYPE_STRING:
        return a->as.string.size == b->as.string.size &&
               (a->as.string.size == 0 || !memcmp(a->as.string.data, b->as.string.data, a->as.string.size));
    case LAR_TYPE_BINARY:
        return a->as.binary.size == b->as.binary.size &&
               (a->as.binary.size == 0 || !memcmp(a->as.binary.data, b->as.binary.data, a->as.binary.size));
    case LAR_TYPE_TIMESTAMP:
        return a->as.timestamp.seconds == b->as.timestamp.seconds &&
               a->as.timestamp.nanoseconds == b->as.timestamp.nanoseconds;
    case LAR_TYPE_OBJECT_ID: return !memcmp(a->as.object_id.bytes, b->as.object_id.bytes, 12);
    case LAR_TYPE_UUID: return !memcmp(a->as.uuid.bytes, b->as.uuid.bytes, 16);
    case LAR_TYPE_DECIMAL128:
        return a->as.decimal128.low == b->as.decimal128.low && a->as.decimal128.high == b->as.decimal128.high;
    case LAR_TYPE_LINK: return a->as.link.cls == b->as.link.cls && a->as.link.key == b->as.link.key;
    default: return false;
    }
}

static void describe_bytes(const uint8_t *bytes, size_t n, char *out, size_t size)
{
    size_t used = 0;
    for (size_t i = 0; i < n && used + 3 < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%02x", bytes[i]);
}

void value_describe(const lar_value *v, char *out, size_t size)
{
    char hex[80] = "";
    switch (v->type) {
    case LAR_TYPE_NULL: snprintf(out, size, "null"); break;
    case LAR_TYPE_INT: snprintf(out, size, "int %" PRId64, v->as.integer); break;
    case LAR_TYPE_BOOL: snprintf(out, size, "bool %d", v->as.boolean); break;
    case LAR_TYPE_FLOAT: snprintf(out, size, "float %.9g", (double)v->as.float32); break;
    case LAR_TYPE_DOUBLE: snprintf(out, size, "double %.17g", v->as.float64); break;
    case LAR_TYPE_STRING:
        snprintf(out, size, "string[%zu] \"%.*s\"", v->as.string.size,
                 (int)(v->as.string.size > 60 ? 60 : v->as.string.size),
                 v->as.string.data ? v->as.string.data : "");
        break;
    case LAR_TYPE_BINARY:
        describe_bytes(v->as.binary.data, v->as.binary.size > 24 ? 24 : v->as.binary.size, hex, sizeof hex);
        snprintf(out, size, "binary[%zu] %s", v->as.binary.size, hex);
        break;
    case LAR_TYPE_TIMESTAMP:
        snprintf(out, size, "timestamp %" PRId64 "s %" PRId32 "ns", v->as.timestamp.seconds,
                 v->as.timestamp.nanoseconds);
        break;
    case LAR_TYPE_OBJECT_ID:
        describe_bytes(v->as.object_id.bytes, 12, hex, sizeof hex);
        snprintf(out, size, "objectId %s", hex);
        break;
    case LAR_TYPE_UUID:
        describe_bytes(v->as.uuid.bytes, 16, hex, sizeof hex);
        snprintf(out, size, "uuid %s", hex);
        break;
    case LAR_TYPE_DECIMAL128:
        snprintf(out, size, "decimal128 high %016" PRIx64 " low %016" PRIx64, v->as.decimal128.high,
                 v->as.decimal128.low);
        break;
    default: snprintf(out, size, "value of type %d", (int)v->type); break;
    }
}

/* ---- threads ---- */

struct latch {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    bool open;
};

latch *latch_new(void)
{
    latch *l = calloc(1, sizeof *l);
    CHECK(l != NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&l->mutex, NULL);
    pthread_cond_init(&l->cond, &attr);
    pthread_condattr_destroy(&attr);
    return l;
}

void latch_free(latch *l)
{
    if (!l) return;
    pthread_mutex_destroy(&l->mutex);
    pthread_cond_destroy(&l->cond);
    free(l);
}

void latch_open(latch *l)
{
    pthread_mutex_lock(&l->mutex);
    l->open = true;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->mutex);
}

static struct timespec deadline_after(clockid_t clock, int ms)
{
    struct timespec t;
    clock_gettime(clock, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

bool latch_wait(latch *l, int timeout_ms)
{
    struct timespec deadline = deadline_after(CLOCK_MONOTONIC, timeout_ms);
    pthread_mutex_lock(&l->mutex);
    int rc = 0;
    while (!l->open && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&l->cond, &l->mutex, &deadline);
    bool open = l->open;
    pthread_mutex_unlock(&l->mutex);
    return open;
}

void join_thread(pthread_t thread, int timeout_ms)
{
    struct timespec deadline = deadline_after(CLOCK_REALTIME, timeout_ms);
    int rc = pthread_timedjoin_np(thread, NULL, &deadline);
    if (rc != 0) test_fail(__FILE__, __LINE__, "a thread did not end within %d ms (%s)", timeout_ms, strerror(rc));
}

/* ---- processes ---- */

pid_t test_fork(void)
{
    fflush(NULL); /* or the child would print the parent's buffered output again */
    pid_t pid = fork();
    if (pid < 0) test_fail(__FILE__, __LINE__, "fork: %s", strerror(errno));
    return pid;
}

_Noreturn void child_exit_ok(void)
{
    fflush(NULL);
    _exit(0); /* not exit(): the parent's atexit handlers and leak checks are not the child's */
}

void wait_child_ok(pid_t pid, int timeout_ms)
{
    int64_t deadline = now_ms() + timeout_ms;
    int status = 0;
    for (;;) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) test_fail(__FILE__, __LINE__, "waitpid: %s", strerror(errno));
        if (now_ms() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            test_fail(__FILE__, __LINE__, "child %d did not exit within %d ms", (int)pid, timeout_ms);
        }
        sleep_ms(5);
    }
    if (WIFSIGNALED(status))
        test_fail(__FILE__, __LINE__, "child %d was killed by signal %d", (int)pid, WTERMSIG(status));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        test_fail(__FILE__, __LINE__, "child %d exited with status %d", (int)pid, WEXITSTATUS(status));
}

void pipe_send(int fd, char message)
{
    for (;;) {
        ssize_t n = write(fd, &message, 1);
        if (n == 1) return;
        if (n < 0 && errno == EINTR) continue;
        test_fail(__FILE__, __LINE__, "pipe write: %s", n < 0 ? strerror(errno) : "short write");
    }
}

bool pipe_readable(int fd, int timeout_ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    int64_t deadline = now_ms() + timeout_ms;
    for (;;) {
        int64_t left = deadline - now_ms();
        int rc = poll(&p, 1, left > 0 ? (int)left : 0);
        if (rc >= 0) return rc > 0;
        if (errno != EINTR) test_fail(__FILE__, __LINE__, "poll: %s", strerror(errno));
    }
}

void pipe_expect(int fd, char message, int timeout_ms)
{
    if (!pipe_readable(fd, timeout_ms))
        test_fail(__FILE__, __LINE__, "no '%c' message on the pipe within %d ms", message, timeout_ms);
    char got = 0;
    ssize_t n;
    do n = read(fd, &got, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1) test_fail(__FILE__, __LINE__, "expected '%c' on the pipe, but it was closed", message);
    if (got != message) test_fail(__FILE__, __LINE__, "expected '%c' on the pipe, got '%c'", message, got);
}

/* ---- time ---- */

void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* ---- raw file contents ---- */

uint64_t count_file_entries(const char *path, const char *table)
{
    MDB_env *mdb;
    MDB_txn *txn;
    MDB_dbi main_dbi;
    MDB_cursor *cursor;
    CHECK(mdb_env_create(&mdb) == 0);
    CHECK(mdb_env_set_maxdbs(mdb, 2048) == 0);
    CHECK(mdb_env_open(mdb, path, MDB_NOSUBDIR | MDB_RDONLY, 0644) == 0);
    CHECK(mdb_txn_begin(mdb, NULL, MDB_RDONLY, &txn) == 0);
    CHECK(mdb_dbi_open(txn, NULL, 0, &main_dbi) == 0);
    CHECK(mdb_cursor_open(txn, main_dbi, &cursor) == 0);
    uint64_t total = 0;
    MDB_val key, data;
    for (int rc = mdb_cursor_get(cursor, &key, &data, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cursor, &key, &data, MDB_NEXT)) {
        char name[64];
        CHECK(key.mv_size < sizeof name);
        memcpy(name, key.mv_data, key.mv_size);
        name[key.mv_size] = 0;
        if (table && strcmp(name, table)) continue;
        if (!table && !strcmp(name, "changes")) continue; /* the change log: bookkeeping, not data */
        MDB_dbi dbi;
        MDB_stat stat;
        CHECK(mdb_dbi_open(txn, name, 0, &dbi) == 0);
        CHECK(mdb_stat(txn, dbi, &stat) == 0);
        total += stat.ms_entries;
    }
    mdb_cursor_close(cursor);
    mdb_txn_abort(txn);
    mdb_env_close(mdb);
    return total;
}

/* Overwrites the row of key in cls's table with three bytes, as a damaged file would hold. */
void test_damage_row(const char *path, lar_class cls, lar_objkey key)
{
    MDB_env *mdb;
    MDB_txn *txn;
    MDB_dbi dbi;
    char table[16];
    snprintf(table, sizeof table, "c%u", cls);
    CHECK(mdb_env_create(&mdb) == 0);
    CHECK(mdb_env_set_maxdbs(mdb, 16) == 0);
    CHECK(mdb_env_open(mdb, path, MDB_NOSUBDIR, 0644) == 0);
    CHECK(mdb_txn_begin(mdb, NULL, 0, &txn) == 0);
    CHECK(mdb_dbi_open(txn, table, MDB_INTEGERKEY, &dbi) == 0);
    MDB_val k = {sizeof key, &key}, row = {3, "bad"};
    CHECK(mdb_put(txn, dbi, &k, &row, 0) == 0);
    CHECK(mdb_txn_commit(txn) == 0);
    mdb_env_close(mdb);
}

/* ---- the query tests' schema ---- */

#define QCOLL(name, type, coll, flags, target) \
    ((lar_property_def){(name), (type), (coll), (flags), (target), NULL})

lar_class query_test_schema(lar_env *env, unsigned address_flags)
{
    lar_property_def address[] = {PROP("city", LAR_TYPE_STRING, 0)};
    lar_property_def person[] = {
        PROP("name", LAR_TYPE_STRING, 0),
        QCOLL("dogs", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Dog"),
        QCOLL("address", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Address"),
    };
    lar_property_def dog[] = {
        PROP("name", LAR_TYPE_STRING, 0),
        PROP("age", LAR_TYPE_INT, 0),
        PROP("weight", LAR_TYPE_DOUBLE, LAR_PROP_OPTIONAL),
        PROP("ratio", LAR_TYPE_FLOAT, 0),
        PROP("alive", LAR_TYPE_BOOL, 0),
        PROP("born", LAR_TYPE_TIMESTAMP, LAR_PROP_OPTIONAL),
        PROP("oid", LAR_TYPE_OBJECT_ID, 0),
        PROP("uid", LAR_TYPE_UUID, 0),
        PROP("price", LAR_TYPE_DECIMAL128, 0),
        PROP("data", LAR_TYPE_BINARY, 0),
        PROP("extra", LAR_TYPE_MIXED, 0),
        QCOLL("owner", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Person"),
        QCOLL("tags", LAR_TYPE_STRING, LAR_COLLECTION_LIST, 0, NULL),
        QCOLL("scores", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, NULL),
        QCOLL("attrs", LAR_TYPE_STRING, LAR_COLLECTION_MAP, LAR_PROP_OPTIONAL, NULL),
        QCOLL("friends", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Dog"),
        QCOLL("anys", LAR_TYPE_MIXED, LAR_COLLECTION_LIST, 0, NULL),
    };
    lar_class_def classes[] = {CLASS_DEF("Address", address), CLASS_DEF("Person", person), CLASS_DEF("Dog", dog)};
    classes[0].flags = address_flags;
    CHECK_OK(lar_schema_apply(env, classes, 3, 1));
    return class_id(env, "Dog");
}

lar_env *query_three_dogs(lar_class *dog, lar_obj dogs[3])
{
    lar_env *env = open_env(test_db_path(NULL));
    *dog = query_test_schema(env, LAR_CLASS_EMBEDDED);
    lar_txn *txn = begin_write(env);
    int64_t ages[] = {3, 1, 2};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(lar_obj_create(txn, *dog, NULL, 0, &dogs[i]));
        lar_value age = val_int(ages[i]);
        CHECK_OK(lar_obj_set(txn, dogs[i], prop_id(env, *dog, "age"), &age));
    }
    commit_txn(txn);
    return env;
}
