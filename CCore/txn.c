/* Transactions: snapshots, the one writer, and failed writes.
 *
 * The map is reserved large up front (address space, not disk: without
 * MDB_WRITEMAP the file grows only with its data), so a write rarely fills it.
 * One that does has failed in LMDB and can only be aborted; the map then grows,
 * without waiting for anyone, once no other transaction of this process is
 * live (see env_request_growth), and the caller may write again.
 *
 * Any LMDB mutation that fails poisons the write, as LMDB's MDB_TXN_ERROR does:
 * an operation that changed some tables and not others must never commit. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KEEP_CHUNK ((size_t)64 << 10)

static int map_full(lar_txn *txn);

/* ---- byte buffers ---- */

int buffer_reserve(byte_buffer *buffer, size_t extra)
{
    size_t need = buffer->size + extra;
    if (need <= buffer->capacity) return LAR_OK;
    size_t capacity = buffer->capacity ? buffer->capacity * 2 : 256;
    while (capacity < need) capacity *= 2;
    uint8_t *data = realloc(buffer->data, capacity);
    if (!data) return lar_fail(LAR_ENOMEM, "out of memory (%zu bytes)", capacity);
    buffer->data = data;
    buffer->capacity = capacity;
    return LAR_OK;
}

int buffer_append(byte_buffer *buffer, const void *bytes, size_t size)
{
    int err = buffer_reserve(buffer, size);
    if (err) return err;
    if (size) memcpy(buffer->data + buffer->size, bytes, size);
    buffer->size += size;
    return LAR_OK;
}

void buffer_free(byte_buffer *buffer)
{
    free(buffer->data);
    buffer->data = NULL;
    buffer->size = buffer->capacity = 0;
}

/* ---- beginning and ending ---- */

/* Begins the LMDB transaction; the caller holds the map lock for reading. */
static int begin_mdb(lar_txn *txn)
{
    lar_env *env = txn->env;
    for (;;) {
        int rc = mdb_txn_begin(env->mdb, NULL, txn->write ? 0 : MDB_RDONLY, &txn->mdb);
        if (rc != MDB_MAP_RESIZED) return rc ? lar_fail_mdb(rc, "cannot begin a transaction") : LAR_OK;
        /* Another process grew the file past this process's map. */
        pthread_rwlock_unlock(&env->map_lock);
        int err = env_adopt_map(env);
        pthread_rwlock_rdlock(&env->map_lock);
        if (err) return err;
    }
}

static void release_keeps(lar_txn *txn)
{
    for (size_t i = 0; i < txn->copy_count; i++) buffer_free(&txn->copies[i]);
    txn->copy_count = 0;
}

/* Ends the transaction's life in the environment; the LMDB side is already done. */
static void finish(lar_txn *txn)
{
    lar_env *env = txn->env;
    iter_detach_all(txn);
    release_keeps(txn);
    txn->cache_obj.key = 0;
    txn->state = TXN_ENDED;
    pthread_rwlock_unlock(&env->map_lock);
    pthread_mutex_lock(&env->mutex);
    env->live_txns--;
    if (txn->write) env->writer_txn = NULL;
    bool grow = env->grow_wanted;
    pthread_mutex_unlock(&env->mutex);
    /* Published by a commit; after an abort, callers may still hold its names. */
    if (txn->own_schema) env_retire_schema(env, txn->own_schema);
    txn->own_schema = NULL;
    if (txn->write) {
        if (txn->classes) memset(txn->classes, 0, txn->class_capacity * sizeof *txn->classes);
        env_unlock_writer(env);
    }
    if (grow) env_try_grow(env);
}

static int start(lar_txn *txn)
{
    lar_env *env = txn->env;
    pthread_rwlock_rdlock(&env->map_lock);
    if (txn->mdb && mdb_txn_renew(txn->mdb) != 0) { /* e.g. the map grew: begin afresh */
        mdb_txn_abort(txn->mdb);
        txn->mdb = NULL;
    }
    int err = txn->mdb ? LAR_OK : begin_mdb(txn);
    if (!err) err = env_schema_for(env, txn->mdb, &txn->schema);
    while (err == ENV_MAP_MOVED) { /* another process grew the map while the schema loaded */
        mdb_txn_abort(txn->mdb);
        txn->mdb = NULL;
        pthread_rwlock_unlock(&env->map_lock);
        err = env_adopt_map(env);
        pthread_rwlock_rdlock(&env->map_lock);
        if (!err) err = begin_mdb(txn);
        if (!err) err = env_schema_for(env, txn->mdb, &txn->schema);
    }
    if (err) {
        if (txn->mdb) mdb_txn_abort(txn->mdb);
        txn->mdb = NULL;
        pthread_rwlock_unlock(&env->map_lock);
        return err;
    }
    txn->state = TXN_ACTIVE;
    txn->failed = false;
    txn->epoch++;
    pthread_mutex_lock(&env->mutex);
    env->live_txns++;
    if (txn->write) env->writer_txn = txn;
    pthread_mutex_unlock(&env->mutex);
    return LAR_OK;
}

