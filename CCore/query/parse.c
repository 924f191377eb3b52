/* The query parser: recursive descent over the lexer's tokens, building the AST in
 * the query's arena. Depth is counted, so deep nesting fails cleanly. */
#include "query/query.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef struct parser {
    lexer lx;
    lar_query *q;
    int depth;
    long next_positional;  /* the next %@/%K index */
    bool dollar_used;
} parser;

#define TOK (&p->lx.tok)
#define TRY(expr) do { int rc_ = (expr); if (rc_ != LAR_OK) return rc_; } while (0)

static int oom(void) { return lar_fail(LAR_ENOMEM, "out of memory"); }

static int advance(parser *p) { return lex_next(&p->lx); }

static bool is_word(const token *t, const char *word)
{
    return t->kind == TOK_IDENT && strlen(word) == t->length && strncasecmp(t->start, word, t->length) == 0;
}

static bool is_at(const token *t, const char *word)
{
    return t->kind == TOK_AT && strlen(word) == t->length && strncasecmp(t->start, word, t->length) == 0;
}

static const char *describe_token(const token *t, char *buf, size_t size)
{
    if (t->kind == TOK_END) return "the end of the query";
    size_t n = t->length ? t->length : 1;
    if (n > 40) {
        n = 40;
        while (n && ((unsigned char)t->start[n] & 0xC0) == 0x80) n--; /* whole characters */
    }
    snprintf(buf, size, "'%.*s'", (int)n, t->start);
    return buf;
}

static int expected(parser *p, const char *what)
{
    char buf[64];
    return lar_fail(LAR_EINVAL, "expected %s but found %s at column %d", what,
                    describe_token(TOK, buf, sizeof buf), TOK->column);
}

static int expect(parser *p, tok_kind kind, const char *what)
{
    if (TOK->kind != kind) return expected(p, what);
    return advance(p);
}

static int enter(parser *p)
{
    if (++p->depth > QUERY_MAX_DEPTH)
        return lar_fail(LAR_EINVAL, "the query nests deeper than %d levels at column %d", QUERY_MAX_DEPTH,
                        TOK->column);
    return LAR_OK;
}

