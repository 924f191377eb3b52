/* Row cursors: one LMDB cursor a transaction keeps per object table, through which the
 * rows of objects are read, appended and rewritten by key.
 *
 * mdb_get and mdb_put start each call from a fresh cursor at the root of the B-tree (in a
 * write, with a search of the dirty-page list at each level). A kept cursor starts from
 * where the last call left it: LMDB's MDB_SET stays on the cursor's leaf page when the
 * key is on it, an append finds the table's end without a descent, and a row read right
 * after the row before it (an owner's embedded objects, created in their owners' order,
 * or objects read in key order) is one step on. Measured on 200,000 rows of 60 bytes:
 * a read 85 ns (mdb_get) against 30 (MDB_SET on the kept cursor) and 7 (MDB_NEXT); an
 * append 58 against 35; a rewrite 105 against 51. A rewrite of the row the cursor is on
 * (read just before, as a property set does) is an MDB_CURRENT put: no search at all.
 *
 * The steps go through a kv_walk over the cursor, which in a read transaction reads the
 * cursor's leaf page in place (table_walk.c): a walk over owners reading each one's
 * embedded object (lar_iter_follow) took 2,430 instructions a person through Swift
 * stepping the cursor, 2,302 in place (213 against 202 ns). The walk is attached only
 * when a read steps on from a sought row: attaching looks the row up among its page's
 * nodes, which a random lookup never needs. In a write the walk steps the cursor.
 *
 * LMDB keeps a write transaction's cursors in step with the writes of other cursors on
 * the same table; a kept cursor of a write is nevertheless closed when anything is
 * removed from its table (see txn_del), so that it never sits on a deleted entry, and
 * opened again by the next call that needs it. A read transaction's are closed when it
 * ends; a write's go with the LMDB transaction. */
#include "kv/kv.h"

#include <stdlib.h>
#include <string.h>

/* table's kept cursor, opened on first use; NULL when it cannot be (the callers then
 * use mdb_get and mdb_put). */
static row_cursor *kept_cursor(lar_txn *txn, kv_table table)
{
    if (table < txn->row_cursor_capacity && txn->row_cursors[table].cursor) return &txn->row_cursors[table];
    if (table >= txn->row_cursor_capacity) {
        uint32_t capacity = table < 16 ? 32 : table * 2;
        row_cursor *cursors = realloc(txn->row_cursors, capacity * sizeof *cursors);
        if (!cursors) return NULL;
        memset(cursors + txn->row_cursor_capacity, 0, (capacity - txn->row_cursor_capacity) * sizeof *cursors);
        txn->row_cursors = cursors;
        txn->row_cursor_capacity = capacity;
    }
    row_cursor *kept = &txn->row_cursors[table];
    if (mdb_cursor_open(txn->mdb, table, &kept->cursor)) return NULL;
    kept->at = 0;
    kept->walking = false;
    return kept;
}

static uint64_t key_of(const kv_val *key)
{
    uint64_t value = 0;
    if (key->mv_size == sizeof value) memcpy(&value, key->mv_data, sizeof value);
    return value;
}

/* How far ahead (in keys) a row is reached by steps rather than a seek: a query's result
 * read in key order mostly wants a row a few ahead; a step on the page costs a few ns,
 * a seek over a hundred. Keys are distinct, so a row at most this many keys ahead is at
 * most this many steps away; one further off is sought at once. */
#define STEPS_AHEAD 16

/* Steps to the row of key, which the walk is on (at) or is a few rows ahead. Only a
 * hint: the keys LMDB returns decide, so a wrong one costs the steps and a seek. */
static bool step_to(lar_txn *txn, row_cursor *kept, uint64_t key, kv_val *row)
{
    if (!kept->at || kept->at > key || key - kept->at > STEPS_AHEAD) return false;
    if (kept->at == key && txn->write) { /* a put through another cursor may have moved it */
        kv_val at;
        int rc = mdb_cursor_get(kept->cursor, &at, &kept->row, MDB_GET_CURRENT);
        kept->at = rc ? 0 : key_of(&at);
    }
    if (kept->at < key && !kept->walking) {
        kv_walk_attach(&kept->walk, txn, kept->cursor, &kept->at_key, &kept->row);
        kept->walking = true;
    }
    while (kept->at && kept->at < key) {
        kv_val at;
        int rc = kv_walk_next(&kept->walk, &at, &kept->row);
        kept->at = rc ? 0 : key_of(&at);
    }
    if (kept->at != key) return false;
    *row = kept->row;
    return true;
}

int kv_row_get(lar_txn *txn, kv_table table, uint64_t key, kv_val *row)
{
    row_cursor *kept = kept_cursor(txn, table);
    kv_val k = {sizeof key, &key};
    if (!kept) return mdb_get(txn->mdb, table, &k, row);
    if (step_to(txn, kept, key, row)) return 0;
    int rc = mdb_cursor_get(kept->cursor, &k, row, MDB_SET_KEY);
    kept->walking = false;
    kept->at = rc ? 0 : key;
    kept->at_key = k;
    kept->row = *row;
    return rc;
}

kv_cursor *kv_kept_cursor(lar_txn *txn, kv_table table)
{
    row_cursor *kept = kept_cursor(txn, table);
    if (!kept) return NULL;
    kept->at = 0; /* the caller moves it */
    kept->walking = false;
    return kept->cursor;
}

/* Whether the kept cursor is on the entry of key, as LMDB says. MDB_CURRENT replaces the
 * entry the cursor is on whatever key it is given: `at` alone is not trusted for it. */
static bool is_on(row_cursor *kept, uint64_t key)
{
    kv_val at, data;
    return kept->at == key && mdb_cursor_get(kept->cursor, &at, &data, MDB_GET_CURRENT) == 0 && key_of(&at) == key;
}

int txn_row_put(lar_txn *txn, kv_table table, uint64_t key, kv_val *row, unsigned int flags)
{
    row_cursor *kept = kept_cursor(txn, table);
    kv_val k = {sizeof key, &key};
    if (!kept) return txn_put(txn, table, &k, row, flags);
    /* A rewrite of the row just read (a property set reads the row, then puts it back)
     * replaces it where the cursor is, without LMDB searching the page for the key. */
    if (flags == 0 && is_on(kept, key)) flags = MDB_CURRENT;
    int err = txn_cursor_put(txn, kept->cursor, &k, row, flags);
    /* A put leaves the cursor on the entry it wrote. Writes read at's row again and step
     * the cursor itself (no page read in place), so at_key and row need not follow. */
    kept->at = err ? 0 : key;
    kept->walking = false;
    return err;
}

void txn_row_cursor_close(lar_txn *txn, kv_table table)
{
    if (table >= txn->row_cursor_capacity || !txn->row_cursors[table].cursor) return;
    mdb_cursor_close(txn->row_cursors[table].cursor);
    txn->row_cursors[table].cursor = NULL;
}

void txn_row_cursors_end(lar_txn *txn, bool close)
{
    for (uint32_t i = 0; i < txn->row_cursor_capacity; i++) {
        if (close && txn->row_cursors[i].cursor) mdb_cursor_close(txn->row_cursors[i].cursor);
        txn->row_cursors[i].cursor = NULL;
    }
}
