/* lar_results_update: a result brought from the version it was computed at to a newer
 * one, with Realm's change set. When the query and its order read only the class's own
 * rows and few of its objects changed, only those objects are looked at: each is found
 * in the old order by binary search (its old sort keys read through the old snapshot),
 * checked against the query at the new version, and placed by binary search among the
 * objects that did not change, whose sort keys are the same at both versions (or left
 * in its place when its sort keys are). Once an update has changed a sorted result in
 * place, its keys are in blocks (query/key_blocks.c) that hold each key's sort keys
 * beside it, read once then (in key order), when none points into the database: later
 * searches read no objects, so an update reads the changed objects only, however long
 * the result. Otherwise the query runs again and the keys are compared
 * (results_diff.c). */
#include "changeset/changeset.h"

#include <stdlib.h>
#include <string.h>

/* More changed objects than this (and than 1/8 of the result) run the query again. */
#define FEW_CHANGES 64
/* Without the old snapshot, a sorted result's old places are found by scanning its keys:
 * more changed objects than this run the query again. */
#define FEW_SCANS 16
/* In a result this short, a changed object's old place is found by comparing keys rather
 * than by reading objects. */
#define SCAN_SPAN (2 * KEY_BLOCK_ROOM)

typedef struct changed {
    lar_objkey key;
    lar_value *values;        /* its sort keys at the new version (order.width of them) */
    lar_value *old_values;    /* and at the old one, when read from the old snapshot; else NULL */
    size_t old_position;      /* SIZE_MAX: not in the old result */
    size_t gap_old, gap_new;  /* how many unchanged objects come before it, old and new */
    size_t new_position;      /* SIZE_MAX: not in the new result */
    bool renewed;             /* deleted and created again: another object */
    bool kept;                /* in both, in its place: a modification at most */
} changed;

typedef struct placing {
    update *u;
    changed *items;
    size_t count;
    size_t *removed;          /* old positions leaving, ascending */
    size_t removed_count;
    changed **entering;       /* the objects in the new result, in the new order */
    size_t entering_count;
    lar_value *scratch;       /* order.width values read for a comparison */
    key_blocks *held;         /* the result's blocks when they hold this order's sort keys */
} placing;

static int no_memory(void)
{
    return lar_fail(LAR_ENOMEM, "out of memory computing a change set");
}

/* Reads the sort keys of key in txn into out. */
static int read_keys(lar_txn *txn, const result_order *o, lar_objkey key, lar_value *out)
{
    for (size_t d = 0; d < o->width; d++) {
        int err = key_path_read(txn, &o->paths[d], key, &out[d]);
        if (err) return err;
    }
    return LAR_OK;
}

/* -1 or 1 as (values, key) sorts before or after (other, other_key). */
static int compare(const result_order *o, const lar_value *values, lar_objkey key, const lar_value *other,
                   lar_objkey other_key)
{
    int c = o->width ? order_compare(values, other, o->descending, o->width) : 0;
    return c ? c : key < other_key ? -1 : key > other_key;
}

/* compare() with the object at position of the result, whose sort keys are there: its key
 * is looked up only on a tie (another memory access, in a long result a cache miss). */
static int compare_at(const placing *pl, const lar_value *values, lar_objkey key, const lar_value *there,
                      size_t position)
{
    const result_order *o = &pl->u->order;
    int c = o->width ? order_compare(values, there, o->descending, o->width) : 0;
    if (c) return c;
    lar_objkey other = results_key(pl->u->results, position);
    return key < other ? -1 : key > other;
}

/* compare() with (there, *there_key), read only on a tie. */
static int compare_lazy(const result_order *o, const lar_value *values, lar_objkey key, const lar_value *there,
                        const lar_objkey *there_key)
{
    int c = order_compare(values, there, o->descending, o->width);
    return c ? c : key < *there_key ? -1 : key > *there_key;
}

/* With the result's sort keys held beside its keys: the first position whose object sorts
 * at or after (values, key) in the result at its version. The block comes from their
 * first keys, held side by side (a few cache lines), then the place in it. The result is
 * in order at its version, objects that changed since included: no need to skip them. */
