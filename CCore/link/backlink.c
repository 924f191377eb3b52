/* The backlink table: one LMDB entry per (target, origin, property), keyed so
 * that the links into one object, and those through one property, are a run
 * of adjacent keys (O(log n + k) to count or list them):
 *
 *   key:   [target class u32 BE][target key u64 BE][origin class u32 BE]
 *          [origin property u16 BE][origin key u64 BE]          (26 bytes)
 *   value: u32 count: how many times the origin links here through the
 *          property (1 for a to-one link; a list may hold a target twice)
 *
 * Big-endian fields make memcmp order follow the numbers, so a prefix is a
 * range. The table exists once a class with a link property was declared.
 *
 * A write transaction gathers the links it adds (backlink_add) in memory and applies
 * them to the table in key order, through one cursor: when 2M (2^21) have gathered,
 * before anything reads or removes a backlink, and before the commit. Adds to random
 * targets then touch the table's pages in order, once per batch, a key that lands on
 * the cursor's current leaf page skips the descent from the root, and keys past the
 * table's last one are appended (full pages: a new table's are half the size).
 *
 * Memory is bounded: 26 bytes per gathered add, at most 52 MiB, and always less than
 * the table pages the same adds fill (at least 40 bytes per entry), which LMDB holds
 * as dirty pages anyway; a write that links less holds less, and its buffer goes when
 * it ends (if larger than 4096 adds). The bound is set by measurement: one batch per
 * write of up to 2M links appends into a new table and walks an old one once, where
 * a write of 1.2M links in batches of 1M (then 200K into a full table, splitting nearly
 * every page) was about 1.6x slower in a scratch measurement and left the table 1.8x
 * as large.
 *
 * Links into embedded objects have no entry here: an embedded object has one owner,
 * which its row records at its end (row_owner, see codec/row.c and object/embedded.c).
 * The functions below read and change that record for such targets, so the callers see
 * one kind of backlink. A to-one link's embedded object is created with its owner in
 * its row: inserting it costs its row's append and nothing more. */
#include "link/link.h"

#include <stdlib.h>
#include <string.h>

#define BACKLINK_KEY_SIZE 26
#define TARGET_PREFIX_SIZE 12
#define PROPERTY_PREFIX_SIZE 18

static void put_be(uint8_t *out, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--, v >>= 8) out[i] = (uint8_t)v;
}

static uint64_t get_be(const uint8_t *in, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = v << 8 | in[i];
    return v;
}

size_t backlink_prefix(lar_obj target, lar_class origin_cls, uint32_t prop, bool with_property, uint8_t *out)
{
    put_be(out, target.cls, 4);
    put_be(out + 4, target.key, 8);
    if (!with_property) return TARGET_PREFIX_SIZE;
    put_be(out + 12, origin_cls, 4);
    put_be(out + 16, prop, 2);
    return PROPERTY_PREFIX_SIZE;
}

static void encode_key(lar_obj target, lar_obj origin, uint32_t prop, uint8_t out[BACKLINK_KEY_SIZE])
{
    backlink_prefix(target, origin.cls, prop, true, out);
    put_be(out + 18, origin.key, 8);
}

bool backlink_decode(const kv_val *key, const kv_val *data, backlink *out)
{
    if (key->mv_size != BACKLINK_KEY_SIZE || data->mv_size != sizeof out->count) return false;
    const uint8_t *k = key->mv_data;
    out->origin.cls = (lar_class)get_be(k + 12, 4);
    out->prop = (uint32_t)get_be(k + 16, 2);
    out->origin.key = get_be(k + 18, 8);
    memcpy(&out->count, data->mv_data, sizeof out->count);
    return out->count > 0;
}

