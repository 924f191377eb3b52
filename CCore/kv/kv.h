/* Layer 2, kv: environments, transactions, map growth, and access to tables.
 * The only layer that calls LMDB: the layers above use the kv_ names below. */
#ifndef LARDER_KV_H
#define LARDER_KV_H

#include "catalog/catalog.h"

#include <lmdb.h>
#include <pthread.h>
#include <string.h>
#include <sys/types.h>

/* ---- tables ---- */

typedef MDB_val kv_val;
typedef MDB_cursor kv_cursor;
typedef MDB_dbi kv_table;
#define KV_NOTFOUND MDB_NOTFOUND
#define KV_NOOVERWRITE MDB_NOOVERWRITE /* txn_put flags */
#define KV_APPEND MDB_APPEND
#define KV_RESERVE MDB_RESERVE         /* txn_put: data.mv_data receives where to write mv_size bytes */
#define KV_CURRENT MDB_CURRENT         /* txn_cursor_put: replace the entry the cursor is on */
typedef enum kv_step {
    KV_FIRST = MDB_FIRST, KV_NEXT = MDB_NEXT, KV_PREV = MDB_PREV, KV_LAST = MDB_LAST, KV_SEEK = MDB_SET_RANGE,
    KV_SEEK_EXACT = MDB_SET_KEY,
    /* Tables of fixed-size duplicates (the index): a page of the key's duplicates at once. */
    KV_DUPS = MDB_GET_MULTIPLE, KV_NEXT_DUPS = MDB_NEXT_MULTIPLE
} kv_step;

/* Maps an LMDB or errno code to a LAR_E* code and records it with context. */
int lar_fail_mdb(int rc, const char *context);

/* ---- checking a file before LMDB maps it (file_check.c) ---- */

/* Refuses, without writing, a non-empty file (open as fd) that LMDB would crash on or
 * that is not LMDB's: LAR_ENOTLARDER (no LMDB header), LAR_ECORRUPT (truncated, or a
 * damaged header page), LAR_EIO. Returns KV_NEW_HEADER_CUT_SHORT, recording nothing,
 * for the first page of a new file's header without the second (a kill during LMDB's
 * first write), which holds nothing. */
int kv_check_file(const char *path, int fd);
#define KV_NEW_HEADER_CUT_SHORT 2 /* internal, never returned by the API */
/* Refuses with LAR_ECORRUPT a table record in the main database whose root page is a
 * header page or lies past the file's last page. */
int kv_check_tables(MDB_txn *txn, const char *path);

/* ---- environments (env.c) ---- */

#define SPARE_READERS 2

struct lar_env {
    MDB_env *mdb;
    char *path;
    dev_t device;
    ino_t inode;
    int refcount;             /* guarded by the registry lock */
    unsigned int flags;
    MDB_dbi meta_dbi, pk_dbi, index_dbi;
    MDB_dbi history_dbi;      /* the change log (kv/history.c), when has_history */
    uint32_t page_size;       /* LMDB's page size for the file (kv_read_ahead) */
    bool has_history;
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
    size_t readers_checked_at;   /* the file's last page when a writer last cleared dead readers */

    /* Read transactions reset at lar_txn_free(), kept for the next lar_txn_begin() to renew
     * (guarded by mutex): mdb_txn_begin() callocs one sized by the table count LMDB allows
     * (about 49 KiB for MAX_CLASSES), which cost a Swift refresh more than its change sets. */
    MDB_txn *spare_readers[SPARE_READERS];
    int spare_reader_count;

    pthread_rwlock_t map_lock;   /* read-held by every live transaction; write-held to remap */
    struct lar_env *next;        /* registry list */
};

size_t env_map_size(lar_env *env);
/* Frees the reader slots of processes that died holding a snapshot (kill -9, a crash):
 * they would keep old pages from reuse forever and, once they fill the table, make
 * every new transaction fail. */
void env_clear_dead_readers(lar_env *env);
/* The same, for a writer, once the file has grown by DEAD_READER_CHECK_PAGES since the
 * last time: cheap enough to ask at every write. The caller holds the writer lock. */
void env_clear_dead_readers_on_growth(lar_env *env);
/* env_begin_mdb() for an environment not yet shared with other threads (opening it),
 * adopting the map when another process has grown it. */