static size_t held_lower_bound(const placing *pl, const lar_value *values, lar_objkey key)
{
    const key_blocks *b = pl->held;
    const result_order *o = &pl->u->order;
    size_t w = b->value_width, lo = 0, hi = b->count;
    while (lo < hi) { /* the first block whose first object sorts at or after it */
        size_t mid = lo + (hi - lo) / 2;
        if (compare_lazy(o, values, key, b->firsts + mid * w, b->blocks[mid]) > 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return 0;
    size_t i = lo - 1; /* after the first of block i: in it, or at the start of the next */
    hi = b->starts[i + 1] - b->starts[i];
    lo = 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (compare_lazy(o, values, key, b->values[i] + mid * w, b->blocks[i] + mid) > 0) lo = mid + 1;
        else hi = mid;
    }
    return b->starts[i] + lo;
}

/* How many removed positions lie below position. */
static size_t removed_below(const placing *pl, size_t position)
{
    size_t lo = 0, hi = pl->removed_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pl->removed[mid] < position) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static bool is_removed(const placing *pl, size_t position)
{
    size_t at = removed_below(pl, position);
    return at < pl->removed_count && pl->removed[at] == position;
}

/* Sort keys that point into the database (strings, binaries) are not kept beside keys. */
static bool keepable(const lar_value *values, size_t width)
{
    for (size_t d = 0; d < width; d++)
        if (values[d].type == LAR_TYPE_STRING || values[d].type == LAR_TYPE_BINARY) return false;
    return true;
}

/* The position of key among r's keys [from, to), or SIZE_MAX. */
static size_t position_of(const lar_results *r, size_t from, size_t to, lar_objkey key)
{
    for (size_t at = from, n; at < to; at += n) {
        n = to - at;
        const lar_objkey *keys = results_run(r, at, &n);
        for (size_t i = 0; i < n; i++)
            if (keys[i] == key) return at + i;
    }
    return SIZE_MAX;
}

/* Finds key's place in the old result. */
static int find_old(placing *pl, changed *c)
{
    const lar_results *r = pl->u->results;
    const result_order *o = &pl->u->order;
    c->old_position = SIZE_MAX;
    if (!o->width || !pl->u->old_txn) {
        size_t at = SIZE_MAX;
        if (!o->width) { /* key order: a binary search */
            size_t lo = 0, hi = r->count;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (results_key(r, mid) < c->key) lo = mid + 1;
                else hi = mid;
            }
            if (lo < r->count && results_key(r, lo) == c->key) at = lo;
        } else { /* no old snapshot to read sort keys from: a scan of the keys */
            at = position_of(r, 0, r->count, c->key);
        }
        c->old_position = at;
        return LAR_OK;
    }
    lar_value *mine = pl->scratch + o->width;
    int err = read_keys(pl->u->old_txn, o, c->key, mine);
    if (err == LAR_EDELETED) return LAR_OK; /* did not exist then */
    if (!err && pl->held) {
        size_t at = held_lower_bound(pl, mine, c->key);
        if (at < r->count && results_key(r, at) == c->key) c->old_position = at;
    } else if (!err && r->count <= SCAN_SPAN) { /* fewer keys to compare than objects to read */
        c->old_position = position_of(r, 0, r->count, c->key);
    } else if (!err) {
        size_t lo = 0, hi = r->count;
        while (!err && lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            err = read_keys(pl->u->old_txn, o, results_key(r, mid), pl->scratch);
            if (!err && compare_at(pl, mine, c->key, pl->scratch, mid) > 0) lo = mid + 1;
            else hi = mid;
        }
        if (!err && lo < r->count && results_key(r, lo) == c->key) c->old_position = lo;
    }
    if (err || c->old_position == SIZE_MAX) return err;
    c->old_values = malloc(o->width * sizeof *c->old_values);
    if (!c->old_values) return no_memory();
    memcpy(c->old_values, mine, o->width * sizeof *mine);
    return LAR_OK;
}

/* Whether key is in the new result; reads its sort keys if so. */
static int check_new(placing *pl, plan *p, changed *c, bool *matches)
{
    update *u = pl->u;
    kv_val row;
    *matches = false;
    int err = object_read_row(u->txn, u->cls, (lar_obj){u->results->cls, c->key}, &row);
    if (err == LAR_EDELETED) return LAR_OK;
    int match = err ? err : plan_match(p, c->key, &row);
    if (match < 0) return match;
    if (!match) return LAR_OK;
    c->values = malloc((u->order.width ? u->order.width : 1) * sizeof *c->values);
    if (!c->values) return no_memory();
    *matches = true;
    return read_keys(u->txn, &u->order, c->key, c->values);
}

