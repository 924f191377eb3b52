/* Iterators: walk a class table in key order, which is creation order.
 *
 * In a read transaction a cursor simply steps. A write transaction may change
 * the table between steps (or replace the LMDB transaction when the map grows),
 * so there each step seeks past the last key seen instead of trusting the cursor. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static void unlink_iter(lar_iter *iter)
{
    for (lar_iter **link = &iter->txn->iterators; *link; link = &(*link)->next) {
        if (*link == iter) {
            *link = iter->next;
            break;
        }
    }
}

void iter_detach_all(lar_txn *txn)
{
    for (lar_iter *iter = txn->iterators; iter; iter = iter->next) {
        /* LMDB frees a write transaction's cursors itself; a reader's are ours to close. */
        if (iter->cursor && !txn->write && iter->epoch == txn->epoch) mdb_cursor_close(iter->cursor);
        iter->cursor = NULL;
        iter->txn = NULL;
        iter->streaming = false;
    }
    txn->iterators = NULL;
}

int lar_iter_open(lar_txn *txn, lar_class cls, lar_iter **out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_iter_open: out is NULL");
    int err = txn_check(txn, false);
    if (err) return err;
    const schema_class *c = schema_class_at(txn->schema, cls);
    if (!c) return lar_fail(LAR_EINVAL, "unknown class %u", cls);
    lar_iter *iter = calloc(1, sizeof *iter);
    if (!iter) return lar_fail(LAR_ENOMEM, "out of memory opening an iterator");
    iter->txn = txn;
    iter->cls = c;
    iter->cls_id = cls;
    iter->next = txn->iterators;
    txn->iterators = iter;
    *out = iter;
    return LAR_OK;
}

static int step(lar_iter *iter, MDB_val *key, MDB_val *data)
{
    lar_txn *txn = iter->txn;
    if (!iter->cursor || iter->epoch != txn->epoch) {
        int rc = mdb_cursor_open(txn->mdb, iter->cls->dbi, &iter->cursor);
        if (rc) {
            iter->cursor = NULL;
            return rc;
        }
        iter->epoch = txn->epoch;
    }
    if (iter->last_key == 0) return mdb_cursor_get(iter->cursor, key, data, MDB_FIRST);
    if (!txn->write && !iter->seeking) return mdb_cursor_get(iter->cursor, key, data, MDB_NEXT);
    iter->seeking = false;
    lar_objkey from = iter->last_key + 1;
    key->mv_size = sizeof from;
    key->mv_data = &from;
    return mdb_cursor_get(iter->cursor, key, data, MDB_SET_RANGE);
}

/* Steps to the next object; fills *row with its row. */
static int advance(lar_iter *iter, lar_obj *out, MDB_val *row)
{
    lar_txn *txn = iter->txn;
    if (!txn) return lar_fail(LAR_EMISUSE, "the iterator's transaction has ended");
    if (txn->state != TXN_ACTIVE || txn->failed) return txn_check(txn, false); /* records why */
    if (iter->done) return LAR_ENOTFOUND;
    MDB_val key;
    int rc = step(iter, &key, row);
    iter->streaming = rc == 0 && !txn->write;
    if (rc == MDB_NOTFOUND) {
        iter->done = true;
        return LAR_ENOTFOUND;
    }
    if (rc) return lar_fail_mdb(rc, "cannot step an iterator");
    memcpy(&iter->last_key, key.mv_data, sizeof iter->last_key);
    out->cls = iter->cls_id;
    out->key = iter->last_key;
    return LAR_OK;
}

int lar_iter_next(lar_iter *iter, lar_obj *out)
{
    if (!iter || !out) return lar_fail(LAR_EINVAL, "lar_iter_next: iter and out must not be NULL");
    MDB_val row;
    int err = advance(iter, out, &row);
    if (err) return err;
    /* The row is in hand: the reads that usually follow need no second lookup. */
    lar_txn *txn = iter->txn;
    txn->cache_valid = true;
    txn->cache_obj = *out;
    txn->cache_row = row;
    return LAR_OK;
}

int lar_iter_next_all(lar_iter *iter, lar_obj *out, lar_value *values, size_t count)
{
    if (!iter || !out || !values)
        return lar_fail(LAR_EINVAL, "lar_iter_next_all: iter, out and values must not be NULL");
    if (count != iter->cls->property_count)
        return lar_fail(LAR_EINVAL, "lar_iter_next_all: class '%s' has %u properties, not %zu", iter->cls->name,
                        iter->cls->property_count, count);
    MDB_val key, row;
    lar_txn *txn = iter->txn;
    /* The common step of a read scan, without the general path's checks: ending
     * the transaction, seeking or reaching the end clears streaming. */
    if (iter->streaming) {
        int rc = mdb_cursor_get(iter->cursor, &key, &row, MDB_NEXT);
        if (rc == 0) {
            memcpy(&iter->last_key, key.mv_data, sizeof iter->last_key);
            out->cls = iter->cls_id;
            out->key = iter->last_key;
            return row_decode_all(txn, iter->cls, &row, values);
        }
        iter->streaming = false;
        if (rc != MDB_NOTFOUND) return lar_fail_mdb(rc, "cannot step an iterator");
        iter->done = true;
        return LAR_ENOTFOUND;
    }
    int err = advance(iter, out, &row);
    return err ? err : row_decode_all(txn, iter->cls, &row, values);
}

int lar_iter_seek(lar_iter *iter, lar_objkey key)
{
    if (!iter) return lar_fail(LAR_EINVAL, "lar_iter_seek: iter is NULL");
    if (!iter->txn) return lar_fail(LAR_EMISUSE, "lar_iter_seek: the iterator's transaction has ended");
    iter->last_key = key ? key - 1 : 0;
    iter->done = false;
    iter->seeking = true;
    iter->streaming = false;
    return LAR_OK;
}

void lar_iter_close(lar_iter *iter)
{
    if (!iter) return;
    if (iter->txn) {
        unlink_iter(iter);
        /* A cursor of an earlier epoch died with the LMDB transaction that the map growth replaced. */
        if (iter->cursor && iter->epoch == iter->txn->epoch) mdb_cursor_close(iter->cursor);
    }
    free(iter);
}
