/* Key paths for sorting, distinct and aggregates: parsed with the query parser,
 * resolved against the schema, then checked to be what they can use (properties
 * through to-one links and embedded objects, ending at a scalar); and the value
 * such a path reads from one object. */
#include "query/order.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "owner.address.city" */
static const char *path_text(const expr *e, char *buf, size_t size)
{
    text_out o = {buf, size, 0};
    for (size_t i = 0; i < e->as.path.count; i++) {
        if (i) out_str(&o, ".");
        const path_step *st = &e->as.path.steps[i];
        if (st->kind == STEP_BACKLINK) out_fmt(&o, "@links.%s.", st->class_name);
        out_str(&o, st->name ? st->name : "?");
    }
    buf[o.length < size ? o.length : size - 1] = 0;
    return buf;
}

static const char *property_kind(const lar_property_def *def)
{
    if (def->type == LAR_TYPE_LINKING_OBJECTS) return "linking objects";
    switch (def->collection) {
    case LAR_COLLECTION_LIST: return "list";
    case LAR_COLLECTION_SET: return "set";
    case LAR_COLLECTION_MAP: return "map";
    default: return def->type == LAR_TYPE_LINK ? "link" : "";
    }
}

static bool is_collection(const lar_property_def *def)
{
    return def->collection != LAR_COLLECTION_NONE || def->type == LAR_TYPE_LINKING_OBJECTS;
}

int key_path_from_expr(lar_txn *txn, const expr *e, const char *verb, key_path *out)
{
    char text[200];
    if (e->kind != EXPR_KEYPATH) return lar_fail(LAR_EINVAL, "cannot %s that: it is not a key path", verb);
    if (e->as.path.agg != AGG_NONE)
        return lar_fail(LAR_EINVAL, "cannot %s '%s': it ends with an aggregate (@count, @min...)", verb,
                        path_text(e, text, sizeof text));
    size_t count = e->as.path.count;
    if (count == 0) return lar_fail(LAR_EINVAL, "cannot %s an empty key path", verb);
    if (count > KEY_PATH_MAX)
        return lar_fail(LAR_EINVAL, "cannot %s '%s': more than %d steps", verb, path_text(e, text, sizeof text),
                        KEY_PATH_MAX);
    out->count = count;
    out->root = e->as.path.steps[0].cls;
    for (size_t i = 0; i < count; i++) {
        const path_step *st = &e->as.path.steps[i];
        if (st->kind != STEP_PROPERTY)
            return lar_fail(LAR_EINVAL, "cannot %s '%s': only properties and to-one links can be followed", verb,
                            path_text(e, text, sizeof text));
        const lar_property_def *def = &st->def;
        bool last = i + 1 == count;
        if (is_collection(def))
            return last ? lar_fail(LAR_EINVAL, "cannot %s %s property '%s'", verb, property_kind(def), st->name)
                        : lar_fail(LAR_EINVAL, "cannot %s '%s': it passes through %s property '%s'", verb,
                                   path_text(e, text, sizeof text), property_kind(def), st->name);
        if (last && def->type == LAR_TYPE_LINK)
            return lar_fail(LAR_EINVAL, "cannot %s link property '%s'", verb, st->name);
        out->classes[i] = schema_class_at(txn->schema, st->cls);
        if (!out->classes[i] || st->prop >= out->classes[i]->property_count)
            return lar_fail(LAR_EINVAL, "cannot %s '%s': the schema changed", verb, path_text(e, text, sizeof text));
        out->props[i] = st->prop;
        out->type = def->type;
    }
    return LAR_OK;
}

int key_path_parse(lar_txn *txn, lar_env *env, lar_class cls, const char *text, const char *verb, key_path *out)
{
    if (!text) return lar_fail(LAR_EINVAL, "cannot %s a NULL key path", verb);
    if (!utf8_valid(text, strlen(text))) return lar_fail(LAR_EINVAL, "cannot %s a key path that is not valid UTF-8", verb);
    lar_query q = {.env = env, .cls = cls};
    expr *e = NULL;
    int rc = query_parse_keypath(&q, text, &e);
    if (rc == LAR_OK) rc = query_resolve_keypath(&q, txn->schema, e);
    if (rc == LAR_OK) rc = key_path_from_expr(txn, e, verb, out);
    arena_free(&q.arena);
    return rc;
}

/* Follows path from step `step` of obj to its value. */
static int follow(lar_txn *txn, const key_path *path, size_t step, lar_obj obj, lar_value *out)
{
    for (size_t i = step; i < path->count; i++) {
        const schema_class *cls = path->classes[i];
        kv_val row;
        int rc = object_read_row(txn, cls, obj, &row);
        if (rc == LAR_OK) rc = row_decode_raw(cls, &row, path->props[i], out);
        if (rc != LAR_OK) return rc;
        if (i + 1 == path->count) return LAR_OK;
        if (out->type == LAR_TYPE_NULL) {
            out->type = VALUE_NULL_LINK;
            return LAR_OK;
        }
        obj = out->as.link;
    }
    return LAR_OK;
}

