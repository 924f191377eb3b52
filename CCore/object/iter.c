/* Iterators: walk a class table in key order, which is creation order (primary-key
 * order for a class keyed by its int primary key: see object.c).
 *
 * In a read transaction a cursor simply steps. A write transaction may change
 * the table between steps, so there each step seeks past the last key seen
 * instead of trusting the cursor. */
#include "object/object.h"

#include <stdlib.h>
#include <string.h>

static void free_bindings(lar_iter *iter)
{
    free(iter->bindings);
    free(iter->runs);
    iter->bindings = NULL;
    iter->runs = NULL;
    iter->binding_count = iter->run_count = 0;
}

/* The transaction ends: let go of it. */
static void detach(txn_dependent *self, lar_txn *txn)
{
    lar_iter *iter = (lar_iter *)self; /* link is its first member */
    /* LMDB frees a write transaction's cursors itself; a reader's are ours to close. */
    if (iter->cursor && !txn->write && iter->epoch == txn->epoch) kv_cursor_close(iter->cursor);
    iter->cursor = NULL;
    iter->txn = NULL;
    iter->streaming = false;
}

int lar_iter_open(lar_txn *txn, lar_class cls, lar_iter **out)
{
    return iter_open_keys(txn, cls, NULL, NULL, 0, out);
}

int iter_open_keys(lar_txn *txn, lar_class cls, const lar_objkey *keys, const kv_val *rows, size_t count,
                   lar_iter **out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_iter_open: out is NULL");
    int err = txn_check(txn, false);
    if (err) return err;
    const schema_class *c = schema_class_at(txn->schema, cls);
    if (!c) return lar_fail(LAR_EINVAL, "unknown class %u", cls);
    lar_iter *iter = calloc(1, sizeof *iter);
    if (!iter) return lar_fail(LAR_ENOMEM, "out of memory opening an iterator");
    if (keys) { /* a result's keys: even none is a key walk, never the whole table */
        iter->keys = big_alloc(count ? count * sizeof *keys : 1);
        if (!iter->keys) {
            free(iter);
            return lar_fail(LAR_ENOMEM, "out of memory opening an iterator");
        }
        if (count) memcpy(iter->keys, keys, count * sizeof *keys);
        iter->key_count = count;
    }
    if (keys && rows && count) {
        iter->rows = big_alloc(count * sizeof *rows);
        if (!iter->rows) {
            big_free(iter->keys);
            free(iter);
            return lar_fail(LAR_ENOMEM, "out of memory opening an iterator");
        }
        memcpy(iter->rows, rows, count * sizeof *rows);
        iter->rows_generation = txn->generation;
    }
    iter->txn = txn;
    iter->cls = c;
    iter->cls_id = cls;
    iter->link.detach = detach;
    iter->ahead_whole = true; /* nothing bound: steps read whole rows */
    txn_depend(txn, &iter->link);
    *out = iter;
    return LAR_OK;
}

static int step(lar_iter *iter, kv_val *key, kv_val *data)
{
    lar_txn *txn = iter->txn;
    if (!iter->cursor || iter->epoch != txn->epoch) {
        int rc = kv_cursor_open(txn, iter->cls->dbi, &iter->cursor);
        if (rc) {
            iter->cursor = NULL;
            return rc;
        }
        iter->epoch = txn->epoch;
    }
    if (iter->last_key == 0) return kv_cursor_step(iter->cursor, key, data, KV_FIRST);
    if (!txn->write && !iter->seeking) return kv_cursor_step(iter->cursor, key, data, KV_NEXT);
    iter->seeking = false;
    lar_objkey from = iter->last_key + 1;
    key->mv_size = sizeof from;
    key->mv_data = &from;
    return kv_cursor_step(iter->cursor, key, data, KV_SEEK);
}

/* Decodes the bindings that are not wide. */
static int fill_decoded(lar_iter *iter, const kv_val *row, size_t shift)
{
    for (uint32_t i = 0; i < iter->binding_count; i++) {
        const iter_binding *b = &iter->bindings[i];
        lar_value *dest = (lar_value *)((uint8_t *)b->dest + shift);
        int err = b->wide ? LAR_OK : row_decode(iter->txn, iter->cls, row, b->prop, dest);
        if (err) return err;
    }
    return LAR_OK;
}