/* How many unchanged objects sort before c at the new version (c->gap_new): its slot
 * among the old positions, before which every unchanged object sorts before it, from
 * which on every one after. Removed positions are skipped: their objects' keys may
 * differ now. */
static int find_slot(placing *pl, changed *c)
{
    const lar_results *r = pl->u->results;
    const result_order *o = &pl->u->order;
    if (c->old_values && !c->renewed && !order_compare(c->old_values, c->values, o->descending, o->width)) {
        /* Its sort keys are as they were: it sorts where it was among the unchanged objects. */
        c->gap_new = c->old_position - removed_below(pl, c->old_position);
        return LAR_OK;
    }
    if (pl->held) {
        size_t at = held_lower_bound(pl, c->values, c->key);
        c->gap_new = at - removed_below(pl, at);
        return LAR_OK;
    }
    size_t lo = 0, hi = r->count;
    while (lo < hi) { /* the objects that changed are skipped: their sort keys now may differ */
        size_t mid = lo + (hi - lo) / 2, m = mid;
        while (m < hi && is_removed(pl, m)) m++;
        if (m == hi) { /* [mid, hi) all leave */
            hi = mid;
            continue;
        }
        int err = o->width ? read_keys(pl->u->txn, o, results_key(r, m), pl->scratch) : LAR_OK;
        if (err) return err;
        if (compare_at(pl, c->values, c->key, pl->scratch, m) > 0) lo = m + 1;
        else hi = mid;
    }
    c->gap_new = lo - removed_below(pl, lo);
    return LAR_OK;
}

static int by_new_order(const void *a, const void *b, void *result_order_)
{
    const changed *x = *(changed *const *)a, *y = *(changed *const *)b;
    return compare(result_order_, x->values, x->key, y->values, y->key);
}

static int by_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Which objects in both results stay in place: those in the same gap between unchanged
 * objects whose order among themselves holds (the longest increasing run). */
static int mark_kept(placing *pl)
{
    size_t n = 0;
    size_t *old_positions = malloc((pl->entering_count ? pl->entering_count : 1) * sizeof *old_positions);
    changed **both = malloc((pl->entering_count ? pl->entering_count : 1) * sizeof *both);
    bool *kept = malloc((pl->entering_count ? pl->entering_count : 1) * sizeof *kept);
    int err = old_positions && both && kept ? LAR_OK : no_memory();
    for (size_t i = 0; !err && i < pl->entering_count; i++) {
        changed *c = pl->entering[i];
        if (c->old_position == SIZE_MAX || c->renewed || c->gap_old != c->gap_new) continue;
        both[n] = c;
        old_positions[n++] = c->old_position;
    }
    if (!err) err = increasing_subsequence(old_positions, n, kept);
    for (size_t i = 0; !err && i < n; i++) both[i]->kept = kept[i];
    free(old_positions);
    free(both);
    free(kept);
    return err;
}

static int report(const placing *pl, lar_changeset *cs)
{
    int err = LAR_OK;
    for (size_t i = 0; !err && i < pl->count; i++) {
        const changed *c = &pl->items[i];
        if (c->old_position == SIZE_MAX) continue;
        if (!c->kept) err = changeset_push(cs, LAR_CHANGESET_DELETIONS, c->old_position);
        else if (keys_contain(pl->u->changes.modified, pl->u->changes.modified_count, c->key)) {
            err = changeset_push(cs, LAR_CHANGESET_MODIFICATIONS, c->old_position);
            if (!err) err = changeset_push(cs, LAR_CHANGESET_MODIFICATIONS_NEW, c->new_position);
        }
    }
    for (size_t i = 0; !err && i < pl->entering_count; i++)
        if (!pl->entering[i]->kept) err = changeset_push(cs, LAR_CHANGESET_INSERTIONS, pl->entering[i]->new_position);
    return err;
}

