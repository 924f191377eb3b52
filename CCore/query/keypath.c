/* Key paths for sorting, distinct and aggregates: parsed with the query parser,
 * resolved against the schema, then checked to be what they can use (properties
 * through to-one links and embedded objects, ending at a scalar); and the value
 * such a path reads from one object. */
#include "query/order.h"

#include <stdio.h>
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
    if (rc == LAR_OK) rc = query_resolve_keypath(&q, e);
    if (rc == LAR_OK) rc = key_path_from_expr(txn, e, verb, out);
    arena_free(&q.arena);
    return rc;
}

int key_path_read(lar_txn *txn, const key_path *path, lar_objkey key, lar_value *out)
{
    lar_obj obj = {path->root, key};
    for (size_t i = 0; i < path->count; i++) {
        const schema_class *cls = path->classes[i];
        kv_val row;
        int rc = object_read_row(txn, cls, obj, &row);
        if (rc == LAR_OK) rc = row_decode_raw(cls, &row, path->props[i], out);
        if (rc != LAR_OK) return rc;
        if (i + 1 == path->count || out->type == LAR_TYPE_NULL) return LAR_OK;
        obj = out->as.link;
    }
    return LAR_OK;
}
