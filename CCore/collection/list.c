/* Lists: a counted B+tree of chunks, one LMDB record per node in the collection table.
 *
 *   key:     node id, u64 (an integer-keyed table), from a sequence: never reused
 *   leaf:    [u8 1][u32 n][n elements]                                  n <= 64
 *   inner:   [u8 2][u32 n][u64 total][n x (u64 child id, u64 child count)]  n <= 64
 *   element: a value with its type (codec/element.c): [u8 type][payload], a string
 *            followed by its NUL so that reads hand out the mapped bytes; in a list of
 *            mixed values, a link carries its class (a typed link)
 *
 * The object's row slot for the property holds the root's id; 0 is the empty list. A
 * nested list (inside a mixed value, collection/nested.c) is the same tree, its root's
 * id kept in its header record instead of a row slot; its elements may be nested
 * collections too ([u8 LAR_TYPE_LIST or LAR_TYPE_DICTIONARY][u64 nested id]), freed
 * with the element that holds them.
 * A list of up to 64 small elements is one leaf, one record. Positions are found
 * through the child counts, so get, insert, set and remove read and write one node
 * per level: O(log n) records of at most 64 entries, never the whole list. A leaf
 * that passes 64 elements or 2 KiB splits in two, an inner node that passes 64
 * children too, and a root split adds a level. A split splits in the middle, except
 * after an append, which leaves the full node whole and starts a new one: a list
 * built by appends has full nodes. A node that empties is removed and a
 * root left with one child gives way to it; nodes are not merged, so a list that
 * shrank may keep half-empty nodes (its height never grows by removals).
 * Numbers are in the host's byte order, as in rows.
 *
 * A write transaction keeps the nodes it changes in memory and writes them into the
 * table when its cache fills and at the commit (see "the write-back cache" below). */
#include "collection/collection.h"

#include <stdlib.h>
#include <string.h>

#define LEAF 1
#define INNER 2
#define NODE_HEADER 5          /* kind and count */
#define INNER_HEADER 13        /* ... and the total */
#define CHILD_SIZE 16
#define LEAF_MAX_ITEMS 64
#define LEAF_MAX_BYTES 2048
#define INNER_MAX_CHILDREN 64
#define MAX_DEPTH 24           /* far above any list's height; deeper is damage */

static int corrupt(void)
{
    return lar_fail(LAR_ECORRUPT, "a list's storage is undecodable");
}

static uint32_t get_u32(const uint8_t *at) { uint32_t v; memcpy(&v, at, 4); return v; }
static uint64_t get_u64(const uint8_t *at) { uint64_t v; memcpy(&v, at, 8); return v; }
static void put_u32(uint8_t *at, uint32_t v) { memcpy(at, &v, 4); }
static void put_u64(uint8_t *at, uint64_t v) { memcpy(at, &v, 8); }

/* element_size(), with the fixed-size numbers and links most lists hold inline. */
static inline size_t item_size(const uint8_t *at, size_t left)
{
    if (!left) return 0;
    switch (at[0]) {
    case LAR_TYPE_INT: case LAR_TYPE_DOUBLE: case LAR_TYPE_LINK: return left > 8 ? 9 : 0;
    default: return element_size(at, left);
    }
}

/* ---- nodes ---- */

static uint8_t node_kind(const uint8_t *node) { return node[0]; }
static uint32_t node_count(const uint8_t *node) { return get_u32(node + 1); }
static uint64_t child_id(const uint8_t *node, uint32_t i) { return get_u64(node + INNER_HEADER + CHILD_SIZE * i); }
static uint64_t child_count(const uint8_t *node, uint32_t i)
{
    return get_u64(node + INNER_HEADER + CHILD_SIZE * i + 8);
}

/* A node's elements (leaf) or children (inner) fill its record exactly; an inner
 * node's total is the sum of its children's counts. */
static bool node_valid(const uint8_t *node, size_t size)
{
    if (size < NODE_HEADER) return false;
    uint32_t n = node_count(node);
    if (node_kind(node) == LEAF) {
        size_t at = NODE_HEADER;
        for (uint32_t i = 0; i < n; i++) {
            size_t step = item_size(node + at, size - at);
            if (!step) return false;
            at += step;
        }
        return at == size && n > 0;
    }
    if (node_kind(node) != INNER || n == 0 || size != INNER_HEADER + (size_t)CHILD_SIZE * n) return false;
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!child_id(node, i) || !child_count(node, i) || total + child_count(node, i) < total) return false;
        total += child_count(node, i);
    }
    return total == get_u64(node + 5);
}

static uint64_t node_total(const uint8_t *node)
{
    return node_kind(node) == LEAF ? node_count(node) : get_u64(node + 5);
}

/* ---- the write-back cache of nodes ----
 *
 * A write transaction keeps the nodes it stores in memory (its TXN_CACHE_LIST_NODES
 * cache, an open-addressed table by id) and writes them into LMDB when the table fills and before the commit,
 * so that consecutive changes to one list (appends above all) rewrite a node in memory
 * instead of copying it in and out of LMDB at each call. Reads look in the cache first.
 * A descent borrows the cached nodes on its path (their buffers move, nothing is
 * copied) and gives them back when it stores them. Changing the cache counts as a
 * mutation (txn_note_mutation), so a failed operation still poisons the write. */

#define CACHE_SLOTS 128         /* a power of two */
#define CACHE_LIMIT 64          /* entries, tombstones included, before a flush */
#define TOMBSTONE UINT64_MAX    /* a removed entry; ids come from a sequence, never this high */

typedef struct cached_node {
    uint64_t id;              /* 0: empty */
    byte_buffer bytes;        /* while lent: an empty buffer, the node is in a path */
    bool lent;
} cached_node;

