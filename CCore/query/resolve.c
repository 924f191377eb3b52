/* The second pass: key paths resolved to properties (through links, backlinks, maps),
 * every comparison type-checked against the schema and the bound arguments. */
#include "query/query.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef struct scope {
    const char *variable;
    shape element;
    lar_class cls;
    bool has_class;
    const struct scope *up;
} scope;

typedef struct resolver {
    lar_query *q;
    const lar_schema *schema; /* the environment's current schema, read once per resolution, or a transaction's */
    const scope *scope;
} resolver;

#define TRY(expr) do { int rc_ = (expr); if (rc_ != LAR_OK) return rc_; } while (0)

static const char *class_name(resolver *r, lar_class cls)
{
    const schema_class *c = query_class_at(r->q, r->schema, cls);
    return c ? c->name : "?";
}

/* The class named name, as lar_class_find() finds it. */
static bool class_named(resolver *r, const char *name, lar_class *out)
{
    const schema_class *c = find_class(r->schema, name);
    if (c) *out = (lar_class)(c - r->schema->classes);
    return c != NULL;
}

/* Property name of class cls, as lar_property_find() finds it, and its definition. */
static bool property_named(resolver *r, lar_class cls, const char *name, uint32_t *prop, lar_property_def *def)
{
    const schema_class *c = query_class_at(r->q, r->schema, cls);
    for (uint32_t i = 0; c && i < c->property_count; i++) {
        if (strcmp(c->properties[i].def.name, name) != 0) continue;
        *prop = i;
        *def = c->properties[i].def;
        return true;
    }
    return false;
}

/* A resolver for q, on the schema its environment has now (the calling thread's write
 * sees the classes it added). */
static int resolver_start(lar_query *q, resolver *r)
{
    lar_schema *schema;
    int err = env_current_schema(q->env, &schema);
    *r = (resolver){.q = q, .schema = schema};
    return err;
}

static const char *path_text(resolver *r, const expr *e, char *buf, size_t size)
{
    text_out o = {buf, size, 0};
    out_expr(&o, r->q, e, 0);
    buf[o.length < size ? o.length : size - 1] = 0;
    return buf;
}

static bool numeric(lar_type t)
{
    return t == LAR_TYPE_INT || t == LAR_TYPE_FLOAT || t == LAR_TYPE_DOUBLE || t == LAR_TYPE_DECIMAL128;
}

/* The type a shape names in messages: "string", "list of int", "mixed". */
static const char *shape_type(const shape *s, char *buf, size_t size)
{
    static const char *const kinds[] = {"", "list", "set", "map"};
    if (s->type_name) return "type name";
    if (s->collection != LAR_COLLECTION_NONE)
        snprintf(buf, size, "%s of %s", kinds[s->collection], type_name(s->type));
    else
        snprintf(buf, size, "%s", type_name(s->type));
    return buf;
}

/* ---- key paths ---- */

/* A query over values reads each value as `self`, and of it only its @type (a mixed
 * value) or its length: no key path reaches past a value to an object or collection. */
static int check_values_path(const expr *e)
{
    const path_step *steps = e->as.path.steps;
    if (e->as.path.count == 0 || steps[0].kind != STEP_PROPERTY || strcmp(steps[0].name, "self") != 0)
        return lar_fail(LAR_EINVAL, "a query over values names each value 'self' at column %d",
                        e->as.path.count ? steps[0].column : e->column);
    for (size_t i = 1; i < e->as.path.count; i++)
        if (steps[i].kind != STEP_TYPE)
            return lar_fail(LAR_EINVAL, "a query over values reads only 'self', its @type and its @count at column %d",
                            steps[i].column);
    return LAR_OK;
}