int env_begin_private(lar_env *env, unsigned int flags, MDB_txn **txn);
/* mdb_txn_begin(); when the reader table is full, clears dead readers and tries once more. */
int env_begin_mdb(lar_env *env, unsigned int flags, MDB_txn **out);
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
/* The calling thread's write transaction on env, or NULL. */
lar_txn *env_own_write(lar_env *env);
/* The newest schema: the calling thread's write may hold classes not yet committed,
 * and another process may have added classes since this one last looked. */
int env_current_schema(lar_env *env, lar_schema **out);
/* Reads the stored schema in txn, opening each class table. */
int schema_load(MDB_txn *txn, MDB_dbi meta, lar_schema **out);
/* The name of a class's object table. */
void class_table_name(lar_class cls, char out[16]);

#define META_FORMAT "format"
#define META_SCHEMA "schema"
#define META_GENERATION "generation"
#define META_SCHEMA_VERSION "schema_version"
#define META_NEXT_KEY_PREFIX 'n' /* 'n' + class id (big-endian u32) -> next object key */

#define ENV_MAP_MOVED 1 /* internal, never returned by the API */

#define META_FORMAT "format"
#define META_SCHEMA "schema"
#define META_GENERATION "generation"
#define META_SCHEMA_VERSION "schema_version"
#define META_SEQUENCE_PREFIX 'n' /* 'n' + sequence id (big-endian u32) -> next key */

/* ---- the change log's table and the versions it depends on (history.c) ---- */

/* The change log: one entry per commit that changed objects, keyed by its version (the
 * LMDB transaction id), and at key 0 the floor: the log holds every commit after it.
 * A file written before the log existed gets the table at its first writable open
 * (floor: the version then); opened read-only it has no history. */
#define HISTORY_TABLE "changes"
#define HISTORY_FLOOR_KEY 0
/* Opens (creating it when writable and missing) the log's table at open. */
int env_attach_history(lar_env *env, bool writable);
/* The oldest version a live reader of any process still sees; *any false when none. */
int kv_oldest_reader(lar_env *env, uint64_t *out, bool *any);
/* The file's last committed version, by any process, as a new read transaction sees it. */
int kv_env_version(lar_env *env, uint64_t *out);
/* The version of the file's newest meta page: ahead of kv_env_version() for a moment
 * while a commit is published to new readers (or for good when its writer died then). */
int kv_env_written_version(lar_env *env, uint64_t *out);

/* ---- transactions (txn.c) ---- */

/* A counter of keys that only grow, such as a class's object keys: read on first
 * use, stored when the write commits. */
typedef struct sequence_state {
    uint64_t next;
    uint64_t first;           /* next when first read in this write: it handed out [first, next) */
    kv_table table;           /* the table whose last key it was read beside */
    bool loaded, dirty;
    uint8_t owner_note;       /* for the sequence's owner, 0 when loaded: see object.c's displaced objects */
} sequence_state;

/* Something opened under a transaction, such as an iterator, that must let go of
 * it when the transaction ends (LMDB frees a write transaction's cursors). */
typedef struct txn_dependent {
    void (*detach)(struct txn_dependent *self, struct lar_txn *txn);
    struct txn_dependent *next;
} txn_dependent;

enum { TXN_ACTIVE = 1, TXN_ENDED = 2 };

/* A walk of a table of 8-byte keys in key order, rows read in place from LMDB's leaf
 * pages in a read transaction (table_walk.c says how and why). kv_walk_next() returns 0
 * with the next entry, KV_NOTFOUND past the last, or an LMDB error; key and data point
 * into the map, as a cursor's do, while the transaction lives. */
#define KV_WALK_HEADER 16        /* an LMDB page's header, before its node offsets */
#define KV_WALK_NODE 8           /* an LMDB node's header */
#define KV_WALK_KEY 8            /* the keys a walk reads in place */
typedef struct kv_walk {
    kv_cursor *cursor;
    const uint8_t *page;      /* the leaf page read in place, or NULL: the cursor steps */
    uint32_t next, count;     /* the next node's index on it, and its node count */
    uint32_t upper;           /* where its nodes start */
    uint32_t cursor_at;       /* the node the cursor is on */
    uint32_t page_size;
    bool in_place;            /* pages may be read in place: a read, LMDB 0.9's layout */
    size_t row_ahead;         /* how far on a row's lines are prefetched (table_walk.c) */
    bool started;
} kv_walk;

/* A cursor a transaction keeps on an object table (kv/row_cursor.c), the walk that steps
 * it, and the key and row of the entry the walk is on as far as it knows (at 0: unknown). */
