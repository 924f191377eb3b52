/* Compiling a resolved query, once per run, into a tree of checks (plan.h).
 *
 * Each comparison becomes a node that knows, before the first row, what it reads and
 * how it compares: a property of the queried class read straight from its row slot
 * (a "slot" node, with a test function chosen for its type, operator and constant),
 * or a key path walked step by step (links, embedded objects, lists, sets, maps,
 * backlinks, subquery variables) into a vector of values, aggregated or quantified
 * (ANY, ALL, NONE), against constants or another key path. Constants compared with
 * [c] or [d] are folded once. No row looks at the query text or its AST again. */
#include "query/plan.h"

#include <stdlib.h>
#include <string.h>

static int unsupported(const char *what, int column)
{
    return lar_fail(LAR_EINVAL, "not supported yet: %s at column %d", what, column);
}

static void *alloc(plan *p, size_t size)
{
    void *x = arena_alloc(&p->arena, size);
    if (!x) lar_fail(LAR_ENOMEM, "out of memory compiling a query");
    return x;
}


/* ---- compiling ---- */

typedef struct scope {
    const char *variable;
    uint32_t depth;
    const struct scope *up;
} scope;

static int compile_pred(plan *p, const pred *x, const scope *sc, uint32_t depth, node **out);

static const expr *path_of(const lar_query *q, const expr *e)
{
    if (e->kind == EXPR_ARGUMENT && e->as.arg.keypath) return q->args[e->as.arg.index].path;
    return e;
}

static bool is_path(const expr *e)
{
    return e->kind == EXPR_KEYPATH || e->kind == EXPR_SUBQUERY || (e->kind == EXPR_ARGUMENT && e->as.arg.keypath);
}

static int track(plan *p, operand *o)
{
    if (p->operand_count == p->operand_capacity) {
        size_t capacity = p->operand_capacity ? p->operand_capacity * 2 : 16;
        operand **grown = realloc(p->operands, capacity * sizeof *grown);
        if (!grown) return lar_fail(LAR_ENOMEM, "out of memory compiling a query");
        p->operands = grown;
        p->operand_capacity = capacity;
    }
    p->operands[p->operand_count++] = o;
    return LAR_OK;
}

static int compile_step(plan *p, const expr *e, size_t i, const scope *sc, step_plan *out, size_t *used)
{
    const path_step *st = &e->as.path.steps[i];
    *used = 1;
    out->kind = st->kind;
    switch (st->kind) {
    case STEP_VARIABLE:
        while (sc && strcmp(sc->variable, st->name) != 0) sc = sc->up;
        if (!sc || i != 0) return unsupported("a subquery variable inside a key path", st->column);
        out->variable = sc->depth;
        return LAR_OK;
    case STEP_TYPE:
        if (i + 1 != e->as.path.count) return unsupported("@type inside a key path", st->column);
        return LAR_OK;
    case STEP_KEY: /* on a mixed value (after a map property, it is the map's part) */
        out->key = (lar_string){st->name, strlen(st->name)};
        return LAR_OK;
    case STEP_KEYS: case STEP_VALUES:
        return unsupported("@keys and @values on a mixed value (nested dictionaries)", st->column);
    case STEP_PROPERTY: case STEP_BACKLINK: break;
    }
    if (st->kind == STEP_BACKLINK && !st->class_name) {
        out->all_links = true;
        return LAR_OK;
    }
    out->cls = query_class_at(p->q, p->txn->schema, st->cls);
    if (!out->cls || st->prop >= out->cls->property_count)
        return lar_fail(LAR_EINVAL, "the schema changed since the query was parsed (column %d)", st->column);
    out->cls_id = st->cls;
    out->prop = st->prop;
    if (st->kind == STEP_BACKLINK) return LAR_OK;
    out->collection = out->cls->properties[st->prop].def.collection;
    if (out->collection == LAR_COLLECTION_MAP) {
        const path_step *after = i + 1 < e->as.path.count ? &e->as.path.steps[i + 1] : NULL;
        bool part = after && (after->kind == STEP_KEY || after->kind == STEP_KEYS || after->kind == STEP_VALUES);
        out->map_part = part ? after->kind : STEP_VALUES;
        if (part && after->kind == STEP_KEY) out->key = (lar_string){after->name, strlen(after->name)};
        *used = part ? 2 : 1;
    }
    return LAR_OK;
}