static int resolve_path(resolver *r, expr *e)
{
    lar_query *q = r->q;
    if (q->values && e->kind == EXPR_KEYPATH) TRY(check_values_path(e));
    lar_class cls = q->cls;
    bool has_class = true;
    shape s = {.type = LAR_TYPE_LINK, .link_class = q->cls, .has_link_class = true};
    bool many = false;
    const char *last_name = class_name(r, q->cls);
    for (size_t i = 0; i < e->as.path.count; i++) {
        path_step *st = &e->as.path.steps[i];
        if (s.collection != LAR_COLLECTION_NONE && st->kind != STEP_KEY && st->kind != STEP_KEYS &&
            st->kind != STEP_VALUES) {
            many = true; /* through a list or set: one value per element */
        }
        switch (st->kind) {
        case STEP_VARIABLE: {
            const scope *sc = r->scope;
            while (sc && strcmp(sc->variable, st->name) != 0) sc = sc->up;
            if (!sc) return lar_fail(LAR_EINVAL, "unknown variable '$%s' at column %d", st->name, st->column);
            s = sc->element;
            cls = sc->cls;
            has_class = sc->has_class;
            many = false;
            last_name = st->name;
            continue;
        }
        case STEP_BACKLINK: {
            if (i != 0 || !has_class)
                return lar_fail(LAR_EINVAL, "@links must begin a key path at column %d", st->column);
            if (!st->class_name) { /* @links.@count: links from any class and property */
                s = (shape){.type = LAR_TYPE_LINK};
                has_class = false;
                many = true;
                last_name = "@links";
                continue;
            }
            lar_class origin;
            if (!class_named(r, st->class_name, &origin))
                return lar_fail(LAR_EINVAL, "unknown class '%s' in @links at column %d", st->class_name, st->column);
            uint32_t prop;
            lar_property_def def;
            if (!property_named(r, origin, st->name, &prop, &def))
                return lar_fail(LAR_EINVAL, "unknown property '%s' on class '%s' at column %d", st->name,
                                st->class_name, st->column);
            if (def.type != LAR_TYPE_LINK || !def.target_class || strcmp(def.target_class, class_name(r, cls)) != 0)
                return lar_fail(LAR_EINVAL, "property '%s.%s' does not link to class '%s' at column %d",
                                st->class_name, st->name, class_name(r, cls), st->column);
            st->cls = origin;
            st->prop = prop;
            st->def = def;
            s = (shape){.type = LAR_TYPE_LINK, .link_class = origin, .has_link_class = true};
            cls = origin;
            many = true;
            last_name = st->name;
            continue;
        }
        case STEP_PROPERTY: {
            if (s.type != LAR_TYPE_LINK || !has_class || s.collection == LAR_COLLECTION_MAP) {
                char buf[64];
                return lar_fail(LAR_EINVAL, "key path continues past %s property '%s' at column %d",
                                shape_type(&s, buf, sizeof buf), last_name, st->column);
            }
            uint32_t prop;
            lar_property_def def;
            if (!property_named(r, cls, st->name, &prop, &def))
                return lar_fail(LAR_EINVAL, "unknown property '%s' on class '%s' at column %d", st->name,
                                class_name(r, cls), st->column);
            st->cls = cls;
            st->prop = prop;
            st->def = def;
            s = (shape){.type = def.type, .collection = def.collection,
                        .nullable = (def.flags & LAR_PROP_OPTIONAL) || def.type == LAR_TYPE_MIXED};
            has_class = false;
            if (def.type == LAR_TYPE_LINK && def.target_class) {
                if (!class_named(r, def.target_class, &cls))
                    return lar_fail(LAR_ENOTFOUND, "no class named '%s'", def.target_class);
                has_class = true;
                s.link_class = cls;
                s.has_link_class = true;
            }
            last_name = st->name;
            continue;
        }
        case STEP_KEY:
            if (s.collection != LAR_COLLECTION_MAP && !(s.type == LAR_TYPE_MIXED && s.collection == LAR_COLLECTION_NONE)) {
                char buf[64];
                return lar_fail(LAR_EINVAL, "'[...]' needs a map or a mixed value, but '%s' is %s at column %d",
                                last_name, shape_type(&s, buf, sizeof buf), st->column);
            }
            s.collection = LAR_COLLECTION_NONE;
            s.nullable = true;
            continue;
        case STEP_KEYS:
        case STEP_VALUES:
            if (s.collection != LAR_COLLECTION_MAP) {
                char buf[64];
                return lar_fail(LAR_EINVAL, "%s needs a map, but '%s' is %s at column %d",
                                st->kind == STEP_KEYS ? "@keys" : "@values", last_name,
                                shape_type(&s, buf, sizeof buf), st->column);
            }
            if (st->kind == STEP_KEYS) s = (shape){.type = LAR_TYPE_STRING};
            s.collection = LAR_COLLECTION_NONE;
            many = true;
            continue;
        case STEP_TYPE:
            if (s.type != LAR_TYPE_MIXED) {
                char buf[64];
                return lar_fail(LAR_EINVAL, "@type applies only to mixed values, but '%s' is %s at column %d",
                                last_name, shape_type(&s, buf, sizeof buf), st->column);
            }
            if (s.collection != LAR_COLLECTION_NONE) many = true;
            s = (shape){.type = LAR_TYPE_STRING, .type_name = true};
            continue;
        }
    }
    if (e->as.path.count == 0) return lar_fail(LAR_EINVAL, "an empty key path at column %d", e->column);
    aggregate agg = e->as.path.agg;
    if (agg != AGG_NONE) {
        static const char *const names[] = {"", "@count", "@min", "@max", "@sum", "@avg"};
        bool collection = s.collection != LAR_COLLECTION_NONE || many;
        char buf[64];
        if (agg == AGG_COUNT) {
            if (!collection && s.type != LAR_TYPE_STRING && s.type != LAR_TYPE_BINARY)
                return lar_fail(LAR_EINVAL, "@count needs a collection, a string or a binary, but '%s' is %s at column %d",
                                last_name, shape_type(&s, buf, sizeof buf), e->as.path.agg_column);
            s = (shape){.type = LAR_TYPE_INT};
        } else {
            bool fits = numeric(s.type) || s.type == LAR_TYPE_MIXED ||
                        ((agg == AGG_MIN || agg == AGG_MAX) && s.type == LAR_TYPE_TIMESTAMP);
            if (!collection || !fits)
                return lar_fail(LAR_EINVAL, "%s needs a collection of %s, but '%s' is %s at column %d", names[agg],
                                agg == AGG_MIN || agg == AGG_MAX ? "numbers or timestamps" : "numbers", last_name,
                                shape_type(&s, buf, sizeof buf), e->as.path.agg_column);
            lar_type t = s.type;
            if (agg == AGG_AVG && t != LAR_TYPE_DECIMAL128 && t != LAR_TYPE_MIXED) t = LAR_TYPE_DOUBLE;
            s = (shape){.type = t, .nullable = agg != AGG_SUM && agg != AGG_COUNT};
        }
        many = false;
    } else if (s.collection != LAR_COLLECTION_NONE) {
        many = true;
    }
    s.many = many;
    e->shape = s;
    return LAR_OK;
}

