/* The query builder: an AST made by calls instead of text (the Swift where {} DSL).
 * A stack of expressions and predicates, as an RPN calculator; lar_query_finish()
 * hands the one predicate left to the parser's resolver. Nodes live in the query's
 * arena, the stack in the builder; the first failure sticks, so a caller may check
 * only the finish. */
#include "query/query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct item {
    bool is_pred;
    union { expr *e; pred *p; } as;
    int depth;             /* nesting of NOT, AND/OR and subqueries, as the text would nest */
} item;

struct query_builder {
    item *items;
    size_t count, capacity;
    int failed;            /* the sticky error's code, 0 while none */
    char message[512];
};

#define TRY(expr) do { int rc_ = (expr); if (rc_ != LAR_OK) return rc_; } while (0)

void query_builder_free(lar_query *q)
{
    if (!q->builder) return;
    free(q->builder->items);
    free(q->builder);
    q->builder = NULL;
}

/* Records the error that lar_fail just set, so that every later call repeats it. */
static int stick(lar_query *q, int rc)
{
    struct query_builder *b = q->builder;
    b->failed = rc;
    snprintf(b->message, sizeof b->message, "%s", lar_error_last()->message);
    return rc;
}

/* The first check of every builder call. */
static int usable(lar_query *q, const char *function)
{
    if (!q) return lar_fail(LAR_EINVAL, "%s: NULL query", function);
    if (!q->builder)
        return lar_fail(LAR_EINVAL, "%s: the query is not being built (parsed, or finished already)", function);
    if (q->builder->failed) return lar_fail(q->builder->failed, "%s", q->builder->message);
    return LAR_OK;
}

#define ENTER(q, function) TRY(usable((q), (function)))
#define FAIL(q, code, ...) stick((q), lar_fail((code), __VA_ARGS__))
#define OOM(q) FAIL((q), LAR_ENOMEM, "out of memory")

static int push(lar_query *q, item it)
{
    struct query_builder *b = q->builder;
    if (b->count == b->capacity) {
        size_t capacity = b->capacity ? b->capacity * 2 : 16;
        item *items = realloc(b->items, capacity * sizeof *items);
        if (!items) return OOM(q);
        b->items = items;
        b->capacity = capacity;
    }
    b->items[b->count++] = it;
    return LAR_OK;
}

static int push_expr(lar_query *q, expr *e, int depth)
{
    return push(q, (item){.is_pred = false, .as.e = e, .depth = depth});
}

static int push_pred(lar_query *q, pred *p, int depth)
{
    if (depth > QUERY_MAX_DEPTH) return FAIL(q, LAR_EINVAL, "the query nests deeper than %d levels", QUERY_MAX_DEPTH);
    return push(q, (item){.is_pred = true, .as.p = p, .depth = depth});
}

/* The item n places below the top (0: the top), or NULL when the stack is shorter. */
static item *peek(lar_query *q, size_t n)
{
    struct query_builder *b = q->builder;
    return n < b->count ? &b->items[b->count - 1 - n] : NULL;
}

/* Fails unless the top count items are predicates. */
static int need_preds(lar_query *q, size_t count, const char *function)
{
    for (size_t i = 0; i < count; i++) {
        item *it = peek(q, i);
        if (!it || !it->is_pred)
            return FAIL(q, LAR_EINVAL, "%s: needs %zu predicate%s on top of the stack", function, count, count == 1 ? "" : "s");
    }
    return LAR_OK;
}

static expr *new_expr(lar_query *q, expr_kind kind)
{
    expr *e = arena_alloc(&q->arena, sizeof *e);
    if (e) {
        e->kind = kind;
        if (kind == EXPR_KEYPATH) e->as.path.keypath_arg = -1;
    }
    return e;
}

static pred *new_pred(lar_query *q, pred_kind kind)
{
    pred *x = arena_alloc(&q->arena, sizeof *x);
    if (x) x->kind = kind;
    return x;
}