/* Keywords that cannot begin a key path. */
static bool reserved(const token *t)
{
    static const char *const words[] = {"and", "or", "not", "any", "some", "all", "none", "in", "between",
                                        "beginswith", "endswith", "contains", "like", "truepredicate",
                                        "falsepredicate", "nil", "null", "true", "false", "subquery",
                                        "sort", "distinct", "limit", "inf", "infinity", "nan"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (is_word(t, words[i])) return true;
    return false;
}

static expr *new_expr(parser *p, expr_kind kind, int column)
{
    expr *e = arena_alloc(&p->q->arena, sizeof *e);
    if (e) {
        e->kind = kind;
        e->column = column;
        if (kind == EXPR_KEYPATH) e->as.path.keypath_arg = -1;
    }
    return e;
}

/* ---- key paths ---- */

typedef struct step_list {
    path_step *items;
    size_t count, capacity;
} step_list;

static path_step *add_step(parser *p, step_list *l, step_kind kind, int column)
{
    if (l->count == l->capacity) {
        size_t capacity = l->capacity ? l->capacity * 2 : 4;
        path_step *items = arena_alloc(&p->q->arena, capacity * sizeof *items);
        if (!items) return NULL;
        if (l->count) memcpy(items, l->items, l->count * sizeof *items);
        l->items = items;
        l->capacity = capacity;
    }
    path_step *s = &l->items[l->count++];
    s->kind = kind;
    s->column = column;
    return s;
}

static char *token_text(parser *p, size_t skip)
{
    return arena_strndup(&p->q->arena, TOK->start + skip, TOK->length - skip);
}

/* After the first step: .name, .@aggregate, .@keys/@values/@type, ['key']. */
static int parse_path_rest(parser *p, expr *e, step_list *steps)
{
    for (;;) {
        if (e->as.path.agg != AGG_NONE && (TOK->kind == TOK_DOT || TOK->kind == TOK_LBRACK))
            return lar_fail(LAR_EINVAL, "nothing may follow an aggregate in a key path at column %d", TOK->column);
        if (TOK->kind == TOK_LBRACK) {
            int column = TOK->column;
            TRY(advance(p));
            if (TOK->kind != TOK_STRING) return expected(p, "a string key in '[...]'");
            path_step *s = add_step(p, steps, STEP_KEY, column);
            if (!s) return oom();
            s->name = arena_strndup(&p->q->arena, TOK->value.as.string.data, TOK->value.as.string.size);
            if (!s->name) return oom();
            if (strlen(s->name) != TOK->value.as.string.size)
                return lar_fail(LAR_EINVAL, "a map key cannot hold a NUL character at column %d", TOK->column);
            TRY(advance(p));
            TRY(expect(p, TOK_RBRACK, "']'"));
            continue;
        }
        if (TOK->kind != TOK_DOT) break;
        TRY(advance(p));
        int column = TOK->column;
        if (TOK->kind == TOK_IDENT) {
            path_step *s = add_step(p, steps, STEP_PROPERTY, column);
            if (!s || !(s->name = token_text(p, 0))) return oom();
            TRY(advance(p));
        } else if (TOK->kind == TOK_AT) {
            aggregate agg = AGG_NONE;
            step_kind kind = STEP_PROPERTY;
            if (is_at(TOK, "@count") || is_at(TOK, "@size")) agg = AGG_COUNT;
            else if (is_at(TOK, "@min")) agg = AGG_MIN;
            else if (is_at(TOK, "@max")) agg = AGG_MAX;
            else if (is_at(TOK, "@sum")) agg = AGG_SUM;
            else if (is_at(TOK, "@avg")) agg = AGG_AVG;
            else if (is_at(TOK, "@keys") || is_at(TOK, "@allKeys")) kind = STEP_KEYS;
            else if (is_at(TOK, "@values") || is_at(TOK, "@allValues")) kind = STEP_VALUES;
            else if (is_at(TOK, "@type")) kind = STEP_TYPE;
            else if (is_at(TOK, "@links"))
                return lar_fail(LAR_EINVAL, "@links must begin a key path at column %d", column);
            else
                return lar_fail(LAR_EINVAL, "unknown operator '%.*s' at column %d", (int)(TOK->length > 40 ? 40 : TOK->length),
                                TOK->start, column);
            if (agg != AGG_NONE) {
                e->as.path.agg = agg;
                e->as.path.agg_column = column;
            } else if (!add_step(p, steps, kind, column)) {
                return oom();
            }
            TRY(advance(p));
        } else {
            return expected(p, "a property name or an operator after '.'");
        }
    }
    e->as.path.steps = steps->items;
    e->as.path.count = steps->count;
    return LAR_OK;
}

static int parse_keypath(parser *p, expr **out, bool allow_variable)
{
    expr *e = new_expr(p, EXPR_KEYPATH, TOK->column);
    if (!e) return oom();
    step_list steps = {0};
    if (TOK->kind == TOK_IDENT) {
        if (reserved(TOK)) return expected(p, "a key path");
        path_step *s = add_step(p, &steps, STEP_PROPERTY, TOK->column);
        if (!s || !(s->name = token_text(p, 0))) return oom();
        TRY(advance(p));
    } else if (TOK->kind == TOK_VAR) {
        if (!allow_variable)
            return lar_fail(LAR_EINVAL, "variable '%.*s' used outside a SUBQUERY at column %d",
                            (int)(TOK->length > 40 ? 40 : TOK->length), TOK->start, TOK->column);
        path_step *s = add_step(p, &steps, STEP_VARIABLE, TOK->column);
        if (!s || !(s->name = token_text(p, 1))) return oom();
        TRY(advance(p));
    } else if (is_at(TOK, "@links")) {
        int column = TOK->column;
        TRY(advance(p));
        TRY(expect(p, TOK_DOT, "'.' after @links"));
        if (is_at(TOK, "@count") || is_at(TOK, "@size")) { /* every link into the object, counted */
            if (!add_step(p, &steps, STEP_BACKLINK, column)) return oom();
            e->as.path.agg = AGG_COUNT;
            e->as.path.agg_column = TOK->column;
            TRY(advance(p));
            TRY(parse_path_rest(p, e, &steps));
            *out = e;
            return LAR_OK;
        }
        if (TOK->kind != TOK_IDENT) return expected(p, "a class name or @count after '@links.'");
        path_step *s = add_step(p, &steps, STEP_BACKLINK, column);
        if (!s || !(s->class_name = token_text(p, 0))) return oom();
        TRY(advance(p));
        TRY(expect(p, TOK_DOT, "'.' after the class name of @links"));
        if (TOK->kind != TOK_IDENT) return expected(p, "a property name after '@links.<class>.'");
        if (!(s->name = token_text(p, 0))) return oom();
        TRY(advance(p));
    } else {
        return expected(p, "a key path");
    }
    TRY(parse_path_rest(p, e, &steps));
    *out = e;
    return LAR_OK;
}

/* ---- expressions ---- */

static int parse_pred(parser *p, pred **out);

static int take_argument(parser *p, expr **out, bool keypath)
{
    expr *e = new_expr(p, EXPR_ARGUMENT, TOK->column);
    if (!e) return oom();
    if (TOK->kind == TOK_ARG_N) {
        if (p->next_positional) return lar_fail(LAR_EINVAL, "a query cannot mix $n with %%@ or %%K at column %d", TOK->column);
        p->dollar_used = true;
        e->as.arg.index = TOK->index;
    } else {
        if (p->dollar_used) return lar_fail(LAR_EINVAL, "a query cannot mix %%@ or %%K with $n at column %d", TOK->column);
        if (p->next_positional >= QUERY_MAX_ARGS)
            return lar_fail(LAR_EINVAL, "too many arguments at column %d", TOK->column);
        e->as.arg.index = p->next_positional++;
        p->q->positional = true;
    }
    e->as.arg.keypath = keypath;
    if (keypath) p->q->has_keypath_args = true;
    if (e->as.arg.index + 1 > p->q->arg_count) p->q->arg_count = e->as.arg.index + 1;
    TRY(advance(p));
    *out = e;
    return LAR_OK;
}

static int parse_expr(parser *p, expr **out, bool allow_variable);

static int parse_list(parser *p, expr **out, bool allow_variable)
{
    expr *e = new_expr(p, EXPR_LIST, TOK->column);
    if (!e) return oom();
    TRY(advance(p));
    size_t capacity = 0;
    if (TOK->kind != TOK_RBRACE) {
        for (;;) {
            if (e->as.list.count == capacity) {
                capacity = capacity ? capacity * 2 : 4;
                expr **items = arena_alloc(&p->q->arena, capacity * sizeof *items);
                if (!items) return oom();
                if (e->as.list.count) memcpy(items, e->as.list.items, e->as.list.count * sizeof *items);
                e->as.list.items = items;
            }
            int column = TOK->column;
            if (TOK->kind == TOK_LBRACE) return lar_fail(LAR_EINVAL, "lists cannot nest at column %d", column);
            expr *item;
            TRY(parse_expr(p, &item, allow_variable));
            if (item->kind != EXPR_CONSTANT && item->kind != EXPR_ARGUMENT)
                return lar_fail(LAR_EINVAL, "a list may hold only literals and arguments at column %d", column);
            if (item->kind == EXPR_ARGUMENT && item->as.arg.keypath)
                return lar_fail(LAR_EINVAL, "%%K cannot be a list element at column %d", column);
            e->as.list.items[e->as.list.count++] = item;
            if (TOK->kind == TOK_COMMA) {
                TRY(advance(p));
                continue;
            }
            break;
        }
    }
    TRY(expect(p, TOK_RBRACE, "',' or '}'"));
    *out = e;
    return LAR_OK;
}

static int parse_subquery(parser *p, expr **out, bool allow_variable)
{
    expr *e = new_expr(p, EXPR_SUBQUERY, TOK->column);
    if (!e) return oom();
    TRY(enter(p));
    TRY(advance(p));
    TRY(expect(p, TOK_LPAREN, "'(' after SUBQUERY"));
    TRY(parse_keypath(p, &e->as.subquery.collection, allow_variable));
    if (e->as.subquery.collection->as.path.agg != AGG_NONE)
        return lar_fail(LAR_EINVAL, "a SUBQUERY's collection cannot end in an aggregate at column %d",
                        e->as.subquery.collection->as.path.agg_column);
    TRY(expect(p, TOK_COMMA, "',' after the SUBQUERY's collection"));
    if (TOK->kind != TOK_VAR) return expected(p, "a variable such as '$x'");
    e->as.subquery.variable_column = TOK->column;
    if (!(e->as.subquery.variable = token_text(p, 1))) return oom();
    TRY(advance(p));
    TRY(expect(p, TOK_COMMA, "',' after the SUBQUERY's variable"));
    TRY(parse_pred(p, &e->as.subquery.predicate));
    TRY(expect(p, TOK_RPAREN, "')' to close the SUBQUERY"));
    if (TOK->kind != TOK_DOT) return lar_fail(LAR_EINVAL, "SUBQUERY must be followed by .@count at column %d", TOK->column);
    TRY(advance(p));
    if (!is_at(TOK, "@count") && !is_at(TOK, "@size"))
        return lar_fail(LAR_EINVAL, "SUBQUERY must be followed by .@count at column %d", TOK->column);
    TRY(advance(p));
    p->depth--;
    *out = e;
    return LAR_OK;
}

static int parse_expr(parser *p, expr **out, bool allow_variable)
{
    token *t = TOK;
    expr *e;
    switch (t->kind) {
    case TOK_INT: case TOK_FLOAT: case TOK_STRING: case TOK_BINARY: case TOK_TIMESTAMP:
    case TOK_OID: case TOK_UUID: case TOK_DECIMAL:
        if (t->kind == TOK_TIMESTAMP) {
            lar_timestamp ts = t->value.as.timestamp;
            if (ts.nanoseconds > 999999999 || ts.nanoseconds < -999999999 ||
                (ts.seconds > 0 && ts.nanoseconds < 0) || (ts.seconds < 0 && ts.nanoseconds > 0))
                return lar_fail(LAR_EINVAL,
                                "bad timestamp: nanoseconds must be within +-999999999 and of the seconds' sign at column %d",
                                t->column);
        }
        if (!(e = new_expr(p, EXPR_CONSTANT, t->column))) return oom();
        e->as.constant = e->literal = t->value;
        e->text = t->start;
        e->text_size = t->length;
        TRY(advance(p));
        *out = e;
        return LAR_OK;
    case TOK_ARG_AT: case TOK_ARG_N:
        return take_argument(p, out, false);
    case TOK_ARG_K:
        return take_argument(p, out, true);
    case TOK_LBRACE:
        return parse_list(p, out, allow_variable);
    case TOK_IDENT:
        if (is_word(t, "true") || is_word(t, "false") || is_word(t, "nil") || is_word(t, "null") ||
            is_word(t, "inf") || is_word(t, "infinity") || is_word(t, "nan")) {
            if (!(e = new_expr(p, EXPR_CONSTANT, t->column))) return oom();
            if (is_word(t, "true") || is_word(t, "false")) {
                e->as.constant.type = LAR_TYPE_BOOL;
                e->as.constant.as.boolean = is_word(t, "true");
            } else if (is_word(t, "nil") || is_word(t, "null")) {
                e->as.constant.type = LAR_TYPE_NULL;
            } else {
                e->as.constant.type = LAR_TYPE_DOUBLE;
                e->as.constant.as.float64 = is_word(t, "nan") ? NAN : INFINITY;
            }
            e->literal = e->as.constant;
            TRY(advance(p));
            *out = e;
            return LAR_OK;
        }
        if (is_word(t, "subquery")) return parse_subquery(p, out, allow_variable);
        return parse_keypath(p, out, allow_variable);
    case TOK_VAR: case TOK_AT:
        return parse_keypath(p, out, allow_variable);
    default:
        return expected(p, "a key path, a literal or an argument");
    }
}

/* ---- predicates ---- */

static pred *new_pred(parser *p, pred_kind kind, int column)
{
    pred *x = arena_alloc(&p->q->arena, sizeof *x);
    if (x) {
        x->kind = kind;
        x->column = column;
    }
    return x;
}

static bool op_word(const token *t, cmp_op *op)
{
    if (t->kind == TOK_OP) { *op = t->op; return true; }
    static const struct { const char *word; cmp_op op; } words[] = {
        {"beginswith", OP_BEGINSWITH}, {"endswith", OP_ENDSWITH}, {"contains", OP_CONTAINS},
        {"like", OP_LIKE}, {"in", OP_IN}, {"between", OP_BETWEEN},
    };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (is_word(t, words[i].word)) { *op = words[i].op; return true; }
    return false;
}

static int parse_comparison(parser *p, pred **out, bool allow_variable)
{
    pred *x = new_pred(p, PRED_COMPARE, TOK->column);
    if (!x) return oom();
    if (is_word(TOK, "any") || is_word(TOK, "some") || is_word(TOK, "all") || is_word(TOK, "none")) {
        x->as.cmp.quant = is_word(TOK, "all") ? QUANT_ALL : is_word(TOK, "none") ? QUANT_NONE : QUANT_ANY;
        x->as.cmp.quant_column = TOK->column;
        TRY(advance(p));
    }
    TRY(parse_expr(p, &x->as.cmp.left, allow_variable));
    cmp_op op;
    if (!op_word(TOK, &op)) return expected(p, "a comparison operator");
    x->as.cmp.op = op;
    x->as.cmp.op_column = TOK->column;
    TRY(advance(p));
    /* Options: [c], [d], [cd] right after the operator. */
    if (TOK->kind == TOK_LBRACK) {
        int column = TOK->column;
        TRY(advance(p));
        unsigned options = 0;
        if (is_word(TOK, "c")) options = OPT_CASE;
        else if (is_word(TOK, "d")) options = OPT_DIACRITIC;
        else if (is_word(TOK, "cd") || is_word(TOK, "dc")) options = OPT_CASE | OPT_DIACRITIC;
        else return lar_fail(LAR_EINVAL, "unknown comparison option at column %d: expected [c], [d] or [cd]", TOK->column);
        TRY(advance(p));
        TRY(expect(p, TOK_RBRACK, "']' after the comparison's options"));
        if (op != OP_EQ && op != OP_NE && op != OP_BEGINSWITH && op != OP_ENDSWITH && op != OP_CONTAINS &&
            op != OP_LIKE && op != OP_IN)
            return lar_fail(LAR_EINVAL, "options [c] and [d] apply only to ==, !=, IN and the string operators at column %d",
                            column);
        x->as.cmp.options = options;
    }
    TRY(parse_expr(p, &x->as.cmp.right, allow_variable));
    *out = x;
    return LAR_OK;
}

static int parse_not(parser *p, pred **out, bool allow_variable);
static int parse_or(parser *p, pred **out, bool allow_variable);

static int parse_atom(parser *p, pred **out, bool allow_variable)
{
    if (TOK->kind == TOK_LPAREN) {
        TRY(enter(p));
        TRY(advance(p));
        TRY(parse_or(p, out, allow_variable));
        TRY(expect(p, TOK_RPAREN, "')'"));
        p->depth--;
        return LAR_OK;
    }
    if (is_word(TOK, "truepredicate") || is_word(TOK, "falsepredicate")) {
        pred *x = new_pred(p, is_word(TOK, "truepredicate") ? PRED_TRUE : PRED_FALSE, TOK->column);
        if (!x) return oom();
        TRY(advance(p));
        *out = x;
        return LAR_OK;
    }
    return parse_comparison(p, out, allow_variable);
}

static int parse_not(parser *p, pred **out, bool allow_variable)
{
    if (TOK->kind == TOK_NOT || is_word(TOK, "not")) {
        pred *x = new_pred(p, PRED_NOT, TOK->column);
        if (!x) return oom();
        TRY(enter(p));
        TRY(advance(p));
        TRY(parse_not(p, &x->as.operand, allow_variable));
        p->depth--;
        *out = x;
        return LAR_OK;
    }
    return parse_atom(p, out, allow_variable);
}

/* AND and OR chains become one node with every operand (flattened: "(a AND b) AND c" too). */
static int append_operand(parser *p, pred *chain, pred *item, size_t *capacity)
{
    if (item->kind == chain->kind) {
        for (size_t i = 0; i < item->as.list.count; i++)
            TRY(append_operand(p, chain, item->as.list.items[i], capacity));
        return LAR_OK;
    }
    if (chain->as.list.count == *capacity) {
        *capacity = *capacity ? *capacity * 2 : 4;
        pred **items = arena_alloc(&p->q->arena, *capacity * sizeof *items);
        if (!items) return oom();
        if (chain->as.list.count) memcpy(items, chain->as.list.items, chain->as.list.count * sizeof *items);
        chain->as.list.items = items;
    }
    chain->as.list.items[chain->as.list.count++] = item;
    return LAR_OK;
}

static int parse_chain(parser *p, pred **out, bool allow_variable, pred_kind kind)
{
    pred *first;
    if (kind == PRED_AND) TRY(parse_not(p, &first, allow_variable));
    else TRY(parse_chain(p, &first, allow_variable, PRED_AND));
    tok_kind symbol = kind == PRED_AND ? TOK_AND : TOK_OR;
    const char *word = kind == PRED_AND ? "and" : "or";
    if (TOK->kind != symbol && !is_word(TOK, word)) {
        *out = first;
        return LAR_OK;
    }
    pred *chain = new_pred(p, kind, first->column);
    if (!chain) return oom();
    size_t capacity = 0;
    TRY(append_operand(p, chain, first, &capacity));
    while (TOK->kind == symbol || is_word(TOK, word)) {
        TRY(advance(p));
        pred *next;
        if (kind == PRED_AND) TRY(parse_not(p, &next, allow_variable));
        else TRY(parse_chain(p, &next, allow_variable, PRED_AND));
        TRY(append_operand(p, chain, next, &capacity));
    }
    *out = chain;
    return LAR_OK;
}

static int parse_or(parser *p, pred **out, bool allow_variable)
{
    return parse_chain(p, out, allow_variable, PRED_OR);
}

static int parse_pred(parser *p, pred **out)
{
    return parse_or(p, out, true);
}

/* ---- suffixes ---- */

static int parse_orders(parser *p)
{
    size_t capacity = 0;
    while (TOK->kind != TOK_END) {
        order_kind kind;
        if (is_word(TOK, "sort")) kind = ORDER_SORT;
        else if (is_word(TOK, "distinct")) kind = ORDER_DISTINCT;
        else if (is_word(TOK, "limit")) kind = ORDER_LIMIT;
        else return expected(p, "AND, OR, SORT, DISTINCT, LIMIT or the end of the query");
        lar_query *q = p->q;
        if (q->order_count == capacity) {
            capacity = capacity ? capacity * 2 : 4;
            order *orders = arena_alloc(&q->arena, capacity * sizeof *orders);
            if (!orders) return oom();
            if (q->order_count) memcpy(orders, q->orders, q->order_count * sizeof *orders);
            q->orders = orders;
        }
        order *o = &q->orders[q->order_count++];
        o->kind = kind;
        o->column = TOK->column;
        TRY(advance(p));
        TRY(expect(p, TOK_LPAREN, "'('"));
        if (kind == ORDER_LIMIT) {
            if (TOK->kind != TOK_INT || TOK->value.as.integer < 0) return expected(p, "a count of zero or more");
            o->limit = (uint64_t)TOK->value.as.integer;
            TRY(advance(p));
        } else {
            size_t item_capacity = 0;
            for (;;) {
                if (o->count == item_capacity) {
                    item_capacity = item_capacity ? item_capacity * 2 : 4;
                    order_item *items = arena_alloc(&q->arena, item_capacity * sizeof *items);
                    if (!items) return oom();
                    if (o->count) memcpy(items, o->items, o->count * sizeof *items);
                    o->items = items;
                }
                order_item *item = &o->items[o->count++];
                TRY(parse_keypath(p, &item->path, false));
                item->ascending = true;
                if (kind == ORDER_SORT) {
                    if (is_word(TOK, "asc") || is_word(TOK, "ascending")) TRY(advance(p));
                    else if (is_word(TOK, "desc") || is_word(TOK, "descending")) {
                        item->ascending = false;
                        TRY(advance(p));
                    } else return expected(p, "ASC or DESC");
                }
                if (TOK->kind != TOK_COMMA) break;
                TRY(advance(p));
            }
        }
        TRY(expect(p, TOK_RPAREN, "')'"));
    }
    return LAR_OK;
}

int query_parse_text(lar_query *q)
{
    parser p = {.q = q};
    p.lx.text = p.lx.at = q->text;
    p.lx.end = q->text + strlen(q->text);
    p.lx.arena = &q->arena;
    TRY(lex_next(&p.lx));
    if (p.lx.tok.kind == TOK_END) return lar_fail(LAR_EINVAL, "the query is empty");
    TRY(parse_or(&p, &q->root, false));
    return parse_orders(&p);
}

int query_parse_keypath(lar_query *q, const char *text, expr **out)
{
    return query_parse_path(q, text, false, out);
}

int query_parse_path(lar_query *q, const char *text, bool allow_variable, expr **out)
{
    parser p = {.q = q};
    p.lx.text = p.lx.at = text;
    p.lx.end = text + strlen(text);
    p.lx.arena = &q->arena;
    TRY(lex_next(&p.lx));
    TRY(parse_keypath(&p, out, allow_variable));
    if (p.lx.tok.kind != TOK_END) return expected(&p, "the end of the key path");
    return LAR_OK;
}
