/* The evaluator: a resolved query compiled, once per run, into a tree of checks.
 *
 * Each comparison becomes a node that knows, before the first row, what it reads and
 * how it compares: a property of the queried class read straight from its row slot
 * (a "slot" node, with a test function chosen for its type, operator and constant),
 * or a key path walked step by step (links, embedded objects, lists, sets, maps,
 * backlinks, subquery variables) into a vector of values, aggregated or quantified
 * (ANY, ALL, NONE), against constants or another key path. Constants compared with
 * [c] or [d] are folded once. No row looks at the query text or its AST again.
 *
 * Semantics follow realm-core: a null link in a chain of to-one links yields null
 * (so `owner.name == nil` matches objects without owner); a comparison through a
 * collection means ANY unless ALL or NONE says otherwise (ALL and NONE hold for an
 * empty collection); null equals only null and has no order; numbers compare by value
 * across types; strings order by bytes (code points); a missing map key reads as null. */
#include "query/results.h"

#include "link/link.h"

#include <stdlib.h>
#include <string.h>

/* Where a value was read: the object and property whose nested collections (in mixed
 * values) a later ['key'] step opens. */
typedef struct holder {
    lar_obj obj;
    uint32_t prop;
} holder;

typedef struct values {
    lar_value *items;
    holder *holders;
    size_t count, capacity;
} values;

static int push_held(values *v, const lar_value *x, const holder *from)
{
    if (v->count == v->capacity) {
        size_t capacity = v->capacity ? v->capacity * 2 : 8;
        lar_value *items = realloc(v->items, capacity * sizeof *items);
        if (items) v->items = items;
        holder *holders = items ? realloc(v->holders, capacity * sizeof *holders) : NULL;
        if (!holders) return lar_fail(LAR_ENOMEM, "out of memory running a query");
        v->holders = holders;
        v->capacity = capacity;
    }
    v->holders[v->count] = from ? *from : (holder){{0, 0}, 0};
    v->items[v->count++] = *x;
    return LAR_OK;
}

static int push(values *v, const lar_value *x)
{
    return push_held(v, x, NULL);
}

/* One step of a compiled key path. */
typedef struct step_plan {
    step_kind kind;
    const schema_class *cls;  /* the property's class (a backlink: the linking class) */
    lar_class cls_id;
    uint32_t prop;
    lar_collection collection;
    step_kind map_part;       /* a map property: STEP_KEY, STEP_KEYS or STEP_VALUES */
    lar_string key;           /* STEP_KEY */
    uint32_t variable;        /* STEP_VARIABLE: the subquery depth it names */
    bool all_links;           /* @links.@count: every link into the object */
} step_plan;

typedef struct node node;

typedef enum operand_kind { OPERAND_CONSTANTS, OPERAND_PATH, OPERAND_SUBQUERY } operand_kind;

typedef struct operand {
    operand_kind kind;
    step_plan *steps;
    size_t count;
    aggregate agg;
    bool length;              /* @count of a string or binary: its length */
    bool type_name;           /* ends in @type: compared with type names */
    lar_type value_type;      /* the type of the property it reads (none: LAR_TYPE_NULL) */
    values a, b;              /* scratch: the values of the steps walked so far */
    const lar_value *constants;
    size_t constant_count;
    struct operand *collection; /* a subquery's collection, predicate and variable depth */
    node *predicate;
    uint32_t depth;
} operand;

typedef enum node_kind { NODE_TRUE, NODE_FALSE, NODE_AND, NODE_OR, NODE_NOT, NODE_SLOT, NODE_COMPARE } node_kind;

typedef int (*value_test)(plan *p, const node *n, const lar_value *v);

struct node {
    node_kind kind;
    node **kids;              /* AND, OR: count of them; NOT: one */
    size_t count;
    /* Comparisons. */
    cmp_op op;
    unsigned options;
    quantifier quant;
    bool many;                /* the left side yields several values */
    operand left, right;      /* right: constants, or a key path */
    lar_value *folded;        /* the constants folded for options */
    value_test test;          /* a left value against the constants */
    /* Slot nodes: a property of the queried class. */
    uint32_t prop, offset;
    lar_type type;
    bool in_bitmap;           /* optional: its null bit may be set */
    int64_t integer;          /* the constant, for the number tests */
    double real;
};