int lar_query_new(lar_env *env, lar_class cls, lar_query **out)
{
    if (out) *out = NULL;
    if (!env || !out) return lar_fail(LAR_EINVAL, "lar_query_new: NULL argument");
    lar_class_info info;
    if (lar_class_info_get(env, cls, &info) != LAR_OK)
        return lar_fail(LAR_EINVAL, "lar_query_new: unknown class %u", (unsigned)cls);
    lar_query *q = calloc(1, sizeof *q);
    if (!q) return lar_fail(LAR_ENOMEM, "out of memory");
    q->env = env;
    q->cls = cls;
    return query_build_new(q, out);
}

int query_build_new(lar_query *q, lar_query **out)
{
    q->builder = calloc(1, sizeof *q->builder);
    if (!q->builder) {
        lar_query_free(q);
        return lar_fail(LAR_ENOMEM, "out of memory");
    }
    *out = q;
    return LAR_OK;
}

/* ---- key paths ---- */

/* Built key paths name no column: messages then end in " at column 0", dropped at finish. */
static void clear_columns(expr *e)
{
    e->column = 0;
    e->as.path.agg_column = 0;
    for (size_t i = 0; i < e->as.path.count; i++) e->as.path.steps[i].column = 0;
}

int lar_query_push_keypath(lar_query *q, const char *text)
{
    ENTER(q, "lar_query_push_keypath");
    if (!text) return FAIL(q, LAR_EINVAL, "lar_query_push_keypath: NULL key path");
    size_t n = strlen(text);
    if (!utf8_valid(text, n)) return FAIL(q, LAR_EINVAL, "key path \"%.60s\" is not valid UTF-8", text);
    char *copy = arena_strndup(&q->arena, text, n);
    if (!copy) return OOM(q);
    expr *e;
    int rc = query_parse_path(q, copy, true, &e);
    if (rc != LAR_OK) {
        char message[400];
        snprintf(message, sizeof message, "%s", lar_error_last()->message);
        return FAIL(q, rc, "in key path \"%.60s\": %s", text, message);
    }
    clear_columns(e);
    return push_expr(q, e, 0);
}

int lar_query_push_path(lar_query *q)
{
    ENTER(q, "lar_query_push_path");
    expr *e = new_expr(q, EXPR_KEYPATH);
    return e ? push_expr(q, e, 0) : OOM(q);
}

/* The key path on top of the stack, which must not end in an aggregate. */
static int top_path(lar_query *q, const char *function, expr **out)
{
    item *it = peek(q, 0);
    if (!it || it->is_pred || it->as.e->kind != EXPR_KEYPATH)
        return FAIL(q, LAR_EINVAL, "%s: needs a key path on top of the stack", function);
    if (it->as.e->as.path.agg != AGG_NONE)
        return FAIL(q, LAR_EINVAL, "%s: nothing may follow an aggregate in a key path", function);
    *out = it->as.e;
    return LAR_OK;
}

static bool identifier(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9')) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')) return false;
    return true;
}

typedef enum name_rule { NAME_NONEMPTY, NAME_ANY, NAME_IDENTIFIER } name_rule;

/* Copies a step's name: present, valid UTF-8, and as rule asks (a map key may be empty). */
static int step_name(lar_query *q, const char *name, name_rule rule, const char **out)
{
    if (!name) return FAIL(q, LAR_EINVAL, "lar_query_path_append: this step needs a name");
    size_t n = strlen(name);
    bool variable = rule == NAME_IDENTIFIER;
    if (variable ? !identifier(name) : ((n == 0 && rule == NAME_NONEMPTY) || !utf8_valid(name, n)))
        return FAIL(q, LAR_EINVAL, "lar_query_path_append: bad %s \"%.60s\"", variable ? "variable" : "name", name);
    *out = arena_strndup(&q->arena, name, n);
    return *out ? LAR_OK : OOM(q);
}

/* Grows a path's steps by one (arena copies: paths are short). */
static path_step *add_step(lar_query *q, expr *e)
{
    size_t n = e->as.path.count;
    path_step *steps = arena_alloc(&q->arena, (n + 1) * sizeof *steps);
    if (!steps) return NULL;
    if (n) memcpy(steps, e->as.path.steps, n * sizeof *steps);
    e->as.path.steps = steps;
    e->as.path.count = n + 1;
    return &steps[n];
}

