/* libFuzzer harness for the query builder (CCore/query/build.c, lar_query_new ...).
 *
 * The first byte picks a mode. Even: the rest is query text (a class byte, then the
 * text up to a NUL, as in fuzz_query); a query that parses is built again by calls
 * from its AST, and the built query must finish and describe exactly as the parsed
 * one. Odd: the rest is a program of builder calls, one opcode byte each with its
 * argument bytes (bytes past the end read as 0): key paths, steps, values of every
 * type, arguments, lists, subqueries, comparisons with operators, options and
 * quantifiers out of range among them, AND/OR/NOT, finish, describe and bind at any
 * point. Every failure must record LAR_EINVAL (or LAR_ENOMEM) with a message, and a
 * finished query's description must parse back to itself. */
#include "fuzz_support.h"
#include "query/query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static lar_env *env;
static lar_class classes[2];

static void setup(void)
{
    if (env) return;
    fuzz_remove_db();
    if (lar_env_open(fuzz_db_path, NULL, &env) != LAR_OK) abort();
    lar_property_def person[] = {
        {"name", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, NULL, NULL},
        {"dogs", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Dog", NULL},
    };
    lar_property_def dog[] = {
        {"name", LAR_TYPE_STRING, LAR_COLLECTION_NONE, 0, NULL, NULL},
        {"age", LAR_TYPE_INT, LAR_COLLECTION_NONE, 0, NULL, NULL},
        {"weight", LAR_TYPE_DOUBLE, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, NULL, NULL},
        {"price", LAR_TYPE_DECIMAL128, LAR_COLLECTION_NONE, 0, NULL, NULL},
        {"born", LAR_TYPE_TIMESTAMP, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, NULL, NULL},
        {"extra", LAR_TYPE_MIXED, LAR_COLLECTION_NONE, 0, NULL, NULL},
        {"owner", LAR_TYPE_LINK, LAR_COLLECTION_NONE, LAR_PROP_OPTIONAL, "Person", NULL},
        {"tags", LAR_TYPE_STRING, LAR_COLLECTION_LIST, 0, NULL, NULL},
        {"scores", LAR_TYPE_INT, LAR_COLLECTION_SET, 0, NULL, NULL},
        {"attrs", LAR_TYPE_STRING, LAR_COLLECTION_MAP, LAR_PROP_OPTIONAL, NULL, NULL},
        {"friends", LAR_TYPE_LINK, LAR_COLLECTION_LIST, 0, "Dog", NULL},
    };
    lar_class_def defs[] = {{"Person", person, 2, 0}, {"Dog", dog, sizeof dog / sizeof *dog, 0}};
    if (lar_schema_apply(env, defs, 2, 1) != LAR_OK) abort();
    for (int i = 0; i < 2; i++)
        if (lar_class_find(env, defs[i].name, &classes[i]) != LAR_OK) abort();
}

static void check_error(int rc)
{
    fuzz_consume_error(rc);
    if (rc != LAR_EINVAL && rc != LAR_ENOMEM) {
        fprintf(stderr, "unexpected code %d: %s\n", rc, lar_error_last()->message);
        abort();
    }
}

/* The query's description (the caller frees it), or NULL when it has none. */
static char *describe(const lar_query *q)
{
    size_t length;
    if (lar_query_describe(q, NULL, 0, &length, 0) != LAR_EINVAL) abort();
    if (length == 0) return NULL; /* not finished */
    char *text = malloc(length + 1);
    if (!text) abort();
    if (lar_query_describe(q, text, length + 1, NULL, 0) != LAR_OK || strlen(text) != length) abort();
    return text;
}

/* ---- text mode: parse, rebuild from the AST, compare ---- */

static int rebuild_pred(lar_query *b, const pred *x);

static int rebuild_path(lar_query *b, const expr *e)
{
    int rc = lar_query_push_path(b);
    for (size_t i = 0; i < e->as.path.count && rc == LAR_OK; i++) {
        const path_step *s = &e->as.path.steps[i];
        rc = lar_query_path_append(b, (lar_query_step)s->kind, s->name, s->class_name);
    }
    bool all_links = e->as.path.count && e->as.path.steps[0].kind == STEP_BACKLINK && !e->as.path.steps[0].class_name;
    if (rc == LAR_OK && e->as.path.agg != AGG_NONE && !all_links) /* @links.@count is one step */
        rc = lar_query_path_aggregate(b, (lar_query_aggregate)e->as.path.agg);
    return rc;
}

static int rebuild_expr(lar_query *b, const expr *e)
{
    int rc = LAR_OK;
    switch (e->kind) {
    case EXPR_KEYPATH: return rebuild_path(b, e);
    case EXPR_CONSTANT: return lar_query_push_value(b, &e->as.constant);
    case EXPR_ARGUMENT: return lar_query_push_argument(b, (size_t)e->as.arg.index);
    case EXPR_LIST:
        for (size_t i = 0; i < e->as.list.count && rc == LAR_OK; i++) rc = rebuild_expr(b, e->as.list.items[i]);
        return rc == LAR_OK ? lar_query_push_list(b, e->as.list.count) : rc;
    case EXPR_SUBQUERY:
        rc = rebuild_path(b, e->as.subquery.collection);
        if (rc == LAR_OK) rc = rebuild_pred(b, e->as.subquery.predicate);
        return rc == LAR_OK ? lar_query_subquery(b, e->as.subquery.variable) : rc;
    }
    abort();
}

static int rebuild_pred(lar_query *b, const pred *x)
{
    int rc = LAR_OK;
    switch (x->kind) {
    case PRED_TRUE: case PRED_FALSE: return lar_query_push_truth(b, x->kind == PRED_TRUE);
    case PRED_AND: case PRED_OR:
        for (size_t i = 0; i < x->as.list.count && rc == LAR_OK; i++) rc = rebuild_pred(b, x->as.list.items[i]);
        if (rc != LAR_OK) return rc;
        return x->kind == PRED_AND ? lar_query_and(b, x->as.list.count) : lar_query_or(b, x->as.list.count);
    case PRED_NOT:
        rc = rebuild_pred(b, x->as.operand);
        return rc == LAR_OK ? lar_query_not(b) : rc;
    case PRED_COMPARE:
        rc = rebuild_expr(b, x->as.cmp.left);
        if (rc == LAR_OK) rc = rebuild_expr(b, x->as.cmp.right);
        if (rc != LAR_OK) return rc;
        return lar_query_compare(b, (lar_query_op)x->as.cmp.op, x->as.cmp.options, (lar_query_quantifier)x->as.cmp.quant);
    }
    abort();
}

static void text_mode(const uint8_t *data, size_t size)
{
    if (size == 0) return;
    lar_class cls = classes[data[0] % 2];
    const uint8_t *nul = memchr(data + 1, 0, size - 1);
    size_t text_size = (size_t)((nul ? nul : data + size) - (data + 1));
    char *text = malloc(text_size + 1);
    if (!text) abort();
    memcpy(text, data + 1, text_size);
    text[text_size] = 0;
    lar_query *parsed = NULL, *built = NULL;
    int rc = lar_query_parse(env, cls, text, &parsed);
    free(text);
    if (rc != LAR_OK) return check_error(rc);
    if (parsed->has_keypath_args) return lar_query_free(parsed); /* %K: no builder counterpart */
    parsed->order_count = 0; /* SORT, DISTINCT, LIMIT: no builder counterpart */
    if (lar_query_new(env, cls, &built) != LAR_OK) abort();
    rc = rebuild_pred(built, parsed->root);
    if (rc == LAR_OK) rc = lar_query_finish(built);
    if (rc != LAR_OK) {
        /* The builder counts AND/OR levels the text writes without parentheses. */
        check_error(rc);
        if (!strstr(lar_error_last()->message, "nests deeper")) {
            fprintf(stderr, "rebuilding failed: %s\n", lar_error_last()->message);
            abort();
        }
    } else {
        char *a = describe(parsed), *b = describe(built);
        if (strcmp(a, b) != 0) {
            fprintf(stderr, "parsed %s, built %s\n", a, b);
            abort();
        }
        free(a);
        free(b);
    }
    lar_query_free(parsed);
    lar_query_free(built);
}

/* ---- program mode ---- */

typedef struct program {
    const uint8_t *at, *end;
} program;

static uint8_t u8(program *p) { return p->at < p->end ? *p->at++ : 0; }

static const char *const keypaths[] = {"age", "name", "owner.name", "tags", "friends", "friends.age", "attrs['k']",
                                       "attrs", "extra", "$x.age", "$x", "@links.Person.dogs", "scores.@count", "@links.@count",
                                       "owner..x", "\xff", "nosuch", "price", "weight"};
static const char *const names[] = {"age", "name", "owner", "tags", "friends", "attrs", "extra", "x", "k", "Person",
                                    "dogs", "1x", "", "\xc3", "scores", "weight", "price", "born"};

static const char *pick_name(program *p)
{
    uint8_t i = u8(p);
    return i == 255 ? NULL : names[i % (sizeof names / sizeof *names)];
}

static lar_value make_value(program *p)
{
    uint8_t pick = u8(p);
    lar_value v = {.type = (lar_type)(pick % 15)};
    uint8_t n = u8(p);
    switch (v.type) {
    case LAR_TYPE_INT: v.as.integer = (int64_t)n - 128; break;
    case LAR_TYPE_BOOL: v.as.boolean = n & 1; break;
    case LAR_TYPE_FLOAT: v.as.float32 = (float)n / 4; break;
    case LAR_TYPE_DOUBLE: v.as.float64 = (double)n / 8; break;
    case LAR_TYPE_STRING:
        v.as.string.data = (const char *)p->at;
        v.as.string.size = (size_t)(p->end - p->at) < n % 8 ? (size_t)(p->end - p->at) : n % 8;
        p->at += v.as.string.size;
        break;
    case LAR_TYPE_BINARY:
        v.as.binary.data = p->at;
        v.as.binary.size = (size_t)(p->end - p->at) < n % 8 ? (size_t)(p->end - p->at) : n % 8;
        p->at += v.as.binary.size;
        break;
    case LAR_TYPE_TIMESTAMP: v.as.timestamp.seconds = n; v.as.timestamp.nanoseconds = n % 3 == 0 ? -1 : 5; break;
    case LAR_TYPE_DECIMAL128: v.as.decimal128.high = 0x3040000000000000ull; v.as.decimal128.low = n; break;
    case LAR_TYPE_LINK: v.as.link.cls = classes[n % 2]; v.as.link.key = n; break;
    default: break;
    }
    return v;
}

static void bind_some(lar_query *q, program *p)
{
    size_t count = 0;
    if (lar_query_argument_count(q, &count) != LAR_OK) abort();
    if (count > 4) count = 4;
    lar_query_arg args[5];
    lar_value lists[5][2];
    size_t n = count + (u8(p) == 7); /* now and then one too many */
    for (size_t i = 0; i < n; i++) {
        memset(&args[i], 0, sizeof args[i]);
        args[i].kind = (lar_query_arg_kind)(u8(p) % 4);
        args[i].value = make_value(p);
        lists[i][0] = args[i].value;
        lists[i][1] = make_value(p);
        args[i].list = lists[i];
        args[i].list_count = u8(p) % 3;
        args[i].keypath = keypaths[u8(p) % (sizeof keypaths / sizeof *keypaths)];
    }
    int rc = lar_query_bind(q, args, n);
    if (rc != LAR_OK) check_error(rc);
}

static void program_mode(const uint8_t *data, size_t size)
{
    program p = {data, data + size};
    lar_query *q;
    if (lar_query_new(env, classes[u8(&p) % 2], &q) != LAR_OK) abort();
    while (p.at < p.end) {
        int rc = LAR_OK;
        switch (u8(&p) % 16) {
        case 0: rc = lar_query_push_keypath(q, keypaths[u8(&p) % (sizeof keypaths / sizeof *keypaths)]); break;
        case 1: rc = lar_query_push_path(q); break;
        case 2: {
            lar_query_step step = (lar_query_step)(u8(&p) % 9);
            const char *name = pick_name(&p);
            rc = lar_query_path_append(q, step, name, pick_name(&p));
            break;
        }
        case 3: rc = lar_query_path_aggregate(q, (lar_query_aggregate)(u8(&p) % 7)); break;
        case 4: {
            lar_value v = make_value(&p);
            rc = lar_query_push_value(q, &v);
            break;
        }
        case 5: rc = lar_query_push_argument(q, (size_t)u8(&p) * 5 % 1100); break;
        case 6: rc = lar_query_push_list(q, u8(&p) % 5); break;
        case 7: rc = lar_query_subquery(q, u8(&p) % 4 ? "x" : pick_name(&p)); break;
        case 8: rc = lar_query_push_truth(q, u8(&p) & 1); break;
        case 9: {
            uint8_t op = u8(&p), options = u8(&p), quant = u8(&p);
            rc = lar_query_compare(q, (lar_query_op)(op % 14), options % 5, (lar_query_quantifier)(quant % 5));
            break;
        }
        case 10: rc = lar_query_and(q, u8(&p) % 4); break;
        case 11: rc = lar_query_or(q, u8(&p) % 4); break;
        case 12: rc = lar_query_not(q); break;
        case 13: rc = lar_query_finish(q); break;
        case 14: free(describe(q)); break;
        case 15: bind_some(q, &p); break;
        }
        if (rc != LAR_OK) check_error(rc);
    }
    int rc = lar_query_finish(q);
    if (rc != LAR_OK) check_error(rc);
    char *text = describe(q);
    /* Objects describe as obj(...), which the parser does not read. */
    if (text && !strstr(text, "obj(")) {
        lar_query *again = NULL;
        lar_class cls;
        memcpy(&cls, &q->cls, sizeof cls);
        if (lar_query_parse(env, cls, text, &again) != LAR_OK) {
            fprintf(stderr, "built query %s does not parse: %s\n", text, lar_error_last()->message);
            abort();
        }
        char *back = describe(again);
        if (strcmp(back, text) != 0) {
            fprintf(stderr, "built %s, parsed back as %s\n", text, back);
            abort();
        }
        free(back);
        lar_query_free(again);
    }
    free(text);
    lar_query_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    if (size == 0) return 0;
    if (data[0] & 1) program_mode(data + 1, size - 1);
    else text_mode(data + 1, size - 1);
    return 0;
}