typedef struct row_cursor {
    MDB_cursor *cursor;
    kv_walk walk;
    bool walking;             /* the walk is attached to the cursor (else: attach it to step) */
    uint64_t at;
    kv_val at_key, row;       /* at's key as LMDB gave it (for attaching), and its row */
} row_cursor;

/* Write-back caches that the layers above keep in a write transaction (list nodes: see
 * collection/list.c; backlink changes: link/backlink.c; the counts of the sets and maps
 * last changed: collection/collection.c). Their contents are part of the
 * write: flushed into LMDB before the commit (in this order), forgotten when the
 * transaction ends, freed with the handle. */
typedef struct txn_cache_ops {
    int (*flush)(struct lar_txn *txn);
    void (*drop)(struct lar_txn *txn);
    void (*destroy)(struct lar_txn *txn);
} txn_cache_ops;
/* The change log's notes (changes/record.c) come last: their flush writes the log entry
 * of everything the others flushed. */
enum { TXN_CACHE_LIST_NODES, TXN_CACHE_BACKLINKS, TXN_CACHE_KEYED_COUNT, TXN_CACHE_CHANGES, TXN_CACHES };
typedef struct txn_cache {
    const txn_cache_ops *ops; /* set by the cache's owner on first use; NULL: none */
    void *data;
} txn_cache;

struct lar_txn {
    lar_env *env;
    MDB_txn *mdb;
    lar_schema *schema;
    int state;
    bool write;
    bool failed;              /* poisoned: a mutation failed, so it can only be aborted */
    uint64_t mutations;       /* successful LMDB mutations so far: see txn_settle() */
    pthread_t thread;         /* the thread that began a write transaction */
    uint64_t epoch;           /* bumped each time the transaction (re)starts: older cursors are gone */
    uint64_t generation;      /* unique to each (re)start in the process: what pointers into its
                               * snapshot (a result's rows) are valid for */

    /* The last row read: most reads touch the same object several times.
     * Key 0, which no object has, marks it empty. */
    lar_obj cache_obj;
    MDB_val cache_row;

    /* Write transactions only. */
    uint64_t removed_from;    /* bit (table % 64) set once anything was removed from table: see txn_created_here */
    sequence_state *sequences;  /* by sequence id */
    uint32_t sequence_capacity;
    byte_buffer row;          /* scratch space for encoding a row */
    byte_buffer *copies;      /* strings read in a write: LMDB's dirty pages move under later writes */
    size_t copy_count, copy_capacity;

    txn_cache caches[TXN_CACHES];

    /* Embedded objects (see collection/embedded.c): the ones whose owning link went away
     * during the current call (lar_obj records, deleted at its end unless linked again),
     * and the one being placed in its owner, the only embedded object a link may name. */
    byte_buffer orphans;
    lar_obj placing;          /* key 0: none */

    struct row_cursor *row_cursors; /* by table: see kv/row_cursor.c */
    uint32_t row_cursor_capacity;

    txn_dependent *dependents;
    lar_schema *own_schema;   /* schemas this write made; published when it commits */
    struct lar_txn *next_handle, *prev_handle; /* in env->handles */
};

/* Closes the LMDB side of every handle of a closing environment; lar_txn_free() still works. */
void txn_detach_all(lar_env *env);
/* Aborts the spare read transactions (closing the environment). */
void txn_drop_spares(lar_env *env);

/* Checks that txn is active (and writable when write is true); records the error otherwise. */
int txn_check(lar_txn *txn, bool write);
/* An operation that fails after it changed something (damaged data found midway, memory)
 * must not leave half its work to commit: it notes txn_mark() first and returns through
 * txn_settle(), which then fails the write as a failed mutation would. */
static inline uint64_t txn_mark(const lar_txn *txn)
{
    return txn ? txn->mutations : 0;
}
int txn_settle(lar_txn *txn, uint64_t mark, int err);
/* Marks a write transaction failed: every later call but abort is refused. */
void txn_poison(lar_txn *txn);
/* Wrappers for every LMDB mutation in a write transaction. A failure poisons the
 * transaction, except the two that change nothing: txn_put with MDB_NOOVERWRITE
 * finding its key (LAR_EEXISTS, not recorded) and txn_del finding nothing
 * (LAR_ENOTFOUND, not recorded). */
int txn_put(lar_txn *txn, MDB_dbi dbi, kv_val *key, kv_val *data, unsigned int flags);
int txn_del(lar_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data);
int txn_drop(lar_txn *txn, MDB_dbi dbi);
/* Deletes the entry at cursor (of txn, on a table opened for writing); a next step then
 * finds the entry after it. */
