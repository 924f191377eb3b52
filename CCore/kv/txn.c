/* Transactions: snapshots, the one writer, sequences, and failed writes.
 *
 * The map is reserved large up front (address space, not disk: without
 * MDB_WRITEMAP the file grows only with its data), so a write rarely fills it.
 * One that does has failed in LMDB and can only be aborted; the map then grows,
 * without waiting for anyone, once no other transaction of this process is
 * live (see env_request_growth), and the caller may write again.
 *
 * Any LMDB mutation that fails poisons the write, as LMDB's MDB_TXN_ERROR does:
 * an operation that changed some tables and not others must never commit. */
#include "kv/kv.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define KEEP_CHUNK ((size_t)64 << 10)

/* The last txn->generation handed out, by any transaction of the process. */
static _Atomic uint64_t generations;

static int map_full(lar_txn *txn);

/* ---- dependents ---- */

void txn_depend(lar_txn *txn, txn_dependent *dependent)
{
    dependent->next = txn->dependents;
    txn->dependents = dependent;
}

void txn_forget(lar_txn *txn, txn_dependent *dependent)
{
    for (txn_dependent **link = &txn->dependents; *link; link = &(*link)->next) {
        if (*link == dependent) {
            *link = dependent->next;
            break;
        }
    }
}

static void detach_dependents(lar_txn *txn)
{
    txn_dependent *dependent = txn->dependents;
    txn->dependents = NULL;
    while (dependent) {
        txn_dependent *next = dependent->next;
        dependent->detach(dependent, txn);
        dependent = next;
    }
}

/* ---- beginning and ending ---- */

/* A spare read transaction of env (kv.h), renewed, or NULL. */
static MDB_txn *renew_spare(lar_env *env)
{
    pthread_mutex_lock(&env->mutex);
    MDB_txn *spare = env->spare_reader_count ? env->spare_readers[--env->spare_reader_count] : NULL;
    pthread_mutex_unlock(&env->mutex);
    if (spare && mdb_txn_renew(spare) != 0) { /* e.g. the map grew: begin afresh */
        mdb_txn_abort(spare);
        spare = NULL;
    }
    return spare;
}

/* Keeps a reset read transaction for renew_spare(), or aborts it when enough are kept. */
static void keep_spare(lar_env *env, MDB_txn *reset)
{
    pthread_mutex_lock(&env->mutex);
    bool kept = env->spare_reader_count < SPARE_READERS;
    if (kept) env->spare_readers[env->spare_reader_count++] = reset;
    pthread_mutex_unlock(&env->mutex);
    if (!kept) mdb_txn_abort(reset);
}

void txn_drop_spares(lar_env *env)
{
    while (env->spare_reader_count) mdb_txn_abort(env->spare_readers[--env->spare_reader_count]);
}

