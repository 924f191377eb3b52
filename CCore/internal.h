/* Internal declarations shared by the C core's modules. Not installed. */
#ifndef LARDER_INTERNAL_H
#define LARDER_INTERNAL_H

#include "larder.h"

#include <lmdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/types.h>

/* ---- errors (error.c) ---- */

/* Records code and a printf-style message as this thread's last error; returns code. */
int lar_fail(int code, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Maps an LMDB or errno code to a LAR_E* code and records it with context. */
int lar_fail_mdb(int rc, const char *context);

/* ---- schema (schema.c) ---- */

typedef struct schema_property {
    lar_property_def def;   /* strings owned by the schema */
    uint32_t slot_offset;   /* offset of its fixed slot in a row, after the header */
    uint32_t slot_size;
} schema_property;

/* What decoding a slot needs, packed so a whole row's plan fits in a few cache lines. */
typedef struct slot_plan {
    uint32_t offset;        /* the slot's, from the start of the row */
    uint32_t type;          /* lar_type, or LAR_TYPE_NULL for a collection */
} slot_plan;

typedef struct schema_class {
    char *name;
    unsigned int flags;
    uint32_t property_count;
    schema_property *properties;
    int32_t primary_key;    /* property index or -1 */
    bool has_indexes;       /* any LAR_PROP_INDEXED property other than the primary key */
    bool has_optional;      /* any property may be null: rows need their null bitmap read */
    bool has_var;           /* a string or binary property: rows have a variable area */
    bool all_wide_numbers;  /* every property is a required int or double: 8-byte slots, no bitmap */
    uint32_t fixed_size;    /* sum of slot sizes */
    uint32_t var_at;        /* where a row's variable area starts: after its slots and bitmap */
    slot_plan *plan;        /* one per property */
    MDB_dbi dbi;            /* the object table */
} schema_class;

/* An immutable snapshot of the stored schema; replaced, never changed, when the file's schema changes. */
typedef struct lar_schema {
    uint64_t generation;    /* bumped by every schema change in the file */
    uint64_t version;       /* the application's schema version */
    uint32_t class_count;
    schema_class *classes;
    struct lar_schema *older; /* kept alive until the environment closes */
} lar_schema;

void schema_free(lar_schema *schema);
/* Reads the stored schema in txn, opening each class table. */
int schema_load(MDB_txn *txn, MDB_dbi meta, lar_schema **out);
const schema_class *schema_class_at(const lar_schema *schema, lar_class cls);
/* The newest schema of env (the calling thread's write may hold uncommitted classes). */
int schema_current(lar_env *env, lar_schema **out);

/* ---- environments (env.c) ---- */

struct lar_env {
    MDB_env *mdb;
    char *path;
    dev_t device;
    ino_t inode;
    int refcount;             /* guarded by the registry lock */
    unsigned int flags;
    MDB_dbi meta_dbi, pk_dbi, index_dbi;
    int lock_fd;              /* flock()ed by writers: serialises Larder writers across processes */

    pthread_mutex_t mutex;    /* guards schema, live_txns, writer_* and DBI opening */
    lar_schema *schema;
    int live_txns;
    bool writer_active;       /* serialises this process's writers: flock() cannot, threads share it */
    pthread_t writer_thread;
    struct lar_txn *writer_txn;    /* the active write transaction, if any */
    struct lar_txn *handles;       /* every transaction handle not yet freed */
    pthread_cond_t writer_done;

    lar_schema *retired;      /* schemas of aborted writes: callers may still hold their names */
    bool grow_wanted;         /* a write filled the map: grow it once no transaction is live */

    pthread_rwlock_t map_lock;   /* read-held by every live transaction; write-held to remap */
    struct lar_env *next;        /* registry list */
};

size_t env_map_size(lar_env *env);
/* A write filled the map: asks for it to grow, which env_try_grow() does as soon
 * as no transaction of this process is live. Returns the current map size. */
size_t env_request_growth(lar_env *env);
/* Grows the map if growth was requested and no transaction of this process is
 * live; never waits. The caller holds no map lock. */
void env_try_grow(lar_env *env);
/* Adopts a map grown by another process, if no other transaction of this process
 * is live; never waits (LAR_EMAPFULL otherwise). The caller holds no map lock. */
int env_adopt_map(lar_env *env);
/* Keeps schemas (a chain through ->older) alive until the environment closes. */
void env_retire_schema(lar_env *env, lar_schema *schema);
/* Returns the schema in effect for txn's snapshot, reloading it if another writer changed it.
 * Returns ENV_MAP_MOVED when another process grew the map meanwhile: the caller must
 * end txn, adopt the map and begin again. */
int env_schema_for(lar_env *env, MDB_txn *txn, lar_schema **out);
#define ENV_MAP_MOVED 1 /* internal, never returned by the API */
/* Takes (waiting; LAR_EMISUSE if this thread already writes) or releases the writer lock,
 * across this process's threads and across processes. */
int env_lock_writer(lar_env *env);
void env_unlock_writer(lar_env *env);

#define META_FORMAT "format"
#define META_SCHEMA "schema"
#define META_GENERATION "generation"
#define META_SCHEMA_VERSION "schema_version"
#define META_NEXT_KEY_PREFIX 'n' /* 'n' + class id (big-endian u32) -> next object key */

/* ---- transactions (txn.c) ---- */

typedef struct byte_buffer {
    uint8_t *data;
    size_t size, capacity;
} byte_buffer;

int buffer_reserve(byte_buffer *buffer, size_t extra);
int buffer_append(byte_buffer *buffer, const void *bytes, size_t size);
void buffer_free(byte_buffer *buffer);

/* Per-class write state: the next object key, loaded on first use. */
typedef struct class_write_state {
    lar_objkey next_key;
    bool loaded, dirty;
} class_write_state;

enum { TXN_ACTIVE = 1, TXN_ENDED = 2 };

struct lar_txn {
    lar_env *env;
    MDB_txn *mdb;
    lar_schema *schema;
    int state;
    bool write;
    bool failed;              /* poisoned: a mutation failed, so it can only be aborted */
    pthread_t thread;         /* the thread that began a write transaction */
    uint64_t epoch;           /* bumped each time the transaction (re)starts: older cursors are gone */

    /* The last row read: most reads touch the same object several times.
     * Key 0, which no object has, marks it empty. */
    lar_obj cache_obj;
    MDB_val cache_row;

    /* Write transactions only. */
    class_write_state *classes;
    uint32_t class_capacity;
    byte_buffer row;          /* scratch space for encoding a row */
    byte_buffer *copies;      /* strings read in a write: LMDB's dirty pages move under later writes */
    size_t copy_count, copy_capacity;

    struct lar_iter *iterators;
    lar_schema *own_schema;   /* schemas this write made; published when it commits */
    struct lar_txn *next_handle, *prev_handle; /* in env->handles */
};

/* Closes the LMDB side of every handle of a closing environment; lar_txn_free() still works. */
void txn_detach_all(lar_env *env);

/* Checks that txn is active (and writable when write is true); records the error otherwise. */
int txn_check(lar_txn *txn, bool write);
/* Marks a write transaction failed: every later call but abort is refused. */
void txn_poison(lar_txn *txn);
/* Wrappers for every LMDB mutation in a write transaction. A failure poisons the
 * transaction, except the two that change nothing: txn_put with MDB_NOOVERWRITE
 * finding its key (LAR_EEXISTS, not recorded) and txn_del finding nothing
 * (LAR_ENOTFOUND, not recorded). */
int txn_put(lar_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data, unsigned int flags);
int txn_del(lar_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data);
int txn_drop(lar_txn *txn, MDB_dbi dbi);
/* Opens (creating, with MDB_CREATE) a named table inside the write transaction. */
int txn_open_table(lar_txn *txn, const char *name, unsigned int flags, MDB_dbi *out);
#ifdef LARDER_FAULT_INJECTION
/* Tests only: the nth mutation from now on this thread fails as if LMDB ran out of memory. */
void txn_fail_after(long mutations);
#endif
/* Copies bytes into memory owned by txn, valid until it ends. */
const void *txn_keep(lar_txn *txn, const void *bytes, size_t size);
class_write_state *txn_class_state(lar_txn *txn, lar_class cls);
/* Reads obj's row; fills *row, or returns LAR_EDELETED. Uses and fills the row cache. */
int txn_read_row(lar_txn *txn, const schema_class *cls, lar_obj obj, MDB_val *row);

/* ---- rows and values (row.c, value.c, keys.c) ---- */

uint32_t slot_size_of(const lar_property_def *def);
/* Checks that value may be stored in prop; returns LAR_OK or the error it recorded. */
int value_check(const schema_class *cls, uint32_t prop, const lar_value *value);
/* Whether value has its property's own fixed-width type, which value_check()
 * accepts without looking further. */
static inline bool value_is_plain(const lar_property_def *def, const lar_value *value)
{
    if (value->type != def->type) return false;
    switch (value->type) {
    case LAR_TYPE_INT: case LAR_TYPE_BOOL: case LAR_TYPE_FLOAT: case LAR_TYPE_DOUBLE:
    case LAR_TYPE_OBJECT_ID: case LAR_TYPE_UUID: case LAR_TYPE_DECIMAL128: return true;
    default: return false;
    }
}
/* Converts accepted aliases (int for float/double, nonzero bool) to the property's own type. */
lar_value value_normalize(const lar_property_def *def, const lar_value *value);
lar_value value_default(const lar_property_def *def);
bool utf8_valid(const char *data, size_t size);
bool value_equal(const lar_value *a, const lar_value *b);
const char *type_name(lar_type type);

/* Encodes checked, normalized values into buffer (replacing its contents). */
int row_encode(const schema_class *cls, const lar_value *values, byte_buffer *buffer);
/* Whether row has room for its slots and bitmap (and, without strings or binaries, nothing more). */
static inline bool row_shape_ok(const schema_class *cls, const MDB_val *row)
{
    return cls->has_var ? row->mv_size >= cls->var_at : row->mv_size == cls->var_at;
}
/* LAR_ECORRUPT (recorded) unless row has the shape of cls's rows. */
int row_check_shape(const schema_class *cls, const MDB_val *row);
/* Decodes one property; strings point into row. */
int row_decode_raw(const schema_class *cls, const MDB_val *row, uint32_t prop, lar_value *out);
/* Decodes every property into out; strings are copied into txn when it writes. */
int row_decode_all(lar_txn *txn, const schema_class *cls, const MDB_val *row, lar_value *restrict out);
/* Decodes one property; strings are copied into txn when it writes. */
int row_decode(lar_txn *txn, const schema_class *cls, const MDB_val *row, uint32_t prop,
               lar_value *out);

#define KEY_MAX 480
/* Order-preserving key encodings compared by memcmp. Return the encoded length. */
size_t key_encode_primary(lar_class cls, const lar_value *value, uint8_t *out);
size_t key_encode_index(lar_class cls, uint32_t prop, const lar_value *value, uint8_t *out);
size_t key_encode_class_prefix(lar_class cls, uint8_t *out);
bool key_type_is_indexable(lar_type type);
bool key_type_is_primary(lar_type type);

/* ---- iterators (iter.c) ---- */

/* A property that every step copies into the caller's variable. */
typedef struct iter_binding {
    void *dest;               /* an int64_t or double when wide, else a lar_value */
    uint32_t prop;
    bool wide;                /* a required int or double: its 8-byte slot is copied */
} iter_binding;

/* Bytes every step copies from the row: wide bindings whose slots and
 * variables are both adjacent (a struct's fields bound in order) share a run. */
typedef struct copy_run {
    uint8_t *dest;
    uint32_t offset, size;
} copy_run;

struct lar_iter {
    lar_txn *txn;             /* NULL once the transaction ended */
    const schema_class *cls;
    lar_class cls_id;
    MDB_cursor *cursor;
    uint64_t epoch;
    lar_objkey last_key;      /* 0 before the first step; not kept up while streaming, which needs none */
    bool done;
    bool seeking;             /* the next step must seek, even in a read transaction */
    bool streaming;           /* a read cursor mid-walk: the next step is a plain MDB_NEXT */
    /* Bindings: room for one per property, allocated by the first bind. */
    iter_binding *bindings;
    copy_run *runs;           /* the wide bindings, by slot offset */
    uint32_t binding_count, run_count;
    bool decodes;             /* some binding is not wide */
    struct lar_iter *next;
};

void iter_detach_all(lar_txn *txn);

#endif