/* ---- values ---- */

static const char *const type_names_known[] = {
    "null", "int", "bool", "float", "double", "string", "binary", "data", "timestamp", "date",
    "objectid", "uuid", "decimal128", "decimal", "link", "object", "objectlink", "numeric", "mixed",
    "list", "array", "dictionary",
};

static bool known_type_name(const lar_value *v)
{
    for (size_t i = 0; i < sizeof type_names_known / sizeof *type_names_known; i++)
        if (strlen(type_names_known[i]) == v->as.string.size &&
            strncasecmp(type_names_known[i], v->as.string.data, v->as.string.size) == 0)
            return true;
    return false;
}

static bool string_op(cmp_op op)
{
    return op == OP_BEGINSWITH || op == OP_ENDSWITH || op == OP_CONTAINS || op == OP_LIKE;
}

static bool ordering_op(cmp_op op)
{
    return op == OP_LT || op == OP_LE || op == OP_GT || op == OP_GE || op == OP_BETWEEN;
}

static const char *const op_names[] = {"==", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH",
                                        "CONTAINS", "LIKE", "IN", "BETWEEN"};

/* Checks a value against the key path it is compared with. arg: its argument index or -1. */
static int check_value(resolver *r, const pred *x, const expr *path, const lar_value *v, long arg, int column)
{
    const shape *s = &path->shape;
    cmp_op op = x->as.cmp.op;
    bool ok;
    lar_type t = v->type;
    if (arg >= 0 && (s->type_name || t == LAR_TYPE_LINK)) r->q->value_checked_args = true;
    if (t == LAR_TYPE_NULL) {
        ok = !ordering_op(op) && !string_op(op) && !s->type_name;
    } else if (s->type_name) {
        ok = t == LAR_TYPE_STRING && !ordering_op(op) && !string_op(op);
        if (ok && !known_type_name(v)) {
            char text[80];
            text_out o = {text, sizeof text, 0};
            out_value(&o, v, r->q->env);
            text[o.length < sizeof text ? o.length : sizeof text - 1] = 0;
            return lar_fail(LAR_EINVAL, "unknown type name %s for @type at column %d", text, column);
        }
    } else if (s->type == LAR_TYPE_MIXED) {
        ok = true;
    } else if (string_op(op)) {
        ok = t == LAR_TYPE_STRING || t == LAR_TYPE_BINARY;
    } else if (numeric(s->type)) {
        ok = numeric(t);
    } else if (s->type == LAR_TYPE_BINARY) {
        ok = t == LAR_TYPE_BINARY || t == LAR_TYPE_STRING;
    } else if (s->type == LAR_TYPE_LINK) {
        ok = t == LAR_TYPE_LINK && !ordering_op(op);
        if (ok && s->has_link_class && v->as.link.cls != s->link_class)
            return lar_fail(LAR_EINVAL, "cannot compare a link to class '%s' with an object of class '%s'%s at column %d",
                            class_name(r, s->link_class), class_name(r, v->as.link.cls),
                            arg >= 0 ? " (an argument)" : "", column);
    } else {
        ok = t == s->type;
    }
    if (ok && s->type == LAR_TYPE_BOOL && ordering_op(op)) ok = false;
    if (ok) return LAR_OK;
    char path_buf[160], text[120], type_buf[64], arg_buf[40] = "";
    path_text(r, path, path_buf, sizeof path_buf);
    text_out o = {text, sizeof text, 0};
    out_value(&o, v, r->q->env);
    text[o.length < sizeof text ? o.length : sizeof text - 1] = 0;
    if (arg >= 0) snprintf(arg_buf, sizeof arg_buf, " (argument %ld)", arg);
    if (t == LAR_TYPE_NULL || (t == s->type && ordering_op(op)) || (string_op(op) && (t == LAR_TYPE_STRING || t == LAR_TYPE_BINARY)))
        return lar_fail(LAR_EINVAL, "cannot use %s on %s property '%s' with %s%s at column %d", op_names[op],
                        shape_type(s, type_buf, sizeof type_buf), path_buf, text, arg_buf, column);
    return lar_fail(LAR_EINVAL, "cannot compare %s property '%s' with %s %s%s at column %d",
                    shape_type(s, type_buf, sizeof type_buf), path_buf, type_name(t), text, arg_buf, column);
}