/* A key path (or %K) into an operand. */
static int compile_path(plan *p, const expr *e, const scope *sc, operand *o)
{
    o->kind = OPERAND_PATH;
    o->agg = e->as.path.agg;
    o->steps = alloc(p, (e->as.path.count + 1) * sizeof *o->steps);
    if (!o->steps) return LAR_ENOMEM;
    bool many = false;
    const lar_property_def *last = NULL;
    for (size_t i = 0; i < e->as.path.count;) {
        size_t used;
        step_plan *st = &o->steps[o->count++];
        TRY(compile_step(p, e, i, sc, st, &used));
        if (st->kind == STEP_TYPE) o->type_name = true;
        if (st->kind == STEP_BACKLINK || st->collection != LAR_COLLECTION_NONE) many = true;
        if (st->kind == STEP_PROPERTY) last = &st->cls->properties[st->prop].def;
        i += used;
    }
    if (o->agg == AGG_COUNT && !many) o->length = true;
    if (o->agg == AGG_NONE && last && o->steps[o->count - 1].kind == STEP_PROPERTY) o->value_type = last->type;
    return track(p, o);
}

static int compile_operand(plan *p, const expr *e, const scope *sc, uint32_t depth, operand *o)
{
    e = path_of(p->q, e);
    if (e->kind != EXPR_SUBQUERY) return compile_path(p, e, sc, o);
    o->kind = OPERAND_SUBQUERY;
    o->collection = alloc(p, sizeof *o->collection);
    if (!o->collection) return LAR_ENOMEM;
    TRY(compile_operand(p, e->as.subquery.collection, sc, depth, o->collection));
    scope inner = {e->as.subquery.variable, depth, sc};
    o->depth = depth;
    if (depth + 1 > p->variable_count) p->variable_count = depth + 1;
    TRY(compile_pred(p, e->as.subquery.predicate, &inner, depth + 1, &o->predicate));
    return track(p, o);
}

/* The constants a value expression stands for: a literal, a list, or a bound argument. */
static int compile_constants(plan *p, const expr *e, operand *o)
{
    o->kind = OPERAND_CONSTANTS;
    if (e->kind == EXPR_CONSTANT) {
        o->constants = &e->as.constant;
        o->constant_count = 1;
        return LAR_OK;
    }
    if (e->kind == EXPR_ARGUMENT) {
        const bound_arg *b = &p->q->args[e->as.arg.index];
        if (b->kind == LAR_QUERY_ARG_LIST) {
            o->constants = b->list;
            o->constant_count = b->list_count;
        } else {
            o->constants = &b->value;
            o->constant_count = 1;
        }
        return LAR_OK;
    }
    lar_value *items = alloc(p, (e->as.list.count + 1) * sizeof *items);
    if (!items) return LAR_ENOMEM;
    for (size_t i = 0; i < e->as.list.count; i++) {
        operand one = {0};
        TRY(compile_constants(p, e->as.list.items[i], &one));
        if (one.constant_count != 1) return unsupported("a list argument inside a list {...}", e->column);
        items[i] = one.constants[0];
    }
    o->constants = items;
    o->constant_count = e->as.list.count;
    return LAR_OK;
}

/* Constants of another type than the property they are compared with take its type,
 * as realm-core converts them: a string compared with a binary property is its bytes,
 * a double compared with a float property is the nearest float. */
static int convert_constants(plan *p, operand *right, lar_type type)
{
    if (type != LAR_TYPE_BINARY && type != LAR_TYPE_FLOAT) return LAR_OK;
    lar_value *items = alloc(p, (right->constant_count + 1) * sizeof *items);
    if (!items) return LAR_ENOMEM;
    for (size_t i = 0; i < right->constant_count; i++) {
        items[i] = right->constants[i];
        if (type == LAR_TYPE_BINARY && items[i].type == LAR_TYPE_STRING) {
            lar_string bytes = items[i].as.string;
            items[i] = (lar_value){.type = LAR_TYPE_BINARY, .as.binary = {bytes.data, bytes.size}};
        } else if (type == LAR_TYPE_FLOAT && items[i].type == LAR_TYPE_DOUBLE) {
            double d = items[i].as.float64;
            items[i] = (lar_value){.type = LAR_TYPE_FLOAT, .as.float32 = (float)d};
        }
    }
    right->constants = items;
    return LAR_OK;
}