int lar_txn_begin(lar_env *env, unsigned int flags, lar_txn **out)
{
    if (!env || !out) return lar_fail(LAR_EINVAL, "lar_txn_begin: env and out must not be NULL");
    if (flags & ~LAR_TXN_WRITE) return lar_fail(LAR_EINVAL, "lar_txn_begin: unknown flags 0x%x", flags);
    bool write = flags & LAR_TXN_WRITE;
    if (write && (env->flags & LAR_ENV_READONLY))
        return lar_fail(LAR_EREADONLY, "'%s' was opened read-only", env->path);
    lar_txn *txn = calloc(1, sizeof *txn);
    if (!txn) return lar_fail(LAR_ENOMEM, "out of memory beginning a transaction");
    txn->env = env;
    txn->write = write;
    txn->thread = pthread_self();
    int err = write ? env_lock_writer(env) : LAR_OK;
    if (!err) {
        err = start(txn);
        if (err && write) env_unlock_writer(env);
    }
    if (err) {
        free(txn);
        return err;
    }
    pthread_mutex_lock(&env->mutex);
    txn->next_handle = env->handles;
    if (env->handles) env->handles->prev_handle = txn;
    env->handles = txn;
    pthread_mutex_unlock(&env->mutex);
    *out = txn;
    return LAR_OK;
}

static void forget_handle(lar_txn *txn)
{
    lar_env *env = txn->env;
    pthread_mutex_lock(&env->mutex);
    if (txn->prev_handle) txn->prev_handle->next_handle = txn->next_handle;
    else env->handles = txn->next_handle;
    if (txn->next_handle) txn->next_handle->prev_handle = txn->prev_handle;
    pthread_mutex_unlock(&env->mutex);
}

void txn_detach_all(lar_env *env)
{
    for (lar_txn *txn = env->handles; txn; txn = txn->next_handle) {
        if (txn->mdb) mdb_txn_abort(txn->mdb); /* only ended handles remain: close refuses live ones */
        txn->mdb = NULL;
        txn->env = NULL;
    }
    env->handles = NULL;
}

static int check_owner(lar_txn *txn, const char *function)
{
    if (txn->write && !pthread_equal(txn->thread, pthread_self()))
        return lar_fail(LAR_EMISUSE, "%s: a write transaction must end on the thread that began it",
                        function);
    return LAR_OK;
}

static int flush_class_keys(lar_txn *txn)
{
    for (uint32_t c = 0; c < txn->class_capacity; c++) {
        class_write_state *state = &txn->classes[c];
        if (!state->dirty) continue;
        uint8_t name[5] = {META_NEXT_KEY_PREFIX, (uint8_t)(c >> 24), (uint8_t)(c >> 16),
                           (uint8_t)(c >> 8), (uint8_t)c};
        MDB_val key = {sizeof name, name}, data = {sizeof state->next_key, &state->next_key};
        int err = txn_put(txn, txn->env->meta_dbi, &key, &data, 0);
        if (err) return err;
        state->dirty = false;
    }
    return LAR_OK;
}

static int commit_write(lar_txn *txn)
{
    if (txn->failed) return lar_fail(LAR_EMISUSE, "the transaction failed earlier and was not committed; "
                                     "nothing it wrote was stored");
    int err = flush_class_keys(txn);
    iter_detach_all(txn); /* LMDB frees a write transaction's cursors when it ends */
    if (err) return err;
    int rc = mdb_txn_commit(txn->mdb);
    txn->mdb = NULL; /* freed, even when the commit fails */
    if (rc == MDB_MAP_FULL) return map_full(txn);
    return rc ? lar_fail_mdb(rc, "cannot commit") : LAR_OK;
}

/* A committed schema change becomes the environment's; its table handles are now valid everywhere. */
static void publish_schema(lar_txn *txn)
{
    lar_env *env = txn->env;
    lar_schema *oldest = txn->own_schema;
    while (oldest->older) oldest = oldest->older;
    pthread_mutex_lock(&env->mutex);
    oldest->older = env->schema;
    env->schema = txn->own_schema;
    pthread_mutex_unlock(&env->mutex);
    txn->own_schema = NULL;
}