static int read_count(lar_txn *txn, kv_val *key, uint32_t *count)
{
    kv_val data;
    int rc = kv_get(txn, txn->schema->backlink_dbi, key, &data);
    *count = 0;
    if (rc == KV_NOTFOUND) return LAR_OK;
    if (rc) return lar_fail_mdb(rc, "cannot read the backlink table");
    if (data.mv_size != sizeof *count) return lar_fail(LAR_ECORRUPT, "a backlink entry is undecodable");
    memcpy(count, data.mv_data, sizeof *count);
    return LAR_OK;
}

/* ---- the adds a write gathers ---- */

#define PENDING_LIMIT (1u << 21)

typedef struct pending_add {
    uint8_t key[BACKLINK_KEY_SIZE];
} pending_add;

typedef struct pending_adds {
    pending_add *items;
    size_t count, capacity;
} pending_adds;

#define PENDING(txn) ((txn)->caches[TXN_CACHE_BACKLINKS])

static int pending_flush(lar_txn *txn);
static void pending_drop(lar_txn *txn);
static void pending_destroy(lar_txn *txn);
static const txn_cache_ops pending_ops = {pending_flush, pending_drop, pending_destroy};

/* memcmp order, eight bytes at a time. */
static inline int compare_adds(const pending_add *a, const pending_add *b)
{
    const uint8_t *x = a->key, *y = b->key;
    for (int at = 0; at < 24; at += 8) {
        uint64_t u = load_be64(x + at), v = load_be64(y + at);
        if (u != v) return u < v ? -1 : 1;
    }
    return memcmp(x + 24, y + 24, BACKLINK_KEY_SIZE - 24);
}

static void swap_adds(pending_add *a, pending_add *b)
{
    pending_add t = *a;
    *a = *b;
    *b = t;
}

/* Sorts adds in memcmp order: a quicksort (median of three, the smaller side first,
 * insertion sort for short runs) with the comparison inline, twice as fast as qsort's. */
static void sort_adds(pending_add *items, size_t n)
{
    while (n > 16) {
        size_t mid = n / 2;
        if (compare_adds(&items[mid], &items[0]) < 0) swap_adds(&items[mid], &items[0]);
        if (compare_adds(&items[n - 1], &items[0]) < 0) swap_adds(&items[n - 1], &items[0]);
        if (compare_adds(&items[n - 1], &items[mid]) < 0) swap_adds(&items[n - 1], &items[mid]);
        pending_add pivot = items[mid];
        size_t i = 0, j = n - 1;
        for (;;) { /* Hoare partition: items[0..j] <= pivot <= items[j+1..n-1] */
            while (compare_adds(&items[i], &pivot) < 0) i++;
            while (compare_adds(&pivot, &items[j]) < 0) j--;
            if (i >= j) break;
            swap_adds(&items[i++], &items[j--]);
        }
        size_t left = j + 1;
        if (left < n - left) {
            sort_adds(items, left);
            items += left;
            n -= left;
        } else {
            sort_adds(items + left, n - left);
            n = left;
        }
    }
    for (size_t i = 1; i < n; i++) {
        pending_add item = items[i];
        size_t j = i;
        for (; j > 0 && compare_adds(&item, &items[j - 1]) < 0; j--) items[j] = items[j - 1];
        items[j] = item;
    }
}

/* Below this many adds, a radix pass costs more than the comparisons it saves. */
#define RADIX_MIN 64

/* Sorts adds whose bytes at positions[0..count) are the only ones that differ: an
 * in-place MSD radix sort (American flag sort) on those bytes in order, handing short
 * runs to sort_adds. Keys are equal once every differing byte was sorted on. */
