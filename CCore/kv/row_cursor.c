/* Row cursors: one LMDB cursor a transaction keeps per object table, through which the
 * rows of objects are read, appended and rewritten by key.
 *
 * mdb_get and mdb_put start each call from a fresh cursor at the root of the B-tree (in a
 * write, with a search of the dirty-page list at each level). A kept cursor starts from
 * where the last call left it: LMDB's MDB_SET stays on the cursor's leaf page when the
 * key is on it, an append finds the table's end without a descent, and a row read right
 * after the row before it (an owner's embedded objects, created in their owners' order,
 * or objects read in key order) is one MDB_NEXT. Measured on 200,000 rows of 60 bytes:
 * a read 85 ns (mdb_get) against 30 (MDB_SET on the kept cursor) and 7 (MDB_NEXT); an
 * append 58 against 35; a rewrite 105 against 51. A rewrite of the row the cursor is on
 * (read just before, as a property set does) is an MDB_CURRENT put: no search at all.
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
    kept->ahead_page = 0;
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

/* Steps to the row of key, which the cursor is on (at) or is a few rows ahead. Only a
 * hint: the keys LMDB returns decide, so a wrong one costs the steps and an MDB_SET. */
static bool step_to(row_cursor *kept, uint64_t key, kv_val *row)
{
    kv_val at;
    if (!kept->at || kept->at > key || key - kept->at > STEPS_AHEAD) return false;
    if (kept->at == key) {
        int rc = mdb_cursor_get(kept->cursor, &at, row, MDB_GET_CURRENT);
        kept->at = rc ? 0 : key_of(&at);
        return kept->at == key;
    }
    while (kept->at && kept->at < key) {
        int rc = mdb_cursor_get(kept->cursor, &at, row, MDB_NEXT);
        kept->at = rc ? 0 : key_of(&at);
    }
    return kept->at == key;
}

/* In a read, rows read in key order (embedded objects in their owners' order, a result
 * walked in key order) come from consecutive pages: the next one is asked into the cache
 * as the reads reach each page (kv_read_ahead). Only for rows reached by steps: a sought
 * row is as likely anywhere. A write's pages are copies: no hint. */
static void read_ahead(const lar_txn *txn, row_cursor *kept, const kv_val *row)
{
    if (txn->write) return;
    kv_read_ahead ahead = {kept->ahead_page, txn->env->page_size};
    kv_read_ahead_past(&ahead, row);
    kept->ahead_page = ahead.page;
}

int kv_row_get(lar_txn *txn, kv_table table, uint64_t key, kv_val *row)
{
    row_cursor *kept = kept_cursor(txn, table);
    kv_val k = {sizeof key, &key};
    if (!kept) return mdb_get(txn->mdb, table, &k, row);
    if (step_to(kept, key, row)) { /* reads in key order: the next page will be wanted */
        read_ahead(txn, kept, row);
        return 0;
    }
    int rc = mdb_cursor_get(kept->cursor, &k, row, MDB_SET);
    kept->at = rc ? 0 : key;
    return rc;
}

kv_cursor *kv_kept_cursor(lar_txn *txn, kv_table table)
{
    row_cursor *kept = kept_cursor(txn, table);
    if (!kept) return NULL;
    kept->at = 0; /* the caller moves it */
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
    kept->at = err ? 0 : key; /* a put leaves the cursor on the entry it wrote */
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