int lar_txn_commit(lar_txn *txn)
{
    if (!txn) return lar_fail(LAR_EINVAL, "lar_txn_commit: txn is NULL");
    if (txn->state != TXN_ACTIVE) return lar_fail(LAR_EMISUSE, "lar_txn_commit: the transaction has ended");
    int err = check_owner(txn, "lar_txn_commit");
    if (err) return err;
    if (!txn->write) {
        mdb_txn_reset(txn->mdb);
        finish(txn);
        return LAR_OK;
    }
    err = commit_write(txn);
    if (!err && txn->own_schema) publish_schema(txn);
    if (txn->mdb) mdb_txn_abort(txn->mdb);
    txn->mdb = NULL;
    finish(txn);
    return err;
}

int lar_txn_abort(lar_txn *txn)
{
    if (!txn || txn->state != TXN_ACTIVE) return LAR_OK;
    int err = check_owner(txn, "lar_txn_abort");
    if (err) return err;
    if (txn->write) {
        iter_detach_all(txn);
        if (txn->mdb) mdb_txn_abort(txn->mdb);
        txn->mdb = NULL;
    } else {
        mdb_txn_reset(txn->mdb);
    }
    finish(txn);
    return LAR_OK;
}

int lar_txn_renew(lar_txn *txn)
{
    if (!txn) return lar_fail(LAR_EINVAL, "lar_txn_renew: txn is NULL");
    if (txn->write) return lar_fail(LAR_EMISUSE, "lar_txn_renew: only read transactions can be renewed");
    if (txn->state == TXN_ACTIVE) return lar_fail(LAR_EMISUSE, "lar_txn_renew: the transaction is active");
    if (!txn->env) return lar_fail(LAR_EMISUSE, "lar_txn_renew: its environment was closed");
    return start(txn);
}

void lar_txn_free(lar_txn *txn)
{
    if (!txn) return;
    if (txn->env) {
        if (lar_txn_abort(txn) != LAR_OK) return; /* a writer of another thread: leave it to that thread */
        if (txn->mdb) mdb_txn_abort(txn->mdb);
        forget_handle(txn);
    }
    release_keeps(txn);
    free(txn->copies);
    free(txn->classes);
    buffer_free(&txn->row);
    free(txn);
}

int lar_txn_state(const lar_txn *txn, int *is_active, int *is_write)
{
    if (!txn) return lar_fail(LAR_EINVAL, "lar_txn_state: txn is NULL");
    if (is_active) *is_active = txn->state == TXN_ACTIVE;
    if (is_write) *is_write = txn->write;
    return LAR_OK;
}

/* ---- services for the other modules ---- */

int txn_check(lar_txn *txn, bool write)
{
    if (!txn) return lar_fail(LAR_EINVAL, "transaction is NULL");
    if (txn->state != TXN_ACTIVE) return lar_fail(LAR_EMISUSE, "the transaction has ended");
    if (txn->failed) return lar_fail(LAR_EMISUSE, "the transaction failed earlier and can only be aborted");
    if (write && !txn->write) return lar_fail(LAR_EMISUSE, "cannot write in a read transaction");
    return LAR_OK;
}

void txn_poison(lar_txn *txn)
{
    txn->failed = true;
}

/* The map is full: LMDB has failed the transaction; ask for a bigger map for the next one. */
static int map_full(lar_txn *txn)
{
    txn_poison(txn);
    size_t size = env_request_growth(txn->env);
    return lar_fail(LAR_EMAPFULL, "the database '%s' needs more than its map of %zu bytes; abort this "
                    "transaction (the map grows once no other transaction of this process is open) "
                    "or open the file with a larger initial_map_size", txn->env->path, size);
}

/* Maps a failed mutation to an error, poisoning the transaction. */
static int mutation_failed(lar_txn *txn, int rc, const char *context)
{
    if (rc == MDB_MAP_FULL) return map_full(txn);
    txn_poison(txn);
    return lar_fail_mdb(rc, context);
}

#ifdef LARDER_FAULT_INJECTION
static _Thread_local long faults_countdown;
void txn_fail_after(long mutations)
{
    faults_countdown = mutations;
}
/* Fails the nth mutation from now as if LMDB had run out of memory. */
static int inject(int rc)
{
    return faults_countdown > 0 && --faults_countdown == 0 ? ENOMEM : rc;
}
#else
#define inject(rc) (rc)
#endif

int txn_put(lar_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data, unsigned int flags)
{
    txn->cache_obj.key = 0;
    int rc = inject(mdb_put(txn->mdb, dbi, key, data, flags));
    if (!rc) return LAR_OK;
    /* The one failure that changes nothing: a key that MDB_NOOVERWRITE found. */
    if (rc == MDB_KEYEXIST && (flags & MDB_NOOVERWRITE)) return LAR_EEXISTS;
    return mutation_failed(txn, rc, "cannot write");
}

int txn_del(lar_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data)
{
    txn->cache_obj.key = 0;
    int rc = inject(mdb_del(txn->mdb, dbi, key, data));
    if (!rc) return LAR_OK;
    if (rc == MDB_NOTFOUND) return LAR_ENOTFOUND;
    return mutation_failed(txn, rc, "cannot delete");
}