static void radix_sort_adds(pending_add *items, size_t n, const uint8_t *positions, int count)
{
    while (count > 0 && n >= RADIX_MIN) {
        unsigned at = positions[0];
        uint32_t start[257] = {0}, next[256];
        for (size_t i = 0; i < n; i++) start[items[i].key[at] + 1]++;
        for (int b = 0; b < 256; b++) start[b + 1] += start[b];
        if (start[items[0].key[at] + 1] - start[items[0].key[at]] == n) { /* one bucket: the next byte */
            positions++;
            count--;
            continue;
        }
        memcpy(next, start, sizeof next);
        for (unsigned b = 0; b < 256; b++) {
            while (next[b] < start[b + 1]) { /* each swap puts one add in its bucket for good */
                unsigned v = items[next[b]].key[at];
                if (v == b) next[b]++;
                else swap_adds(&items[next[b]], &items[next[v]++]);
            }
        }
        for (unsigned b = 0; b < 256; b++)
            if (start[b + 1] - start[b] > 1)
                radix_sort_adds(items + start[b], start[b + 1] - start[b], positions + 1, count - 1);
        return;
    }
    if (count > 0 && n > 1) sort_adds(items, n);
}

/* Sorts the gathered adds in memcmp order. The keys of one write share most of their
 * bytes (classes, properties, the high bytes of keys), so one pass finds the bytes
 * that differ and the radix sort looks at those only. */
static void sort_pending(pending_add *items, size_t n)
{
    size_t sorted = 1; /* links made in their targets' order (embedded objects created in place) come sorted */
    while (sorted < n && compare_adds(&items[sorted - 1], &items[sorted]) <= 0) sorted++;
    if (sorted >= n) return;
    uint8_t all_and[BACKLINK_KEY_SIZE], all_or[BACKLINK_KEY_SIZE];
    memcpy(all_and, items[0].key, BACKLINK_KEY_SIZE);
    memcpy(all_or, items[0].key, BACKLINK_KEY_SIZE);
    for (size_t i = 1; i < n; i++) {
        for (int b = 0; b < BACKLINK_KEY_SIZE; b++) {
            all_and[b] &= items[i].key[b];
            all_or[b] |= items[i].key[b];
        }
    }
    uint8_t positions[BACKLINK_KEY_SIZE];
    int count = 0;
    for (int b = 0; b < BACKLINK_KEY_SIZE; b++)
        if (all_and[b] != all_or[b]) positions[count++] = (uint8_t)b;
    radix_sort_adds(items, n, positions, count);
}

/* Applies the gathered adds, sorted, equal keys together, through one cursor: a key
 * that lands on the leaf page of the one before it (most of a large batch) skips the
 * descent from the root. Keys past the table's last one (all of them for a new table)
 * are appended, which leaves full pages behind where inserts in order would leave
 * pages half full (LMDB splits a page in the middle unless it appends). */
static int pending_flush(lar_txn *txn)
{
    pending_adds *adds = PENDING(txn).data;
    if (!adds || !adds->count) return LAR_OK;
    sort_pending(adds->items, adds->count);
    kv_cursor *cursor;
    int rc = kv_cursor_open(txn, txn->schema->backlink_dbi, &cursor);
    int err = rc ? lar_fail_mdb(rc, "cannot write the backlink table") : LAR_OK;
    uint8_t last[BACKLINK_KEY_SIZE];
    size_t last_size = 0;
    bool appending = false;
    if (!err) {
        kv_val key, data;
        int found = kv_cursor_step(cursor, &key, &data, KV_LAST);
        if (found == KV_NOTFOUND) appending = true;
        else if (found) err = lar_fail_mdb(found, "cannot read the backlink table");
        else {
            last_size = key.mv_size < sizeof last ? key.mv_size : sizeof last;
            memcpy(last, key.mv_data, last_size);
        }
    }
    for (size_t i = 0; !err && i < adds->count;) {
        size_t same = 1;
        while (i + same < adds->count && !memcmp(adds->items[i].key, adds->items[i + same].key, BACKLINK_KEY_SIZE))
            same++;
        kv_val key = {BACKLINK_KEY_SIZE, adds->items[i].key};
        uint32_t count = (uint32_t)same;
        kv_val data = {sizeof count, &count};
        if (!appending) { /* sorted: once past the last key, every key after is too */
            int order = memcmp(key.mv_data, last, last_size < BACKLINK_KEY_SIZE ? last_size : BACKLINK_KEY_SIZE);
            appending = order > 0 || (order == 0 && last_size < BACKLINK_KEY_SIZE);
        }
        if (appending) {
            err = txn_cursor_put(txn, cursor, &key, &data, KV_APPEND);
            i += same;
            continue;
        }
        /* One search for a new entry; an existing one is handed back, then counted up in place. */
        err = txn_cursor_put(txn, cursor, &key, &data, KV_NOOVERWRITE);
        if (err == LAR_EEXISTS) {
            if (data.mv_size != sizeof count) {
                err = lar_fail(LAR_ECORRUPT, "a backlink entry is undecodable");
                break;
            }
            memcpy(&count, data.mv_data, sizeof count);
            count += (uint32_t)same;
            kv_val counted = {sizeof count, &count};
            err = txn_cursor_put(txn, cursor, &key, &counted, KV_CURRENT);
        }
        i += same;
    }
    if (!rc) kv_cursor_close(cursor);
    adds->count = 0;
    if (err) txn_poison(txn); /* part of them applied */
    return err;
}

