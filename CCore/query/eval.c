/* The evaluator: a compiled query (compile.c) run on rows.
 *
 * Semantics follow realm-core: a null link in a chain of to-one links yields null
 * (so `owner.name == nil` matches objects without owner); a comparison through a
 * collection means ANY unless ALL or NONE says otherwise (ALL and NONE hold for an
 * empty collection); null equals only null and has no order; numbers compare by value
 * across types; strings order by bytes (code points); a missing map key reads as null. */
#include "query/plan.h"
#include "query/ascii.h"
#include "query/decimal128.h"

#include "link/link.h"

#include <stdlib.h>
#include <string.h>

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


/* ---- comparing one value ---- */

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

/* Whether n bytes are equal: a short run by a loop, which beats a call to memcmp. */
static inline bool same_bytes(const char *a, const char *b, size_t n)
{
    if (n > 16) return memcmp(a, b, n) == 0;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return false;
    return true;
}

static int string_eq(plan *p, const node *n, const lar_value *v)
{
    (void)p;
    const lar_string *c = &n->right.constants[0].as.string;
    return v->type == LAR_TYPE_STRING && v->as.string.size == c->size && same_bytes(v->as.string.data, c->data, c->size);
}

/* Haystacks up to this size fold on the stack. */
#define FOLD_ON_STACK 256

/* BEGINSWITH of string_folded: the haystack's prefix folded as it is compared, no copy. */
static inline int string_begins_folded(plan *p, const node *n, const lar_value *v)
{
    const lar_string *needle = &n->folded[0].as.string;
    const uint8_t *h = (const uint8_t *)v->as.string.data, *want = (const uint8_t *)needle->data;
    size_t hn = v->as.string.size < needle->size ? v->as.string.size : needle->size; /* only the prefix decides */
    bool lower = n->options & OPT_CASE, same = hn == needle->size;
    uint8_t high = 0;
    for (size_t i = 0; i < hn; i++) {
        uint8_t b = h[i];
        high |= b;
        same &= (lower && (uint8_t)(b - 'A') < 26 ? b + 32 : b) == want[i];
    }
    return high & 0x80 ? test_constants(p, n, v) : same;
}

/* The other operators of string_folded: the haystack folded into a copy, then matched. */
static int string_folded_copy(plan *p, const node *n, const lar_value *v)
{
    if (v->as.string.size > FOLD_ON_STACK) return test_constants(p, n, v);
    const uint8_t *h = (const uint8_t *)v->as.string.data;
    size_t hn = v->as.string.size;
    const lar_string *needle = &n->folded[0].as.string;
    char folded[FOLD_ON_STACK + 8];
    bool lower = n->options & OPT_CASE;
    uint64_t high = 0;
    size_t i = 0;
    for (; i + 8 <= hn; i += 8) {
        uint64_t x;
        memcpy(&x, h + i, 8);
        high |= x;
        x = lower ? ascii_lower8(x) : x;
        memcpy(folded + i, &x, 8);
    }
    for (; i < hn; i++) {
        uint8_t b = h[i];
        high |= b;
        folded[i] = (char)(lower && (uint8_t)(b - 'A') < 26 ? b + 32 : b);
    }
    if (high & ASCII_TOP) return test_constants(p, n, v);
    return text_match(n->op, folded, hn, needle->data, needle->size);
}

/* A string against one string constant with [c] or [d] (folded once, in n->folded). A
 * haystack of ASCII folds without decoding, as text_fold() folds ASCII: letters take
 * their lower case for [c], and [d] leaves every ASCII character alone. Anything else
 * takes the general test. (CONTAINS of an ASCII needle: string_contains_folded.)
 * Inline where it is called directly (a scan's string test), so BEGINSWITH costs no call. */
__attribute__((always_inline)) static inline int string_folded(plan *p, const node *n, const lar_value *v)
{
    if (v->type != LAR_TYPE_STRING) return test_constants(p, n, v);
    return n->op == OP_BEGINSWITH ? string_begins_folded(p, n, v) : string_folded_copy(p, n, v);
}

/* CONTAINS[c] or CONTAINS[d] of one ASCII string constant (folded once): searched in
 * the haystack's bytes (query/ascii.h); a haystack with other bytes, which may fold to
 * ASCII, and no ASCII match takes the general test. */
__attribute__((always_inline)) static inline int string_contains_folded(plan *p, const node *n, const lar_value *v)
{
    if (v->type != LAR_TYPE_STRING) return test_constants(p, n, v);
    switch (ascii_contains(&n->needle, v->as.string.data, v->as.string.size)) {
    case ASCII_FOUND: return 1;
    case ASCII_ABSENT: return 0;
    default: return test_constants(p, n, v);
    }
}

static const value_test ints[] = {int_eq, int_ne, int_lt, int_le, int_gt, int_ge};

bool plan_is_string_test(value_test test)
{
    return test == string_eq || test == string_folded || test == string_contains_folded;
}

bool plan_is_int_test(value_test test)
{
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (test == ints[i]) return true;
    return false;
}