int txn_drop(lar_txn *txn, MDB_dbi dbi)
{
    txn->cache_obj.key = 0;
    int rc = inject(mdb_drop(txn->mdb, dbi, 0));
    return rc ? mutation_failed(txn, rc, "cannot empty a table") : LAR_OK;
}

int txn_open_table(lar_txn *txn, const char *name, unsigned int flags, MDB_dbi *out)
{
    /* LMDB forbids opening tables concurrently: readers reloading a schema open them too. */
    pthread_mutex_lock(&txn->env->mutex);
    int rc = inject(mdb_dbi_open(txn->mdb, name, flags, out));
    pthread_mutex_unlock(&txn->env->mutex);
    return rc ? mutation_failed(txn, rc, "cannot create a class table") : LAR_OK;
}

const void *txn_keep(lar_txn *txn, const void *bytes, size_t size)
{
    byte_buffer *chunk = txn->copy_count ? &txn->copies[txn->copy_count - 1] : NULL;
    if (!chunk || chunk->capacity - chunk->size < size) {
        if (txn->copy_count == txn->copy_capacity) {
            size_t capacity = txn->copy_capacity ? txn->copy_capacity * 2 : 8;
            byte_buffer *copies = realloc(txn->copies, capacity * sizeof *copies);
            if (!copies) return lar_fail(LAR_ENOMEM, "out of memory"), NULL;
            txn->copies = copies;
            txn->copy_capacity = capacity;
        }
        chunk = &txn->copies[txn->copy_count];
        memset(chunk, 0, sizeof *chunk);
        if (buffer_reserve(chunk, size > KEEP_CHUNK ? size : KEEP_CHUNK)) return NULL;
        txn->copy_count++;
    }
    void *copy = chunk->data + chunk->size;
    if (size) memcpy(copy, bytes, size);
    chunk->size += size;
    return copy;
}

static lar_objkey stored_next_key(lar_txn *txn, lar_class cls, const schema_class *schema_cls)
{
    uint8_t name[5] = {META_NEXT_KEY_PREFIX, (uint8_t)(cls >> 24), (uint8_t)(cls >> 16),
                       (uint8_t)(cls >> 8), (uint8_t)cls};
    MDB_val key = {sizeof name, name}, data;
    lar_objkey next = 1;
    if (!mdb_get(txn->mdb, txn->env->meta_dbi, &key, &data) && data.mv_size == sizeof next)
        memcpy(&next, data.mv_data, sizeof next);
    /* Never below the last key in use, whatever the counter says. */
    MDB_cursor *cursor;
    if (!mdb_cursor_open(txn->mdb, schema_cls->dbi, &cursor)) {
        MDB_val last, row;
        if (!mdb_cursor_get(cursor, &last, &row, MDB_LAST) && last.mv_size == sizeof(lar_objkey)) {
            lar_objkey used;
            memcpy(&used, last.mv_data, sizeof used);
            if (used >= next) next = used + 1;
        }
        mdb_cursor_close(cursor);
    }
    return next;
}

class_write_state *txn_class_state(lar_txn *txn, lar_class cls)
{
    if (cls >= txn->class_capacity) {
        uint32_t capacity = txn->schema->class_count > cls ? txn->schema->class_count : cls + 1;
        class_write_state *classes = realloc(txn->classes, capacity * sizeof *classes);
        if (!classes) return lar_fail(LAR_ENOMEM, "out of memory"), NULL;
        memset(classes + txn->class_capacity, 0, (capacity - txn->class_capacity) * sizeof *classes);
        txn->classes = classes;
        txn->class_capacity = capacity;
    }
    class_write_state *state = &txn->classes[cls];
    if (!state->loaded) {
        state->next_key = stored_next_key(txn, cls, schema_class_at(txn->schema, cls));
        state->loaded = true;
    }
    return state;
}

int txn_read_row(lar_txn *txn, const schema_class *cls, lar_obj obj, MDB_val *row)
{
    if (obj.key && txn->cache_obj.key == obj.key && txn->cache_obj.cls == obj.cls) {
        *row = txn->cache_row;
        return LAR_OK;
    }
    MDB_val key = {sizeof obj.key, &obj.key};
    int rc = mdb_get(txn->mdb, cls->dbi, &key, row);
    if (rc == MDB_NOTFOUND)
        return lar_fail(LAR_EDELETED, "object %llu of class '%s' does not exist or was deleted",
                        (unsigned long long)obj.key, cls->name);
    if (rc) return lar_fail_mdb(rc, "cannot read an object");
    txn->cache_obj = obj;
    txn->cache_row = *row;
    return LAR_OK;
}