typedef struct node_cache {
    cached_node slots[CACHE_SLOTS];
    uint32_t used;            /* entries and tombstones */
} node_cache;

#define NODES(txn) ((txn)->caches[TXN_CACHE_LIST_NODES])

static int cache_flush(lar_txn *txn);
static void cache_drop(lar_txn *txn);
static void cache_destroy(lar_txn *txn);
static const txn_cache_ops cache_ops = {cache_flush, cache_drop, cache_destroy};

static uint32_t cache_home(uint64_t id)
{
    return (uint32_t)((id * 0x9E3779B97F4A7C15ull) >> 57) & (CACHE_SLOTS - 1);
}

static cached_node *cache_find(lar_txn *txn, uint64_t id)
{
    node_cache *cache = NODES(txn).data;
    if (!cache || NODES(txn).ops != &cache_ops) return NULL;
    for (uint32_t i = cache_home(id), k = 0; k < CACHE_SLOTS; i = (i + 1) & (CACHE_SLOTS - 1), k++) {
        if (cache->slots[i].id == id) return &cache->slots[i];
        if (!cache->slots[i].id) return NULL;
    }
    return NULL;
}

static cached_node *cache_place(node_cache *cache, uint64_t id)
{
    uint32_t i = cache_home(id);
    while (cache->slots[i].id && cache->slots[i].id != TOMBSTONE) i = (i + 1) & (CACHE_SLOTS - 1);
    cache->used += cache->slots[i].id != TOMBSTONE;
    cache->slots[i].id = id;
    return &cache->slots[i];
}

/* Writes nodes (their ids ascending) into the collection table through one cursor:
 * ids past the table's last one, new nodes from the sequence, are appended, which
 * leaves full pages where inserts would leave them half full. */
static int write_nodes(lar_txn *txn, cached_node **nodes, uint32_t count)
{
    if (!count) return LAR_OK;
    kv_cursor *cursor;
    int rc = kv_cursor_open(txn, txn->schema->collection_dbi, &cursor);
    if (rc) return lar_fail_mdb(rc, "cannot write a list");
    kv_val key, data;
    uint64_t last = 0;
    rc = kv_cursor_step(cursor, &key, &data, KV_LAST);
    bool empty = rc == KV_NOTFOUND;
    int err = rc && !empty ? lar_fail_mdb(rc, "cannot read a list") : LAR_OK;
    if (!err && !empty) {
        if (key.mv_size == sizeof last) memcpy(&last, key.mv_data, sizeof last);
        else last = UINT64_MAX; /* damage: never append */
    }
    for (uint32_t i = 0; !err && i < count; i++) {
        bool append = empty || nodes[i]->id > last;
        key = (kv_val){sizeof nodes[i]->id, &nodes[i]->id};
        data = (kv_val){nodes[i]->bytes.size, nodes[i]->bytes.data};
        err = txn_cursor_put(txn, cursor, &key, &data, append ? KV_APPEND : 0);
        if (append) {
            empty = false;
            last = nodes[i]->id;
        }
    }
    kv_cursor_close(cursor);
    return err;
}

/* Writes every entry that is not lent into LMDB and empties the table of them; lent
 * entries stay (a path holds them). */
static int cache_write_out(lar_txn *txn, bool keep_lent)
{
    node_cache *cache = NODES(txn).data;
    cached_node lent[CACHE_SLOTS];
    cached_node *writes[CACHE_SLOTS];
    uint32_t lent_count = 0, write_count = 0;
    for (uint32_t i = 0; i < CACHE_SLOTS; i++) {
        cached_node *slot = &cache->slots[i];
        if (!slot->id || slot->id == TOMBSTONE) continue;
        if (!slot->lent) { /* in id order */
            uint32_t at = write_count++;
            for (; at > 0 && writes[at - 1]->id > slot->id; at--) writes[at] = writes[at - 1];
            writes[at] = slot;
        }
    }
    int err = write_nodes(txn, writes, write_count);
    for (uint32_t i = 0; i < CACHE_SLOTS; i++) {
        cached_node *slot = &cache->slots[i];
        if (!slot->id || slot->id == TOMBSTONE) {
            slot->id = 0;
            continue;
        }
        if (slot->lent && keep_lent) lent[lent_count++] = *slot;
        else buffer_free(&slot->bytes);
        memset(slot, 0, sizeof *slot);
    }
    cache->used = 0;
    for (uint32_t i = 0; i < lent_count; i++) *cache_place(cache, lent[i].id) = lent[i];
    return err;
}

static int cache_flush(lar_txn *txn)
{
    return cache_write_out(txn, false);
}

static void cache_drop(lar_txn *txn)
{
    node_cache *cache = NODES(txn).data;
    for (uint32_t i = 0; i < CACHE_SLOTS; i++) buffer_free(&cache->slots[i].bytes);
    memset(cache, 0, sizeof *cache);
}

static void cache_destroy(lar_txn *txn)
{
    cache_drop(txn);
    free(NODES(txn).data);
    NODES(txn).data = NULL;
    NODES(txn).ops = NULL;
}

/* Reads node id in place (valid until the next write). */
static int node_read(lar_txn *txn, uint64_t id, kv_val *out)
{
    cached_node *cached = cache_find(txn, id);
    if (cached && !cached->lent) {
        out->mv_size = cached->bytes.size;
        out->mv_data = cached->bytes.data;
        return LAR_OK;
    }
    if (cached) return corrupt(); /* a node twice on one path: a cycle */
    kv_val key = {sizeof id, &id};
    int rc = kv_get(txn, txn->schema->collection_dbi, &key, out);
    if (rc == KV_NOTFOUND) return corrupt();
    if (rc) return lar_fail_mdb(rc, "cannot read a list");
    return node_valid(out->mv_data, out->mv_size) ? LAR_OK : corrupt();
}