static int resolve_pred(resolver *r, pred *x);

static int resolve_expr(resolver *r, expr *e)
{
    switch (e->kind) {
    case EXPR_KEYPATH:
        return resolve_path(r, e);
    case EXPR_SUBQUERY: {
        expr *c = e->as.subquery.collection;
        TRY(resolve_path(r, c));
        if (!c->shape.many || c->shape.type_name) {
            char buf[64], pbuf[160];
            return lar_fail(LAR_EINVAL, "SUBQUERY needs a collection, but '%s' is %s at column %d",
                            path_text(r, c, pbuf, sizeof pbuf), shape_type(&c->shape, buf, sizeof buf), c->column);
        }
        scope sc = {.variable = e->as.subquery.variable, .element = c->shape, .up = r->scope};
        sc.element.many = false;
        sc.element.collection = LAR_COLLECTION_NONE;
        if (c->shape.type == LAR_TYPE_LINK && c->shape.has_link_class) {
            sc.cls = c->shape.link_class;
            sc.has_class = true;
        }
        const scope *saved = r->scope;
        r->scope = &sc;
        int rc = resolve_pred(r, e->as.subquery.predicate);
        r->scope = saved;
        TRY(rc);
        e->shape = (shape){.type = LAR_TYPE_INT};
        return LAR_OK;
    }
    case EXPR_CONSTANT:
        e->as.constant = e->literal;
        e->shape = (shape){.type = e->as.constant.type};
        return LAR_OK;
    case EXPR_LIST:
        e->shape = (shape){.type = LAR_TYPE_NULL, .many = true};
        return LAR_OK;
    case EXPR_ARGUMENT: {
        bound_arg *b = r->q->args ? &r->q->args[e->as.arg.index] : NULL;
        if (e->as.arg.keypath) {
            if (!b || b->kind == 0) return lar_fail(LAR_EINVAL, "%%K argument %ld is not bound at column %d", e->as.arg.index, e->column);
            if (b->kind != LAR_QUERY_ARG_KEYPATH)
                return lar_fail(LAR_EINVAL, "argument %ld must be a key path, for %%K at column %d", e->as.arg.index, e->column);
            int rc = resolve_path(r, b->path);
            if (rc != LAR_OK) {
                char message[400];
                snprintf(message, sizeof message, "%s", lar_error_last()->message);
                return lar_fail(rc, "in key path argument %ld \"%.60s\" (for %%K at column %d): %s", e->as.arg.index,
                                b->path_text, e->column, message);
            }
            e->shape = b->path->shape;
            return LAR_OK;
        }
        if (b && b->kind == LAR_QUERY_ARG_KEYPATH)
            return lar_fail(LAR_EINVAL, "argument %ld is a key path, but is used as a value at column %d",
                            e->as.arg.index, e->column);
        e->shape = (shape){.type = b && b->kind == LAR_QUERY_ARG_VALUE ? b->value.type : LAR_TYPE_NULL,
                           .many = b && b->kind == LAR_QUERY_ARG_LIST};
        return LAR_OK;
    }
    }
    return LAR_OK;
}