struct plan {
    lar_txn *txn;
    const lar_query *q;
    const schema_class *cls;
    lar_class cls_id;
    node *root;
    arena arena;              /* nodes, steps, folded constants */
    operand **operands;       /* every operand, for their scratch vectors */
    size_t operand_count, operand_capacity;
    /* The object being checked. */
    lar_objkey key;
    const kv_val *row;
    lar_value *variables;     /* subquery elements by depth */
    holder *variable_holders;
    uint32_t variable_count;
    byte_buffer fold_a, fold_b;
};

#define TRY(expr) do { int rc_ = (expr); if (rc_ < 0) return rc_; } while (0)

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

/* ---- comparing one value ---- */

static bool string_op(cmp_op op)
{
    return op == OP_BEGINSWITH || op == OP_ENDSWITH || op == OP_CONTAINS || op == OP_LIKE;
}

/* v op c, for one pair of values. folded: c already folded for options, or NULL. */
static int compare_pair(plan *p, cmp_op op, unsigned options, const lar_value *v, const lar_value *c,
                        const lar_value *folded)
{
    if (op == OP_IN) op = OP_EQ;
    const char *h, *needle;
    size_t hn, nn;
    bool text = string_op(op) || (options && (op == OP_EQ || op == OP_NE) && v->type == LAR_TYPE_STRING &&
                                  c->type == LAR_TYPE_STRING);
    if (text) {
        if (!value_bytes(v, &h, &hn) || !value_bytes(c, &needle, &nn)) return op == OP_NE;
        if (options && v->type == LAR_TYPE_STRING && c->type == LAR_TYPE_STRING) {
            if (text_fold(h, hn, options, &p->fold_a)) return LAR_ENOMEM;
            h = (const char *)p->fold_a.data, hn = p->fold_a.size;
            if (folded) {
                needle = folded->as.string.data, nn = folded->as.string.size;
            } else {
                if (text_fold(needle, nn, options, &p->fold_b)) return LAR_ENOMEM;
                needle = (const char *)p->fold_b.data, nn = p->fold_b.size;
            }
        }
        return text_match(op, h, hn, needle, nn);
    }
    if (op == OP_EQ) return value_matches(v, c);
    if (op == OP_NE) return !value_matches(v, c);
    int ord = value_order(v, c);
    if (ord == ORDER_NONE) return 0;
    switch (op) {
    case OP_LT: return ord < 0;
    case OP_LE: return ord <= 0;
    case OP_GT: return ord > 0;
    case OP_GE: return ord >= 0;
    default: return 0;
    }
}

/* v against the node's constants: IN and a list argument mean any of them. */
static int test_constants(plan *p, const node *n, const lar_value *v)
{
    const lar_value *c = n->right.constants;
    size_t count = n->right.constant_count;
    if (n->left.type_name) {
        bool any = false;
        for (size_t i = 0; i < count && !any; i++) any = type_name_matches(v, &c[i]);
        return n->op == OP_NE ? !any : any;
    }
    if (n->op == OP_BETWEEN) {
        int low = value_order(v, &c[0]), high = value_order(v, &c[1]);
        return low != ORDER_NONE && high != ORDER_NONE && low >= 0 && high <= 0;
    }
    for (size_t i = 0; i < count; i++) {
        int r = compare_pair(p, n->op, n->options, v, &c[i], n->folded ? &n->folded[i] : NULL);
        if (r) return r;
    }
    return 0;
}

/* The common cases, chosen at compile time: a number or a string against one constant. */
#define NUMBER_TEST(name, member, vtype, constant, cmp, none)                      \
    static int name(plan *p, const node *n, const lar_value *v)                 \
    {                                                                            \
        (void)p;                                                                 \
        return v->type == vtype ? v->as.member cmp n->constant : none;           \
    }