static void pending_drop(lar_txn *txn)
{
    pending_adds *adds = PENDING(txn).data;
    adds->count = 0;
    if (adds->capacity > 4096) { /* a big write's memory goes with it */
        free(adds->items);
        adds->items = NULL;
        adds->capacity = 0;
    }
}

static void pending_destroy(lar_txn *txn)
{
    pending_adds *adds = PENDING(txn).data;
    free(adds->items);
    free(adds);
    PENDING(txn).data = NULL;
    PENDING(txn).ops = NULL;
}

/* Applies what txn gathered: anything that reads or removes backlinks calls it first. */
static int backlinks_settle(lar_txn *txn)
{
    return txn->write && PENDING(txn).ops == &pending_ops ? pending_flush(txn) : LAR_OK;
}

static int pending_add_one(lar_txn *txn, const uint8_t key[BACKLINK_KEY_SIZE])
{
    if (!PENDING(txn).ops) {
        PENDING(txn).data = calloc(1, sizeof(pending_adds));
        if (!PENDING(txn).data) return lar_fail(LAR_ENOMEM, "out of memory adding a backlink");
        PENDING(txn).ops = &pending_ops;
    }
    pending_adds *adds = PENDING(txn).data;
    if (adds->count == adds->capacity) {
        size_t capacity = adds->capacity ? adds->capacity * 2 : 256;
        pending_add *items = realloc(adds->items, capacity * sizeof *items);
        if (!items) return lar_fail(LAR_ENOMEM, "out of memory adding a backlink");
        adds->items = items;
        adds->capacity = capacity;
    }
    int err = txn_note_mutation(txn);
    if (err) return err;
    memcpy(adds->items[adds->count++].key, key, BACKLINK_KEY_SIZE);
    return adds->count >= PENDING_LIMIT ? pending_flush(txn) : LAR_OK;
}

/* ---- owners of embedded objects, in their rows ---- */

/* target's class when it is embedded (its owner is in its row), else NULL. */
static const schema_class *embedded_target(lar_txn *txn, lar_obj target)
{
    const schema_class *cls = schema_class_at(txn->schema, target.cls);
    return cls && (cls->flags & LAR_CLASS_EMBEDDED) ? cls : NULL;
}

/* Reads target's owner into *owner and its row into *row; a target that is gone has
 * no owner (row->mv_size 0). */
static int owner_read(lar_txn *txn, const schema_class *cls, lar_obj target, row_owner *owner, kv_val *row)
{
    memset(owner, 0, sizeof *owner);
    int rc = kv_row_get(txn, cls->dbi, target.key, row);
    if (rc == KV_NOTFOUND) {
        row->mv_size = 0;
        return LAR_OK;
    }
    if (rc) return lar_fail_mdb(rc, "cannot read an embedded object");
    int err = row_check_shape(cls, row);
    if (!err) row_owner_read(row, owner);
    return err;
}

