/* Cascading deletes: deleting an object also deletes the objects it owns through its
 * LAR_PROP_CASCADE properties (the rule is stated at LAR_PROP_CASCADE in larder.h).
 *
 * The work is a small mark-and-sweep over the objects reachable from the root:
 *  1. explore: from the root, follow every cascading property (a to-one link, a list,
 *     set or map of objects) breadth first; each object reached is a candidate, kept
 *     once in a hash set, so cycles end. The edges found are kept, per candidate.
 *  2. keep: a candidate other than the root that a cascading link from outside the
 *     candidates holds (the backlink index says who links to it, through which
 *     property) survives, and so does every candidate reachable from a survivor
 *     through the kept edges. The root is always deleted.
 *  3. sweep: every other candidate is deleted as lar_obj_delete() deletes one object,
 *     which nulls the links to it and takes it out of lists, sets and maps.
 * Steps 1 and 2 only read (a backlink read may first store the backlinks the write
 * gathered, which changes nothing visible), so their failures leave the transaction
 * usable; a failure in step 3 fails it (lar_obj_delete settles the error).
 * Cost: each candidate's row, cascading collections and backlinks are read once. */
#include "object/object.h"

#include "collection/collection.h"

#include <stdlib.h>
#include <string.h>

#define READ_BATCH 64

/* The candidates, in the order found, with a hash index over them. */
typedef struct candidates {
    lar_obj *items;
    uint8_t *survives;        /* per item */
    size_t *edges_at;         /* per item: where its edges start in edges (count + 1 entries) */
    size_t count, capacity;
    uint32_t *slots;          /* open addressing: item index + 1, 0 when free */
    size_t slot_count;        /* a power of two, at least twice count */
    uint32_t *edges;          /* item indexes, grouped by the item they leave */
    size_t edge_count, edge_capacity;
} candidates;

static size_t hash_obj(lar_obj obj)
{
    uint64_t h = obj.key * 0x9E3779B97F4A7C15ull ^ ((uint64_t)obj.cls * 0xC2B2AE3D27D4EB4Full);
    return (size_t)(h ^ h >> 29);
}

/* The index of obj among the candidates, or -1. */
static long find(const candidates *c, lar_obj obj)
{
    if (!c->slot_count) return -1;
    size_t mask = c->slot_count - 1;
    for (size_t at = hash_obj(obj) & mask;; at = (at + 1) & mask) {
        uint32_t slot = c->slots[at];
        if (!slot) return -1;
        lar_obj item = c->items[slot - 1];
        if (item.key == obj.key && item.cls == obj.cls) return (long)slot - 1;
    }
}

static void place(candidates *c, size_t index)
{
    size_t mask = c->slot_count - 1, at = hash_obj(c->items[index]) & mask;
    while (c->slots[at]) at = (at + 1) & mask;
    c->slots[at] = (uint32_t)index + 1;
}

static int grow(candidates *c)
{
    if (c->count == UINT32_MAX - 1) return lar_fail(LAR_ENOMEM, "a cascading delete reaches too many objects");
    size_t capacity = c->capacity ? c->capacity * 2 : 64;
    lar_obj *items = realloc(c->items, capacity * sizeof *items);
    if (items) c->items = items;
    uint8_t *survives = items ? realloc(c->survives, capacity) : NULL;
    if (survives) c->survives = survives;
    size_t *edges_at = survives ? realloc(c->edges_at, (capacity + 1) * sizeof *edges_at) : NULL;
    if (edges_at) c->edges_at = edges_at;
    uint32_t *slots = edges_at ? calloc(capacity * 2, sizeof *slots) : NULL;
    if (!slots) return lar_fail(LAR_ENOMEM, "out of memory finding the objects a delete cascades to");
    free(c->slots);
    c->slots = slots;
    c->slot_count = capacity * 2;
    c->capacity = capacity;
    for (size_t i = 0; i < c->count; i++) place(c, i);
    return LAR_OK;
}