static bool is_path(const expr *e)
{
    return e->kind == EXPR_KEYPATH || e->kind == EXPR_SUBQUERY || (e->kind == EXPR_ARGUMENT && e->as.arg.keypath);
}

/* The bound argument of e, if e is a bound value or list argument. */
static const bound_arg *bound(resolver *r, const expr *e)
{
    if (e->kind != EXPR_ARGUMENT || e->as.arg.keypath || !r->q->args) return NULL;
    const bound_arg *b = &r->q->args[e->as.arg.index];
    return b->kind ? b : NULL;
}

/* Checks the value side v of a comparison with path. */
static int check_side(resolver *r, const pred *x, const expr *path, const expr *v, bool list_allowed)
{
    cmp_op op = x->as.cmp.op;
    if (v->kind == EXPR_CONSTANT) {
        if (list_allowed && (op == OP_IN || op == OP_BETWEEN))
            return lar_fail(LAR_EINVAL, "%s needs a list {...} or a list argument at column %d", op_names[op], v->column);
        /* A number compared with a decimal128 property is read as a decimal128, from its
         * text, as realm-core does: 0.1 means exactly 0.1, not the double nearest to it. */
        lar_type t = v->as.constant.type;
        if (path->shape.type == LAR_TYPE_DECIMAL128 && !path->shape.type_name && v->text &&
            (t == LAR_TYPE_INT || t == LAR_TYPE_DOUBLE || t == LAR_TYPE_FLOAT)) {
            size_t size = v->text_size;
            if (size && (v->text[size - 1] == 'f' || v->text[size - 1] == 'F') && t == LAR_TYPE_FLOAT) size--;
            lar_decimal128 d;
            bool exact = literal_decimal(v->text, size, &d);
            if (!exact && t == LAR_TYPE_INT) { /* 0x10 */
                int64_t i = v->as.constant.as.integer;
                uint64_t magnitude = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
                d.low = magnitude;
                d.high = (i < 0 ? (uint64_t)1 << 63 : 0) | (uint64_t)6176 << 49;
                exact = true;
            }
            if (!exact) { /* kept as a double, it would describe as text that reads as a decimal128 */
                char path_buf[160];
                path_text(r, path, path_buf, sizeof path_buf);
                return lar_fail(LAR_EINVAL, "number %.*s has no exact decimal128 (at most 34 significant digits) to "
                                "compare with decimal128 property '%s' at column %d", (int)v->text_size, v->text,
                                path_buf, v->column);
            }
            expr *mutable_v = (expr *)v;
            mutable_v->as.constant.type = LAR_TYPE_DECIMAL128;
            mutable_v->as.constant.as.decimal128 = d;
            mutable_v->shape.type = LAR_TYPE_DECIMAL128;
        }
        return check_value(r, x, path, &v->as.constant, -1, path->column);
    }
    if (v->kind == EXPR_LIST) {
        if (!list_allowed)
            return lar_fail(LAR_EINVAL, "a list {...} can only follow IN or BETWEEN at column %d", v->column);
        if (op == OP_BETWEEN && v->as.list.count != 2)
            return lar_fail(LAR_EINVAL, "BETWEEN needs a list of two values {a, b} at column %d", v->column);
        for (size_t i = 0; i < v->as.list.count; i++) {
            expr *item = v->as.list.items[i];
            TRY(resolve_expr(r, item));
            TRY(check_side(r, x, path, item, false));
        }
        return LAR_OK;
    }
    const bound_arg *b = bound(r, v);
    if (!b) return LAR_OK; /* checked when bound */
    long index = v->as.arg.index;
    if (b->kind == LAR_QUERY_ARG_LIST) {
        if (!list_allowed)
            return lar_fail(LAR_EINVAL, "argument %ld is a list, but only IN and BETWEEN take one at column %d", index,
                            v->column);
        if (op == OP_BETWEEN && b->list_count != 2)
            return lar_fail(LAR_EINVAL, "BETWEEN needs a list of two values, but argument %ld has %zu at column %d", index,
                            b->list_count, v->column);
        for (size_t i = 0; i < b->list_count; i++) TRY(check_value(r, x, path, &b->list[i], index, path->column));
        return LAR_OK;
    }
    if (list_allowed && (op == OP_IN || op == OP_BETWEEN))
        return lar_fail(LAR_EINVAL, "%s needs a list, but argument %ld is a single value at column %d", op_names[op], index,
                        v->column);
    return check_value(r, x, path, &b->value, index, path->column);
}