value_test plan_choose_test(const node *n, lar_type type)
{
    static const value_test reals[] = {real_eq, real_ne, real_lt, real_le, real_gt, real_ge};
    const lar_value *c = n->right.constants;
    bool one = n->right.constant_count == 1 && n->op <= OP_GE && !n->options && !n->left.type_name;
    if (one && type == LAR_TYPE_INT && c->type == LAR_TYPE_INT) return ints[n->op];
    if (one && type == LAR_TYPE_DOUBLE && c->type == LAR_TYPE_DOUBLE) return reals[n->op];
    if (one && n->op == OP_EQ && type == LAR_TYPE_STRING && c->type == LAR_TYPE_STRING) return string_eq;
    bool text_op = n->op == OP_EQ || n->op == OP_NE || string_op(n->op);
    if (n->right.constant_count == 1 && n->options && n->folded && text_op && !n->left.type_name &&
        type == LAR_TYPE_STRING && c->type == LAR_TYPE_STRING)
        return n->op == OP_CONTAINS && n->needle.ascii ? string_contains_folded : string_folded;
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
        if (agg == AGG_AVG) decimal = decimal_divide(decimal, decimal_from_int((int64_t)n));
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
    case LAR_TYPE_STRING: {
        const uint8_t *data;
        size_t size;
        if (!row_var_bytes(cls, p->row, bytes + n->offset, true, &data, &size)) break; /* reported below */
        v->type = LAR_TYPE_STRING;
        v->as.string = (lar_string){(const char *)data, size};
        return LAR_OK;
    }
    default: break;
    }
    return row_decode_raw(cls, p->row, n->prop, v);
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

/* A comparison through a to-one link (operand.memoized): answered from the memo when
 * the row links to a target already walked. The link is read from its slot (the row's
 * shape is checked: plan_match); a null link takes the plain way. */
static inline int link_compare(plan *p, node *n)
{
    const uint8_t *bytes = p->row->mv_data;
    if (n->in_bitmap && (bytes[p->cls->fixed_size + n->prop / 8] & (1u << (n->prop % 8)))) return eval_compare(p, n);
    uint64_t target;
    memcpy(&target, bytes + n->offset, 8);
    int r = link_memo_find(&n->left.memo, target);
    if (r >= 0) return r;
    r = eval_compare(p, n);
    if (r >= 0) link_memo_keep(&n->left.memo, target, r);
    return r;
}

/* An int slot against one int, as the int tests above compare it: no value, no call. */
static inline int int_slot_test(const plan *p, const node *n)
{
    const uint8_t *bytes = p->row->mv_data;
    if (n->in_bitmap && (bytes[p->cls->fixed_size + n->prop / 8] & (1u << (n->prop % 8)))) return n->op == OP_NE;
    int64_t v;
    memcpy(&v, bytes + n->offset, 8);
    switch (n->op) {
    case OP_EQ: return v == n->integer;
    case OP_NE: return v != n->integer;
    case OP_LT: return v < n->integer;
    case OP_LE: return v <= n->integer;
    case OP_GT: return v > n->integer;
    default: return v >= n->integer;
    }
}

/* A node, with int tests (most of a filter's terms) inline: no call for them. */
static inline int eval_inline(plan *p, node *n)
{
    return n->int_test ? int_slot_test(p, n) : eval_node(p, n);
}

static int eval_node(plan *p, node *n)
{
    switch (n->kind) {
    case NODE_TRUE: return 1;
    case NODE_FALSE: return 0;
    case NODE_AND:
        for (size_t i = 0; i < n->count; i++) {
            int r = eval_inline(p, n->kids[i]);
            if (r <= 0) return r;
        }
        return 1;
    case NODE_OR:
        for (size_t i = 0; i < n->count; i++) {
            int r = eval_inline(p, n->kids[i]);
            if (r != 0) return r;
        }
        return 0;
    case NODE_NOT: {
        int r = eval_node(p, n->kids[0]);
        return r < 0 ? r : !r;
    }
    case NODE_SLOT: {
        if (n->int_test) return int_slot_test(p, n);
        lar_value v;
        TRY(slot_value(p, n, &v));
        return n->test(p, n, &v);
    }
    case NODE_COMPARE: return n->left.memoized ? link_compare(p, n) : eval_compare(p, n);
    }
    return 0;
}

/* A string slot against one string (BRANCH_STRING): its bytes read in place and the
 * test called directly; a null or damaged slot goes the general way, which reports damage. */
static inline int string_slot_test(plan *p, node *n, const uint8_t *bytes)
{
    const uint8_t *data;
    size_t size;
    if ((n->in_bitmap && (bytes[p->cls->fixed_size + n->prop / 8] & (1u << (n->prop % 8)))) ||
        !row_var_bytes(p->cls, p->row, bytes + n->offset, true, &data, &size))
        return eval_node(p, n);
    lar_value v = {.type = LAR_TYPE_STRING, .as.string = {(const char *)data, size}};
    if (n->test == string_contains_folded) return string_contains_folded(p, n, &v);
    return n->test == string_folded ? string_folded(p, n, &v) : string_eq(p, n, &v);
}

__attribute__((noinline)) int plan_run_other(plan *p, const branch *b, const uint8_t *bytes)
{
    return b->kind == BRANCH_STRING ? string_slot_test(p, b->node, bytes)
         : b->kind == BRANCH_LINK   ? link_compare(p, b->node)
                                    : eval_node(p, b->node);
}

int plan_match(plan *p, lar_objkey key, const kv_val *row)
{
    return plan_match_inline(p, key, row);
}