/* What a sorted result's held sort keys are of: each sort key's property and direction. */
static void order_words(const result_order *o, uint32_t *out)
{
    for (size_t d = 0; d < o->width; d++) out[d] = o->paths[d].props[0] << 1 | o->descending[d];
}

/* The result's blocks when they hold the sort keys of this update's order. */
static key_blocks *held_for(const update *u)
{
    key_blocks *b = u->results->blocks;
    uint32_t words[256]; /* order_open() allows no more */
    if (!b || !b->values || !u->order.width || b->value_width != u->order.width) return NULL;
    order_words(&u->order, words);
    return memcmp(words, b->value_order, u->order.width * sizeof *words) ? NULL : b;
}

/* Gives a sorted result's blocks its objects' sort keys at the update's version, read in
 * key order, when they hold none for its order and all can be kept: one read of the
 * result's objects, after which an update reads only the objects that changed. On failure
 * (out of memory, a read error) they hold none, which costs reads only. */
static void hold_sort_keys(const update *u)
{
    const result_order *o = &u->order;
    lar_results *r = u->results;
    uint32_t words[256];
    if (!r->blocks || !r->count || !o->width || !o->own_properties || held_for(u)) return;
    order_words(o, words);
    lar_objkey *keys = malloc(r->count * sizeof *keys);
    lar_value *values = malloc(r->count * o->width * sizeof *values);
    bool ok = keys && values;
    if (ok) key_blocks_copy(r->blocks, 0, r->count, keys);
    for (size_t d = 0; ok && d < o->width; d++)
        ok = key_path_read_many(u->txn, &o->paths[d], keys, r->count, values + d, o->width) == LAR_OK;
    for (size_t i = 0; ok && i < r->count; i++) ok = keepable(values + i * o->width, o->width);
    if (ok) key_blocks_hold_values(r->blocks, o->width, words, values);
    free(keys);
    free(values);
}

/* Whether every changed object in the result stays in its place (its sort keys may
 * still have changed). */
static bool none_moved(const placing *pl)
{
    if (pl->removed_count != pl->entering_count) return false;
    for (size_t e = 0; e < pl->entering_count; e++) {
        const changed *c = pl->entering[e];
        if (!c->kept || c->old_position != c->new_position) return false;
    }
    return true;
}

/* Rewrites the result's keys, in blocks: the leaving ones taken out, from the last, then
 * the entering ones put in at their new positions, from the first (all that comes before
 * each is in place by then), each with its sort keys when the blocks hold them. */
static int rewrite(placing *pl)
{
    lar_results *r = pl->u->results;
    size_t width = pl->u->order.width;
    if (!pl->removed_count && !pl->entering_count) return LAR_OK;
    for (size_t e = 0; pl->held && e < pl->entering_count; e++) {
        if (keepable(pl->entering[e]->values, width)) continue;
        key_blocks_drop_values(pl->held);
        pl->held = NULL;
    }
    if (pl->held && none_moved(pl)) { /* the keys stay: only sort keys may change */
        for (size_t e = 0; e < pl->entering_count; e++)
            memcpy(key_blocks_values(pl->held, pl->entering[e]->new_position), pl->entering[e]->values,
                   width * sizeof *pl->entering[e]->values);
        return LAR_OK;
    }
    int err = results_to_blocks(r);
    if (!err && key_blocks_reserve(r->blocks, pl->entering_count)) err = no_memory();
    if (err) return err;
    for (size_t i = pl->removed_count; i-- > 0;) key_blocks_remove(r->blocks, pl->removed[i]);
    for (size_t e = 0; e < pl->entering_count; e++)
        key_blocks_insert(r->blocks, pl->entering[e]->new_position, pl->entering[e]->key, pl->entering[e]->values);
    r->count = key_blocks_total(r->blocks);
    hold_sort_keys(pl->u);
    return LAR_OK;
}