int txn_cursor_del(lar_txn *txn, kv_cursor *cursor);
/* txn_put through a cursor of txn, which it leaves on the entry written (or, for
 * LAR_EEXISTS, on the entry found, whose value data then holds). Puts in key order
 * through one cursor are much cheaper than txn_put's: a key that belongs on the
 * cursor's leaf page skips the descent from the root. KV_CURRENT replaces the
 * entry the cursor is on (key must be its key). Fails and poisons as txn_put does. */
int txn_cursor_put(lar_txn *txn, kv_cursor *cursor, kv_val *key, kv_val *data, unsigned int flags);
/* A change kept in the write-back cache instead of LMDB counts as a mutation, and fails as
 * one under fault injection (poisoning the write). */
int txn_note_mutation(lar_txn *txn);
/* Creates class cls's object table inside the write transaction. */
int txn_create_object_table(lar_txn *txn, lar_class cls);
/* Creates the backlink table (see link/link.h), or the collection tables (see
 * collection/list.c and set.c), inside the write transaction. */
int txn_create_backlink_table(lar_txn *txn);
int txn_create_collection_table(lar_txn *txn);
#define BACKLINK_TABLE "backlinks"
#define COLLECTION_TABLE "collections"    /* list nodes */
#define KEYED_TABLE "keyed"               /* set elements and map entries */
/* The sequence of collection node ids: above every class's, which are class ids. */
#define SEQUENCE_COLLECTION_NODES MAX_CLASSES
/* The stamps of the rows of classes keyed by their primary key (see codec/row.c). */
#define SEQUENCE_ROW_STAMPS (MAX_CLASSES + 1)
#ifdef LARDER_FAULT_INJECTION
/* Tests only: the nth mutation from now on this thread fails as if LMDB ran out of memory. */
void txn_fail_after(long mutations);
#endif
/* Copies bytes into memory owned by txn, valid until it ends. */
const void *txn_keep(lar_txn *txn, const void *bytes, size_t size);
/* The sequence id of txn's write, never below 1 + the last key of table. */
sequence_state *txn_sequence(lar_txn *txn, uint32_t id, kv_table table);
/* Whether key surely names an entry of table without looking: true when sequence id
 * handed key out in this write (the caller advances next only once the entry is
 * stored, as object keys are) and nothing was removed from table in this write (any
 * txn_del, txn_cursor_del or txn_drop on it, or on a table whose number is equal
 * modulo 64, ends that). False means unknown: look it up. Objects linked in the write
 * that created them skip a B-tree lookup each. */
static inline bool txn_created_here(const lar_txn *txn, uint32_t id, kv_table table, uint64_t key)
{
    if (!txn->write || id >= txn->sequence_capacity) return false;
    const sequence_state *state = &txn->sequences[id];
    return state->loaded && state->table == table && key >= state->first && key < state->next &&
           !(txn->removed_from & (1ull << (table % 64)));
}
/* Row cursors (row_cursor.c): an object table's rows by key, through a cursor txn keeps
 * for the table. kv_row_get returns LMDB's code as kv_get does; txn_row_put is txn_put
 * (KV_APPEND or 0). */
int kv_row_get(lar_txn *txn, kv_table table, uint64_t key, kv_val *row);
int txn_row_put(lar_txn *txn, kv_table table, uint64_t key, kv_val *row, unsigned int flags);
/* table's kept cursor, for reads that seek it anywhere (an index probe); NULL when it
 * cannot be opened. The caller never closes it. */
kv_cursor *kv_kept_cursor(lar_txn *txn, kv_table table);
/* Closes table's kept cursor, if any: something is being removed from the table. */
void txn_row_cursor_close(lar_txn *txn, kv_table table);
/* The transaction ends: closes (a read) or forgets (a write: LMDB freed them) the cursors. */
void txn_row_cursors_end(lar_txn *txn, bool close);
void txn_depend(lar_txn *txn, txn_dependent *dependent);
void txn_forget(lar_txn *txn, txn_dependent *dependent);