/* Begins the LMDB transaction; the caller holds the map lock for reading. */
static int begin_mdb(lar_txn *txn)
{
    lar_env *env = txn->env;
    if (!txn->write && (txn->mdb = renew_spare(env)) != NULL) return LAR_OK;
    if (txn->write) env_clear_dead_readers_on_growth(env);
    for (;;) {
        int rc = env_begin_mdb(env, txn->write ? 0 : MDB_RDONLY, &txn->mdb);
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
    detach_dependents(txn);
    release_keeps(txn);
    for (int i = 0; i < TXN_CACHES; i++)
        if (txn->caches[i].ops) txn->caches[i].ops->drop(txn);
    txn_row_cursors_end(txn, !txn->write);
    txn->cache_obj.key = 0;
    txn->orphans.size = 0;
    txn->placing.key = 0;
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
        if (txn->sequences) memset(txn->sequences, 0, txn->sequence_capacity * sizeof *txn->sequences);
        txn->removed_from = 0;
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
    txn->generation = atomic_fetch_add(&generations, 1) + 1;
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

static int flush_sequences(lar_txn *txn)
{
    for (uint32_t c = 0; c < txn->sequence_capacity; c++) {
        sequence_state *state = &txn->sequences[c];
        if (!state->dirty) continue;
        uint8_t name[5] = {META_SEQUENCE_PREFIX, (uint8_t)(c >> 24), (uint8_t)(c >> 16),
                           (uint8_t)(c >> 8), (uint8_t)c};
        MDB_val key = {sizeof name, name}, data = {sizeof state->next, &state->next};
        int err = txn_put(txn, txn->env->meta_dbi, &key, &data, 0);
        if (err) return err;
        state->dirty = false;
    }
    return LAR_OK;
}

/* The commit skips LMDB's fsyncs when nosync asks (an environment opened with
 * LAR_ENV_NOSYNC never does them). The flag is the environment's, set only while
 * this process's writer slot is held, so no other writer of the process commits under it. */
static int commit_mdb(lar_txn *txn, bool nosync)
{
    lar_env *env = txn->env;
    bool toggle = nosync && !(env->flags & LAR_ENV_NOSYNC);
    if (toggle) mdb_env_set_flags(env->mdb, MDB_NOSYNC, 1);
    int rc = mdb_txn_commit(txn->mdb);
    if (toggle) mdb_env_set_flags(env->mdb, MDB_NOSYNC, 0);
    return rc;
}

static int commit_write(lar_txn *txn, bool nosync)
{
    if (txn->failed) return lar_fail(LAR_EMISUSE, "the transaction failed earlier and was not committed; "
                                     "nothing it wrote was stored");
    int err = LAR_OK;
    for (int i = 0; !err && i < TXN_CACHES; i++)
        if (txn->caches[i].ops) err = txn->caches[i].ops->flush(txn);
    if (!err) err = flush_sequences(txn);
    detach_dependents(txn); /* LMDB frees a write transaction's cursors when it ends */
    if (err) return err;
    int rc = commit_mdb(txn, nosync);
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
    return lar_txn_commit_flags(txn, 0);
}

int lar_txn_commit_flags(lar_txn *txn, unsigned int flags)
{
    if (!txn) return lar_fail(LAR_EINVAL, "lar_txn_commit: txn is NULL");
    if (flags & ~LAR_COMMIT_NOSYNC) return lar_fail(LAR_EINVAL, "lar_txn_commit_flags: unknown flags 0x%x", flags);
    if (txn->state != TXN_ACTIVE) return lar_fail(LAR_EMISUSE, "lar_txn_commit: the transaction has ended");
    int err = check_owner(txn, "lar_txn_commit");
    if (err) return err;
    if (!txn->write) {
        mdb_txn_reset(txn->mdb);
        finish(txn);
        return LAR_OK;
    }
    err = commit_write(txn, flags & LAR_COMMIT_NOSYNC);
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
        detach_dependents(txn);
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
        if (txn->mdb) keep_spare(txn->env, txn->mdb); /* a read transaction's, reset */
        forget_handle(txn);
    }
    release_keeps(txn);
    for (int i = 0; i < TXN_CACHES; i++)
        if (txn->caches[i].ops) txn->caches[i].ops->destroy(txn);
    free(txn->copies);
    free(txn->sequences);
    free(txn->row_cursors);
    buffer_free(&txn->row);
    buffer_free(&txn->orphans);
    free(txn);
}

int lar_txn_state(const lar_txn *txn, int *is_active, int *is_write)
{
    if (!txn) return lar_fail(LAR_EINVAL, "lar_txn_state: txn is NULL");
    if (is_active) *is_active = txn->state == TXN_ACTIVE;
    if (is_write) *is_write = txn->write;
    return LAR_OK;
}

int lar_txn_version(const lar_txn *txn, uint64_t *out)
{
    if (!txn || !out) return lar_fail(LAR_EINVAL, "lar_txn_version: NULL argument");
    if (txn->state != TXN_ACTIVE) return lar_fail(LAR_EMISUSE, "lar_txn_version: the transaction has ended");
    *out = (uint64_t)mdb_txn_id(txn->mdb);
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
    if (!rc) {
        txn->mutations++;
        return LAR_OK;
    }
    /* The one failure that changes nothing: a key that MDB_NOOVERWRITE found. */
    if (rc == MDB_KEYEXIST && (flags & MDB_NOOVERWRITE)) return LAR_EEXISTS;
    return mutation_failed(txn, rc, "cannot write");
}

/* Before anything is removed from table: see txn_created_here. */
static void note_removal(lar_txn *txn, MDB_dbi dbi)
{
    txn->removed_from |= 1ull << (dbi % 64);
    txn_row_cursor_close(txn, dbi);
}

int txn_del(lar_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data)
{
    txn->cache_obj.key = 0;
    note_removal(txn, dbi);
    int rc = inject(mdb_del(txn->mdb, dbi, key, data));
    if (!rc) {
        txn->mutations++;
        return LAR_OK;
    }
    if (rc == MDB_NOTFOUND) return LAR_ENOTFOUND;
    return mutation_failed(txn, rc, "cannot delete");
}

int txn_drop(lar_txn *txn, MDB_dbi dbi)
{
    txn->cache_obj.key = 0;
    note_removal(txn, dbi);
    int rc = inject(mdb_drop(txn->mdb, dbi, 0));
    if (!rc) txn->mutations++;
    return rc ? mutation_failed(txn, rc, "cannot empty a table") : LAR_OK;
}

int txn_cursor_put(lar_txn *txn, kv_cursor *cursor, kv_val *key, kv_val *data, unsigned int flags)
{
    txn->cache_obj.key = 0;
    int rc = inject(mdb_cursor_put(cursor, key, data, flags));
    if (!rc) {
        txn->mutations++;
        return LAR_OK;
    }
    if (rc == MDB_KEYEXIST && (flags & MDB_NOOVERWRITE)) return LAR_EEXISTS;
    return mutation_failed(txn, rc, "cannot write");
}

int txn_cursor_del(lar_txn *txn, kv_cursor *cursor)
{
    txn->cache_obj.key = 0;
    note_removal(txn, mdb_cursor_dbi(cursor));
    int rc = inject(mdb_cursor_del(cursor, 0));
    if (!rc) txn->mutations++;
    return rc ? mutation_failed(txn, rc, "cannot delete") : LAR_OK;
}

int txn_note_mutation(lar_txn *txn)
{
    int rc = inject(0);
    if (rc) return mutation_failed(txn, rc, "cannot write");
    txn->mutations++;
    return LAR_OK;
}

int txn_settle(lar_txn *txn, uint64_t mark, int err)
{
    if (err && err != LAR_ENOTFOUND && txn && txn->mutations != mark && !txn->failed) txn_poison(txn);
    return err;
}

int txn_create_object_table(lar_txn *txn, lar_class cls)
{
    char name[16];
    class_table_name(cls, name);
    MDB_dbi dbi;
    /* LMDB forbids opening tables concurrently: readers reloading a schema open them too. */
    pthread_mutex_lock(&txn->env->mutex);
    int rc = inject(mdb_dbi_open(txn->mdb, name, MDB_CREATE | MDB_INTEGERKEY, &dbi));
    pthread_mutex_unlock(&txn->env->mutex);
    return rc ? mutation_failed(txn, rc, "cannot create a class table") : LAR_OK;
}

static int create_table(lar_txn *txn, const char *name, unsigned int flags)
{
    MDB_dbi dbi;
    pthread_mutex_lock(&txn->env->mutex);
    int rc = inject(mdb_dbi_open(txn->mdb, name, MDB_CREATE | flags, &dbi));
    pthread_mutex_unlock(&txn->env->mutex);
    return rc ? mutation_failed(txn, rc, "cannot create a table") : LAR_OK;
}

int txn_create_backlink_table(lar_txn *txn)
{
    return create_table(txn, BACKLINK_TABLE, 0);
}

int txn_create_collection_table(lar_txn *txn)
{
    int err = create_table(txn, COLLECTION_TABLE, MDB_INTEGERKEY);
    return err ? err : create_table(txn, KEYED_TABLE, 0);
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

/* The stored counter, never below the last key in use, whatever the counter says. */
static uint64_t stored_next(lar_txn *txn, uint32_t id, kv_table table)
{
    uint8_t name[5] = {META_SEQUENCE_PREFIX, (uint8_t)(id >> 24), (uint8_t)(id >> 16), (uint8_t)(id >> 8),
                       (uint8_t)id};
    MDB_val key = {sizeof name, name}, data;
    uint64_t next = 1;
    if (!mdb_get(txn->mdb, txn->env->meta_dbi, &key, &data) && data.mv_size == sizeof next)
        memcpy(&next, data.mv_data, sizeof next);
    MDB_cursor *cursor;
    if (!mdb_cursor_open(txn->mdb, table, &cursor)) {
        MDB_val last, row;
        if (!mdb_cursor_get(cursor, &last, &row, MDB_LAST) && last.mv_size == sizeof(uint64_t)) {
            uint64_t used;
            memcpy(&used, last.mv_data, sizeof used);
            if (used >= next) next = used + 1;
        }
        mdb_cursor_close(cursor);
    }
    return next;
}

sequence_state *txn_sequence(lar_txn *txn, uint32_t id, kv_table table)
{
    if (id >= txn->sequence_capacity) {
        uint32_t capacity = txn->schema->class_count > id ? txn->schema->class_count : id + 1;
        sequence_state *sequences = realloc(txn->sequences, capacity * sizeof *sequences);
        if (!sequences) return lar_fail(LAR_ENOMEM, "out of memory"), NULL;
        memset(sequences + txn->sequence_capacity, 0, (capacity - txn->sequence_capacity) * sizeof *sequences);
        txn->sequences = sequences;
        txn->sequence_capacity = capacity;
    }
    sequence_state *state = &txn->sequences[id];
    if (!state->loaded) {
        state->next = stored_next(txn, id, table);
        state->first = state->next;
        state->table = table;
        state->loaded = true;
    }
    return state;
}


/* ---- LMDB errors ---- */

int lar_fail_mdb(int rc, const char *context)
{
    int code;
    switch (rc) {
    case ENOMEM: code = LAR_ENOMEM; break;
    case MDB_MAP_FULL: code = LAR_EMAPFULL; break;
    case MDB_READERS_FULL: case MDB_DBS_FULL: case MDB_TXN_FULL: code = LAR_EBUSY; break;
    case MDB_CORRUPTED: case MDB_PAGE_NOTFOUND: case MDB_BAD_VALSIZE: code = LAR_ECORRUPT; break;
    case MDB_INVALID: code = LAR_ENOTLARDER; break;
    case MDB_VERSION_MISMATCH: code = LAR_EVERSION; break;
    case EACCES: case EROFS: case EPERM: code = LAR_EREADONLY; break;
    default: code = LAR_EIO; break;
    }
    return lar_fail(code, "%s: %s", context, mdb_strerror(rc));
}