/* The class's changed keys (inserted, deleted, modified), merged in key order. */
static int gather(placing *pl)
{
    const lar_class_changes *ch = &pl->u->changes;
    size_t total = ch->inserted_count + ch->deleted_count + ch->modified_count;
    pl->items = calloc(total ? total : 1, sizeof *pl->items);
    if (!pl->items) return no_memory();
    const lar_objkey *lists[3] = {ch->inserted, ch->deleted, ch->modified};
    size_t counts[3] = {ch->inserted_count, ch->deleted_count, ch->modified_count}, at[3] = {0, 0, 0};
    for (;;) {
        int pick = -1;
        for (int l = 0; l < 3; l++)
            if (at[l] < counts[l] && (pick < 0 || lists[l][at[l]] < lists[pick][at[pick]])) pick = l;
        if (pick < 0) break;
        lar_objkey key = lists[pick][at[pick]++];
        if (pl->count && pl->items[pl->count - 1].key == key) { /* deleted and inserted: another object */
            pl->items[pl->count - 1].renewed = true;
            continue;
        }
        pl->items[pl->count++] = (changed){.key = key, .new_position = SIZE_MAX};
    }
    return LAR_OK;
}

static void placing_free(placing *pl)
{
    for (size_t i = 0; pl->items && i < pl->count; i++) {
        free(pl->items[i].values);
        free(pl->items[i].old_values);
    }
    free(pl->items);
    free(pl->removed);
    free(pl->entering);
    free(pl->scratch);
}

static int place(placing *pl, plan *p)
{
    update *u = pl->u;
    pl->held = held_for(u);
    int err = gather(pl);
    pl->removed = malloc((pl->count ? pl->count : 1) * sizeof *pl->removed);
    pl->entering = malloc((pl->count ? pl->count : 1) * sizeof *pl->entering);
    pl->scratch = malloc((2 * u->order.width + 1) * sizeof *pl->scratch);
    if (!err && (!pl->removed || !pl->entering || !pl->scratch)) err = no_memory();
    for (size_t i = 0; !err && i < pl->count; i++) {
        changed *c = &pl->items[i];
        err = find_old(pl, c);
        if (!err && c->old_position != SIZE_MAX) pl->removed[pl->removed_count++] = c->old_position;
        bool matches = false;
        if (!err) err = check_new(pl, p, c, &matches);
        if (!err && matches) pl->entering[pl->entering_count++] = c;
    }
    if (err) return err;
    qsort(pl->removed, pl->removed_count, sizeof *pl->removed, by_size);
    for (size_t i = 0; i < pl->count; i++) {
        changed *c = &pl->items[i];
        if (c->old_position != SIZE_MAX) c->gap_old = c->old_position - removed_below(pl, c->old_position);
    }
    for (size_t i = 0; !err && i < pl->entering_count; i++) err = find_slot(pl, pl->entering[i]);
    if (err) return err;
    qsort_r(pl->entering, pl->entering_count, sizeof *pl->entering, by_new_order, &u->order);
    for (size_t e = 0; e < pl->entering_count; e++) pl->entering[e]->new_position = pl->entering[e]->gap_new + e;
    return mark_kept(pl);
}

int update_in_place(update *u, plan *p, lar_changeset *cs)
{
    placing pl = {.u = u};
    int err = place(&pl, p);
    if (!err) err = report(&pl, cs);
    if (!err) err = rewrite(&pl); /* last: it fails, if at all, before changing the result */
    placing_free(&pl);
    return err;
}

/* ---- the public function ---- */

static void order_close(result_order *o)
{
    free(o->paths);
    free(o->descending);
    *o = (result_order){0};
}

/* The result's order: the descriptors, then the query's SORT suffixes, last first (each
 * later sort is stable over the earlier ones). *plain: no DISTINCT or LIMIT suffix. */
static int order_open(update *u, bool *plain)
{
    result_order *o = &u->order;
    size_t width = u->sort_count;
    *plain = true;
    for (size_t i = 0; i < u->query->order_count; i++) {
        const order *q = &u->query->orders[i];
        if (q->kind == ORDER_SORT) width += q->count;
        else *plain = false;
    }
    if (width > 256) return lar_fail(LAR_EINVAL, "more than 256 sort keys");
    o->paths = malloc((width ? width : 1) * sizeof *o->paths);
    o->descending = malloc((width ? width : 1) * sizeof *o->descending);
    if (!o->paths || !o->descending) return no_memory();
    o->own_properties = true;
    int err = LAR_OK;
    for (size_t i = 0; !err && i < u->sort_count; i++) {
        if (!u->sort[i].keypath) return lar_fail(LAR_EINVAL, "lar_results_update: a sort key path is NULL");
        err = key_path_parse(u->txn, u->txn->env, u->results->cls, u->sort[i].keypath, "sort on", &o->paths[o->width]);
        o->descending[o->width++] = !u->sort[i].ascending;
    }
    for (size_t i = u->query->order_count; !err && i-- > 0;) {
        const order *q = &u->query->orders[i];
        for (size_t k = 0; !err && q->kind == ORDER_SORT && k < q->count; k++) {
            err = key_path_from_expr(u->txn, q->items[k].path, "sort on", &o->paths[o->width]);
            o->descending[o->width++] = !q->items[k].ascending;
        }
    }
    for (size_t d = 0; !err && d < o->width; d++) o->own_properties &= o->paths[d].count == 1;
    return err;
}