int lar_query_path_append(lar_query *q, lar_query_step step, const char *name, const char *class_name)
{
    ENTER(q, "lar_query_path_append");
    expr *e;
    TRY(top_path(q, "lar_query_path_append", &e));
    if ((unsigned)step > LAR_QUERY_STEP_TYPE)
        return FAIL(q, LAR_EINVAL, "lar_query_path_append: unknown step %d", (int)step);
    if ((step == LAR_QUERY_STEP_VARIABLE || step == LAR_QUERY_STEP_BACKLINK) && e->as.path.count)
        return FAIL(q, LAR_EINVAL, "lar_query_path_append: a %s must begin a key path",
                    step == LAR_QUERY_STEP_VARIABLE ? "variable" : "backlink");
    const char *copy = NULL, *class_copy = NULL;
    switch (step) {
    case LAR_QUERY_STEP_PROPERTY:
        TRY(step_name(q, name, NAME_NONEMPTY, &copy));
        break;
    case LAR_QUERY_STEP_KEY:
        TRY(step_name(q, name, NAME_ANY, &copy));
        break;
    case LAR_QUERY_STEP_VARIABLE:
        TRY(step_name(q, name, NAME_IDENTIFIER, &copy));
        break;
    case LAR_QUERY_STEP_BACKLINK:
        if (!name && !class_name) { /* @links.@count: every link into the object */
            e->as.path.agg = AGG_COUNT;
            break;
        }
        TRY(step_name(q, name, NAME_NONEMPTY, &copy));
        TRY(step_name(q, class_name, NAME_NONEMPTY, &class_copy));
        break;
    default:
        break;
    }
    path_step *s = add_step(q, e);
    if (!s) return OOM(q);
    s->kind = (step_kind)step;
    s->name = copy;
    s->class_name = class_copy;
    return LAR_OK;
}

int lar_query_path_aggregate(lar_query *q, lar_query_aggregate agg)
{
    ENTER(q, "lar_query_path_aggregate");
    expr *e;
    TRY(top_path(q, "lar_query_path_aggregate", &e));
    if ((unsigned)agg < LAR_QUERY_COUNT || (unsigned)agg > LAR_QUERY_AVG)
        return FAIL(q, LAR_EINVAL, "lar_query_path_aggregate: unknown aggregate %d", (int)agg);
    e->as.path.agg = (aggregate)agg;
    return LAR_OK;
}

/* ---- values ---- */

int lar_query_push_value(lar_query *q, const lar_value *value)
{
    ENTER(q, "lar_query_push_value");
    if (!value) return FAIL(q, LAR_EINVAL, "lar_query_push_value: NULL value");
    if (value->type == LAR_TYPE_TIMESTAMP) { /* as the parser refuses it in text */
        lar_timestamp ts = value->as.timestamp;
        if (ts.nanoseconds > 999999999 || ts.nanoseconds < -999999999 || (ts.seconds > 0 && ts.nanoseconds < 0) ||
            (ts.seconds < 0 && ts.nanoseconds > 0))
            return FAIL(q, LAR_EINVAL, "bad timestamp: nanoseconds must be within +-999999999 and of the seconds' sign");
    }
    expr *e = new_expr(q, EXPR_CONSTANT);
    if (!e) return OOM(q);
    int rc = query_copy_value(q, value, &e->literal, "value");
    if (rc != LAR_OK) return stick(q, rc);
    e->as.constant = e->literal;
    if (value->type == LAR_TYPE_INT || value->type == LAR_TYPE_FLOAT || value->type == LAR_TYPE_DOUBLE) {
        /* Its canonical text, which the resolver reads as a decimal128 where it meets
         * one, as it reads the number in the text the query describes as. */
        char text[64];
        text_out o = {text, sizeof text, 0};
        out_value(&o, value, q->env);
        if (o.length >= sizeof text || !(e->text = arena_strndup(&q->arena, text, o.length))) return OOM(q);
        e->text_size = o.length;
    }
    return push_expr(q, e, 0);
}