/* Folds string constants once for [c] and [d]. */
static int fold_constants(plan *p, node *n)
{
    if (!n->options || n->right.kind != OPERAND_CONSTANTS) return LAR_OK;
    n->folded = alloc(p, (n->right.constant_count + 1) * sizeof *n->folded);
    if (!n->folded) return LAR_ENOMEM;
    for (size_t i = 0; i < n->right.constant_count; i++) {
        const lar_value *c = &n->right.constants[i];
        n->folded[i] = *c;
        if (c->type != LAR_TYPE_STRING) continue;
        TRY(text_fold(c->as.string.data ? c->as.string.data : "", c->as.string.size, n->options, &p->fold_a));
        char *copy = arena_strndup(&p->arena, (const char *)p->fold_a.data, p->fold_a.size);
        if (!copy) return lar_fail(LAR_ENOMEM, "out of memory compiling a query");
        n->folded[i].as.string = (lar_string){copy, p->fold_a.size};
    }
    return LAR_OK;
}

static cmp_op mirror(cmp_op op)
{
    switch (op) {
    case OP_LT: return OP_GT;
    case OP_LE: return OP_GE;
    case OP_GT: return OP_LT;
    case OP_GE: return OP_LE;
    default: return op;
    }
}

/* A property of the queried class against constants: read from its slot. */
static void try_slot(plan *p, node *n)
{
    const operand *o = &n->left;
    if (o->kind != OPERAND_PATH || o->count != 1 || o->agg != AGG_NONE || o->type_name || n->many ||
        n->right.kind != OPERAND_CONSTANTS)
        return;
    const step_plan *st = &o->steps[0];
    if (st->kind != STEP_PROPERTY || st->cls != p->cls || st->collection != LAR_COLLECTION_NONE) return;
    const schema_property *prop = &p->cls->properties[st->prop];
    n->kind = NODE_SLOT;
    n->prop = st->prop;
    n->offset = prop->slot_offset;
    n->type = prop->def.type;
    n->in_bitmap = p->cls->has_optional && prop->def.type != LAR_TYPE_MIXED && (prop->def.flags & LAR_PROP_OPTIONAL);
}

/* A path that starts at a to-one link of the queried class (owner.age, owner.address.city)
 * against constants: its answer depends only on the object the link reaches, so it is
 * kept per target for the rest of the run (eval.c, link_memo.h). */
static void try_memo(plan *p, node *n)
{
    operand *o = &n->left;
    if (n->kind != NODE_COMPARE || n->right.kind != OPERAND_CONSTANTS || o->kind != OPERAND_PATH || o->count < 2)
        return;
    const step_plan *st = &o->steps[0];
    if (st->kind != STEP_PROPERTY || st->cls != p->cls || st->collection != LAR_COLLECTION_NONE) return;
    const schema_property *prop = &p->cls->properties[st->prop];
    if (prop->def.type != LAR_TYPE_LINK) return;
    o->memoized = true;
    n->prop = st->prop;
    n->offset = prop->slot_offset;
    n->in_bitmap = p->cls->has_optional;
}

static int compile_compare(plan *p, const pred *x, const scope *sc, uint32_t depth, node *n)
{
    const expr *left = x->as.cmp.left, *right = x->as.cmp.right;
    n->kind = NODE_COMPARE;
    n->op = x->as.cmp.op;
    n->options = x->as.cmp.options;
    n->quant = x->as.cmp.quant;
    if (!is_path(left)) { /* a value on the left: "5 IN scores", "3 < age" */
        const expr *t = left;
        left = right;
        right = t;
        n->op = n->op == OP_IN ? OP_EQ : mirror(n->op);
    }
    TRY(compile_operand(p, left, sc, depth, &n->left));
    n->many = path_of(p->q, left)->shape.many;
    if (is_path(right)) {
        TRY(compile_operand(p, right, sc, depth, &n->right));
        if (n->op == OP_BETWEEN) return unsupported("BETWEEN with a key path", x->column);
    } else {
        TRY(compile_constants(p, right, &n->right));
        if (!string_op(n->op)) TRY(convert_constants(p, &n->right, n->left.value_type));
    }
    TRY(fold_constants(p, n));
    try_slot(p, n);
    try_memo(p, n);
    if (n->right.kind == OPERAND_CONSTANTS) {
        if (n->folded && n->right.constant_count == 1 && n->folded[0].type == LAR_TYPE_STRING)
            n->needle = ascii_needle_of(n->folded[0].as.string.data, n->folded[0].as.string.size, n->options & OPT_CASE);
        n->test = plan_choose_test(n, n->kind == NODE_SLOT ? n->type : LAR_TYPE_NULL);
        if (n->right.constant_count == 1) {
            n->integer = n->right.constants[0].as.integer;
            n->real = n->right.constants[0].as.float64;
        }
        n->int_test = n->kind == NODE_SLOT && plan_is_int_test(n->test);
    }
    return LAR_OK;
}