static int resolve_compare(resolver *r, pred *x)
{
    expr *left = x->as.cmp.left, *right = x->as.cmp.right;
    cmp_op op = x->as.cmp.op;
    TRY(resolve_expr(r, left));
    if (right->kind != EXPR_LIST) TRY(resolve_expr(r, right));
    bool lp = is_path(left), rp = is_path(right);
    if (x->as.cmp.quant != QUANT_NONE_GIVEN) {
        if (!lp || !left->shape.many)
            return lar_fail(LAR_EINVAL, "%s needs a key path through a collection on the left at column %d",
                            x->as.cmp.quant == QUANT_ALL ? "ALL" : x->as.cmp.quant == QUANT_NONE ? "NONE" : "ANY",
                            x->as.cmp.quant_column);
    }
    if (!lp && !rp)
        return lar_fail(LAR_EINVAL, "a comparison needs a key path on one side at column %d", left->column);
    if (lp && rp) {
        if (left->shape.many && right->shape.many)
            return lar_fail(LAR_EINVAL, "Comparing two collection columns is not permitted at column %d", left->column);
        if (op == OP_BETWEEN)
            return lar_fail(LAR_EINVAL, "BETWEEN needs a list {a, b} on its right at column %d", right->column);
        const shape *a = &left->shape, *b = &right->shape;
        bool ok = a->type == LAR_TYPE_MIXED || b->type == LAR_TYPE_MIXED || (numeric(a->type) && numeric(b->type)) ||
                  (a->type == b->type && a->type_name == b->type_name);
        if (ok && a->type == LAR_TYPE_LINK && b->type == LAR_TYPE_LINK && a->link_class != b->link_class) ok = false;
        if (ok && string_op(op)) ok = (a->type == LAR_TYPE_STRING || a->type == LAR_TYPE_BINARY || a->type == LAR_TYPE_MIXED);
        if (ok && ordering_op(op)) ok = a->type != LAR_TYPE_BOOL && a->type != LAR_TYPE_LINK;
        if (ok && op == OP_IN && !right->shape.many)
            return lar_fail(LAR_EINVAL, "IN needs a list or a collection on its right at column %d", right->column);
        if (!ok) {
            char pa[160], pb[160], ta[64], tb[64];
            return lar_fail(LAR_EINVAL, "cannot compare %s property '%s' with %s property '%s' using %s at column %d",
                            shape_type(a, ta, sizeof ta), path_text(r, left, pa, sizeof pa),
                            shape_type(b, tb, sizeof tb), path_text(r, right, pb, sizeof pb), op_names[op], left->column);
        }
    } else if (lp) {
        if (string_op(op) || x->as.cmp.options) {
            const shape *s = &left->shape;
            if (s->type != LAR_TYPE_STRING && s->type != LAR_TYPE_BINARY && s->type != LAR_TYPE_MIXED) {
                char pbuf[160], tbuf[64];
                return lar_fail(LAR_EINVAL, "%s%s needs a string property, but '%s' is %s at column %d", op_names[op],
                                x->as.cmp.options ? " with [c] or [d]" : "", path_text(r, left, pbuf, sizeof pbuf),
                                shape_type(s, tbuf, sizeof tbuf), x->as.cmp.op_column);
            }
        }
        if (op == OP_BETWEEN) {
            const shape *s = &left->shape;
            if (!numeric(s->type) && s->type != LAR_TYPE_TIMESTAMP && s->type != LAR_TYPE_MIXED) {
                char pbuf[160], tbuf[64];
                return lar_fail(LAR_EINVAL, "BETWEEN needs a number or a timestamp, but '%s' is %s at column %d",
                                path_text(r, left, pbuf, sizeof pbuf), shape_type(s, tbuf, sizeof tbuf), x->as.cmp.op_column);
            }
        }
        if (op != OP_IN && op != OP_BETWEEN && left->shape.collection != LAR_COLLECTION_NONE && left->shape.type == LAR_TYPE_LINK &&
            !x->as.cmp.quant && right->kind == EXPR_CONSTANT && right->as.constant.type == LAR_TYPE_NULL) {
            /* "dogs == nil" has no meaning for a list of objects. */
            char pbuf[160];
            return lar_fail(LAR_EINVAL, "a list or set of objects '%s' is never nil at column %d",
                            path_text(r, left, pbuf, sizeof pbuf), left->column);
        }
        TRY(check_side(r, x, left, right, op == OP_IN || op == OP_BETWEEN));
    } else {
        /* A value on the left: "5 IN list", "'x' == name". */
        if (op == OP_IN) {
            if (!right->shape.many)
                return lar_fail(LAR_EINVAL, "IN needs a list or a collection on its right at column %d", right->column);
            pred swapped = *x;
            swapped.as.cmp.op = OP_EQ;
            TRY(check_side(r, &swapped, right, left, false));
        } else if (op == OP_BETWEEN || string_op(op)) {
            return lar_fail(LAR_EINVAL, "%s needs a key path on its left at column %d", op_names[op], left->column);
        } else {
            if (left->kind == EXPR_LIST)
                return lar_fail(LAR_EINVAL, "a list {...} can only follow IN or BETWEEN at column %d", left->column);
            TRY(check_side(r, x, right, left, false));
        }
    }
    return LAR_OK;
}

