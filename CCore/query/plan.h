/* The query evaluator's compiled form, shared by compile.c (which builds it from a
 * resolved query) and eval.c (which runs it on rows). Private to the query layer. */
#ifndef LARDER_PLAN_H
#define LARDER_PLAN_H

#include "query/results.h"
#include "query/ascii.h"
#include "query/link_memo.h"

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
    bool memoized;            /* a path through a to-one link of the queried class against
                               * constants: its answers kept per target (link_memo.h) */
    link_memo memo;
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
    ascii_needle needle;      /* one folded string constant's, for CONTAINS[c] and [d] */
    value_test test;          /* a left value against the constants */
    /* Slot nodes: a property of the queried class; a memoized comparison (left.memoized):
     * the link its path starts with. */
    uint32_t prop, offset;
    lar_type type;
    bool in_bitmap;           /* optional: its null bit may be set */
    bool int_test;            /* an int slot against one int: tested inline (eval.c) */
    int64_t integer;          /* the constant, for the number tests */
    double real;
};

/* The branch program (program.c): the tree of checks flattened into tests that each
 * name the test to take next when they hold and when they fail, so that a row runs
 * through ANDs, ORs and NOTs without a call through the tree. A test
 * index >= 0 names a branch, or the run ends on PROGRAM_MATCH or PROGRAM_MISS. */
#define PROGRAM_MATCH (-1)
#define PROGRAM_MISS (-2)

typedef enum branch_kind {
    BRANCH_INT,            /* an int slot against a range of ints (any comparison with one int) */
    BRANCH_STRING,         /* a string slot against one string (eval.c: plan_is_string_test) */
    BRANCH_LINK,           /* a path through a to-one link, its answers kept (operand.memoized) */
    BRANCH_NODE,           /* any other check: eval.c evaluates the node */
} branch_kind;

typedef struct branch {
    branch_kind kind;
    uint32_t offset;       /* the int slot */
    uint32_t null_byte;    /* with null_mask: the bit that marks the slot null (mask 0: never null) */
    uint8_t null_mask;
    bool outside;          /* BRANCH_INT: an int holds when it is not in the range */
    bool null_holds;       /* BRANCH_INT: what null gives (true only for !=) */
    int32_t yes, no;       /* the next test when this one holds, when it fails */
    uint64_t low, span;    /* BRANCH_INT: v is in the range when (uint64_t)v - low <= span */
    node *node;            /* BRANCH_STRING, BRANCH_NODE */
} branch;

/* Flattens p->root into p->program and p->entry. */
int program_compile(plan *p);

struct plan {
    lar_txn *txn;
    const lar_query *q;
    const schema_class *cls;
    lar_class cls_id;
    node *root;
    branch *program;          /* program_compile(): the tests, and the one a row starts at */
    int32_t entry;
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

/* A test other than an int's (eval.c): out of line, so that the loop over int tests
 * keeps few registers. */
int plan_run_other(plan *p, const branch *b, const uint8_t *bytes);

/* plan_match(), inline in a scan's loop (results.c): the row runs through the branch
 * program, int slots tested in place, with no call per row for a filter of int tests. */
static inline int plan_match_inline(plan *p, lar_objkey key, const kv_val *row)
{
    if (!row_shape_ok(p->cls, row)) return row_check_shape(p->cls, row);
    p->key = key;
    p->row = row;
    const uint8_t *bytes = row->mv_data;
    int32_t at = p->entry;
    while (at >= 0) {
        const branch *b = &p->program[at];
        int hit;
        if (b->kind == BRANCH_INT) {
            int64_t v;
            memcpy(&v, bytes + b->offset, 8);
            hit = bytes[b->null_byte] & b->null_mask ? b->null_holds : ((uint64_t)v - b->low <= b->span) != b->outside;
        } else {
            hit = plan_run_other(p, b, bytes);
            if (hit < 0) return hit;
        }
        at = hit ? b->yes : b->no;
    }
    return at == PROGRAM_MATCH;
}


#define TRY(expr) do { int rc_ = (expr); if (rc_ < 0) return rc_; } while (0)

static inline bool string_op(cmp_op op)
{
    return op == OP_BEGINSWITH || op == OP_ENDSWITH || op == OP_CONTAINS || op == OP_LIKE;
}

/* The test of a left value against a node's constants, chosen for the type it reads. */
value_test plan_choose_test(const node *n, lar_type type);
/* Whether test is the one for an int against one int constant (n->op, n->integer). */
bool plan_is_int_test(value_test test);
/* Whether test is one for a string against one string constant, with or without [c]/[d]. */
bool plan_is_string_test(value_test test);

#endif