/* Writes row again with owner at its end. */
static int owner_write(lar_txn *txn, const schema_class *cls, lar_obj target, const kv_val *row,
                       const row_owner *owner)
{
    uint8_t stack[512];
    uint8_t *copy = row->mv_size <= sizeof stack ? stack : malloc(row->mv_size);
    if (!copy) return lar_fail(LAR_ENOMEM, "out of memory changing a link");
    memcpy(copy, row->mv_data, row->mv_size); /* the put may move the row it reads from */
    row_owner_write(copy, row->mv_size, owner);
    kv_val data = {row->mv_size, copy};
    int err = txn_row_put(txn, cls->dbi, target.key, &data, 0);
    if (copy != stack) free(copy);
    return err;
}

static int note_orphan(lar_txn *txn, lar_obj target);

/* backlink_add/remove/remove_all for an embedded target: delta +1 or -1, or all. */
static int owner_change(lar_txn *txn, const schema_class *cls, lar_obj target, lar_obj origin, uint32_t prop,
                        int delta, bool all)
{
    row_owner owner;
    kv_val row;
    int err = owner_read(txn, cls, target, &owner, &row);
    if (err || !row.mv_size) return err; /* a target that is gone has no owner to change */
    bool same = owner.count && owner.origin_key == origin.key && owner.origin_cls == origin.cls && owner.prop == prop;
    if (delta > 0) {
        if (owner.count && !same)
            return lar_fail(LAR_ECORRUPT, "embedded object %llu of class '%s' has another owner",
                            (unsigned long long)target.key, cls->name);
        owner = (row_owner){origin.key, origin.cls, prop, owner.count + 1};
    } else {
        if (!same) return LAR_OK; /* no such link: nothing to forget */
        owner.count = all ? 0 : owner.count - 1;
        if (!owner.count) owner = (row_owner){0, 0, 0, 0};
    }
    err = owner_write(txn, cls, target, &row, &owner);
    return err || owner.count ? err : note_orphan(txn, target);
}

/* backlink_walk for an embedded target: its owner, if it matches the prefix. */
static int owner_walk(lar_txn *txn, const schema_class *cls, lar_obj target, const uint8_t *prefix,
                      size_t prefix_size, lar_objkey start, int (*visit)(const backlink *link, void *context),
                      void *context)
{
    row_owner owner;
    kv_val row;
    int err = owner_read(txn, cls, target, &owner, &row);
    if (err || !owner.count) return err;
    if (prefix_size == PROPERTY_PREFIX_SIZE &&
        (owner.origin_cls != (lar_class)get_be(prefix + 12, 4) || owner.prop != get_be(prefix + 16, 2) ||
         owner.origin_key < start))
        return LAR_OK;
    backlink link = {{owner.origin_cls, owner.origin_key}, owner.prop, owner.count};
    err = visit(&link, context);
    return err == BACKLINK_STOP ? LAR_OK : err;
}

/* ---- changing entries ---- */

static int store_count(lar_txn *txn, kv_val *key, uint32_t count)
{
    kv_val data = {sizeof count, &count};
    return txn_put(txn, txn->schema->backlink_dbi, key, &data, 0);
}

/* A link into an embedded object went away: the object may have lost its owner, and is
 * deleted at the end of the call unless it is linked again (collection/embedded.c). */
static int note_orphan(lar_txn *txn, lar_obj target)
{
    const schema_class *cls = schema_class_at(txn->schema, target.cls);
    if (!cls || !(cls->flags & LAR_CLASS_EMBEDDED)) return LAR_OK;
    int err = buffer_append(&txn->orphans, &target, sizeof target);
    return err ? lar_fail(LAR_ENOMEM, "out of memory removing a link") : LAR_OK;
}