static int compile_pred(plan *p, const pred *x, const scope *sc, uint32_t depth, node **out)
{
    node *n = alloc(p, sizeof *n);
    if (!n) return LAR_ENOMEM;
    *out = n;
    switch (x->kind) {
    case PRED_TRUE: n->kind = NODE_TRUE; return LAR_OK;
    case PRED_FALSE: n->kind = NODE_FALSE; return LAR_OK;
    case PRED_AND: case PRED_OR:
        n->kind = x->kind == PRED_AND ? NODE_AND : NODE_OR;
        n->count = x->as.list.count;
        n->kids = alloc(p, n->count * sizeof *n->kids);
        if (!n->kids) return LAR_ENOMEM;
        for (size_t i = 0; i < n->count; i++) TRY(compile_pred(p, x->as.list.items[i], sc, depth, &n->kids[i]));
        return LAR_OK;
    case PRED_NOT:
        n->kind = NODE_NOT;
        n->count = 1;
        n->kids = alloc(p, sizeof *n->kids);
        if (!n->kids) return LAR_ENOMEM;
        return compile_pred(p, x->as.operand, sc, depth, &n->kids[0]);
    case PRED_COMPARE: return compile_compare(p, x, sc, depth, n);
    }
    return LAR_OK;
}

void plan_free(plan *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->operand_count; i++) {
        free(p->operands[i]->a.items);
        free(p->operands[i]->a.holders);
        free(p->operands[i]->b.items);
        free(p->operands[i]->b.holders);
        link_memo_free(&p->operands[i]->memo);
    }
    free(p->operands);
    free(p->variables);
    free(p->variable_holders);
    buffer_free(&p->fold_a);
    buffer_free(&p->fold_b);
    arena_free(&p->arena);
    free(p);
}

int plan_compile(lar_txn *txn, const lar_query *q, plan **out)
{
    *out = NULL;
    plan *p = calloc(1, sizeof *p);
    if (!p) return lar_fail(LAR_ENOMEM, "out of memory compiling a query");
    p->arena.small_start = true;
    p->txn = txn;
    p->q = q;
    p->cls_id = q->cls;
    p->cls = query_class_at(q, txn->schema, q->cls);
    int err = p->cls ? LAR_OK : lar_fail(LAR_EINVAL, "the query's class %u is not in this transaction's schema", q->cls);
    if (!err) err = compile_pred(p, q->root, NULL, 0, &p->root);
    if (!err) err = program_compile(p);
    if (!err && p->variable_count) {
        p->variables = calloc(p->variable_count, sizeof *p->variables);
        p->variable_holders = calloc(p->variable_count, sizeof *p->variable_holders);
        if (!p->variables || !p->variable_holders) err = lar_fail(LAR_ENOMEM, "out of memory compiling a query");
    }
    if (err) {
        plan_free(p);
        return err;
    }
    *out = p;
    return LAR_OK;
}

/* ---- what an index can answer ---- */

/* The term of property prop of cls compared (op, no options) with constants, when its
 * index or primary key can answer it. */