static int node_copy(lar_txn *txn, uint64_t id, byte_buffer *out)
{
    kv_val data;
    int err = node_read(txn, id, &data);
    out->size = 0;
    if (!err) err = buffer_append(out, data.mv_data, data.mv_size);
    return err;
}

/* Like node_copy, but a cached node moves into out (lent: *lent is set) instead of
 * being copied. out must be empty. */
static int node_borrow(lar_txn *txn, uint64_t id, byte_buffer *out, bool *lent)
{
    cached_node *cached = cache_find(txn, id);
    *lent = cached && !cached->lent;
    if (!*lent) return node_copy(txn, id, out);
    byte_buffer swap = *out;
    *out = cached->bytes;
    cached->bytes = swap;
    cached->lent = true;
    return LAR_OK;
}

/* Gives a lent node back unchanged (a failed operation); a changed one poisons the write. */
static void node_give_back(lar_txn *txn, uint64_t id, byte_buffer *node, bool changed)
{
    cached_node *cached = cache_find(txn, id);
    if (!cached || !cached->lent) return;
    byte_buffer swap = cached->bytes;
    cached->bytes = *node;
    *node = swap;
    cached->lent = false;
    if (changed) txn_poison(txn);
}

/* Stores node under id in the cache. A node lent to a path moves back (node is left
 * holding an empty buffer); any other is copied. */
static int node_store(lar_txn *txn, uint64_t id, byte_buffer *node)
{
    if (!NODES(txn).ops) {
        NODES(txn).data = calloc(1, sizeof(node_cache));
        if (!NODES(txn).data) return lar_fail(LAR_ENOMEM, "out of memory caching a list");
        NODES(txn).ops = &cache_ops;
    }
    if (NODES(txn).ops != &cache_ops) return lar_fail(LAR_EINVAL, "the transaction caches something else");
    int err = txn_note_mutation(txn);
    if (err) return err;
    cached_node *cached = cache_find(txn, id);
    if (cached && cached->lent) {
        byte_buffer swap = cached->bytes;
        cached->bytes = *node;
        *node = swap;
        node->size = 0;
        cached->lent = false;
        return LAR_OK;
    }
    node_cache *cache = NODES(txn).data;
    if (!cached && cache->used >= CACHE_LIMIT && (err = cache_write_out(txn, true))) return err;
    if (!cached) {
        cached = cache_place(cache, id);
        cached->bytes = (byte_buffer){0};
        cached->lent = false;
    }
    cached->bytes.size = 0;
    err = buffer_append(&cached->bytes, node->data, node->size);
    if (err) txn_poison(txn); /* the entry is there, empty */
    return err;
}

static int node_delete(lar_txn *txn, uint64_t id)
{
    cached_node *cached = cache_find(txn, id);
    if (cached) {
        int err = txn_note_mutation(txn);
        if (err) return err;
        buffer_free(&cached->bytes);
        cached->lent = false;
        cached->id = TOMBSTONE;
    }
    kv_val key = {sizeof id, &id};
    int err = txn_del(txn, txn->schema->collection_dbi, &key, NULL);
    return err == LAR_ENOTFOUND ? LAR_OK : err;
}

/* Opens a gap of size bytes at offset (or closes one, when size is negative). */
static int buffer_splice(byte_buffer *b, size_t offset, const void *bytes, size_t size)
{
    if (buffer_reserve(b, size)) return LAR_ENOMEM;
    memmove(b->data + offset + size, b->data + offset, b->size - offset);
    if (bytes) memcpy(b->data + offset, bytes, size);
    b->size += size;
    return LAR_OK;
}

static void buffer_cut(byte_buffer *b, size_t offset, size_t size)
{
    memmove(b->data + offset, b->data + offset + size, b->size - offset - size);
    b->size -= size;
}

/* The offset of element i of a valid leaf (i may be n: the end). */
static size_t leaf_offset(const uint8_t *leaf, size_t size, uint32_t i)
{
    if (i == node_count(leaf)) return size;
    size_t at = NODE_HEADER;
    for (uint32_t k = 0; k < i; k++) at += item_size(leaf + at, size - at);
    return at;
}

static void set_count(byte_buffer *node, uint32_t n) { put_u32(node->data + 1, n); }

static void inner_recount(byte_buffer *node)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < node_count(node->data); i++) total += child_count(node->data, i);
    put_u64(node->data + 5, total);
}

/* ---- paths ---- */

typedef struct path_step {
    uint64_t id;
    byte_buffer node;         /* a copy or a lent cached node, changed and stored back */
    uint32_t slot;            /* the child taken */
    bool lent;
} path_step;

typedef struct tree_path {
    path_step steps[MAX_DEPTH]; /* steps[depth] is the leaf */
    int depth;
    int used;                 /* steps filled: path_free() looks no further */
    bool changed;             /* the leaf was changed: a node not stored back poisons the write */
    bool append;              /* an insert at the end: full nodes split before the new entry */
} tree_path;

static void path_free(lar_txn *txn, tree_path *path)
{
    for (int i = 0; i < path->used; i++) {
        if (path->steps[i].lent) node_give_back(txn, path->steps[i].id, &path->steps[i].node, path->changed);
        buffer_free(&path->steps[i].node);
    }
}

/* The child of inner node holding position *index; *index becomes the position in
 * it. With at_end, the position just past the last element is in the last child. */