/* Adds delta (+1 or -1) to an entry's count; a count that reaches 0 removes it. */
static int change_count(lar_txn *txn, lar_obj target, lar_obj origin, uint32_t prop, int delta)
{
    const schema_class *embedded = embedded_target(txn, target);
    if (embedded) return owner_change(txn, embedded, target, origin, prop, delta, false);
    uint8_t bytes[BACKLINK_KEY_SIZE];
    encode_key(target, origin, prop, bytes);
    if (delta > 0 && txn->write) return pending_add_one(txn, bytes);
    int err = backlinks_settle(txn);
    if (err) return err;
    kv_val key = {sizeof bytes, bytes};
    uint32_t count;
    err = read_count(txn, &key, &count);
    if (err) return err;
    if (delta < 0 && count == 0) return LAR_OK;
    count = delta < 0 ? count - 1 : count + 1;
    if (count == 0) {
        err = txn_del(txn, txn->schema->backlink_dbi, &key, NULL);
        if (err == LAR_ENOTFOUND) err = LAR_OK;
        return err ? err : note_orphan(txn, target);
    }
    return store_count(txn, &key, count);
}

int backlink_add(lar_txn *txn, lar_obj target, lar_obj origin, uint32_t prop)
{
    return change_count(txn, target, origin, prop, +1);
}

int backlink_remove(lar_txn *txn, lar_obj target, lar_obj origin, uint32_t prop)
{
    return change_count(txn, target, origin, prop, -1);
}

int backlink_remove_all(lar_txn *txn, lar_obj target, lar_obj origin, uint32_t prop)
{
    const schema_class *embedded = embedded_target(txn, target);
    if (embedded) return owner_change(txn, embedded, target, origin, prop, -1, true);
    int err = backlinks_settle(txn);
    if (err) return err;
    uint8_t bytes[BACKLINK_KEY_SIZE];
    encode_key(target, origin, prop, bytes);
    kv_val key = {sizeof bytes, bytes};
    err = txn_del(txn, txn->schema->backlink_dbi, &key, NULL);
    if (err == LAR_ENOTFOUND) return LAR_OK;
    return err ? err : note_orphan(txn, target);
}

int backlink_walk(lar_txn *txn, const uint8_t *prefix, size_t prefix_size, lar_objkey start,
                  int (*visit)(const backlink *link, void *context), void *context)
{
    lar_obj target = {(lar_class)get_be(prefix, 4), get_be(prefix + 4, 8)};
    const schema_class *embedded = embedded_target(txn, target);
    if (embedded) return owner_walk(txn, embedded, target, prefix, prefix_size, start, visit, context);
    int err = backlinks_settle(txn);
    if (err) return err;
    kv_cursor *cursor;
    int rc = kv_cursor_open(txn, txn->schema->backlink_dbi, &cursor);
    if (rc) return lar_fail_mdb(rc, "cannot read the backlink table");
    uint8_t first[BACKLINK_KEY_SIZE];
    memcpy(first, prefix, prefix_size);
    size_t first_size = prefix_size;
    if (prefix_size == PROPERTY_PREFIX_SIZE) {
        put_be(first + PROPERTY_PREFIX_SIZE, start, 8);
        first_size = BACKLINK_KEY_SIZE;
    }
    kv_val key = {first_size, first}, data;
    for (rc = kv_cursor_step(cursor, &key, &data, KV_SEEK); !rc && !err;
         rc = kv_cursor_step(cursor, &key, &data, KV_NEXT)) {
        if (key.mv_size < prefix_size || memcmp(key.mv_data, prefix, prefix_size)) break;
        backlink link;
        if (!backlink_decode(&key, &data, &link)) {
            err = lar_fail(LAR_ECORRUPT, "a backlink entry is undecodable");
            break;
        }
        err = visit(&link, context);
    }
    kv_cursor_close(cursor);
    if (!err && rc && rc != KV_NOTFOUND) err = lar_fail_mdb(rc, "cannot read the backlink table");
    return err == BACKLINK_STOP ? LAR_OK : err;
}