/* Adds obj unless it is a candidate already; *index receives its index. */
static int add(candidates *c, lar_obj obj, size_t *index)
{
    long found = find(c, obj);
    if (found >= 0) {
        *index = (size_t)found;
        return LAR_OK;
    }
    if (c->count == c->capacity) {
        int err = grow(c);
        if (err) return err;
    }
    c->items[c->count] = obj;
    c->survives[c->count] = 0;
    place(c, c->count);
    *index = c->count++;
    return LAR_OK;
}

static void candidates_free(candidates *c)
{
    free(c->items);
    free(c->survives);
    free(c->edges_at);
    free(c->slots);
    free(c->edges);
}

/* Records an edge from the item being explored to the target at index. */
static int add_edge(candidates *c, size_t index)
{
    if (c->edge_count == c->edge_capacity) {
        size_t capacity = c->edge_capacity ? c->edge_capacity * 2 : 64;
        uint32_t *edges = realloc(c->edges, capacity * sizeof *edges);
        if (!edges) return lar_fail(LAR_ENOMEM, "out of memory finding the objects a delete cascades to");
        c->edges = edges;
        c->edge_capacity = capacity;
    }
    c->edges[c->edge_count++] = (uint32_t)index;
    return LAR_OK;
}

/* A target of the item being explored: a candidate, with an edge to it. */
static int reach(candidates *c, const lar_value *value)
{
    if (value->type != LAR_TYPE_LINK) return LAR_OK;
    size_t index;
    int err = add(c, value->as.link, &index);
    return err ? err : add_edge(c, index);
}

/* ---- step 1: the targets of one object's cascading properties ---- */

static int reach_list(lar_txn *txn, candidates *c, lar_obj obj, uint32_t prop)
{
    lar_value values[READ_BATCH];
    size_t count;
    int err = LAR_OK;
    for (size_t start = 0; !err; start += count) {
        int rc = lar_list_get_batch(txn, obj, prop, start, values, READ_BATCH, &count);
        if (rc == LAR_ENOTFOUND) return LAR_OK;
        if (rc) return rc;
        for (size_t i = 0; !err && i < count; i++) err = reach(c, &values[i]);
    }
    return err;
}

static int reach_set(lar_txn *txn, candidates *c, lar_obj obj, uint32_t prop)
{
    lar_value values[READ_BATCH], after;
    size_t count;
    int err = LAR_OK;
    for (bool first = true; !err; first = false) {
        int rc = lar_set_list(txn, obj, prop, first ? NULL : &after, values, READ_BATCH, &count);
        if (rc == LAR_ENOTFOUND) return LAR_OK;
        if (rc) return rc;
        for (size_t i = 0; !err && i < count; i++) err = reach(c, &values[i]);
        after = values[count - 1];
    }
    return err;
}

static int reach_map(lar_txn *txn, candidates *c, lar_obj obj, uint32_t prop)
{
    lar_string keys[READ_BATCH], after;
    lar_value values[READ_BATCH];
    size_t count;
    int err = LAR_OK;
    for (bool first = true; !err; first = false) {
        int rc = lar_map_list(txn, obj, prop, first ? NULL : &after, keys, values, READ_BATCH, &count);
        if (rc == LAR_ENOTFOUND) return LAR_OK;
        if (rc) return rc;
        for (size_t i = 0; !err && i < count; i++) err = reach(c, &values[i]);
        after = keys[count - 1];
    }
    return err;
}