/* Reads; these return LMDB's code (0, KV_NOTFOUND or an error for lar_fail_mdb()). */
static inline int kv_get(lar_txn *txn, kv_table table, kv_val *key, kv_val *data)
{
    return mdb_get(txn->mdb, table, key, data);
}
static inline int kv_cursor_open(lar_txn *txn, kv_table table, kv_cursor **out)
{
    return mdb_cursor_open(txn->mdb, table, out);
}
static inline int kv_cursor_step(kv_cursor *cursor, kv_val *key, kv_val *data, kv_step step)
{
    return mdb_cursor_get(cursor, key, data, (MDB_cursor_op)step);
}
static inline void kv_cursor_close(kv_cursor *cursor)
{
    mdb_cursor_close(cursor);
}
/* Reading ahead while a cursor walks a table in key order. A table's leaf pages mostly
 * follow each other in the file (LMDB takes new pages from the file's end as the table
 * grows), yet the processor's prefetchers stop at each page's end, so a walk waits on
 * memory at every line of every page. Asking for a page further on helps: a walk of
 * 200,000 rows of 77 bytes took 20.5 ns a row without, 7.7 with the next page. Asking
 * for the page three on gives memory longer to answer: on a machine whose table outgrew
 * the cache, a query's scan of 200,000 rows of 90 bytes took 45.7 ns a row asking for
 * the next page, 39.2 three on (2: 42.2, 4: 40.5). A kv_walk asks, for each row it
 * reads in place, for the lines that far on (table_walk.c). Only a hint: a prefetch
 * never faults, and a page that does not follow costs the wasted requests. */
#define KV_READ_AHEAD_PAGES 3
/* How many rows ahead a walk of known rows (a result's, kept from its scan) asks for the
 * row it will read: a sorted result's rows are all over the map, and each waits for memory. */
#define KV_ROWS_AHEAD 16
/* Asks the line holding p into the cache. An asm statement on x86-64: GCC 12 drops the
 * __builtin_prefetch calls of a function that picks their addresses by a condition. */
static inline void kv_prefetch(const void *p)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p);
#endif
}
/* Asks row into the cache: its first and last lines (a row spans two, often). */
static inline void kv_prefetch_row(const kv_val *row)
{
    kv_prefetch(row->mv_data);
    kv_prefetch((const uint8_t *)row->mv_data + row->mv_size - 1);
}
int kv_walk_open(lar_txn *txn, kv_table table, kv_walk *w);
void kv_walk_close(kv_walk *w);
/* A walk on from the entry (key, data) cursor is on, over the cursor the caller keeps
 * and closes: its steps go through kv_walk_next() until the caller steps the cursor again. */
void kv_walk_attach(kv_walk *w, lar_txn *txn, kv_cursor *cursor, const kv_val *key, const kv_val *data);
/* Puts the cursor on the last row the walk returned, so that the caller may step it. */
int kv_walk_settle(kv_walk *w);
/* The first entry, a new page, or a node the cursor reads (out of line). */
int kv_walk_turn(kv_walk *w, kv_val *key, kv_val *data);
static inline int kv_walk_next(kv_walk *w, kv_val *key, kv_val *data)
{
    if (w->next < w->count) {
        uint16_t at, lo, hi, flags, ksize;
        memcpy(&at, w->page + KV_WALK_HEADER + 2 * w->next, 2);
        if (at >= w->upper && at <= w->page_size - KV_WALK_NODE - KV_WALK_KEY) {
            const uint8_t *node = w->page + at;
            memcpy(&lo, node, 2);
            memcpy(&hi, node + 2, 2);
            memcpy(&flags, node + 4, 2);
            memcpy(&ksize, node + 6, 2);
            size_t size = (size_t)lo | (size_t)hi << 16;
            if (!flags && ksize == KV_WALK_KEY && size <= w->page_size - at - KV_WALK_NODE - KV_WALK_KEY) {
                key->mv_size = KV_WALK_KEY;
                key->mv_data = (void *)(node + KV_WALK_NODE);
                data->mv_size = size;
                data->mv_data = (void *)(node + KV_WALK_NODE + KV_WALK_KEY);
                __builtin_prefetch(node + w->row_ahead);
                __builtin_prefetch(node + w->row_ahead + KV_WALK_NODE + KV_WALK_KEY + size);
                w->next++;
                return 0;
            }
        }
    }
    return kv_walk_turn(w, key, data);
}

/* The id of txn's snapshot: the last commit it sees (a write: the commit it will make). */
static inline uint64_t kv_txn_id(lar_txn *txn)
{
    return (uint64_t)mdb_txn_id(txn->mdb);
}
static inline int kv_count(lar_txn *txn, kv_table table, uint64_t *out)
{
    MDB_stat stat;
    int rc = mdb_stat(txn->mdb, table, &stat);
    if (!rc) *out = stat.ms_entries;
    return rc;
}

#endif