static int append_link(const backlink *link, void *context)
{
    return buffer_append(context, link, sizeof *link);
}

int backlinks_collect(lar_txn *txn, lar_obj target, byte_buffer *out)
{
    uint8_t prefix[PROPERTY_PREFIX_SIZE];
    size_t size = backlink_prefix(target, 0, 0, false, prefix);
    return backlink_walk(txn, prefix, size, 0, append_link, out);
}

/* ---- the public lookups ---- */

/* Checks a lookup's arguments: the origin property must link to target's class,
 * and target must exist. Fills the walk's prefix. */
static int open_lookup(lar_txn *txn, lar_obj target, lar_class origin_cls, uint32_t prop,
                       uint8_t *prefix, size_t *prefix_size)
{
    int err = txn_check(txn, false);
    if (err) return err;
    const schema_class *origin = schema_class_at(txn->schema, origin_cls);
    const schema_class *target_cls = schema_class_at(txn->schema, target.cls);
    if (!origin || !target_cls) return lar_fail(LAR_EINVAL, "unknown class %u", origin ? target.cls : origin_cls);
    if (prop >= origin->property_count)
        return lar_fail(LAR_EINVAL, "class '%s' has no property %u (it has %u)", origin->name, prop,
                        origin->property_count);
    const schema_property *p = &origin->properties[prop];
    if (!property_may_link(&p->def) || (property_links(&p->def) && p->target != target.cls))
        return lar_fail(LAR_EINVAL, "property '%s.%s' does not link to class '%s'", origin->name, p->def.name,
                        target_cls->name);
    kv_val key = {sizeof target.key, &target.key}, row;
    int rc = kv_get(txn, target_cls->dbi, &key, &row);
    if (rc == KV_NOTFOUND)
        return lar_fail(LAR_EDELETED, "object %llu of class '%s' does not exist or was deleted",
                        (unsigned long long)target.key, target_cls->name);
    if (rc) return lar_fail_mdb(rc, "cannot read an object");
    *prefix_size = backlink_prefix(target, origin_cls, prop, true, prefix);
    return LAR_OK;
}

static int count_link(const backlink *link, void *context)
{
    (void)link;
    ++*(uint64_t *)context;
    return LAR_OK;
}

int lar_backlinks_count(lar_txn *txn, lar_obj target, lar_class origin_cls, uint32_t origin_prop, uint64_t *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_backlinks_count: out is NULL");
    uint8_t prefix[PROPERTY_PREFIX_SIZE];
    size_t size;
    int err = open_lookup(txn, target, origin_cls, origin_prop, prefix, &size);
    if (err) return err;
    uint64_t count = 0;
    err = backlink_walk(txn, prefix, size, 0, count_link, &count);
    if (!err) *out = count;
    return err;
}

typedef struct origin_list {
    lar_obj *out;
    size_t capacity, count;
} origin_list;

static int list_link(const backlink *link, void *context)
{
    origin_list *list = context;
    list->out[list->count++] = link->origin;
    return list->count == list->capacity ? BACKLINK_STOP : LAR_OK;
}

int lar_backlinks_list(lar_txn *txn, lar_obj target, lar_class origin_cls, uint32_t origin_prop,
                       lar_objkey start, lar_obj *out, size_t capacity, size_t *count)
{
    if (count) *count = 0;
    if (!out || !count || !capacity)
        return lar_fail(LAR_EINVAL, "lar_backlinks_list: out and count must not be NULL, capacity not 0");
    uint8_t prefix[PROPERTY_PREFIX_SIZE];
    size_t size;
    int err = open_lookup(txn, target, origin_cls, origin_prop, prefix, &size);
    if (err) return err;
    origin_list list = {out, capacity, 0};
    err = backlink_walk(txn, prefix, size, start, list_link, &list);
    *count = list.count;
    if (!err && !list.count) return LAR_ENOTFOUND; /* the end of the walk, as iterators report it */
    return err;
}