static int resolve_pred(resolver *r, pred *x)
{
    switch (x->kind) {
    case PRED_TRUE: case PRED_FALSE:
        return LAR_OK;
    case PRED_AND: case PRED_OR:
        for (size_t i = 0; i < x->as.list.count; i++) TRY(resolve_pred(r, x->as.list.items[i]));
        return LAR_OK;
    case PRED_NOT:
        return resolve_pred(r, x->as.operand);
    case PRED_COMPARE:
        return resolve_compare(r, x);
    }
    return LAR_OK;
}

int query_resolve(lar_query *q)
{
    resolver r;
    q->resolved = false;
    q->value_checked_args = false;
    TRY(resolver_start(q, &r));
    TRY(resolve_pred(&r, q->root));
    if (q->values && q->order_count)
        return lar_fail(LAR_EINVAL, "SORT, DISTINCT and LIMIT do not apply to a query over values at column %d",
                        q->orders[0].column);
    for (size_t i = 0; i < q->order_count; i++) {
        order *o = &q->orders[i];
        for (size_t j = 0; j < o->count; j++) {
            expr *e = o->items[j].path;
            TRY(resolve_path(&r, e));
            if (e->shape.many || e->shape.type_name) {
                char pbuf[160];
                return lar_fail(LAR_EINVAL, "cannot %s by '%s': it is a collection at column %d",
                                o->kind == ORDER_SORT ? "SORT" : "DISTINCT", path_text(&r, e, pbuf, sizeof pbuf), e->column);
            }
            if (e->shape.type == LAR_TYPE_LINK) {
                char pbuf[160];
                return lar_fail(LAR_EINVAL, "cannot %s by '%s': it is a link at column %d",
                                o->kind == ORDER_SORT ? "SORT" : "DISTINCT", path_text(&r, e, pbuf, sizeof pbuf), e->column);
            }
        }
    }
    q->resolved = true;
    return LAR_OK;
}

int query_resolve_keypath(lar_query *q, const lar_schema *schema, expr *e)
{
    resolver r = {.q = q, .schema = schema};
    return resolve_path(&r, e);
}