NUMBER_TEST(int_eq, integer, LAR_TYPE_INT, integer, ==, 0)
NUMBER_TEST(int_ne, integer, LAR_TYPE_INT, integer, !=, 1)
NUMBER_TEST(int_lt, integer, LAR_TYPE_INT, integer, <, 0)
NUMBER_TEST(int_le, integer, LAR_TYPE_INT, integer, <=, 0)
NUMBER_TEST(int_gt, integer, LAR_TYPE_INT, integer, >, 0)
NUMBER_TEST(int_ge, integer, LAR_TYPE_INT, integer, >=, 0)
NUMBER_TEST(real_eq, float64, LAR_TYPE_DOUBLE, real, ==, 0)
NUMBER_TEST(real_ne, float64, LAR_TYPE_DOUBLE, real, !=, 1)
NUMBER_TEST(real_lt, float64, LAR_TYPE_DOUBLE, real, <, 0)
NUMBER_TEST(real_le, float64, LAR_TYPE_DOUBLE, real, <=, 0)
NUMBER_TEST(real_gt, float64, LAR_TYPE_DOUBLE, real, >, 0)
NUMBER_TEST(real_ge, float64, LAR_TYPE_DOUBLE, real, >=, 0)

static int string_eq(plan *p, const node *n, const lar_value *v)
{
    (void)p;
    const lar_string *c = &n->right.constants[0].as.string;
    return v->type == LAR_TYPE_STRING && v->as.string.size == c->size &&
           (c->size == 0 || memcmp(v->as.string.data, c->data, c->size) == 0);
}

static value_test choose_test(const node *n, lar_type type)
{
    static const value_test ints[] = {int_eq, int_ne, int_lt, int_le, int_gt, int_ge};
    static const value_test reals[] = {real_eq, real_ne, real_lt, real_le, real_gt, real_ge};
    const lar_value *c = n->right.constants;
    bool one = n->right.constant_count == 1 && n->op <= OP_GE && !n->options && !n->left.type_name;
    if (one && type == LAR_TYPE_INT && c->type == LAR_TYPE_INT) return ints[n->op];
    if (one && type == LAR_TYPE_DOUBLE && c->type == LAR_TYPE_DOUBLE) return reals[n->op];
    if (one && n->op == OP_EQ && type == LAR_TYPE_STRING && c->type == LAR_TYPE_STRING) return string_eq;
    return test_constants;
}

/* ---- walking key paths ---- */

static int eval_node(plan *p, node *n);

static int read_row(plan *p, const step_plan *st, lar_obj obj, kv_val *row, bool *gone)
{
    *gone = false;
    if (obj.cls == p->cls_id && obj.key == p->key && st->cls == p->cls) {
        *row = *p->row;
        return LAR_OK;
    }
    int err = object_read_row(p->txn, st->cls, obj, row);
    if (err == LAR_EDELETED) *gone = true; /* a dangling link reads as null */
    return err == LAR_EDELETED ? LAR_OK : err;
}

#define BATCH 64

static int expand_list(plan *p, const step_plan *st, lar_obj obj, values *out)
{
    lar_value batch[BATCH];
    for (size_t start = 0;; start += BATCH) {
        size_t n = 0;
        int err = lar_list_get_batch(p->txn, obj, st->prop, start, batch, BATCH, &n);
        if (err == LAR_ENOTFOUND) return LAR_OK;
        if (err) return err;
        holder from = {obj, st->prop};
        for (size_t i = 0; i < n; i++) TRY(push_held(out, &batch[i], &from));
        if (n < BATCH) return LAR_OK;
    }
}

static int expand_set(plan *p, const step_plan *st, lar_obj obj, values *out)
{
    lar_value batch[BATCH];
    const lar_value *after = NULL;
    for (;;) {
        size_t n = 0;
        int err = lar_set_list(p->txn, obj, st->prop, after, batch, BATCH, &n);
        if (err == LAR_ENOTFOUND) return LAR_OK;
        if (err) return err;
        size_t first = out->count;
        holder from = {obj, st->prop};
        for (size_t i = 0; i < n; i++) TRY(push_held(out, &batch[i], &from));
        if (n < BATCH) return LAR_OK;
        after = &out->items[first + n - 1]; /* out may have moved: point into it after the pushes */
    }
}