static int check_arguments(lar_txn *old_txn, lar_txn *txn, lar_query *query, const lar_sort_descriptor *sort,
                           size_t sort_count, lar_results *results)
{
    if (!query || (sort_count && !sort))
        return lar_fail(LAR_EINVAL, "lar_results_update: query must not be NULL, nor sort with a count");
    int err = results_check(txn, results, "lar_results_update");
    if (err) return err;
    if (txn->write) return lar_fail(LAR_EMISUSE, "lar_results_update: the new version must be a read transaction's");
    if (query->env != txn->env || results->cls != query->cls)
        return lar_fail(LAR_EINVAL, "lar_results_update: the query is of another environment or class than the result");
    if (results->writer || results->stale)
        return lar_fail(LAR_EMISUSE, "lar_results_update: the result was computed in a write transaction");
    if (results->snapshot > kv_txn_id(txn))
        return lar_fail(LAR_EINVAL, "lar_results_update: the transaction is older than the result");
    if (!old_txn) return LAR_OK;
    if ((err = txn_check(old_txn, false))) return err;
    if (old_txn->env != txn->env || old_txn->write || kv_txn_id(old_txn) != results->snapshot)
        return lar_fail(LAR_EINVAL, "lar_results_update: old_txn must be a read transaction at the result's version");
    return LAR_OK;
}

static int run_update(update *u, lar_changeset *cs)
{
    lar_changes *changes;
    int err = lar_changes_read(u->txn, u->results->snapshot, &changes);
    if (err) return err;
    bool plain = true;
    if (!err) err = lar_changes_class(changes, u->results->cls, &u->changes);
    if (!err) err = order_open(u, &plain);
    u->cls = schema_class_at(u->txn->schema, u->results->cls);
    if (!err && !u->cls) err = lar_fail(LAR_EINVAL, "the result's class is not in this transaction's schema");
    size_t touched = u->changes.inserted_count + u->changes.deleted_count + u->changes.modified_count;
    bool few = touched <= FEW_CHANGES || touched <= u->results->count / 8;
    if (!u->old_txn && u->order.width) few = touched <= FEW_SCANS; /* each changed object scans the keys */
    plan *p = NULL;
    if (!err && plain && few && u->order.own_properties) err = plan_compile(u->txn, u->query, &p);
    if (!err) err = p && !plan_reads_other_rows(p) ? update_in_place(u, p, cs) : update_by_diff(u, cs);
    plan_free(p);
    order_close(&u->order);
    lar_changes_free(changes);
    return err;
}

int lar_results_update(lar_txn *old_txn, lar_txn *txn, lar_query *query, const lar_sort_descriptor *sort,
                       size_t sort_count, lar_results *results, lar_changeset **out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_results_update: out is NULL");
    *out = NULL;
    int err = check_arguments(old_txn, txn, query, sort, sort_count, results);
    if (err) return err;
    lar_changeset *cs = changeset_new();
    if (!cs) return LAR_ENOMEM;
    update u = {old_txn, txn, query, sort, sort_count, results, NULL, {0}, {0}};
    /* Both ways change the result's keys only once nothing can fail: on error it is as it was,
     * but for the rows it kept, dropped first (they are the old snapshot's). */
    results_forget_rows(results);
    err = run_update(&u, cs);
    if (err) {
        lar_changeset_free(cs);
        return err;
    }
    changeset_sort(cs);
    results->snapshot = kv_txn_id(txn);
    *out = cs;
    return LAR_OK;
}