static bool term_for(const schema_class *cls, uint32_t prop, cmp_op op, const lar_value *constants, size_t count,
                     probe_term *out)
{
    const lar_property_def *def = &cls->properties[prop].def;
    bool primary = (int32_t)prop == cls->primary_key;
    if (!primary && !(def->flags & LAR_PROP_INDEXED)) return false;
    if (!key_type_is_indexable(def->type)) return false;
    if (op == OP_EQ && count != 1) op = OP_IN; /* a list argument: any of them */
    bool ordered = def->type != LAR_TYPE_STRING && def->type != LAR_TYPE_BOOL; /* string keys are cut short */
    if (op != OP_EQ && op != OP_IN && !((op >= OP_LT && op <= OP_GE) || op == OP_BETWEEN)) return false;
    if (op != OP_EQ && op != OP_IN && !ordered) return false;
    for (size_t i = 0; i < count; i++) {
        lar_type t = constants[i].type;
        if (t != def->type && !(t == LAR_TYPE_NULL && (op == OP_EQ || op == OP_IN))) return false;
    }
    *out = (probe_term){prop, primary, op, constants, count};
    return true;
}

static bool indexable(const schema_class *cls, const node *n, probe_term *out)
{
    if (n->kind != NODE_SLOT || n->options || n->left.type_name) return false;
    return term_for(cls, n->prop, n->op, n->right.constants, n->right.constant_count, out);
}

bool query_one_equality(const lar_query *q, const schema_class *cls, probe_term *out)
{
    const pred *x = q->root;
    if (x->kind != PRED_COMPARE || x->as.cmp.op != OP_EQ || x->as.cmp.options || x->as.cmp.quant != QUANT_NONE_GIVEN)
        return false;
    const expr *left = x->as.cmp.left, *right = x->as.cmp.right;
    if (left->kind != EXPR_KEYPATH || left->as.path.count != 1 || left->as.path.agg != AGG_NONE) return false;
    const path_step *st = &left->as.path.steps[0];
    if (st->kind != STEP_PROPERTY || st->cls != q->cls || st->prop >= cls->property_count ||
        cls->properties[st->prop].def.collection != LAR_COLLECTION_NONE)
        return false;
    const lar_value *value;
    if (right->kind == EXPR_CONSTANT) value = &right->as.constant;
    else if (right->kind == EXPR_ARGUMENT && !right->as.arg.keypath && q->args[right->as.arg.index].kind == LAR_QUERY_ARG_VALUE)
        value = &q->args[right->as.arg.index].value;
    else return false;
    return term_for(cls, st->prop, OP_EQ, value, 1, out);
}

static int term_rank(const probe_term *t)
{
    return (t->op == OP_EQ || t->op == OP_IN ? 2 : 0) + (t->primary ? 1 : 0);
}

/* The best term of an AND: equality beats a range, a primary key an index. */
static size_t best_term(const plan *p, const node *conjunction, probe_term *out)
{
    size_t found = 0;
    for (size_t i = 0; i < conjunction->count; i++) {
        probe_term t;
        if (indexable(p->cls, conjunction->kids[i], &t) && (!found || term_rank(&t) > term_rank(out))) {
            *out = t;
            found = 1;
        }
    }
    return found;
}

static bool reads_other_rows(const node *n)
{
    if (n->kind == NODE_COMPARE) return true; /* a key path: links, collections, other objects */
    bool branches = n->kind == NODE_AND || n->kind == NODE_OR || n->kind == NODE_NOT;
    for (size_t i = 0; branches && i < n->count; i++)
        if (reads_other_rows(n->kids[i])) return true;
    return false;
}

bool plan_reads_other_rows(const plan *p)
{
    return reads_other_rows(p->root);
}

bool plan_terms_are_whole(const plan *p)
{
    const node *root = p->root;
    if (root->kind == NODE_SLOT) return true;
    if (root->kind != NODE_OR) return false;
    for (size_t i = 0; i < root->count; i++)
        if (root->kids[i]->kind != NODE_SLOT) return false;
    return true;
}

size_t plan_probe_terms(const plan *p, probe_term *out)
{
    const node *root = p->root;
    if (root->kind == NODE_AND) return best_term(p, root, out);
    if (root->kind != NODE_OR) return indexable(p->cls, root, out) ? 1 : 0;
    if (root->count > PROBE_TERMS_MAX) return 0;
    for (size_t i = 0; i < root->count; i++) { /* every branch must be answered by an index */
        const node *kid = root->kids[i];
        bool answered = kid->kind == NODE_AND ? best_term(p, kid, &out[i]) : indexable(p->cls, kid, &out[i]);
        if (!answered) return 0;
    }
    return root->count;
}
