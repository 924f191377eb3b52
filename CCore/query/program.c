/* The branch program (plan.h): a compiled tree of checks flattened, once per run, into
 * tests that each name the test to take next when they hold and when they fail.
 *
 * A node with the targets (yes, no) becomes: for an AND, its first kid with (the second
 * kid, no), ..., its last with (yes, no); for an OR, its first with (yes, the second), ...;
 * for a NOT, its kid with (no, yes); TRUEPREDICATE and FALSEPREDICATE are their target
 * and no test. A row runs through the tests in a loop (eval.c: plan_match), int slots
 * tested in place, a string slot against a string read and tested without a call
 * through the node, and any other node evaluated as before, so a filter of such terms
 * costs no call per row (but a string search's) however its ANDs, ORs and NOTs nest. */
#include "query/plan.h"

static size_t test_count(const node *n)
{
    if (n->kind == NODE_TRUE || n->kind == NODE_FALSE) return 0;
    if (n->kind != NODE_AND && n->kind != NODE_OR && n->kind != NODE_NOT) return 1;
    size_t count = 0;
    for (size_t i = 0; i < n->count; i++) count += test_count(n->kids[i]);
    return count;
}

/* Appends n's tests (with the targets yes and no) to p->program; *entry: its first test. */
static void emit(plan *p, node *n, int32_t yes, int32_t no, size_t *used, int32_t *entry)
{
    switch (n->kind) {
    case NODE_TRUE: *entry = yes; return;
    case NODE_FALSE: *entry = no; return;
    case NODE_NOT: emit(p, n->kids[0], no, yes, used, entry); return;
    case NODE_AND: case NODE_OR: {
        /* The last kid first: each kid's targets name the entry of the one after it. */
        int32_t next = n->kind == NODE_AND ? yes : no; /* no kids: AND holds, OR fails */
        for (size_t i = n->count; i-- > 0;) {
            bool last = i + 1 == n->count;
            int32_t kid_yes = n->kind == NODE_AND ? next : yes, kid_no = n->kind == NODE_AND ? no : next;
            if (last) kid_yes = yes, kid_no = no;
            emit(p, n->kids[i], kid_yes, kid_no, used, &next);
        }
        *entry = next;
        return;
    }
    default: break;
    }
    branch *b = &p->program[*used];
    *b = (branch){.kind = BRANCH_NODE, .yes = yes, .no = no, .node = n};
    if (n->kind == NODE_SLOT && n->type == LAR_TYPE_STRING && plan_is_string_test(n->test)) b->kind = BRANCH_STRING;
    if (n->kind == NODE_COMPARE && n->left.memoized) b->kind = BRANCH_LINK;
    if (n->kind == NODE_SLOT && n->int_test) {
        b->kind = (branch_kind)(BRANCH_INT_EQ + (n->op - OP_EQ));
        b->offset = n->offset;
        b->constant = n->integer;
        if (n->in_bitmap) {
            b->null_byte = p->cls->fixed_size + n->prop / 8;
            b->null_mask = (uint8_t)(1u << (n->prop % 8));
        }
    }
    *entry = (int32_t)(*used)++;
}

int program_compile(plan *p)
{
    size_t count = test_count(p->root);
    if (count > INT32_MAX) return lar_fail(LAR_EINVAL, "the query has too many terms");
    p->program = arena_alloc(&p->arena, (count ? count : 1) * sizeof *p->program);
    if (!p->program) return lar_fail(LAR_ENOMEM, "out of memory compiling a query");
    size_t used = 0;
    emit(p, p->root, PROGRAM_MATCH, PROGRAM_MISS, &used, &p->entry);
    return LAR_OK;
}

bool plan_matches_all(const plan *p)
{
    return p->entry == PROGRAM_MATCH;
}