static int expand_map(plan *p, const step_plan *st, lar_obj obj, values *out)
{
    holder from = {obj, st->prop};
    if (st->map_part == STEP_KEY) {
        lar_value v;
        int err = lar_map_get(p->txn, obj, st->prop, &st->key, &v);
        if (err == LAR_ENOTFOUND) v = (lar_value){.type = LAR_TYPE_NULL}; /* a missing key reads as null */
        else if (err) return err;
        return push_held(out, &v, &from);
    }
    lar_string keys[BATCH];
    lar_value batch[BATCH];
    lar_string after;
    bool started = false;
    for (;;) {
        size_t n = 0;
        bool want_keys = st->map_part == STEP_KEYS;
        int err = lar_map_list(p->txn, obj, st->prop, started ? &after : NULL, keys, want_keys ? NULL : batch, BATCH, &n);
        if (err == LAR_ENOTFOUND) return LAR_OK;
        if (err) return err;
        for (size_t i = 0; i < n; i++) {
            lar_value key = {.type = LAR_TYPE_STRING, .as.string = keys[i]};
            TRY(push_held(out, want_keys ? &key : &batch[i], &from));
        }
        if (n < BATCH) return LAR_OK;
        after = keys[n - 1];
        started = true;
    }
}

/* Every link into obj, from any class and property, once per link (a list that holds
 * obj twice links twice): what @links.@count counts. */
static int expand_all_links(plan *p, lar_obj obj, values *out)
{
    if (!p->txn->schema->has_links) return LAR_OK; /* no links anywhere: no backlink table */
    byte_buffer links = {0};
    int err = backlinks_collect(p->txn, obj, &links);
    for (size_t at = 0; !err && at + sizeof(backlink) <= links.size; at += sizeof(backlink)) {
        backlink link;
        memcpy(&link, links.data + at, sizeof link);
        lar_value origin = {.type = LAR_TYPE_LINK, .as.link = link.origin};
        for (uint32_t i = 0; !err && i < link.count; i++) err = push(out, &origin);
    }
    buffer_free(&links);
    return err;
}

static int expand_backlinks(plan *p, const step_plan *st, lar_obj obj, values *out)
{
    if (st->all_links) return expand_all_links(p, obj, out);
    lar_obj batch[BATCH];
    for (lar_objkey start = 0;;) {
        size_t n = 0;
        int err = lar_backlinks_list(p->txn, obj, st->cls_id, st->prop, start, batch, BATCH, &n);
        if (err == LAR_ENOTFOUND || err == LAR_EDELETED) return LAR_OK;
        if (err) return err;
        for (size_t i = 0; i < n; i++) {
            lar_value v = {.type = LAR_TYPE_LINK, .as.link = batch[i]};
            TRY(push(out, &v));
        }
        if (n < BATCH) return LAR_OK;
        start = batch[n - 1].key + 1;
    }
}

/* ['key'] on a mixed value: the key's value in the nested dictionary it holds (null
 * for a missing key or a value that is no dictionary). */
static int expand_nested_key(plan *p, const step_plan *st, const lar_value *v, const holder *from, values *out)
{
    lar_value x = {.type = LAR_TYPE_NULL};
    if (v->type == LAR_TYPE_DICTIONARY) {
        lar_coll dictionary = {from->obj, from->prop, LAR_COLLECTION_MAP, v->as.nested};
        int err = lar_map_get_at(p->txn, &dictionary, &st->key, &x);
        if (err == LAR_ENOTFOUND) x.type = LAR_TYPE_NULL;
        else if (err) return err;
    }
    return push_held(out, &x, from);
}