static bool find_child(const uint8_t *node, uint64_t *index, bool at_end, uint32_t *slot)
{
    uint32_t n = node_count(node);
    if (at_end && n && *index == get_u64(node + 5)) { /* an append: the last child, at its end */
        *slot = n - 1;
        *index = child_count(node, n - 1);
        return true;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t count = child_count(node, i);
        if (*index < count || (at_end && *index == count && i == n - 1)) {
            *slot = i;
            return true;
        }
        *index -= count;
    }
    return false;
}

/* Copies the nodes from root to the leaf holding position index (for an insert,
 * index may be the count). *in_leaf receives the position in the leaf. */
static int descend(lar_txn *txn, uint64_t root, uint64_t index, bool insert, tree_path *path, uint32_t *in_leaf)
{
    path->depth = path->used = 0;
    path->changed = path->append = false;
    uint64_t id = root;
    for (int depth = 0; depth < MAX_DEPTH; depth++) {
        path_step *step = &path->steps[depth];
        *step = (path_step){.id = id};
        path->used = depth + 1;
        int err = node_borrow(txn, id, &step->node, &step->lent);
        if (err) return err;
        if (node_kind(step->node.data) == LEAF) {
            path->depth = depth;
            uint32_t n = node_count(step->node.data);
            if (index > n || (index == n && !insert)) return corrupt();
            *in_leaf = (uint32_t)index;
            return LAR_OK;
        }
        if (!find_child(step->node.data, &index, insert, &step->slot)) return corrupt();
        id = child_id(step->node.data, step->slot);
    }
    return corrupt();
}

/* What a stored node leaves for its parent to record. */
typedef struct child_result {
    uint64_t count;
    bool gone;                /* it emptied and was removed */
    uint64_t sibling, sibling_count; /* it split: the new right half, or 0 */
} child_result;

/* Splits node (leaf or inner) after its first `keep` entries ending at byte `cut`;
 * stores the right half under a new id. */
static int split_node(lar_txn *txn, byte_buffer *node, uint32_t keep, size_t cut, child_result *out)
{
    uint8_t kind = node_kind(node->data);
    uint32_t n = node_count(node->data);
    size_t header = kind == LEAF ? NODE_HEADER : INNER_HEADER;
    byte_buffer right = {0};
    uint8_t head[INNER_HEADER] = {kind};
    put_u32(head + 1, n - keep);
    int err = buffer_append(&right, head, header);
    if (!err) err = buffer_append(&right, node->data + cut, node->size - cut);
    if (!err && kind == INNER) inner_recount(&right);
    if (!err) out->sibling_count = node_total(right.data);
    if (!err) err = collection_new_id(txn, &out->sibling);
    if (!err) err = node_store(txn, out->sibling, &right);
    if (!err) {
        node->size = cut;
        set_count(node, keep);
        if (kind == INNER) inner_recount(node);
    }
    buffer_free(&right);
    return err;
}

/* Where a full node of n entries splits: in the middle, or, for appends, before the
 * last entry, so that a list built by appends has full nodes. */
static uint32_t split_point(uint32_t n, bool append)
{
    return append ? n - 1 : n / 2;
}

static int store_leaf(lar_txn *txn, path_step *step, bool append, child_result *out)
{
    byte_buffer *leaf = &step->node;
    uint32_t n = node_count(leaf->data);
    memset(out, 0, sizeof *out);
    if (n == 0) {
        out->gone = true;
        return node_delete(txn, step->id);
    }
    int err = LAR_OK;
    if (n > LEAF_MAX_ITEMS || (leaf->size > LEAF_MAX_BYTES && n > 1)) {
        uint32_t keep = split_point(n, append);
        err = split_node(txn, leaf, keep, leaf_offset(leaf->data, leaf->size, keep), out);
    }
    out->count = node_count(leaf->data);
    return err ? err : node_store(txn, step->id, leaf);
}

/* Records a stored child's result in its parent, then stores the parent. */
static int store_inner(lar_txn *txn, path_step *step, bool append, child_result *child)
{
    byte_buffer *node = &step->node;
    size_t at = INNER_HEADER + (size_t)CHILD_SIZE * step->slot;
    uint32_t n = node_count(node->data);
    /* The total changes by what the child's entries now count, less what it counted. */
    uint64_t total = get_u64(node->data + 5) - child_count(node->data, step->slot);
    if (!child->gone) total += child->count + child->sibling_count;
    int err = LAR_OK;
    if (child->gone) {
        buffer_cut(node, at, CHILD_SIZE);
        n--;
    } else {
        put_u64(node->data + at + 8, child->count);
        if (child->sibling) {
            uint8_t entry[CHILD_SIZE];
            put_u64(entry, child->sibling);
            put_u64(entry + 8, child->sibling_count);
            err = buffer_splice(node, at + CHILD_SIZE, entry, CHILD_SIZE);
            n++;
        }
    }
    if (err) return err;
    set_count(node, n);
    memset(child, 0, sizeof *child);
    if (n == 0) {
        child->gone = true;
        return node_delete(txn, step->id);
    }
    put_u64(node->data + 5, total);
    if (n > INNER_MAX_CHILDREN) {
        uint32_t keep = split_point(n, append);
        err = split_node(txn, node, keep, INNER_HEADER + (size_t)CHILD_SIZE * keep, child);
    }
    child->count = node_total(node->data);
    return err ? err : node_store(txn, step->id, node);
}