/* Copies a row's wide bindings, shifted by shift bytes. Runs move in 16-byte
 * pieces: a scan slows with every store it adds (each waits for its row to
 * arrive), so half as many stores as 8-byte copies. */
static inline void copy_runs(const copy_run *runs, uint32_t count, const uint8_t *bytes, size_t shift)
{
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *dest = runs[i].dest + shift;
        const uint8_t *src = bytes + runs[i].offset;
        uint32_t size = runs[i].size, at = 0;
        for (; at + 16 <= size; at += 16) memcpy(dest + at, src + at, 16);
        if (at < size) memcpy(dest + at, src + at, 8);
    }
}

/* Copies the stepped-to row's bound properties into their destinations. */
static inline int fill_bindings(lar_iter *iter, const kv_val *row, size_t shift)
{
    const schema_class *cls = iter->cls;
    if (!row_shape_ok(cls, row)) return row_check_shape(cls, row);
    copy_runs(iter->runs, iter->run_count, row->mv_data, shift);
    return iter->decodes ? fill_decoded(iter, row, shift) : LAR_OK;
}

/* Turns a failed LMDB step into the end of the walk or an error. */
static int end_or_fail(lar_iter *iter, int rc)
{
    if (iter->streaming) kv_walk_settle(&iter->walk);
    iter->streaming = false;
    iter->txn->cache_obj.key = 0; /* LMDB may have written part of the row */
    if (rc != KV_NOTFOUND) return lar_fail_mdb(rc, "cannot step an iterator");
    iter->done = true;
    return LAR_ENOTFOUND;
}

/* Object keys are 8 bytes; a table holding another size is damaged. */
static int key_corrupt(lar_iter *iter, const kv_val *key)
{
    if (iter->streaming) kv_walk_settle(&iter->walk); /* the next step is the cursor's */
    iter->streaming = false;
    iter->txn->cache_obj.key = 0;
    return lar_fail(LAR_ECORRUPT, "the table of class '%s' holds a key of %zu bytes", iter->cls->name,
                    key->mv_size);
}

/* The first step, and every step in a write transaction or after a seek. */
static int advance_checked(lar_iter *iter, kv_val *key)
{
    lar_txn *txn = iter->txn;
    if (!txn) return lar_fail(LAR_EMISUSE, "the iterator's transaction has ended");
    if (txn->state != TXN_ACTIVE || txn->failed) return txn_check(txn, false); /* records why */
    if (iter->done) return LAR_ENOTFOUND;
    int rc = step(iter, key, &txn->cache_row);
    if (rc) return end_or_fail(iter, rc);
    if (key->mv_size != sizeof iter->last_key) return key_corrupt(iter, key);
    memcpy(&iter->last_key, key->mv_data, sizeof iter->last_key);
    iter->streaming = !txn->write;
    if (iter->streaming) kv_walk_attach(&iter->walk, txn, iter->cursor, key, &txn->cache_row);
    return LAR_OK;
}

/* Writes the stamp of row (at shift bytes past the bound variable), if one is bound. */
static inline void fill_stamp(lar_iter *iter, const kv_val *row, size_t shift)
{
    uint64_t stamp = row_stamp(iter->cls, row);
    memcpy((uint8_t *)iter->stamp_dest + shift, &stamp, sizeof stamp);
}

/* Steps to the next object and fills the bindings from its row, which it
 * leaves in the transaction's row cache: the reads that usually follow need
 * no second lookup. A read scan's steps take the first branch alone: ending
 * the transaction, seeking or reaching the end clears streaming.
 *
 * LMDB writes the row straight into the cache: copying it there afterwards
 * took two more stores per object, and each store a scan adds costs it
 * several nanoseconds (it waits for its row to arrive). */
static int advance_key(lar_iter *iter, lar_obj *out, size_t shift);