/* Appends to out what step st reaches from v (read from from). */
static int expand(plan *p, const step_plan *st, const lar_value *v, const holder *from, values *out)
{
    if (st->kind == STEP_KEY) return expand_nested_key(p, st, v, from, out);
    bool to_one = st->kind == STEP_PROPERTY && st->collection == LAR_COLLECTION_NONE;
    if (v->type != LAR_TYPE_LINK) { /* a null link: null through to-one links, nothing through collections */
        lar_value null = {.type = LAR_TYPE_NULL};
        return to_one ? push(out, &null) : LAR_OK;
    }
    lar_obj obj = v->as.link;
    if (st->kind == STEP_BACKLINK) return expand_backlinks(p, st, obj, out);
    if (obj.cls != st->cls_id) return LAR_OK; /* a mixed value's link to another class */
    switch (st->collection) {
    case LAR_COLLECTION_LIST: return expand_list(p, st, obj, out);
    case LAR_COLLECTION_SET: return expand_set(p, st, obj, out);
    case LAR_COLLECTION_MAP: return expand_map(p, st, obj, out);
    default: break;
    }
    kv_val row;
    bool gone;
    TRY(read_row(p, st, obj, &row, &gone));
    lar_value x = {.type = LAR_TYPE_NULL};
    if (!gone) TRY(row_decode(p->txn, st->cls, &row, st->prop, &x));
    holder here = {obj, st->prop};
    return push_held(out, &x, &here);
}

/* @sum or @avg: ints stay exact in a sum of ints, decimals (with ints) are added as
 * decimals, anything with a float or double as doubles. */
static lar_value sum_or_average(aggregate agg, const values *in)
{
    int64_t whole = 0;
    double real = 0;
    lar_decimal128 decimal = decimal_from_int(0);
    bool reals = false, decimals = false;
    size_t n = 0;
    for (size_t i = 0; i < in->count; i++) {
        const lar_value *v = &in->items[i];
        if (!value_is_number(v->type)) continue;
        n++;
        if (v->type == LAR_TYPE_INT) whole = (int64_t)((uint64_t)whole + (uint64_t)v->as.integer);
        else if (v->type == LAR_TYPE_DECIMAL128) decimals = true, decimal = decimal_add(decimal, v->as.decimal128);
        else reals = true;
        if (v->type != LAR_TYPE_INT) real += value_as_double(v);
    }
    if (agg == AGG_AVG && n == 0) return (lar_value){.type = LAR_TYPE_NULL};
    if (decimals && !reals) {
        decimal = decimal_add(decimal, decimal_from_int(whole));
        if (agg == AGG_AVG) decimal = decimal_divide(decimal, n);
        return (lar_value){.type = LAR_TYPE_DECIMAL128, .as.decimal128 = decimal};
    }
    if (!reals && agg == AGG_SUM) return (lar_value){.type = LAR_TYPE_INT, .as.integer = whole};
    real += (double)whole;
    return (lar_value){.type = LAR_TYPE_DOUBLE, .as.float64 = agg == AGG_AVG ? real / (double)n : real};
}

/* @count, @min, @max, @sum, @avg of in, into out. */
static int aggregate_values(const operand *o, const values *in, values *out)
{
    lar_value r = {.type = LAR_TYPE_NULL};
    if (o->agg == AGG_COUNT) {
        r.type = LAR_TYPE_INT;
        r.as.integer = (int64_t)in->count;
        if (o->length) { /* a string's or binary's @count: its size in bytes, as realm-core's */
            const lar_value *v = in->count ? &in->items[0] : &r;
            r.as.integer = v->type == LAR_TYPE_STRING ? (int64_t)v->as.string.size
                         : v->type == LAR_TYPE_BINARY ? (int64_t)v->as.binary.size : 0;
        }
    } else if (o->agg == AGG_MIN || o->agg == AGG_MAX) {
        for (size_t i = 0; i < in->count; i++) {
            const lar_value *v = &in->items[i];
            if (!value_is_number(v->type) && v->type != LAR_TYPE_TIMESTAMP) continue;
            int ord = r.type == LAR_TYPE_NULL ? 0 : value_order(v, &r);
            if (r.type == LAR_TYPE_NULL || (ord != ORDER_NONE && (o->agg == AGG_MIN ? ord < 0 : ord > 0))) r = *v;
        }
    } else {
        r = sum_or_average(o->agg, in);
    }
    out->count = 0;
    return push(out, &r);
}