/* A root that split gets a parent; a root with one child gives way to it. */
static int settle_root(lar_txn *txn, uint64_t top, const child_result *result, uint64_t *root)
{
    if (result->gone) {
        *root = 0;
        return LAR_OK;
    }
    if (result->sibling) {
        byte_buffer node = {0};
        uint8_t bytes[INNER_HEADER + 2 * CHILD_SIZE] = {INNER};
        put_u32(bytes + 1, 2);
        put_u64(bytes + 5, result->count + result->sibling_count);
        put_u64(bytes + INNER_HEADER, top);
        put_u64(bytes + INNER_HEADER + 8, result->count);
        put_u64(bytes + INNER_HEADER + CHILD_SIZE, result->sibling);
        put_u64(bytes + INNER_HEADER + CHILD_SIZE + 8, result->sibling_count);
        int err = buffer_append(&node, bytes, sizeof bytes);
        if (!err) err = collection_new_id(txn, root);
        if (!err) err = node_store(txn, *root, &node);
        buffer_free(&node);
        return err;
    }
    *root = top;
    for (int depth = 0; depth < MAX_DEPTH; depth++) {
        kv_val node;
        int err = node_read(txn, *root, &node);
        if (err || node_kind(node.mv_data) == LEAF || node_count(node.mv_data) > 1) return err;
        uint64_t only = child_id(node.mv_data, 0);
        if ((err = node_delete(txn, *root))) return err;
        *root = only;
    }
    return corrupt();
}

/* Stores a path whose leaf was changed, bottom up; *root receives the new root. */
static int store_path(lar_txn *txn, tree_path *path, uint64_t *root)
{
    child_result result;
    int err = store_leaf(txn, &path->steps[path->depth], path->append, &result);
    for (int depth = path->depth - 1; !err && depth >= 0; depth--)
        err = store_inner(txn, &path->steps[depth], path->append, &result);
    return err ? err : settle_root(txn, path->steps[0].id, &result, root);
}

/* ---- the tree's operations ---- */

static int tree_count(lar_txn *txn, uint64_t root, uint64_t *out)
{
    kv_val node;
    int err = root ? node_read(txn, root, &node) : LAR_OK;
    if (!err) *out = root ? node_total(node.mv_data) : 0;
    return err;
}

/* Finds the leaf holding position index, read in place. */
static int tree_leaf(lar_txn *txn, uint64_t root, uint64_t index, kv_val *leaf, uint32_t *in_leaf)
{
    uint64_t id = root;
    for (int depth = 0; depth < MAX_DEPTH; depth++) {
        int err = node_read(txn, id, leaf);
        if (err) return err;
        const uint8_t *node = leaf->mv_data;
        if (node_kind(node) == LEAF) {
            if (index >= node_count(node)) return corrupt();
            *in_leaf = (uint32_t)index;
            return LAR_OK;
        }
        uint32_t slot;
        if (!find_child(node, &index, false, &slot)) return corrupt();
        id = child_id(node, slot);
    }
    return corrupt();
}

/* typed: a list of mixed values, whose links carry their class. */
static int tree_insert(lar_txn *txn, uint64_t *root, uint64_t index, uint64_t total, const lar_value *value,
                       bool typed)
{
    size_t size = element_encoded_size(value, typed);
    if (!*root) {
        byte_buffer leaf = {0};
        uint8_t head[NODE_HEADER] = {LEAF};
        put_u32(head + 1, 1);
        int err = buffer_append(&leaf, head, sizeof head);
        if (!err) err = buffer_splice(&leaf, NODE_HEADER, NULL, size);
        if (!err) element_encode(value, typed, leaf.data + NODE_HEADER);
        if (!err) err = collection_new_id(txn, root);
        if (!err) err = node_store(txn, *root, &leaf);
        buffer_free(&leaf);
        return err;
    }
    tree_path path;
    uint32_t at;
    int err = descend(txn, *root, index, true, &path, &at);
    byte_buffer *leaf = &path.steps[path.depth].node;
    size_t offset = err ? 0 : leaf_offset(leaf->data, leaf->size, at);
    if (!err) err = buffer_splice(leaf, offset, NULL, size);
    if (!err) {
        element_encode(value, typed, leaf->data + offset);
        set_count(leaf, node_count(leaf->data) + 1);
        path.changed = true;
        path.append = index == total;
        err = store_path(txn, &path, root);
    }
    path_free(txn, &path);
    return err;
}

/* Replaces (value) or removes (value NULL) the element at index. */
static int tree_change(lar_txn *txn, uint64_t *root, uint64_t index, const lar_value *value, bool typed)
{
    tree_path path;
    uint32_t at;
    int err = descend(txn, *root, index, false, &path, &at);
    byte_buffer *leaf = &path.steps[path.depth].node;
    size_t offset = 0, old_size = 0;
    if (!err) {
        offset = leaf_offset(leaf->data, leaf->size, at);
        old_size = item_size(leaf->data + offset, leaf->size - offset);
        buffer_cut(leaf, offset, old_size);
        path.changed = true;
    }
    if (!err && value) {
        size_t size = element_encoded_size(value, typed);
        err = buffer_splice(leaf, offset, NULL, size);
        if (!err) element_encode(value, typed, leaf->data + offset);
    } else if (!err) {
        set_count(leaf, node_count(leaf->data) - 1);
    }
    if (!err) err = store_path(txn, &path, root);
    path_free(txn, &path);
    return err;
}

/* Calls visit on every element of a subtree, in order, then (with delete) removes its nodes. */
typedef int (*element_visitor)(const lar_value *element, void *context);