static int explore(lar_txn *txn, candidates *c, size_t index)
{
    lar_obj obj = c->items[index];
    const schema_class *cls = schema_class_at(txn->schema, obj.cls);
    if (!cls) return lar_fail(LAR_ECORRUPT, "a link names class %u, which does not exist", obj.cls);
    if (!cls->has_cascades) return LAR_OK;
    kv_val row;
    int err = object_read_row(txn, cls, obj, &row);
    if (err == LAR_EDELETED && index > 0) /* only damage leaves a link to a deleted object */
        return lar_fail(LAR_ECORRUPT, "a cascading link of class '%s' names object %llu, which does not exist",
                        cls->name, (unsigned long long)obj.key);
    /* The to-one links first: the collection reads below may replace the row. */
    for (uint32_t i = 0; !err && i < cls->property_count; i++) {
        const lar_property_def *def = &cls->properties[i].def;
        if (!(def->flags & LAR_PROP_CASCADE) || def->collection) continue;
        lar_value value;
        err = row_decode_raw(cls, &row, i, &value);
        if (!err) err = reach(c, &value);
    }
    for (uint32_t i = 0; !err && i < cls->property_count; i++) {
        const lar_property_def *def = &cls->properties[i].def;
        if (!(def->flags & LAR_PROP_CASCADE)) continue;
        if (def->collection == LAR_COLLECTION_LIST) err = reach_list(txn, c, obj, i);
        else if (def->collection == LAR_COLLECTION_SET) err = reach_set(txn, c, obj, i);
        else if (def->collection == LAR_COLLECTION_MAP) err = reach_map(txn, c, obj, i);
    }
    return err;
}

/* ---- step 2: the candidates that a cascading link from outside still holds ---- */

typedef struct holder_search {
    lar_txn *txn;
    const candidates *c;
    bool held;
} holder_search;

static int check_holder(const backlink *link, void *context)
{
    holder_search *search = context;
    const schema_class *origin = schema_class_at(search->txn->schema, link->origin.cls);
    if (!origin || link->prop >= origin->property_count)
        return lar_fail(LAR_ECORRUPT, "a backlink entry names a property that does not exist");
    if (!(origin->properties[link->prop].def.flags & LAR_PROP_CASCADE)) return LAR_OK;
    if (find(search->c, link->origin) >= 0) return LAR_OK;
    search->held = true;
    return BACKLINK_STOP;
}

static int keep_held(lar_txn *txn, candidates *c)
{
    uint32_t *stack = malloc((c->count ? c->count : 1) * sizeof *stack);
    if (!stack) return lar_fail(LAR_ENOMEM, "out of memory finding the objects a delete cascades to");
    size_t depth = 0;
    int err = LAR_OK;
    for (size_t i = 1; !err && i < c->count; i++) {
        uint8_t prefix[32];
        size_t size = backlink_prefix(c->items[i], 0, 0, false, prefix);
        holder_search search = {txn, c, false};
        err = backlink_walk(txn, prefix, size, 0, check_holder, &search);
        if (!err && search.held) {
            c->survives[i] = 1;
            stack[depth++] = (uint32_t)i;
        }
    }
    while (!err && depth) { /* what a survivor holds through cascading links survives too */
        uint32_t from = stack[--depth];
        for (size_t e = c->edges_at[from]; e < c->edges_at[from + 1]; e++) {
            uint32_t to = c->edges[e];
            if (to == 0 || c->survives[to]) continue; /* the root goes whatever holds it */
            c->survives[to] = 1;
            stack[depth++] = to;
        }
    }
    free(stack);
    return err;
}

int cascade_delete(lar_txn *txn, const schema_class *cls, lar_obj root)
{
    kv_val row;
    int err = object_read_row(txn, cls, root, &row); /* a deleted root: LAR_EDELETED, as without cascades */
    if (err) return err;
    candidates c;
    memset(&c, 0, sizeof c);
    size_t index;
    err = add(&c, root, &index);
    for (size_t i = 0; !err && i < c.count; i++) { /* breadth first: c.count grows as targets are found */
        c.edges_at[i] = c.edge_count;
        err = explore(txn, &c, i);
    }
    if (!err) {
        c.edges_at[c.count] = c.edge_count;
        err = keep_held(txn, &c);
    }
    for (size_t i = 0; !err && i < c.count; i++)
        if (!c.survives[i]) err = object_delete_one(txn, c.items[i]);
    candidates_free(&c);
    return err;
}