/* The values an operand yields for the current object, in *out (the operand's scratch). */
static int operand_eval(plan *p, operand *o, values **out)
{
    values *cur = &o->a, *next = &o->b;
    cur->count = 0;
    if (o->kind == OPERAND_SUBQUERY) {
        values *elements;
        TRY(operand_eval(p, o->collection, &elements));
        int64_t matched = 0;
        for (size_t i = 0; i < elements->count; i++) {
            p->variables[o->depth] = elements->items[i];
            p->variable_holders[o->depth] = elements->holders[i];
            int r = eval_node(p, o->predicate);
            if (r < 0) return r;
            matched += r;
        }
        lar_value count = {.type = LAR_TYPE_INT, .as.integer = matched};
        *out = cur;
        return push(cur, &count);
    }
    size_t i = 0;
    if (o->count && o->steps[0].kind == STEP_VARIABLE) {
        TRY(push_held(cur, &p->variables[o->steps[0].variable], &p->variable_holders[o->steps[0].variable]));
        i = 1;
    } else {
        lar_value self = {.type = LAR_TYPE_LINK, .as.link = {p->cls_id, p->key}};
        TRY(push(cur, &self));
    }
    for (; i < o->count; i++) {
        if (o->steps[i].kind == STEP_TYPE) continue; /* the values themselves, compared by type name */
        next->count = 0;
        for (size_t j = 0; j < cur->count; j++) TRY(expand(p, &o->steps[i], &cur->items[j], &cur->holders[j], next));
        values *t = cur;
        cur = next;
        next = t;
    }
    if (o->agg != AGG_NONE) {
        TRY(aggregate_values(o, cur, next));
        cur = next;
    }
    *out = cur;
    return LAR_OK;
}

/* ---- evaluating nodes ---- */

static int slot_value(plan *p, const node *n, lar_value *v)
{
    const uint8_t *bytes = p->row->mv_data;
    const schema_class *cls = p->cls;
    if (n->in_bitmap && (bytes[cls->fixed_size + n->prop / 8] & (1u << (n->prop % 8)))) {
        v->type = LAR_TYPE_NULL;
        return LAR_OK;
    }
    switch (n->type) {
    case LAR_TYPE_INT: v->type = LAR_TYPE_INT; memcpy(&v->as.integer, bytes + n->offset, 8); return LAR_OK;
    case LAR_TYPE_DOUBLE: v->type = LAR_TYPE_DOUBLE; memcpy(&v->as.float64, bytes + n->offset, 8); return LAR_OK;
    case LAR_TYPE_BOOL: v->type = LAR_TYPE_BOOL; v->as.boolean = bytes[n->offset] != 0; return LAR_OK;
    default: return row_decode_raw(cls, p->row, n->prop, v);
    }
}

static int eval_compare(plan *p, node *n)
{
    values *left, *right = NULL;
    TRY(operand_eval(p, &n->left, &left));
    if (n->right.kind != OPERAND_CONSTANTS) TRY(operand_eval(p, &n->right, &right));
    quantifier q = n->many && n->quant != QUANT_NONE_GIVEN ? n->quant : QUANT_ANY;
    size_t count = n->many ? left->count : (left->count ? 1 : 0);
    for (size_t i = 0; i < count; i++) {
        const lar_value *v = &left->items[i];
        int r = 0;
        if (!right) {
            r = n->test(p, n, v);
        } else {
            for (size_t j = 0; j < right->count && r == 0; j++)
                r = compare_pair(p, n->op, n->options, v, &right->items[j], NULL);
        }
        if (r < 0) return r;
        if (r && q != QUANT_ALL) return q == QUANT_ANY;
        if (!r && q == QUANT_ALL) return 0;
    }
    return q != QUANT_ANY;
}