static int tree_walk(lar_txn *txn, uint64_t id, int depth, lar_class target, bool delete,
                     element_visitor visit, void *context)
{
    if (depth >= MAX_DEPTH) return corrupt();
    byte_buffer node = {0};
    int err = node_copy(txn, id, &node); /* a copy: visits and deletes may move the page */
    uint32_t n = err ? 0 : node_count(node.data);
    if (!err && node_kind(node.data) == INNER) {
        for (uint32_t i = 0; !err && i < n; i++)
            err = tree_walk(txn, child_id(node.data, i), depth + 1, target, delete, visit, context);
    } else if (!err) {
        size_t at = NODE_HEADER;
        for (uint32_t i = 0; !err && i < n; i++) {
            lar_value element;
            element_decode(node.data + at, target, &element);
            at += item_size(node.data + at, node.size - at);
            if (visit) err = visit(&element, context);
        }
    }
    if (!err && delete) err = node_delete(txn, id);
    buffer_free(&node);
    return err;
}

static int check_index(const collection_ref *list, uint64_t count, size_t index, bool insert)
{
    if (index < count || (insert && index == count)) return LAR_OK;
    return lar_fail(LAR_EINVAL, "index %zu is out of bounds for list '%s.%s' (must be less than %llu)", index,
                    list->cls->name, list->prop->def.name, (unsigned long long)count + insert);
}

static int read_at(lar_txn *txn, const collection_ref *list, uint64_t index, lar_value *out)
{
    kv_val leaf;
    uint32_t at;
    int err = tree_leaf(txn, list->root, index, &leaf, &at);
    if (err) return err;
    element_decode((const uint8_t *)leaf.mv_data + leaf_offset(leaf.mv_data, leaf.mv_size, at),
                   list->prop->target, out);
    return collection_keep(txn, out);
}

static bool links(const collection_ref *list)
{
    return property_may_link(&list->prop->def);
}

static bool is_mixed(const collection_ref *list)
{
    return list->prop->def.type == LAR_TYPE_MIXED;
}

/* ---- the public functions ---- */

#define TOP(obj, prop) (&(lar_coll){(obj), (prop), LAR_COLLECTION_LIST, 0})

int lar_list_count_at(lar_txn *txn, const lar_coll *coll, size_t *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_list_count: out is NULL");
    collection_ref list;
    uint64_t count;
    int err = collection_open_at(txn, false, coll, LAR_COLLECTION_LIST, &list);
    if (!err) err = tree_count(txn, list.root, &count);
    if (!err) *out = (size_t)count;
    return err;
}

int lar_list_count(lar_txn *txn, lar_obj obj, uint32_t prop, size_t *out)
{
    return lar_list_count_at(txn, TOP(obj, prop), out);
}

int lar_list_get_at(lar_txn *txn, const lar_coll *coll, size_t index, lar_value *out)
{
    if (!out) return lar_fail(LAR_EINVAL, "lar_list_get: out is NULL");
    collection_ref list;
    uint64_t count;
    int err = collection_open_at(txn, false, coll, LAR_COLLECTION_LIST, &list);
    if (!err) err = tree_count(txn, list.root, &count);
    if (!err) err = check_index(&list, count, index, false);
    return err ? err : read_at(txn, &list, index, out);
}

int lar_list_get(lar_txn *txn, lar_obj obj, uint32_t prop, size_t index, lar_value *out)
{
    return lar_list_get_at(txn, TOP(obj, prop), index, out);
}

int lar_list_get_batch_at(lar_txn *txn, const lar_coll *coll, size_t start, lar_value *out, size_t capacity,
                          size_t *count)
{
    if (count) *count = 0;
    if (!out || !count || !capacity)
        return lar_fail(LAR_EINVAL, "lar_list_get_batch: out and count must not be NULL, capacity not 0");
    collection_ref list;
    uint64_t total;
    int err = collection_open_at(txn, false, coll, LAR_COLLECTION_LIST, &list);
    if (!err) err = tree_count(txn, list.root, &total);
    if (err) return err;
    if (start >= total) return LAR_ENOTFOUND; /* the end, as iterators report it */
    while (!err && *count < capacity && start + *count < total) {
        kv_val leaf; /* each leaf is found once, then read straight through */
        uint32_t at;
        err = tree_leaf(txn, list.root, start + *count, &leaf, &at);
        const uint8_t *bytes = leaf.mv_data;
        size_t offset = err ? 0 : leaf_offset(bytes, leaf.mv_size, at);
        for (uint32_t i = at; !err && i < node_count(bytes) && *count < capacity; i++) {
            element_decode(bytes + offset, list.prop->target, &out[*count]);
            offset += item_size(bytes + offset, leaf.mv_size - offset);
            err = collection_keep(txn, &out[*count]);
            if (!err) ++*count;
        }
    }
    return err;
}

int lar_list_get_batch(lar_txn *txn, lar_obj obj, uint32_t prop, size_t start, lar_value *out, size_t capacity,
                       size_t *count)
{
    return lar_list_get_batch_at(txn, TOP(obj, prop), start, out, capacity, count);
}

/* Records a change of list's elements: in the change log's terms for the property's own
 * list; a nested list's changes are changes of the property. */
static int note_op(lar_txn *txn, const collection_ref *list, list_op_kind kind, uint64_t index, uint64_t arg)
{
    if (list->nested) return changes_modify(txn, list->obj, list->prop_index);
    return changes_list(txn, list->obj, list->prop_index, kind, index, arg);
}

int list_count(lar_txn *txn, const collection_ref *list, uint64_t *out)
{
    return tree_count(txn, list->root, out);
}

static int insert_checked(lar_txn *txn, const collection_ref *list, uint64_t index, uint64_t count,
                          const lar_value *value)
{
    uint64_t root = list->root;
    int err = tree_insert(txn, &root, index, count, value, is_mixed(list));
    if (!err) err = collection_write_root(txn, list, root);
    if (!err && value->type == LAR_TYPE_LINK) err = backlink_add(txn, value->as.link, list->obj, list->prop_index);
    return err ? err : note_op(txn, list, LIST_OP_INSERT, index, 1);
}

