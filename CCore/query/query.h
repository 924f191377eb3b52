/* Layer query: Realm's query language, parsed into an AST and resolved against a
 * class's schema, and run. Above object (the evaluator reads objects).
 *
 *   query.c     the public lar_query_* functions and the arena every node lives in
 *   lex.c       the lexer: tokens with their 1-based columns
 *   literal.c   literals: timestamps, ObjectIds, UUIDs, decimal128, base64
 *   parse.c     the recursive-descent parser: text -> AST
 *   resolve.c   the second pass: key paths -> property indexes, type checks
 *   describe.c  the canonical text of an AST (parse -> describe -> parse is stable)
 *   build.c     the builder: an AST made by calls (the Swift DSL), no text
 * and, running queries (results.h, plan.h):
 *   compile.c   a resolved query -> a plan, a tree of checks over rows
 *   program.c   the plan's tree flattened into the branch program each row runs through
 *   eval.c      a plan run on rows: key paths walked, values compared and aggregated
 *   compare.c   values compared as queries do; decimal arithmetic for @sum and @avg
 *   fold.c      string operators, [c] and [d]
 *   probe.c     index probes: the candidates a primary key or index names
 *   results.c   lar_query_run and the lar_results handle
 *
 * Every node and string of a query lives in its arena: an error anywhere frees the
 * arena and leaks nothing. */
#ifndef LARDER_QUERY_H
#define LARDER_QUERY_H

#include "object/object.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Nesting deeper than this (parentheses, NOT, subqueries) is refused. */
#define QUERY_MAX_DEPTH 200
/* The highest argument index ($n, or the n-th %@/%K). */
#define QUERY_MAX_ARGS 1024

/* ---- arena ---- */

typedef struct arena_block arena_block;
typedef struct arena {
    arena_block *head;
    bool small_start;      /* the first block is small (see arena_alloc) */
} arena;

void *arena_alloc(arena *a, size_t size); /* zeroed; NULL when out of memory */
char *arena_strndup(arena *a, const char *s, size_t n);
void arena_free(arena *a);

/* ---- tokens ---- */

typedef enum tok_kind {
    TOK_END, TOK_IDENT, TOK_INT, TOK_FLOAT, TOK_STRING, TOK_BINARY, TOK_TIMESTAMP, TOK_OID,
    TOK_UUID, TOK_DECIMAL, TOK_ARG_AT, TOK_ARG_K, TOK_ARG_N, TOK_VAR, TOK_AT, TOK_LPAREN,
    TOK_RPAREN, TOK_LBRACE, TOK_RBRACE, TOK_LBRACK, TOK_RBRACK, TOK_COMMA, TOK_DOT, TOK_OP,
    TOK_AND, TOK_OR, TOK_NOT,
} tok_kind;

typedef enum cmp_op {
    OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_BEGINSWITH, OP_ENDSWITH, OP_CONTAINS, OP_LIKE,
    OP_IN, OP_BETWEEN,
} cmp_op;

typedef struct token {
    tok_kind kind;
    int column;            /* 1-based, in characters */
    const char *start;     /* the token's text */
    size_t length;
    cmp_op op;             /* TOK_OP */
    lar_value value;       /* literals; strings and binaries in the query's arena */
    long index;            /* TOK_ARG_N */
} token;

typedef struct lexer {
    const char *text, *at, *end;
    const char *counted;   /* lex_column's cache: column of counted (0: none yet) */
    int counted_column;
    arena *arena;
    token tok;             /* the current token */
} lexer;

/* Reads the next token into lx->tok; LAR_EINVAL with the column on a bad token. */
int lex_next(lexer *lx);
int lex_column(lexer *lx, const char *at);

/* ---- literals (literal.c) ---- */