static int eval_node(plan *p, node *n)
{
    switch (n->kind) {
    case NODE_TRUE: return 1;
    case NODE_FALSE: return 0;
    case NODE_AND:
        for (size_t i = 0; i < n->count; i++) {
            int r = eval_node(p, n->kids[i]);
            if (r <= 0) return r;
        }
        return 1;
    case NODE_OR:
        for (size_t i = 0; i < n->count; i++) {
            int r = eval_node(p, n->kids[i]);
            if (r != 0) return r;
        }
        return 0;
    case NODE_NOT: {
        int r = eval_node(p, n->kids[0]);
        return r < 0 ? r : !r;
    }
    case NODE_SLOT: {
        lar_value v;
        TRY(slot_value(p, n, &v));
        return n->test(p, n, &v);
    }
    case NODE_COMPARE: return eval_compare(p, n);
    }
    return 0;
}

int plan_match(plan *p, lar_objkey key, const kv_val *row)
{
    TRY(row_check_shape(p->cls, row));
    p->key = key;
    p->row = row;
    return eval_node(p, p->root);
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
    out->cls = schema_class_at(p->txn->schema, st->cls);
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
    n->test = test_constants;
    try_slot(p, n);
    if (n->right.kind == OPERAND_CONSTANTS) {
        n->test = choose_test(n, n->kind == NODE_SLOT ? n->type : LAR_TYPE_NULL);
        if (n->right.constant_count == 1) {
            n->integer = n->right.constants[0].as.integer;
            n->real = n->right.constants[0].as.float64;
        }
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
    p->txn = txn;
    p->q = q;
    p->cls_id = q->cls;
    p->cls = schema_class_at(txn->schema, q->cls);
    int err = p->cls ? LAR_OK : lar_fail(LAR_EINVAL, "the query's class %u is not in this transaction's schema", q->cls);
    if (!err) err = compile_pred(p, q->root, NULL, 0, &p->root);
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

static bool indexable(const schema_class *cls, const node *n, probe_term *out)
{
    if (n->kind != NODE_SLOT || n->options || n->left.type_name) return false;
    const lar_property_def *def = &cls->properties[n->prop].def;
    bool primary = (int32_t)n->prop == cls->primary_key;
    if (!primary && !(def->flags & LAR_PROP_INDEXED)) return false;
    if (!key_type_is_indexable(def->type)) return false;
    cmp_op op = n->op;
    if (op == OP_EQ && n->right.constant_count != 1) op = OP_IN; /* a list argument: any of them */
    bool ordered = def->type != LAR_TYPE_STRING && def->type != LAR_TYPE_BOOL; /* string keys are cut short */
    if (op != OP_EQ && op != OP_IN && !((op >= OP_LT && op <= OP_GE) || op == OP_BETWEEN)) return false;
    if (op != OP_EQ && op != OP_IN && !ordered) return false;
    for (size_t i = 0; i < n->right.constant_count; i++) {
        lar_type t = n->right.constants[i].type;
        if (t != def->type && !(t == LAR_TYPE_NULL && (op == OP_EQ || op == OP_IN))) return false;
    }
    *out = (probe_term){n->prop, primary, op, n->right.constants, n->right.constant_count};
    return true;
}

/* Equality beats a range, a primary key an index. */
static int term_rank(const probe_term *t)
{
    return (t->op == OP_EQ || t->op == OP_IN ? 2 : 0) + (t->primary ? 1 : 0);
}

bool plan_probe_term(const plan *p, probe_term *out)
{
    const node *root = p->root;
    if (root->kind != NODE_AND) return indexable(p->cls, root, out);
    bool found = false;
    for (size_t i = 0; i < root->count; i++) {
        probe_term t;
        if (indexable(p->cls, root->kids[i], &t) && (!found || term_rank(&t) > term_rank(out))) {
            *out = t;
            found = true;
        }
    }
    return found;
}