/* Opens obj's list for writing value: checks the element and counts the list. */
static int open_for_element(lar_txn *txn, const lar_coll *coll, const lar_value *value,
                            collection_ref *list, lar_value *element, uint64_t *count)
{
    int err = collection_open_at(txn, true, coll, LAR_COLLECTION_LIST, list);
    if (!err) err = collection_check_element(txn, list, value, element);
    return err ? err : tree_count(txn, list->root, count);
}

static int insert_element(lar_txn *txn, const lar_coll *coll, size_t index, const lar_value *value)
{
    collection_ref list;
    uint64_t count;
    lar_value element;
    int err = open_for_element(txn, coll, value, &list, &element, &count);
    if (!err) err = check_index(&list, count, index, true);
    if (!err) err = nested_materialize(txn, &list, &element);
    return err ? err : insert_checked(txn, &list, index, count, &element);
}

int lar_list_insert_at(lar_txn *txn, const lar_coll *coll, size_t index, const lar_value *value)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, insert_element(txn, coll, index, value));
}

int lar_list_insert(lar_txn *txn, lar_obj obj, uint32_t prop, size_t index, const lar_value *value)
{
    return lar_list_insert_at(txn, TOP(obj, prop), index, value);
}

static int append_element(lar_txn *txn, const lar_coll *coll, const lar_value *value)
{
    collection_ref list;
    uint64_t count;
    lar_value element;
    int err = open_for_element(txn, coll, value, &list, &element, &count);
    if (!err) err = nested_materialize(txn, &list, &element);
    return err ? err : insert_checked(txn, &list, count, count, &element);
}

int lar_list_append_at(lar_txn *txn, const lar_coll *coll, const lar_value *value)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, append_element(txn, coll, value));
}

int lar_list_append(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value)
{
    return lar_list_append_at(txn, TOP(obj, prop), value);
}

/* Replaces (value) or removes (NULL) the element at a checked index, keeping backlinks. */
static int change_checked(lar_txn *txn, const collection_ref *list, uint64_t index, const lar_value *value)
{
    lar_value old = {.type = LAR_TYPE_NULL};
    int err = links(list) ? read_at(txn, list, index, &old) : LAR_OK;
    uint64_t root = list->root;
    if (!err) err = tree_change(txn, &root, index, value, is_mixed(list));
    if (!err) err = collection_write_root(txn, list, root);
    if (!err && old.type == LAR_TYPE_LINK) err = backlink_remove(txn, old.as.link, list->obj, list->prop_index);
    if (!err && value && value->type == LAR_TYPE_LINK)
        err = backlink_add(txn, value->as.link, list->obj, list->prop_index);
    if (!err) err = nested_release(txn, nested_parent_of(list), &old); /* the nested collection it held */
    return err ? err : note_op(txn, list, value ? LIST_OP_SET : LIST_OP_REMOVE, index, 1);
}

static int set_element(lar_txn *txn, const lar_coll *coll, size_t index, const lar_value *value)
{
    collection_ref list;
    uint64_t count;
    lar_value element;
    int err = open_for_element(txn, coll, value, &list, &element, &count);
    if (!err) err = check_index(&list, count, index, false);
    if (!err) err = nested_materialize(txn, &list, &element);
    return err ? err : change_checked(txn, &list, index, &element);
}

int lar_list_set_at(lar_txn *txn, const lar_coll *coll, size_t index, const lar_value *value)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, embedded_settle(txn, set_element(txn, coll, index, value)));
}

int lar_list_set(lar_txn *txn, lar_obj obj, uint32_t prop, size_t index, const lar_value *value)
{
    return lar_list_set_at(txn, TOP(obj, prop), index, value);
}

static int remove_element(lar_txn *txn, const lar_coll *coll, size_t index)
{
    collection_ref list;
    uint64_t count;
    int err = collection_open_at(txn, true, coll, LAR_COLLECTION_LIST, &list);
    if (!err) err = tree_count(txn, list.root, &count);
    if (!err) err = check_index(&list, count, index, false);
    return err ? err : change_checked(txn, &list, index, NULL);
}

int lar_list_remove_at(lar_txn *txn, const lar_coll *coll, size_t index)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, embedded_settle(txn, remove_element(txn, coll, index)));
}

int lar_list_remove(lar_txn *txn, lar_obj obj, uint32_t prop, size_t index)
{
    return lar_list_remove_at(txn, TOP(obj, prop), index);
}

static int move_element(lar_txn *txn, const lar_coll *coll, size_t from, size_t to)
{
    collection_ref list;
    uint64_t count;
    lar_value element;
    int err = collection_open_at(txn, true, coll, LAR_COLLECTION_LIST, &list);
    if (!err) err = tree_count(txn, list.root, &count);
    if (!err) err = check_index(&list, count, from, false);
    if (!err) err = check_index(&list, count, to, false);
    if (err || from == to) return err;
    err = read_at(txn, &list, from, &element); /* a copy in a write transaction */
    uint64_t root = list.root;
    if (!err) err = tree_change(txn, &root, from, NULL, false);
    if (!err) err = tree_insert(txn, &root, to, count - 1, &element, is_mixed(&list));
    if (!err) err = collection_write_root(txn, &list, root); /* the same elements: backlinks stay */
    return err ? err : note_op(txn, &list, LIST_OP_MOVE, from, to);
}

int lar_list_move_at(lar_txn *txn, const lar_coll *coll, size_t from, size_t to)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, move_element(txn, coll, from, to));
}