int lar_query_push_argument(lar_query *q, size_t index)
{
    ENTER(q, "lar_query_push_argument");
    if (index >= QUERY_MAX_ARGS)
        return FAIL(q, LAR_EINVAL, "lar_query_push_argument: index %zu is above the highest, %d", index, QUERY_MAX_ARGS - 1);
    expr *e = new_expr(q, EXPR_ARGUMENT);
    if (!e) return OOM(q);
    e->as.arg.index = (long)index;
    if ((long)index + 1 > q->arg_count) q->arg_count = (long)index + 1;
    return push_expr(q, e, 0);
}

int lar_query_push_list(lar_query *q, size_t count)
{
    ENTER(q, "lar_query_push_list");
    for (size_t i = 0; i < count; i++) {
        item *it = peek(q, i);
        if (!it || it->is_pred || (it->as.e->kind != EXPR_CONSTANT && it->as.e->kind != EXPR_ARGUMENT))
            return FAIL(q, LAR_EINVAL, "lar_query_push_list: needs %zu values or arguments on top of the stack", count);
    }
    expr *e = new_expr(q, EXPR_LIST);
    if (!e) return OOM(q);
    if (count) {
        e->as.list.items = arena_alloc(&q->arena, count * sizeof *e->as.list.items);
        if (!e->as.list.items) return OOM(q);
    }
    struct query_builder *b = q->builder;
    b->count -= count;
    for (size_t i = 0; i < count; i++) e->as.list.items[i] = b->items[b->count + i].as.e;
    e->as.list.count = count;
    return push_expr(q, e, 0);
}

int lar_query_subquery(lar_query *q, const char *variable)
{
    ENTER(q, "lar_query_subquery");
    if (!variable || !identifier(variable))
        return FAIL(q, LAR_EINVAL, "lar_query_subquery: bad variable \"%.60s\"", variable ? variable : "(null)");
    TRY(need_preds(q, 1, "lar_query_subquery"));
    item *path = peek(q, 1);
    if (!path || path->is_pred || path->as.e->kind != EXPR_KEYPATH)
        return FAIL(q, LAR_EINVAL, "lar_query_subquery: needs a key path below the predicate");
    if (path->as.e->as.path.agg != AGG_NONE)
        return FAIL(q, LAR_EINVAL, "a SUBQUERY's collection cannot end in an aggregate");
    expr *e = new_expr(q, EXPR_SUBQUERY);
    if (!e || !(e->as.subquery.variable = arena_strndup(&q->arena, variable, strlen(variable)))) return OOM(q);
    item *body = peek(q, 0);
    int depth = body->depth + 1;
    if (depth > QUERY_MAX_DEPTH) return FAIL(q, LAR_EINVAL, "the query nests deeper than %d levels", QUERY_MAX_DEPTH);
    e->as.subquery.collection = path->as.e;
    e->as.subquery.predicate = body->as.p;
    q->builder->count -= 2;
    return push_expr(q, e, depth);
}

/* ---- predicates ---- */

int lar_query_push_truth(lar_query *q, int truth)
{
    ENTER(q, "lar_query_push_truth");
    pred *x = new_pred(q, truth ? PRED_TRUE : PRED_FALSE);
    return x ? push_pred(q, x, 0) : OOM(q);
}

int lar_query_compare(lar_query *q, lar_query_op op, unsigned int options, lar_query_quantifier quant)
{
    ENTER(q, "lar_query_compare");
    if ((unsigned)op > LAR_QUERY_BETWEEN) return FAIL(q, LAR_EINVAL, "lar_query_compare: unknown operator %d", (int)op);
    if ((unsigned)quant > LAR_QUERY_NONE)
        return FAIL(q, LAR_EINVAL, "lar_query_compare: unknown quantifier %d", (int)quant);
    if (options & ~(LAR_QUERY_CASE_INSENSITIVE | LAR_QUERY_DIACRITIC_INSENSITIVE))
        return FAIL(q, LAR_EINVAL, "lar_query_compare: unknown options 0x%x", options);
    if (options && (op == LAR_QUERY_LT || op == LAR_QUERY_LE || op == LAR_QUERY_GT || op == LAR_QUERY_GE ||
                    op == LAR_QUERY_BETWEEN))
        return FAIL(q, LAR_EINVAL, "options [c] and [d] apply only to ==, !=, IN and the string operators");
    item *right = peek(q, 0), *left = peek(q, 1);
    if (!left || left->is_pred || right->is_pred)
        return FAIL(q, LAR_EINVAL, "lar_query_compare: needs two expressions on top of the stack");
    pred *x = new_pred(q, PRED_COMPARE);
    if (!x) return OOM(q);
    x->as.cmp.op = (cmp_op)op;
    x->as.cmp.options = options;
    x->as.cmp.quant = (quantifier)quant;
    x->as.cmp.left = left->as.e;
    x->as.cmp.right = right->as.e;
    int depth = left->depth > right->depth ? left->depth : right->depth;
    q->builder->count -= 2;
    return push_pred(q, x, depth);
}