/* Each returns false when the text is not one. */
bool literal_oid(const char *s, size_t n, lar_object_id *out);
bool literal_uuid(const char *s, size_t n, lar_uuid *out);
/* "1.5", "-2e10", "inf", "-inf", "nan", "NaN", "+Inf": at most 34 significant digits. */
bool literal_decimal(const char *s, size_t n, lar_decimal128 *out);
/* YYYY-MM-DD@HH:MM:SS[:nanos] or with 'T' for '@'; *used receives its length. */
bool literal_date(const char *s, size_t n, lar_timestamp *out, size_t *used);
bool literal_base64(arena *a, const char *s, size_t n, lar_binary *out);
/* Appends the canonical text of these to a describe buffer. */
typedef struct text_out {
    char *buffer;
    size_t size, length;   /* length counts every byte, also those that did not fit */
} text_out;
void out_bytes(text_out *o, const char *s, size_t n);
void out_str(text_out *o, const char *s);
void out_fmt(text_out *o, const char *format, ...) __attribute__((format(printf, 2, 3)));
void out_decimal(text_out *o, lar_decimal128 d);
void out_base64(text_out *o, const void *data, size_t size);
void out_value(text_out *o, const lar_value *v, lar_env *env);

/* ---- AST ---- */

typedef enum step_kind {
    STEP_PROPERTY,   /* name */
    STEP_VARIABLE,   /* $name: a subquery's element (first step only) */
    STEP_BACKLINK,   /* @links.Class.property */
    STEP_KEY,        /* ['key'] on a map */
    STEP_KEYS,       /* .@keys */
    STEP_VALUES,     /* .@values */
    STEP_TYPE,       /* .@type */
} step_kind;

typedef enum aggregate {
    AGG_NONE, AGG_COUNT, AGG_MIN, AGG_MAX, AGG_SUM, AGG_AVG,
} aggregate;

typedef struct path_step {
    step_kind kind;
    int column;
    const char *name;      /* property, variable, key, or the backlink's property */
    const char *class_name;/* STEP_BACKLINK */
    /* resolved */
    lar_class cls;         /* the class the property belongs to */
    uint32_t prop;
    lar_property_def def;  /* strings owned by the environment */
} path_step;

typedef enum expr_kind { EXPR_KEYPATH, EXPR_CONSTANT, EXPR_ARGUMENT, EXPR_LIST, EXPR_SUBQUERY } expr_kind;

/* What an expression yields, found by resolution. */
typedef struct shape {
    lar_type type;         /* LAR_TYPE_MIXED for mixed values, LAR_TYPE_NULL for nil */
    bool many;             /* several values per object (through a list, set or map) */
    bool nullable;
    bool type_name;        /* @type: compared with type names */
    lar_collection collection; /* the key path ends at a collection property (no aggregate) */
    lar_class link_class;  /* LAR_TYPE_LINK */
    bool has_link_class;
} shape;

typedef struct pred pred;
typedef struct expr expr;

struct expr {
    expr_kind kind;
    int column;
    shape shape;
    /* EXPR_CONSTANT: the value as written, and its text; resolution may read a number
     * again as the type of the property it is compared with (decimal128). */
    lar_value literal;
    const char *text;
    size_t text_size;
    union {
        struct {
            path_step *steps;
            size_t count;
            aggregate agg;
            int agg_column;
            long keypath_arg;      /* >= 0: the %K argument whose text this path is */
        } path;
        lar_value constant;
        struct { long index; bool keypath; } arg; /* keypath: %K not yet bound */
        struct { expr **items; size_t count; } list;
        struct {
            expr *collection;      /* a key path */
            const char *variable;  /* without its '$' */
            int variable_column;
            pred *predicate;
        } subquery;
    } as;
};

typedef enum pred_kind { PRED_TRUE, PRED_FALSE, PRED_AND, PRED_OR, PRED_NOT, PRED_COMPARE } pred_kind;
typedef enum quantifier { QUANT_NONE_GIVEN, QUANT_ANY, QUANT_ALL, QUANT_NONE } quantifier;

#define OPT_CASE 0x1u
#define OPT_DIACRITIC 0x2u