static inline int advance(lar_iter *iter, lar_obj *out, size_t shift)
{
    kv_val key;
    if (iter->keys) return advance_key(iter, out, shift);
    if (iter->streaming) {
        int rc = kv_walk_next(&iter->walk, &key, &iter->txn->cache_row);
        if (rc) return end_or_fail(iter, rc);
        if (key.mv_size != sizeof(lar_objkey)) return key_corrupt(iter, &key);
    } else {
        int err = advance_checked(iter, &key);
        if (err) return err;
    }
    lar_txn *txn = iter->txn;
    lar_obj obj = {iter->cls_id, 0};
    memcpy(&obj.key, key.mv_data, sizeof obj.key);
    *out = obj;
    txn->cache_obj = obj;
    if (iter->stamp_dest) fill_stamp(iter, &txn->cache_row, shift);
    return iter->binding_count ? fill_bindings(iter, &txn->cache_row, shift) : LAR_OK;
}

/* Asks row into the cache, KV_ROWS_AHEAD rows before a key walk's step reads it: the
 * lines the step reads (plan_ahead). */
static inline void prefetch_ahead(const lar_iter *iter, const kv_val *row)
{
    if (iter->ahead_whole) {
        kv_prefetch_row(row);
        return;
    }
    const uint8_t *bytes = row->mv_data;
    kv_prefetch(bytes + iter->ahead_first);
    kv_prefetch(bytes + iter->ahead_last);
    if (iter->ahead_tail) kv_prefetch(bytes + row->mv_size - 1);
}

/* A step of a key walk: the next listed object that still exists. */
static int advance_key(lar_iter *iter, lar_obj *out, size_t shift)
{
    lar_txn *txn = iter->txn;
    if (!txn) return lar_fail(LAR_EMISUSE, "the iterator's transaction has ended");
    if (txn->state != TXN_ACTIVE || txn->failed) return txn_check(txn, false);
    bool known = iter->rows && txn->generation == iter->rows_generation;
    while (iter->key_at < iter->key_count) {
        size_t at = iter->key_at++;
        lar_obj obj = {iter->cls_id, iter->keys[at]};
        kv_val row;
        if (known) { /* the snapshot the rows were read in: in place, the coming ones on their way */
            row = iter->rows[at];
            if (at + KV_ROWS_AHEAD < iter->key_count) prefetch_ahead(iter, &iter->rows[at + KV_ROWS_AHEAD]);
        } else {
            /* Through the kept cursor: a result's keys ascend, each seek starts on the page
             * of the one before (kv/row_cursor.c). */
            int rc = kv_row_get(txn, iter->cls->dbi, obj.key, &row);
            if (rc == KV_NOTFOUND) continue; /* deleted since the result was computed */
            if (rc) return lar_fail_mdb(rc, "cannot step an iterator");
        }
        txn->cache_obj = obj; /* lar_iter_next_all() decodes the cached row */
        txn->cache_row = row;
        *out = obj;
        iter->last_key = obj.key;
        if (iter->stamp_dest) fill_stamp(iter, &row, shift);
        return iter->binding_count ? fill_bindings(iter, &row, shift) : LAR_OK;
    }
    return LAR_ENOTFOUND;
}

int lar_iter_next(lar_iter *iter, lar_obj *out)
{
    if (!iter || !out) return lar_fail(LAR_EINVAL, "lar_iter_next: iter and out must not be NULL");
    return advance(iter, out, 0);
}

/* A read scan's steps after the first, as many as fit: no call per object, no
 * row cache, no object handle unless asked for. Each object costs the walk's step
 * (its page read in place, kv/table_walk.c) and the bound copies: the benchmark's
 * scan measured about 1.3x raw LMDB this way with LMDB's steps, 1.5x with a call per
 * object.
 * The row cache keeps the row it had: in a read transaction it stays true. */
static int stream_rows(lar_iter *iter, lar_obj *objs, size_t capacity, size_t stride, size_t *count)
{
    int err = LAR_OK;
    size_t n = *count;
    for (; n < capacity; n++) {
        kv_val key, row;
        int rc = kv_walk_next(&iter->walk, &key, &row);
        if (rc) {
            err = end_or_fail(iter, rc);
            break;
        }
        if (key.mv_size != sizeof(lar_objkey)) {
            err = key_corrupt(iter, &key);
            break;
        }
        if (iter->stamp_dest) fill_stamp(iter, &row, n * stride);
        if ((err = fill_bindings(iter, &row, n * stride))) break;
        if (objs) {
            lar_obj obj = {iter->cls_id, 0};
            memcpy(&obj.key, key.mv_data, sizeof obj.key);
            objs[n] = obj;
        }
    }
    *count = n;
    return err;
}