/* Appends item to chain, flattening a chain of the same kind as the parser does. */
static int append_operand(lar_query *q, pred *chain, pred *x, size_t *capacity)
{
    if (x->kind == chain->kind) {
        for (size_t i = 0; i < x->as.list.count; i++) TRY(append_operand(q, chain, x->as.list.items[i], capacity));
        return LAR_OK;
    }
    if (chain->as.list.count == *capacity) {
        *capacity = *capacity ? *capacity * 2 : 4;
        pred **items = arena_alloc(&q->arena, *capacity * sizeof *items);
        if (!items) return OOM(q);
        if (chain->as.list.count) memcpy(items, chain->as.list.items, chain->as.list.count * sizeof *items);
        chain->as.list.items = items;
    }
    chain->as.list.items[chain->as.list.count++] = x;
    return LAR_OK;
}

static int chain(lar_query *q, pred_kind kind, size_t count, const char *function)
{
    ENTER(q, function);
    if (count == 0) return FAIL(q, LAR_EINVAL, "%s: needs at least one predicate", function);
    TRY(need_preds(q, count, function));
    if (count == 1) return LAR_OK;
    pred *x = new_pred(q, kind);
    if (!x) return OOM(q);
    struct query_builder *b = q->builder;
    size_t capacity = 0, first = b->count - count;
    int depth = 0;
    for (size_t i = first; i < b->count; i++) {
        TRY(append_operand(q, x, b->items[i].as.p, &capacity));
        if (b->items[i].depth > depth) depth = b->items[i].depth;
    }
    b->count = first;
    return push_pred(q, x, depth + 1);
}

int lar_query_and(lar_query *q, size_t count) { return chain(q, PRED_AND, count, "lar_query_and"); }

int lar_query_or(lar_query *q, size_t count) { return chain(q, PRED_OR, count, "lar_query_or"); }

int lar_query_not(lar_query *q)
{
    ENTER(q, "lar_query_not");
    TRY(need_preds(q, 1, "lar_query_not"));
    pred *x = new_pred(q, PRED_NOT);
    if (!x) return OOM(q);
    item *top = peek(q, 0);
    x->as.operand = top->as.p;
    q->builder->count--;
    return push_pred(q, x, top->depth + 1);
}

/* ---- finish ---- */

/* The resolver's message without the " at column 0" a built node gives it. */
static int without_column(int rc)
{
    char message[512];
    snprintf(message, sizeof message, "%s", lar_error_last()->message);
    static const char suffix[] = " at column 0";
    size_t n = strlen(message), s = sizeof suffix - 1;
    if (n >= s && strcmp(message + n - s, suffix) == 0) message[n - s] = 0;
    return lar_fail(rc, "%s", message);
}

int lar_query_finish(lar_query *q)
{
    ENTER(q, "lar_query_finish");
    struct query_builder *b = q->builder;
    if (b->count != 1 || !b->items[0].is_pred)
        return FAIL(q, LAR_EINVAL, "lar_query_finish: the stack must hold one predicate, it holds %zu item%s%s", b->count,
                    b->count == 1 ? "" : "s", b->count == 1 ? " (an expression)" : "");
    if (q->arg_count) {
        q->args = arena_alloc(&q->arena, (size_t)q->arg_count * sizeof *q->args);
        if (!q->args) return OOM(q);
    }
    q->root = b->items[0].as.p;
    int rc = query_resolve(q);
    if (rc != LAR_OK) {
        q->root = NULL;
        return stick(q, without_column(rc));
    }
    query_builder_free(q);
    return LAR_OK;
}
