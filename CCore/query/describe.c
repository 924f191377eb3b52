/* The canonical text of a query: one spelling per operator and literal, parentheses
 * only where precedence needs them (NOT binds tighter than AND, AND than OR), arguments
 * as $n. Parsing it gives the same text again, and it never nests deeper than the text
 * it was parsed from (so a query within the nesting limit describes to one within it). */
#include "query/query.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const op_text[] = {"==", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH",
                                      "CONTAINS", "LIKE", "IN", "BETWEEN"};
static const char *const agg_text[] = {"", ".@count", ".@min", ".@max", ".@sum", ".@avg"};

static void out_path(text_out *o, const lar_query *q, const expr *e, unsigned flags)
{
    for (size_t i = 0; i < e->as.path.count; i++) {
        const path_step *s = &e->as.path.steps[i];
        if (i && s->kind != STEP_KEY) out_str(o, ".");
        switch (s->kind) {
        case STEP_PROPERTY: out_str(o, s->name); break;
        case STEP_VARIABLE: out_str(o, "$"); out_str(o, s->name); break;
        case STEP_BACKLINK:
            out_str(o, "@links");
            if (!s->class_name) break; /* @links.@count: the aggregate follows */
            out_str(o, "."); out_str(o, s->class_name); out_str(o, "."); out_str(o, s->name);
            break;
        case STEP_KEY: {
            lar_value v = {.type = LAR_TYPE_STRING, .as.string = {s->name, strlen(s->name)}};
            out_str(o, "[");
            out_value(o, &v, q->env);
            out_str(o, "]");
            break;
        }
        case STEP_KEYS: out_str(o, "@keys"); break;
        case STEP_VALUES: out_str(o, "@values"); break;
        case STEP_TYPE: out_str(o, "@type"); break;
        }
    }
    out_str(o, agg_text[e->as.path.agg]);
    (void)flags;
}

static void out_pred(text_out *o, const lar_query *q, const pred *x, unsigned flags);

void out_expr(text_out *o, const lar_query *q, const expr *e, unsigned flags)
{
    switch (e->kind) {
    case EXPR_KEYPATH: out_path(o, q, e, flags); break;
    case EXPR_CONSTANT: out_value(o, &e->as.constant, q->env); break;
    case EXPR_LIST:
        out_str(o, "{");
        for (size_t i = 0; i < e->as.list.count; i++) {
            if (i) out_str(o, ", ");
            out_expr(o, q, e->as.list.items[i], flags);
        }
        out_str(o, "}");
        break;
    case EXPR_SUBQUERY:
        out_str(o, "SUBQUERY(");
        out_path(o, q, e->as.subquery.collection, flags);
        out_str(o, ", $");
        out_str(o, e->as.subquery.variable);
        out_str(o, ", ");
        out_pred(o, q, e->as.subquery.predicate, flags);
        out_str(o, ").@count");
        break;
    case EXPR_ARGUMENT: {
        const bound_arg *b = q->args ? &q->args[e->as.arg.index] : NULL;
        if (e->as.arg.keypath) {
            if (b && b->kind == LAR_QUERY_ARG_KEYPATH) out_path(o, q, b->path, flags);
            else out_str(o, "%K");
        } else if ((flags & LAR_QUERY_DESCRIBE_VALUES) && b && b->kind == LAR_QUERY_ARG_VALUE) {
            out_value(o, &b->value, q->env);
        } else if ((flags & LAR_QUERY_DESCRIBE_VALUES) && b && b->kind == LAR_QUERY_ARG_LIST) {
            out_str(o, "{");
            for (size_t i = 0; i < b->list_count; i++) {
                if (i) out_str(o, ", ");
                out_value(o, &b->list[i], q->env);
            }
            out_str(o, "}");
        } else if (q->positional && q->has_keypath_args && !q->resolved) {
            out_str(o, "%@");
        } else {
            out_fmt(o, "$%ld", e->as.arg.index);
        }
        break;
    }
    }
}

static void out_pred(text_out *o, const lar_query *q, const pred *x, unsigned flags)
{
    switch (x->kind) {
    case PRED_TRUE: out_str(o, "TRUEPREDICATE"); break;
    case PRED_FALSE: out_str(o, "FALSEPREDICATE"); break;
    case PRED_AND: case PRED_OR:
        for (size_t i = 0; i < x->as.list.count; i++) {
            const pred *item = x->as.list.items[i];
            bool parens = x->kind == PRED_AND && item->kind == PRED_OR;
            if (i) out_str(o, x->kind == PRED_AND ? " AND " : " OR ");
            if (parens) out_str(o, "(");
            out_pred(o, q, item, flags);
            if (parens) out_str(o, ")");
        }
        break;
    case PRED_NOT: {
        bool parens = x->as.operand->kind == PRED_AND || x->as.operand->kind == PRED_OR;
        out_str(o, parens ? "NOT (" : "NOT ");
        out_pred(o, q, x->as.operand, flags);
        if (parens) out_str(o, ")");
        break;
    }
    case PRED_COMPARE: {
        static const char *const quant[] = {"", "ANY ", "ALL ", "NONE "};
        out_str(o, quant[x->as.cmp.quant]);
        out_expr(o, q, x->as.cmp.left, flags);
        out_str(o, " ");
        out_str(o, op_text[x->as.cmp.op]);
        if (x->as.cmp.options == OPT_CASE) out_str(o, "[c]");
        else if (x->as.cmp.options == OPT_DIACRITIC) out_str(o, "[d]");
        else if (x->as.cmp.options) out_str(o, "[cd]");
        out_str(o, " ");
        out_expr(o, q, x->as.cmp.right, flags);
        break;
    }
    }
}

void query_describe(const lar_query *q, text_out *o, unsigned flags)
{
    out_pred(o, q, q->root, flags);
    for (size_t i = 0; i < q->order_count; i++) {
        const order *d = &q->orders[i];
        if (d->kind == ORDER_LIMIT) {
            out_fmt(o, " LIMIT(%llu)", (unsigned long long)d->limit);
            continue;
        }
        out_str(o, d->kind == ORDER_SORT ? " SORT(" : " DISTINCT(");
        for (size_t j = 0; j < d->count; j++) {
            if (j) out_str(o, ", ");
            out_path(o, q, d->items[j].path, flags);
            if (d->kind == ORDER_SORT) out_str(o, d->items[j].ascending ? " ASC" : " DESC");
        }
        out_str(o, ")");
    }
}