/* Row i's bindings are shifted by i * stride bytes (row-wise binding, as ODBC's block cursors). */
int lar_iter_next_batch(lar_iter *iter, lar_obj *objs, size_t capacity, size_t stride, size_t *count)
{
    if (!iter || !count) return lar_fail(LAR_EINVAL, "lar_iter_next_batch: iter and count must not be NULL");
    *count = 0;
    if (capacity == 0) return lar_fail(LAR_EINVAL, "lar_iter_next_batch: capacity is 0");
    int err = LAR_OK;
    while (*count < capacity && !err) {
        if (iter->streaming) {
            err = stream_rows(iter, objs, capacity, stride, count);
        } else {
            lar_obj obj;
            err = advance(iter, &obj, *count * stride);
            if (!err && objs) objs[*count] = obj;
            if (!err) (*count)++;
        }
    }
    return err == LAR_ENOTFOUND && *count > 0 ? LAR_OK : err;
}

static void plan_ahead(lar_iter *iter);

/* lar_iter_follow(): reads the embedded object that the link among values (the stepped
 * object's) holds, through the kept cursor of its table: the embedded objects of owners
 * created in order are in order too, so each is one cursor step on from the last. */
static int follow(lar_iter *iter, const lar_value *values)
{
    const lar_value *link = &values[iter->follow_prop];
    if (link->type != LAR_TYPE_LINK) {
        *iter->follow_key = 0;
        return LAR_OK;
    }
    const schema_class *target = iter->follow_target;
    kv_val row;
    int rc = kv_row_get(iter->txn, target->dbi, link->as.link.key, &row);
    if (rc == KV_NOTFOUND)
        return lar_fail(LAR_ECORRUPT, "embedded object %llu of class '%s' is missing",
                        (unsigned long long)link->as.link.key, target->name);
    if (rc) return lar_fail_mdb(rc, "cannot read an embedded object");
    int err = row_decode_all(iter->txn, target, &row, iter->follow_out);
    if (!err) *iter->follow_key = link->as.link.key;
    return err;
}

/* lar_iter_next_all()'s decode when following. Out of line: inlined, it cost every other
 * step its tail call into row_decode_all and four register saves (~14 instructions). */
__attribute__((noinline)) static int decode_and_follow(lar_iter *iter, lar_value *values)
{
    int err = row_decode_all(iter->txn, iter->cls, &iter->txn->cache_row, values);
    return err ? err : follow(iter, values);
}

int lar_iter_next_all(lar_iter *iter, lar_obj *out, lar_value *values, size_t count)
{
    if (!iter || !out || !values)
        return lar_fail(LAR_EINVAL, "lar_iter_next_all: iter, out and values must not be NULL");
    /* A class added in an ended write died with it: look at the class only in a live transaction. */
    if (!iter->txn) return lar_fail(LAR_EMISUSE, "lar_iter_next_all: the iterator's transaction has ended");
    if (count != iter->cls->property_count)
        return lar_fail(LAR_EINVAL, "lar_iter_next_all: class '%s' has %u properties, not %zu", iter->cls->name,
                        iter->cls->property_count, count);
    int err = advance(iter, out, 0);
    if (err) return err;
    if (iter->follow_out) return decode_and_follow(iter, values);
    return row_decode_all(iter->txn, iter->cls, &iter->txn->cache_row, values);
}