int lar_list_move(lar_txn *txn, lar_obj obj, uint32_t prop, size_t from, size_t to)
{
    return lar_list_move_at(txn, TOP(obj, prop), from, to);
}

static int swap_elements(lar_txn *txn, lar_obj obj, uint32_t prop, size_t first, size_t second)
{
    collection_ref list;
    uint64_t count;
    lar_value a, b;
    int err = collection_open(txn, true, obj, prop, LAR_COLLECTION_LIST, &list);
    if (!err) err = tree_count(txn, list.root, &count);
    if (!err) err = check_index(&list, count, first, false);
    if (!err) err = check_index(&list, count, second, false);
    if (err || first == second) return err;
    err = read_at(txn, &list, first, &a);
    if (!err) err = read_at(txn, &list, second, &b);
    uint64_t root = list.root;
    if (!err) err = tree_change(txn, &root, first, &b, is_mixed(&list));
    if (!err) err = tree_change(txn, &root, second, &a, is_mixed(&list));
    if (!err) err = collection_write_root(txn, &list, root);
    if (!err) err = note_op(txn, &list, LIST_OP_SET, first, 1);
    return err ? err : note_op(txn, &list, LIST_OP_SET, second, 1);
}

int lar_list_swap(lar_txn *txn, lar_obj obj, uint32_t prop, size_t first, size_t second)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, swap_elements(txn, obj, prop, first, second));
}

/* ---- freeing, clearing, and deleted targets ---- */

typedef struct owner {
    lar_txn *txn;
    lar_obj obj;
    uint32_t prop;
    uint32_t depth;           /* the list's level: 0 for the property's own */
    bool counted;             /* a nested list: other collections of the property may still link */
} owner;

/* Forgets an element's backlink (a nested list's one by one: the property's other
 * nested collections may link to the same object) and frees what it nests. */
static int forget_element(const lar_value *element, void *context)
{
    owner *o = context;
    if (element->type == LAR_TYPE_LINK)
        return o->counted ? backlink_remove(o->txn, element->as.link, o->obj, o->prop)
                          : backlink_remove_all(o->txn, element->as.link, o->obj, o->prop);
    return nested_release(o->txn, (nested_parent){o->obj, o->prop, o->depth}, element);
}

static int free_tree(lar_txn *txn, const schema_property *prop, lar_obj obj, uint32_t prop_index, uint64_t root,
                     uint32_t depth)
{
    owner o = {txn, obj, prop_index, depth, depth != 0};
    bool link = property_may_link(&prop->def); /* mixed lists may also nest */
    return root ? tree_walk(txn, root, 0, prop->target, true, link ? forget_element : NULL, &o) : LAR_OK;
}

int list_free(lar_txn *txn, const schema_property *prop, lar_obj obj, uint32_t prop_index, uint64_t root)
{
    return free_tree(txn, prop, obj, prop_index, root, 0);
}

int list_free_nested(lar_txn *txn, const collection_ref *list)
{
    return free_tree(txn, list->prop, list->obj, list->prop_index, list->root, list->depth);
}

static int clear_list(lar_txn *txn, const lar_coll *coll)
{
    collection_ref list;
    uint64_t count = 0;
    int err = collection_open_at(txn, true, coll, LAR_COLLECTION_LIST, &list);
    if (!err) err = tree_count(txn, list.root, &count);
    if (!err) err = free_tree(txn, list.prop, list.obj, list.prop_index, list.root, list.depth);
    if (!err) err = collection_write_root(txn, &list, 0);
    return err || !count ? err : note_op(txn, &list, LIST_OP_REMOVE, 0, count);
}

int lar_list_clear_at(lar_txn *txn, const lar_coll *coll)
{
    uint64_t mark = txn_mark(txn);
    return txn_settle(txn, mark, embedded_settle(txn, clear_list(txn, coll)));
}

int lar_list_clear(lar_txn *txn, lar_obj obj, uint32_t prop)
{
    return lar_list_clear_at(txn, TOP(obj, prop));
}

typedef struct position_list {
    lar_obj target;
    uint64_t at;
    byte_buffer found;        /* u64 positions of the target */
    byte_buffer nested;       /* u64 ids of the nested collections the list holds */
} position_list;

static int note_target(const lar_value *element, void *context)
{
    position_list *list = context;
    bool hit = element->type == LAR_TYPE_LINK && element->as.link.key == list->target.key &&
               element->as.link.cls == list->target.cls;
    int err = hit ? buffer_append(&list->found, &list->at, sizeof list->at)
                  : value_is_nested(element) ? buffer_append(&list->nested, &element->as.nested, 8)
                                             : LAR_OK;
    list->at++;
    return err;
}

int list_remove_target(lar_txn *txn, const collection_ref *list, lar_obj target)
{
    position_list positions = {target, 0, {0}, {0}};
    int err = list->root ? tree_walk(txn, list->root, 0, target.cls, false, note_target, &positions) : LAR_OK;
    uint64_t root = list->root;
    /* From the last: earlier positions stay where they were. */
    for (size_t i = positions.found.size / 8; !err && i-- > 0;)
        err = tree_change(txn, &root, get_u64(positions.found.data + 8 * i), NULL, false);
    if (!err) err = collection_write_root(txn, list, root);
    for (size_t i = positions.found.size / 8; !err && i-- > 0;)
        err = note_op(txn, list, LIST_OP_REMOVE, get_u64(positions.found.data + 8 * i), 1);
    for (size_t i = 0; !err && i < positions.nested.size / 8; i++) /* and out of what it nests */
        err = nested_remove_target(txn, nested_parent_of(list), get_u64(positions.nested.data + 8 * i), target);
    buffer_free(&positions.found);
    buffer_free(&positions.nested);
    return err;
}