int key_path_read(lar_txn *txn, const key_path *path, lar_objkey key, lar_value *out)
{
    return follow(txn, path, 0, (lar_obj){path->root, key}, out);
}

int key_path_read_row(lar_txn *txn, const key_path *path, const kv_val *row, lar_value *out)
{
    int rc = row_decode_raw(path->classes[0], row, path->props[0], out);
    if (rc != LAR_OK || path->count == 1) return rc;
    if (out->type == LAR_TYPE_NULL) {
        out->type = VALUE_NULL_LINK;
        return LAR_OK;
    }
    return follow(txn, path, 1, out->as.link, out);
}

/* Fewer objects than this are read one lookup each. */
#define CURSOR_THRESHOLD 32

/* The positions of keys in ascending key order, or NULL when they are in order already. */
static int key_order(const lar_objkey *keys, size_t n, size_t **out)
{
    *out = NULL;
    size_t i = 1;
    while (i < n && keys[i - 1] < keys[i]) i++;
    if (i == n) return LAR_OK;
    size_t *positions = big_alloc(n * sizeof *positions), *scratch = big_alloc(n * sizeof *scratch);
    if (!positions || !scratch) {
        big_free(positions);
        big_free(scratch);
        return lar_fail(LAR_ENOMEM, "out of memory");
    }
    size_t *sorted = radix_sort_u64(keys, n, positions, scratch);
    big_free(sorted == positions ? scratch : positions);
    *out = sorted;
    return LAR_OK;
}

/* The key of the entry a cursor step returned (0 for a key of another size: a damaged table). */
static lar_objkey key_at(const kv_val *k)
{
    lar_objkey key = 0;
    if (k->mv_size == sizeof key) memcpy(&key, k->mv_data, sizeof key);
    return key;
}

/* Moves cursor to the row of key; *at is the key it is on (0: unknown). Dense results
 * mostly want the next row: one step; otherwise a seek, which LMDB keeps on the cursor's
 * page when the key is there. Returns 0, KV_NOTFOUND (no such row) or an LMDB error. */
static int cursor_to(kv_cursor *cursor, lar_objkey *at, lar_objkey key, kv_val *row)
{
    kv_val k;
    if (*at && *at < key) {
        int rc = kv_cursor_step(cursor, &k, row, KV_NEXT);
        lar_objkey found = rc == 0 ? key_at(&k) : 0;
        if (rc == 0 && found >= key) {
            *at = found;
            return found == key ? 0 : KV_NOTFOUND;
        }
        if (rc != 0) {
            *at = 0;
            return rc;
        }
    }
    k = (kv_val){sizeof key, &key};
    int rc = kv_cursor_step(cursor, &k, row, KV_SEEK);
    *at = rc == 0 ? key_at(&k) : 0;
    return rc == 0 && *at != key ? KV_NOTFOUND : rc;
}

/* Reads the rows in key order through one cursor. */
static int read_in_key_order(lar_txn *txn, const key_path *path, const lar_objkey *keys, const size_t *positions,
                             size_t n, lar_value *out, size_t stride)
{
    const schema_class *cls = path->classes[0];
    kv_cursor *cursor;
    int rc = kv_cursor_open(txn, cls->dbi, &cursor);
    if (rc) return lar_fail_mdb(rc, "cannot read objects");
    lar_objkey at = 0;
    for (size_t i = 0; i < n && rc == LAR_OK; i++) {
        size_t p = positions ? positions[i] : i;
        kv_val row;
        int step = cursor_to(cursor, &at, keys[p], &row);
        if (step == KV_NOTFOUND)
            rc = lar_fail(LAR_EDELETED, "object %llu of class '%s' does not exist or was deleted",
                          (unsigned long long)keys[p], cls->name);
        else if (step)
            rc = lar_fail_mdb(step, "cannot read an object");
        else
            rc = key_path_read_row(txn, path, &row, &out[p * stride]);
    }
    kv_cursor_close(cursor);
    return rc;
}

int key_path_read_many(lar_txn *txn, const key_path *path, const lar_objkey *keys, size_t n, lar_value *out,
                       size_t stride)
{
    if (n < CURSOR_THRESHOLD) {
        for (size_t i = 0; i < n; i++) {
            int rc = key_path_read(txn, path, keys[i], &out[i * stride]);
            if (rc != LAR_OK) return rc;
        }
        return LAR_OK;
    }
    size_t *positions;
    int rc = key_order(keys, n, &positions);
    if (rc == LAR_OK) rc = read_in_key_order(txn, path, keys, positions, n, out, stride);
    big_free(positions);
    return rc;
}

int key_path_read_rows(lar_txn *txn, const key_path *path, const kv_val *rows, size_t n, lar_value *out,
                       size_t stride)
{
    for (size_t i = 0; i < n; i++) {
        if (i + KV_ROWS_AHEAD < n) kv_prefetch_row(&rows[i + KV_ROWS_AHEAD]);
        int rc = key_path_read_row(txn, path, &rows[i], &out[i * stride]);
        if (rc != LAR_OK) return rc;
    }
    return LAR_OK;
}