int lar_iter_follow(lar_iter *iter, uint32_t prop, lar_value *out, size_t count, lar_objkey *key)
{
    if (!iter) return lar_fail(LAR_EINVAL, "lar_iter_follow: iter is NULL");
    if (!iter->txn) return lar_fail(LAR_EMISUSE, "lar_iter_follow: the iterator's transaction has ended");
    if (!out) {
        iter->follow_out = NULL;
        iter->follow_key = NULL;
        plan_ahead(iter);
        return LAR_OK;
    }
    if (!key) return lar_fail(LAR_EINVAL, "lar_iter_follow: key is NULL");
    const schema_class *cls = iter->cls;
    if (prop >= cls->property_count)
        return lar_fail(LAR_EINVAL, "lar_iter_follow: class '%s' has no property %u (it has %u)", cls->name, prop,
                        cls->property_count);
    const schema_property *p = &cls->properties[prop];
    const schema_class *target = p->def.type == LAR_TYPE_LINK && p->def.collection == LAR_COLLECTION_NONE
                                     ? schema_class_at(iter->txn->schema, p->target)
                                     : NULL;
    if (!target || !(target->flags & LAR_CLASS_EMBEDDED))
        return lar_fail(LAR_EINVAL, "lar_iter_follow: property '%s.%s' is not a to-one link to an embedded class",
                        cls->name, p->def.name);
    if (count != target->property_count)
        return lar_fail(LAR_EINVAL, "lar_iter_follow: class '%s' has %u properties, not %zu", target->name,
                        target->property_count, count);
    iter->follow_out = out;
    iter->follow_key = key;
    iter->follow_prop = prop;
    iter->follow_target = target;
    plan_ahead(iter);
    return LAR_OK;
}

/* Finds the bytes a bound step reads: the bound slots, the null bitmap (a decoded value's
 * check reads it), the stamp, and the variable area's last line for a string, a binary or
 * a mixed value. A step with nothing bound, or one of lar_iter_next_all(), reads the whole
 * row. Asking only for those lines leaves the cache's fill buffers to them: walking a
 * result sorted by an int and reading that int, one line a row instead of two. */
static void plan_ahead(lar_iter *iter)
{
    const schema_class *cls = iter->cls;
    iter->ahead_whole = iter->binding_count == 0 || iter->follow_out;
    iter->ahead_tail = false;
    uint32_t first = UINT32_MAX, last = 0;
    for (uint32_t i = 0; i < iter->binding_count; i++) {
        const iter_binding *b = &iter->bindings[i];
        const schema_property *p = &cls->properties[b->prop];
        if (p->slot_offset < first) first = p->slot_offset;
        if (p->slot_offset + p->slot_size - 1 > last) last = p->slot_offset + p->slot_size - 1;
        if (b->wide) continue;
        uint32_t bitmap = cls->fixed_size + b->prop / 8;
        if (cls->has_optional && bitmap > last) last = bitmap;
        lar_type type = p->def.type;
        if (!p->def.collection && (type == LAR_TYPE_STRING || type == LAR_TYPE_BINARY || type == LAR_TYPE_MIXED))
            iter->ahead_tail = true;
    }
    if (iter->stamp_dest) {
        if (cls->stamp_at < first) first = cls->stamp_at;
        if (cls->stamp_at + 7 > last) last = cls->stamp_at + 7;
    }
    iter->ahead_first = first == UINT32_MAX ? 0 : first;
    iter->ahead_last = last;
}

/* Rebuilds the copy runs from the wide bindings: sorted by slot, adjacent ones merged. */
static void plan_runs(lar_iter *iter)
{
    const slot_plan *plan = iter->cls->plan;
    copy_run *runs = iter->runs;
    uint32_t count = 0;
    iter->decodes = false;
    for (uint32_t i = 0; i < iter->binding_count; i++) {
        const iter_binding *b = &iter->bindings[i];
        if (!b->wide) {
            iter->decodes = true;
            continue;
        }
        copy_run run = {b->dest, plan[b->prop].offset, 8};
        uint32_t at = count++;
        for (; at > 0 && runs[at - 1].offset > run.offset; at--) runs[at] = runs[at - 1];
        runs[at] = run;
    }
    uint32_t merged = 0;
    for (uint32_t i = 0; i < count; i++) {
        copy_run *last = merged ? &runs[merged - 1] : NULL;
        if (last && last->offset + last->size == runs[i].offset && last->dest + last->size == runs[i].dest)
            last->size += runs[i].size;
        else
            runs[merged++] = runs[i];
    }
    iter->run_count = merged;
    plan_ahead(iter);
}