struct pred {
    pred_kind kind;
    int column;
    union {
        struct { pred **items; size_t count; } list;  /* AND, OR: two or more */
        pred *operand;                                 /* NOT */
        struct {
            cmp_op op;
            unsigned options;
            quantifier quant;
            int quant_column, op_column;
            expr *left, *right;
        } cmp;
    } as;
};

typedef enum order_kind { ORDER_SORT, ORDER_DISTINCT, ORDER_LIMIT } order_kind;
typedef struct order_item { expr *path; bool ascending; } order_item;
typedef struct order {
    order_kind kind;
    int column;
    order_item *items;     /* SORT, DISTINCT */
    size_t count;
    uint64_t limit;        /* LIMIT */
} order;

/* A bound argument. */
typedef struct bound_arg {
    int kind;              /* 0 unbound, else LAR_QUERY_ARG_* */
    lar_value value;
    lar_value *list;
    size_t list_count;
    expr *path;            /* a parsed %K key path */
    const char *path_text; /* its text, for messages */
} bound_arg;

struct lar_query {
    arena arena;
    lar_env *env;
    lar_class cls;         /* QUERY_VALUES_CLASS for a query over values */
    schema_class *values;  /* a query over values: its one-property class, `self` (values.c) */
    char *text;
    pred *root;
    order *orders;
    size_t order_count;
    long arg_count;        /* highest index + 1 */
    bool positional;       /* %@ and %K (else $n) */
    bool has_keypath_args;
    bool resolved;         /* every %K is bound and the whole query resolved */
    bool value_checked_args; /* resolution checked an argument's value, not only its type
                              * (a link's class, an @type name): a rebind resolves again */
    bound_arg *args;       /* arg_count */
    struct query_builder *builder; /* while built by calls (build.c); NULL once finished */
};

/* The class id a query over values gives its class of one property, `self`: no class
 * of a schema has it (MAX_CLASSES). */
#define QUERY_VALUES_CLASS ((lar_class)UINT32_MAX)

/* Class cls of q's key paths: q's class of values, or schema's class cls. */
static inline const schema_class *query_class_at(const lar_query *q, const lar_schema *schema, lar_class cls)
{
    return q->values && cls == QUERY_VALUES_CLASS ? q->values : schema_class_at(schema, cls);
}

/* query.c: parses text into q (its env and class set) and resolves it; frees q on failure. */
int query_parse_new(lar_query *q, const char *text, lar_query **out);
/* values.c: frees a query's class of values. */
void query_values_free(lar_query *q);

/* parse.c: text -> AST in q's arena (q->text set). */
int query_parse_text(lar_query *q);
/* Parses text as a lone key path (a %K argument). */
int query_parse_keypath(lar_query *q, const char *text, expr **out);
/* The same; allow_variable: it may begin with $name (inside a built subquery). */
int query_parse_path(lar_query *q, const char *text, bool allow_variable, expr **out);
/* query.c: copies a value's bytes into q's arena, checking strings for UTF-8; what names
 * the value in messages ("argument 2"). */
int query_copy_value(lar_query *q, const lar_value *in, lar_value *out, const char *what);
/* build.c: gives q (its env and class set) a builder; frees q on failure. */
int query_build_new(lar_query *q, lar_query **out);
/* build.c: frees a query's builder state (its stack). */
void query_builder_free(lar_query *q);
/* resolve.c: resolves and checks the whole query against q->cls and the bound arguments. */
int query_resolve(lar_query *q);
/* Resolves a lone key path (a sort, distinct or aggregate key) against q->cls in schema
 * (the transaction's it is read in: no transaction begun to find the current one). */
int query_resolve_keypath(lar_query *q, const lar_schema *schema, expr *e);
/* describe.c */
void query_describe(const lar_query *q, text_out *o, unsigned flags);
void out_expr(text_out *o, const lar_query *q, const expr *e, unsigned flags);

#endif