/* Replaces prop's binding with one to dest (none when dest is NULL). */
static int bind(lar_iter *iter, uint32_t prop, void *dest, bool wide)
{
    uint32_t i = 0;
    while (i < iter->binding_count && iter->bindings[i].prop != prop) i++;
    if (!dest) {
        if (i < iter->binding_count) iter->bindings[i] = iter->bindings[--iter->binding_count];
    } else {
        if (!iter->bindings) {
            uint32_t capacity = iter->cls->property_count;
            iter->bindings = calloc(capacity, sizeof *iter->bindings);
            iter->runs = calloc(capacity, sizeof *iter->runs);
            if (!iter->bindings || !iter->runs) {
                free_bindings(iter);
                return lar_fail(LAR_ENOMEM, "out of memory binding a property");
            }
        }
        if (i == iter->binding_count) iter->binding_count++;
        iter->bindings[i] = (iter_binding){dest, prop, wide};
    }
    plan_runs(iter);
    return LAR_OK;
}

/* Checks a bind call's iterator and property; with a number type, that the property is one. */
static int check_bind(lar_iter *iter, uint32_t prop, lar_type number, const char *function)
{
    if (!iter) return lar_fail(LAR_EINVAL, "%s: iter is NULL", function);
    if (!iter->txn) return lar_fail(LAR_EMISUSE, "%s: the iterator's transaction has ended", function);
    const schema_class *cls = iter->cls;
    if (prop >= cls->property_count)
        return lar_fail(LAR_EINVAL, "%s: class '%s' has no property %u", function, cls->name, prop);
    const lar_property_def *def = &cls->properties[prop].def;
    if (number != LAR_TYPE_NULL &&
        (def->type != number || def->collection != LAR_COLLECTION_NONE || (def->flags & LAR_PROP_OPTIONAL)))
        return lar_fail(LAR_ETYPE, "%s: property '%s' of '%s' is not a required %s", function, def->name,
                        cls->name, type_name(number));
    return LAR_OK;
}

int lar_iter_bind_int(lar_iter *iter, uint32_t prop, int64_t *dest)
{
    int err = check_bind(iter, prop, LAR_TYPE_INT, "lar_iter_bind_int");
    return err ? err : bind(iter, prop, dest, true);
}

int lar_iter_bind_double(lar_iter *iter, uint32_t prop, double *dest)
{
    int err = check_bind(iter, prop, LAR_TYPE_DOUBLE, "lar_iter_bind_double");
    return err ? err : bind(iter, prop, dest, true);
}

int lar_iter_bind_value(lar_iter *iter, uint32_t prop, lar_value *dest)
{
    int err = check_bind(iter, prop, LAR_TYPE_NULL, "lar_iter_bind_value");
    return err ? err : bind(iter, prop, dest, false);
}

int lar_iter_bind_stamp(lar_iter *iter, uint64_t *dest)
{
    if (!iter) return lar_fail(LAR_EINVAL, "lar_iter_bind_stamp: iter is NULL");
    if (!iter->txn) return lar_fail(LAR_EMISUSE, "lar_iter_bind_stamp: the iterator's transaction has ended");
    iter->stamp_dest = dest;
    plan_ahead(iter);
    return LAR_OK;
}

int lar_iter_seek(lar_iter *iter, lar_objkey key)
{
    if (!iter) return lar_fail(LAR_EINVAL, "lar_iter_seek: iter is NULL");
    if (!iter->txn) return lar_fail(LAR_EMISUSE, "lar_iter_seek: the iterator's transaction has ended");
    if (iter->keys) { /* the first listed object whose key is at least key */
        iter->key_at = 0;
        while (iter->key_at < iter->key_count && iter->keys[iter->key_at] < key) iter->key_at++;
        return LAR_OK;
    }
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
        txn_forget(iter->txn, &iter->link);
        /* A cursor of an earlier epoch died with the LMDB transaction that a renew replaced. */
        if (iter->cursor && iter->epoch == iter->txn->epoch) kv_cursor_close(iter->cursor);
    }
    free_bindings(iter);
    big_free(iter->keys);
    big_free(iter->rows);
    free(iter);
}
